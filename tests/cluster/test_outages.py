"""Team mode through outages: PostgreSQL restarted or down, Redis restarted (losing every key) or down.

These tests stop and start their own servers, so they never take down the ones the other cluster
tests share. An outage is answered 503 with Retry-After (never 500), a pool keeps no dead
connection, a job whose broker message was lost is sent again within a lease period, and a worker
logs an outage once, not once per event.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import cast

import httpx
import pytest

from ..server.helpers import TOPIC, wait_for, wait_job
from .cluster import Cluster, follow
from .launch import LEASE_SECONDS
from .services import PostgresServer, RedisServer, create_database, missing, running_postgres, running_redis

FINISHED = ("completed", "failed", "cancelled")
_numbers = itertools.count(1)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[RedisServer, PostgresServer]]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    with running_redis() as redis, running_postgres() as postgres:
        yield redis, postgres


@pytest.fixture
def cluster(tmp_path: Path, servers: tuple[RedisServer, PostgresServer]) -> Iterator[Cluster]:
    redis, postgres = servers
    for server in servers:
        if server.process is None:
            server.start()
    database = create_database(postgres.url, f"dr_outage_{next(_numbers)}")
    running = Cluster(tmp_path / "shared-home", redis.url, database, tmp_path)
    try:
        yield running
    finally:
        running.close()
        for server in servers:
            if server.process is None:
                server.start()


def _answers(client: httpx.Client, job_id: str) -> list[httpx.Response]:
    """What a client asks of a finished job, and a new job."""
    return [
        client.get("/tasks"),
        client.get(f"/tasks/{job_id}"),
        client.get(f"/tasks/{job_id}/events"),
        client.post("/tasks", json={"topic": TOPIC}),
    ]


def _unavailable(response: httpx.Response) -> bool:
    return (
        response.status_code == 503
        and response.json()["code"] == "unavailable"
        and int(response.headers["Retry-After"]) > 0
    )


def test_after_a_postgresql_restart_no_request_fails_and_an_outage_is_503(
    cluster: Cluster, servers: tuple[RedisServer, PostgresServer]
) -> None:
    postgres = servers[1]
    node = cluster.api("api-1")
    with node.client() as client:
        job_id = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        assert client.delete(f"/tasks/{job_id}").status_code == 200
        assert {r.status_code for r in _answers(client, job_id)} == {200, 202}
        postgres.stop()
        postgres.start()
        after_restart = _answers(client, job_id)
        postgres.stop()
        during = [*_answers(client, job_id), client.delete(f"/tasks/{job_id}")]
        postgres.start()
        later = _until_answered(client, f"/tasks/{job_id}")
    assert [r.status_code for r in after_restart] == [200, 200, 200, 202], [r.text for r in after_restart]
    assert all(_unavailable(r) for r in during), [(r.status_code, r.text) for r in during]
    assert later.json()["status"] == "cancelled"


def _until_answered(client: httpx.Client, path: str) -> httpx.Response:
    """The first answer that is not 503; a 503 after an outage must carry Retry-After."""

    def answered() -> httpx.Response | None:
        response = client.get(path)
        if response.status_code == 503:
            assert _unavailable(response), response.text
            return None
        assert response.status_code == 200, response.text
        return response

    return cast("httpx.Response", wait_for(answered, timeout=60, interval=0.5))


def test_with_redis_down_a_job_is_refused_with_503_and_not_kept(
    cluster: Cluster, servers: tuple[RedisServer, PostgresServer]
) -> None:
    redis = servers[0]
    node = cluster.api("api-1")
    with node.client() as client:
        redis.stop()
        refused = client.post("/tasks", json={"topic": TOPIC})
        listed = client.get("/tasks").json()["jobs"]
        redis.start()
        accepted = wait_for(lambda: _accepted(client), timeout=30)
    assert _unavailable(refused), (refused.status_code, refused.text)
    assert "REDIS_URL" in refused.json()["detail"]
    assert listed == [], "the refused job was stored"
    assert accepted.json()["status"] == "queued"


def _accepted(client: httpx.Client) -> httpx.Response | None:
    response = client.post("/tasks", json={"topic": TOPIC})
    return response if response.status_code == 202 else None


def _in_broker(redis_url: str, job_id: str) -> bool:
    """Whether a message for ``job_id`` waits in the Celery queue (or is reserved by a worker)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        held = client.lrange("deepresearch", 0, -1) + list(client.hvals("unacked"))
    finally:
        client.close()
    return any(job_id.encode() in message for message in held)


def test_a_queued_job_whose_broker_message_was_lost_is_sent_again_within_a_lease(
    cluster: Cluster, servers: tuple[RedisServer, PostgresServer]
) -> None:
    redis = servers[0]
    node = cluster.api("api-1")
    cluster.worker("busy", delay=1.0, concurrency=1)
    with node.client() as client:
        first = client.post("/tasks", json={"topic": TOPIC}).json()["id"]
        follow(client, first, until=lambda m: m.event == "todo_list")
        waiting = client.post("/tasks", json={"topic": f"{TOPIC} (2)"}).json()["id"]
        assert _in_broker(redis.url, waiting)
        redis.stop()
        redis.start()
        back = time.monotonic()
        assert not _in_broker(redis.url, waiting), "the restart should have lost the message"
        wait_for(lambda: _in_broker(redis.url, waiting), timeout=2 * LEASE_SECONDS)
        resent_after = time.monotonic() - back
        client.delete(f"/tasks/{first}")
        view = wait_job(client, waiting, FINISHED, timeout=120)
    assert resent_after <= 2 * LEASE_SECONDS
    assert view["status"] == "completed", view["error"]


def test_a_redis_outage_is_logged_once_not_once_per_event(
    servers: tuple[RedisServer, PostgresServer], caplog: pytest.LogCaptureFixture
) -> None:
    """A worker publishes every event it stores; while Redis is down each publish fails (the event
    is in the database all the same). Before, each failure logged a warning: hundreds per job."""
    import redis as redis_py

    from deepresearch.jobs.redis_bus import RedisBus
    from deepresearch.jobs.rows import StoredEvent

    redis = servers[0]
    bus = RedisBus(redis.url)
    heard: list[StoredEvent] = []
    watcher = RedisBus(redis.url)
    watcher.listen_events(heard.append)

    def publish(count: int) -> bool:
        for seq in range(count):
            bus.publish_event(StoredEvent("job-a", seq, "status", {"type": "status", "seq": seq}, 0.0))
        return False

    try:
        with caplog.at_level("WARNING", logger="deepresearch.jobs.redis_bus"):
            redis.stop()
            publish(200)
            redis.start()
            wait_for(lambda: "Redis answers again" in caplog.text, timeout=30)
            wait_for(lambda: heard or publish(1), timeout=30)
    finally:
        if redis.process is None:
            redis.start()
        bus.close()
        watcher.close()
    lines = [r.getMessage() for r in caplog.records if r.name == "deepresearch.jobs.redis_bus"]
    assert sum("Redis is unreachable" in line for line in lines) == 2, lines[:5]
    assert sum("Redis answers again" in line for line in lines) == 2, lines[:5]
    assert len(lines) == 4, lines[:5]
    assert redis_py.Redis.from_url(redis.url).ping()
