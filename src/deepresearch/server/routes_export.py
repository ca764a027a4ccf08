"""``GET /tasks/{id}/report``: a finished job's report as Markdown, HTML, PDF, Word or JSON."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from starlette.concurrency import run_in_threadpool

from deepresearch.errors import ConflictError
from deepresearch.export import FORMATS, render, resolve_format
from deepresearch.jobs.base import JobsBackend
from deepresearch.result import ResearchResult
from deepresearch.server.schemas import ErrorBody


def responses() -> dict[int | str, dict[str, Any]]:
    """The route's answers: one media type per registered format, read when the app is built."""
    return {
        200: {
            "description": "The report in the asked format.",
            "content": {fmt.media_type.split(";")[0]: {} for fmt in FORMATS},
        },
        404: {"model": ErrorBody, "description": "No such job."},
        409: {"model": ErrorBody, "description": "The job has not completed (queued, running or failed)."},
    }


def export_router(manager: JobsBackend) -> APIRouter:
    router = APIRouter(prefix="/tasks", tags=["jobs"])
    names = ", ".join(FORMATS.names())

    @router.get(
        "/{job_id}/report",
        response_class=Response,
        responses=responses(),
        summary=f"A completed job's report, in one of the export formats ({names})",
    )
    async def job_report(
        job_id: str,
        format: str = Query("md", description=f"One of: {names}."),
        fragment: Annotated[
            bool, Query(description="html only: the report's <article>, as the web page shows it.")
        ] = False,
    ) -> Response:
        fmt = resolve_format(format)
        result = await run_in_threadpool(completed_result, manager, job_id)
        if fmt.name == "html" and fragment:
            from deepresearch.export.html import report_fragment

            return Response(report_fragment(result), media_type=fmt.media_type)
        body = await run_in_threadpool(render, result, fmt)
        headers = {}
        if fmt.download:
            headers["Content-Disposition"] = f'attachment; filename="report{fmt.suffixes[0]}"'
        return Response(body, media_type=fmt.media_type, headers=headers)

    return router


def completed_result(manager: JobsBackend, job_id: str) -> ResearchResult:
    """The result of a completed job; 404 for no such job, 409 for one that has none (yet)."""
    job = manager.store.require(job_id)
    if job.status != "completed" or job.dry_run or not job.result:
        detail = f": {job.error}" if job.error else ""
        raise ConflictError(f"job {job_id} has no report: it is {job.status}{detail}")
    return ResearchResult.model_validate(job.result)
