"""Pacing shared by every process of a team setup: model-call and search intervals kept in Redis.

A low layer: :mod:`deepresearch.llm` and :mod:`deepresearch.search` take their gates here, and
:mod:`deepresearch.jobs` takes its Redis client (:func:`redis_client`), so neither imports the jobs.

With ``JOBS_BACKEND=celery`` every worker and API node takes its call slots from one Redis key per
limit, on Redis's clock, so twenty workers together keep DuckDuckGo's one second between
searches (and ``LLM_MIN_INTERVAL_SECONDS`` between model calls) instead of each keeping it on its
own. The model server's concurrency limit (``LLM_MAX_CONCURRENCY``) is a Redis semaphore the same
way. Locally the gates are the in-process :class:`~deepresearch.retry.IntervalGate` and a
process-wide semaphore. The callers pass the Redis URL in
(:attr:`~deepresearch.settings.Settings.shared_redis_url`, None for a process on its own): this
layer knows a URL, not the jobs backend.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from functools import cache
from typing import Any

from deepresearch.errors import ConfigurationError
from deepresearch.retry import IntervalGate

logger = logging.getLogger(__name__)

TEAM_EXTRA = "JOBS_BACKEND=celery needs the team extra: pip install 'deepresearch-offline[team]'"
KEY_PREFIX = "deepresearch:pace:"
_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local gap = tonumber(ARGV[1])
local last = tonumber(redis.call('GET', KEYS[1]) or '')
local start = now
if last ~= nil and last + gap > now then start = last + gap end
redis.call('SET', KEYS[1], string.format('%.6f', start), 'PX', math.ceil((start - now + gap) * 1000) + 1000)
return string.format('%.6f', start - now)
"""


_TAKE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[3])) + 60)
  return 1
end
return 0
"""
SLOT_PREFIX = "deepresearch:slots:"


class RedisSlots:
    """At most ``limit`` holders at once across every process (a semaphore in a Redis sorted set).

    A slot not given back within ``hold_seconds`` (its process died) is freed. Waiters poll every
    ``poll`` seconds. If Redis cannot be reached, the process's own semaphore limits instead.
    """

    def __init__(self, client: Any, key: str, limit: int, *, hold_seconds: float, poll: float = 0.05) -> None:
        self.key = SLOT_PREFIX + key
        self.limit = limit
        self.hold_seconds = hold_seconds
        self._client = client
        self._script = client.register_script(_TAKE)
        self._poll = poll
        self._fallback = threading.BoundedSemaphore(limit)

    @contextmanager
    def __call__(self) -> Iterator[None]:
        token = uuid.uuid4().hex
        try:
            while not int(self._script(keys=[self.key], args=[self.limit, token, self.hold_seconds])):
                time.sleep(self._poll)
        except Exception as exc:  # noqa: BLE001 - any Redis failure: limit within this process instead
            logger.warning("shared slots %s unavailable (%s); limiting within this process", self.key, exc)
            with self._fallback:
                yield
            return
        try:
            yield
        finally:
            self._give_back(token)

    def _give_back(self, token: str) -> None:
        try:
            self._client.zrem(self.key, token)
        except Exception as exc:  # noqa: BLE001 - the slot then frees itself after hold_seconds
            logger.warning("could not give back a slot of %s (%s)", self.key, exc)


@cache
def _process_slots(key: str, limit: int) -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(limit)


def call_slots(
    key: str, limit: int, redis_url: str | None, *, hold_seconds: float
) -> Callable[[], AbstractContextManager[Any]]:
    """A factory of ``with`` blocks that admit at most ``limit`` holders of ``key`` at once: across
    every process that shares ``redis_url``, else (None) across this process."""
    if redis_url is None:
        semaphore = _process_slots(key, limit)
        return lambda: semaphore
    return RedisSlots(_client(redis_url), key, limit, hold_seconds=hold_seconds)


class RedisIntervalGate(IntervalGate):
    """:class:`~deepresearch.retry.IntervalGate`'s contract with the last slot kept in Redis.

    Each caller reserves the next free slot atomically (one Lua script on Redis's clock) and
    sleeps outside Redis. If Redis cannot be reached the call goes through on the process's own
    gate, with a warning: a limit is a courtesy, not a reason to fail a run.
    """

    def __init__(
        self, client: Any, key: str, interval: float = 0.0, *, sleep: Callable[[float], None] = time.sleep
    ) -> None:
        super().__init__(interval, sleep=sleep)
        self.key = KEY_PREFIX + key
        self._script = client.register_script(_RESERVE)

    def wait(self, interval: float | None = None) -> float:
        gap = self.interval if interval is None else interval
        try:
            waited = float(self._script(keys=[self.key], args=[gap]))
        except Exception as exc:  # noqa: BLE001 - any Redis failure: pace within this process instead
            logger.warning("shared pacing %s unavailable (%s); pacing within this process", self.key, exc)
            return super().wait(gap)
        if waited > 0:
            self._sleep(waited)
        return waited


def interval_gate(key: str, interval: float, redis_url: str | None) -> IntervalGate:
    """The gate for limit ``key``: shared through the Redis at ``redis_url``, else (None) in-process."""
    if redis_url is None:
        return IntervalGate(interval)
    return RedisIntervalGate(_client(redis_url), key, interval)


def model_gate(interval: float, redis_url: str | None) -> IntervalGate | None:
    """The gate every model call of the cluster shares, or None to use the process's own."""
    if redis_url is None:
        return None
    return interval_gate("llm", interval, redis_url)


def redis_client(url: str) -> Any:
    """A client for ``url``; :class:`ConfigurationError` naming the extra when redis-py is missing."""
    try:
        import redis
    except ImportError as exc:
        raise ConfigurationError(TEAM_EXTRA) from exc
    return redis.Redis.from_url(url, health_check_interval=30, socket_connect_timeout=5)


@cache
def _client(url: str) -> Any:
    return redis_client(url)
