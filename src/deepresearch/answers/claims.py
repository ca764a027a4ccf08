"""A yes/no question settled through the open question it checks.

"Was the Orla Bridge built in Glasgow?" guesses a fact: it checks "Where was the Orla Bridge
built?" against the claim "Glasgow". The model rewrites the question into that pair under a JSON
grammar (:func:`rewrite`), and code keeps the pair honest (:func:`parse_claim`: the claim is the
question's own words, the open question asks for it without naming it and keeps the subject).
The answer step answers the open question over the same sources, with all its checks; the answer
it states then settles the yes/no question (:func:`settle`): the claim itself, or a date inside
the period claimed, says "yes"; a date outside it, or another person in the role asked ("directed
by Ada Roe" where the question guesses "Pia Voss"), says "no"; for a place or a thing, the
model's P("yes") over the line that states the answer decides, because a city lies in the
country a question may guess. A low P over that line is read as "no" only here, where the line
states another value of what the question guesses, not where the lines say nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from deepresearch.answers.question import frame_question
from deepresearch.answers.reader import YesNoModel, same_answer, yes_no_messages
from deepresearch.errors import ModelError
from deepresearch.llm.base import ChatModel, Message
from deepresearch.text import key_stems

Verdict = Literal["yes", "no"]
SYSTEM = (
    "You turn a yes/no question into the open question it checks. The open question asks for the "
    "fact the yes/no question guesses, without naming the guess; the claim is the guess, copied "
    "word for word from the yes/no question."
)
SHOTS: list[tuple[str, dict[str, str]]] = [
    (
        "Was the Orla Bridge built in Glasgow?",
        {"ask": "Where was the Orla Bridge built?", "claim": "Glasgow"},
    ),
    (
        "Did Pia Voss design the Harbour Library?",
        {"ask": "Who designed the Harbour Library?", "claim": "Pia Voss"},
    ),
    ("Was Harlan Beck born in the 1950s?", {"ask": "When was Harlan Beck born?", "claim": "the 1950s"}),
    (
        "Did Marta Lind play the cello in the Kessel Quartet?",
        {"ask": "What did Marta Lind play in the Kessel Quartet?", "claim": "the cello"},
    ),
    (
        "Is the Dunmore Cup held every four years?",
        {"ask": "How often is the Dunmore Cup held?", "claim": "every four years"},
    ),
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "ask": {"type": "string", "maxLength": 120},
        "claim": {"type": "string", "maxLength": 60},
    },
    "required": ["ask", "claim"],
}
MAX_TOKENS = 60
YES_AT = 0.85
"""The model's P("yes") over the answer's line that says "yes" where the answer is not the claim
itself (a city for the country claimed)."""
NO_BELOW = 0.7
"""The model's P("yes") over the answer's line under which the question is answered "no". On the
dev yes/no questions (``evals/yes_no.py``) the lines that state another place or thing than the
one guessed scored 0.19-0.49, those that state a place inside the one guessed 0.97."""
_WH = re.compile(r"^(?:(?:in|on|at|from|for|by|to)\s+)?(?:who|whom|whose|what|which|where|when|how)\b", re.I)
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")
_DECADE = re.compile(r"(?<!\d)(1\d{2}|20\d)0s\b")
_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)[\s-]+century\b", re.I)
_LISTED = re.compile(r"^\s*(?:,|and|&|,\s*and)\s*$", re.I)


@dataclass(frozen=True)
class Claim:
    """``asks``: the open question the yes/no question checks; ``claim``: its guess, as the
    question writes it."""

    asks: str
    claim: str


@dataclass(frozen=True)
class ClaimCheck:
    """What the answer step needs to settle a yes/no question through its claim: the model's
    rewrite, and its P("yes") for a question over evidence lines."""

    rewrite: Callable[[str], Claim | None]
    weigh: Callable[[str, Sequence[str]], float | None]


def claim_check(model: ChatModel, leaf: YesNoModel | None) -> ClaimCheck:
    """The check built on ``model`` (its rewrite) and ``leaf`` (its P("yes"); None for a model
    that gives none, such as a server: then only code's comparisons settle a question)."""
    return ClaimCheck(
        rewrite=lambda question: rewrite(model, question),
        weigh=lambda question, lines: None if leaf is None else weigh(leaf, question, lines),
    )


def messages(question: str) -> list[Message]:
    """The system text, the invented worked examples (the same every call, so the runtime's
    prompt cache keeps them), then the question."""
    turns = [Message("system", SYSTEM)]
    for shot, reply in SHOTS:
        turns += [Message("user", shot), Message("assistant", json.dumps(reply))]
    return [*turns, Message("user", question)]


def rewrite(model: ChatModel, question: str) -> Claim | None:
    """The model's open question and claim for ``question``, checked (:func:`parse_claim`); None
    when the model fails or its reply does not pass."""
    try:
        reply = model.complete(messages(question), step="claim", schema=SCHEMA, max_tokens=MAX_TOKENS)
    except ModelError:  # no rewrite leaves the abstention
        return None
    return parse_claim(question, reply.text)


def weigh(model: YesNoModel, question: str, lines: Sequence[str]) -> float | None:
    """The model's P("yes") for ``question`` over ``lines`` (each titled by its page); None when
    the model fails."""
    try:
        return model.yes_probability(yes_no_messages(question, lines))
    except ModelError:  # a model that fails leaves the abstention
        return None


def parse_claim(question: str, text: str) -> Claim | None:
    """The reply as a :class:`Claim` when the claim is a span of the question, the open
    question starts with a question word, names none of the claim's words and keeps a name of
    the question that is not the claim's, where the question writes names (what it is about);
    else None (a reply that repeats the yes/no question, or makes the question's only name the
    claim: "Who is named after a zoologist?" of "Is Cole Glacier named after a zoologist?")."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not all(isinstance(data.get(k), str) for k in ("ask", "claim")):
        return None
    asks, claim = " ".join(data["ask"].split()), " ".join(data["claim"].split()).rstrip("?.")
    claimed, asked, named = set(key_stems(claim)), set(key_stems(asks)), frame_question(question).names
    if not claimed or claim.lower() not in question.lower() or not _WH.match(asks) or not asks.endswith("?"):
        return None
    if claimed & asked or (named and not (named - claimed) & asked):
        return None
    return Claim(asks, claim)


def settle(
    claim: Claim, answer: str, line: str, weigh: Callable[[], float | None]
) -> tuple[Verdict | None, float | None]:
    """Yes, no or neither for the yes/no question whose ``claim`` the open question checks, from
    the ``answer`` the answer step states and the ``line`` that states it (see the module
    docstring), with the model's P("yes") where it was asked (``weigh``)."""
    dated = in_period(claim.claim, answer)
    if dated is not None:
        return ("yes" if dated else "no"), None
    if same_answer(answer, claim.claim):
        return "yes", None
    if set(key_stems(answer)) & set(key_stems(claim.claim)):
        return None, None  # "Brands, Inc" for "Yum! Brands": a cut of the same name, or a near one
    if frame_question(claim.asks).kind == "person":
        return ("yes" if listed_with(claim.claim, answer, line) else "no"), None
    p_yes = weigh()
    if p_yes is None:
        return None, None
    return ("yes" if p_yes >= YES_AT else "no" if p_yes < NO_BELOW else None), p_yes


def in_period(claim: str, answer: str) -> bool | None:
    """Whether the first year ``answer`` writes lies in the year, decade ("the 1950s") or
    century ("the 19th century") ``claim`` names; None when either names none."""
    year = _YEAR.search(answer)
    if year is None:
        return None
    found = int(year.group(1))
    decade, century, exact = _DECADE.search(claim), _CENTURY.search(claim), _YEAR.search(claim)
    if decade is not None:
        start = int(decade.group(1)) * 10
        return start <= found < start + 10
    if century is not None:
        start = (int(century.group(1)) - 1) * 100 + 1
        return start <= found < start + 100
    return None if exact is None else found == int(exact.group(1))


def listed_with(claim: str, answer: str, line: str) -> bool:
    """``claim`` stands beside ``answer`` in ``line``, joined by "and" or a comma ("written by
    Jon Bell and Pia Voss"): both fill the role asked."""
    lowered = line.lower()
    a, c = lowered.find(answer.lower()), lowered.find(claim.lower())
    if a < 0 or c < 0:
        return False
    between = lowered[a + len(answer) : c] if a < c else lowered[c + len(claim) : a]
    return _LISTED.match(between) is not None


__all__ = [
    "Claim",
    "ClaimCheck",
    "claim_check",
    "Verdict",
    "in_period",
    "listed_with",
    "parse_claim",
    "rewrite",
    "settle",
    "weigh",
]
