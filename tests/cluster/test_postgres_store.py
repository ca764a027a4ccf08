"""The PostgreSQL job store keeps the SQLite store's contract, shared by every process."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from deepresearch.errors import ConfigurationError, DeepResearchError, JobNotFoundError
from deepresearch.jobs.postgres import MIGRATIONS, PostgresJobStore, connection_pool, migrate


@pytest.fixture
def store(database_url: str) -> Iterator[PostgresJobStore]:
    pool = connection_pool(database_url)
    migrate(pool)
    yield PostgresJobStore(pool, lease_seconds=0.5)
    pool.close()


def test_events_are_numbered_without_gaps_when_many_threads_write(store: PostgresJobStore) -> None:
    job = store.create("topic", overrides={"max_web_research_loops": 1})

    def write() -> None:
        for _ in range(20):
            store.append_event(job.id, {"type": "status", "step": "x", "data": {}}, time.time())

    threads = [threading.Thread(target=write) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [e.seq for e in store.events(job.id, limit=1000)] == list(range(1, 81))
    assert [e.seq for e in store.events(job.id, after=78)] == [79, 80]
    assert store.require(job.id).overrides == {"max_web_research_loops": 1}


def test_an_event_whose_key_is_stored_is_not_stored_again(store: PostgresJobStore) -> None:
    """What a step done again after a resume writes: the same keys, stored once, no gap."""
    job = store.create("topic", overrides={})
    sources = {"type": "sources", "task_id": 1, "data": {"round": 1}}
    first = store.append_event(job.id, sources, time.time(), key="task-a:sources:1")
    again = store.append_event(job.id, {**sources, "data": {"round": 9}}, time.time(), key="task-a:sources:1")
    store.append_event(job.id, {"type": "status", "step": "resume", "data": {}}, time.time())
    store.append_event(job.id, sources, time.time(), key="task-a:sources:2")
    assert again == first and again.body["data"] == {"round": 1}
    assert [(e.seq, e.type) for e in store.events(job.id)] == [(1, "sources"), (2, "status"), (3, "sources")]


def test_an_unknown_job_is_the_projects_not_found_error(store: PostgresJobStore) -> None:
    with pytest.raises(JobNotFoundError, match="no job 'nope'") as missing:
        store.require("nope")
    with pytest.raises(JobNotFoundError):
        store.append_event("nope", {"type": "status", "step": "x", "data": {}}, time.time())
    assert missing.value.code == "job_not_found"


def let_time_pass(store: PostgresJobStore, seconds: float) -> None:
    """The database's clock moved on by ``seconds`` for the stored jobs (leases and re-send times
    are kept on it): their times moved back, no sleep."""
    with store.pool.connection() as conn:
        conn.execute(
            "UPDATE jobs SET lease_until = lease_until - make_interval(secs => %s), "
            "requeue_at = requeue_at - make_interval(secs => %s)",
            (seconds, seconds),
        )


def test_a_job_is_finished_once_with_its_last_event(store: PostgresJobStore) -> None:
    job = store.create("topic", overrides={})
    done = {"type": "done", "step": "done", "data": {}}
    assert store.finish(job.id, "completed", done, time.time(), result={"a": 1}) is not None
    assert store.finish(job.id, "failed", done, time.time()) is None
    finished = store.require(job.id)
    assert finished.status == "completed" and finished.result == {"a": 1}
    assert [e.type for e in store.events(job.id)] == ["done"]


def test_a_live_lease_keeps_other_workers_out_until_it_runs_out(store: PostgresJobStore) -> None:
    other = PostgresJobStore(store.pool, lease_seconds=0.5)
    job = store.create("topic", overrides={})
    assert store.mark_running(job.id)
    assert not other.mark_running(job.id)
    assert store.reclaim_expired() == []
    let_time_pass(store, 0.7)
    assert other.reclaim_expired() == [job.id]
    assert store.reclaim_expired() == []
    assert other.mark_running(job.id)
    assert store.require(job.id).attempts == 2
    assert store.renew([job.id]) == [job.id], "the first worker lost it: its run must stop"
    assert other.renew([job.id]) == []
    assert other.request_cancel(job.id)
    assert other.renew([job.id]) == [job.id], "a cancel was asked: the run must stop"


def test_migrations_are_idempotent_and_a_newer_schema_is_refused(database_url: str) -> None:
    pool = connection_pool(database_url)
    assert migrate(pool) == migrate(pool) == len(MIGRATIONS)
    with pool.connection() as conn:
        conn.execute("INSERT INTO deepresearch_schema (version) VALUES (99)")
    with pytest.raises(DeepResearchError, match="newer than this deepresearch"):
        migrate(pool)
    pool.close()


def test_a_database_left_at_an_older_version_is_migrated_on_and_kept(database_url: str) -> None:
    """A database the first releases created (two migrations, recorded as they recorded them)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE deepresearch_schema (version INTEGER NOT NULL)")
        for number, script in enumerate(MIGRATIONS[:2], start=1):
            conn.execute(script, prepare=False)
            conn.execute("INSERT INTO deepresearch_schema (version) VALUES (%s)", (number,))
        conn.execute(
            "INSERT INTO jobs (id, topic, status, created_at) VALUES ('old', 'kept topic', 'completed', 'x')"
        )
    pool = connection_pool(database_url)
    store = PostgresJobStore(pool)

    assert migrate(pool) == len(MIGRATIONS)

    assert store.require("old").topic == "kept topic"
    job = store.create("topic", overrides={}, review_plan=True)
    event = {"type": "status", "step": "x", "data": {}}
    first = store.append_event(job.id, event, time.time(), key="step:1")
    assert store.append_event(job.id, event, time.time(), key="step:1") == first
    assert store.require(job.id).review_plan
    pool.close()


