"""Pacing shared through Redis: processes together keep one interval, not one each."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from deepresearch.limits import RedisIntervalGate, RedisSlots, interval_gate
from deepresearch.retry import IntervalGate
from deepresearch.settings import Settings

redis = pytest.importorskip("redis", reason="the team extra is not installed: pip install -e '.[team]'")


def _calls(url: str, key: str, count: int, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    gate = RedisIntervalGate(redis.Redis.from_url(url), key, 0.2)
    for _ in range(count):
        gate.wait()
        out.put(time.time())


def test_two_processes_share_one_interval(redis_url: str) -> None:
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    workers = [
        multiprocessing.Process(target=_calls, args=(redis_url, "search:duckduckgo", 4, out))
        for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    stamps = sorted(out.get(timeout=5) for _ in range(8))
    gaps = [b - a for a, b in zip(stamps, stamps[1:], strict=False)]
    assert min(gaps) > 0.17, gaps
    assert stamps[-1] - stamps[0] >= 7 * 0.2 - 0.05


def test_separate_limits_do_not_wait_for_each_other(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    first, second = RedisIntervalGate(client, "a", 5.0), RedisIntervalGate(client, "b", 5.0)
    assert first.wait() == 0 and second.wait() == 0
    assert 4.9 < RedisIntervalGate(client, "a", 5.0, sleep=lambda _: None).wait() <= 5.0


def test_an_unreachable_redis_paces_within_the_process() -> None:
    gate = RedisIntervalGate(redis.Redis.from_url("redis://127.0.0.1:1/0"), "x", 0.0)
    assert gate.wait() == 0


def test_the_local_backend_keeps_the_in_process_gate_even_with_a_redis_url() -> None:
    local = Settings.load({"jobs_backend": "local", "redis_url": "redis://127.0.0.1:1/0"})
    assert local.shared_redis_url is None
    assert type(interval_gate("llm", 1.0, local.shared_redis_url)) is IntervalGate


def test_the_celery_backend_paces_through_its_redis() -> None:
    team = Settings.load({"jobs_backend": "celery", "redis_url": "redis://127.0.0.1:1/0"})
    assert team.shared_redis_url == "redis://127.0.0.1:1/0"
    assert isinstance(interval_gate("llm", 1.0, team.shared_redis_url), RedisIntervalGate)


def _hold(url: str, out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    slots = RedisSlots(redis.Redis.from_url(url), "llm", 1, hold_seconds=30)
    for _ in range(3):
        with slots():
            out.put(("in", time.time()))
            time.sleep(0.1)
            out.put(("out", time.time()))


def test_a_cluster_wide_concurrency_limit_admits_one_process_at_a_time(redis_url: str) -> None:
    out: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
    workers = [multiprocessing.Process(target=_hold, args=(redis_url, out)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(30)
    marks = sorted((out.get(timeout=5) for _ in range(12)), key=lambda m: m[1])
    inside = 0
    for kind, _ in marks:
        inside += 1 if kind == "in" else -1
        assert inside <= 1
    assert redis.Redis.from_url(redis_url).zcard("deepresearch:slots:llm") == 0


def test_a_slot_whose_holder_died_frees_itself(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    client.zadd("deepresearch:slots:llm", {"dead-process": time.time() - 1})
    with RedisSlots(client, "llm", 1, hold_seconds=30)():
        assert client.zcard("deepresearch:slots:llm") == 1
