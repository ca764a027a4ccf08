"""What a question asks for: the kind of answer, the options it names, the noun it asks about.

Code reads this from the question's wording (who → a name, when → a date, how many → a number,
"X or Y" → one of the options, "Are …" → yes or no), so that candidate answers can be typed
without asking a model that cannot be trusted with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.answers.candidates import names
from deepresearch.answers.evidence import QUALIFIER
from deepresearch.answers.rewrite import canonical_question
from deepresearch.domain import AnswerKind as AnswerKind
from deepresearch.lexicon import (
    AGENT_ENDINGS,
    DATE_NOUNS,
    INNER_NAME_OR_NUMBER,
    KIN_NOUNS,
    NOT_A_TYPE_NOUN,
    NOT_AGENT_NOUNS,
    PERSON_NOUNS,
    PHRASE_END,
    PLACE_NOUNS,
)
from deepresearch.text import key_stems, key_terms

_AUX = r"(?:are|is|was|were|do|does|did|can|could|has|have|had|will|would|should)"
_YESNO = re.compile(rf"^(?:[^.?!]*[.!]\s+)?{_AUX}\b", re.IGNORECASE)
_NUMBER = re.compile(
    r"\bhow (?:many|much|long|old|tall|big|large|far|high|deep|wide|heavy)\b"
    r"|\bwhat (?:is the |was the )?(?:percentage|percent|number|population|amount|size|length|height|area)\b"
    r"|\bpopulation\b",
    re.IGNORECASE,
)
_DATE = re.compile(
    rf"\bwhen\b|\b(?:what|which|in what|in which) (?:{'|'.join(DATE_NOUNS)})\b|\bwhat time\b",
    re.IGNORECASE,
)
_PLACE = re.compile(rf"\bwhere\b|\b(?:what|which) (?:\w+ )?(?:{'|'.join(PLACE_NOUNS)})\b", re.IGNORECASE)
_PERSON = re.compile(
    rf"\b(?:who|whom|whose)\b|\b(?:what|which) (?:\w+ )?(?:{'|'.join(PERSON_NOUNS)})\b", re.I
)
_TYPE_NOUN = re.compile(r"\b(?:[Ww]hat|[Ww]hich)\b")
_NAME_OF = re.compile(r"^\s+(?:is|was|are|were)\s+the\s+(?:name|title)\s+of(?:\s+(?:the|a|an))?\b", re.I)
_COPULA_THE = re.compile(r"^\s+(?:is|was|are|were)\s+the(?=\s+[a-z]+\s+(?:of|for|that|which|who)\b)")
_SECOND_ASK = re.compile(
    r",?\s+and\s+((?:(?:in|on|at|by|from|for)\s+(?:what|which|whom)|when|how\s+(?:many|much|long|old))\b[^,]*)\??$",
    re.IGNORECASE,
)
# a comparative written straight before the first option, as people type it without a comma
# ("Who is older Ada Brandt or Lev Sokol?")
_COMPARED = (
    r"\b(?:older|younger|earlier|later|larger|bigger|smaller|taller|longer|shorter|higher|lower"
    r"|(?:more|less)\s+[a-z]+)(?=\s+(?:the\s+)?(?-i:[A-Z\"“]))"
)
_CHOICE = re.compile(
    rf"(?:,|:|\bfirst|\bbetween|{_COMPARED})\s*(?:the\s+)?([^,?:]+?)\s+or\s+(?:the\s+)?([^,?]+?)\s*\??\s*$",
    re.I,
)
_BOTH = re.compile(
    rf"\b{_AUX}\s+(?:both\s+)?(?:the\s+(?-i:[a-z])\w*\s*,?\s*)?(.+?)\s+and\s+(.+?)\s+"
    r"(?:both|each|members|situated|(?:in |from |of )?(?:one and )?the same)\b",
    re.IGNORECASE,
)
_PAIR = re.compile(
    r"^(?:between\s+)?(?:the\s+)?([^,]+?)\s+and\s+(?:the\s+)?([^,]+?)(?:,|\s+(?:were|are|was|is)\b)", re.I
)
_PAIR_ASKS = re.compile(
    r"\b(?:which|who)\b[^?]*\b(?:first|more|most|older|younger|larger|earlier|later)\b", re.I
)
_WH = re.compile(r"\b(?:who|whom|whose|what|when|where|which|how)\b", re.IGNORECASE)
_OPENING_WH = re.compile(
    r"^(?:[^.?!]*[.!]\s+)?(?:(?:in|on|at|from|to|by|for|of|with|during|after|before|since)\s+)?"
    r"(who|whom|whose|what|when|where|which|how)\b",
    re.IGNORECASE,
)
_INTERROGATIVE = re.compile(r"\b(what|which|how)\b", re.IGNORECASE)
_KINDS: tuple[tuple[re.Pattern[str], AnswerKind], ...] = (
    (_NUMBER, "number"),
    (_DATE, "date"),
    (_PLACE, "place"),
    (_PERSON, "person"),
)
_BOTH_NOUN = re.compile(r"\bboth\s+\w+,\s+(?:the\s+)?(.+?)\s+and\s+(?:the\s+)?(.+?),", re.IGNORECASE)
_ADVERB_ENDINGS = ("ally", "ately", "ously", "ively", "ently", "antly", "fully", "edly", "ingly")


@dataclass(frozen=True)
class QuestionFrame:
    """The question read by code. ``options`` are the alternatives a choice or yes/no question
    names; ``type_noun`` is the noun of "what county …" (``county``); ``terms`` its key terms;
    ``describes`` the stems that only say what kind of answer is wanted ("US" and "state" in
    "which US state"), which evidence need not hold."""

    text: str
    kind: AnswerKind
    options: tuple[str, ...] = ()
    type_noun: str | None = None
    terms: tuple[str, ...] = ()
    names: frozenset[str] = frozenset()
    focus: frozenset[str] = frozenset()
    also: AnswerKind | None = None
    describes: frozenset[str] = frozenset()

    @property
    def evidence_terms(self) -> tuple[str, ...]:
        """The terms evidence should hold: not the words that only describe the answer wanted
        ("US" in "which US state")."""
        return tuple(t for t in self.terms if t not in self.describes)


def frame_question(question: str) -> QuestionFrame:
    text = canonical_question(" ".join(question.split()))
    terms = tuple(key_stems(text))
    noun = _type_noun(text)
    choice = _options(text)
    describes = _type_modifiers(text, noun) | (
        frozenset(key_stems(noun)) if noun in PLACE_NOUNS else frozenset()
    )
    names = question_names(text) - describes
    focus = _focus(text) - names
    if _YESNO.match(text) and not _WH.search(text):
        both = _BOTH.search(text) or _BOTH_NOUN.search(text)
        options = tuple(_named_part(_clean(o)) for o in both.groups()) if both else _named(text)
        return QuestionFrame(text, "yesno", options, noun, terms, names, focus)
    if choice:
        return QuestionFrame(text, "choice", choice, noun, terms, names, focus)
    kind, also = _kind(text, noun), _second_ask(text)
    second = also if also != kind else None
    return QuestionFrame(text, kind, (), noun, terms, names, focus, second, describes)


def _second_ask(text: str) -> AnswerKind | None:
    """The kind a second question joined by "and" asks for: "Who founded Copper Kettle, and in
    what year?" asks for a date as well as a person."""
    second = _SECOND_ASK.search(text)
    if second is None:
        return None
    tail = second.group(1)
    return next((kind for pattern, kind in _KINDS if pattern.search(tail)), None)


