"""One wording per question form: rewrites a question into the form the frame reads best.

People ask the same thing many ways. Code reads what a question asks from its wording (the
wh-word, the options, the noun asked about), so each form below is brought to the plain form
before the question is framed — the answer must not change because a question was reworded:

- "Is it true that A and B are both C?" → "Are A and B both C?"
- "Are both A and B C?" → "Are A and B both C?"
- "Do A and B both work as C?" → "Are A and B both C?"
- "Of A and B, which is older?" → "Which is older, A or B?"
- "When the lake froze, who owned the mill?" → "Who owned the mill when the lake froze?"

Only the form moves; every word the user wrote is kept.
"""

from __future__ import annotations

import re

_TRUE_THAT = re.compile(
    r"^(?:is it (?:true|the case|correct)|would it be (?:true|correct)) that\s+(?P<subject>.+?)\s+"
    r"(?P<verb>is|are|was|were)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_BOTH_FIRST = re.compile(
    r"^(?P<verb>are|were|is|was)\s+both\s+(?P<a>[^,]+?)\s+and\s+(?P<b>[^,]+?)\s+(?P<rest>[a-z][^,]*)$",
)
_OF_TWO = re.compile(
    r"^(?:of|between)\s+(?P<a>[^,]+?)\s+and\s+(?P<b>[^,]+?),\s*(?P<ask>(?:which|who|what)\b[^,]+)$",
    re.IGNORECASE,
)
_DO_BOTH_WORK_AS = re.compile(
    r"^(?P<aux>do|did)\s+(?P<pair>[^,]+?\s+and\s+[^,]+?)\s+both\s+(?:work|serve|act)\s+as\s+(?P<rest>[^,]+)$",
    re.IGNORECASE,
)
_LEADING_CLAUSE = re.compile(
    r"^(?P<sub>when|while|after|before|since|once|if|as)\s+(?P<clause>[^,?]+),\s*"
    r"(?P<ask>(?:who|whom|whose|what|which|where|when|how)\b.+)$",
    re.IGNORECASE,
)


def canonical_question(text: str) -> str:
    """``text`` in the plain form of its kind (see the module docstring); unchanged otherwise."""
    asked = text.strip()
    mark = "?" if asked.endswith("?") else ""
    body = asked.rstrip("? ").strip()
    for rewrite in (_from_true_that, _from_both_first, _from_do_both, _from_of_two, _from_leading_clause):
        changed = rewrite(body)
        if changed is not None:
            return changed + mark
    return text


def _from_true_that(body: str) -> str | None:
    match = _TRUE_THAT.match(body)
    if match is None:
        return None
    verb = match["verb"].capitalize()
    return f"{verb} {match['subject']} {match['rest']}"


def _from_both_first(body: str) -> str | None:
    match = _BOTH_FIRST.match(body[0].lower() + body[1:]) if body else None
    if match is None or " and " in match["b"]:
        return None
    return f"{match['verb'].capitalize()} {match['a']} and {match['b']} both {match['rest']}"


def _from_do_both(body: str) -> str | None:
    match = _DO_BOTH_WORK_AS.match(body)
    if match is None:
        return None
    verb = "Are" if match["aux"].lower() == "do" else "Were"
    return f"{verb} {match['pair']} both {match['rest']}"


def _from_of_two(body: str) -> str | None:
    match = _OF_TWO.match(body)
    if match is None:
        return None
    ask = match["ask"]
    return f"{ask[0].upper()}{ask[1:]}, {match['a']} or {match['b']}"


def _from_leading_clause(body: str) -> str | None:
    match = _LEADING_CLAUSE.match(body)
    if match is None:
        return None
    ask = match["ask"]
    return f"{ask[0].upper()}{ask[1:]} {match['sub'].lower()} {match['clause']}"
