"""Untrusted text made data: what every path from a page, a title, a note or a model into a prompt,
a note or a report goes through.

``[TOOL_CALL:…]`` markers and the tags that structure our prompts (``<source>``, ``<think>``,
chat-template tokens) are removed, so such text cannot close the quotation it is placed in or pass
itself off as a tool call; a title is flattened to one line that can close no attribute or tag and
forge no ``[n]`` citation. Used by the fetcher, the local index's loaders, the notes search, the
prompts and the structured-output ladder alike (one rule, one home, no package importing another's
internals for it).
"""

from __future__ import annotations

import re

_TOOL_CALL = re.compile(r"\[TOOL_CALL:[^\]]*\]?", re.IGNORECASE)
_PROMPT_TAG = re.compile(
    r"</?\s*(?:source|think|tool_call|tool_response|function_call|tools)\b[^>]*>"
    r"|<\|[A-Za-z0-9_ .-]{1,40}\|>",
    re.IGNORECASE,
)
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BLANK_LINES = re.compile(r"\n{3,}")
_TITLE_CHARS = str.maketrans('"<>[]', "'()()")


def strip_tool_calls(text: str) -> str:
    """Remove ``[TOOL_CALL:…]`` markers so they never reach a user, a note or a report."""
    return _TOOL_CALL.sub("", text)


def sanitize(text: str) -> str:
    """``text`` without tool-call markers or prompt tags, whitespace tidied, lines kept."""
    text = _PROMPT_TAG.sub("", strip_tool_calls(text))
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def clean_title(title: str | None) -> str | None:
    """A title on one line, sanitised, without quotes, angle or square brackets (a title can close
    no attribute or tag and forge no ``[n]`` citation); ``None`` if empty."""
    if not title:
        return None
    flat = " ".join(sanitize(title).split())
    flat = flat.translate(_TITLE_CHARS)
    return flat or None
