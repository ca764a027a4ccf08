"""``/research`` and ``/research/stream``: a research run tied to one request."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status
from sse_starlette import EventSourceResponse

from deepresearch.agent import research_stream
from deepresearch.errors import DeepResearchError, error_from_code
from deepresearch.result import ResearchResult
from deepresearch.server.schemas import SSE_RESPONSE, TOPIC_DOC, ErrorBody, ResearchRequest
from deepresearch.server.sse import ThreadedRun, run_messages, sse_response
from deepresearch.service import Service

DISCONNECT_POLL_SECONDS = 0.5
NO_REPLAY = "A reconnect (Last-Event-ID sent): direct runs end with their stream; nothing is started."
ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "The request body is larger than MAX_BODY_BYTES."},
    422: {"model": ErrorBody, "description": "Bad topic, unknown or server-only override, or invalid value."},
    429: {"model": ErrorBody, "description": "MAX_QUEUED_JOBS runs are waiting; see Retry-After."},
}
RUN_FAILED: dict[int | str, dict[str, Any]] = {
    status_code: {"model": ErrorBody, "description": description}
    for status_code, description in (
        (499, "The run was cancelled."),
        (500, "The run failed inside the server; run_id names its run folder."),
        (502, "The model server or search backend answered badly."),
        (503, "The model cannot be reached or loaded."),
        (504, "The model did not answer within LLM_TIMEOUT."),
    )
}

NOW_ROUTE: dict[str, Any] = {
    "responses": {**ERRORS, **RUN_FAILED},
    "summary": "Run a research and return the full result",
}
STREAM_POST_ROUTE: dict[str, Any] = {
    "responses": {**SSE_RESPONSE, **ERRORS},
    "summary": "Run a research and stream its events (SSE)",
}
STREAM_GET_ROUTE: dict[str, Any] = {
    "responses": {**SSE_RESPONSE, **ERRORS, 204: {"description": NO_REPLAY}},
    "summary": "Run a research and stream its events (SSE, for EventSource)",
}


class ResearchRoutes:
    """The handlers of direct runs, over one service and its run gate (shared with MCP)."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.gate = service.gate

    def router(self) -> APIRouter:
        router = APIRouter(tags=["research"])
        stream = {"response_class": EventSourceResponse}
        for method, path, endpoint, meta in (
            ("POST", "/research", self.research_now, {"response_model": ResearchResult, **NOW_ROUTE}),
            ("POST", "/research/stream", self.stream_post, {**stream, **STREAM_POST_ROUTE}),
            ("GET", "/research/stream", self.stream_get, {**stream, **STREAM_GET_ROUTE}),
        ):
            router.add_api_route(path, endpoint, methods=[method], **meta)
        return router

    async def research_now(self, body: ResearchRequest, request: Request) -> ResearchResult:
        """Blocks until the run ends. A client that disconnects cancels its run."""
        run = self.start(body.topic, body.overrides())
        watcher = asyncio.create_task(_cancel_on_disconnect(request, run.cancel))
        final: dict[str, Any] | None = None
        try:
            async for event, _ in run:
                if event["type"] in ("done", "error"):
                    final = event
        finally:
            watcher.cancel()
        if final is None:
            raise DeepResearchError("the run ended without a result")
        if final["type"] == "error":
            raise _run_error(final["data"])
        return ResearchResult.model_validate(final["data"]["result"])

    async def stream_post(self, body: ResearchRequest) -> EventSourceResponse:
        """The run's events as Server-Sent Events. A client that disconnects cancels its run."""
        return self.stream(body.topic, body.overrides())

    async def stream_get(
        self,
        request: Request,
        topic: Annotated[str, Query(min_length=1, description=TOPIC_DOC)],
        search_api: Annotated[str | None, Query(description="Search backend (SEARCH_API).")] = None,
        max_web_research_loops: Annotated[int | None, Query(ge=1, le=10)] = None,
        last_event_id: Annotated[str | None, Header(description="Set by a reconnecting EventSource.")] = None,
    ) -> Response:
        """Like ``POST /research/stream``; any other query parameter is a setting override.

        A reconnect (``Last-Event-ID`` set) starts nothing: the run ended with its stream, so the
        answer is 204, which stops an EventSource from reconnecting again (an invalid request is
        still 422). Use ``/tasks`` for runs that outlive a connection."""
        declared = {"topic", "search_api", "max_web_research_loops"}
        extra = {k: v for k, v in request.query_params.items() if k not in declared}
        given = {"search_api": search_api, "max_web_research_loops": max_web_research_loops, **extra}
        if last_event_id is not None:
            self.service.check_topic(topic, self.service.resolve(given))
            return Response(status_code=status.HTTP_204_NO_CONTENT)
        return self.stream(topic, given)

    def start(self, topic: str, overrides: Mapping[str, Any]) -> ThreadedRun:
        """A run of ``topic`` on a worker thread, admitted (or :class:`QueueFullError`)."""
        service = self.service
        settings = service.resolve(overrides)
        cleaned = service.check_topic(topic, settings)
        cancel = threading.Event()
        events = research_stream(
            cleaned, settings=settings, model=service.model, search=service.search, cancel=cancel
        )
        self.gate.enter()
        return ThreadedRun(events, cancel, self.gate.slots, service.redactor, on_finish=self.gate.leave)

    def stream(self, topic: str, overrides: Mapping[str, Any]) -> EventSourceResponse:
        run = self.start(topic, overrides)
        return sse_response(run_messages(run), self.service.options.heartbeat_seconds)


def research_router(service: Service) -> APIRouter:
    """``/research`` and ``/research/stream`` over ``service``."""
    return ResearchRoutes(service).router()


def _run_error(data: dict[str, Any]) -> DeepResearchError:
    """The error an ``error`` event describes, as its own class, naming its run."""
    run_dir = data.get("run_dir")
    run_id = str(run_dir).rstrip("/").rsplit("/", 1)[-1] if run_dir else None
    return error_from_code(data.get("code"), data.get("message", "research failed"), run_id=run_id)


async def _cancel_on_disconnect(request: Request, cancel: threading.Event) -> None:
    while not cancel.is_set():
        if await request.is_disconnected():
            cancel.set()
            return
        await asyncio.sleep(DISCONNECT_POLL_SECONDS)