def _type_modifiers(text: str, noun: str | None) -> frozenset[str]:
    """Stems of the capitalised words that qualify the noun asked about ("which US state",
    "what Scottish actress"): they say what kind of answer is wanted, not what the question is
    about, so evidence need not hold them."""
    if noun is None:
        return frozenset()
    match = re.search(
        rf"\b(?i:which|what)\s+((?:[A-Z][\w.'’-]*\s+)+)(?:[a-z]+\s+)*?{re.escape(noun)}\b", text
    )
    return frozenset(key_stems(match.group(1))) if match else frozenset()


def _named_part(option: str) -> str:
    """An option without the words the question put around its name: "Jingdezhen lie" in "do
    Nantong and Jingdezhen lie in the same province" is "Jingdezhen", and "films Salt Road (1961
    film)" is "Salt Road (1961 film)" (lower-case words, a name, lower-case words, a bracketed
    qualifier kept); an option that is not a name is kept whole."""
    qualifier = QUALIFIER.search(option)
    core = option[: qualifier.start()] if qualifier else option
    first = next(iter(names(core)), "")
    at = core.find(first) if first else -1
    around = (core[:at] + " " + core[at + len(first) :]).split() if at >= 0 else []
    words = [w.strip(",;:") for w in around]
    if not (words and all(w.islower() for w in words if w)):
        return option
    return first + (qualifier.group(0) if qualifier else "")


def strip_auxiliary(name: str) -> str:
    """A name without the auxiliary that opened the question ("Did Greece" → "Greece")."""
    words = name.split()
    if words and re.fullmatch(_AUX, words[0], re.IGNORECASE):
        words = words[1:]
    return " ".join(words)


def _named(text: str) -> tuple[str, ...]:
    """Two or more names a yes/no question compares ("… Ines Moreno … Tomas Ruiz …")."""
    found = [n for n in names(text) if len(n.split()) >= 2 and ". " not in n]
    return tuple(found) if len(found) >= 2 else ()


def _focus(text: str) -> frozenset[str]:
    return frozenset(s for w in focus_words(text) for s in key_stems(w))


