"""Jobs across processes: two API nodes and two Celery workers over real Redis and PostgreSQL.

Submitted through one node, followed through the other; a worker killed with SIGKILL mid-job; an
API node killed mid-stream; a cancel through the other node.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server.helpers import TOPIC, wait_job
from ..server.test_crash import assert_each_step_event_once
from .cluster import Cluster, follow

FINISHED = ("completed", "failed", "cancelled")


@pytest.fixture
def cluster(tmp_path: Path, redis_url: str, database_url: str) -> Iterator[Cluster]:
    running = Cluster(tmp_path / "shared-home", redis_url, database_url, tmp_path)
    try:
        yield running
    finally:
        running.close()


def _bodies(messages: list[Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in m.data.items() if k != "time"} for m in messages]


def test_jobs_submitted_through_one_node_complete_and_stream_whole_through_the_other(
    cluster: Cluster,
) -> None:
    first, second = cluster.api("api-1"), cluster.api("api-2")
    cluster.worker("worker-1"), cluster.worker("worker-2")
    with first.client() as a, second.client() as b:
        ids = [a.post("/tasks", json={"topic": f"{TOPIC} ({n})"}).json()["id"] for n in range(8)]
        streams = {job_id: follow(b, job_id) for job_id in ids}
        views = [wait_job(b, job_id, FINISHED, timeout=120) for job_id in ids]
        listed = {job["id"] for job in a.get("/tasks", params={"limit": 100}).json()["jobs"]}
        checks = {c["name"]: c for c in b.get("/readyz").json()["checks"]}
    assert checks["broker"]["ok"] and checks["database"]["ok"], checks
    assert "up to date" in checks["database"]["detail"]
    assert [v["status"] for v in views] == ["completed"] * len(ids), [v["error"] for v in views]
    assert set(ids) <= listed
    for job_id, messages in streams.items():
        seqs = [int(m.id) if m.id else -1 for m in messages]
        assert seqs == list(range(1, len(seqs) + 1)), job_id
        assert messages[0].event == "status" and messages[-1].event == "done"
        assert [m.event for m in messages].count("todo_list") == 1


def test_a_worker_killed_mid_job_leaves_its_jobs_to_the_other_which_resumes_them(cluster: Cluster) -> None:
    node = cluster.api("api-1")
    doomed = cluster.worker("doomed", delay=0.3, concurrency=2)
    with node.client() as client:
        ids = [client.post("/tasks", json={"topic": f"{TOPIC} ({n})"}).json()["id"] for n in range(2)]
        before = {job_id: follow(client, job_id, until=lambda m: m.event == "sources") for job_id in ids}
        doomed.kill()
        cluster.worker("survivor", delay=0.05)
        views = [wait_job(client, job_id, FINISHED, timeout=120) for job_id in ids]
        after = {job_id: follow(client, job_id) for job_id in ids}
    for view in views:
        assert view["status"] == "completed", view["error"]
        assert view["attempts"] == 2
    for job_id in ids:
        events = _bodies(after[job_id])
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        assert events[: len(before[job_id])] == _bodies(before[job_id])
        resumed = events[len(before[job_id]) :]
        assert any(e["type"] == "status" and e.get("step") == "resume" for e in resumed)
        assert [e["type"] for e in events].count("todo_list") == 1
        assert_each_step_event_once(events)
    notes = [Path(n["path"]) for view in views for n in view["result"]["notes"]]
    assert notes and len(set(notes)) == len(notes) and all(path.is_file() for path in notes)
    written = {p for p in (cluster.home / "notes").rglob("*.md")}
    assert written == set(notes), "a note of the interrupted attempt was left behind"


def test_an_api_node_killed_mid_stream_the_client_resumes_on_the_other_with_last_event_id(
    cluster: Cluster,
) -> None:
    doomed, other = cluster.api("doomed-api"), cluster.api("api-2")
    cluster.worker("worker-1", delay=0.2)
    with doomed.client() as a:
        job_id = a.post("/tasks", json={"topic": TOPIC}).json()["id"]
        first = follow(a, job_id, until=lambda m: m.event == "sources")
    doomed.kill()
    with other.client() as b:
        rest = follow(b, job_id, last_event_id=int(first[-1].id or 0))
        view = wait_job(b, job_id, FINISHED)
    seqs = [int(m.id or 0) for m in first + rest]
    assert seqs == list(range(1, len(seqs) + 1))
    assert rest and rest[-1].event == "done" and view["status"] == "completed"


def test_a_job_is_cancelled_through_the_other_node_within_a_step(cluster: Cluster) -> None:
    first, second = cluster.api("api-1"), cluster.api("api-2")
    cluster.worker("worker-1", delay=1.0)
    with first.client() as a, second.client() as b:
        job_id = a.post("/tasks", json={"topic": TOPIC}).json()["id"]
        follow(b, job_id, until=lambda m: m.event == "todo_list")
        asked = time.monotonic()
        assert b.delete(f"/tasks/{job_id}").status_code == 200
        events = follow(a, job_id)
        view = wait_job(a, job_id, FINISHED)
        stopped_after = time.monotonic() - asked
    assert view["status"] == "cancelled"
    assert events[-1].event == "error" and events[-1].data["data"]["code"] == "cancelled"
    assert stopped_after < 5, "the run should stop within one step (a model call here takes 1 s)"


def test_a_worker_stopped_with_sigterm_hands_its_job_back(cluster: Cluster) -> None:
    node = cluster.api("api-1")
    leaving = cluster.worker("leaving", delay=0.3, concurrency=1)
    with node.client() as client:
        job_id = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        follow(client, job_id, until=lambda m: m.event == "sources")
        leaving.stop()
        assert leaving.process.returncode == 0
        cluster.worker("staying")
        view = wait_job(client, job_id, FINISHED, timeout=120)
        events = [m.data for m in follow(client, job_id)]
    assert view["status"] == "completed" and view["attempts"] == 2, view["error"]
    assert any(e["type"] == "status" and e.get("step") == "interrupted" for e in events)
    assert [e["type"] for e in events].count("todo_list") == 1


def test_a_nul_character_in_a_topic_or_a_job_id_is_no_server_error(cluster: Cluster) -> None:
    node = cluster.api("api-1")
    with node.client() as client:
        created = client.post("/tasks", json={"topic": "Orloj\u0000 history"})
        missing = client.get("/tasks/abc%00def")
        events = client.get("/tasks/abc%00def/events")
        cancelled = client.delete("/tasks/abc%00def")
    assert created.status_code == 202, created.text
    with node.client() as client:
        stored = client.get(f"/tasks/{created.json()['id']}").json()
    assert stored["topic"] == "Orloj history", stored
    assert [missing.status_code, events.status_code, cancelled.status_code] == [404, 404, 404]
    assert missing.json()["code"] == "job_not_found"
