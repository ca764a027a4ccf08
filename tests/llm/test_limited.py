"""LLM_MAX_CONCURRENCY: parallel research branches never have more model calls in flight."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from deepresearch.limits import call_slots
from deepresearch.llm.base import Message
from deepresearch.llm.limited import LimitedModel
from deepresearch.llm.testing import FunctionModel
from deepresearch.settings import Settings


def test_calls_beyond_the_limit_wait_for_a_free_slot() -> None:
    lock = threading.Lock()
    inside, most = 0, 0

    def answer(_: object) -> str:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        time.sleep(0.05)
        with lock:
            inside -= 1
        return "ok"

    settings = Settings.load({"llm_max_concurrency": 2})
    model = LimitedModel(FunctionModel(answer), call_slots("test-llm", 2, settings, hold_seconds=60))
    with ThreadPoolExecutor(6) as pool:
        texts = list(pool.map(lambda _: model.complete([Message("user", "hi")]).text, range(12)))
    assert texts == ["ok"] * 12
    assert most == 2
