"""Removing ``<think>`` blocks and ``[TOOL_CALL:…]`` markers from model text, whole or streamed."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from deepresearch.untrusted import model_prose

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_UNCLOSED_THINK = re.compile(r"<think>.*\Z", re.DOTALL | re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"^.*?</think>", re.DOTALL | re.IGNORECASE)
_OPEN, _CLOSE = "<think>", "</think>"
_MARKER_OPEN, _MARKER_CLOSE = "[tool_call:", "]"


def strip_thinking(text: str) -> str:
    """Drop complete ``<think>…</think>`` blocks, an unclosed trailing one, and a leading
    ``…</think>`` left by servers that swallow the opening tag."""
    text = _THINK_BLOCK.sub("", text)
    text = _UNCLOSED_THINK.sub("", text)
    if _CLOSE in text.lower():
        text = _STRAY_CLOSE.sub("", text, count=1)
    return text.strip()


def clean_model_text(text: str, *, strip_think: bool = True) -> str:
    """Model prose as it may be stored: reasoning removed (unless kept), then made safe
    (:func:`deepresearch.untrusted.model_prose`: no links, images, URLs or prompt tags)."""
    return model_prose(strip_thinking(text) if strip_think else text)


class _SpanFilter:
    """A streaming filter's state: text held back (a possible tag prefix) and whether it is inside
    the span being removed."""

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False

    def flush(self) -> str:
        """What is held back, unless it is inside a span; the filter starts afresh."""
        rest, self._buffer = ("" if self._inside else self._buffer), ""
        self._inside = False
        return rest


class ThinkFilter(_SpanFilter):
    """Streaming filter: feed chunks, get back text outside ``<think>`` blocks.

    Tags may be split across chunks (``"<th"`` + ``"ink>"``): a possible tag prefix at the end of a
    chunk is held back until the next chunk decides it.
    """

    def feed(self, chunk: str) -> str:
        self._buffer += chunk
        out: list[str] = []
        while True:
            tag = _CLOSE if self._inside else _OPEN
            index = self._buffer.lower().find(tag)
            if index >= 0:
                if not self._inside:
                    out.append(self._buffer[:index])
                self._buffer = self._buffer[index + len(tag) :]
                self._inside = not self._inside
                continue
            keep = _partial_suffix(self._buffer, tag)
            if not self._inside:
                out.append(self._buffer[: len(self._buffer) - keep])
            self._buffer = self._buffer[len(self._buffer) - keep :]
            return "".join(out)


class ToolCallFilter(_SpanFilter):
    """Streaming filter: feed chunks, get back text without ``[TOOL_CALL:…]`` markers.

    Same contract as :func:`strip_tool_calls` over the joined text: a marker runs from
    ``[TOOL_CALL:`` (any case) to the next ``]``, or to the end when it never closes. A possible
    marker prefix at the end of a chunk (``"[TOOL_"``) is held back until the next chunk decides it.
    """

    def feed(self, chunk: str) -> str:
        self._buffer += chunk
        out: list[str] = []
        while True:
            if self._inside:
                end = self._buffer.find(_MARKER_CLOSE)
                if end < 0:
                    self._buffer = ""
                    return "".join(out)
                self._buffer, self._inside = self._buffer[end + 1 :], False
                continue
            start = self._buffer.lower().find(_MARKER_OPEN)
            if start >= 0:
                out.append(self._buffer[:start])
                self._buffer, self._inside = self._buffer[start + len(_MARKER_OPEN) :], True
                continue
            keep = _partial_suffix(self._buffer, _MARKER_OPEN)
            out.append(self._buffer[: len(self._buffer) - keep])
            self._buffer = self._buffer[len(self._buffer) - keep :]
            return "".join(out)


def filter_stream(chunks: Iterable[str], *, strip_think: bool = True) -> Iterator[str]:
    """Yield non-empty chunks with ``<think>`` blocks (unless ``strip_think`` is off) and
    ``[TOOL_CALL:…]`` markers removed, tags and markers split across chunks included."""
    think, markers = ThinkFilter(), ToolCallFilter()
    for chunk in chunks:
        text = markers.feed(think.feed(chunk) if strip_think else chunk)
        if text:
            yield text
    tail = markers.feed(think.flush()) if strip_think else ""
    tail += markers.flush()
    if tail:
        yield tail


def _partial_suffix(text: str, tag: str) -> int:
    lowered = text.lower()
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0
