"""Per-backend politeness: a minimum interval between calls and retries on rate-limit answers.

Each engine states its own needs as class attributes: ``min_interval`` (seconds between calls:
1 s for DuckDuckGo, which is scraped; none for keyed APIs, SearXNG and the local index) and
``max_parallel`` (Wikipedia's etiquette asks for one request at a time).
:func:`pacing_of` reads them; ``SEARCH_MIN_INTERVAL_SECONDS``, when the operator sets it, wins.

Backends raise :class:`RateLimitedError` when an engine says "slow down" (HTTP 429, DuckDuckGo's
"202 Ratelimit", Tavily's usage error on 429) and :class:`~deepresearch.errors.SearchError` for
everything else. :class:`Throttled` wraps any backend: it spaces calls by ``min_interval`` and
retries rate-limited calls by :mod:`deepresearch.retry`'s policy (the one home of backoff, jitter,
``Retry-After`` and the interval gate, shared with the model clients). A wait longer than the
policy's ``max_wait`` is not waited for: the call fails and the caller (the chain, or the research
loop) moves on.
"""

from __future__ import annotations

import random
import threading
import time

from deepresearch.errors import SearchError
from deepresearch.retry import IntervalGate, RetryPolicy, Sleep
from deepresearch.search.base import SearchBackend, SearchOutcome
from deepresearch.search.pages import search_outcome

__all__ = ["RateLimitedError", "Throttled", "pacing_of", "search_policy"]


class RateLimitedError(SearchError):
    """The engine refused the call for being too frequent; ``retry_after`` is its hint in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


def pacing_of(backend: object, override: float | None = None) -> tuple[float, int | None]:
    """``(min_interval, max_parallel)`` a backend asks for; ``override`` replaces the interval."""
    interval = override if override is not None else float(getattr(backend, "min_interval", 0.0))
    parallel = getattr(backend, "max_parallel", None)
    return interval, parallel if isinstance(parallel, int) and parallel > 0 else None


def search_policy(max_retries: int = 3) -> RetryPolicy:
    """The policy for search engines: 1 s doubling, at most 30 s, and a Retry-After up to 30 s."""
    return RetryPolicy(max_retries=max_retries, base_delay=1.0, max_delay=30.0, max_wait=30.0)


class Throttled(SearchBackend):
    """A backend behind an :class:`~deepresearch.retry.IntervalGate` and a
    :class:`~deepresearch.retry.RetryPolicy` (default :func:`search_policy`); same seam, same name."""

    def __init__(
        self,
        backend: SearchBackend,
        *,
        gate: IntervalGate | None = None,
        policy: RetryPolicy | None = None,
        sleep: Sleep = time.sleep,
        rng: random.Random | None = None,
        max_parallel: int | None = None,
    ) -> None:
        self.backend = backend
        self.name = backend.name
        self.gate = gate or IntervalGate(0.0, sleep=sleep)
        self.max_parallel = max_parallel
        self._slots = threading.BoundedSemaphore(max_parallel) if max_parallel else None
        self.policy = policy or search_policy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self.waits: list[float] = []

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
            self.gate.wait()
            return search_outcome(self.backend, query, limit=limit)
        with self._slots:
            self.gate.wait()
            return search_outcome(self.backend, query, limit=limit)

    def close(self) -> None:
        """Close the wrapped backend."""
        self.backend.close()

    def _back_off(self, exc: RateLimitedError, attempt: int) -> str:
        if attempt >= self.policy.max_retries:
            raise SearchError(f"{self.name} kept rate-limiting after {attempt + 1} tries: {exc}") from exc
        delay = self.policy.delay(attempt, exc.retry_after, self._rng)
        if delay is None:
            raise SearchError(
                f"{self.name} is rate-limited and asks to wait {exc.retry_after:.0f} s, "
                f"longer than the {self.policy.max_wait:.0f} s a run waits: {exc}"
            ) from exc
        self.waits.append(delay)
        self._sleep(delay)
        return f"{self.name} rate-limited the search ({exc}); retried after {delay:.1f} s"
