"""The events a research run streams; shared by the Python API, the CLI and HTTP/SSE."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import to_jsonable_python

from deepresearch.result import ResearchResult

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


class _Data(BaseModel):
    """An event's ``data``; more keys may be added later (clients ignore what they do not know)."""

    model_config = ConfigDict(extra="forbid")


class StatusData(_Data):
    """``status``: progress in words. ``step`` says which: ``start`` (with ``question`` and
    ``run_dir``), ``setup``, ``resume``, ``plan``, ``role`` (with ``role``), ``judge``,
    ``requery`` (with ``round``), ``report``; a job also gets ``queued`` (with ``position``),
    ``interrupted``, ``awaiting_review`` (with ``tasks``: the run stopped for plan review) and
    ``plan_reviewed``."""

    message: str = Field(description="What is happening, for people.")
    question: str | None = Field(default=None, description="The question as asked (step start).")
    run_dir: str | None = Field(default=None, description="The run's folder (step start).")
    role: dict[str, Any] | None = Field(default=None, description="The chosen research role (step role).")
    round: int | None = Field(default=None, description="The round about to start (step requery).")
    position: int | None = Field(default=None, description="Place in the job queue (step queued).")
    tasks: list[dict[str, Any]] | None = Field(
        default=None, description="The plan to review: id, title, intent, query (step awaiting_review)."
    )


class TodoListData(_Data):
    """``todo_list``: the plan, once, before any search."""

    tasks: list[dict[str, Any]] = Field(description="The tasks: id, title, intent, query, status ...")


class TaskStatusData(_Data):
    """``task_status``: one task started (``in_progress``, with ``query``), was ``skipped`` (with
    ``reason``) or ``completed`` (with ``summary``) in a round."""

    status: str = Field(description="in_progress, skipped or completed.")
    title: str = Field(description="The task's title.")
    round: int = Field(description="The round, from 1.")
    query: str | None = Field(default=None, description="The query searched (in_progress).")
    reason: str | None = Field(default=None, description="Why the task was skipped (skipped).")
    summary: str | None = Field(default=None, description="What the sources say about the task (completed).")


class SourcesData(_Data):
    """``sources``: the sources a task's search added in a round (their text left out)."""

    round: int = Field(description="The round, from 1.")
    sources: list[dict[str, Any]] = Field(description="New sources: id, url, title, snippet, backend ...")
    total: int = Field(description="How many sources the task has in all.")


class ContentData(_Data):
    """``task_summary_chunk`` and ``report_chunk``: text as it is written; joined in order, the
    chunks are the task's summary or the report."""

    content: str = Field(description="The next piece of text.")


class EvaluationData(_Data):
    """``evaluation``: the judge's verdict on a round (see :class:`deepresearch.domain.RoundEvaluation`)."""

    model_config = ConfigDict(extra="allow")

    round: int = Field(description="The round judged.")
    relevance: float = Field(description="Share of relevant evidence, 0-100.")
    enough: bool = Field(description="Whether the evidence suffices: no further round.")
    tasks: list[dict[str, Any]] = Field(description="One judgement per task, with its gaps.")


class ReportNoteData(_Data):
    """``report_note``: the report was kept as a ``conclusion`` note."""

    note_id: str = Field(description="The note's id.")
    note_path: str = Field(description="The note's file.")


class FinalReportData(_Data):
    """``final_report``: the whole report, once, after its chunks."""

    report: str = Field(description="The report in Markdown, with its references.")
    removed_citations: int = Field(description="Citations of unknown sources removed from the draft.")


class DoneData(_Data):
    """``done``: the last event of a run that ended; ``result`` is the whole ResearchResult (a
    :class:`ResearchResult` in Python, its JSON over HTTP; a dry-run job carries ``dry_run``,
    ``ready`` and ``checks`` instead)."""

    result: ResearchResult | None = Field(default=None, description="The ResearchResult.")
    dry_run: bool | None = Field(default=None, description="A job's readiness check, nothing researched.")
    ready: bool | None = Field(default=None, description="Whether every readiness check passed (dry run).")
    checks: list[dict[str, Any]] | None = Field(default=None, description="The readiness checks (dry run).")


class ErrorData(_Data):
    """``error``: the last event of a run that failed or was cancelled."""

    model_config = ConfigDict(extra="allow")

    message: str = Field(description="What went wrong and how to fix it.")
    code: str = Field(description="The kind: configuration, model_unavailable, cancelled, internal ...")
    cancelled: bool = Field(description="Whether the run was cancelled rather than failed.")
    run_dir: str | None = Field(default=None, description="The run's folder, when it had one.")


EVENT_DATA: dict[str, type[BaseModel]] = {
    "status": StatusData,
    "todo_list": TodoListData,
    "task_status": TaskStatusData,
    "sources": SourcesData,
    "task_summary_chunk": ContentData,
    "evaluation": EvaluationData,
    "report_note": ReportNoteData,
    "report_chunk": ContentData,
    "final_report": FinalReportData,
    "done": DoneData,
    "error": ErrorData,
}
"""The shape of each event type's ``data``, documented field by field (docs/ARCHITECTURE.md)."""


class Event(BaseModel):
    """One step of a run. ``seq`` counts from 1 within a run; ``data`` is JSON-safe.

    An ``error`` event's ``data`` holds ``message``, ``code`` (the machine-readable kind, see
    :mod:`deepresearch.errors`: ``configuration``, ``model_unavailable``, ``model_timeout``,
    ``cancelled``, ``internal`` ...), ``cancelled`` and ``run_dir``.
    """

    type: EventType = Field(description="What happened; the shape of data follows from it.")
    seq: int = Field(default=0, description="1, 2, 3 ... within a run.")
    task_id: int | None = Field(default=None, description="The task it concerns, for task events.")
    step: str | None = Field(default=None, description="The research step that sent it.")
    data: dict[str, Any] = Field(
        default_factory=dict, description="The event's fields; see EVENT_DATA and docs/ARCHITECTURE.md."
    )
    key: str | None = Field(
        default=None,
        exclude=True,
        description="Names the graph step's write (its task, kind and ordinal), the same when a "
        "resumed run does the step again, so a job stores it once; never sent.",
    )

    @classmethod
    def numbered(cls, seq: int, payload: Mapping[str, Any]) -> Event:
        """The event of ``payload`` (from :func:`event`), validated and numbered ``seq``."""
        return cls.model_validate({**payload, "seq": seq})

    def as_dict(self) -> dict[str, Any]:
        """JSON-safe; ``task_id`` and ``step`` left out when unset, ``data`` kept whole (a model in
        it, such as ``done``'s ResearchResult, is dumped with every field)."""
        body = self.model_dump(mode="json", exclude_none=True, exclude={"data"})
        body["data"] = to_jsonable_python(self.data)
        return body

    def typed_data(self) -> BaseModel:
        """``data`` validated as its type's model (:data:`EVENT_DATA`)."""
        return EVENT_DATA[self.type].model_validate(self.data)


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
