"""Streaming filters: ``<think>`` blocks and ``[TOOL_CALL:…]`` markers, split anywhere."""

from __future__ import annotations

import pytest

from deepresearch.llm.thinking import ToolCallFilter, filter_stream
from deepresearch.untrusted import strip_tool_calls

TEXT = 'Before [TOOL_CALL: search {"q": "x"}] middle <think>hidden [TOOL_CALL: y]</think>after.'


def _splits(text: str) -> list[list[str]]:
    """Every way to cut ``text`` in two, and in single characters."""
    return [[text[:i], text[i:]] for i in range(len(text) + 1)] + [list(text)]


@pytest.mark.parametrize("chunks", _splits(TEXT))
def test_markers_and_thinking_are_removed_however_the_stream_is_cut(chunks: list[str]) -> None:
    assert "".join(filter_stream(chunks)) == "Before  middle after."


@pytest.mark.parametrize("chunks", _splits("a [tool_call: lower case] b"))
def test_marker_match_ignores_case(chunks: list[str]) -> None:
    assert "".join(filter_stream(chunks)) == "a  b"


def test_streamed_result_matches_the_whole_text_function() -> None:
    text = "x [TOOL_CALL: never closed"
    marker = ToolCallFilter()

    streamed = marker.feed(text[:5]) + marker.feed(text[5:]) + marker.flush()

    assert streamed == strip_tool_calls(text) == "x "


def test_a_lookalike_prefix_is_released() -> None:
    marker = ToolCallFilter()

    held = marker.feed("see [TOOL")

    assert held == "see "
    assert marker.feed("S] list") == "[TOOLS] list"


def test_thinking_kept_when_asked_but_markers_still_go() -> None:
    chunks = ["<think>plan</think>", "ok [TOOL_", "CALL:x]"]

    assert "".join(filter_stream(chunks, strip_think=False)) == "<think>plan</think>ok "


def test_unclosed_think_at_the_end_is_dropped() -> None:
    assert "".join(filter_stream(["answer <thi", "nk> still thinking"])) == "answer "
