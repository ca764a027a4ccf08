"""Per-backend politeness: a minimum interval between calls and retries on rate-limit answers.

Each engine states its own needs as class attributes: ``min_interval`` (seconds between calls:
1 s for DuckDuckGo, which is scraped; none for keyed APIs, SearXNG and the local index) and
``max_parallel`` (Wikipedia's etiquette asks for one request at a time).
:func:`pacing_of` reads them; ``SEARCH_MIN_INTERVAL_SECONDS``, when the operator sets it, wins.

Backends raise :class:`RateLimitedError` when an engine says "slow down" (HTTP 429, DuckDuckGo's
"202 Ratelimit", Tavily's usage error on 429) and :class:`~deepresearch.errors.SearchError` for
everything else. :class:`Throttled` wraps any backend: it spaces calls by ``min_interval`` and
retries rate-limited calls with exponential backoff plus jitter, honouring ``Retry-After`` when
the engine sends one. A wait longer than ``max_delay`` is not waited for: the call fails and the
caller (the chain, or the research loop) moves on. Clock, sleep and randomness are injectable so
tests run in microseconds.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.outcome import SearchOutcome, search_outcome

Sleep = Callable[[float], None]
Clock = Callable[[], float]


class RateLimitedError(SearchError):
    """The engine refused the call for being too frequent; ``retry_after`` is its hint in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def parse_retry_after(value: str | None, *, now: Clock = time.time) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date); None if absent or bad."""
    if not value or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - now())


def pacing_of(backend: object, override: float | None = None) -> tuple[float, int | None]:
    """``(min_interval, max_parallel)`` a backend asks for; ``override`` replaces the interval."""
    interval = override if override is not None else float(getattr(backend, "min_interval", 0.0))
    parallel = getattr(backend, "max_parallel", None)
    return interval, parallel if isinstance(parallel, int) and parallel > 0 else None


class RateLimiter:
    """Spaces calls at least ``min_interval`` seconds apart, across threads.

    Each caller reserves the next free slot under a lock and sleeps outside it, so concurrent
    tasks queue up in order instead of all firing at once.
    """

    def __init__(self, min_interval: float, *, clock: Clock = time.monotonic, sleep: Sleep = time.sleep):
        self.min_interval = min_interval
        self._clock = clock
        self._sleep = sleep
        self._next = float("-inf")
        self._lock = threading.Lock()

    def wait(self) -> float:
        """Block until this caller's slot; return the seconds waited."""
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.min_interval
        delay = start - now
        if delay > 0:
            self._sleep(delay)
        return delay


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff: ``base_delay * 2**attempt`` (or the engine's Retry-After), plus up to
    ``jitter`` × that delay at random; never more than ``max_delay``."""

    max_retries: int = 3
    base_delay: float = 1.0
    max_delay: float = 30.0
    jitter: float = 0.25

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``attempt + 1``."""
        base = retry_after if retry_after is not None else self.base_delay * 2**attempt
        return min(self.max_delay, base + rng.uniform(0, self.jitter * base))


class Throttled:
    """A backend behind a :class:`RateLimiter` and a :class:`RetryPolicy`; same seam, same name."""

    def __init__(
        self,
        backend: SearchBackend,
        *,
        limiter: RateLimiter | None = None,
        policy: RetryPolicy | None = None,
        sleep: Sleep = time.sleep,
        rng: random.Random | None = None,
        max_parallel: int | None = None,
    ) -> None:
        self.backend = backend
        self.name = backend.name
        self.limiter = limiter or RateLimiter(0.0, sleep=sleep)
        self.max_parallel = max_parallel
        self._slots = threading.BoundedSemaphore(max_parallel) if max_parallel else None
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.waits: list[float] = []

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """Hits from the wrapped backend; raises SearchError once retries are spent."""
        return self.search_detailed(query, limit=limit).hits

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The wrapped backend's outcome, with a notice for each rate-limit retry it took."""
        notices: list[str] = []
        for attempt in range(self.policy.max_retries + 1):
            try:
                return self._call(query, limit).with_notices(notices)
            except RateLimitedError as exc:
                notices.append(self._back_off(exc, attempt))
        raise AssertionError("unreachable: the last attempt re-raises")

    def _call(self, query: str, limit: int) -> SearchOutcome:
        if self._slots is None:
            self.limiter.wait()
            return search_outcome(self.backend, query, limit=limit)
        with self._slots:
            self.limiter.wait()
            return search_outcome(self.backend, query, limit=limit)

    def close(self) -> None:
        """Close the wrapped backend if it holds resources."""
        close = getattr(self.backend, "close", None)
        if callable(close):
            close()

    def _back_off(self, exc: RateLimitedError, attempt: int) -> str:
        if attempt >= self.policy.max_retries:
            raise SearchError(f"{self.name} kept rate-limiting after {attempt + 1} tries: {exc}") from exc
        if exc.retry_after is not None and exc.retry_after > self.policy.max_delay:
            raise SearchError(
                f"{self.name} is rate-limited and asks to wait {exc.retry_after:.0f} s, "
                f"longer than the {self.policy.max_delay:.0f} s a run waits: {exc}"
            ) from exc
        delay = self.policy.delay(attempt, exc.retry_after, self._rng)
        self.waits.append(delay)
        self._sleep(delay)
        return f"{self.name} rate-limited the search ({exc}); retried after {delay:.1f} s"
