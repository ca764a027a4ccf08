"""Removing ``<think>`` blocks and ``[TOOL_CALL:…]`` markers from model text, whole or streamed."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_THINK_BLOCK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_UNCLOSED_THINK = re.compile(r"<think>.*\Z", re.DOTALL | re.IGNORECASE)
_STRAY_CLOSE = re.compile(r"^.*?</think>", re.DOTALL | re.IGNORECASE)
_TOOL_CALL = re.compile(r"\[TOOL_CALL:[^\]]*\]?", re.IGNORECASE)
_OPEN, _CLOSE = "<think>", "</think>"


def strip_thinking(text: str) -> str:
    """Drop complete ``<think>…</think>`` blocks, an unclosed trailing one, and a leading
    ``…</think>`` left by servers that swallow the opening tag."""
    text = _THINK_BLOCK.sub("", text)
    text = _UNCLOSED_THINK.sub("", text)
    if _CLOSE in text.lower():
        text = _STRAY_CLOSE.sub("", text, count=1)
    return text.strip()


def strip_tool_calls(text: str) -> str:
    """Remove ``[TOOL_CALL:…]`` markers so they never reach a user, a note or a report."""
    return _TOOL_CALL.sub("", text)


def clean_model_text(text: str, *, strip_think: bool = True) -> str:
    return strip_tool_calls(strip_thinking(text) if strip_think else text).strip()


class ThinkFilter:
    """Streaming filter: feed chunks, get back text outside ``<think>`` blocks.

    Tags may be split across chunks (``"<th"`` + ``"ink>"``): a possible tag prefix at the end of a
    chunk is held back until the next chunk decides it.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False

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

    def flush(self) -> str:
        rest, self._buffer = ("" if self._inside else self._buffer), ""
        return rest


def filter_stream(chunks: Iterable[str], *, strip_think: bool = True) -> Iterator[str]:
    """Yield non-empty chunks with thinking and tool-call markers removed."""
    think = ThinkFilter()
    for chunk in chunks:
        text = think.feed(chunk) if strip_think else chunk
        if text:
            yield text
    tail = think.flush() if strip_think else ""
    if tail:
        yield tail


def _partial_suffix(text: str, tag: str) -> int:
    lowered = text.lower()
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0
