"""The one lexicon: the words and name shapes that answers, planning and reports read text by.

Month and weekday names, languages and nationalities, the connectors inside names ("University of
Bath", "Leonardo da Vinci"), the capitalised-name patterns, and the parts of
:data:`deepresearch.text.STOPWORDS` (with the few words each adds) that one job needs: the words
cut from the front of a name, the words that cannot be a question's type noun or that end its noun
phrase, the words that leave a title dangling; the nouns that name people (kin, agent nouns) and
the agent-shaped nouns that do not; the type nouns that ask for a date, a place or a person; the
words that open a place's name, and the lone capitalised words that name nothing to research.
Each is defined here once and imported by its users.

The lists are policy measured by their callers' tests: where two callers want different words or
shapes, both stand here under names that say how they differ.
"""

from __future__ import annotations

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


MONTHS = (
    "January February March April May June July August September October November December".split()  # noqa: SIM905
)
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()  # noqa: SIM905
CALENDAR_WORDS = frozenset(w.lower() for w in (*MONTHS, *WEEKDAYS))
"""Months and weekdays, lower-cased: capitalised words that name no one."""
MONTH = rf"(?:{'|'.join(MONTHS)}|Jan\.|Feb\.|Aug\.|Sept?\.|Oct\.|Nov\.|Dec\.)"
"""A month's name, written out or abbreviated with a full stop (a regular-expression fragment)."""

LANGUAGES = _words(
    """arabic bengali chinese czech danish dutch english finnish french german greek hebrew hindi
    hungarian italian japanese korean latin mandarin cantonese norwegian persian polish portuguese
    russian sanskrit spanish swahili swedish tamil telugu thai turkish urdu vietnamese welsh irish
    gaelic yiddish"""
)
"""Language names, lower-cased (the closed class of "what language …")."""
_LANGUAGES_NOT_NATIONALITIES = _words(
    "arabic bengali cantonese gaelic hebrew mandarin sanskrit swahili urdu yiddish"
)
NATIONALITIES = (LANGUAGES - _LANGUAGES_NOT_NATIONALITIES) | _words(
    """african american argentine asian australian austrian belgian brazilian british canadian
    catholic christian democrat democratic egyptian european filipino indian iranian israeli jewish
    kenyan mexican muslim nigerian pakistani republican roman romanian scottish soviet swiss
    ukrainian"""
)
"""Capitalised adjectives of belonging (nation, people, faith, party), lower-cased: "a French
actor" names an actor, not a Frenchman, so these are no answer to "who" and end no person's name."""

CONNECTORS = _words("of the de da di del della des du von van der den la le y")
"""Lower-case words inside a name: "Bank of England", "Vincent van Gogh", "José de San Martín"."""
_CONNECTOR = rf"(?:{'|'.join(sorted(CONNECTORS))})"

