"""The MCP server through the SDK's own client: over stdio (``deepresearch mcp`` as a subprocess,
against an OpenAI-compatible server on loopback) and over streamable HTTP (the real app on
127.0.0.1 with the scripted model), both over the local index."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("mcp", reason="pip install 'deepresearch-offline[mcp]'")

import httpx2
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent, TextResourceContents

from deepresearch.index.store import DocumentIndex
from deepresearch.llm.base import Completion, ModelCall
from deepresearch.llm.testing import ScriptedModel
from deepresearch.llm.wrapper import ModelWrapper
from deepresearch.search.local import LocalSearch
from deepresearch.server import ServerOptions, create_app
from deepresearch.settings import Settings
from mcp import Client

from ..conftest import PASSAGES, QUESTION
from ..fakeopenai import FakeOpenAI, research_responder, serve
from ..server.helpers import LiveServer

TOOLS = {"research", "start_research", "research_status", "get_report", "search_notes", "ask_followup"}
TOKEN = "mcp-test-token-0123456789"


class HeldModel(ModelWrapper):
    """The scripted model, each call held until ``release`` is set (at most 60 s): runs stay in
    flight for as long as a test needs, however slowly the machine runs."""

    def __init__(self) -> None:
        super().__init__(ScriptedModel())
        self.release = threading.Event()

    def on_complete(self, call: ModelCall) -> Completion:
        self.release.wait(60)
        return super().on_complete(call)


def run(main: Callable[[], Awaitable[None]]) -> None:
    anyio.run(main)


async def research_with_progress(
    client: Client, heard: Callable[[str], None] = lambda _: None
) -> tuple[dict[str, Any], list[tuple[float, str]]]:
    """The answer of a ``research`` call and its progress; ``heard`` gets each message as it comes."""
    seen: list[tuple[float, str]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        assert total == 1.0, "progress comes with its total"
        seen.append((progress, message or ""))
        heard(message or "")

    result = await client.call_tool(
        "research", {"question": QUESTION, "max_rounds": 1}, progress_callback=on_progress
    )
    assert not result.is_error, result.content
    return dict(result.structured_content), seen


def check_answer(answer: dict[str, Any], seen: list[tuple[float, str]]) -> None:
    assert "1410" in answer["report_markdown"] and answer["rounds"] == 1
    first = answer["sources"][0]
    assert first["number"] == 1 and "1410" in first["passage"] and first["url"].startswith("doc://")
    assert seen, "no progress notification arrived"
    values = [value for value, _ in seen]
    assert values == sorted(values) and 0 < values[-1] <= 1.0
    assert all(message for _, message in seen)
    assert any("task" in message for _, message in seen) and any("plan" in m.lower() for _, m in seen)


@pytest.fixture
def index_path(tmp_path: Path) -> Path:
    path = tmp_path / "index.sqlite"
    with DocumentIndex(path) as store:
        store.add_documents(PASSAGES)
    return path


@pytest.fixture
def http_server(tmp_path: Path, index_path: Path) -> Iterator[LiveServer]:
    settings = Settings.load({"deepresearch_home": tmp_path / "home", "api_token": TOKEN})
    index = DocumentIndex(index_path)
    app = create_app(
        settings,
        model=ScriptedModel(),
        search=LocalSearch(index),
        options=ServerOptions(heartbeat_seconds=0.2),
    )
    with LiveServer(app) as server:
        yield server
    index.close()


@asynccontextmanager
async def http_client(server: LiveServer) -> AsyncIterator[Client]:
    """An MCP client of ``server`` over streamable HTTP; its HTTP client (which the transport does
    not close, as it did not make it) is closed with it."""
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client,
    ):
        yield client


def test_over_http_tools_progress_jobs_and_report_resources(http_server: LiveServer) -> None:
    async def main() -> None:
        async with http_client(http_server) as client:
            assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
            check_answer(*await research_with_progress(client))
            started = await client.call_tool("start_research", {"question": QUESTION, "max_rounds": 1})
            job_id = started.structured_content["job_id"]
            state = await wait_completed(client, job_id)
            assert state["report_uri"] == f"deepresearch://reports/{job_id}"
            report = await client.call_tool("get_report", {"job_id": job_id})
            assert text_of(report.content).startswith(f"# {QUESTION}")
            listed = {str(r.uri) for r in (await client.list_resources()).resources}
            assert state["report_uri"] in listed
            read = await client.read_resource(state["report_uri"])
            assert text_of(read.contents) == text_of(report.content)
            missing = await client.call_tool("research_status", {"job_id": "nope"})
            assert missing.is_error and "no job 'nope'" in text_of(missing.content)

    run(main)


def text_of(content: Sequence[object]) -> str:
    """The text of a tool result's or a resource's first (text) part."""
    first = content[0]
    assert isinstance(first, TextContent | TextResourceContents), first
    return first.text


async def wait_completed(client: Client, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        state = dict((await client.call_tool("research_status", {"job_id": job_id})).structured_content)
        if state["status"] in ("completed", "failed"):
            assert state["status"] == "completed", state
            return state
        await anyio.sleep(0.1)
    raise AssertionError("the job did not finish")


def test_http_mcp_needs_the_token(http_server: LiveServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    denied = httpx.post(http_server.url + "/mcp", json=body, timeout=10)
    assert denied.status_code == 401 and "API_TOKEN" in denied.json()["detail"]


def test_a_request_cannot_raise_the_servers_limits(http_server: LiveServer) -> None:
    async def main() -> None:
        async with http_client(http_server) as client:
            result = await client.call_tool("research", {"question": QUESTION, "max_rounds": 9})
            assert result.is_error and "MAX_WEB_RESEARCH_LOOPS" in text_of(result.content)

    run(main)


def test_over_stdio_with_the_command(tmp_path: Path, index_path: Path) -> None:
    with serve(FakeOpenAI(responder=research_responder())) as url:
        env = {
            **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")},
            "PYTHONPATH": os.pathsep.join(sys.path),
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index_path),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": url,
            "LLM_MODEL_ID": "fake-model",
        }
        command = StdioServerParameters(
            command=sys.executable, args=["-m", "deepresearch.cli.main", "mcp"], env=env, cwd=str(tmp_path)
        )

        async def main() -> None:
            async with Client(command) as client:
                assert {tool.name for tool in (await client.list_tools()).tools} == TOOLS
                check_answer(*await research_with_progress(client))
                notes = await client.call_tool("search_notes", {"query": "astronomical clock"})
                assert not notes.is_error and notes.structured_content["result"], "the run kept notes"

        run(main)


def test_mcp_and_http_runs_take_their_slots_from_one_gate(tmp_path: Path, index_path: Path) -> None:
    """With one run at a time and one waiting, six MCP ``research`` calls at once: two run, four are
    refused with the code and retry advice; an HTTP run asked meanwhile gets 429 from the same count
    (before, MCP ran every call at once whatever the limits)."""
    limits = {"max_concurrent_jobs": 1, "max_queued_jobs": 1}
    settings = Settings.load({"deepresearch_home": tmp_path / "home", "api_token": TOKEN, **limits})
    index = DocumentIndex(index_path)
    model = HeldModel()
    app = create_app(settings, model=model, search=LocalSearch(index))
    outcomes: list[str] = []
    http_status: list[int] = []
    four_refused = anyio.Event()

    async def one(client: Client) -> None:
        result = await client.call_tool("research", {"question": QUESTION, "max_rounds": 1})
        outcomes.append(text_of(result.content) if result.is_error else "ok")
        if sum(o != "ok" for o in outcomes) == 4:
            four_refused.set()

    async def over_http(url: str) -> None:
        try:
            with anyio.fail_after(60):
                await four_refused.wait()
            async with httpx.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http:
                response = await http.post(url + "/research", json={"topic": QUESTION})
                http_status.append(response.status_code)
        finally:
            model.release.set()

    async def main(server: LiveServer) -> None:
        async with http_client(server) as client, anyio.create_task_group() as group:
            for _ in range(6):
                group.start_soon(one, client)
            group.start_soon(over_http, server.url)

    with LiveServer(app) as server:
        run(lambda: main(server))
    index.close()

    refused = [o for o in outcomes if o != "ok"]
    assert outcomes.count("ok") == 2, outcomes
    assert len(refused) == 4 and all("[queue_full]" in o and "try again in 30 s" in o for o in refused)
    assert http_status == [429]


def test_a_long_step_still_reports_progress(
    tmp_path: Path, index_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from deepresearch.server.mcp import server as mcp_server

    monkeypatch.setattr(mcp_server._ProgressRelay, "KEEP_ALIVE_SECONDS", 0.2)
    # the held plan call is the long step (MODEL_PLANS: the scripted model plans)
    settings = Settings.load(
        {"deepresearch_home": tmp_path / "home", "api_token": TOKEN, "model_plans": True}
    )
    index = DocumentIndex(index_path)
    model = HeldModel()
    app = create_app(settings, model=model, search=LocalSearch(index))

    def heard(message: str) -> None:
        if "still working" in message:
            model.release.set()

    async def main(server: LiveServer) -> list[tuple[float, str]]:
        async with http_client(server) as client:
            return (await research_with_progress(client, heard))[1]

    with LiveServer(app) as server:
        seen: list[tuple[float, str]] = []
        run(lambda: _collect(main(server), seen))
    index.close()

    assert any("still working" in message for _, message in seen), seen


async def _collect(messages: Awaitable[list[tuple[float, str]]], into: list[tuple[float, str]]) -> None:
    into.extend(await messages)
