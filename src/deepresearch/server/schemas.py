"""Request and response bodies of the HTTP API; these models are what the OpenAPI schema shows."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from deepresearch.events import EventType
from deepresearch.jobs.rows import JobStatus
from deepresearch.result import ResearchResult
from deepresearch.settings import REQUEST_SETTINGS, Settings

TOPIC_DOC = "The research question; at most MAX_QUESTION_CHARS characters (default 2000)."
OVERRIDES_DOC = "Per-request setting overrides; only these: " + "; ".join(
    f"`{name}`: {what}" for name, what in REQUEST_SETTINGS.items()
)


def _integral(value: Any) -> Any:
    """``3.0`` as ``3``: JSON (and its schema's ``integer``) does not tell them apart."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Integer = Annotated[int, BeforeValidator(_integral)]
"""An ``int`` of a strict request body: any JSON integer, ``3.0`` included, but no bool or text."""


class RequestBody(BaseModel):
    """A request body: each value of its JSON type (``0`` is no boolean, ``"3"`` no number: the
    OpenAPI schema's types are the ones accepted), and no text in it may hold a lone surrogate (it
    cannot be stored or sent)."""

    model_config = ConfigDict(strict=True)

    @model_validator(mode="before")
    @classmethod
    def _no_lone_surrogates(cls, data: Any) -> Any:
        if _has_lone_surrogate(data):
            raise ValueError("text holds a lone surrogate code point (\\ud800-\\udfff); send valid Unicode")
        return data


def check_override_types(overrides: Mapping[str, Any]) -> None:
    """``ValueError`` naming the first per-request setting whose value is not of its setting's
    JSON type; ``null`` means "not given", and names that are no setting are refused later."""
    for name, value in overrides.items():
        if name in REQUEST_SETTINGS and value is not None:
            try:
                _strict_adapter(name).validate_python(_integral(value))
            except ValidationError as exc:
                raise ValueError(f"{name}: {exc.errors()[0]['msg']}") from None


@cache
def _strict_adapter(name: str) -> TypeAdapter[Any]:
    annotation = Settings.model_fields[name].annotation
    assert annotation is not None
    return TypeAdapter(annotation, config=ConfigDict(strict=True))


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
    max_web_research_loops: Integer | None = Field(None, ge=1, le=10, description="Max research rounds.")

    @model_validator(mode="after")
    def _typed_overrides(self) -> ResearchRequest:
        check_override_types(self.model_extra or {})
        return self

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

    @field_validator("overrides")
    @classmethod
    def _typed_overrides(cls, overrides: dict[str, Any]) -> dict[str, Any]:
        check_override_types(overrides)
        return overrides


class PlanTask(BaseModel):
    """One planned task, as shown for review."""

    id: int
    title: str
    intent: str = ""
    query: str


class PlanTaskEdit(RequestBody):
    """A task to keep, by ``id``; a field given replaces the planned one (blank keeps it)."""

    model_config = ConfigDict(extra="forbid")

    id: Integer = Field(ge=1, le=1000)
    title: str | None = Field(None, max_length=300)
    intent: str | None = Field(None, max_length=1000)
    query: str | None = Field(None, max_length=500)


class PlanReview(RequestBody):
    """The reviewed plan: ``{"accept": true}`` keeps it as planned; ``{"tasks": [...]}`` keeps the
    listed tasks (with their edits) and drops the others. 422 when a task is not in the plan or
    none is kept."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [{"accept": True}, {"tasks": [{"id": 1, "query": "Orloj 1410"}]}],
            "anyOf": [
                {"required": ["accept"], "properties": {"accept": {"const": True}}},
                {"required": ["tasks"], "properties": {"tasks": {"type": "array"}}},
            ],
        },
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


class Problem(BaseModel):
    """One reason a request was invalid: where (``body.topic``, ``query.limit``) and what."""

    loc: str
    msg: str
    type: str


class ErrorBody(BaseModel):
    """Every error answer. ``code`` is machine-readable (``configuration``, ``invalid_request``,
    ``not_found``, ``queue_full``, ``internal`` ...); ``run_id`` names the run a failed research
    ended with, ``errors`` each problem of an invalid request (422), ``error_id`` the log line of
    an internal error (500)."""

    detail: str
    code: str
    run_id: str | None = None
    errors: list[Problem] | None = None
    error_id: str | None = None


class StreamMessage(BaseModel):
    """The ``data`` of one Server-Sent Event: the event as JSON, with ``time``, the Unix time the
    server received it. ``data`` is shaped by ``type`` (see each type's event schema)."""

    type: EventType
    seq: int = Field(ge=1)
    task_id: int | None = None
    step: str | None = None
    data: dict[str, Any]
    time: float


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
