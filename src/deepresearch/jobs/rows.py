"""A job and its events as the job seam hands them out, whichever database holds them.

:class:`JobRow` and :class:`StoredEvent` are what :class:`~deepresearch.jobs.base.JobStoreLike`
returns; both stores (SQLite's :mod:`deepresearch.jobs.store`, PostgreSQL's
:mod:`deepresearch.jobs.postgres`) keep the same columns and read their rows here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, Protocol


class Row(Protocol):
    """A database row read by column name (``sqlite3.Row``, psycopg's ``dict_row``)."""

    def __getitem__(self, key: str, /) -> Any: ...


JobStatus = Literal["queued", "running", "awaiting_review", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
UNFINISHED: tuple[str, ...] = ("queued", "running")
"""What a restart picks up again; a job ``awaiting_review`` waits for a person instead."""
OPEN: tuple[str, ...] = (*UNFINISHED, "awaiting_review")
"""Not finished: what ``finish`` may end."""


@dataclass(frozen=True)
class JobRow:
    """One job as stored. ``result`` is the run's result (or the dry run's checks) when finished;
    ``review_plan`` stops the run at ``awaiting_review`` with its plan, and ``plan_decision`` is the
    reviewed plan it resumes with (see :func:`deepresearch.graph.review.decision_reviewer`)."""

    id: str
    topic: str
    status: JobStatus
    dry_run: bool
    overrides: dict[str, Any]
    created_at: str
    started_at: str | None
    finished_at: str | None
    run_dir: str | None
    error: str | None
    attempts: int
    result: dict[str, Any] | None
    cancel_requested: bool = False
    review_plan: bool = False
    plan_decision: dict[str, Any] | None = None

    @property
    def finished(self) -> bool:
        return self.status in TERMINAL


@dataclass(frozen=True)
class StoredEvent:
    """One persisted event: ``seq`` counts from 1 per job across restarts; ``body`` is the event's
    JSON with that ``seq``; ``time`` is the Unix time it was stored."""

    job_id: str
    seq: int
    type: str
    body: dict[str, Any]
    time: float


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def dump_json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def job_from_row(row: Row) -> JobRow:
    """A job from a row of the ``jobs`` table (SQLite's or PostgreSQL's)."""
    return JobRow(
        id=row["id"],
        topic=row["topic"],
        status=row["status"],
        dry_run=bool(row["dry_run"]),
        overrides=json.loads(row["overrides"]),
        created_at=row["created_at"],
        started_at=row["started_at"],
        finished_at=row["finished_at"],
        run_dir=row["run_dir"],
        error=row["error"],
        attempts=row["attempts"],
        result=json.loads(row["result"]) if row["result"] else None,
        cancel_requested=bool(row["cancel_requested"]),
        review_plan=bool(row["review_plan"]),
        plan_decision=json.loads(row["plan_decision"]) if row["plan_decision"] else None,
    )


def event_from_row(row: Row) -> StoredEvent:
    """An event from a row of the ``job_events`` table (SQLite's or PostgreSQL's)."""
    return StoredEvent(row["job_id"], row["seq"], row["type"], json.loads(row["body"]), row["created_at"])
