"""Query-length guards, Retry-After parsing, the minimum interval, and backoff against a real server."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from deepresearch.errors import SearchError
from deepresearch.retry import IntervalGate, RetryPolicy, parse_retry_after
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.query import fit_query, guard_query
from deepresearch.search.ratelimit import RateLimitedError, Throttled
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.testing import StaticSearch, hit
from deepresearch.search.wikipedia import WikipediaSearch
from tests.search.replay import ReplayServer, Reply, fixture_text


class FakeTime:
    """A clock that only moves when something sleeps."""

    def __init__(self) -> None:
        self.now = 100.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_fit_query_cuts_on_a_word_boundary() -> None:
    query = "alpha beta gamma delta"
    assert fit_query(query, 100) == query
    assert fit_query(query, 16) == "alpha beta gamma"
    assert fit_query(query, 15) == "alpha beta"
    assert fit_query("  spaced\n\tout   words ", 100) == "spaced out words"


def test_fit_query_cuts_inside_a_single_overlong_word() -> None:
    assert fit_query("x" * 50, 10) == "x" * 10


def test_guard_query_reports_only_when_it_shortened() -> None:
    assert guard_query("short query", 400, "tavily") == ("short query", [])
    long_query = " ".join(["word"] * 120)
    sent, notices = guard_query(long_query, 400, "tavily")
    assert len(sent) <= 400 and sent.endswith("word")
    assert notices and "tavily" in notices[0] and f"of {len(long_query)}" in notices[0]
    assert guard_query(long_query, None, "perplexity") == (long_query, [])


@pytest.mark.parametrize(
    ("header", "expected"),
    [(None, None), ("", None), ("7", 7.0), (" 2.5 ", 2.5), ("-3", 0.0), ("soon", None)],
)
def test_parse_retry_after_seconds(header: str | None, expected: float | None) -> None:
    assert parse_retry_after(header) == expected


def test_parse_retry_after_http_date() -> None:
    now = datetime(2025, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    header = format_datetime(now + timedelta(seconds=30), usegmt=True)
    assert parse_retry_after(header, now=now.timestamp) == pytest.approx(30.0)


def test_rate_limiter_spaces_calls_by_the_minimum_interval() -> None:
    fake = FakeTime()
    limiter = IntervalGate(1.5, clock=fake.clock, sleep=fake.sleep)
    assert limiter.wait() == 0
    assert limiter.wait() == pytest.approx(1.5)
    fake.now += 10
    assert limiter.wait() == 0
    assert fake.sleeps == [pytest.approx(1.5)]


def test_retry_policy_is_exponential_with_bounded_jitter() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=30.0, jitter=0.25)
    rng = random.Random(7)
    delays = [policy.delay(attempt, None, rng) for attempt in range(4)]
    for attempt, delay in enumerate(delays):
        assert delay is not None and 2**attempt <= delay <= 2**attempt * 1.25
    assert (policy.delay(0, 4.0, rng) or 0.0) >= 4.0
    assert policy.delay(10, None, rng) == 30.0


def throttled(backend: object, fake: FakeTime, retries: int = 3) -> Throttled:
    return Throttled(
        backend,  # type: ignore[arg-type]
        gate=IntervalGate(0.0, clock=fake.clock, sleep=fake.sleep),
        policy=RetryPolicy(max_retries=retries, base_delay=0.01, max_delay=5.0, max_wait=5.0, jitter=0.5),
        sleep=fake.sleep,
        rng=random.Random(1),
    )


def test_429_with_retry_after_is_retried_then_answers(replay: ReplayServer) -> None:
    replay.add(
        "/search",
        Reply(status=429, body="Too Many Requests", headers={"Retry-After": "2"}),
        Reply(status=429, body="Too Many Requests", headers={"Retry-After": "1"}),
        Reply(body=fixture_text("searxng_startpage_climate_tech.json")),
    )
    fake = FakeTime()
    backend = throttled(SearxngSearch(replay.url), fake)
    outcome = backend.search_detailed("climate tech", limit=5)
    assert [h.url for h in outcome.hits] == [
        "https://www.nasdaq.com/solutions/listings/resources/blogs/what-is-climate-tech"
    ]
    assert len(replay.requests) == 3
    assert 2.0 <= backend.waits[0] <= 3.0 and 1.0 <= backend.waits[1] <= 1.5
    assert len(outcome.notices) == 2 and all("rate-limited" in n for n in outcome.notices)


def test_429_without_retry_after_backs_off_exponentially(replay: ReplayServer) -> None:
    busy = Reply(status=429, body='{"error": "slow down"}')
    replay.add("/w/api.php", busy, busy, busy, Reply(body=fixture_text("wikipedia_perito_moreno.json")))
    fake = FakeTime()
    backend = throttled(WikipediaSearch(api_url=replay.url + "/w/api.php", language="en"), fake)
    assert len(backend.search("Perito Moreno", limit=3)) == 3
    assert len(backend.waits) == 3
    assert backend.waits[0] < backend.waits[1] < backend.waits[2]


def test_rate_limit_that_never_lifts_fails_after_the_retries(replay: ReplayServer) -> None:
    replay.add("/search", Reply(status=429, body="Too Many Requests"))
    fake = FakeTime()
    backend = throttled(SearxngSearch(replay.url), fake, retries=2)
    with pytest.raises(SearchError, match="kept rate-limiting after 3 tries"):
        backend.search("anything")
    assert len(replay.requests) == 3


def test_a_retry_after_longer_than_max_delay_is_not_waited_for(replay: ReplayServer) -> None:
    replay.add("/search", Reply(status=429, body="quota", headers={"Retry-After": "3600"}))
    fake = FakeTime()
    backend = throttled(SearxngSearch(replay.url), fake)
    with pytest.raises(SearchError, match="asks to wait 3600 s"):
        backend.search("anything")
    assert fake.sleeps == [] and len(replay.requests) == 1


def test_other_errors_are_not_retried(replay: ReplayServer) -> None:
    replay.add("/search", Reply(status=500, body="<html>Internal Server Error</html>"))
    fake = FakeTime()
    backend = throttled(SearxngSearch(replay.url), fake)
    with pytest.raises(SearchError, match="HTTP 500"):
        backend.search("anything")
    assert len(replay.requests) == 1


def test_throttled_keeps_the_name_and_plain_backends_work() -> None:
    fake = FakeTime()
    inner = StaticSearch(default=[hit("https://example.org/a", "A", "text")])
    backend = throttled(inner, fake)
    assert backend.name == "static"
    assert [h.url for h in backend.search("q")] == ["https://example.org/a"]


def test_rate_limited_error_is_a_search_error() -> None:
    error = RateLimitedError("slow down", retry_after=3.0)
    assert isinstance(error, SearchError) and error.retry_after == 3.0


class _Parked(SearchBackend):
    """Searches that stay in flight until the test lets them go (``release``); counted."""

    name = "parked"

    def __init__(self) -> None:
        self.state = threading.Condition()
        self.release = threading.Semaphore(0)
        self.entered = self.inside = self.most = 0

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        with self.state:
            self.entered, self.inside = self.entered + 1, self.inside + 1
            self.most = max(self.most, self.inside)
            self.state.notify_all()
        self.release.acquire(timeout=30)
        with self.state:
            self.inside -= 1
        return []

    def in_flight_once(self, entered: int) -> int:
        """How many are in flight once ``entered`` searches have begun."""
        with self.state:
            assert self.state.wait_for(lambda: self.entered >= entered, timeout=30)
            return self.inside


def _start(backend: SearchBackend, count: int) -> list[threading.Thread]:
    threads = [threading.Thread(target=backend.search, args=(f"q{i}",)) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads


def test_max_parallel_lets_one_call_in_at_a_time() -> None:
    parked = _Parked()
    threads = _start(Throttled(parked, max_parallel=1), 4)
    try:
        assert parked.in_flight_once(1) == 1
        parked.release.release()
        assert parked.in_flight_once(2) == 1, "the second began only when the first ended"
    finally:
        parked.release.release(4)
        for thread in threads:
            thread.join()
    assert parked.most == 1


def test_without_max_parallel_calls_overlap() -> None:
    parked = _Parked()
    threads = _start(Throttled(parked), 4)
    try:
        assert parked.in_flight_once(4) == 4
    finally:
        parked.release.release(4)
        for thread in threads:
            thread.join()
