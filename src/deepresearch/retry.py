"""When to call a server again: the retry policy, the ``Retry-After`` reading and the interval gate.

One home for both kinds of outside call, model servers (:mod:`deepresearch.llm`) and search engines
(:mod:`deepresearch.search`). Which answers are retried is the caller's rule (:func:`retryable_status`
for HTTP; a search backend's :class:`~deepresearch.search.ratelimit.RateLimitedError`); how long to
wait is :class:`RetryPolicy`'s: the server's ``Retry-After`` when it sent one, up to ``max_wait``
seconds (a longer ask ends the call instead of stalling the run), else exponential backoff capped at
``max_delay``; ``jitter`` adds up to that fraction of each wait at random, so parallel callers do not
retry in step. Clock, sleep and randomness are injectable so tests run in microseconds.
"""

from __future__ import annotations

import email.utils
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

Clock = Callable[[], float]
Sleep = Callable[[float], None]
MAX_RETRY_AFTER = 60.0
RETRY_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` extra attempts; waits as the module says."""

    max_retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0
    max_wait: float = MAX_RETRY_AFTER
    jitter: float = 0.25

    def backoff(self, attempt: int, rng: random.Random | None = None) -> float:
        """The wait before retry number ``attempt + 1`` when the server named none."""
        step = self.base_delay * 2.0**attempt
        return min(self.max_delay, step + (rng or _RANDOM).uniform(0, self.jitter * step))

    def delay(
        self, attempt: int, asked: float | None = None, rng: random.Random | None = None
    ) -> float | None:
        """The wait before retry number ``attempt + 1``: the server's ask (``asked`` seconds) when
        it made one, else :meth:`backoff`; ``None`` when it asks for longer than ``max_wait``."""
        if asked is None:
            return self.backoff(attempt, rng)
        if asked > self.max_wait:
            return None
        return min(self.max_wait, asked + (rng or _RANDOM).uniform(0, self.jitter * asked))


def retryable_status(status: int) -> bool:
    """HTTP statuses worth another try: 408, 409, 429 and every 5xx."""
    return status in RETRY_STATUSES or status >= 500


def retry_after(headers: Mapping[str, str], *, now: Clock = time.time) -> float | None:
    """Seconds the server asks to wait (``retry-after-ms``, else :func:`parse_retry_after` of
    ``retry-after``), or ``None`` when it asks nothing readable. Never negative."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    return parse_retry_after(headers.get("retry-after"), now=now)


def parse_retry_after(value: str | None, *, now: Clock = time.time) -> float | None:
    """Seconds to wait from a ``Retry-After`` value (delta-seconds or HTTP-date); None if absent or bad."""
    text = (value or "").strip()
    if not text:
        return None
    seconds = _number(text)
    if seconds is not None:
        return max(0.0, seconds)
    parsed = email.utils.parsedate_tz(text)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - now())


class IntervalGate:
    """Hands out call slots at least ``interval`` seconds apart, in arrival order, across threads.

    Each caller reserves the next free slot under a lock and sleeps outside it, so concurrent
    callers queue up in order instead of all firing at once.
    """

    def __init__(self, interval: float = 0.0, *, clock: Clock = time.monotonic, sleep: Sleep = time.sleep):
        self.interval = interval
        self._clock = clock
        self._sleep = sleep
        self._last: float | None = None
        self._lock = threading.Lock()

    def wait(self, interval: float | None = None) -> float:
        """Block until ``interval`` (default: the gate's own) has passed since the previous slot;
        return the seconds waited."""
        gap = self.interval if interval is None else interval
        with self._lock:
            now = self._clock()
            start = now if self._last is None else max(now, self._last + gap)
            self._last = start
        waited = start - now
        if waited > 0:
            self._sleep(waited)
        return waited


_RANDOM = random.Random()


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None
