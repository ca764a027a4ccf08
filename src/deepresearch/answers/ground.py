"""Grounded answers: an answer line that comes from a sentence the report cites.

Code ranks the evidence sentences (:mod:`deepresearch.answers.evidence`), cuts candidate spans
of the kind the question asks for (:mod:`deepresearch.answers.candidates`) and scores them by
their features (:mod:`deepresearch.answers.features`); a
model may then *choose* among those strings under a grammar that allows nothing else. Without a
usable candidate the best sentence itself is the answer. When the fitted P(right) of the best
candidate is below the shipped threshold and its sentence does not state the whole question
(without the weights: when the best evidence covers too little of the question), or the best
candidate is not of the kind asked (an organisation for "who"), the answer says the sources do not
say, instead of guessing. With a reader (:mod:`deepresearch.answers.reader`), code's answers below
:data:`AGREE_BELOW` stand only where the reader gives the same, and where code abstains the
reader's checked span may answer (:func:`ground_answer`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from deepresearch.answers import compare
from deepresearch.answers.candidates import NUMBER, candidates
from deepresearch.answers.dense import Dense, reads_as_person
from deepresearch.answers.evidence import QUALIFIER, Ranked, Sentence, rank_sentences, sentence_pool
from deepresearch.answers.features import (
    ASKS_MEASURE,
    confidence_features,
    named_non_person,
    score_candidates,
    supported,
)
from deepresearch.answers.hops import relative_named, split_hops
from deepresearch.answers.learned import AnswerWeights
from deepresearch.answers.question import AnswerKind, QuestionFrame, frame_question
from deepresearch.answers.reader import TOP_LINES, Reading, names_covered, names_question, same_answer
from deepresearch.citations import Source
from deepresearch.lexicon import ATTRIBUTE_NOUNS, INNER_NAME_WORD
from deepresearch.report_text import HEADINGS
from deepresearch.sourcekind import kind_rank
from deepresearch.text import CITATION_LIKE, key_stems, language_of

AnswerStatus = Literal["grounded", "sentence", "unverified", "abstained"]
Chooser = Callable[[QuestionFrame, Sequence[str], Sequence[Ranked]], str | None]
Reader = Callable[[QuestionFrame, Sequence[Ranked]], Reading | None]
Judge = Callable[[QuestionFrame, Reading], float | None]
"""A model's P("yes") that a reading answers the question, from the lines it stands on
(:func:`~deepresearch.answers.reader.judge_messages`); None when it cannot say."""
Pick = Callable[[QuestionFrame, Sequence[Reading]], Sequence[float] | None]
"""A model's share for each of code's candidates as one multiple choice, shown the lines they
stand on (:func:`~deepresearch.answers.reader.weigh_options`); None when it cannot say."""
YesNo = Callable[[QuestionFrame, Sequence[Ranked]], float | None]
"""A model's P("yes") for a yes/no question over code's best lines
(:func:`~deepresearch.answers.reader.weigh_yes_no`); None when it cannot say."""
TOP_SENTENCES = 8
READER_MIN_CONFIDENCE = 0.5
"""The score a reader's answer needs where code abstained (:func:`reading_confidence`),
chosen on the dev halves' own passages with and without their gold (docs/BENCHMARKS.md); a
stricter ``ANSWER_MIN_CONFIDENCE`` holds for the reader too."""
JUDGE_MIN_YES = 0.95
"""The judge's P("yes") that states a reading code's confidence turns away, chosen on the dev
sets' own passages with and without their gold (docs/BENCHMARKS.md, issue 34's seventh step)."""
JUDGE_COVERED_YES = 0.8
"""The judge's bar where the lines it is shown write every name of the question
(:func:`~deepresearch.answers.reader.names_covered`) and the answer repeats none (:func:`judge_bar`):
there it judges meaning it can see (on one-hop readings its P separates right from wrong, AUC
0.84); chosen on the dev sets' own passages with and without their gold (docs/BENCHMARKS.md,
issue 34's ninth step)."""
JUDGE_DISSENT = 0.6
"""The judge's P("yes") under which a reading that code's confidence lets through is turned away
all the same: the judge leans "no". On the dev sets' own passages (docs/BENCHMARKS.md, issue 34's
seventeenth step) the readings stated on code's confidence alone were right 22 times and wrong 29;
under this P, 1 right and 9 wrong."""
AGREE_BELOW = 0.7
"""Code's fitted confidence below which its candidate is stated only where the reader, shown the
same best lines, gives the same answer (:func:`ground_answer`): the confidence, fitted on the shared
set's chains, does not carry over to other questions (on one-hop dev questions it stated 33
answers, 13 right), and the reader's agreement tells them apart (docs/BENCHMARKS.md, issue 34's
tenth step)."""
YES_AT = 0.85
"""The model's P("yes") that answers "yes" to an open yes/no question code leaves unanswered
(:func:`ground_answer`). Chosen on the dev sets' yes/no questions (``evals/yes_no.py``): over
their own lines the model's P was at least 0.87 on every "yes" and at most 0.51 on every "no";
without the gold passages at most 0.33. Low P is never read as "no": without the passage that
answers, the model leans to "no" as well (docs/BENCHMARKS.md, issue 34's eleventh step)."""
MAX_CANDIDATES = 6
PICKED_CANDIDATES = 4
"""How many of code's candidates the model chooses among where the reader leaves a question
open (:func:`_picked_candidate`)."""
PICK_AT = 0.5
"""The model's share that states its pick among code's candidates: at least half its choice on
one option of up to five, "none of these" among them (kept as the answer's ``judged``;
docs/BENCHMARKS.md, issue 34's twentieth step)."""
COMPLETE = 0.999  # a sentence's share of the question's weighted terms that leaves none out
_UNKNOWN = re.compile(
    r"\b(?:do(?:es)? not (?:say|state|mention|answer)|not (?:found|stated|mentioned|known)|unknown|"
    r"no (?:source|information|evidence))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GroundedAnswer:
    """The answer line. ``text`` is a span of ``sentence`` (or the sentence, or an abstention);
    ``source_id`` is the source that holds ``sentence``; ``support`` is how much of the question
    the evidence chain covers (0..1); ``confidence`` the fitted P(right) when fitted weights are
    in use (None with the hand-set scoring)."""

    text: str
    status: AnswerStatus
    kind: AnswerKind
    source_id: int | None = None
    sentence: str = ""
    support: float = 0.0
    candidates: tuple[str, ...] = field(default_factory=tuple)
    chosen_by: str = "code"
    via_source_id: int | None = None
    via_sentence: str = ""
    confidence: float | None = None
    judged: float | None = None
    turned_away: Reading | None = None
    """Where the answer line abstains, the reader's checked span that the gate turned away: the
    report shows it as the closest reading, not confirmed, so an abstention still hands over
    what the sources say."""
    options_read: tuple[compare.OptionReading, ...] = ()
    """Where a comparison abstains, what each option's own page says (or that none was read)."""


def ground_answer(
    question: str,
    sources: Sequence[Source],
    *,
    chooser: Chooser | None = None,
    weights: AnswerWeights | None = None,
    reader: Reader | None = None,
    dense: Dense | None = None,
    judge: Judge | None = None,
    yes_no: YesNo | None = None,
    pick: Pick | None = None,
) -> GroundedAnswer:
    """The grounded answer to ``question`` from ``sources`` (see the module docstring).
    ``weights`` are a fitted scorer and abstention (:mod:`deepresearch.answers.learned`, e.g.
    :func:`~deepresearch.answers.learned.confidence_gate`, which abstains on the fitted P(right)
    instead of the support gate); None is the hand-set scoring and support gate alone. Where code
    abstains on a question that asks for a span, a ``reader`` (:mod:`deepresearch.answers.reader`)
    may answer with a span of one of code's best lines; code's confidence gates it, and where that
    turns it away a ``judge`` that says "yes" with P at least :func:`judge_bar` states it. Where
    code states a candidate on a fitted confidence below :data:`AGREE_BELOW`, the reader reads too:
    the same answer confirms code's; another goes through the same gate, code's being dropped.
    Where code leaves an open yes/no question unanswered, ``yes_no``'s P("yes") of at least
    :data:`YES_AT` answers "yes". Where the reader leaves an open question unanswered, ``pick``
    chooses among code's candidates (:func:`_picked_candidate`).
    ``dense`` (:mod:`deepresearch.answers.dense`) lets sentence meaning reorder the ranking, and
    turns away a "where" answer that reads as a person's name (:func:`of_the_kind_asked`)."""
    frame = frame_question(question)
    answer = _grounded(frame, sources, chooser, weights, reader, dense, judge, yes_no, pick)
    return _checked(frame, answer, sources, dense)


def _checked(
    frame: QuestionFrame, answer: GroundedAnswer, sources: Sequence[Source], dense: Dense | None
) -> GroundedAnswer:
    """``answer`` unless it is not of the kind asked (:func:`of_the_kind_asked`) or is read
    from the page of the one whose relative the question asks about (:func:`of_the_relative`)."""
    return of_the_relative(frame, of_the_kind_asked(frame, answer, dense), sources)


def of_the_relative(
    frame: QuestionFrame, answer: GroundedAnswer, sources: Sequence[Source]
) -> GroundedAnswer:
    """``answer``, or an abstention where the question asks something of a named one's relative
    ("Where was the husband of X born?", :func:`~deepresearch.answers.hops.relative_named`) and
    the answer's line is on X's own page: there it states X's birthplace, not the husband's (the
    reader and its judge both take it). Applied where :func:`of_the_kind_asked` is; not to a
    comparison, which reads each option's own page by design."""
    named = relative_named(frame.text) if answer.status == "grounded" and frame.kind != "choice" else None
    page = next((s.title for s in sources if s.id == answer.source_id), None)
    if named is None or page is None or not _same_name(page, named):
        return answer
    return _withdrawn(frame, answer)


def _withdrawn(frame: QuestionFrame, answer: GroundedAnswer) -> GroundedAnswer:
    """An abstention in place of a stated ``answer`` a check turned away, handing over what the
    answer had handed over (not the turned-away span itself)."""
    return replace(abstain(frame, answer.support, answer.confidence), turned_away=answer.turned_away)


def _same_name(title: str, name: str) -> bool:
    """A page title and a name write the same name, a disambiguation in parentheses aside."""
    words = [frozenset(key_stems(QUALIFIER.sub("", text))) for text in (title, name)]
    return bool(words[0] and words[1]) and (words[0] <= words[1] or words[1] <= words[0])


def of_the_kind_asked(frame: QuestionFrame, answer: GroundedAnswer, dense: Dense | None) -> GroundedAnswer:
    """``answer``, or an abstention where the question asks "where" and the stated answer reads
    as a person's name by meaning (:func:`~deepresearch.answers.dense.reads_as_person`): code and
    the reader both take the bridge ("the film's director") or his birth name for the place asked.
    Applied to code's answer before the reader reads (so the reader may find the place) and to
    the final answer. What the answer had handed over is kept; the wrong-kind span is not."""
    if dense is None or frame.kind != "place" or answer.status != "grounded":
        return answer
    return _withdrawn(frame, answer) if reads_as_person(dense, answer.text) else answer


def _grounded(
    frame: QuestionFrame,
    sources: Sequence[Source],
    chooser: Chooser | None,
    weights: AnswerWeights | None,
    reader: Reader | None,
    dense: Dense | None,
    judge: Judge | None,
    yes_no: YesNo | None,
    pick: Pick | None,
) -> GroundedAnswer:
    pool = sentence_pool(sources)
    ranked = rank_sentences(frame.terms, pool, frame.names, frame.text, optional=frame.describes, dense=dense)
    ranked = trusted_first(ranked, sources)
    answer = _checked(frame, _code_answer(frame, ranked, pool, chooser, weights), sources, dense)
    if yes_no is not None and frame.kind == "yesno" and not frame.options and answer.status == "abstained":
        return _weighed_yes(frame, ranked, answer, yes_no)
    if reader is None or not ranked or frame.kind in ("yesno", "choice"):
        return answer
    if answer.status != "abstained" and not unsure(answer):
        return answer
    reading = reader(frame, ranked)
    if answer.status != "abstained":
        if reading is not None and same_answer(reading.text, answer.text):
            return answer
        answer = _unconfirmed(frame, answer, ranked)
    if reading is not None:
        answer = _gated_reading(frame, ranked, answer, reading, weights, judge)
    if (
        answer.status == "abstained"
        and weights is not None
        and pick is not None
        and split_hops(frame.text) is None
    ):
        return _picked_candidate(frame, ranked, answer, weights, pick)
    return answer


def _gated_reading(
    frame: QuestionFrame,
    ranked: Sequence[Ranked],
    answer: GroundedAnswer,
    reading: Reading,
    weights: AnswerWeights | None,
    judge: Judge | None,
) -> GroundedAnswer:
    """The reader's span as the answer line where code's confidence in it clears
    :data:`READER_MIN_CONFIDENCE` and the judge, where there is one, does not lean "no"
    (:data:`JUDGE_DISSENT`), or where the judge's P("yes") clears :func:`judge_bar`; else
    ``answer`` (an abstention) handing the reading over."""
    confidence, judged = answer.confidence, None
    if weights is not None:
        confidence = reading_confidence(frame, ranked, weights, reading.text)
        judged = judge(frame, reading) if judge is not None else None
        trusted = confidence is not None and confidence >= max(READER_MIN_CONFIDENCE, weights.threshold)
        bar = JUDGE_DISSENT if trusted else judge_bar(frame, reading)
        if not (trusted if judged is None else judged >= bar):
            return replace(answer, turned_away=reading)
    evidence = (
        replace(reading.evidence, sentence=reading.sentence)
        if reading.sentence is not reading.evidence.sentence
        else reading.evidence
    )
    stated = _answer(frame, reading.text, evidence, "grounded", (), "reader", confidence)
    return replace(stated, judged=None if judged is None else round(judged, 3))


def _picked_candidate(
    frame: QuestionFrame,
    ranked: Sequence[Ranked],
    answer: GroundedAnswer,
    weights: AnswerWeights,
    pick: Pick,
) -> GroundedAnswer:
    """Where code's gate and the reader leave a one-hop question open (no bridge to resolve
    first, :func:`~deepresearch.answers.hops.split_hops`: the lines shown then hold the whole
    relation, as they do not for a chain), the model chooses among code's
    first :data:`PICKED_CANDIDATES` candidates (a reading turned away among them, put first
    where code's candidates miss it, and weighed against the others this time), shown the
    lines they stand on, with "none of these" beside them; its pick is stated where its share
    reaches :data:`PICK_AT` and its lines write every name of the question
    (:func:`~deepresearch.answers.reader.names_covered`: a height read off another building's
    line is no answer about the one asked), else ``answer`` (the abstention). The small reader
    misreads lines it is shown among others ("1997" for the office a bank must tell, on a line
    naming it), while shown the candidates it compares them (docs/BENCHMARKS.md, issue 34's
    twentieth step)."""
    scored = score_candidates(frame, ranked[: weights.top_sentences], weights.candidate)
    readings = _readings(frame, scored)
    away = answer.turned_away
    if away is not None and not any(same_answer(away.text, r.text) for r in readings[:PICKED_CANDIDATES]):
        readings.insert(0, away)  # a span code does not offer ("a form") is weighed too
    readings = readings[:PICKED_CANDIDATES]
    shares = pick(frame, readings) if readings else None
    if not shares:
        return answer
    share, reading = max(zip(shares, readings, strict=False), key=lambda p: p[0])
    if share < PICK_AT or not names_covered(frame, reading):
        return answer
    names = tuple(c for c, _, _ in scored[:MAX_CANDIDATES])
    stated = _answer(frame, reading.text, reading.evidence, "grounded", names, "model", answer.confidence)
    return replace(stated, judged=round(share, 3))


def _readings(frame: QuestionFrame, scored: Sequence[tuple[str, float, Ranked]]) -> list[Reading]:
    """Code's candidates as readings of their lines, best first, each once, of the kind asked."""
    readings: list[Reading] = []
    for text, _, evidence in scored:
        if not _wrong_kind(frame, text) and not any(same_answer(text, r.text) for r in readings):
            readings.append(Reading(text, evidence.sentence, evidence))
    return readings


def _weighed_yes(
    frame: QuestionFrame, ranked: Sequence[Ranked], answer: GroundedAnswer, yes_no: YesNo
) -> GroundedAnswer:
    """ "yes" where the model's P("yes") over code's best lines reaches :data:`YES_AT`, cited to
    the best of those lines that writes the most of the question's names (the best line by words
    may be about something else); else ``answer`` (the abstention)."""
    p_yes = yes_no(frame, ranked) if ranked else None
    if p_yes is None or p_yes < YES_AT:
        return answer
    shown = ranked[:TOP_LINES]
    cited = max(shown, key=lambda r: len(frame.names & r.sentence.all_terms))
    stated = _answer(frame, "yes", cited, "grounded", ("yes", "no"), "reader", answer.confidence)
    return replace(stated, judged=round(p_yes, 3))


def unsure(answer: GroundedAnswer) -> bool:
    """Code stated a candidate on a fitted confidence below :data:`AGREE_BELOW`."""
    return answer.status == "grounded" and answer.confidence is not None and answer.confidence < AGREE_BELOW


def _unconfirmed(frame: QuestionFrame, answer: GroundedAnswer, ranked: Sequence[Ranked]) -> GroundedAnswer:
    """An abstention handing over code's unsure answer, which the reader did not confirm."""
    dropped = abstain(frame, answer.support, answer.confidence)
    return replace(dropped, turned_away=_as_reading(answer, ranked))


def _as_reading(answer: GroundedAnswer, ranked: Sequence[Ranked]) -> Reading | None:
    """Code's stated answer as a :class:`Reading` of the line it came from (None if none is
    ranked: it always is)."""
    for r in ranked:
        if r.sentence.text == answer.sentence and r.sentence.source_id == answer.source_id:
            return Reading(answer.text, r.sentence, r)
    return None


def judge_bar(frame: QuestionFrame, reading: Reading) -> float:
    """The judge's P("yes") that states ``reading``: :data:`JUDGE_COVERED_YES` where the lines
    it is shown write every name of the question and the answer writes none of them, else
    :data:`JUDGE_MIN_YES`: a chain the judge cannot see whole, where its P is near chance, or an
    answer that repeats the question's own names (its subject written out in full), which the
    judge takes for the thing asked for."""
    sees_whole = names_covered(frame, reading) and not names_question(frame, reading.text)
    return JUDGE_COVERED_YES if sees_whole else JUDGE_MIN_YES


def reading_confidence(
    frame: QuestionFrame, ranked: Sequence[Ranked], fitted: AnswerWeights, text: str
) -> float | None:
    """The confidence model's score of the reader's answer as if code had ranked it first among
    its candidates (its own score, evidence and names; the margin over code's best), or None when
    it is none of code's candidates: the reader's pick is judged by the evidence code sees for it,
    not by the model's word.

    Unlike code's own gate, the candidate's hand-set score goes in as it is, not as its log
    (``hand_set=False``), so this is a score, not a calibrated P(right). Measured on the dev
    halves' own passages (docs/BENCHMARKS.md): with the log the reader's picks almost never pass
    (hard +0, 2Wiki +1 right at 0.5); as it is, hard 0.093 → 0.140 and 2Wiki 0.337 → 0.386 with
    the no-gold abstentions kept."""
    scored = score_candidates(frame, ranked[: fitted.top_sentences], fitted.candidate)
    picked = next((c for c in scored if same_answer(c[0], text)), None)
    if picked is None:
        return None
    promoted = [picked, *(c for c in scored if c is not picked)]
    return round(fitted.confidence.probability(confidence_features(frame, promoted, hand_set=False)), 3)


def trusted_first(ranked: Sequence[Ranked], sources: Sequence[Source]) -> list[Ranked]:
    """``ranked`` (best score first) with each run of equal scores ordered by the kind of their
    sources (:data:`~deepresearch.sourcekind.KIND_ORDER`: scholarly first, forums last): where
    the evidence conflicts and code cannot tell the answers apart, the more credible source's is
    stated. Scores are never changed, so a better-supported answer from any source still wins."""
    rank = {source.id: kind_rank(source.kind) for source in sources}
    unknown = kind_rank("unknown")
    return sorted(ranked, key=lambda r: (-r.score, rank.get(r.sentence.source_id, unknown)))


def _code_answer(
    frame: QuestionFrame,
    ranked: Sequence[Ranked],
    pool: Sequence[Sentence],
    chooser: Chooser | None,
    weights: AnswerWeights | None,
) -> GroundedAnswer:
    if frame.kind in ("yesno", "choice") and frame.options and ranked:
        return _decide(frame, ranked, pool)
    if frame.kind == "yesno" and ranked:
        return _open_yes_no(frame, ranked, pool)
    if not ranked:
        return abstain(frame, 0.0)
    if weights is None and not supported(frame, ranked[0]):
        return abstain(frame, ranked[0].coverage)
    both = _both_asks(frame, ranked) if frame.also is not None else None
    if both is not None:
        return both
    if weights is not None:
        return _fitted_answer(frame, ranked, weights, chooser)
    scored = score_candidates(frame, ranked[:TOP_SENTENCES])
    if not scored:
        return _sentence_answer(frame, ranked[0])
    return _state_best(frame, scored, ranked, chooser, None, gated=True)


def _state_best(
    frame: QuestionFrame,
    scored: Sequence[tuple[str, float, Ranked]],
    ranked: Sequence[Ranked],
    chooser: Chooser | None,
    confidence: float | None,
    gated: bool,
) -> GroundedAnswer:
    """The chosen candidate as the answer line, or an abstention when it is not of the kind asked
    or (``gated``) its evidence does not support it — a model's pick its evidence does not
    support falls back to code's best."""
    names = tuple(c for c, _, _ in scored[:MAX_CANDIDATES])
    pick, chosen_by = _choose(frame, scored, ranked, chooser)
    text, evidence = next((c, r) for c, _, r in scored if c == pick)
    if not supported(frame, evidence) and chosen_by == "model":
        (text, _, evidence), chosen_by = scored[0], "code"
    if (gated and not supported(frame, evidence)) or _wrong_kind(frame, text):
        return abstain(frame, evidence.coverage, confidence)
    return _answer(frame, text, evidence, "grounded", names, chosen_by, confidence)


def _wrong_kind(frame: QuestionFrame, text: str) -> bool:
    """The best candidate is not of the kind asked: "who …" answered by a name that says it is
    an organisation or a place. The sources then do not say (the next candidate scored lower
    for a reason; a stated answer must be the answer, not a span of the right sentence)."""
    return frame.kind == "person" and named_non_person(text)


def _sentence_answer(frame: QuestionFrame, best: Ranked) -> GroundedAnswer:
    """No candidate of the kind asked for: the best sentence itself, when it covers the question
    and the question asks for no date, number, measure or attribute (a sentence that states none
    does not answer "when", "how many" or "what profession")."""
    stated_by_form = frame.kind in ("date", "number") or frame.type_noun in ATTRIBUTE_NOUNS
    if not supported(frame, best) or ASKS_MEASURE.search(frame.text) or stated_by_form:
        return abstain(frame, best.coverage)
    return _answer(frame, best.sentence.text, best, "sentence", ())


def _fitted_answer(
    frame: QuestionFrame, ranked: Sequence[Ranked], fitted: AnswerWeights, chooser: Chooser | None
) -> GroundedAnswer:
    """The fitted scorer's best candidate, stated only when the confidence model gives it at
    least the threshold's chance of being right (a model may choose among the candidates)."""
    scored = score_candidates(frame, ranked[: fitted.top_sentences], fitted.candidate)
    if not scored:
        return _sentence_answer(frame, ranked[0])
    features = confidence_features(frame, scored, hand_set=fitted.candidate is None)
    confidence = fitted.confidence.probability(features)
    outright = fitted.one_hop_outright and _states_it_all(frame, scored[0][2])
    if confidence < fitted.threshold and not outright:
        return abstain(frame, scored[0][2].coverage, confidence)
    return _state_best(frame, scored, ranked, chooser, confidence, gated=False)


def _states_it_all(frame: QuestionFrame, evidence: Ranked) -> bool:
    """The answer's own sentence holds every term and every name of the question, through no
    bridge: a one-hop question these sources answer outright. The confidence model never saw
    such a case — it was fitted on multi-hop questions, where a sentence naming the question's
    subject is the first hop, not the answer (none of its 259 dev rows is one) — so it does not
    decide here."""
    names_held = not frame.names or frame.names <= evidence.sentence.all_terms
    return evidence.via is None and evidence.coverage >= COMPLETE and names_held


def _both_asks(frame: QuestionFrame, ranked: Sequence[Ranked]) -> GroundedAnswer | None:
    """Two questions in one ("Who drew the map, and in which decade?"): the best supported
    sentence holding an answer of both kinds is the answer, whole; None when no sentence does
    (the first question is then answered alone)."""
    kinds = (frame.kind, frame.also or frame.kind)
    for evidence in ranked[:TOP_SENTENCES]:
        if supported(frame, evidence) and all(candidates(evidence.sentence.text, k) for k in kinds):
            return _answer(frame, evidence.sentence.text, evidence, "sentence", ())
    return None


def abstain(frame: QuestionFrame, support: float, confidence: float | None = None) -> GroundedAnswer:
    rounded = None if confidence is None else round(confidence, 3)
    return GroundedAnswer(
        abstention_text(frame.text), "abstained", frame.kind, support=round(support, 3), confidence=rounded
    )


def abstention_text(question: str) -> str:
    """ "The sources read do not answer: <the question as asked>?", in the question's language.
    The question is quoted, not turned into an indirect one: "do not say in what year was the
    mill built" read badly, and no rule reorders every question's words."""
    asked = question.strip().rstrip("?？. ")
    language = language_of(question)
    mark = "？" if language == "zh" else "?"
    return HEADINGS.get(language, HEADINGS["en"])["abstained"].format(question=f"{asked}{mark}")


def _choose(
    frame: QuestionFrame,
    scored: Sequence[tuple[str, float, Ranked]],
    ranked: Sequence[Ranked],
    chooser: Chooser | None,
) -> tuple[str, str]:
    names = [c for c, _, _ in scored[:MAX_CANDIDATES]]
    if chooser is not None and len(names) > 1:
        picked = chooser(frame, names, ranked[:TOP_SENTENCES])
        if picked in names:
            return picked, "model"
    return names[0], "code"


def _decide(frame: QuestionFrame, ranked: Sequence[Ranked], pool: Sequence[Sentence]) -> GroundedAnswer:
    """Choice and yes/no questions naming their options: what :mod:`deepresearch.answers.compare`
    reads from each option's page decides; where it cannot, the sources do not say."""
    decision = compare.decide(frame, ranked, pool)
    if decision is None:
        return replace(abstain(frame, 0.0), options_read=compare.readout(frame, ranked, pool))
    return _answer(frame, decision.text, decision.evidence, "grounded", decision.names)


def _open_yes_no(frame: QuestionFrame, ranked: Sequence[Ranked], pool: Sequence[Sentence]) -> GroundedAnswer:
    """A yes/no question naming no pair of options: "Did A … before B?" compares the two names'
    dates; otherwise "yes" when one supported sentence holds every term of the question ("Is
    Sumiswald in the canton of Bern?"), else the sources do not say (absence proves no "no")."""
    decision = compare.before(frame, ranked, pool)
    if decision is not None:
        return _answer(frame, decision.text, decision.evidence, "grounded", decision.names)
    asked = set(frame.evidence_terms)
    for evidence in ranked[:TOP_SENTENCES]:
        if asked and asked <= evidence.sentence.all_terms and supported(frame, evidence):
            return _answer(frame, "yes", evidence, "grounded", ("yes", "no"))
    return abstain(frame, ranked[0].coverage)


def _answer(
    frame: QuestionFrame,
    text: str,
    evidence: Ranked,
    status: AnswerStatus,
    names: Sequence[str],
    chosen_by: str = "code",
    confidence: float | None = None,
) -> GroundedAnswer:
    return GroundedAnswer(
        text=text,
        status=status,
        kind=frame.kind,
        source_id=evidence.sentence.source_id,
        sentence=evidence.sentence.text,
        support=round(evidence.coverage, 3),
        candidates=tuple(names),
        chosen_by=chosen_by,
        via_source_id=evidence.via.source_id if evidence.via else None,
        via_sentence=evidence.via.text if evidence.via else "",
        confidence=None if confidence is None else round(confidence, 3),
    )


def check_answer(
    question: str,
    written: str,
    sources: Sequence[Source],
    weights: AnswerWeights | None = None,
    dense: Dense | None = None,
) -> GroundedAnswer:
    """A server model's answer, checked by code against the sources: grounded when one sentence
    holds its names and numbers and most of its words *and* code's own answer, with the model
    choosing, keeps it — the same checks code's answer passes (the sentence is evidence for the
    question, the span is of the kind asked, the gate lets it through); unverified otherwise. A
    number a cited sentence holds is not yet the answer: measured, Qwen2.5-0.5B answered the
    year a painter died, from the bridge sentence, to "when was the clock built". An answer
    saying the sources are silent is an abstention."""
    frame = frame_question(question)
    text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(CITATION_LIKE.sub(" ", written).split())).strip()
    if not text:
        return ground_answer(question, sources, weights=weights, dense=dense)
    if _UNKNOWN.search(text):
        return abstain(frame, 0.0)
    unverified = GroundedAnswer(text, "unverified", frame.kind, chosen_by="model")
    if supporting_sentence(text, sources) is None:
        return unverified
    kept = ground_answer(question, sources, chooser=_written_pick(text), weights=weights, dense=dense)
    if kept.status not in ("grounded", "sentence") or not _holds(text, kept.text):
        return unverified
    shown = text if (_states(text, kept.sentence) or 0.0) >= 0.5 else kept.text
    return replace(kept, text=shown, chosen_by="model")


