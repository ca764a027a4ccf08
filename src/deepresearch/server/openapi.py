"""The OpenAPI schema of the service, as the running service answers.

FastAPI's own schema describes its defaults, not this service: a 422 whose ``detail`` is a list
(ours is a string, with a ``code``), no 400 for a body that is no JSON, no 413 from the body limit
or 403 from the browser guard, SSE streams as plain strings, and any search backend or override
as acceptable. :func:`service_openapi` starts from FastAPI's schema and corrects it from the
server's settings, once per app: the search backends this server enables and the export formats
(both read from their registries), the limits a request may only lower, the errors of the layers
around the routes and the events a stream sends.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic.json_schema import models_json_schema

from deepresearch.events import EVENT_DATA, EVENT_TYPES
from deepresearch.export import FORMATS
from deepresearch.server.schemas import ErrorBody, StreamMessage
from deepresearch.settings import REQUEST_SETTINGS, Settings

REF = "#/components/schemas/{model}"
ERROR = {"application/json": {"schema": {"$ref": REF.format(model="ErrorBody")}}}
RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait.",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    }
}
LIMITED_BY_SERVER = ("max_web_research_loops", "max_results_per_query")
NOT_BLANK = "[^\\x00-\\x20\\x7f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"
"""A topic must hold a character that is neither whitespace (as Python's ``str.split`` sees it)
nor a control character (read as a space): the server collapses those and refuses an empty topic."""


def service_openapi(app: FastAPI, settings: Settings, *, guarded: bool) -> dict[str, Any]:
    """FastAPI's schema of ``app``, corrected to what the service sends and accepts under
    ``settings``; ``guarded``: the browser guard is installed (no ``API_TOKEN``), so any
    operation may answer 403."""
    schema = get_openapi(title=app.title, version=app.version, summary=app.summary, routes=app.routes)
    components: dict[str, Any] = schema.setdefault("components", {}).setdefault("schemas", {})
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    components.update(_models_schemas(components))
    overrides = override_schemas(settings)
    for name in ("ResearchRequest", "JobRequest"):
        _describe_request(components[name], settings, overrides)
    for path, item in schema.get("paths", {}).items():
        for operation in item.values():
            _correct_errors(operation, guarded=guarded, team=settings.jobs_backend == "celery")
            if path == "/research/stream" and "parameters" in operation:
                _describe_query(operation, settings, overrides)
            if path == "/tasks/{job_id}/report":
                _name_formats(operation)
            stream = operation["responses"].get("200", {}).get("content", {}).get("text/event-stream")
            if stream is not None:
                stream["schema"] = {"$ref": REF.format(model="ServerSentEvent")}
    return schema


def override_schemas(settings: Settings) -> dict[str, dict[str, Any]]:
    """The JSON schema of each per-request setting, within this server's limits: the search
    backends it enables, rounds and hits at most its own, reading pages only if it does; ``null``
    is "not given" (the server's value)."""
    fields = Settings.model_json_schema()["properties"]
    schemas: dict[str, dict[str, Any]] = {}
    for name, what in REQUEST_SETTINGS.items():
        prop = {k: v for k, v in fields[name].items() if k not in ("default", "title")}
        prop = next((s for s in prop.pop("anyOf", []) if s.get("type") != "null"), prop)
        if name == "search_api":
            prop["enum"] = settings.request_search_backends()
        elif name in LIMITED_BY_SERVER:
            prop["maximum"] = getattr(settings, name)
        elif name == "fetch_full_page" and not settings.fetch_full_page:
            prop["enum"] = [False]
        schemas[name] = {"anyOf": [prop, {"type": "null"}], "description": what[0].upper() + what[1:] + "."}
    return schemas


def _models_schemas(existing: dict[str, Any]) -> dict[str, Any]:
    """ErrorBody, the stream's message and each event type's data, as components."""
    models = [(ErrorBody, "serialization"), (StreamMessage, "serialization")]
    models += [(model, "serialization") for model in dict.fromkeys(EVENT_DATA.values())]
    _, defs = models_json_schema(models, ref_template=REF)  # type: ignore[arg-type]
    found: dict[str, Any] = {
        name: body for name, body in defs.get("$defs", {}).items() if name not in existing
    }
    found["ErrorBody"] = defs["$defs"]["ErrorBody"]
    found["ServerSentEvent"] = {
        "description": "One Server-Sent Event: `event` is the event's type, `id` its sequence number "
        "and `data` the event as JSON, its `data` shaped by its type.",
        "oneOf": [_sse_event(type_) for type_ in EVENT_TYPES],
    }
    for type_ in EVENT_TYPES:
        found[_event_name(type_)] = _event_body(type_)
    return found


def _sse_event(type_: str) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["event", "id", "data"],
        "properties": {
            "event": {"const": type_},
            "id": {"type": "string", "pattern": "^[1-9][0-9]*$"},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": {"$ref": REF.format(model=_event_name(type_))},
            },
        },
    }