CAPITALISED_WORD = r"[A-Z][\w'’.-]*"
"""A word that opens with a capital, inner apostrophes, full stops and hyphens kept ("O'Hara",
"U.S.", "Jean-Paul"); one letter is enough (an initial)."""
_NICKNAME = rf"[\"“]{CAPITALISED_WORD}[\"”](?=\s+[A-Z])"
NAME = re.compile(
    rf"{CAPITALISED_WORD}(?:\s+(?:{_CONNECTOR}\s+)*(?:{CAPITALISED_WORD}|{_NICKNAME}|\d+\b(?![,.]\d)))*"
)
"""A run of capitalised words joined by :data:`CONNECTORS`, with numbers that follow a name
("Apollo 11", not the "3" of "3.5") and a quoted nickname inside it ('Ann "Nan" Hale' is one
name, not "Ann" and "Nan Hale"): the candidate names of a sentence, before trimming."""
NAMES_JOINED_BY_AND = rf"(?:{CAPITALISED_WORD}\s+(?:(?:of|the|de|and|von|van|la|le)\s+)*)*[A-Z][\w'’.-]+"
"""The names a question asks about, as one run that "and" may join ("Ada and Ben Lowe"; the
planner splits it) and fewer connectors than :data:`NAME` join; no numbers, and the last word has
two characters at least (a regular-expression fragment)."""
INNER_NAME_OR_NUMBER = re.compile(rf"(?<=\s){CAPITALISED_WORD}|(?<=\s)\d[\d,.]*|(?<=\s\W){CAPITALISED_WORD}")
"""Capitalised words and numbers after white space (or white space and a mark such as a quote),
so never the text's first word: what a question is about."""
INNER_NAME_WORD = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][\w'’-]+")
"""Capitalised words of two letters or more that open no sentence, cut at a full stop ("U.S."
gives none): the names an answer must share with the sentence that states it."""

NAME_LEADING = _words(
    """a an the in on at of for from to by with as and but or he she it its his her their they this
    that these those there after before during when while also then was is are were"""
) | _words("although since however later born died following")
"""Words cut from the front of a capitalised run ("In Paris", "After Dana"): stopwords, and the
words that open a sentence before a name."""
NAME_TRAILING = CONNECTORS | _words("and on upon in")
"""Words cut from the end of a capitalised run: a connector or a preposition that joined nothing."""
POST_NOMINALS = _words(
    """MBE OBE CBE KBE DBE GBE FRS FRSE FBA FRSA KC QC VC GC DSO DFC AFC MC PC MP MEP KG KT
    GCB KCB CB CH OM PhD"""
)
"""Letters after a person's name for an honour, a degree or an office ("Jim Mollison MBE"): not
part of the name, and all capitals, so they would make a person read as an acronym."""

NOT_A_TYPE_NOUN = _words(
    "also now then is was are were does did do the a an has had have will would can could"
) | _words("still currently originally first kind type")
"""Words the last word of a "what …" noun phrase cannot be ("what kind", "what is"): stopwords,
adverbs of time, and "kind"/"type" (which ask for the noun after them)."""
ATTRIBUTE_NOUNS = _words("profession occupation job career trade vocation position genre")
"""Type nouns whose answer describes the subject instead of naming an entity ("What was her
profession?" → "aviator", "What position does he play?" → "goalkeeper")."""
PHRASE_END = (
    NOT_A_TYPE_NOUN
    | _words(
        """should of in on at for to by from with that who whom whose which where when as through
        into about over under after before during between against than his her its their he she it
        they this these those"""
    )
    | _words("near there here then")
)
"""Words that end the noun phrase after "what …": :data:`NOT_A_TYPE_NOUN`, prepositions, relative
and personal pronouns, adverbs of place and time ("what is the name of the lake there")."""

DANGLING = _words(
    "a an the and or nor but of to from with by as than that into about between whose"
) | _words("via")
"""Words a search query or a task title cannot end in: articles, conjunctions, prepositions."""

QUESTION_WORDS = _words("who whom whose what when where which why how")
TASK_VERBS = _words(
    """is was are were be been being do does did has have had can could will would should may might
    must say says said find finds found make makes made become became play plays played write wrote
    written win won lead led hold holds held know known give gave given lie lies lay run runs ran
    live lived die died born"""
)
"""The question words and common verbs that make an English task title a question or an intent
("Who founded the Ostvik line?", "Find when the line closed"), not a label ("Ostvik line
history"); a word ending in -ed counts as a verb too (:func:`deepresearch.graph.planning.is_label`).
``evals/report_quality.py`` keeps its own copy, frozen, so that main and a branch are measured alike."""
KIN_NOUNS = _words(
    """brother sister son daughter wife husband mother father parent child sibling spouse partner
    cousin uncle aunt nephew niece grandson granddaughter grandfather grandmother widow widower
    twin heir founder"""
)
"""Nouns of kin and of family standing, singular: "which brothers …", "whose widow …" ask for a
person."""
AGENT_ENDINGS = ("er", "or", "ist", "ess", "ian")
"""The endings of agent nouns ("performer", "sculptor", "cellist", "actress", "comedian"): a noun
with one names people, unless it is one of :data:`NOT_AGENT_NOUNS`."""
NOT_AGENT_NOUNS = _words(
    """number letter chapter center centre order water paper power tower cover corner border
    counter computer register quarter theater theatre river winter summer matter meter metre
    error factor sector color colour honor honour labor labour motor rotor mirror trailer poster
    container answer manner banner trigger chamber business address fortress"""
)
"""Singular nouns with an agent ending (:data:`AGENT_ENDINGS`) that name things, not people."""

DATE_NOUNS = ("year", "date", "century", "decade", "month", "day")
"""Type nouns that ask for a date: "in which decade …"."""
PLACE_NOUNS = tuple(
    """city town village country state county province region continent location place island
    river mountain lake sea ocean district borough municipality capital area neighborhood""".split()  # noqa: SIM905
)
"""Type nouns that ask for a place: "which island …"."""
PERSON_NOUNS = tuple(
    """person man woman actor actress singer player author writer director producer politician
    president king queen composer musician artist poet novelist footballer coach leader founder
    spouse wife husband son daughter father mother brother sister sibling member""".split()  # noqa: SIM905
)
"""Type nouns that ask for a person: "which novelist …" (agent nouns beyond these are recognised
by :data:`AGENT_ENDINGS`)."""

PLACE_NAME_STARTS = _words(
    "new san santa saint st los las el le la de del da di van von der den du mount mt lake fort"
)
"""Lower-cased words that open a place's or a person's name ("Fort", "San", "van"): a title that
ends in one, capitalised, is cut short."""
COMMON_CAPITALISED = CALENDAR_WORDS | _words(
    """american german french dutch greek swiss thai israeli iraqi pakistani african mexican olympic
    catholic christian muslim jewish"""
)
"""Lone capitalised words that name nothing to research: months, weekdays and a few adjectives
(fewer than :data:`NATIONALITIES`: more would drop names a plan researches)."""
DEMONYM_ENDINGS = ("ian", "ean", "ish", "ese")
"""Endings of lone capitalised adjectives of belonging ("Peruvian", "Korean", "Danish",
"Maltese"), which name nothing to research alone."""

PERSON_PRONOUNS = ("She", "He")
"""Sentence-opening pronouns that stand for a person passage's subject."""
PERSONAL_PRONOUNS = _words("he she him his her hers")
"""A person's pronouns anywhere in a text, lower-case: who "his wife" or "when was she born" means."""
SUBJECT_PRONOUNS = (*PERSON_PRONOUNS, "It")
"""Sentence-opening pronouns that stand for the passage's subject, a person's or a place's."""
OPENING_PRONOUNS = (*SUBJECT_PRONOUNS, "They")
"""Sentence-opening pronouns that leave a quoted sentence without its subject: quoted alone it must
say whom it is about."""


def opening(words: tuple[str, ...]) -> re.Pattern[str]:
    """A pattern matching a text that opens with one of ``words`` as a whole word."""
    return re.compile(rf"^(?:{'|'.join(words)})\b")
