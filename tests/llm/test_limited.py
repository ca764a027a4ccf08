"""LLM_MAX_CONCURRENCY: parallel research branches never have more model calls in flight."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from deepresearch.limits import call_slots
from deepresearch.llm.base import Message
from deepresearch.llm.limited import LimitedModel
from deepresearch.llm.testing import FunctionModel

WAIT = 30.0


def test_calls_beyond_the_limit_wait_for_a_free_slot() -> None:
    """Each call stays in the model until the test lets one go, so the calls that wait for a slot
    are seen waiting however slowly the threads run."""
    state = threading.Condition()
    release = threading.Semaphore(0)
    entered, inside, most = 0, 0, 0

    def answer(_: object) -> str:
        nonlocal entered, inside, most
        with state:
            entered, inside = entered + 1, inside + 1
            most = max(most, inside)
            state.notify_all()
        release.acquire(timeout=WAIT)
        with state:
            inside -= 1
        return "ok"

    def wait_entered(count: int) -> int:
        with state:
            assert state.wait_for(lambda: entered >= count, timeout=WAIT)
            return inside

    model = LimitedModel(FunctionModel(answer), call_slots("test-llm", 2, None, hold_seconds=60))
    with ThreadPoolExecutor(4) as pool:
        calls = [pool.submit(lambda: model.complete([Message("user", "hi")]).text) for _ in range(4)]
        try:
            assert wait_entered(2) == 2
            release.release()
            assert wait_entered(3) == 2, "the third call got in only when the first left"
        finally:
            release.release(4)
        texts = [call.result(timeout=WAIT) for call in calls]
    assert texts == ["ok"] * 4
    assert most == 2
