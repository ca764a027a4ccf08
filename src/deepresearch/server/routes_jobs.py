"""``/tasks``: research jobs for platforms that submit, poll, follow and cancel."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Response, status
from sse_starlette import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from deepresearch.agent import AWAITING_REVIEW
from deepresearch.doctor import readiness
from deepresearch.domain import TodoItem
from deepresearch.errors import ConflictError
from deepresearch.graph.review import decision_reviewer, reviewed
from deepresearch.jobs.base import JobsBackend
from deepresearch.jobs.rows import JobRow, JobStatus
from deepresearch.result import ResearchResult
from deepresearch.server.progress import fold
from deepresearch.server.schemas import (
    SSE_RESPONSE,
    CheckView,
    ErrorBody,
    JobCreated,
    JobList,
    JobRequest,
    JobSummary,
    JobView,
    PlanReview,
    PlanTask,
    TaskProgress,
)
from deepresearch.server.sse import job_messages, sse_response
from deepresearch.service import Service

NOTHING_MORE = "The job has finished and every event was sent; EventSource stops reconnecting."
NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "No such job."}}
MAX_OFFSET = 1_000_000_000
MAX_EVENT_ID = 2**53


CREATE_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": JobCreated, "description": "Dry run: the readiness checks, nothing queued."},
    413: {"model": ErrorBody, "description": "The request body is larger than MAX_BODY_BYTES."},
    422: {"model": ErrorBody, "description": "Bad topic, server-only override, or invalid value."},
    429: {"model": ErrorBody, "description": "MAX_QUEUED_JOBS jobs are queued; see Retry-After."},
    507: {
        "model": ErrorBody,
        "description": "The jobs database takes no writes (full disk, code `storage_full`); see Retry-After.",
    },
}
FINISHED: dict[int | str, dict[str, Any]] = {
    409: {"model": ErrorBody, "description": "The job has already finished."}
}
CREATE_ROUTE: dict[str, Any] = {
    "response_model": JobCreated,
    "status_code": status.HTTP_202_ACCEPTED,
    "responses": CREATE_RESPONSES,
    "summary": "Queue a research job (or check readiness with dry_run)",
}
GET_ROUTE: dict[str, Any] = {"response_model": JobView, "responses": NOT_FOUND, "summary": "A job's state"}
CANCEL_ROUTE: dict[str, Any] = {
    "response_model": JobView,
    "responses": {**NOT_FOUND, **FINISHED},
    "summary": "Cancel a job",
}
PLAN_ROUTE: dict[str, Any] = {
    "response_model": JobView,
    "responses": {
        **NOT_FOUND,
        409: {"model": ErrorBody, "description": "The job is not awaiting plan review."},
        422: {"model": ErrorBody, "description": "A task not in the plan, or no task kept."},
    },
    "summary": "Accept, drop or edit the plan of a job awaiting review; it continues",
}
EVENTS_ROUTE: dict[str, Any] = {
    "response_class": EventSourceResponse,
    "responses": {**SSE_RESPONSE, **NOT_FOUND, 204: {"description": NOTHING_MORE}},
    "summary": "A job's events (SSE): what happened so far, then live",
}


class JobRoutes:
    """The handlers of ``/tasks`` over one service and its jobs backend."""

    def __init__(self, service: Service, manager: JobsBackend) -> None:
        self.service = service
        self.manager = manager

    def router(self) -> APIRouter:
        router = APIRouter(prefix="/tasks", tags=["jobs"])
        for method, path, endpoint, meta in (
            ("POST", "", self.create_job, CREATE_ROUTE),
            ("GET", "", self.list_jobs, {"response_model": JobList, "summary": "List jobs, newest first"}),
            ("GET", "/{job_id}", self.get_job, GET_ROUTE),
            ("DELETE", "/{job_id}", self.cancel_job, CANCEL_ROUTE),
            ("POST", "/{job_id}/plan", self.review_plan, PLAN_ROUTE),
            ("GET", "/{job_id}/events", self.job_events, EVENTS_ROUTE),
        ):
            router.add_api_route(path, endpoint, methods=[method], **meta)
        return router

    def create_job(self, body: JobRequest, response: Response) -> JobCreated:
        settings = self.service.resolve(body.overrides)
        topic = self.service.check_topic(body.topic, settings)
        if not body.dry_run:
            return _created(self.manager.submit(topic, body.overrides, review_plan=body.review_plan))
        checks = [c.as_dict() for c in readiness(self.service, settings)]
        job = self.manager.record_dry_run(topic, body.overrides, checks)
        response.status_code = status.HTTP_200_OK
        ready = job.status == "completed"
        return _created(job, ready=ready, checks=[CheckView.model_validate(c) for c in checks])

    def list_jobs(
        self,
        limit: Annotated[int, Query(ge=1, le=500)] = 50,
        offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
        status_filter: Annotated[JobStatus | None, Query(alias="status")] = None,
    ) -> JobList:
        jobs = self.manager.store.recent(limit=limit, offset=offset, status=status_filter)
        return JobList(jobs=[_summary(self.manager, job) for job in jobs])

    def get_job(self, job_id: str) -> JobView:
        return job_view(self.manager, self.manager.store.require(job_id))

    def cancel_job(self, job_id: str) -> JobView:
        """A queued job is cancelled at once; a running one stops at its next step (watch its events)."""
        if self.manager.store.require(job_id).finished:
            raise ConflictError(f"job {job_id} has already finished")
        return job_view(self.manager, self.manager.cancel(job_id))

    def review_plan(self, job_id: str, body: PlanReview) -> JobView:
        """The job continues from its checkpoint with the reviewed plan (dropped tasks are reported
        as skipped)."""
        job = self.manager.store.require(job_id)
        if job.status != "awaiting_review":
            raise ConflictError(f"job {job_id} is {job.status}, not awaiting plan review")
        decision = body.decision()
        check_decision(waiting_plan(self.manager, job_id), decision)
        return job_view(self.manager, self.manager.continue_review(job_id, decision))

    async def job_events(
        self,
        job_id: str,
        last_event_id: Annotated[
            str | None, Header(description="Resume after this event id (EventSource sends it).")
        ] = None,
        after: Annotated[
            int | None, Query(ge=0, le=MAX_EVENT_ID, description="Same as Last-Event-ID.")
        ] = None,
    ) -> Response:
        manager = self.manager
        job = await run_in_threadpool(manager.store.require, job_id)
        start = after if after is not None else _event_id(last_event_id)
        if job.finished and not await run_in_threadpool(manager.store.events, job_id, after=start, limit=1):
            return Response(status_code=status.HTTP_204_NO_CONTENT)
        return sse_response(job_messages(manager, job_id, start), self.service.options.heartbeat_seconds)


def jobs_router(service: Service, manager: JobsBackend) -> APIRouter:
    """``/tasks`` over ``service`` and ``manager``."""
    return JobRoutes(service, manager).router()


def job_view(manager: JobsBackend, job: JobRow) -> JobView:
    """The job with its progress folded from its events, and its result once completed."""
    progress = fold(manager.store.event_types(job.id))
    result = _result(job)
    tasks = [TaskProgress.model_validate(t) for t in progress.tasks.values()]
    counts = progress.counts()
    if result is not None:
        tasks = [TaskProgress(id=t.id, title=t.title, status=t.status) for t in result.todo_items]
        counts = result.task_counts
    checks = job.result.get("checks") if job.dry_run and job.result else None
    return JobView(
        **_row(job),
        started_at=job.started_at,
        attempts=job.attempts,
        progress=1.0 if job.finished else progress.value,
        phase="done" if job.status == "completed" else progress.phase,
        tasks=tasks,
        task_counts=counts,
        sources=len(result.sources) if result else progress.sources,
        rounds=result.rounds if result else progress.rounds,
        timings=result.timings if result else {},
        report_markdown=result.report_markdown if result else None,
        result=result,
        checks=[CheckView.model_validate(c) for c in checks] if checks else None,
        plan=waiting_plan(manager, job.id) if job.status == "awaiting_review" else None,
        error=job.error,
        events_url=f"/tasks/{job.id}/events",
    )


def waiting_plan(manager: JobsBackend, job_id: str) -> list[PlanTask]:
    """The plan a job awaiting review shows (its last ``awaiting_review`` event's tasks)."""
    shown: list[dict[str, Any]] = []
    for type_, body in manager.store.event_types(job_id):
        if type_ == "status" and body.get("step") == AWAITING_REVIEW:
            shown = body.get("data", {}).get("tasks") or []
    return [PlanTask.model_validate(t) for t in shown]


def check_decision(plan: list[PlanTask], decision: dict[str, Any]) -> None:
    """:class:`InvalidQuestionError` (422) when the decision names a task the plan lacks or keeps none."""
    planned = [TodoItem.model_validate(t.model_dump()) for t in plan]
    reviewed(planned, decision_reviewer(decision)(planned))


def _result(job: JobRow) -> ResearchResult | None:
    if job.status != "completed" or job.dry_run or not job.result:
        return None
    return ResearchResult.model_validate(job.result)


def _summary(manager: JobsBackend, job: JobRow) -> JobSummary:
    progress = 1.0 if job.finished else fold(manager.store.event_types(job.id)).value
    return JobSummary(**_row(job), progress=progress)


def _row(job: JobRow) -> dict[str, Any]:
    """The fields a job's summary and its full view share."""
    return {
        "id": job.id,
        "topic": job.topic,
        "status": job.status,
        "dry_run": job.dry_run,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
    }


def _created(job: JobRow, *, ready: bool | None = None, checks: list[CheckView] | None = None) -> JobCreated:
    return JobCreated(
        id=job.id,
        status=job.status,
        dry_run=job.dry_run,
        events_url=f"/tasks/{job.id}/events",
        ready=ready,
        checks=checks,
    )


def _event_id(value: str | None) -> int:
    try:
        return min(MAX_EVENT_ID, max(0, int(value))) if value else 0
    except ValueError:
        return 0
