"""Questions that compare two named things: "Who was born first, A or B?", "Which film came out
later, A or B?", "Are A and B from the same country?", "Are A and B both painters?".

Each option's own page is found among the sentences read (the passage whose title names it, in
the page's order; else the ranked sentences that name it), and what the question compares is read
from that page:

- a life's years (its opening "(4 May 1901 – 1977)" or "born …") where the question asks who was
  born or died first, is older or younger, or lived longer;
- the first year the page writes where it asks what came first or last ("released", "founded");
- the nationalities its first describing sentence names ("a 1977 American drama film") where it
  asks whether both are of the same country or nationality;
- whether each page holds the property asked ("both sailing dinghies").

Where the question compares a related person ("Which film has the director who was born
first?"), that person is the one the option's page names whose own page was read.

Where the pages do not say what is compared, there is no decision and the answer line abstains.
Before, an unknown order fell back to the better-ranked option, a film's year stood in for its
director's birth, and "the same …?" always answered "no"; on the dev sets' comparisons those
guesses were wrong more often than right (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.answers.candidates import DATE, YEAR, names
from deepresearch.answers.evidence import QUALIFIER, Ranked, Sentence
from deepresearch.answers.features import ASKS_BIRTH, ASKS_DEATH, person_subjects
from deepresearch.answers.question import QuestionFrame, strip_auxiliary
from deepresearch.lexicon import DEMONYM_ENDINGS, NATIONALITIES
from deepresearch.text import key_stems

EARLY = re.compile(r"\b(?:first|earlier|earliest|older|oldest|before)\b", re.IGNORECASE)
LATE = re.compile(
    r"\b(?:later|latest|younger|youngest|newer|newest|most recent|more recent(?:ly)?|last)\b", re.IGNORECASE
)
_LONGER = re.compile(r"\b(?:lived longer|longer life|longest life|lived the longest)\b", re.IGNORECASE)
_ASKS_LIFE = re.compile(r"\b(?:born|birth|died|die|death|older|oldest|younger|youngest)\b", re.IGNORECASE)
_COMPARATIVE = re.compile(
    r"\b(?:more|most|less|least|fewer|fewest|(?:larg|bigg|small|tall|long|short|high|low|great|wid|deep"
    r"|heavi|fast|old|young)(?:er|est))\b",
    re.IGNORECASE,
)
_SAME = re.compile(r"\bsame\b", re.IGNORECASE)
_SAME_NOUN = re.compile(r"\bsame\s+(?:[A-Z]\w+\s+)?([a-z]{3,})\b")
_ASKS_BELONGING = re.compile(r"\b(?:nationality|nationalities|country|countries|citizens?)\b", re.IGNORECASE)
_RELATED = re.compile(
    r"\b([a-z]+?)s?\s+of\s+(?:the\s+)?(?:films?|movies?|songs?|books?|albums?|novels?)\b"
    r"|\b(?:has|have|had|with|by)\s+(?:the\s+)?([a-z]+)\b(?=\s+(?:who|that|is|was|born|died|die)\b)"
    r"|\bwhose\s+([a-z]+)\b",
    re.IGNORECASE,
)
_SITE_SUFFIX = re.compile(r"\s[-|–—]\s")
_PARENTHESIS = re.compile(r"\(([^()]*)\)")
_OPENING_PARENTHESIS = re.compile(r"^[^()]{2,80}?\(([^()]*)\)")
_BORN = re.compile(rf"\bborn\b[^.;()]*?\b({YEAR})\b")
_CAPITALISED = re.compile(r"\b([A-Z][a-z]+)\b")
_NOT_BELONGING = frozenset(
    ["african", "asian", "european", "catholic", "christian", "democrat", "democratic", "jewish"]
    + ["muslim", "republican", "roman", "latin"]
)
_PAGE_LINES = 8
"""How many of a page's sentences are read for what is compared: a life or a nationality is
written where the page opens."""


@dataclass(frozen=True)
class Decision:
    """The option (or "yes"/"no") the sources decide, and the line that decides it."""

    text: str
    evidence: Ranked
    names: tuple[str, ...]


@dataclass(frozen=True)
class OptionReading:
    """What an option's own page says that bears most on the question (``sentence``: its
    best-ranked line), or None where no page of its own was read."""

    option: str
    sentence: Sentence | None


@dataclass(frozen=True)
class _Page:
    name: str
    sentences: tuple[Sentence, ...]


def decide(frame: QuestionFrame, ranked: Sequence[Ranked], pool: Sequence[Sentence]) -> Decision | None:
    """The option a choice question's sources decide, or "yes"/"no" for "are A and B both …" and
    "… the same …"; None where an option is not read or its page does not say what is compared."""
    per_option = [option_evidence(option, ranked) for option in frame.options]
    if not all(per_option):
        return None
    pages = _pages(frame, frame.options, ranked, pool)
    if pages is None:
        return None
    if frame.kind == "yesno" and _asks_order(frame.text):
        return _first_named(frame, pages, ranked, pool, per_option[0][0])
    if frame.kind == "yesno":
        return _same(frame, pages, ranked, pool) if _SAME.search(frame.text) else _both(frame, per_option)
    if not _asks_order(frame.text):
        return _holding(frame, per_option)
    pick = ordered(frame, pages, ranked, pool)
    if pick is None:
        return None
    index, line = pick
    return Decision(frame.options[index], _cited(line, per_option[index][0]), frame.options)


def readout(
    frame: QuestionFrame, ranked: Sequence[Ranked], pool: Sequence[Sentence]
) -> tuple[OptionReading, ...]:
    """Each option's own page's best-ranked line, for a comparison the pages do not decide: the
    report hands over what each side's page says, and which side no page was read for."""
    return tuple(
        OptionReading(option, _best_own_line(_page(option, pool), ranked)) for option in frame.options
    )


