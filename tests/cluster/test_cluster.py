"""Jobs across processes: two API nodes and two Celery workers over real Redis and PostgreSQL.

Submitted through one node, followed through the other; a worker killed with SIGKILL mid-job; an
API node killed mid-stream; a cancel through the other node.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..server.helpers import TOPIC, wait_job
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
    assert [v["status"] for v in views] == ["completed"] * len(ids), [v["error"] for v in views]
    assert set(ids) <= listed
    for job_id, messages in streams.items():
        seqs = [int(m.id) for m in messages]
        assert seqs == list(range(1, len(seqs) + 1)), job_id
        assert messages[0].event == "status" and messages[-1].event == "done"
        assert [m.event for m in messages].count("todo_list") == 1
