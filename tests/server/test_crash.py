"""Durability: a server killed with ``kill -9`` mid-run resumes its job after a restart, losing nothing;
jobs that cannot resume are failed with the reason."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from deepresearch.errors import DeepResearchError
from deepresearch.jobs.store import MIGRATIONS, JobStore
from deepresearch.llm.testing import ScriptedModel
from deepresearch.sqlite import migrate as migrate_to

from .conftest import Serve
from .helpers import TOPIC, SseMessage, read_events, wait_for, wait_job

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def launched(
    home: Path, tmp: Path, name: str, delay: float = 0.3
) -> Iterator[tuple[subprocess.Popen[bytes], httpx.Client]]:
    """The launcher as a child process (each model call takes ``delay`` s); killed (SIGKILL) on
    exit if still alive."""
    port_file = tmp / f"{name}.port"
    log = (tmp / f"{name}.log").open("wb")
    command = [
        sys.executable,
        "-m",
        "tests.server.launcher",
        "--home",
        str(home),
        "--port-file",
        str(port_file),
        "--delay",
        str(delay),
    ]
    process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT)
    try:
        port = wait_for(lambda: port_file.is_file() and port_file.read_text(), timeout=60)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            wait_for(lambda: _answers(client), timeout=60)
            yield process, client
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(10)
        log.close()


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


def assert_each_step_event_once(events: list[dict[str, Any]]) -> None:
    """A step done again after a resume (it was in flight at the kill) stored its events once: no
    two ``sources`` or ``task_status`` events say the same thing."""
    said = [
        (e["type"], e.get("task_id"), json.dumps(e["data"], sort_keys=True))
        for e in events
        if e["type"] in ("sources", "task_status")
    ]
    repeated = sorted({item[:2] for item in said if said.count(item) > 1}, key=str)
    assert not repeated, f"stored twice after the resume: {repeated}"


def _events(client: httpx.Client, job_id: str, **kwargs: Any) -> list[SseMessage]:
    with client.stream("GET", f"/tasks/{job_id}/events") as response:
        return read_events(response, **kwargs)


def test_kill_9_mid_run_then_restart_finishes_the_job(tmp_path: Path, home: Path) -> None:
    with launched(home, tmp_path, "first") as (process, client):
        job_id = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        seen = _events(client, job_id, until=lambda m: m.event == "sources")
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    store = JobStore(home / "jobs.sqlite")
    before = [e.body for e in store.events(job_id)]
    killed = store.require(job_id)
    store.close()
    assert killed.status == "running" and killed.attempts == 1
    assert [e["seq"] for e in before] == list(range(1, len(before) + 1))
    assert len(before) >= len(seen)

    with launched(home, tmp_path, "second") as (_, client):
        done = wait_job(client, job_id, ("completed", "failed", "cancelled"), timeout=120)
        after = [m.data for m in _events(client, job_id)]
    assert done["status"] == "completed", done["error"]
    assert done["attempts"] == 2
    assert [e["seq"] for e in after] == list(range(1, len(after) + 1))
    assert [{k: v for k, v in e.items() if k != "time"} for e in after[: len(before)]] == before
    resumed = after[len(before) :]
    assert any(e["type"] == "status" and e.get("step") == "resume" for e in resumed)
    assert [e["type"] for e in after].count("todo_list") == 1
    assert_each_step_event_once(after)
    assert after[-1]["type"] == "done"
    run_dirs = {e["data"]["run_dir"] for e in after if e["type"] == "status" and "run_dir" in e["data"]}
    assert len(run_dirs) == 1 and (Path(run_dirs.pop()) / "report.md").is_file()
    notes = [Path(n["path"]) for n in done["result"]["notes"]]
    assert notes and all(path.is_file() for path in notes)
    assert done["result"]["sources"]


def test_a_job_cancelled_just_before_kill_9_stays_cancelled(tmp_path: Path, home: Path) -> None:
    with launched(home, tmp_path, "first", delay=5.0) as (process, client):
        job_id = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        wait_job(client, job_id, ("running",))
        assert client.delete(f"/tasks/{job_id}").status_code == 200
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
    with launched(home, tmp_path, "second") as (_, client):
        view = wait_job(client, job_id, ("completed", "failed", "cancelled"), timeout=120)
        last = _events(client, job_id)[-1]
    assert view["status"] == "cancelled", view
    assert view["attempts"] == 1
    assert last.event == "error" and last.data["data"]["code"] == "cancelled"


def test_a_graceful_stop_interrupts_running_jobs_and_a_restart_resumes_them(serve: Serve, home: Path) -> None:
    first = serve(model=ScriptedModel(delay=0.3), summary_mode="model")
    with first.client() as client:
        job_id = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        _events(client, job_id, until=lambda m: m.event == "todo_list")
    first.__exit__(None, None, None)
    store = JobStore(home / "jobs.sqlite")
    stopped = store.require(job_id)
    before = [e.body for e in store.events(job_id)]
    store.close()
    assert stopped.status == "running"
    assert before[-1]["type"] == "status" and before[-1]["step"] == "interrupted"
    assert not any(e["type"] in ("done", "error") for e in before)

    with serve(summary_mode="model").client() as client:
        done = wait_job(client, job_id, ("completed", "failed", "cancelled"))
        after = [m.data for m in _events(client, job_id)]
    assert done["status"] == "completed" and done["attempts"] == 2
    assert [e["type"] for e in after].count("todo_list") == 1
    assert not (Path(done["result"]["run_dir"]) / "error.json").exists()


def test_a_job_interrupted_too_often_is_failed_with_the_reason(serve: Serve, home: Path) -> None:
    store = JobStore(home / "jobs.sqlite")
    job = store.create(TOPIC, overrides={})
    for _ in range(3):
        store.mark_running(job.id)
    store.close()
    with serve().client() as client:
        view = wait_job(client, job.id, ("failed",))
    assert "stopped 3 times" in view["error"]
    assert view["status"] == "failed"


def test_a_job_whose_settings_went_bad_is_failed_with_the_reason(serve: Serve, home: Path) -> None:
    store = JobStore(home / "jobs.sqlite")
    job = store.create(TOPIC, overrides={"retired_setting": 1})
    store.close()
    with serve().client() as client:
        view = wait_job(client, job.id, ("failed",))
        events = _events(client, job.id)
    assert "no longer valid" in view["error"] and "retired_setting" in view["error"]
    assert events[-1].event == "error"


def test_queued_jobs_survive_a_restart(serve: Serve, home: Path) -> None:
    store = JobStore(home / "jobs.sqlite")
    job = store.create(TOPIC, overrides={"max_web_research_loops": 1})
    store.close()
    with serve().client() as client:
        view = wait_job(client, job.id, ("completed",))
    assert view["result"]["rounds"] == 1


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5])
def test_migrations_are_numbered_and_idempotent(tmp_path: Path, version: int) -> None:
    import sqlite3

    path = tmp_path / "jobs.sqlite"
    with sqlite3.connect(path) as conn:
        migrate_to(conn, MIGRATIONS[:version], what="jobs database", fix="-")
    old = JobStore(path)
    old.close()
    store = JobStore(path)
    assert store._conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 5
    columns = {row[1] for row in store._conn.execute("PRAGMA table_info(jobs)")}
    assert {"cancel_requested", "review_plan", "plan_decision"} <= columns
    store.close()


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "jobs.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(DeepResearchError, match="newer than this deepresearch"):
        JobStore(path)