def _best_own_line(page: _Page | None, ranked: Sequence[Ranked]) -> Sentence | None:
    """The page's line that ranks best for the question (its first line where none ranks)."""
    if page is None or not page.sentences:
        return None
    own = {s.source_id for s in page.sentences}
    return next((r.sentence for r in ranked if r.sentence.source_id in own), page.sentences[0])


def _asks_order(text: str) -> bool:
    return any(p.search(text) for p in (EARLY, LATE, _LONGER))


def _holding(frame: QuestionFrame, per_option: Sequence[Sequence[Ranked]]) -> Decision | None:
    """ "Which was halted by a flood, A or B?": the one option whose passage holds every term
    asked; None where both or neither do, or where it asks "more" or "larger", which a term one
    passage holds does not decide."""
    if _COMPARATIVE.search(frame.text):
        return None
    holds = [i for i, ev in enumerate(per_option) if _holds_asked(frame, ev)]
    if len(holds) != 1:
        return None
    return Decision(frame.options[holds[0]], per_option[holds[0]][0], frame.options)


def before(frame: QuestionFrame, ranked: Sequence[Ranked], pool: Sequence[Sentence]) -> Decision | None:
    """ "Did A … before B?" (a yes/no question naming no pair of options): "yes" when the first
    name's date comes first; None when the question does not ask an order or a date is not read."""
    pair = [n for n in (strip_auxiliary(n) for n in names(frame.text)) if n][:2]
    if not (EARLY.search(frame.text) or LATE.search(frame.text)) or len(pair) != 2:
        return None
    per_option = [option_evidence(option, ranked) for option in pair]
    if not all(per_option):
        return None
    pages = _pages(frame, pair, ranked, pool)
    return None if pages is None else _first_named(frame, pages, ranked, pool, per_option[0][0])


def _first_named(
    frame: QuestionFrame,
    pages: Sequence[_Page],
    ranked: Sequence[Ranked],
    pool: Sequence[Sentence],
    best: Ranked,
) -> Decision | None:
    """ "Is A older than B?": "yes" when the order asked picks the first name."""
    pick = ordered(frame, pages, ranked, pool)
    if pick is None:
        return None
    return Decision("yes" if pick[0] == 0 else "no", _cited(pick[1], best), ("yes", "no"))


