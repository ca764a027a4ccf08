"""Errors to HTTP answers, in one place.

Routes and the service layer raise the domain errors of :mod:`deepresearch.errors`; the handlers
here turn them into ``{"detail", "code", "run_id"}`` with the status :data:`STATUS_BY_CODE` gives
the error's code (a subclass without an entry takes its parent's). Request validation failures are
422 with the offending input left out (it may not even be encodable: lone surrogates, ``Infinity``);
anything else is a 500 whose body names an error id that the log line carries too.
"""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from deepresearch.errors import DeepResearchError, QueueFullError, StorageFullError, UnavailableError
from deepresearch.service import Redactor

logger = logging.getLogger(__name__)

STATUS_BY_CODE: dict[str, int] = {
    "internal": 500,
    "configuration": 422,
    "invalid_question": 422,
    "invalid_request": 422,
    "model_error": 502,
    "model_unavailable": 503,
    "model_timeout": 504,
    "search_error": 502,
    "index_not_found": 503,
    "cancelled": 499,
    "not_found": 404,
    "conflict": 409,
    "queue_full": 429,
    "unavailable": 503,
    "storage_full": 507,
}
"""HTTP status per error code. ``499`` is nginx's "client closed request": the run was cancelled;
``507`` is "insufficient storage": the jobs database takes no writes (a full disk)."""


HTTP_CODES = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "payload_too_large",
}
"""The ``code`` of an error answered by routing or the framework itself (no route, wrong method,
a body that is no JSON), so that every error response carries one."""


def status_for(error: DeepResearchError) -> int:
    """The status of ``error``'s code, or of the nearest parent class that has one."""
    for cls in type(error).__mro__:
        status = STATUS_BY_CODE.get(getattr(cls, "code", ""))
        if status is not None:
            return status
    return 500


def json_response(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    """JSON with every non-ASCII character escaped, so any text (lone surrogates too) encodes."""
    payload = json.dumps(body, ensure_ascii=True, allow_nan=False, default=str).encode()
    return Response(payload, status, headers=headers, media_type="application/json")


def install_error_handlers(app: FastAPI, redactor: Redactor) -> None:
    """Map our errors, validation failures and unexpected exceptions to JSON answers."""

    async def domain(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, DeepResearchError)
        body: dict[str, Any] = {"detail": redactor.text(str(exc)), "code": exc.code}
        if exc.run_id:
            body["run_id"] = exc.run_id
        headers = None
        if isinstance(exc, (QueueFullError, UnavailableError, StorageFullError)):
            headers = {"Retry-After": str(exc.retry_after)}
        return json_response(status_for(exc), body, headers)

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        problems = [_problem(error) for error in exc.errors()]
        summary = "; ".join(f"{p['loc']}: {p['msg']}" for p in problems) or "invalid request"
        return json_response(422, {"detail": summary, "code": "invalid_request", "errors": problems})

    async def unexpected(request: Request, exc: Exception) -> Response:
        error_id = uuid.uuid4().hex[:12]
        trace = redactor.text("".join(traceback.format_exception(exc)))
        logger.error("error %s on %s %s:\n%s", error_id, request.method, request.url.path, trace)
        detail = f"internal error {error_id}: {type(exc).__name__} (the server log has the details)"
        return json_response(500, {"detail": detail, "code": "internal", "error_id": error_id})

    async def http(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        code = HTTP_CODES.get(exc.status_code, "invalid_request" if exc.status_code < 500 else "internal")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return json_response(exc.status_code, {"detail": str(exc.detail), "code": code}, headers)

    app.add_exception_handler(DeepResearchError, domain)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http)
    app.add_exception_handler(Exception, unexpected)


def allowed_methods(request: Request) -> list[str]:
    """Every method some route of the app answers on this request's path (Starlette names only
    the first route's: ``PUT /tasks`` said ``Allow: POST``, leaving out ``GET``)."""
    methods: set[str] = set()
    path = request.scope.get("path", "")
    for prefix, route in _routes(request.app.router.routes):
        if not path.startswith(prefix):
            continue
        match, _ = route.matches({**request.scope, "path": path[len(prefix) :] or "/", "method": "GET"})
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods)


def _routes(routes: Iterable[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every route with the prefix it is mounted under, through included routers (FastAPI keeps an
    included router whole, as ``original_router``, rather than copying its routes up)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is None:
            yield prefix, route
        else:
            context = getattr(route, "include_context", None)
            yield from _routes(inner.routes, prefix + str(getattr(context, "prefix", "") or ""))


def _problem(error: Any) -> dict[str, str]:
    location = ".".join(str(part) for part in error.get("loc", ()))
    return {"loc": location, "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}