def test_an_unreachable_database_says_how_to_fix_it() -> None:
    with pytest.raises(ConfigurationError, match="DATABASE_URL"):
        connection_pool("postgresql://nobody@127.0.0.1:1/none")


def test_a_job_queued_but_never_taken_is_queued_again_once_per_period(store: PostgresJobStore) -> None:
    """An API node that died between storing a job and sending it to the broker leaves it queued:
    a worker's keeper sends it again after a few lease periods, to one caller at a time."""
    other = PostgresJobStore(store.pool, lease_seconds=0.5)
    stranded = store.create("topic", overrides={})
    taken = store.create("topic", overrides={})
    assert store.mark_running(taken.id)
    assert store.requeue_stranded() == []
    let_time_pass(store, store.requeue_seconds + 0.2)
    store.renew([taken.id])
    assert other.requeue_stranded() == [stranded.id]
    assert store.requeue_stranded() == [], "each period, one caller queues it"
    assert store.mark_running(stranded.id)
    let_time_pass(store, store.requeue_seconds + 0.2)
    assert other.requeue_stranded() == [], "a job a worker took is not queued again"


def test_a_job_waits_for_plan_review_without_a_lease_and_resumes_with_the_decision(
    store: PostgresJobStore,
) -> None:
    job = store.create("topic", overrides={}, review_plan=True)
    shown = {"type": "status", "step": "awaiting_review", "data": {"tasks": [{"id": 1}]}}
    reviewed = {"type": "status", "step": "plan_reviewed", "data": {}}
    assert store.resume_review(job.id, {"accept": True}, reviewed, time.time()) is None
    assert store.mark_running(job.id)
    assert store.await_review(job.id, shown, time.time()) is not None
    waiting = store.require(job.id)
    assert waiting.status == "awaiting_review" and waiting.review_plan and not waiting.finished
    assert store.unfinished() == [] and store.renew([job.id]) == [job.id]
    let_time_pass(store, 0.7)
    assert store.reclaim_expired() == [], "a job waiting for a person is no worker's to reclaim"
    assert store.resume_review(job.id, {"tasks": [{"id": 1}]}, reviewed, time.time()) is not None
    queued = store.require(job.id)
    assert queued.status == "queued" and queued.plan_decision == {"tasks": [{"id": 1}]}
    assert [e.body["step"] for e in store.events(job.id)] == ["awaiting_review", "plan_reviewed"]


_MIGRATE = """
import sys
from deepresearch.jobs.postgres import connection_pool, migrate
pool = connection_pool(sys.argv[1])
print(migrate(pool, wait=60))
pool.close()
"""


def test_processes_started_together_on_an_empty_database_all_migrate_every_time(
    _servers: tuple[str, str],
) -> None:
    """Four processes (two API nodes and two workers, as far as the database can tell) migrate an
    empty database at once, ten times over: every one finishes (before the fix some waited for ever:
    LangGraph's CREATE INDEX CONCURRENTLY waited for the sessions blocked on the advisory lock)."""
    import subprocess
    import sys

    from .services import create_database

    for attempt in range(10):
        url = create_database(_servers[1], f"dr_migrate_{attempt}_{time.monotonic_ns()}")
        processes = [
            subprocess.Popen([sys.executable, "-c", _MIGRATE, url], stdout=subprocess.PIPE, text=True)
            for _ in range(4)
        ]
        try:
            outputs = [p.communicate(timeout=90)[0].strip() for p in processes]
        finally:
            for process in processes:
                process.kill()
                process.communicate()
        assert [p.returncode for p in processes] == [0, 0, 0, 0], attempt
        assert outputs == [str(len(MIGRATIONS))] * 4
