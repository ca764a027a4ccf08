"""The MCP server: research as tools for assistants, past reports as resources.

Tools: ``research`` (runs to the end, reporting progress through MCP progress notifications, and
returns the report with its sources), ``start_research`` / ``research_status`` / ``get_report``
for runs longer than a client waits, and ``search_notes`` over earlier research notes. Completed
jobs' reports are resources ``deepresearch://reports/{job_id}``.

An MCP client is untrusted like an HTTP client: it chooses what to research and may lower the
rounds or pick an enabled search backend, never more (``Service.resolve``). The same server runs
over stdio (``deepresearch mcp``) and mounted on the HTTP service at ``/mcp``.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import Resource as MCPResource
from pydantic import BaseModel, Field

from deepresearch.errors import ConfigurationError, DeepResearchError, JobNotFoundError
from deepresearch.events import Event
from deepresearch.followup import FollowUp
from deepresearch.jobs.base import JobsBackend
from deepresearch.result import ResearchResult
from deepresearch.server.progress import Progress
from deepresearch.service import Service

REPORT_URI = "deepresearch://reports/{job_id}"
PASSAGE_CHARS = 1500
RECENT_REPORTS = 50
INSTRUCTIONS = (
    "Deep research with cited sources. Call `research` for a cited report (it reports progress and "
    "can take minutes), or `start_research` then `research_status` and `get_report` for long runs. "
    "Every claim in a report cites [n], and each source comes with the passage that was read."
)


class CitedSource(BaseModel):
    number: int = Field(description="The [n] the report cites it by.")
    title: str
    url: str
    passage: str = Field(description="The text that was read (cut at 1,500 characters).")


class ResearchAnswer(BaseModel):
    question: str
    answer: str = Field(description="The answer line ('' when the sources do not say).")
    report_markdown: str
    sources: list[CitedSource]
    rounds: int
    notices: list[str] = Field(default_factory=list)


class JobState(BaseModel):
    job_id: str
    status: str
    phase: str = ""
    progress: float = 0.0
    tasks: list[dict[str, Any]] = Field(default_factory=list)
    error: str | None = None
    report_uri: str | None = None


class NoteHit(BaseModel):
    note_id: str
    title: str
    snippet: str


class DeepResearchMCP(MCPServer):
    """:class:`MCPServer` whose resource list also holds the recent completed reports."""

    def __init__(self, manager: JobsBackend, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.manager = manager

    async def list_resources(self) -> list[MCPResource]:
        listed = await super().list_resources()
        jobs = await anyio.to_thread.run_sync(_recent_reports, self.manager)
        return listed + [_report_resource(job.id, job.topic) for job in jobs]


def build_server(service: Service, manager: JobsBackend) -> DeepResearchMCP:
    """The MCP server over ``service``'s settings and parts and ``manager``'s jobs."""
    from deepresearch import __version__

    server = DeepResearchMCP(
        manager, name="deepresearch", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    for tool in _tools(service, manager):
        server.tool()(_expected(tool, service))
    server.resource(REPORT_URI, name="report", mime_type="text/markdown")(_report_reader(manager))
    return server


def _expected(tool: Callable[..., Awaitable[Any]], service: Service) -> Callable[..., Awaitable[Any]]:
    """``tool`` with our errors (bad input, no such job, a failed run) told to the client, redacted."""

    @functools.wraps(tool)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await tool(*args, **kwargs)
        except DeepResearchError as exc:
            raise ToolError(tool_error_text(exc, service)) from exc

    return call


def tool_error_text(exc: DeepResearchError, service: Service) -> str:
    """An MCP error's text: the error's code first (what a program branches on), then the redacted
    message (a full queue's says when to ask again)."""
    return f"[{exc.code}] {service.redactor.text(str(exc))}"


def _tools(service: Service, manager: JobsBackend) -> list[Callable[..., Any]]:
    async def research(
        question: str,
        ctx: Context,
        max_rounds: int | None = None,
        search_api: str | None = None,
        report_type: str | None = None,
        exclude_domains: str | None = None,
    ) -> ResearchAnswer:
        """Research QUESTION and return a cited report with the passage behind each source.

        Takes seconds to minutes; progress is reported as it goes. ``max_rounds`` lowers the
        research rounds, ``search_api`` picks one of the search backends the server enables,
        ``report_type`` is detailed, brief or resources, ``exclude_domains`` (comma-separated)
        are never read."""
        settings = service.resolve(_overrides(max_rounds, search_api, report_type, exclude_domains))
        topic = service.check_topic(question, settings)
        progress = _ProgressRelay(ctx)
        return answer_of(await progress.around(_run, service, topic, settings, progress.from_worker))

    async def start_research(
        question: str,
        max_rounds: int | None = None,
        search_api: str | None = None,
        report_type: str | None = None,
        exclude_domains: str | None = None,
    ) -> JobState:
        """Queue a research job and return its id at once; follow it with research_status (the
        options as for ``research``)."""
        overrides = _overrides(max_rounds, search_api, report_type, exclude_domains)
        topic = service.check_topic(question, service.resolve(overrides))
        job = await anyio.to_thread.run_sync(manager.submit, topic, overrides)
        return JobState(job_id=job.id, status=job.status)

    async def research_status(job_id: str) -> JobState:
        """A job's status, phase, progress (0-1) and tasks; report_uri once it has completed."""
        return await anyio.to_thread.run_sync(job_state, manager, job_id)

    async def get_report(job_id: str, format: str = "md") -> str:
        """A completed job's report in a text export format: Markdown (`md`, the default), the whole
        result as `json`, one `html` file, or any other text format the server registers."""
        from deepresearch.export import render, resolve_format
        from deepresearch.server.routes_export import completed_result

        fmt = resolve_format(format)
        if fmt.binary:
            raise ConfigurationError(f"{fmt.name} is a binary format: ask the HTTP API for it")
        result = await anyio.to_thread.run_sync(completed_result, manager, job_id)
        return render(result, fmt).decode("utf-8")

    async def search_notes(query: str, limit: int = 5) -> list[NoteHit]:
        """Search the notes earlier research runs kept (one per task, one per report)."""
        return await anyio.to_thread.run_sync(_search_notes, service, query, max(1, min(limit, 20)))

    async def ask_followup(job_id: str, question: str, research: bool = True) -> FollowUp:
        """A follow-up question on a completed job's report, answered from that run's own sources
        and cited with the report's numbers; when they do not answer (and ``research`` is true),
        researched as a new round whose new sources are numbered after the report's; else "The
        sources read do not answer: …". Kept with the run."""
        from deepresearch.server.routes_followup import answer_followup, researcher, run_folder

        folder = await anyio.to_thread.run_sync(run_folder, manager, job_id)
        rounds = researcher(service, manager.store.require(job_id).overrides) if research else None
        return await anyio.to_thread.run_sync(answer_followup, service, folder, question, rounds)

    return [research, start_research, research_status, get_report, search_notes, ask_followup]


def answer_of(result: ResearchResult) -> ResearchAnswer:
    """The tool's answer: the report, and each cited source with the passage that was read."""
    from deepresearch.export.html import cited_sources

    sources = [
        CitedSource(number=n, title=s.title, url=s.url, passage=(s.content or s.snippet)[:PASSAGE_CHARS])
        for n, s in enumerate(cited_sources(result), 1)
    ]
    return ResearchAnswer(
        question=result.question,
        answer=result.answer,
        report_markdown=result.report_markdown,
        sources=sources,
        rounds=result.rounds,
        notices=result.notices,
    )


def job_state(manager: JobsBackend, job_id: str) -> JobState:
    from deepresearch.server.routes_jobs import job_view

    view = job_view(manager, manager.store.require(job_id))
    completed = view.status == "completed" and not view.dry_run
    return JobState(
        job_id=view.id,
        status=view.status,
        phase=view.phase or "",
        progress=view.progress,
        tasks=[task.model_dump(mode="json") for task in view.tasks],
        error=view.error,
        report_uri=REPORT_URI.format(job_id=view.id) if completed else None,
    )


_UNFOLDED = frozenset({"task_summary_chunk", "report_chunk", "done"})
"""Events the progress fold ignores: streamed text, and the result (dumping it would copy the report)."""


class _ProgressRelay:
    """Turns run events (in the worker thread) into MCP progress notifications (on the loop), as a
    share of the whole run (``total`` 1.0, the job API's own progress fold) with a message; while
    one long step sends nothing (planning is one model call), :meth:`keep_alive` says it goes on."""

    KEEP_ALIVE_SECONDS = 5.0

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.progress = Progress()
        self.last = time.monotonic()
        self.message = "starting"

    def from_worker(self, item: Event) -> None:
        if item.type not in _UNFOLDED:
            self.progress.apply(item.type, item.as_dict())
        message = describe(item)
        if message is not None:
            self.message, self.last = message, time.monotonic()
            anyio.from_thread.run(self._report, message)

    async def around(self, run: Callable[..., ResearchResult], *args: Any) -> ResearchResult:
        """``run(*args)`` in a worker thread, with :meth:`keep_alive` beside it until it ends (its
        error raised as itself, not inside an exception group)."""
        failure: DeepResearchError | None = None
        async with anyio.create_task_group() as group:
            group.start_soon(self.keep_alive)
            try:
                result = await anyio.to_thread.run_sync(run, *args)
            except DeepResearchError as exc:
                failure = exc
            finally:
                group.cancel_scope.cancel()
        if failure is not None:
            raise failure
        return result

    async def keep_alive(self) -> None:
        while True:
            await anyio.sleep(self.KEEP_ALIVE_SECONDS)
            quiet = time.monotonic() - self.last
            if quiet >= self.KEEP_ALIVE_SECONDS:
                await self._report(f"{self.message} (still working, {quiet:.0f} s)")

    async def _report(self, message: str) -> None:
        await self.ctx.report_progress(round(self.progress.value, 3), 1.0, message)


def describe(item: Event) -> str | None:
    """One line of progress for ``item``, or ``None`` for events too fine to report."""
    data = item.data
    if item.type == "status":
        return str(data.get("message") or item.step or "working")
    if item.type == "todo_list":
        return f"planned {len(data.get('tasks', []))} task(s)"
    if item.type == "task_status" and data.get("status") in ("completed", "skipped", "failed"):
        return f"task {item.task_id} {data['status']}"
    if item.type == "evaluation":
        return f"round {data.get('round')}: relevance {float(data.get('relevance', 0)):.0f}%"
    if item.type == "final_report":
        return "report written"
    return None


def _run(service: Service, topic: str, settings: Any, on_event: Callable[[Event], None]) -> ResearchResult:
    """A direct run through the service's gate, the one HTTP's runs take their slots from."""
    from deepresearch.agent import research

    with service.gate.admitted():
        return research(
            topic, settings=settings, model=service.model, search=service.search, on_event=on_event
        )


def _overrides(
    max_rounds: int | None,
    search_api: str | None,
    report_type: str | None = None,
    exclude_domains: str | None = None,
) -> dict[str, Any]:
    given = {
        "max_web_research_loops": max_rounds,
        "search_api": search_api,
        "report_type": report_type,
        "search_exclude_domains": exclude_domains,
    }
    return {k: v for k, v in given.items() if v is not None}


def _search_notes(service: Service, query: str, limit: int) -> list[NoteHit]:
    from deepresearch.notes import NoteStore
    from deepresearch.search.local import snippet

    store = NoteStore(service.settings.resolved_notes_workspace)
    return [NoteHit(note_id=n.id, title=n.title, snippet=snippet(n.body)) for n in store.search(query, limit)]


def _report_reader(manager: JobsBackend) -> Callable[[str], Any]:
    async def report(job_id: str) -> str:
        """A completed research job's report, in Markdown."""
        from deepresearch.server.routes_export import completed_result

        try:
            result = await anyio.to_thread.run_sync(completed_result, manager, job_id)
        except JobNotFoundError as exc:
            raise ResourceNotFoundError(str(exc)) from exc
        except DeepResearchError as exc:
            raise ResourceError(str(exc)) from exc
        return result.report_markdown

    return report


def _recent_reports(manager: JobsBackend) -> list[Any]:
    return [job for job in manager.store.recent(limit=RECENT_REPORTS, status="completed") if not job.dry_run]


def _report_resource(job_id: str, topic: str) -> MCPResource:
    return MCPResource(
        uri=REPORT_URI.format(job_id=job_id),
        name=f"report-{job_id}",
        title=topic[:200],
        description=f"Research report: {topic[:200]}",
        mime_type="text/markdown",
    )
