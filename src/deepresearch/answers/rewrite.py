"""One wording per question form: rewrites a question into the form the frame reads best.

People ask the same thing many ways. Code reads what a question asks from its wording (the
wh-word, the options, the noun asked about), so each form below is brought to the plain form
before the question is framed — the answer must not change because a question was reworded:

- "Is it true that A and B are both C?" → "Are A and B both C?"
- "Are both A and B C?" → "Are A and B both C?"
- "Do A and B both work as C?" → "Are A and B both C?"
- "Of A and B, which is older?" → "Which is older, A or B?"
- "A or B - which is older?" (or "A or B: whose …") → "Which is older, A or B?"
- "When the lake froze, who owned the mill?" → "Who owned the mill when the lake froze?"
- "When the lake froze, the mill paid how much?" → "The mill paid how much when the lake froze?"

Only the form moves; every word the user wrote is kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_TRUE_THAT = re.compile(
    r"^(?:is it (?:true|the case|correct)|would it be (?:true|correct)) that\s+(?P<subject>.+?)\s+"
    r"(?P<verb>is|are|was|were)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_BOTH_FIRST = re.compile(
    r"^(?P<verb>(?i:are|were|is|was))\s+both\s+(?P<a>[^,]+?)\s+and\s+(?P<b>[^,]+?)\s+(?P<rest>[a-z][^,]*)$",
)
_OF_TWO = re.compile(
    r"^(?:of|between)\s+(?P<a>[^,]+?)\s+and\s+(?P<b>[^,]+?),\s*(?P<ask>(?:which|who|what)\b[^,]+)$",
    re.IGNORECASE,
)
_OPTIONS_FIRST = re.compile(
    r"^(?P<a>[^,:;?–—]+?)\s+or\s+(?P<b>[^,:;?–—]+?)\s*(?:\s-|[–—:;,])\s*(?P<ask>(?:which|who|whose|what)\b.+)$",
    re.IGNORECASE,
)
_DO_BOTH_WORK_AS = re.compile(
    r"^(?P<aux>do|did)\s+(?P<pair>[^,]+?\s+and\s+[^,]+?)\s+both\s+(?:work|serve|act)\s+as\s+(?P<rest>[^,]+)$",
    re.IGNORECASE,
)
_LEADING_CLAUSE = re.compile(
    r"^(?P<sub>when|while|after|before|since|once|if|as)\s+(?P<clause>[^,?]+),\s*"
    r"(?P<ask>(?:(?:who|whose|where|when)\b|[^,?]*?\b(?:what|which|how)\b).*)$",
    re.IGNORECASE,
)


def canonical_question(text: str) -> str:
    """``text`` in the plain form of its kind (see the module docstring); unchanged otherwise."""
    asked = text.strip()
    mark = "?" if asked.endswith("?") else ""
    body = asked.rstrip("? ").strip()
    for pattern, form in _FORMS:
        match = pattern.match(body)
        changed = form(match) if match is not None else None
        if changed is not None:
            return changed + mark
    return text


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _both_first(match: re.Match[str]) -> str | None:
    if " and " in match["b"]:
        return None
    return f"{match['verb'].capitalize()} {match['a']} and {match['b']} both {match['rest']}"


def _do_both(match: re.Match[str]) -> str:
    verb = "Are" if match["aux"].lower() == "do" else "Were"
    return f"{verb} {match['pair']} both {match['rest']}"


_FORMS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]], ...] = (
    (_OPTIONS_FIRST, lambda m: f"{_capital(m['ask'])}, {m['a']} or {m['b']}"),
    (_TRUE_THAT, lambda m: f"{m['verb'].capitalize()} {m['subject']} {m['rest']}"),
    (_BOTH_FIRST, _both_first),
    (_DO_BOTH_WORK_AS, _do_both),
    (_OF_TWO, lambda m: f"{_capital(m['ask'])}, {m['a']} or {m['b']}"),
    (_LEADING_CLAUSE, lambda m: f"{_capital(m['ask'])} {m['sub'].lower()} {m['clause']}"),
)
"""Each form's pattern and how its match is written in the plain form (None: not this form after all)."""
