"""A durable run killed mid-step resumes without repeating an event under a new key.

The kill is simulated in process: the checkpointer stores slowly, and from the "kill" on it stores
nothing more, as a process killed with -9 would. Each event the first run wrote and the resumed
run wrote again must carry the same key, so a job store (which keeps one event per key) keeps it
once."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Generator, Sequence
from typing import Any, cast

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.memory import InMemorySaver

from deepresearch import research_stream
from deepresearch.durable import Durability, state_serializer
from deepresearch.events import Event
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .conftest import QUESTION


class DyingSaver(InMemorySaver):
    """Stores each checkpoint after ``delay`` seconds, and nothing once :attr:`dead` is set."""

    def __init__(self, delay: float) -> None:
        super().__init__(serde=state_serializer())
        self.delay = delay
        self.dead = threading.Event()

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        time.sleep(self.delay)
        if self.dead.is_set():
            return {"configurable": {**config["configurable"], "checkpoint_id": checkpoint["id"]}}
        return super().put(config, checkpoint, metadata, new_versions)

    def put_writes(
        self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        if not self.dead.is_set():
            super().put_writes(config, writes, task_id, task_path)


def _said(item: Event) -> tuple[str, str]:
    body = {k: v for k, v in item.as_dict().items() if k not in ("seq", "time")}
    return body["type"], json.dumps(body, sort_keys=True)


def test_a_step_run_again_after_a_kill_repeats_its_events_under_the_same_keys(
    settings: Settings, local_search: LocalSearch
) -> None:
    saver = DyingSaver(delay=0.2)
    first: list[Event] = []
    stream = research_stream(
        QUESTION,
        settings=settings,
        model=ScriptedModel(),
        search=local_search,
        durable=Durability(saver, "job-1"),
        max_web_research_loops=1,
    )
    for item in stream:
        first.append(item)
        if item.type == "sources":
            saver.dead.set()
            break
    cast("Generator[Event, None, None]", stream).close()
    saver.dead.clear()
    saver.delay = 0
    second = list(
        research_stream(
            QUESTION,
            settings=settings,
            model=ScriptedModel(),
            search=local_search,
            durable=Durability(saver, "job-1", resume=True),
            max_web_research_loops=1,
        )
    )
    assert second[-1].type == "done"
    keys = {_said(item): item.key for item in first if item.key}
    again = [(said, item.key) for item in second if item.key and (said := _said(item)) in keys]
    assert again, "the step in flight at the kill ran again after the resume"
    assert [key for said, key in again if keys[said] != key] == []
