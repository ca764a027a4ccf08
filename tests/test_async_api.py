"""The asyncio API: ``aresearch`` and ``aresearch_stream`` run the same research without blocking
the event loop, and leaving the stream early stops the run."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from contextlib import aclosing
from pathlib import Path

import pytest

from deepresearch import InvalidQuestionError, Settings, aresearch, aresearch_stream
from deepresearch.events import Event
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.local import LocalSearch

from .conftest import QUESTION


class _WaitsForTheLoop(SearchBackend):
    """Searches only once the event loop has run a task of its own: a run that blocked the loop
    would wait here in vain (up to 30 s) and record it."""

    name = "waits-for-the-loop"

    def __init__(self, inner: LocalSearch, loop_ran: threading.Event) -> None:
        self.inner, self.loop_ran = inner, loop_ran
        self.saw_the_loop: list[bool] = []

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        self.saw_the_loop.append(self.loop_ran.wait(timeout=30))
        return self.inner.search(query, limit=limit)


def test_aresearch_returns_the_result_while_the_loop_keeps_running(
    settings: Settings, local_search: LocalSearch
) -> None:
    loop_ran = threading.Event()
    search = _WaitsForTheLoop(local_search, loop_ran)
    seen: list[str] = []

    async def main() -> object:
        async def beat() -> None:
            loop_ran.set()

        beating = asyncio.create_task(beat())
        result = await aresearch(
            QUESTION, settings=settings, model=ScriptedModel(), search=search,
            max_web_research_loops=1, on_event=lambda e: seen.append(e.type),
        )  # fmt: skip
        await beating
        return result

    result = asyncio.run(main())
    assert result.report_markdown.startswith("#") and result.rounds == 1  # type: ignore[attr-defined]
    assert search.saw_the_loop and all(search.saw_the_loop), "the event loop ran while the research did"
    assert seen[0] == "status" and seen[-1] == "done" and "todo_list" in seen


def test_aresearch_stream_yields_numbered_events_up_to_done(
    settings: Settings, local_search: LocalSearch
) -> None:
    async def main() -> list[Event]:
        stream = aresearch_stream(
            QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
        )
        return [event async for event in stream]

    events = asyncio.run(main())
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert events[-1].type == "done" and events[-1].data["result"].question == QUESTION


def test_leaving_the_stream_early_cancels_the_run(settings: Settings, local_search: LocalSearch) -> None:
    async def main() -> str:
        stream = aresearch_stream(
            QUESTION, settings=settings, model=ScriptedModel(delay=0.2), search=local_search,
            summary_mode="model",
        )  # fmt: skip
        async with aclosing(stream) as events:
            async for event in events:
                if event.type == "todo_list":
                    break
        runs = list(Path(settings.resolved_runs_workspace).iterdir())
        return str(runs[0])

    run_dir = Path(asyncio.run(main()))
    deadline = time.monotonic() + 30
    while not (run_dir / "error.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads((run_dir / "error.json").read_text())["cancelled"] is True
    assert not (run_dir / "report.md").exists()


def test_bad_input_raises_as_the_blocking_api_does(settings: Settings) -> None:
    with pytest.raises(InvalidQuestionError, match="question is empty"):
        asyncio.run(aresearch("  ", settings=settings, model=ScriptedModel()))