def _event_body(type_: str) -> dict[str, Any]:
    """The JSON of a ``type_`` event: the stream message with ``type`` fixed and ``data`` typed."""
    return {
        "allOf": [{"$ref": REF.format(model="StreamMessage")}],
        "properties": {
            "type": {"const": type_},
            "data": {"$ref": REF.format(model=EVENT_DATA[type_].__name__)},
        },
        "title": _event_name(type_),
    }


def _event_name(type_: str) -> str:
    return "".join(part.title() for part in type_.split("_")) + "Event"


def _describe_request(model: dict[str, Any], settings: Settings, overrides: dict[str, Any]) -> None:
    """A request body's topic limits and its overrides: only the per-request settings, within this
    server's limits (the others are refused with 422)."""
    props = model["properties"]
    props["topic"].update(maxLength=settings.max_question_chars, pattern=NOT_BLANK)
    if "overrides" in props:
        props["overrides"].update(type="object", properties=overrides, additionalProperties=False)
        return
    for name, prop in overrides.items():
        given = props.get(name, {})
        props[name] = {**prop, "description": given.get("description", prop["description"])}
    model["additionalProperties"] = False


def _describe_query(operation: dict[str, Any], settings: Settings, overrides: dict[str, Any]) -> None:
    """``GET /research/stream``: any per-request setting may be a query parameter."""
    params = operation["parameters"]
    declared = {p["name"]: p for p in params}
    declared["topic"]["schema"].update(maxLength=settings.max_question_chars, pattern=NOT_BLANK)
    for name, prop in overrides.items():
        if name in declared:
            declared[name]["schema"] = prop
        else:
            params.append({"name": name, "in": "query", "required": False, "schema": prop})


def _name_formats(operation: dict[str, Any]) -> None:
    """``?format=`` takes the registered export formats."""
    for param in operation.get("parameters", []):
        if param["name"] == "format":
            param["schema"]["enum"] = list(FORMATS.names())


def _correct_errors(operation: dict[str, Any], *, guarded: bool, team: bool = False) -> None:
    """Every error answer is an ErrorBody; add the errors the layers around a route send: 400
    (a body that is no JSON) and 413 (over MAX_BODY_BYTES) for a body, 403 (the browser guard),
    and in team mode 503 with Retry-After (the jobs database or the broker is down)."""
    responses: dict[str, Any] = operation["responses"]
    if "HTTPValidationError" in str(responses.get("422", {}).get("content")):
        responses["422"] = {"description": "Invalid parameters or body; `errors` names each problem."}
    if "requestBody" in operation:
        responses.setdefault("400", {"description": "The body is not valid JSON."})
        responses.setdefault("413", {"description": "The request body is larger than MAX_BODY_BYTES."})
    if guarded:
        responses.setdefault(
            "403", {"description": "A browser request from another site or host (no API_TOKEN is set)."}
        )
    if team and "503" not in responses:
        responses["503"] = {
            "description": "The jobs database or the broker cannot be reached now (code `unavailable`, "
            "with Retry-After).",
            "headers": {"Retry-After": {**RETRY_AFTER["Retry-After"], "required": False}},
        }
    for status, response in responses.items():
        if status[0] in "45" and "content" not in response:
            response["content"] = ERROR
        if status in ("429", "507"):
            response["headers"] = RETRY_AFTER