def ordered(
    frame: QuestionFrame, pages: Sequence[_Page], ranked: Sequence[Ranked], pool: Sequence[Sentence]
) -> tuple[int, Sentence] | None:
    """The index of the page the question's order picks (first, last, lived longer) and the line
    that dates it; None where the question asks no order or the pages do not date what it asks."""
    early, late, longer = EARLY.search(frame.text), LATE.search(frame.text), _LONGER.search(frame.text)
    if not (early or late or longer):
        return None
    people = _related(frame, pages, pool) if longer or _ASKS_LIFE.search(frame.text) else None
    lives = [_life(page) for page in people] if people is not None else []
    if lives and all(life is not None for life in lives):
        return _by_life(frame, [life for life in lives if life is not None], bool(early), bool(longer))
    if longer or ASKS_BIRTH.search(frame.text) or ASKS_DEATH.search(frame.text) or _related_noun(frame.text):
        return None
    years = [_first_year(page) for page in pages]
    if any(y is None for y in years):
        return None
    return _pick([y for y in years if y is not None], bool(early))


def _by_life(
    frame: QuestionFrame, lives: Sequence[tuple[int, int | None, Sentence]], early: bool, longer: bool
) -> tuple[int, Sentence] | None:
    if longer or ASKS_DEATH.search(frame.text):
        if any(death is None for _, death, _ in lives):
            return None
        if longer:
            spans = [(death or born) - born for born, death, _ in lives]
            return _pick([(span, line) for span, (_, _, line) in zip(spans, lives, strict=True)], early=False)
        return _pick([(death or 0, line) for _, death, line in lives], early)
    return _pick([(born, line) for born, _, line in lives], early)


def _pick(values: Sequence[tuple[int, Sentence]], early: bool) -> tuple[int, Sentence] | None:
    """The first (``early``) or last value's index and line; None on a tie."""
    numbers = [v for v, _ in values]
    target = min(numbers) if early else max(numbers)
    if numbers.count(target) > 1:
        return None
    index = numbers.index(target)
    return index, values[index][1]


def _same(
    frame: QuestionFrame, pages: Sequence[_Page], ranked: Sequence[Ranked], pool: Sequence[Sentence]
) -> Decision | None:
    """ "Are A and B from the same country?": "yes" when their pages (or their related people's)
    name a nationality in common, "no" when both name one and none is shared. "… the same
    province?": the names each page writes beside that noun ("in Jiangsu province", "the county
    of Avon") compared. None where a page does not say (a length no opening writes)."""
    people = _related(frame, pages, pool)
    if people is None:
        return None
    noun = _SAME_NOUN.search(frame.text)
    if _ASKS_BELONGING.search(frame.text):
        found = [_belonging(page) for page in people]
    elif noun is not None:
        found = [_named_beside(page, noun.group(1).lower()) for page in people]
    else:
        return None
    read = [f for f in found if f is not None]
    if len(read) != len(found) or not read:
        return None
    answer = "yes" if frozenset.intersection(*(values for values, _ in read)) else "no"
    return Decision(answer, _cited(read[0][1], ranked[0]), ("yes", "no"))


def _named_beside(page: _Page, noun: str) -> tuple[frozenset[str], Sentence] | None:
    """The name the first of a page's lines that writes ``noun`` puts beside it ("Jiangsu" in
    "a city in Jiangsu province", "Avon" in "the county of Avon")."""
    stem = key_stems(noun)[0] if key_stems(noun) else noun
    for sentence in page.sentences[:_PAGE_LINES]:
        for match in re.finditer(rf"\b({stem}\w*)\b", sentence.text, re.IGNORECASE):
            before = re.search(r"((?:[A-Z][\w'-]+\s+){1,3})$", sentence.text[: match.start()])
            after = re.match(r"\s+of\s+((?:[A-Z][\w'-]+\s*){1,3})", sentence.text[match.end() :])
            beside = before or after
            name = beside.group(1).strip() if beside is not None else ""
            if name and name.lower() not in {w.lower() for w in page.name.split()}:
                return frozenset([name.lower()]), sentence
    return None


def _both(frame: QuestionFrame, per_option: Sequence[Sequence[Ranked]]) -> Decision:
    """Yes when every option's passage holds the property the question asks about; else no."""
    answer = "yes" if all(_holds_asked(frame, ev) for ev in per_option) else "no"
    return Decision(answer, per_option[0][0], ("yes", "no"))


