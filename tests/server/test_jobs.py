"""``/tasks`` over real HTTP: lifecycle, queue, cancel, dry run, event replay with Last-Event-ID."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx

from deepresearch.llm.testing import ScriptedModel
from deepresearch.runs import RunStore
from deepresearch.server import ServerOptions

from .conftest import Serve
from .helpers import TOPIC, read_events, wait_for, wait_job


def test_job_lifecycle_from_queued_to_completed(serve: Serve) -> None:
    with serve(model=ScriptedModel(delay=0.05)).client() as client:
        created = client.post("/tasks", json={"topic": TOPIC, "overrides": {"max_web_research_loops": 1}})
        assert created.status_code == 202
        job = created.json()
        assert job["status"] == "queued" and job["events_url"] == f"/tasks/{job['id']}/events"
        done = wait_job(client, job["id"], ("completed", "failed"))
        listed = client.get("/tasks").json()["jobs"]
    assert done["status"] == "completed", done["error"]
    assert done["progress"] == 1.0 and done["phase"] == "done" and done["attempts"] == 1
    assert done["report_markdown"].startswith("#")
    assert sum(done["task_counts"].values()) == len(done["tasks"]) > 0
    assert done["task_counts"].get("completed", 0) >= 1
    assert {"total", "plan"} <= set(done["timings"])
    assert done["result"]["rounds"] == done["rounds"] == 1
    assert done["started_at"] <= done["finished_at"]
    assert listed[0]["id"] == job["id"] and listed[0]["status"] == "completed"


def test_progress_is_reported_while_running(serve: Serve) -> None:
    server = serve(model=ScriptedModel(delay=0.25), summary_mode="model")
    with server.client() as client:
        job = client.post("/tasks", json={"topic": TOPIC}).json()
        running = wait_job(client, job["id"], ("running",))
        mid = _wait_progress(client, job["id"])
        wait_job(client, job["id"], ("completed",))
    assert running["started_at"]
    assert 0 < mid["progress"] < 1 and mid["tasks"] and mid["phase"]


def _wait_progress(client: httpx.Client, job_id: str) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        body: dict[str, Any] = client.get(f"/tasks/{job_id}").json()
        return body if body["tasks"] and body["status"] == "running" else None

    return dict(wait_for(probe, timeout=30))


def test_jobs_queue_behind_max_concurrent_jobs(serve: Serve) -> None:
    server = serve(model=ScriptedModel(delay=0.1), max_concurrent_jobs=1)
    with server.client() as client:
        ids = [client.post("/tasks", json={"topic": f"{TOPIC} {n}"}).json()["id"] for n in range(3)]
        statuses = [client.get(f"/tasks/{i}").json()["status"] for i in ids]
        finished = [wait_job(client, i, ("completed",)) for i in ids]
    assert statuses.count("running") <= 1 and "queued" in statuses
    starts = [f["started_at"] for f in finished]
    ends = [f["finished_at"] for f in finished]
    assert starts == sorted(starts)
    assert all(ends[n] <= starts[n + 1] for n in range(len(ids) - 1))


def test_cancel_queued_and_running_jobs(serve: Serve) -> None:
    server = serve(model=ScriptedModel(delay=0.3), max_concurrent_jobs=1, summary_mode="model")
    with server.client() as client:
        running = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        queued = client.post("/tasks", json={"topic": TOPIC + "?"}).json()["id"]
        wait_job(client, running, ("running",))
        cancelled_now = client.delete(f"/tasks/{queued}")
        stopping = client.delete(f"/tasks/{running}")
        final = wait_job(client, running, ("cancelled", "completed", "failed"))
        again = client.delete(f"/tasks/{running}")
        missing = client.delete("/tasks/nope")
        with client.stream("GET", f"/tasks/{running}/events") as response:
            events = read_events(response)
    assert cancelled_now.status_code == 200 and cancelled_now.json()["status"] == "cancelled"
    assert stopping.status_code == 200
    assert final["status"] == "cancelled" and "cancelled" in final["error"]
    assert again.status_code == 409 and missing.status_code == 404
    assert events[-1].event == "error" and events[-1].data["data"]["cancelled"] is True


def test_dry_run_checks_readiness_without_researching(serve: Serve) -> None:
    model = ScriptedModel()
    with serve(model=model).client() as client:
        response = client.post("/tasks", json={"topic": TOPIC, "dry_run": True})
        body = response.json()
        view = client.get(f"/tasks/{body['id']}").json()
        with client.stream("GET", body["events_url"]) as stream:
            events = read_events(stream)
    assert response.status_code == 200
    assert body["status"] == "completed" and body["dry_run"] is True and body["ready"] is True
    assert {c["name"] for c in body["checks"]} >= {"model", "search", "workspaces"}
    assert view["checks"] == body["checks"] and view["result"] is None
    assert [m.event for m in events] == ["done"] and events[0].data["data"]["ready"] is True
    assert model.calls == []


def test_dry_run_that_is_not_ready_fails_with_the_reason(serve: Serve) -> None:
    server = serve(index_path="/nonexistent/index.sqlite")
    server.app.state.service.search = None
    with server.client() as client:
        body = client.post("/tasks", json={"topic": TOPIC, "dry_run": True}).json()
        view = client.get(f"/tasks/{body['id']}").json()
    assert body["status"] == "failed" and body["ready"] is False
    assert "not ready" in view["error"] and "search" in view["error"]


def test_events_replay_then_live_and_honour_last_event_id(serve: Serve) -> None:
    server = serve(model=ScriptedModel(delay=0.1), summary_mode="model")
    with server.client() as client:
        job = client.post("/tasks", json={"topic": TOPIC}).json()
        url = job["events_url"]
        with client.stream("GET", url) as response:
            head = read_events(response, until=lambda m: m.event == "todo_list")
        last = head[-1].id
        with client.stream("GET", url, headers={"Last-Event-ID": str(last)}) as response:
            tail = read_events(response)
        wait_job(client, job["id"], ("completed",))
        with client.stream("GET", url) as response:
            everything = read_events(response)
        with client.stream("GET", url, params={"after": 3}) as response:
            after_three = read_events(response)
    ids = [int(m.id or 0) for m in everything]
    assert ids == list(range(1, len(ids) + 1))
    assert [m.id for m in head + tail] == [m.id for m in everything]
    assert [m.data_lines for m in head + tail] == [m.data_lines for m in everything]
    assert everything[0].data["step"] == "queued" and everything[-1].event == "done"
    assert [m.id for m in after_three] == [m.id for m in everything[3:]]


def test_events_of_unknown_job_is_404(serve: Serve) -> None:
    with serve().client() as client:
        assert client.get("/tasks/nope/events").status_code == 404
        assert client.get("/tasks/nope").status_code == 404


def test_history_lists_newest_first_with_paging_and_filter(serve: Serve) -> None:
    with serve().client() as client:
        ids = [client.post("/tasks", json={"topic": f"{TOPIC} {n}"}).json()["id"] for n in range(3)]
        for job_id in ids:
            wait_job(client, job_id, ("completed",))
        page = client.get("/tasks", params={"limit": 2}).json()["jobs"]
        rest = client.get("/tasks", params={"limit": 2, "offset": 2}).json()["jobs"]
        completed = client.get("/tasks", params={"status": "completed"}).json()["jobs"]
        bad = client.get("/tasks", params={"status": "nonsense"})
    assert [j["id"] for j in page + rest] == ids[::-1]
    assert len(completed) == 3 and bad.status_code == 422


def test_expired_run_folders_are_cleaned_on_schedule(serve: Serve, home: Path) -> None:
    store = RunStore(home / "runs")
    old = store.create("old question", now=datetime.now(timezone.utc) - timedelta(days=30))
    fresh = store.create("fresh question")
    serve(research_run_retention_days=7, options=ServerOptions(retention_interval_seconds=0.2))
    wait_for(lambda: not old.path.exists(), timeout=20)
    assert fresh.path.exists()


def test_reconnect_after_the_last_event_gets_204(serve: Serve) -> None:
    with serve().client() as client:
        job = client.post("/tasks", json={"topic": TOPIC}).json()
        wait_job(client, job["id"], ("completed",))
        with client.stream("GET", job["events_url"]) as response:
            last = read_events(response)[-1].id
        done = client.get(job["events_url"], headers={"Last-Event-ID": str(last)})
        before_last = client.get(job["events_url"], headers={"Last-Event-ID": str(int(last or 0) - 1)})
    assert done.status_code == 204
    assert before_last.status_code == 200 and "event: done" in before_last.text
