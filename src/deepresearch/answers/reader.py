"""An instruct model reading code's best evidence lines: quote, then answer; code checks the span.

Code ranks the sentences (:mod:`deepresearch.answers.evidence`); the model is shown the first
few, each after the bridge sentence it borrowed coverage from and titled by its passage, with
three invented worked examples (a two-hop chain, a number, lines that do not say), and asked under
a JSON grammar for the numbers of the lines it used and the shortest answer copied from them.
The model reads meaning that rules miss ("with his wife, X" for "married to"); code keeps it
honest: the answer must be a span of a line shown, not the question's own words, or it is no
answer (:func:`check_span`). Which questions the reader answers is measured, not assumed
(docs/BENCHMARKS.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from deepresearch.answers.evidence import Ranked, Sentence
from deepresearch.answers.features import named_non_person, person_subjects
from deepresearch.answers.question import QuestionFrame
from deepresearch.errors import ModelError
from deepresearch.llm.base import ChatModel, Message
from deepresearch.text import key_stems, stem

TOP_LINES = 6
MAX_TOKENS = 60
SYSTEM = (
    "You answer a question from numbered evidence lines. Each line starts with the title of its "
    "page in parentheses; the line is about that title. Some questions need two lines: one names "
    "a bridge (a person, a place, a work), another line states the answer about that bridge. "
    "First give the numbers of the lines you used, then the shortest answer, copied word for "
    "word from the last line you used. If the lines do not state the answer, give no lines and "
    'the answer "none".'
)
SHOTS: list[tuple[str, list[str], dict[str, Any]]] = [
    (
        "Who directed the film in which Mara Ellison played a lighthouse keeper?",
        [
            "(Mara Ellison) Mara Ellison (born 1930) is an actress best known as the lighthouse keeper in "
            "Tide Keeper.",
            "(Grey Harbour) Grey Harbour is a novel set in a fishing town.",
            "(Tide Keeper) Tide Keeper is a 1961 drama film directed by Oskar Lindqvist and produced by "
            "Ruth Amble.",
        ],
        {"lines": [1, 3], "answer": "Oskar Lindqvist"},
    ),
    (
        "How many islands does the archipelago east of Port Venn have?",
        [
            "(Port Venn) Port Venn is a harbour town facing the Selka archipelago to its east.",
            "(Selka archipelago) The Selka archipelago consists of 41 islands, 6 of them inhabited.",
            "(Port Venn) Its population was 3,200 in 2010.",
        ],
        {"lines": [1, 2], "answer": "41"},
    ),
    (
        "In what year was the founder of Harlow Mills born?",
        [
            "(Harlow Mills) Harlow Mills is a textile company founded by Edwin Carr.",
            "(Harlow) Harlow is a town in Essex.",
            "(Harlow Mills) The company employed 900 people in 1950.",
        ],
        {"lines": [], "answer": "none"},
    ),
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "lines": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
        "answer": {"type": "string", "maxLength": 60},
    },
    "required": ["lines", "answer"],
}
JUDGE_SYSTEM = "You check answers. Reply yes or no."
YES_NO_SYSTEM = (
    "You answer a yes/no question from numbered evidence lines. Each line starts with the title of "
    "its page in parentheses; the line is about that title. Reply yes or no."
)
CHOICE_SYSTEM = (
    "You answer a question from numbered evidence lines by choosing one of the options. Each line "
    "starts with the title of its page in parentheses; the line is about that title. Reply with "
    "the letter of the option only."
)
LETTERS = "ABCDEFGH"
MAX_CHOICE_LINES = 8
_NONE = {"", "none", "unknown", "n a", "not stated"}
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W_]+")


@runtime_checkable
class YesNoModel(Protocol):
    """A model that gives P("yes") of its first answer token (the in-process runtime does:
    :meth:`~deepresearch.llm.embedded.EmbeddedModel.yes_probability`)."""

    def yes_probability(self, messages: list[Message]) -> float: ...


@runtime_checkable
class ChoiceModel(Protocol):
    """A model that gives the share of each option letter in its first answer token (the
    in-process runtime does: :meth:`~deepresearch.llm.embedded.EmbeddedModel.option_probabilities`)."""

    def option_probabilities(self, messages: list[Message], letters: Sequence[str]) -> list[float]: ...


@dataclass(frozen=True)
class Reading:
    """The reader's answer, checked: ``text`` is a span of ``sentence`` (a line shown to it), or
    that line's page title where the reader gave the question's own subject (:func:`other_end`);
    ``used`` are the lines the reader said it used, in its order."""

    text: str
    sentence: Sentence
    evidence: Ranked
    used: tuple[Sentence, ...] = ()


def evidence_lines(ranked: Sequence[Ranked], top: int = TOP_LINES) -> list[tuple[Sentence, Ranked]]:
    """Code's first ``top`` chains as lines, each bridge sentence before the sentence it leads to,
    no sentence twice, at most ``top`` + 4 lines."""
    lines: list[tuple[Sentence, Ranked]] = []
    seen: set[int] = set()
    for r in ranked[:top]:
        for sentence in ([r.via] if r.via is not None else []) + [r.sentence]:
            if id(sentence) not in seen:
                seen.add(id(sentence))
                lines.append((sentence, r))
    return lines[: top + 4]


def line_text(sentence: Sentence) -> str:
    return f"({sentence.title}) {sentence.text}"


def messages(question: str, lines: Sequence[str]) -> list[Message]:
    """The system text, the worked examples (the same every call, so the runtime's prompt cache
    keeps them), then the question and its lines."""
    turns = [Message("system", SYSTEM)]
    for shot_question, shot_lines, reply in SHOTS:
        turns += [
            Message("user", _user_text(shot_question, shot_lines)),
            Message("assistant", json.dumps(reply)),
        ]
    return [*turns, Message("user", _user_text(question, lines))]


def _user_text(question: str, lines: Sequence[str]) -> str:
    return f"Question: {question}\nLines:\n{_numbered(lines)}"


def _numbered(lines: Sequence[str]) -> str:
    return "\n".join(f"[{i}] {line}" for i, line in enumerate(lines, 1))


def read(
    model: ChatModel, frame: QuestionFrame, ranked: Sequence[Ranked], top: int = TOP_LINES
) -> Reading | None:
    """The model's checked answer over code's best lines, or None (no lines, a model error, a
    reply that is no span of a line shown, or the question's own words)."""
    lines = evidence_lines(ranked, top)
    if not lines:
        return None
    try:
        reply = model.complete(
            messages(frame.text, [line_text(s) for s, _ in lines]),
            step="reader",
            schema=SCHEMA,
            max_tokens=MAX_TOKENS,
        )
    except ModelError:  # a reader that fails leaves code's answer line as it was
        return None
    return check_span(frame, parse_reply(reply.text), lines)


def judge_messages(question: str, answer: str, lines: Sequence[str]) -> list[Message]:
    """The judge's question (:data:`JUDGE_SYSTEM`): the evidence ``lines`` (those a reading
    stands on, :func:`reading_lines`), the question and the proposed answer; its P("yes") is
    read from the first token."""
    evidence = "\n".join(lines)
    asked = (
        f"Evidence:\n{evidence}\nQuestion: {question}\nProposed answer: {answer}\n"
        "Does the evidence show that the proposed answer is the answer to the question? Reply yes or no."
    )
    return [Message("system", JUDGE_SYSTEM), Message("user", asked)]


def judge(model: YesNoModel, frame: QuestionFrame, reading: Reading) -> float | None:
    """The model's P("yes") that ``reading`` answers the question, shown only the lines it
    stands on (:func:`reading_lines`); None when the model fails. Measured over the reader's
    spans on one-hop dev questions this P separates right from wrong (AUC 0.83); on multi-hop
    chains no better than chance (0.53-0.59, docs/BENCHMARKS.md), hence a high bar."""
    try:
        return model.yes_probability(judge_messages(frame.text, reading.text, reading_lines(reading)))
    except ModelError:  # a judge that fails leaves the abstention
        return None


def yes_no_messages(question: str, lines: Sequence[str]) -> list[Message]:
    """A yes/no question over code's best ``lines`` (:data:`YES_NO_SYSTEM`); its P("yes") is read
    from the first token."""
    asked = f"Lines:\n{_numbered(lines)}\nQuestion: {question}\nReply yes or no."
    return [Message("system", YES_NO_SYSTEM), Message("user", asked)]


def weigh_yes_no(
    model: YesNoModel, frame: QuestionFrame, ranked: Sequence[Ranked], top: int = TOP_LINES
) -> float | None:
    """The model's P("yes") for a yes/no question over code's best lines; None when the lines do
    not write every name the question does (the model would answer from what it remembers of the
    names, not from the sources: measured, it said "yes" at 0.96 to a pair of directors whose
    passages were not among the lines) or when the model fails."""
    lines = [s for s, _ in evidence_lines(ranked, top)]
    if not lines or not _hold_names(frame, lines):
        return None
    try:
        return model.yes_probability(yes_no_messages(frame.text, [line_text(s) for s in lines]))
    except ModelError:  # a model that fails leaves the abstention
        return None


def choice_messages(question: str, lines: Sequence[str], options: Sequence[str]) -> list[Message]:
    """The multiple choice (:data:`CHOICE_SYSTEM`): the lines, the question, the options
    lettered, the last of them "none of these"."""
    lettered = "\n".join(f"{LETTERS[i]}) {o}" for i, o in enumerate([*options, "none of these"]))
    asked = f"Lines:\n{_numbered(lines)}\nQuestion: {question}\nOptions:\n{lettered}\nAnswer with a letter."
    return [Message("system", CHOICE_SYSTEM), Message("user", asked)]


def weigh_options(
    model: ChoiceModel, frame: QuestionFrame, readings: Sequence[Reading]
) -> list[float] | None:
    """The model's share for each of ``readings`` (at most ``len(LETTERS) - 1``), shown the
    lines they stand on together and "none of these" as a last option; None when the model fails."""
    readings = readings[: len(LETTERS) - 1]
    lines = list(dict.fromkeys(line for r in readings for line in reading_lines(r)))[:MAX_CHOICE_LINES]
    letters = LETTERS[: len(readings) + 1]
    try:
        shares = model.option_probabilities(
            choice_messages(frame.text, lines, [r.text for r in readings]), letters
        )
    except ModelError:  # a model that fails leaves the abstention
        return None
    return shares[: len(readings)]


def reading_lines(reading: Reading) -> list[str]:
    """The lines a reading stands on, as the judge is shown them, each titled: the bridge line
    (when the answer's line borrowed coverage from one), the lines the reader said it used, and
    the answer's own line. A line that names the answer need not be the line that ties it to the
    question ("X Ltd. was an aircraft maker." beside "It was established by Y.")."""
    return [line_text(s) for s in reading_sentences(reading)]


def reading_sentences(reading: Reading) -> tuple[Sentence, ...]:
    """The sentences behind :func:`reading_lines`, in that order, none twice."""
    via = reading.evidence.via
    bridge = (via,) if via is not None else ()
    return tuple(dict.fromkeys([*bridge, *reading.used, reading.sentence]))


def names_covered(frame: QuestionFrame, reading: Reading) -> bool:
    """Every name the question writes stands in the lines the judge is shown (their text or
    titles): the judge then sees the whole way from the question to the answer and judges what
    the lines say, instead of guessing at a link that is not shown. False when the question
    writes no name."""
    return _hold_names(frame, reading_sentences(reading))


def _hold_names(frame: QuestionFrame, sentences: Sequence[Sentence]) -> bool:
    shown = frozenset().union(*(s.all_terms for s in sentences))
    return bool(frame.names) and frame.names <= shown


def parse_reply(text: str) -> tuple[list[int], str]:
    """(line numbers, answer) from the model's JSON; ([], "") when it is not the shape asked."""
    try:
        data = json.loads(text)
    except ValueError:
        return [], ""
    if not isinstance(data, dict):
        return [], ""
    used = (
        [n for n in data.get("lines", []) if isinstance(n, int)]
        if isinstance(data.get("lines"), list)
        else []
    )
    answer = data.get("answer")
    return used, answer.strip() if isinstance(answer, str) else ""


def check_span(
    frame: QuestionFrame, reply: tuple[list[int], str], lines: Sequence[tuple[Sentence, Ranked]]
) -> Reading | None:
    """The reply as a :class:`Reading` when its answer is a span of a line shown (the lines it
    named first, the last of them first) and is not made of the question's own words."""
    used, answer = reply
    answer = answer.rstrip(".,;: ")
    named = [lines[n - 1] for n in reversed(used) if 0 < n <= len(lines)]
    said = tuple(dict.fromkeys(s for s, _ in reversed(named)))
    if _norm(answer) in _NONE:
        return None
    if _is_question_words(answer, frame):
        return other_end(frame, answer, named, said)
    if not _kind_fits(answer, frame) or _person_for_place(answer, frame, lines):
        return None
    for find in (_span_in, _near_span):
        for sentence, ranked in [*named, *lines]:
            span = find(answer, sentence.text)
            if span is not None:
                return Reading(span, sentence, ranked, said)
    return None


def other_end(
    frame: QuestionFrame, subject: str, named: Sequence[tuple[Sentence, Ranked]], said: tuple[Sentence, ...]
) -> Reading | None:
    """The reader answered with the question's own subject ("Who was X married to?" → X) from a
    line about someone else that names X ("(Y) Y … with his wife, X"), X one of the question's
    names (not a common word of it): the relation that line
    states runs from its page's subject to X, so the answer is the other end, the page's title
    (its disambiguation in parentheses dropped). The lines the reader named are tried, the last
    first; None when none is titled other than the question's words (and, for "who", other than
    an organisation or a place) and names ``subject``, or the question asks for a date or a
    number (a page title is neither)."""
    if frame.kind not in ("person", "place", "entity") or not names_question(frame, subject):
        return None
    for sentence, ranked in named:
        title = sentence.subject
        if (
            not title
            or _is_question_words(title, frame)
            or (frame.kind == "person" and named_non_person(title))
        ):
            continue
        if _span_in(subject, sentence.text) is not None or _near_span(subject, sentence.text) is not None:
            return Reading(title, sentence, ranked, said)
    return None


def _kind_fits(answer: str, frame: QuestionFrame) -> bool:
    """A bare number or year ("1846", "143") answers only a question that asks for a number or a
    date: a small model copies the year of a line when it cannot find the person or thing asked."""
    return frame.kind in ("number", "date") or _LETTER.search(answer) is not None


def _person_for_place(answer: str, frame: QuestionFrame, lines: Sequence[tuple[Sentence, Ranked]]) -> bool:
    """A "where" answer that is a person whose page the lines open (:func:`person_subjects`): a
    small model copies the bridge (the director) when it cannot find the place (his birthplace)."""
    if frame.kind != "place":
        return False
    return frozenset(key_stems(answer)) in person_subjects(s for s, _ in lines)


def _span_in(answer: str, text: str) -> str | None:
    """``answer`` as ``text`` writes it (case and spacing aside), or None if it is not a span."""
    pattern = r"\s+".join(re.escape(w) for w in answer.split())
    match = re.search(rf"(?<!\w){pattern}(?!\w)", text, re.IGNORECASE)
    return match.group(0) if match else None


def _near_span(answer: str, text: str) -> str | None:
    """The line's own words for an answer the model shortened or inflected: every word of
    ``answer`` in order, each the line's word or of its stem ("40 years" → "40-year"), at most
    one line word between two of them ("Jon Aske" → "Jon Peder Aske"); None if there is none."""
    wanted = [stem(w) for w in _WORD.findall(answer.lower())]
    found = [(m, stem(m.group(0).lower())) for m in _WORD.finditer(text)]
    if not wanted:
        return None
    for start, (first, word) in enumerate(found):
        if word != wanted[0]:
            continue
        last, at = first, start
        for need in wanted[1:]:
            step = next((j for j in range(at + 1, min(at + 3, len(found))) if found[j][1] == need), None)
            if step is None:
                break
            last, at = found[step][0], step
        else:
            return text[first.start() : last.end()]
    return None


def _is_question_words(answer: str, frame: QuestionFrame) -> bool:
    """Every content word of the answer is the question's ("Cedar Hall" for "Who designed Cedar
    Hall?"): the reader repeated the subject. An answer with no content word is a number or a
    date, which the question must not state either."""
    terms = set(key_stems(answer))
    if not terms:
        return answer.lower() in frame.text.lower()
    return terms <= set(frame.terms) | frame.names


def names_question(frame: QuestionFrame, text: str) -> bool:
    """``text`` writes one of the question's names (a stem of them)."""
    return bool(set(key_stems(text)) & frame.names)


def same_answer(a: str, b: str) -> bool:
    """One answer holds the other as whole words, case and punctuation aside ("Kestrel Works"
    and "Kestrel Works Ltd.")."""
    x, y = f" {_norm(a)} ", f" {_norm(b)} "
    return bool(x.strip() and y.strip()) and (x in y or y in x)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())
