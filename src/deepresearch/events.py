"""The events a research run streams; shared by the Python API, the CLI and HTTP/SSE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

EventType = Literal[
    "status",
    "todo_list",
    "task_status",
    "sources",
    "task_summary_chunk",
    "evaluation",
    "report_note",
    "report_chunk",
    "final_report",
    "done",
    "error",
]
EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]


class Event(BaseModel):
    """One step of a run. ``seq`` counts from 1 within a run; ``data`` is JSON-safe.

    An ``error`` event's ``data`` holds ``message``, ``code`` (the machine-readable kind, see
    :mod:`deepresearch.errors`: ``configuration``, ``model_unavailable``, ``model_timeout``,
    ``cancelled``, ``internal`` ...), ``cancelled`` and ``run_dir``.
    """

    type: EventType
    seq: int = 0
    task_id: int | None = None
    step: str | None = None
    data: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def numbered(cls, seq: int, payload: Mapping[str, Any]) -> Event:
        """The event of ``payload`` (from :func:`event`), validated and numbered ``seq``."""
        return cls.model_validate({**payload, "seq": seq})

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


def event(
    type_: EventType, *, task_id: int | None = None, step: str | None = None, **data: Any
) -> dict[str, Any]:
    """The one way to build an event: the payload a graph node or the jobs runner writes (JSON-safe,
    ``task_id`` and ``step`` only when set); whoever streams it numbers it (:meth:`Event.numbered`,
    or the job store's ``seq``)."""
    payload: dict[str, Any] = {"type": type_, "data": data}
    if task_id is not None:
        payload["task_id"] = task_id
    if step is not None:
        payload["step"] = step
    return payload
