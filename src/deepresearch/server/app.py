"""The FastAPI application factory.

``create_app(settings)`` builds the whole service: routes, limits, CORS, the jobs database and
checkpointer, the job workers and the retention schedule (started and stopped with the app's
lifespan). ``model`` and ``search`` replace the parts the settings would build — tests and the load
bench pass the scripted doubles here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Response, status
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse
from starlette.concurrency import run_in_threadpool

from deepresearch.doctor import readiness
from deepresearch.jobs.base import JobsBackend
from deepresearch.jobs.factory import jobs_backend
from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.server.docs_assets import SWAGGER, docs_assets_router
from deepresearch.server.errors import install_error_handlers
from deepresearch.server.openapi import service_openapi
from deepresearch.server.page import page_html
from deepresearch.server.retention import retention_loop
from deepresearch.server.routes_export import export_router
from deepresearch.server.routes_followup import followup_router
from deepresearch.server.routes_jobs import jobs_router
from deepresearch.server.routes_mcp import install_mcp
from deepresearch.server.routes_research import research_router
from deepresearch.server.schemas import CheckView, ErrorBody, Health, Readiness
from deepresearch.server.security import (
    BodyLimitMiddleware,
    browser_guarded,
    install_browser_guard,
    install_cors,
    token_guard,
)
from deepresearch.service import ServerOptions, Service
from deepresearch.settings import Settings

UNAUTHORIZED: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorBody, "description": "Missing or wrong bearer token (the server has an API_TOKEN)."}
}


def create_app(
    settings: Settings,
    *,
    model: ChatModel | None = None,
    search: SearchBackend | None = None,
    options: ServerOptions | None = None,
) -> FastAPI:
    """The service for ``settings``; jobs run where ``JOBS_BACKEND`` says (local: threads, with the
    jobs database at ``settings.jobs_db_path``)."""
    from deepresearch import __version__

    service = Service(settings, model, search, options or ServerOptions())
    manager = jobs_backend(service)
    app = FastAPI(
        title="deepresearch",
        version=__version__,
        summary="A deep research agent: plans, searches, reads, judges and writes cited reports.",
        lifespan=_lifespan(service, manager),
        openapi_url=None,
        docs_url=None,
        redoc_url=None,
    )
    guarded: dict[str, Any] = {}
    if settings.api_token:
        guarded = {"dependencies": [Depends(token_guard(settings))], "responses": UNAUTHORIZED}
    app.include_router(_meta_router(service, __version__))
    app.include_router(_ready_router(service, manager), **guarded)
    app.include_router(research_router(service), **guarded)
    app.include_router(jobs_router(service, manager), **guarded)
    app.include_router(export_router(manager), **guarded)
    app.include_router(followup_router(manager, service), **guarded)
    app.include_router(docs_assets_router())
    install_mcp(app, service, manager)
    app.include_router(_docs_router(app, settings), **guarded)
    install_error_handlers(app, service.redactor)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    install_browser_guard(app, settings)
    install_cors(app, settings)
    app.state.service = service
    app.state.jobs = manager
    return app


def _lifespan(service: Service, manager: JobsBackend) -> Callable[[FastAPI], Any]:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        manager.notifier.bind(asyncio.get_running_loop())
        await run_in_threadpool(manager.start)
        retention = asyncio.create_task(
            retention_loop(service.settings, service.options.retention_interval_seconds)
        )
        try:
            yield
        finally:
            retention.cancel()
            await run_in_threadpool(manager.stop)
            manager.close()

    return lifespan


def _meta_router(service: Service, version: str) -> APIRouter:
    router = APIRouter()

    @router.get(
        "/healthz", response_model=Health, tags=["service"], summary="Liveness (never needs the token)"
    )
    def healthz() -> Health:
        return Health(version=version)

    @router.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        """The web page: static, holds no data, so it is served without the token; every call it
        makes to the API sends the token the user types in."""
        return HTMLResponse(page_html(service.settings), headers={"Content-Security-Policy": _CSP})

    @router.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        """The page's magnifier icon, for browsers and tools that ask for it by its usual name
        (the page itself declares it inline); like the page, served without the token."""
        return Response(_FAVICON_SVG, media_type="image/svg+xml", headers={"Cache-Control": "max-age=86400"})

    return router


def _storage_check(manager: JobsBackend) -> CheckView:
    """Whether the jobs store takes writes now (a probe write): not while the disk is full."""
    failure = manager.store.probe_writes()
    if failure is None:
        return CheckView(name="storage", ok=True, detail="the jobs store takes writes")
    fix = "free space on the disk of DEEPRESEARCH_HOME; jobs that stopped are failed once it has room"
    return CheckView(name="storage", ok=False, detail=failure, fix=fix)


def _ready_router(service: Service, manager: JobsBackend) -> APIRouter:
    router = APIRouter(tags=["service"])

    @router.get(
        "/readyz",
        response_model=Readiness,
        responses={503: {"model": Readiness, "description": "Some check failed; each says how to fix it."}},
        summary="Readiness: the doctor checks",
    )
    def readyz(response: Response) -> Readiness:
        checks = [CheckView.model_validate(c.as_dict()) for c in readiness(service)]
        checks.append(_storage_check(manager))
        ready = all(c.ok for c in checks)
        response.status_code = status.HTTP_200_OK if ready else status.HTTP_503_SERVICE_UNAVAILABLE
        return Readiness(ready=ready, checks=checks)

    return router


def _docs_router(app: FastAPI, settings: Settings) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/openapi.json")
    def openapi() -> JSONResponse:
        if app.openapi_schema is None:
            app.openapi_schema = service_openapi(app, settings, guarded=browser_guarded(settings))
        return JSONResponse(app.openapi_schema)

    @router.get("/docs")
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(openapi_url="/openapi.json", title="deepresearch API", **SWAGGER)

    return router


_FAVICON_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    '<circle cx="6.5" cy="6.5" r="4.5" fill="none" stroke="#1f5fbf" stroke-width="2"/>'
    '<path d="M10 10l4.5 4.5" stroke="#1f5fbf" stroke-width="2.4" stroke-linecap="round"/></svg>'
)
_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)