def _holds_asked(frame: QuestionFrame, evidence: Sequence[Ranked]) -> bool:
    """The option's passage holds every term of the question but the options' own."""
    option_terms = {t for o in frame.options for t in key_stems(o)}
    asked = [t for t in frame.terms if t not in option_terms and t != "both"]
    held = _passage_terms(evidence)
    return bool(asked) and all(t in held for t in asked)


def option_evidence(option: str, ranked: Sequence[Ranked]) -> list[Ranked]:
    """The ranked lines that hold every term of ``option``."""
    terms = set(key_stems(option))
    return [r for r in ranked if terms and terms <= r.sentence.all_terms]


def _pages(
    frame: QuestionFrame, options: Sequence[str], ranked: Sequence[Ranked], pool: Sequence[Sentence]
) -> list[_Page] | None:
    """Each option's own page. For an order of events ("founded before the other?"), not of
    lives, an option without one is read from the lines that name it and the event asked ("He
    founded DEM Inc. … in July 2003" dates DEM Inc.'s founding; "The Fret Monthly Sessions is a
    1987 album" does not date a magazine's first issue). None where an option has neither."""
    event = _event_terms(frame, options)
    pages: list[_Page] = []
    for option in options:
        page = _page(option, pool) or _event_lines(option, ranked, event)
        if page is None:
            return None
        pages.append(page)
    return pages


def _event_lines(option: str, ranked: Sequence[Ranked], event: frozenset[str]) -> _Page | None:
    """The lines that name ``option`` and hold every term of ``event``; None where none do."""
    if not event:
        return None
    lines = tuple(r.sentence for r in option_evidence(option, ranked) if event <= r.sentence.all_terms)
    return _Page(option, lines) if lines else None


def _event_terms(frame: QuestionFrame, options: Sequence[str]) -> frozenset[str]:
    """The terms of the event an order of events asks about ("found" in "which was founded
    first"): the question's terms but the options' and the order's own; none for any other
    question."""
    if not _asks_order(frame.text) or _ASKS_LIFE.search(frame.text) or _LONGER.search(frame.text):
        return frozenset()
    order = (m.group(0) for pattern in (EARLY, LATE) for m in pattern.finditer(frame.text))
    ignored = {t for text in (*options, *order) for t in key_stems(text)}
    return frozenset(t for t in frame.terms if t not in ignored)


def _page(option: str, pool: Sequence[Sentence]) -> _Page | None:
    """The option's own page in its order: the passage whose title, without a bracketed
    qualifier or a site's name after a dash ("Salt Road (film)", "Ada Venn - Encyclopedia"),
    has the option's terms and no other ("Science News", not "Science News for Students");
    None where none was read: a line that mentions the option on another page dates or
    describes something else."""
    terms = set(key_stems(QUALIFIER.sub("", option)))
    if not terms:
        return None
    own = next((s.source_id for s in pool if _title_stems(s.subject) == terms), None)
    return None if own is None else _Page(option, tuple(s for s in pool if s.source_id == own))


@functools.cache
def _title_stems(subject: str) -> frozenset[str]:
    """A page subject's stems without a site's name after a dash (each page's lines share it)."""
    return frozenset(key_stems(_SITE_SUFFIX.split(subject)[0]))


def _related(frame: QuestionFrame, pages: Sequence[_Page], pool: Sequence[Sentence]) -> list[_Page] | None:
    """The pages to compare: the options' own, or where the question compares a related person
    ("the director who was born first", "directors of films A and B") each option's person;
    None when one of them is not read."""
    noun = _related_noun(frame.text)
    if noun is None:
        return list(pages)
    linked = [_linked(page, pool, noun) for page in pages]
    return None if any(page is None for page in linked) else [p for p in linked if p is not None]


def _related_noun(text: str) -> str | None:
    match = _RELATED.search(text)
    if match is None:
        return None
    noun = next(g for g in match.groups() if g).lower()
    return noun if key_stems(noun) else None


