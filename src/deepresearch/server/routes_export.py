"""``GET /tasks/{id}/report``: a finished job's report as Markdown, HTML, PDF, Word or JSON."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response
from starlette.concurrency import run_in_threadpool

from deepresearch.errors import ConflictError
from deepresearch.export import MEDIA_TYPES, Format, render
from deepresearch.jobs.base import JobsBackend
from deepresearch.result import ResearchResult
from deepresearch.server.schemas import ErrorBody

RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The report in the asked format.",
        "content": {media.split(";")[0]: {} for media in MEDIA_TYPES.values()},
    },
    404: {"model": ErrorBody, "description": "No such job."},
    409: {"model": ErrorBody, "description": "The job has not completed (queued, running or failed)."},
}
FILE_NAMES = {"md": "report.md", "html": "report.html", "pdf": "report.pdf", "docx": "report.docx"}


def export_router(manager: JobsBackend) -> APIRouter:
    router = APIRouter(prefix="/tasks", tags=["jobs"])

    @router.get(
        "/{job_id}/report",
        response_class=Response,
        responses=RESPONSES,
        summary="A completed job's report: md, html (one self-contained file), pdf, docx or json",
    )
    async def job_report(
        job_id: str,
        format: Annotated[Format, Query(description="md, html, pdf, docx or json.")] = "md",
        fragment: Annotated[
            bool, Query(description="html only: the report's <article>, as the web page shows it.")
        ] = False,
    ) -> Response:
        result = await run_in_threadpool(completed_result, manager, job_id)
        if format == "html" and fragment:
            from deepresearch.export.html import report_fragment

            return Response(report_fragment(result), media_type=MEDIA_TYPES["html"])
        body = await run_in_threadpool(render, result, format)
        headers = {}
        if format in FILE_NAMES:
            headers["Content-Disposition"] = f'attachment; filename="{FILE_NAMES[format]}"'
        return Response(body, media_type=MEDIA_TYPES[format], headers=headers)

    return router


def completed_result(manager: JobsBackend, job_id: str) -> ResearchResult:
    """The result of a completed job; 404 for no such job, 409 for one that has none (yet)."""
    job = manager.store.require(job_id)
    if job.status != "completed" or job.dry_run or not job.result:
        detail = f": {job.error}" if job.error else ""
        raise ConflictError(f"job {job_id} has no report: it is {job.status}{detail}")
    return ResearchResult.model_validate(job.result)
