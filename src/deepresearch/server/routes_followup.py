"""``POST|GET /tasks/{id}/followups``: follow-up questions on a completed job's report, answered
from the run's own sources (see :mod:`deepresearch.followup`) and kept in its run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import APIRouter
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from deepresearch.answers.dense import dense_for
from deepresearch.citations import Source
from deepresearch.errors import ConflictError
from deepresearch.followup import MAX_FOLLOWUP_CHARS, FollowUp, Researcher, ask_followup, followups
from deepresearch.jobs.base import JobsBackend
from deepresearch.runs import RunFolder
from deepresearch.server.routes_export import completed_result
from deepresearch.server.schemas import ErrorBody, RequestBody
from deepresearch.service import Service

ANSWERS: dict[int | str, dict[str, Any]] = {
    404: {"model": ErrorBody, "description": "No such job."},
    409: {"model": ErrorBody, "description": "The job has not completed, or its run folder is gone."},
    429: {"model": ErrorBody, "description": "A new round is needed and the server's run slots are full."},
}


class FollowUpRequest(RequestBody):
    """A follow-up question about the job's report."""

    question: str = Field(min_length=1, max_length=MAX_FOLLOWUP_CHARS, description="The question.")
    research: bool = Field(
        True,
        description=(
            "When the run's sources do not answer, research it as a new round (its new sources numbered "
            "after the report's, the run's report.md grown); false answers from the run's sources only."
        ),
    )


def researcher(service: Service, overrides: dict[str, Any]) -> Researcher:
    """A new round on a follow-up, with the settings the job ran with (the server's and the job's
    overrides: its search backend, its domain filters) and the server's parts, admitted through the
    same gate as ``POST /research`` (429 when the server is full)."""
    from deepresearch.agent import research

    settings = service.resolve(overrides)

    def researched(question: str) -> list[Source]:
        if len(question) > settings.max_question_chars:
            return []  # a follow-up may be longer than a topic may be: it is answered without a round
        with service.gate.admitted():
            done = research(question, settings=settings, model=service.model, search=service.search)
        return list(done.sources)

    return researched


def answer_followup(
    service: Service, folder: RunFolder, question: str, rounds: Researcher | None
) -> FollowUp:
    """:func:`~deepresearch.followup.ask_followup` with the sentence meaning the server's reports
    rank with (built once per process; blocking, so called in a worker thread)."""
    return ask_followup(folder, question, rounds, dense_for(service.settings))


def followup_router(manager: JobsBackend, service: Service) -> APIRouter:
    router = APIRouter(prefix="/tasks", tags=["jobs"])

    @router.post(
        "/{job_id}/followups",
        response_model=FollowUp,
        responses=ANSWERS,
        summary="Ask a follow-up: answered from the run's sources with the report's numbers, or not",
    )
    async def ask(job_id: str, body: FollowUpRequest) -> FollowUp:
        folder = await run_in_threadpool(run_folder, manager, job_id)
        rounds = researcher(service, manager.store.require(job_id).overrides) if body.research else None
        return await run_in_threadpool(answer_followup, service, folder, body.question, rounds)

    @router.get(
        "/{job_id}/followups",
        response_model=list[FollowUp],
        responses=ANSWERS,
        summary="The follow-ups asked on a completed job so far, oldest first",
    )
    async def asked(job_id: str) -> list[FollowUp]:
        folder = await run_in_threadpool(run_folder, manager, job_id)
        return await run_in_threadpool(followups, folder)

    return router


def run_folder(manager: JobsBackend, job_id: str) -> RunFolder:
    """The run folder of a completed job; 404 for no such job, 409 for one without it."""
    result = completed_result(manager, job_id)
    if not result.run_dir or not Path(result.run_dir).is_dir():
        raise ConflictError(
            f"job {job_id} keeps no run folder (RESEARCH_RUN_RETENTION_DAYS may have removed it)"
        )
    return RunFolder(Path(result.run_dir))
