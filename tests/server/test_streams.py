"""``/research`` and ``/research/stream`` over real HTTP: event order, heartbeat, disconnect cancels."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from deepresearch.events import EVENT_TYPES
from deepresearch.llm.testing import ScriptedModel
from deepresearch.server import ServerOptions

from .conftest import Serve
from .helpers import TOPIC, SseMessage, iter_sse, read_events, wait_for


def assert_well_formed(events: list[SseMessage]) -> None:
    """ids are 1..n, event: equals the JSON type, every type is known, done is last and alone."""
    assert [m.id for m in events] == [str(n) for n in range(1, len(events) + 1)]
    for message in events:
        body = message.data
        assert message.event == body["type"] in EVENT_TYPES
        assert str(body["seq"]) == message.id
        assert isinstance(body["time"], float)
    types = [m.event for m in events]
    assert types[-1] == "done" and types.count("done") == 1 and "error" not in types


def test_stream_events_arrive_in_order(serve: Serve) -> None:
    with (
        serve().client() as client,
        client.stream("POST", "/research/stream", json={"topic": TOPIC}) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = read_events(response)
    assert_well_formed(events)
    types = [m.event for m in events]
    assert types[0] == "status" and events[0].data["step"] == "start"
    assert types.index("todo_list") < types.index("task_status") < types.index("sources")
    assert (
        types.index("sources") < types.index("evaluation") < types.index("final_report") < types.index("done")
    )
    plan = events[types.index("todo_list")].data["data"]["tasks"]
    statuses = [m.data for m in events if m.event == "task_status"]
    finished = {s["task_id"] for s in statuses if s["data"]["status"] == "completed"}
    assert finished == {t["id"] for t in plan}
    result = events[-1].data["data"]["result"]
    assert result["report_markdown"] == events[types.index("final_report")].data["data"]["report"]
    chunks = [m.data["data"]["content"] for m in events if m.event == "report_chunk"]
    assert len(chunks) > 1 and "".join(chunks) == result["report_markdown"]
    assert types.index("report_chunk") > types.index("evaluation")


def test_get_stream_reads_like_event_source(serve: Serve) -> None:
    with (
        serve().client() as client,
        client.stream(
            "GET", "/research/stream", params={"topic": TOPIC, "max_web_research_loops": 1}
        ) as response,
    ):
        events = read_events(response)
    assert_well_formed(events)
    assert events[-1].data["data"]["result"]["rounds"] == 1


def test_blocking_research_returns_the_full_result(serve: Serve) -> None:
    with serve().client() as client:
        response = client.post("/research", json={"topic": TOPIC})
    assert response.status_code == 200
    result = response.json()
    assert {"report_markdown", "todo_items", "sources", "rounds", "timings", "usage"} <= set(result)
    assert result["usage"]["per_call"]


def test_heartbeat_comments_while_the_model_thinks(serve: Serve) -> None:
    # The model sleeps 0.8 s a call, eight heartbeats' time: the pings arrive even when another
    # process loads the cores (with 0.4 s a busy machine saw 2).
    server = serve(model=ScriptedModel(delay=0.8), options=ServerOptions(heartbeat_seconds=0.1))
    with (
        server.client() as client,
        client.stream("POST", "/research/stream", json={"topic": TOPIC}) as response,
    ):
        messages = list(iter_sse(response))
    pings = [m for m in messages if m.comment is not None]
    assert len(pings) >= 3
    assert all(p.comment.startswith("ping") for p in pings if p.comment)
    assert [m.event for m in messages if m.comment is None][-1] == "done"


def test_client_disconnect_cancels_the_run(serve: Serve) -> None:
    model = ScriptedModel(delay=0.3)
    server = serve(model=model, summary_mode="model")
    with server.client() as client:
        with client.stream("POST", "/research/stream", json={"topic": TOPIC}) as response:
            events = read_events(response, until=lambda m: m.event == "todo_list")
        run_dir = Path(events[0].data["data"]["run_dir"])
        error = wait_for(lambda: (run_dir / "error.json").is_file(), timeout=20)
        assert error
        calls_at_cancel = len(model.calls)
        assert json.loads((run_dir / "error.json").read_text())["cancelled"] is True
        assert not (run_dir / "report.md").exists()
        gate = server.app.state.service.gate
        wait_for(lambda: gate.count == 0, timeout=20)
    assert "report" not in model.steps()
    assert len(model.calls) == calls_at_cancel


def test_waiting_streams_queue_behind_max_direct_runs(serve: Serve) -> None:
    model = ScriptedModel(delay=0.05)
    server = serve(model=model, options=ServerOptions(heartbeat_seconds=0.2, max_direct_runs=1))
    with (
        server.client() as first,
        server.client() as second,
        first.stream("POST", "/research/stream", json={"topic": TOPIC}) as a,
        second.stream("POST", "/research/stream", json={"topic": TOPIC + " (2)"}) as b,
    ):
        events_a, events_b = read_events(a), read_events(b)
    assert events_a[-1].event == events_b[-1].event == "done"
    assert events_b[0].data["time"] >= events_a[-1].data["time"]


def test_event_source_reconnect_to_a_direct_stream_starts_nothing(serve: Serve) -> None:
    model = ScriptedModel()
    with serve(model=model).client() as client:
        response = client.get("/research/stream", params={"topic": TOPIC}, headers={"Last-Event-ID": "7"})
    assert response.status_code == 204
    assert model.calls == []


def test_client_leaving_a_blocking_research_cancels_it(serve: Serve, home: Path) -> None:
    model = ScriptedModel(delay=1.0)
    server = serve(model=model, summary_mode="model")
    with server.client(timeout=0.5) as client, pytest.raises(httpx.ReadTimeout):
        client.post("/research", json={"topic": TOPIC})
    runs = wait_for(lambda: list((home / "runs").glob("*/error.json")), timeout=20)
    assert json.loads(runs[0].read_text())["cancelled"] is True
    assert "report" not in model.steps()