def focus_words(text: str) -> list[str]:
    """The content words within three words of a wh-word: the relation the answer stands in
    ("written by who", "first husband of what painter"), in question order."""
    words = text.split()
    near: dict[str, None] = {}
    for i, word in enumerate(words):
        if _WH.fullmatch(word.strip("?,.\"'").lower()):
            for w in words[max(0, i - 3) : i + 4]:
                near.update(dict.fromkeys(key_terms(w)))
    return list(near)


def question_names(text: str) -> frozenset[str]:
    """Stems of the question's capitalised words (its first word aside) and numbers: what the
    question is about, which any answer's evidence must hold."""
    words = INNER_NAME_OR_NUMBER.findall(text)
    return frozenset(s for w in words for s in key_stems(w))


def _kind(text: str, noun: str | None) -> AnswerKind:
    """The kind the question's own wh-clause asks for: in "Who keeps the lighthouse where X fell?"
    the answer is a person; "where" only names the bridge."""
    for scope in (asking_clause(text), text):
        for pattern, kind in _KINDS:
            if pattern.search(scope):
                return kind
        if noun:  # "What boat does a pilot, who …, sail?": the noun, not a relative "who"
            return _noun_kind(noun)
    return "entity"


def _noun_kind(noun: str) -> AnswerKind:
    if noun in DATE_NOUNS:
        return "date"
    if noun in PLACE_NOUNS:
        return "place"
    return "person" if noun in PERSON_NOUNS or is_person_noun(noun) else "entity"


def is_person_noun(noun: str) -> bool:
    """A noun that names people: kin ("brothers", "wife") and agent nouns ("performer",
    "sculptor", "cellist", "comedian"), so "which performer …" asks for a person like "who …"."""
    word = noun.lower()
    singular = word[:-1] if word.endswith("s") and not word.endswith("ss") else word
    if singular in KIN_NOUNS or word in KIN_NOUNS:
        return True
    return singular.endswith(AGENT_ENDINGS) and singular not in NOT_AGENT_NOUNS and len(singular) > 4


def asking_clause(text: str) -> str:
    """The words that say what is asked: from the asking wh-word (the one opening a sentence,
    else the first "what/which/how" — "who" and "where" mid-sentence are relative) to the next."""
    first = _OPENING_WH.match(text) or _INTERROGATIVE.search(text)
    if not first:
        return text
    after = _WH.search(text, first.end())
    return text[first.start(1) : after.start() if after else len(text)]


def _type_noun(text: str) -> str | None:
    """The noun "what …" asks about: the last word of the noun phrase after it ("what mountain
    range is" → range, "which stage and screen actress from" → actress), not a verb that
    follows it ("what movie stars Clara Voss" → movie, "what song premiered" → song)."""
    for match in _TYPE_NOUN.finditer(text):
        rest = _NAME_OF.sub("", text[match.end() :], count=1)
        rest = _COPULA_THE.sub("", rest, count=1)  # "What was the trade of …" asks for a trade
        words = _phrase(rest)
        if words and words[-1] not in NOT_A_TYPE_NOUN:
            return words[-1]
    return None


def _phrase(rest: str) -> list[str]:
    words: list[str] = []
    breaker = ""
    for token in re.findall(r"[\w'’-]+|[,?.;:]", rest):
        if token[0].isupper() and not words:
            continue  # "which Scottish actress": a proper adjective before the noun
        if not token[0].isalpha() or token[0].isupper() or _ends_phrase(token.lower()):
            breaker = token
            break
        if token.lower() != "and":
            words.append(token.lower())
    while len(words) > 1 and _verb_like(words[-1], breaker):
        words.pop()
    return words if words and words[0] not in NOT_A_TYPE_NOUN and not _verb_like(words[-1], "") else []


def _ends_phrase(word: str) -> bool:
    return word in PHRASE_END or word.endswith(_ADVERB_ENDINGS)


def _verb_like(word: str, breaker: str) -> bool:
    """A past tense ("premiered"), or a present tense before a name or a preposition ("stars
    Clara", "flows through")."""
    if word.endswith("ed"):
        return True
    before_object = bool(breaker) and (breaker[0].isupper() or breaker.lower() in PHRASE_END)
    return before_object and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _options(text: str) -> tuple[str, ...]:
    match = _CHOICE.search(text) or (_PAIR.search(text) if _PAIR_ASKS.search(text) else None)
    if not match:
        return ()
    options = tuple(_clean(o) for o in match.groups())
    return options if all(key_stems(o) for o in options) and all(len(o) <= 80 for o in options) else ()


def _clean(option: str) -> str:
    option = re.sub(r"^(?:the|a|an)\s+", "", option.strip(" ,.;:?\"'"), flags=re.IGNORECASE)
    return option.strip()
