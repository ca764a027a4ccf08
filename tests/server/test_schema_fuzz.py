"""Schemathesis over the served ``/openapi.json``: valid and invalid requests for every operation,
a fixed (derandomized) sequence of a bounded number of examples; no answer may be a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.result import Ok

from .conftest import Serve
from .helpers import LiveServer

EXAMPLES = 40
SSE_PATHS = ("/research/stream", "/tasks/{job_id}/events")


@pytest.fixture
def server(serve: Serve) -> Iterator[LiveServer]:
    yield serve(max_web_research_loops=1)


def _operations(server: LiveServer) -> list[Any]:
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operations.append(result.ok())
    return operations


def test_the_sse_endpoints_are_described_as_event_streams(server: LiveServer) -> None:
    with server.client() as client:
        paths = client.get("/openapi.json").json()["paths"]
    streams = [(path, op) for path in SSE_PATHS for op in paths[path].values()]
    assert len(streams) == 3
    assert all(list(op["responses"]["200"]["content"]) == ["text/event-stream"] for _, op in streams)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE])
def test_no_generated_request_gets_a_server_error(server: LiveServer, mode: GenerationMode) -> None:
    failures: list[str] = []
    operations = _operations(server)
    assert len(operations) >= 10
    for operation in operations:
        _fuzz(operation, mode, failures)
    assert failures == []


def _fuzz(operation: Any, mode: GenerationMode, failures: list[str]) -> None:
    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(operation.as_strategy(generation_mode=mode))
    def check(case: Any) -> None:
        response = case.call(timeout=30)
        if response.status_code >= 500:
            where = f"{case.method} {case.formatted_path}"
            failures.append(f"{where} {response.status_code}: {response.text[:300]}")

    try:
        check()
    except Unsatisfiable:
        assert mode is GenerationMode.NEGATIVE, f"{operation.method} {operation.path}: nothing generated"