def _written_pick(written: str) -> Chooser:
    """A chooser that picks the candidate the model's answer holds (the first it writes)."""

    def pick(_frame: QuestionFrame, names: Sequence[str], _ranked: Sequence[Ranked]) -> str | None:
        held = [(written.lower().find(n.lower()), n) for n in names if _holds(written, n)]
        return min(held)[1] if held else None

    return pick


def _holds(written: str, span: str) -> bool:
    """``written`` holds ``span`` as whole words (case aside): "built in 1410" holds "1410",
    not "141"."""
    return re.search(rf"(?<!\w){re.escape(span.lower())}(?!\w)", written.lower()) is not None


def supporting_sentence(answer: str, sources: Sequence[Source]) -> Sentence | None:
    """The source sentence that states ``answer``: it holds every number and name of the answer
    and at least half of its other content words (its passage's title counts); None if none."""
    best: tuple[float, Sentence | None] = (0.0, None)
    for sentence in sentence_pool(sources):
        share = _share_stated(answer, sentence.text, sentence.all_terms)
        if share is not None and share >= 0.5 and share > best[0]:
            best = (share, sentence)
    return best[1]


def _states(answer: str, sentence: str) -> float | None:
    """:func:`_share_stated` of one sentence's own words, None when it lacks a number or name."""
    return _share_stated(answer, sentence, frozenset(key_stems(sentence)))


def _share_stated(answer: str, text: str, terms: frozenset[str]) -> float | None:
    """The share of ``answer``'s content words in ``terms``; None when ``text`` lacks one of its
    numbers or names."""
    strict = set(NUMBER.findall(answer)) | set(INNER_NAME_WORD.findall(answer))
    if not all(s in text for s in strict):
        return None
    words = set(key_stems(answer))
    return len(words & terms) / len(words) if words else 1.0