def _linked(page: _Page, pool: Sequence[Sentence], noun: str) -> _Page | None:
    """The person ``page``'s lines name right after a word of ``noun``'s stem or "by" ("directed
    by Lena Morrow" for "director"), whose own page (opening with a life) was read; None when there is
    none, or more than one."""
    own = set(key_stems(page.name))
    stem = key_stems(noun)[0][:5]
    found = {
        person
        for person in _people(pool)
        if not set(key_stems(person)) <= own
        and any(_relates(s.text, stem, person) for s in page.sentences[:_PAGE_LINES])
    }
    if len(found) != 1:
        return None
    person = found.pop()
    return _Page(person, tuple(s for s in pool if s.subject == person))


def _relates(text: str, stem: str, person: str) -> bool:
    """``text`` names ``person`` within three words after a word that opens with ``stem`` or
    after "by" ("directed by Lena Morrow", "a short by film-maker Ari Kalm"), not further on
    ("directed by Ari Kalm and starring Lena Morrow" relates Ari Kalm alone)."""
    last = re.escape(person.split()[-1])
    pattern = rf"\b(?:{re.escape(stem)}\w*|by)\s+(?:[\w.'-]+\s+){{0,3}}{last}\b"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _people(pool: Sequence[Sentence]) -> list[str]:
    """The subjects of the pages in ``pool`` that open with a person's life."""
    opened = person_subjects(pool)
    subjects = dict.fromkeys(s.subject for s in pool)
    return [s for s in subjects if frozenset(key_stems(s)) in opened]


def _life(page: _Page) -> tuple[int, int | None, Sentence] | None:
    """The year a page's subject was born and died (None while alive or unsaid), from the
    parenthesis after the name a line opens with ("Ada Venn (4 May 1901 – 1977) was …",
    "(born 1957)") or a "born … 1957"; a lone year in brackets ("( 1990)") dates a work, not a life."""
    for sentence in page.sentences[:_PAGE_LINES]:
        opening = _OPENING_PARENTHESIS.match(sentence.text)
        inside = opening.group(1) if opening else ""
        years = [int(y) for y in re.findall(YEAR, inside)]
        if len(years) >= 2 and re.search(r"[–—-]", inside):
            return years[0], years[-1], sentence
        if years and re.search(r"\bborn\b", inside):
            return years[0], None, sentence
        born = _BORN.search(sentence.text)
        if born:
            return int(born.group(1)), None, sentence
    return None


def _first_year(page: _Page) -> tuple[int, Sentence] | None:
    for sentence in page.sentences[:3]:
        for match in DATE.finditer(sentence.text):
            digits = re.search(YEAR, match.group(0))
            if digits:
                return int(digits.group(0)), sentence
    return None


def _belonging(page: _Page) -> tuple[frozenset[str], Sentence] | None:
    """The nationalities the first line of a page that names any writes ("British-Canadian" →
    both), outside brackets (a title's translation names a language, not a country)."""
    own = {w.lower() for w in page.name.split()}
    for sentence in page.sentences[:_PAGE_LINES]:
        text = _PARENTHESIS.sub(" ", sentence.text)
        found = frozenset(m.group(1).lower() for m in _CAPITALISED.finditer(text) if _nationality(m, own))
        if found:
            return found, sentence
    return None


def _nationality(match: re.Match[str], own: set[str]) -> bool:
    """A word of belonging: a known one, or one ending as they do ("Peruvian", "Maltese") used as
    an adjective (before a lower-case word or a hyphen: not the first name in "Jean Gabin")."""
    lowered = match.group(1).lower()
    if lowered in _NOT_BELONGING or lowered in own:
        return False
    if lowered in NATIONALITIES:
        return True
    adjective = re.match(r"-[A-Z]|\s+[a-z0-9]", match.string[match.end() :]) is not None
    return adjective and len(lowered) > 5 and lowered.endswith((*DEMONYM_ENDINGS, "can"))


def _passage_terms(evidence: Sequence[Ranked]) -> set[str]:
    return {t for r in evidence[:4] for t in r.sentence.all_terms}


def _cited(line: Sentence, fallback: Ranked) -> Ranked:
    """The line that decides, as the answer's evidence (with the option's best line's coverage)."""
    if line is fallback.sentence:
        return fallback
    return Ranked(line, fallback.score, fallback.coverage)
