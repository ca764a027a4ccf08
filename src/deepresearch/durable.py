"""Durable runs: the research graph checkpointed to SQLite so a killed process can resume a run.

A durable run is an ordinary :func:`deepresearch.agent.research_stream` given a
:class:`Durability`: the graph is compiled with a checkpointer and run under ``thread_id``. LangGraph
saves a checkpoint after every super-step (and the writes of every finished parallel task), so a run
restarted with ``resume=True`` continues with ``graph.stream(None, config)`` from the last one and
repeats at most the steps that were in flight when the process died. The run stores each checkpoint
before the next step starts (LangGraph's ``durability="sync"``), so a repeated step has the task id
it had, and its events the keys they had.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from deepresearch.citations import Source
from deepresearch.domain import ReportResult, ResearchRole, RoundEvaluation, TaskJudgement, TodoItem

STATE_TYPES: tuple[type, ...] = (ResearchRole, TodoItem, Source, RoundEvaluation, TaskJudgement, ReportResult)


@dataclass(frozen=True)
class Durability:
    """How a run is made durable: its checkpointer, its thread, whether to continue it.

    ``resume=True`` continues the thread from its last checkpoint instead of starting anew;
    ``run_dir`` reopens the run folder of the interrupted run (a new one is created when it is
    ``None`` or gone). ``decision`` answers a run stopped at plan review (the value its
    interrupt resumes with); it is ignored when the checkpoint is not waiting for one.
    """

    checkpointer: BaseCheckpointSaver[Any]
    thread_id: str
    resume: bool = False
    run_dir: Path | None = None
    decision: dict[str, Any] | None = None

    @property
    def config(self) -> RunnableConfig:
        return {"configurable": {"thread_id": self.thread_id}}


def state_serializer() -> JsonPlusSerializer:
    """A serializer that revives only the research state's own models (no arbitrary classes)."""
    return JsonPlusSerializer(allowed_msgpack_modules=STATE_TYPES)


def sqlite_checkpointer(path: Path) -> BaseCheckpointSaver[Any]:
    """A thread-safe SQLite checkpointer at ``path`` (created with its tables if missing).

    The connection is shared between threads; the saver serialises access with its own lock.
    WAL with ``synchronous=NORMAL``: a checkpoint survives the process being killed; only a power
    cut can lose the last ones (the run then resumes from an earlier checkpoint).
    """
    from langgraph.checkpoint.sqlite import SqliteSaver

    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    saver = SqliteSaver(conn, serde=state_serializer())
    saver.setup()
    return saver


def has_checkpoint(checkpointer: BaseCheckpointSaver[Any], thread_id: str) -> bool:
    """Whether ``thread_id`` has at least one saved checkpoint to resume from."""
    return checkpointer.get_tuple({"configurable": {"thread_id": thread_id}}) is not None


def close_checkpointer(checkpointer: BaseCheckpointSaver[Any]) -> None:
    """Close the connection of a checkpointer made by :func:`sqlite_checkpointer`."""
    conn = getattr(checkpointer, "conn", None)
    if isinstance(conn, sqlite3.Connection):
        conn.close()
