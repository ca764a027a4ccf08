"""Schemathesis over the served ``/openapi.json``: every answer of the real app, over HTTP, must be
what the schema says (status, content type, headers, body, each SSE event), valid requests must be
accepted and invalid ones refused.

The run is schemathesis' own ``st run --checks all`` (examples, coverage, fuzzing and stateful
phases, deterministic, a few examples per operation): its pytest integration
(``schemathesis.pytest.from_fixture``) cannot run on pytest 9 (it sets ``Function._nodeid``, which
pytest 9 no longer has), and the command is exactly what an API client's CI would run.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import Serve
from .helpers import LiveServer

SSE_PATHS = ("/research/stream", "/tasks/{job_id}/events")
EXCLUDED_CHECKS = {
    # DELETE /tasks/{id} cancels a job; the job, its events and its report stay readable by design
    # (a client follows a cancel to its end), so "a deleted resource answers 404" cannot apply.
    "use_after_free",
}


@pytest.fixture
def server(serve: Serve) -> Iterator[LiveServer]:
    yield serve(max_web_research_loops=1, max_question_chars=40, request_search_apis="notes")


def test_the_schema_states_the_service_own_errors_streams_and_limits(server: LiveServer) -> None:
    with server.client() as client:
        schema = client.get("/openapi.json").json()
    paths, components = schema["paths"], schema["components"]["schemas"]
    assert "HTTPValidationError" not in components
    assert components["ErrorBody"]["properties"]["detail"] == {"type": "string", "title": "Detail"}
    assert "code" in components["ErrorBody"]["required"]
    create = paths["/tasks"]["post"]["responses"]
    assert {"400", "403", "413", "422", "429"} <= set(create)
    assert create["429"]["headers"]["Retry-After"]["required"] is True
    streams = [op for path in SSE_PATHS for op in paths[path].values()]
    assert len(streams) == 3
    for op in streams:
        assert list(op["responses"]["200"]["content"]) == ["text/event-stream"]
        assert op["responses"]["200"]["content"]["text/event-stream"]["schema"]["$ref"].endswith(
            "/ServerSentEvent"
        )
    events = [branch["properties"]["event"]["const"] for branch in components["ServerSentEvent"]["oneOf"]]
    assert {"status", "sources", "report_chunk", "done", "error"} <= set(events)
    search_api = components["ResearchRequest"]["properties"]["search_api"]["anyOf"][0]
    assert search_api["enum"] == ["local", "notes"]
    overrides = components["JobRequest"]["properties"]["overrides"]["properties"]
    assert overrides["max_web_research_loops"]["anyOf"][0]["maximum"] == 1
    assert components["JobRequest"]["properties"]["topic"]["maxLength"] == 40


def test_every_answer_matches_the_schema(server: LiveServer, tmp_path: Path) -> None:
    run = _schemathesis(server, tmp_path)
    assert run.returncode == 0, run.stdout[-20_000:] + run.stderr[-5_000:]


def _schemathesis(server: LiveServer, cwd: Path, *extra: str) -> subprocess.CompletedProcess[Any]:
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "run", f"{server.url}/openapi.json"),
        *("--checks", "all", "--exclude-checks", ",".join(sorted(EXCLUDED_CHECKS))),
        *("--max-examples", "5", "--generation-deterministic", "--workers", "1"),
        *("--request-timeout", "30", "--no-color", "--warnings", "off", *extra),
    ]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600, check=False)
