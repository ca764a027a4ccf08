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
    r"</?\s*(?:source|think|tool_call|tool_response|function_call|tools)\b[^>\n]*(?:>|(?=\n)|\Z)"
    r"|<\|[A-Za-z0-9_ .-]{1,40}\|>",
    re.IGNORECASE,
)
_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)?|<img\b[^>]*>?", re.IGNORECASE)
_LINK = re.compile(r"\[([^\]\n]*)\]\([^)\n]*\)")
_URL = re.compile(r"<?\b(?:https?|ftp|file|data|javascript):[^\s)>\]]*>?", re.IGNORECASE)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>")
_SPACE_BEFORE_MARK = re.compile(r"\s+([.,;:!?])")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s")
_REFERENCE_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s*)?\**(?:references|sources|bibliography|links)\**:?\s*$", re.I
)
_UNCLOSED_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s+[\w:-]+\s*=[^\n]*|\s*$)")
_REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[[^\]\n]+\]:")
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


def model_prose(text: str) -> str:
    """Model-written prose made safe to store and render: prompt tags (a cut-off ``<source id=``
    too), images, links, URLs and HTML (a tag cut off before its ``>``, with the rest of its line,
    too) removed, and the references a model types dropped: a reference list, and a line opening
    with ``[n]:`` (a link reference definition, which would make a link of every ``[n]``).

    A report's links are the references code builds from the sources the run read; a URL in model
    text was never read, so it never reaches a report (docs/SECURITY.md). Link text stays; a list
    item that held a link or URL is a typed reference, and goes with its line.
    """
    kept = []
    for line in sanitize(text).splitlines():
        if _REFERENCE_HEADING.match(line) or _REFERENCE_DEFINITION.match(line):
            continue
        linked = bool(_LINK.search(line) or _URL.search(line) or _IMAGE.search(line))
        if linked and _LIST_ITEM.match(line):
            continue
        line = _URL.sub("", _LINK.sub(r"\1", _IMAGE.sub("", line)))
        line = _SPACES.sub(" ", _UNCLOSED_TAG.sub("", _HTML_TAG.sub("", line)))
        kept.append(_SPACE_BEFORE_MARK.sub(r"\1", line).strip())
    return _BLANK_LINES.sub("\n\n", "\n".join(kept)).strip()


def clean_title(title: str | None) -> str | None:
    """A title on one line, sanitised, without quotes, angle or square brackets (a title can close
    no attribute or tag and forge no ``[n]`` citation); ``None`` if empty."""
    if not title:
        return None
    flat = " ".join(sanitize(title).split())
    flat = flat.translate(_TITLE_CHARS)
    return flat or None


_INERT_URL = re.compile(
    r"(?:\b[A-Za-z][A-Za-z0-9+.-]{1,20}://?|\bwww\.)[^\s`]*[^\s`.,;:!?)\]'\"]"
    r"|\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+",
    re.IGNORECASE,
)
_MARKDOWN_ACTIVE = re.compile(r"[\\`*\[\]<>~|]|(?<![^\W_])_|_(?![^\W_])")


def markdown_literal(text: str) -> str:
    """``text`` (a sentence or title quoted from a source) as inline Markdown that shows it as
    written and does nothing: on one line, every character that could open an image, a link,
    HTML, emphasis, code or a table cell backslash-escaped, and URLs, ``www.`` names and e-mail
    addresses put in code spans (no renderer makes a link of a code span). A page's own ``[3]``
    becomes ``\\[3\\]``, which code never reads as a citation."""
    flat = " ".join(text.split())
    parts, last = [], 0
    for match in _INERT_URL.finditer(flat):
        parts += [_MARKDOWN_ACTIVE.sub(r"\\\g<0>", flat[last : match.start()]), f"`{match.group()}`"]
        last = match.end()
    parts.append(_MARKDOWN_ACTIVE.sub(r"\\\g<0>", flat[last:]))
    return "".join(parts)
