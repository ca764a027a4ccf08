"""Candidate answers and the features that score them: what the answer line weighs.

For each evidence sentence (best first) code cuts candidate spans of the kind the question asks
for, drops the question's own words, and describes each occurrence by named features — its
evidence's score and coverage, rank, proximity to the question's relation words, and shape flags
(a member of the class asked about, the agent of the asked verb, a bare number for a measure …).
:func:`score_candidates` ranks them with the hand-set factors, or with a fitted
:class:`~deepresearch.answers.learned.Linear` over the same features; :func:`supported` says
whether an evidence chain covers enough of the question to answer from.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from deepresearch.answers.candidates import YEAR, candidates, names
from deepresearch.answers.evidence import Ranked, Sentence, list_runs, meaning
from deepresearch.answers.feature_set import OPEN_KINDS
from deepresearch.answers.gazetteer import country_or_state, in_class, wider_place
from deepresearch.answers.learned import Linear
from deepresearch.answers.question import AnswerKind, QuestionFrame
from deepresearch.lexicon import (
    ATTRIBUTE_NOUNS,
    CONNECTORS,
    MONTH,
    NATIONALITIES,
    PERSON_PRONOUNS,
    PERSONAL_PRONOUNS,
    PHRASE_END,
    SUBJECT_PRONOUNS,
    opening,
)
from deepresearch.text import key_stems

PROXIMITY_WEIGHT = 0.6
SUBJECT_PENALTY = 0.75
SHAPE_PENALTY = 0.4
BRIDGE_PENALTY = 0.8
ACRONYM_PENALTY = 0.7
PLACE_CUE_BOOST = 1.3
DEFINED_BOOST = 1.5
CLASS_BOOST = 1.5
UNIT_BOOST = 1.5
NAME_CUE_BOOST = 2.0
LIFE_DATE_BOOST = 1.5
AGENT_BOOST = 2.0
SUPPORT_THRESHOLD = 0.5
NAMES_THRESHOLD = 0.67
_ORG = re.compile(
    r"\b(?:University|College|School|Company|Corporation|Inc|Ltd|Records|Club|FC|Party|Church|River|"
    r"County|City|Street|Hall|Park|Museum|Award|Awards|War|League|Festival|Army|Council|Film|Show|"
    r"Region|Province|District|State|States|Kingdom|Republic|Island|Islands|Area|Stars|Team|Network|Channel|"
    r"Studios|Television|Radio|Broadcasting|Institute|Foundation|Association|Society|Group|Press|Publishing|"
    r"Publishers|Books|Airlines|Airways|Bank|Hospital)(?:$|\s+of\b)"
)
_DEFINITION = re.compile(r"^(?:\s*\([^)]*\))*[^.;]{0,120}?\b(?:is|was|are|were)\s+(?:an?|the|one)\b")
_PREDICATE_END = re.compile(
    r"[,;.(]|\b(?:and|that|who|which|whose|known|from|in|of|for|with|based|best|by|on|at)\b"
)
TYPE_SYNONYMS = {
    "movie": ("film",),
    "film": ("movie",),
    "show": ("series", "programme", "program"),
    "series": ("show",),
    "song": ("single",),
    "single": ("song",),
    "book": ("novel",),
    "novel": ("book",),
    "band": ("group",),
    "group": ("band",),
}
_NAME_NOUNS = frozenset(["name", "pseudonym", "nickname", "alias"])
_NAME_CUE = r"\b(?:pseudonym|stage name|pen name|nickname|known as|under the name|alias)\s+[\"“']?"
_ASKS_ACRONYM = re.compile(r"\b(?:acronym|abbreviat|initials)", re.IGNORECASE)
ASKS_BIRTH = re.compile(r"\b(?:born|birth)\b", re.IGNORECASE)
_ASKS_FULL_DATE = re.compile(r"\b(?:what|which)\s+(?:exact\s+)?(?:date|day)\b|\bon what day\b", re.IGNORECASE)
ASKS_DEATH = re.compile(r"\b(?:die|died|death)\b", re.IGNORECASE)
_ASKS_NATIONALITY = re.compile(r"\b(?:nationality|language|citizen|in common|ethnic)", re.IGNORECASE)


def confidence_features(
    frame: QuestionFrame, scored: Sequence[tuple[str, float, Ranked]], hand_set: bool = False
) -> dict[str, float]:
    """The declared features (:data:`~deepresearch.answers.feature_set.CONFIDENCE_FEATURES`) of
    the best candidate: its score (log-odds, or the log of a ``hand_set`` score), its margin over
    the next, how much of the question (and of its names) its evidence chain covers, how many of
    the names its own sentence holds, how many candidates compete, and the kind of answer asked."""
    scores = [math.log(max(s, 1e-3)) if hand_set else s for _, s, _ in scored[:2]]
    evidence = scored[0][2]
    margin = scores[0] - scores[1] if len(scores) > 1 else 4.0
    features = {
        "score": scores[0],
        "margin": min(margin, 4.0),
        "coverage": evidence.coverage,
        "names": _names_share(frame, evidence),
        "names_sentence": _names_share(frame, evidence, chain=False),
        "supported": float(supported(frame, evidence)),
        "candidates": math.log(len(scored)),
        "via": float(evidence.via is not None),
    }
    features.update({f"kind_{kind}": float(frame.kind == kind) for kind in OPEN_KINDS})
    return features


def supported(frame: QuestionFrame, best: Ranked) -> bool:
    """The best evidence chain covers enough of the question, and of the names it asks about."""
    if best.coverage < SUPPORT_THRESHOLD:
        return False
    return not frame.names or len(frame.names & best.chain_terms) / len(frame.names) >= NAMES_THRESHOLD


@dataclass(frozen=True)
class Occurrence:
    """A candidate span in one evidence sentence, with the features the fitted scorer weighs
    and the hand-set score it replaced."""

    text: str
    evidence: Ranked
    rank: int
    hand_set: float
    features: dict[str, float]


def occurrences(frame: QuestionFrame, ranked: Sequence[Ranked]) -> list[Occurrence]:
    """Every candidate span of ``ranked`` (best sentence first) that is not question text."""
    question = set(frame.terms)
    near = with_stand_ins(set(frame.focus) or question, frame, ranked)
    bridges = [frozenset(key_stems(r.bridge)) for r in ranked[:3] if r.bridge]
    people = person_subjects(r.sentence for r in ranked) if frame.kind == "place" else frozenset()
    found: list[Occurrence] = []
    for rank, evidence in enumerate(ranked):
        for cand in dict.fromkeys(_spans(evidence.sentence, frame, question)):
            terms = set(key_stems(cand))
            if (
                not _is_question_text(cand, terms, question, frame)
                and not _unitless_measure(cand, frame, evidence.sentence.text)
                and frozenset(terms) not in people
            ):
                found.append(_occurrence(cand, terms, frame, evidence, rank, near, bridges))
    holding = Counter(o.text for o in found)
    for o in found:
        o.features["agree"] = math.log(holding[o.text])
    return found


def with_stand_ins(near: set[str], frame: QuestionFrame, ranked: Sequence[Ranked]) -> set[str]:
    """The question's relation words and the sentences' words that stand for them in other words
    (:mod:`deepresearch.wordsim`: "wife" for "married", "female" for "woman"), so that a candidate
    beside "his wife" stands as near to "married to" as one beside "married" would. Names have no
    stand-ins ("Britain" is not "England"), nor has the noun of the kind asked ("town" in "which
    town": a word like it, "city", stands by every other place)."""
    pool = [r.sentence for r in ranked]
    soft = meaning(sorted(near), pool, frame.names | frame.describes)
    if soft is None:
        return near
    vocabulary = {t for s in pool for t in s.all_terms}
    return near | {s for t in near for s in soft.stand_ins(t, vocabulary)}


ASKS_MEASURE = re.compile(
    r"\bhow (?:tall|long|far|high|deep|wide|heavy)\b|\bwhat (?:is |was )?(?:the )?(?:height|length|"
    r"distance|depth|width|weight|elevation|altitude|percentage|percent|share)\b",
    re.IGNORECASE,
)
_MEASURE_UNIT = re.compile(
    r"%|(?:percent|per cent|km2|km|kilomet(?:re|er)s?|miles?|met(?:re|er)s?|m|ft|feet|foot|inch(?:es)?|"
    r"in|cm|mm|kg|kilograms?|pounds?|lb|tonnes?|tons?|square \w+|hectares?|acres?)\b",
    re.IGNORECASE,
)


def _unitless_measure(cand: str, frame: QuestionFrame, sentence: str) -> bool:
    """A bare number for a question asking a measure ("How tall is the tower?" answered "35"):
    a height or a length comes with its unit, in the span or right after it."""
    if frame.kind != "number" or not ASKS_MEASURE.search(frame.text):
        return False
    after = sentence[sentence.find(cand) + len(cand) :] if cand in sentence else ""
    return not (_MEASURE_UNIT.search(cand) or _MEASURE_UNIT.match(after.lstrip(" -")))


def score_candidates(
    frame: QuestionFrame, ranked: Sequence[Ranked], scorer: Linear | None = None
) -> list[tuple[str, float, Ranked]]:
    """(candidate, score, its best evidence) best first. With a fitted ``scorer`` a candidate's
    score is the log-odds of its best occurrence; without one, the hand-set score: the best
    evidence that holds it, a little more per further sentence holding it, more when it carries
    the noun the question asks about or stands next to the question's relation words. Names of
    the question itself are not answers."""
    found: dict[str, tuple[float, Ranked]] = {}
    for o in occurrences(frame, ranked):
        previous = found.get(o.text)
        if scorer is not None:
            score = scorer.logit(o.features)
            if previous is None or score > previous[0]:
                found[o.text] = (score, o.evidence)
        else:
            found[o.text] = (
                (max(o.hand_set, previous[0]) + 0.05, previous[1]) if previous else (o.hand_set, o.evidence)
            )
    ordered = sorted(found.items(), key=lambda item: -item[1][0])
    return [(c, s, r) for c, (s, r) in ordered]


def _occurrence(
    cand: str,
    terms: set[str],
    frame: QuestionFrame,
    evidence: Ranked,
    rank: int,
    near: set[str],
    bridges: Sequence[frozenset[str]],
) -> Occurrence:
    """A candidate's features: its form, whether it names the chain's bridge, and how near it
    stands to the question's relation words (a candidate the sentence defines as the noun asked
    about stands as near as can be)."""
    text = evidence.sentence.text
    typed = frame.type_noun is not None and (
        bool(type_stems(frame.type_noun) & terms) or _defines(cand, frame, text)
    )
    flags = shape_flags(cand, frame, evidence.sentence)
    factor = math.prod(SHAPE_FACTORS.get(k, 1.0) for k, on in flags.items() if on)
    bridge = _is_bridge(terms, bridges) and not typed
    if bridge:
        factor *= BRIDGE_PENALTY
    if frame.kind == "date":  # "When did the mill close?": the verb relates the date too,
        near = near | (set(frame.terms) - frame.names - evidence.sentence.title_terms)  # not the subject
    if frame.kind in ("number", "date") and evidence.bridge and evidence.bridge in text:
        # a value stands by the entity the chain is about: "… followed by Ostrava, which
        # handled 2,300 trains" when the chain went through Ostrava
        near = near | set(key_stems(evidence.bridge))
    pronoun = _PRONOUN.match(text)
    stands_as = pronoun.group(0) if pronoun and cand not in text else cand  # "She" stands for her
    described = frame.type_noun in ATTRIBUTE_NOUNS  # cut right after its cue: "plays as", "is a"
    # "his wife, Amy Johnson" stands by the man the passage is about when Amy Johnson is the one
    # asked about; "his father, George Pack" does not make the passage's subject the father
    beside = _names_beside(frame, evidence.sentence) and same_name(terms, evidence.sentence.title_terms)
    also = _pronoun_positions(text) if beside else []
    proximity = 1.0 if typed or described else _proximity(stands_as, text, near, also)
    hand_set = (
        evidence.score / (1 + 0.1 * rank) * factor * (1 - PROXIMITY_WEIGHT + PROXIMITY_WEIGHT * proximity)
    )
    features = {name: float(on) for name, on in flags.items()}
    features.update(
        log_score=math.log(evidence.score + 1e-3),
        coverage=evidence.coverage,
        rank=math.log1p(rank),
        top=float(rank == 0),
        proximity=proximity,
        typed=float(typed),
        bridge=float(bridge),
        via=float(evidence.via is not None),
        names=_names_share(frame, evidence),
        words=min(len(cand.split()), 6) / 6,
        hand_set=math.log(hand_set + 1e-3),
    )
    return Occurrence(cand, evidence, rank, hand_set, features)


def _names_share(frame: QuestionFrame, evidence: Ranked, chain: bool = True) -> float:
    """The share of the question's names in the evidence chain (or its own sentence alone)."""
    if not frame.names:
        return 1.0
    terms = evidence.chain_terms if chain else evidence.sentence.all_terms
    return len(frame.names & terms) / len(frame.names)


def _spans(evidence: Sentence, frame: QuestionFrame, question: set[str]) -> Iterator[str]:
    """The sentence's candidates, each also with the noun asked about when the sentence puts it
    right after: "the Varone crime family" for "what crime family"; for a person, the passage's
    subject when the sentence opens with a pronoun standing for it ("She was the second wife of
    Ned Hale" in the passage about Mae Orr answers "Who was Ned Hale's second wife?")."""
    sentence = evidence.text
    subject = pronoun_subject(evidence, frame.kind)
    if subject:
        yield subject
    if frame.type_noun in ATTRIBUTE_NOUNS:  # names are not professions, positions or genres
        if frame.type_noun not in _ATTRIBUTE_CUE:  # first: named beside the subject, it is the subject's
            yield from titles_before(sentence, frame.names)
        yield from attribute_phrases(sentence, frame.type_noun)
        return
    found_spans = candidates(sentence, frame.kind)
    if frame.type_noun and _plural(frame.type_noun):
        found_spans = [*_lists(sentence, found_spans), *found_spans]
    for found in found_spans:
        cand = _after_question_words(found, question)
        yield cand
        if frame.type_noun and cand.lower() not in NATIONALITIES:
            tail = re.match(rf"{re.escape(cand)}((?:\s+[a-z]+){{1,2}})\b", sentence[sentence.find(cand) :])
            if tail and type_stems(frame.type_noun) & set(key_stems(tail.group(1).split()[-1])):
                yield cand + tail.group(1)


_ATTRIBUTE = re.compile(
    r"\b(?:(?P<as>(?:plays|played|playing|serves|served|works|worked)\s+as(?:\s+an?|\s+the)?)"
    r"|(?P<for>(?:known|famous|renowned|noted)\s+for)|(?P<is>(?:is|was|are|were|became)\s+(?:an?|the)))"
    r"(?=\s+([^.;:()]{1,80}))"  # a look-ahead: the phrase may hold the next cue
)
_ATTRIBUTE_CUE = {"position": "as", "genre": "for"}  # the rest: what the subject "is"


def attribute_phrases(sentence: str, noun: str) -> tuple[str, ...]:
    """The answers ``sentence`` offers to a question asking for ``noun``: what its subject is,
    for a profession ("was a pioneering aviator who …" → "pioneering aviator"); what it plays or
    serves as, for a position ("plays as a goalkeeper for …" → "goalkeeper"); what it is known
    for, for a genre ("known for gothic novels" → "gothic novels")."""
    cue = _ATTRIBUTE_CUE.get(noun, "is")
    found = []
    for match in _ATTRIBUTE.finditer(sentence):
        if match.group(cue) is None:
            continue
        head = _phrase_head(match.group(4))
        if head:
            found.append(head)
    return tuple(found)


_TITLE_BEFORE = re.compile(r"(?:^|[^\w\s]\s*|\s)((?:[a-z][\w-]*\s+){1,2})(?=((?:[A-Z][\w'’.-]*\s*){1,4}))")


def titles_before(sentence: str, subject: frozenset[str]) -> tuple[str, ...]:
    """What a sentence calls the question's subject right before its name, for a profession
    ("a biopic about aviator Ada Lund" → "aviator", "created by producer Tom Reyes" → "producer"):
    the lowercase words in front of a name whose words are all the question's, less the
    prepositions and articles they start with."""
    found = []
    for match in _TITLE_BEFORE.finditer(sentence):
        name = set(key_stems(match.group(2)))
        if not name or not name <= subject:
            continue
        words = match.group(1).split()
        while words and words[0].lower() in PHRASE_END:
            words.pop(0)
        if words and words[-1].lower() not in PHRASE_END:
            found.append(" ".join(words))
    return tuple(found)


def _phrase_head(text: str) -> str:
    """The noun phrase ``text`` opens with: up to four words, ending before a comma, a
    preposition, a relative pronoun or a participle ("novels published in …" → "novels")."""
    words: list[str] = []
    for token in re.findall(r"[\w'’-]+|,", text):
        low = token.lower()
        if token == "," or low in PHRASE_END or (words and low.endswith("ed")) or len(words) == 4:
            break
        words.append(token)
    return " ".join(words)


_PRONOUN = opening(SUBJECT_PRONOUNS)
_PERSONAL = opening(PERSON_PRONOUNS)


def pronoun_subject(sentence: Sentence, kind: AnswerKind) -> str | None:
    """The passage's subject (its title, without a bracketed qualifier) when the sentence opens
    with a pronoun standing for it and does not name it: "He"/"She" for a person, "It" for a
    place ("It is known for its clocks" in the passage about a town)."""
    title = sentence.subject
    if not title or title in sentence.text:
        return None
    if kind == "person" and _PERSONAL.match(sentence.text) and looks_like_person(title):
        return title
    if kind == "place" and sentence.text.startswith("It "):
        return title.split(",")[0].strip()
    return None


def _plural(noun: str) -> bool:
    return noun.endswith("s") and not noun.endswith(("ss", "us", "is", "series", "species"))


def _lists(sentence: str, spans: Sequence[str]) -> Iterator[str]:
    """Runs of candidates the sentence lists ("Karin Holm, Lise Lyng and Mette Skov"),
    whole, for a question asking for several ("what actresses …")."""
    for start, end in list_runs(sentence, spans):
        yield sentence[start:end]


def _after_question_words(cand: str, question: set[str]) -> str:
    """The candidate without the question's own words in front: "Galway Councillor Nora
    Breen" answers "… an adviser to which Galway councillor?" as "Nora Breen"."""
    words = cand.split()
    while len(words) > 1 and (not (stems := set(key_stems(words[0]))) or stems <= question):
        if words[1].lower() in CONNECTORS:
            break  # "Order of the Lamp" answers "given which order?" whole
        if re.fullmatch(r"[A-Z]\.", words[0]):
            break  # an initial is part of the name: "E. W. Hale", not "Hale"
        words = words[1:]
    return " ".join(words)


def _proximity(cand: str, sentence: str, question: set[str], also: Sequence[int] = ()) -> float:
    """1 when the candidate stands next to a word of the question in its sentence, falling off
    with distance: "written by Agnes Moreau" answers "written by who" better than "on BBC Two".
    ``also``: more word positions that stand for the candidate (a pronoun for its passage's
    subject: "his wife" stands by the man the passage is about)."""
    words = sentence.split()
    at = _position(cand, sentence)
    spans = [range(at, at + len(cand.split()))] if at is not None else []
    spans += [range(i, i + 1) for i in also]
    inside = {i for span in spans for i in span}
    hits = [i for i, w in enumerate(words) if i not in inside and set(key_stems(w)) & question]
    if not hits or not spans:
        return 0.0
    distance = min(min(abs(i - s.start), abs(i - s.stop + 1)) for i in hits for s in spans)
    return 1.0 / (1.0 + distance / 3)


_PRONOUN_ANYWHERE = re.compile(rf"\b(?:{'|'.join(sorted(PERSONAL_PRONOUNS))})\b", re.IGNORECASE)


def _pronoun_positions(sentence: str) -> list[int]:
    """Word positions of the personal pronouns of ``sentence``."""
    return [len(sentence[: m.start()].split()) for m in _PRONOUN_ANYWHERE.finditer(sentence)]


def _position(cand: str, sentence: str) -> int | None:
    index = sentence.find(cand)
    return None if index < 0 else len(sentence[:index].split())


def _is_question_text(cand: str, terms: set[str], question: set[str], frame: QuestionFrame) -> bool:
    """Dates and numbers the question states, and names mostly made of the question's words."""
    if frame.kind in ("date", "number"):
        return cand.lower() in frame.text.lower()
    if in_class(frame.type_noun, cand):  # "United States" for "which country" in "… the same state"
        return cand.lower() in frame.text.lower()
    if frame.type_noun:  # "Medal of Merit" for "what medal": the noun asked about is no question text
        question = question - type_stems(frame.type_noun)
    word = " " not in cand and len(cand) >= 4
    if word and re.search(rf"\b{re.escape(cand.lower())}\w*", frame.text.lower()):
        return True
    if frame.kind == "person" and " " in cand:  # "Clara Penrose" for "the wife of Arthur Penrose"
        return terms <= question or any(name <= terms for name in _asked_names(frame.text))
    return not terms or len(terms & question) / len(terms) >= 0.5


@functools.lru_cache(maxsize=256)
def _asked_names(question: str) -> tuple[frozenset[str], ...]:
    """The stems of each name of two words or more that the question writes ("Jim Mollison"): a
    candidate holding all of one ('James Allan "Jim" Mollison') is that name written out in full,
    the person asked about, not the answer."""
    stems = (frozenset(key_stems(n)) for n in names(question))
    return tuple(s for s in stems if len(s) >= 2)


def _names_beside(frame: QuestionFrame, sentence: Sentence) -> bool:
    """The sentence names everything the question names, and its passage's title is none of
    it: the title is then the other party of the relation asked ("X flew with his wife, Amy
    Johnson" answers who Amy Johnson married), not the question's subject."""
    return bool(frame.names) and frame.names <= sentence.terms and not frame.names & sentence.title_terms


def shape_flags(cand: str, frame: QuestionFrame, sentence: Sentence) -> dict[str, bool]:
    """The candidate's form against the question, as named yes/no features (the fitted model
    weighs them; :data:`SHAPE_FACTORS` are the hand-set factors they replaced)."""
    member = in_class(frame.type_noun, cand)
    short_caps = cand.isupper() and len(cand) <= 5
    asks_acronym = _ASKS_ACRONYM.search(frame.text) is not None
    defined = _defines(cand, frame, sentence.text)
    cue = rf"\b(?:in|at|near|from)\s+(?:the\s+)?{re.escape(cand)}"
    return {
        "member": bool(member),
        "non_member": member is False or wider_place(frame.type_noun, cand),
        "name_cue": frame.type_noun in _NAME_NOUNS
        and re.search(rf"{_NAME_CUE}{re.escape(cand)}", sentence.text) is not None,
        "unit": frame.kind == "number" and _counts_what_is_asked(cand, frame, sentence.text),
        "life_date": frame.kind == "date" and _life_date(cand, frame.text, sentence.text),
        "year_number": _year_not_asked(cand, frame),
        "not_person": frame.kind == "person" and not looks_like_person(cand),
        "defined": defined,
        "subject": not defined
        and frame.kind != "entity"
        and cand in sentence.text
        and same_name(set(key_stems(cand)), sentence.title_terms)
        and not _names_beside(frame, sentence),
        "pronoun_subject": cand not in sentence.text,
        "nationality": cand.lower() in NATIONALITIES and not _ASKS_NATIONALITY.search(frame.text),
        "acronym_asked": short_caps and asks_acronym,
        "place_cue": frame.kind == "place" and re.search(cue, sentence.text) is not None,
        "agent": frame.kind == "person" and _agent_of_asked_verb(cand, frame, sentence.text),
    }


def _year_not_asked(cand: str, frame: QuestionFrame) -> bool:
    """A bare year where the question asks for a number ("how many") or a full date ("on which
    date": "1962" is not the date that "September 23, 1962" is)."""
    asks = frame.kind == "number" or _ASKS_FULL_DATE.search(frame.text) is not None
    return asks and re.fullmatch(YEAR, cand) is not None


def _agent_of_asked_verb(cand: str, frame: QuestionFrame, sentence: str) -> bool:
    """The candidate is the agent of the question's verb in a passive sentence: "Who designed
    the hall?" answered by "… a brick hall designed by Ada Lund" or "… formed in 1975 by
    bassist Ada Lund" (a "by" a few words after a word of the question)."""
    agent = re.search(rf"\bby\s+(?:[a-z][\w-]*\s+){{0,4}}{re.escape(cand)}", sentence)
    if agent is None:
        return False
    before = sentence[: agent.start()].split()[-10:]
    verbs = set(frame.terms) - frame.names
    return any(set(key_stems(w)) & verbs for w in before)


SHAPE_FACTORS = {
    "member": CLASS_BOOST,
    "non_member": SHAPE_PENALTY,
    "name_cue": NAME_CUE_BOOST,
    "unit": UNIT_BOOST,
    "life_date": LIFE_DATE_BOOST,
    "year_number": SHAPE_PENALTY,
    "not_person": SHAPE_PENALTY,
    "defined": DEFINED_BOOST,
    "subject": SUBJECT_PENALTY,
    "nationality": SHAPE_PENALTY,
    "acronym_asked": 1 / ACRONYM_PENALTY,
    "place_cue": PLACE_CUE_BOOST,
    "agent": AGENT_BOOST,
}


def _shape(cand: str, frame: QuestionFrame, sentence: Sentence) -> float:
    """How well the candidate's form fits the question: a factor around 1 (hand-set)."""
    return math.prod(SHAPE_FACTORS.get(k, 1.0) for k, on in shape_flags(cand, frame, sentence).items() if on)


def _is_bridge(terms: set[str], bridges: Sequence[frozenset[str]]) -> bool:
    """The candidate names the entity the evidence chain went through, not the answer."""
    return any(same_name(terms, bridge) for bridge in bridges)


def same_name(terms: set[str], other: frozenset[str]) -> bool:
    """Two forms of one name: one's terms hold the other's ("Marcus Anthony Dale", "Marcus Dale")."""
    return bool(terms) and bool(other) and (terms <= other or other <= terms)


def _counts_what_is_asked(cand: str, frame: QuestionFrame, sentence: str) -> bool:
    """A number whose unit is a word of the question: "152,408 TEUs" for "how many TEUs"."""
    after = re.match(rf"{re.escape(cand)}\s+([\w-]+)", sentence[sentence.find(cand) :])
    words = [*cand.split()[1:], *(after.groups() if after else ())]
    return any(set(key_stems(w)) & set(frame.terms) for w in words)


def _defines(cand: str, frame: QuestionFrame, sentence: str) -> bool:
    """The sentence opens with the candidate and says what it is in the question's words:
    "Lena Marsh … is a Scottish actress known for …" answers "which Scottish actress …"."""
    definition = _DEFINITION.match(sentence[len(cand) :]) if sentence.startswith(cand) else None
    if definition is None:
        return False
    if frame.type_noun:  # the noun the predicate names: "is a retired player and a show host" → player
        head = _PREDICATE_END.split(sentence[len(cand) + definition.end() :], maxsplit=1)[0]
        return bool(type_stems(frame.type_noun) & set(key_stems(head)))
    stems = {t for n in frame.focus for t in key_stems(n)}
    return bool(stems) and stems <= set(key_stems(sentence))


@functools.cache
def type_stems(noun: str) -> frozenset[str]:
    """The stems of a type noun and of the words that name the same type ("movie", "film"); cached,
    as every candidate of every sentence asks for them."""
    return frozenset(t for word in (noun, *TYPE_SYNONYMS.get(noun, ())) for t in key_stems(word))


def _life_date(cand: str, question: str, sentence: str) -> bool:
    """A birth date for a question on when someone was born ("(3 February 1931 – 2007)", "born
    3 February 1931"), a death date for one on when they died."""
    at = re.escape(cand)
    if ASKS_BIRTH.search(question):
        pattern = rf"\([^()]*?{at}\s*[–-]|\bborn\s+(?:on\s+|in\s+)?{at}"
        return re.search(pattern, sentence) is not None
    if ASKS_DEATH.search(question):
        pattern = rf"\([^()]*?[–-]\s*{at}\s*\)|\bdied\s+(?:on\s+|in\s+)?{at}"
        return re.search(pattern, sentence) is not None
    return False


def looks_like_person(cand: str) -> bool:
    words = cand.split()
    return (
        2 <= len(words) <= 5
        and not cand.isupper()
        and not any(len(w) >= 2 and w.isalpha() and w.isupper() for w in words)  # "BBC One"
        and not named_non_person(cand)
        and words[-1].lower() not in NATIONALITIES
    )


_LIFE = re.compile(
    rf"^(?P<name>[^()]{{2,80}}?)\s*\((?:[^()]*\bborn\b|[^()]*\b{MONTH}\b[^()]*\b{YEAR}\b)[^()]*\)\s+(?:is|was)\b"
)


def person_subjects(sentences: Iterable[Sentence]) -> frozenset[frozenset[str]]:
    """The people whose pages ``sentences`` open (each as its stems, as the opening and as the
    page's title write it): a sentence that starts with the page's name, then a parenthesis that
    says "born" or dates a life by its month, then "is" or "was" ("Ada Venn (4 May 1901 – 1977)
    was a painter"). Such a name answers no "where" question: asked for the birthplace of a
    film's director, the director's own name is the bridge, not the place."""
    people: set[frozenset[str]] = set()
    for sentence in sentences:
        match = _LIFE.match(sentence.text)
        opened = frozenset(key_stems(match["name"])) if match else frozenset()
        if opened & sentence.title_terms:
            people |= {opened, frozenset(key_stems(sentence.subject))}
    return frozenset(people)


def named_non_person(cand: str) -> bool:
    """The name says it is no person: an organisation or a place by its last word ("Lune
    Records", "Marlow County"), or a country or U.S. state ("North Korea", "New Mexico")."""
    return bool(_ORG.search(cand)) or country_or_state(cand)
