"""Whole research runs through ``LLM_PROVIDER=custom`` against a fault-injecting server.

Every fault ends in a completed run with the fallback recorded, or in a clear ``error`` event:
never a hang (each run has a deadline), never a traceback.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepresearch import research_stream
from deepresearch.events import Event
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import distinct_plan
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from ..conftest import PASSAGES, QUESTION
from ..fakeopenai import FakeOpenAI, Reply, research_responder, serve, step_of
from ..test_cli import run_cli

DEADLINE = 60.0
STRUCTURED = ("plan", "judge", "report")
OPENING = json.dumps({"role": "historian", "focus": "dates", "tasks": distinct_plan(QUESTION)})
"""Role and plan in one answer, as the opening call asks."""
ROLE_IN_PROSE = f"Sure! Here is my choice:\n{OPENING}\nHope this helps."
SECRET = "sk-fault-test-0123456789abcdefXYZ"


@pytest.fixture
def fake() -> FakeOpenAI:
    return FakeOpenAI(responder=research_responder())


@pytest.fixture
def base_url(fake: FakeOpenAI) -> Iterator[str]:
    with serve(fake) as url:
        yield url


def _settings(tmp_path: Path, base_url: str, **extra: Any) -> Settings:
    options: dict[str, Any] = {
        "deepresearch_home": tmp_path / "home",
        "llm_provider": "custom",
        "llm_base_url": base_url,
        "llm_model_id": "fake-model",
        "llm_timeout": 1.5,
        "llm_max_retries": 1,
        "max_web_research_loops": 1,
    }
    return Settings.load({**options, **extra})


def _run(settings: Settings, search: LocalSearch) -> list[Event]:
    events: list[Event] = []

    def drain() -> None:
        events.extend(research_stream(QUESTION, settings=settings, search=search))

    worker = threading.Thread(target=drain, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    assert not worker.is_alive(), f"the run did not end within {DEADLINE}s"
    assert events, "the run produced no event"
    assert all("Traceback" not in json.dumps(e.as_dict()) for e in events)
    return events


def _done(events: list[Event]) -> dict[str, Any]:
    last = events[-1]
    assert last.type == "done", last.data
    result: dict[str, Any] = last.as_dict()["data"]["result"]
    assert not (Path(result["run_dir"]) / "error.txt").exists()
    return result


def _fallback_steps(result: dict[str, Any]) -> set[str]:
    return {f.split(":", 1)[0] for f in result["fallbacks"]}


def test_a_well_behaved_server_needs_no_fallback(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["fallbacks"] == []
    steps = [step_of(body) for body in fake.requests]
    assert {"plan", "summarize", "judge", "report"} <= set(steps) and "role" not in steps
    assert result["usage"]["calls"] == len(fake.requests)
    assert result["usage"]["prompt_tokens"] > 0


def test_invalid_json_everywhere_falls_back_and_says_so(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    truncated = Reply('{"role": "historian", "focus": ')
    fake.responder = research_responder(
        {**{s: Reply("not JSON, sorry") for s in STRUCTURED}, "plan": truncated}
    )

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["role"]["type"] == "historian"
    assert _fallback_steps(result) == {"plan", "judge", "report"}
    assert result["todo_items"][0]["is_fallback"]
    plan_calls = [body for body in fake.requests if step_of(body) == "plan"]
    assert len(plan_calls) == 2
    assert "not valid" in plan_calls[1]["messages"][-1]["content"]


def test_json_inside_prose_is_extracted(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.responder = research_responder({"plan": Reply(ROLE_IN_PROSE)})

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["role"]["type"] == "historian"
    assert result["fallbacks"] == []


def test_think_blocks_never_reach_events_notes_or_the_report(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    think = '<think>SECRET-REASONING {"role": "none"}</think>'
    split = [
        "<th",
        "ink>SECRET-REASONING</th",
        "ink>Karel Purkyně was a Czech",
        " painter who died in 1868 [1].",
        "[TOOL_",
        "CALL: x]",
    ]
    fake.responder = research_responder(
        {
            "plan": Reply(f"{think}\n{OPENING}"),
            "summarize": Reply(chunks=split),
        }
    )

    events = _run(_settings(tmp_path, base_url), local_search)
    result = _done(events)

    assert result["role"]["type"] == "historian"
    everything = json.dumps([e.as_dict() for e in events]) + result["report_markdown"]
    notes = " ".join(p.read_text(encoding="utf-8") for p in (tmp_path / "home").rglob("*.md"))
    for leaked in ("SECRET-REASONING", "think>", "TOOL_CALL", "[TOOL_"):
        assert leaked not in everything and leaked not in notes
    chunks = [e.data["content"] for e in events if e.type == "task_summary_chunk"]
    assert "Karel Purkyně was a Czech painter who died in 1868 [1]." in "".join(chunks)


def test_empty_content_falls_back(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.responder = lambda body: Reply("", chunks=[])

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert {"role", "plan", "judge", "report"} <= _fallback_steps(result)
    assert any("summary failed" in f for f in result["fallbacks"])
    assert all(t["summary"] for t in result["todo_items"] if t["status"] == "completed")


def test_a_500_then_success_is_retried(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.script = [Reply(status=500, error="upstream crashed")]

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["fallbacks"] == []
    assert step_of(fake.requests[0]) == step_of(fake.requests[1]) == "plan"


def test_a_429_waits_as_long_as_retry_after_says(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.script = [Reply(status=429, error="slow down", headers={"Retry-After": "1"})]

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["fallbacks"] == []
    assert fake.times[1] - fake.times[0] >= 0.95


def test_a_call_that_hangs_past_the_timeout_falls_back(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.responder = research_responder({"plan": Reply(delay=4.0)})

    result = _done(_run(_settings(tmp_path, base_url, llm_timeout=1.0), local_search))

    role_notes = [f for f in result["fallbacks"] if f.startswith("role:")]
    assert role_notes and "did not answer within 1s" in role_notes[0]
    assert [step_of(b) for b in fake.requests].count("plan") == 1


def test_a_rejected_response_format_falls_back_to_plain_json(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.rejects = lambda body: "response_format" in body

    result = _done(_run(_settings(tmp_path, base_url), local_search))

    assert result["fallbacks"] == []
    formats = [b.get("response_format", {}).get("type") for b in fake.requests if step_of(b) != "summarize"]
    assert formats[:4] == ["json_schema", "json_object", "json_object", None]
    assert set(formats[4:]) == {None}


def test_tool_calling_answers_through_the_tool(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.responder = research_responder({"plan": Reply("", tool_arguments=OPENING)})

    result = _done(_run(_settings(tmp_path, base_url, use_tool_calling=True), local_search))

    assert result["role"]["type"] == "historian"
    first = fake.requests[0]
    assert first["tools"][0]["function"]["parameters"]["required"] == ["role", "focus", "tasks"]
    assert first["tool_choice"]["function"]["name"] == "submit_plan"
    assert "response_format" not in first


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_no_server_is_a_clear_error(tmp_path: Path, local_search: LocalSearch) -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    settings = _settings(tmp_path, url, llm_api_key=SECRET, llm_max_retries=0)

    events = _run(settings, local_search)

    assert events[-1].type == "error"
    message = events[-1].data["message"]
    assert "Cannot reach the model server" in message and url in message
    assert SECRET not in json.dumps([e.as_dict() for e in events])


def test_a_wrong_key_is_a_clear_error_with_the_key_masked(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    fake.api_key = "the-right-key"

    events = _run(_settings(tmp_path, base_url, llm_api_key=SECRET), local_search)

    assert events[-1].type == "error"
    assert "LLM_API_KEY" in events[-1].data["message"]
    assert SECRET not in json.dumps([e.as_dict() for e in events])


def test_a_cached_rerun_costs_nothing(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, local_search: LocalSearch
) -> None:
    settings = _settings(tmp_path, base_url, llm_cache="readwrite")
    first = _done(_run(settings, local_search))
    sent = len(fake.requests)

    again = _done(_run(settings, local_search))

    assert len(fake.requests) == sent
    assert (
        again["report_markdown"].split("## References")[0]
        == first["report_markdown"].split("## References")[0]
    )
    assert again["usage"]["cached"] == sum(1 for c in again["usage"]["per_call"] if not c["streamed"])
    assert again["usage"]["prompt_tokens"] < first["usage"]["prompt_tokens"]


def test_a_model_failing_every_call_still_reports_and_says_so_in_limits(tmp_path: Path) -> None:
    """A server answering 500 to every call: the run still ends (exit 0, code stood in at every
    step), and the report's Limits box says which steps the model failed at, so a report that
    reads normally is not taken for the model's judgement."""
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    failing = FakeOpenAI(responder=lambda body: Reply(status=500, error="overloaded"))
    with serve(failing) as url:
        done = run_cli(
            "research",
            "-q",
            QUESTION,
            home=tmp_path / "home",
            INDEX_PATH=str(index),
            LLM_PROVIDER="custom",
            LLM_BASE_URL=url,
            LLM_MODEL_ID="fake-model",
            LLM_MAX_RETRIES="0",
            MAX_WEB_RESEARCH_LOOPS="1",
        )

    assert done.returncode == 0, done.stderr
    limits = done.stdout.split("**Limits of this report:**", 1)[1].split("## ", 1)[0]
    assert "The model failed at" in limits
    for step in ("plan", "judge", "report", "task 1"):
        assert step in limits, limits
