"""Request and response bodies of the HTTP API; these models are what the OpenAPI schema shows."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from deepresearch.jobs.store import JobStatus
from deepresearch.result import ResearchResult
from deepresearch.settings import REQUEST_SETTINGS

TOPIC_DOC = "The research question; at most MAX_QUESTION_CHARS characters (default 2000)."
OVERRIDES_DOC = "Per-request setting overrides; only these: " + "; ".join(
    f"`{name}`: {what}" for name, what in REQUEST_SETTINGS.items()
)


class RequestBody(BaseModel):
    """A request body: no text in it may hold a lone surrogate (it cannot be stored or sent)."""

    @model_validator(mode="before")
    @classmethod
    def _no_lone_surrogates(cls, data: Any) -> Any:
        if _has_lone_surrogate(data):
            raise ValueError("text holds a lone surrogate code point (\\ud800-\\udfff); send valid Unicode")
        return data


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= char <= "\udfff" for char in value)
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_lone_surrogate(item) for item in value)
    return False


class ResearchRequest(RequestBody):
    """A research to run now. Any other key is a per-request setting override (one of
    ``REQUEST_SETTINGS``, e.g. ``relevance_threshold``); any other setting is answered with 422."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [{"topic": "When was the Prague astronomical clock built?", "search_api": "local"}]
        },
    )

    topic: str = Field(min_length=1, description=TOPIC_DOC)
    search_api: str | None = Field(None, description="Search backend (SEARCH_API), e.g. local, duckduckgo.")
    max_web_research_loops: int | None = Field(None, ge=1, le=10, description="Max research rounds.")

    def overrides(self) -> dict[str, Any]:
        given = {"search_api": self.search_api, "max_web_research_loops": self.max_web_research_loops}
        return {**{k: v for k, v in given.items() if v is not None}, **(self.model_extra or {})}


class JobRequest(RequestBody):
    """A research job to queue; ``dry_run`` only checks readiness and researches nothing."""

    model_config = ConfigDict(extra="forbid")

    topic: str = Field(min_length=1, description=TOPIC_DOC)
    dry_run: bool = Field(False, description="Check readiness (the doctor checks) without researching.")
    review_plan: bool = Field(
        False,
        description="Stop at status awaiting_review with the plan (GET /tasks/{id} shows it) until "
        "POST /tasks/{id}/plan accepts, drops or edits its tasks.",
    )
    overrides: dict[str, Any] = Field(default_factory=dict, description=OVERRIDES_DOC)


class PlanTask(BaseModel):
    """One planned task, as shown for review."""

    id: int
    title: str
    intent: str = ""
    query: str


class PlanTaskEdit(RequestBody):
    """A task to keep, by ``id``; a field given replaces the planned one (blank keeps it)."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(ge=1, le=1000)
    title: str | None = Field(None, max_length=300)
    intent: str | None = Field(None, max_length=1000)
    query: str | None = Field(None, max_length=500)


class PlanReview(RequestBody):
    """The reviewed plan: ``{"accept": true}`` keeps it as planned; ``{"tasks": [...]}`` keeps the
    listed tasks (with their edits) and drops the others. 422 when a task is not in the plan or
    none is kept."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"accept": True}, {"tasks": [{"id": 1, "query": "Orloj 1410"}]}]},
    )

    accept: bool = Field(False, description="Keep the plan as it is (when no tasks are given).")
    tasks: list[PlanTaskEdit] | None = Field(None, max_length=50, description="The tasks to research.")

    @model_validator(mode="after")
    def _decides(self) -> PlanReview:
        if not self.accept and self.tasks is None:
            raise ValueError('send {"accept": true} or the tasks to keep: {"tasks": [{"id": 1}, ...]}')
        return self

    def decision(self) -> dict[str, Any]:
        """The decision the paused run resumes with (see ``graph.review.decision_reviewer``)."""
        return self.model_dump(exclude_none=True)


class CheckView(BaseModel):
    name: str
    ok: bool
    detail: str
    fix: str = ""


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str


class Readiness(BaseModel):
    ready: bool
    checks: list[CheckView]


class TaskProgress(BaseModel):
    id: int
    title: str
    status: str


class JobSummary(BaseModel):
    id: str
    topic: str
    status: JobStatus
    dry_run: bool
    created_at: str
    finished_at: str | None = None
    progress: float = Field(ge=0, le=1)


class JobList(BaseModel):
    jobs: list[JobSummary]


class JobCreated(BaseModel):
    id: str
    status: JobStatus
    dry_run: bool = False
    events_url: str
    ready: bool | None = Field(None, description="Dry runs: whether every readiness check passed.")
    checks: list[CheckView] | None = Field(None, description="Dry runs: the readiness checks.")


class JobView(BaseModel):
    """A job's state. ``progress`` runs from 0 to 1; ``task_counts`` counts the TODO list's tasks by
    status; ``timings`` are seconds per phase (complete once the job is done)."""

    id: str
    topic: str
    status: JobStatus
    dry_run: bool
    created_at: str
    started_at: str | None = None
    finished_at: str | None = None
    attempts: int = Field(0, description="How many times a worker started (or resumed) the job.")
    progress: float = Field(ge=0, le=1)
    phase: str | None = Field(None, description="The step the run is in, e.g. plan, research, report.")
    tasks: list[TaskProgress] = Field(default_factory=list)
    task_counts: dict[str, int] = Field(default_factory=dict)
    sources: int = Field(0, description="Sources gathered so far.")
    rounds: int = 0
    timings: dict[str, float] = Field(default_factory=dict)
    report_markdown: str | None = None
    result: ResearchResult | None = None
    checks: list[CheckView] | None = None
    plan: list[PlanTask] | None = Field(
        None, description="Status awaiting_review: the plan to accept or edit (POST /tasks/{id}/plan)."
    )
    error: str | None = None
    events_url: str


class ErrorBody(BaseModel):
    """Every error answer. ``code`` is machine-readable (``configuration``, ``invalid_request``,
    ``model_unavailable``, ``queue_full``, ``internal`` ...); ``run_id`` names the run a failed
    research ended with."""

    detail: str
    code: str | None = None
    run_id: str | None = None


SSE_DOC = (
    "Server-Sent Events. Each event has `event:` = its type (status, todo_list, task_status, sources, "
    "task_summary_chunk, evaluation, report_note, report_chunk, final_report, done, error), `id:` = "
    "its sequence number and `data:` = the event as JSON (`type`, `seq`, `task_id`, `step`, `data`, "
    "and `time`, the Unix time the server received it). A `: ping` comment is sent every 15 s. The "
    "last event is `done` (its `data.result` is the full result) or `error` (`data.message`, and "
    "`data.code`: configuration, model_unavailable, model_timeout, cancelled, internal, ...). The "
    "`data.content` of the report_chunk events, joined in order, is the final report's text."
)
SSE_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {
        "description": SSE_DOC,
        "content": {"text/event-stream": {"schema": {"type": "string"}}},
    }
}
