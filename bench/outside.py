"""The research CLI measured from outside, as a user runs it: ``deepresearch research --json`` in a
subprocess against an OpenAI-compatible server on 127.0.0.1 that answers every call after a fixed
delay (tests/fakeopenai.py, answering each step as a model that follows the prompts) and, for the
SearXNG run, a SearXNG-compatible server on 127.0.0.1 whose results (shaped like a recorded
SearXNG answer) point at pages it serves itself, so every hit is fetched and extracted.

Critical path: the model calls that depend on each other (a round's parallel summaries count once)
times the delay. Wall includes the process start, imports, search, reads and writing the run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.fakeopenai import FakeOpenAI, research_responder, serve, step_of  # noqa: E402

from deepresearch.index.loaders import demo_corpus_path  # noqa: E402
from deepresearch.index.store import DocumentIndex  # noqa: E402
from deepresearch.search.local import LocalSearch  # noqa: E402

QUESTIONS = (
    "When was the astronomical clock built in the city where Karel Purkyně died?",
    "If Gallu is a demon Lilu is what?",
    "Which genre of music is the band that released the album Vaxine associated with?",
)


@dataclass(frozen=True)
class Measured:
    search: str
    loops: int
    wall: float
    calls: int
    stages: int
    rounds: int
    first_call: float
    tail: float

    def line(self, delay: float) -> str:
        critical = self.stages * delay
        return (
            f"{self.search:8} loops {self.loops} (rounds {self.rounds}): wall {self.wall:5.2f}s, "
            f"model calls {self.calls:2}, critical path {self.stages} calls = {critical:.1f}s, "
            f"ratio {self.wall / critical:.3f}, first model call {self.first_call:.2f}s after start, "
            f"exit {self.tail:.2f}s after the last answer"
        )


def stages(steps: list[str]) -> int:
    """Sequential model-call stages: parallel summaries of one round count once."""
    return len(
        [s for i, s in enumerate(steps) if not (s == "summarize" and i and steps[i - 1] == "summarize")]
    )


PAGE_HOSTS = 10
"""Loopback addresses the pages are served from (127.0.0.1 to 127.0.0.10), one per result
position: a real result list spreads its hits over about as many sites, and the fetcher's
per-host limit (2 connections) applies to each."""


class _Corpus:
    """The demo corpus behind a SearXNG-compatible ``/search`` and the pages its hits point at."""

    def __init__(self, index: DocumentIndex) -> None:
        self.search = LocalSearch(index)
        self.pages: dict[str, tuple[str, str]] = {}
        self.lock = threading.Lock()

    def results(self, query: str, bases: list[str]) -> dict[str, Any]:
        hits = self.search.search(query, limit=10)
        results = []
        for position, hit in enumerate(hits, 1):
            key = str(abs(hash(hit.url)))
            with self.lock:
                self.pages[key] = (hit.title, hit.content or hit.snippet)
            results.append(
                {
                    "url": f"{bases[(position - 1) % len(bases)]}/page/{key}",
                    "title": hit.title,
                    "content": (hit.content or hit.snippet)[:200],
                    "engine": "startpage",
                    "engines": ["startpage"],
                    "positions": [position],
                    "score": 1.0 / position,
                    "category": "general",
                }
            )
        return {"query": query, "number_of_results": len(results), "results": results, "answers": []}

    def page(self, key: str) -> bytes | None:
        with self.lock:
            found = self.pages.get(key)
        if found is None:
            return None
        title, text = found
        paragraphs = "".join(f"<p>{escape(part)}</p>" for part in text.split("\n") if part.strip())
        return (
            f"<html><head><title>{escape(title)}</title></head><body><nav>Home · Search</nav>"
            f"<article><h1>{escape(title)}</h1>{paragraphs}</article><footer>bench</footer></body></html>"
        ).encode()


def _handler(corpus: _Corpus, bases: list[str]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:  # noqa: N802
            parts = urlsplit(self.path)
            if parts.path == "/search":
                query = parse_qs(parts.query).get("q", [""])[0]
                self._send(json.dumps(corpus.results(query, bases)).encode(), "application/json")
            elif parts.path.startswith("/page/") and (body := corpus.page(parts.path[6:])) is not None:
                self._send(body, "text/html; charset=utf-8")
            else:
                self._send(b"not found", "text/plain", 404)

        def _send(self, body: bytes, kind: str, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@contextmanager
def searxng(corpus: _Corpus) -> Iterator[str]:
    """A SearXNG-compatible server on 127.0.0.1 whose hits point at pages served from
    :data:`PAGE_HOSTS` loopback addresses; yields the search server's base URL."""
    bases: list[str] = []
    servers = [
        ThreadingHTTPServer((f"127.0.0.{n}", 0), _handler(corpus, bases)) for n in range(1, PAGE_HOSTS + 1)
    ]
    bases.extend(f"http://{host}:{port}" for host, port in (s.server_address[:2] for s in servers))
    for server in servers:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        yield bases[0]
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()


def _env(
    home: Path, model_url: str, search: str, extra: dict[str, str], pythonpath: str | None
) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env = {
        **keep,
        "DEEPRESEARCH_HOME": str(home),
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": model_url,
        "LLM_MODEL_ID": "fake-model",
        "LLM_API_KEY": "bench",
        "RELEVANCE_THRESHOLD": "100",
        "SEARCH_API": search,
        "FETCH_ALLOW_HOSTS": "127.0.0.0/8",
        "FETCH_CACHE": "false",
        "ENABLE_NOTES": "true",
        **extra,
    }
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def run_cli(
    fake: FakeOpenAI, env: dict[str, str], question: str, loops: int, cwd: Path, search: str, delay: float
) -> Measured:
    """One CLI run; the model server's record of it gives calls, stages and the first call."""
    before = len(fake.requests)
    command = [sys.executable, "-m", "deepresearch.cli.main", "research", question, "--json", "-q"]
    start = time.monotonic()
    done = subprocess.run(
        [*command, "--loops", str(loops)], env=env, cwd=cwd, capture_output=True, text=True, check=False
    )
    end = time.monotonic()
    wall = end - start
    if done.returncode != 0:
        raise SystemExit(f"the CLI failed ({done.returncode}): {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    steps = [step_of(body) for body in fake.requests[before:]]
    first = fake.times[before] - start
    return Measured(
        search=search,
        loops=loops,
        wall=wall,
        calls=len(steps),
        stages=stages(steps),
        rounds=int(result["rounds"]),
        first_call=first,
        tail=end - max(t + delay for t in fake.times[before:]),
    )


def measure(delay: float, loops: list[int], searches: list[str], repeat: int, pythonpath: str | None) -> None:
    """Print one line per run and a summary per (search, loops)."""
    work = Path(tempfile.mkdtemp(prefix="dr-outside-"))
    index = DocumentIndex(work / "demo.sqlite")
    index.index_paths([demo_corpus_path()])
    answer = research_responder()
    fake = FakeOpenAI(responder=lambda body: replace(answer(body), delay=delay))
    corpus = _Corpus(index)
    with serve(fake) as model_url, searxng(corpus) as search_url:
        for search in searches:
            extra = (
                {"INDEX_PATH": str(work / "demo.sqlite")}
                if search == "local"
                else {"SEARXNG_URL": search_url}
            )
            env = _env(work / f"home-{search}", model_url, search, extra, pythonpath)
            run_cli(fake, env, QUESTIONS[0], 1, work, search, delay)
            for count in loops:
                runs = [
                    run_cli(fake, env, question, count, work, search, delay)
                    for _ in range(repeat)
                    for question in QUESTIONS
                ]
                for run in runs:
                    print(run.line(delay), flush=True)
                ratios = [r.wall / (r.stages * delay) for r in runs]
                print(
                    f"  -> {search} loops {count}: median ratio {statistics.median(ratios):.3f} "
                    f"(min {min(ratios):.3f}, max {max(ratios):.3f}); critical path "
                    f"{sorted({r.stages for r in runs})} calls vs target 2 + 2 x rounds = "
                    f"{sorted({2 + 2 * r.rounds for r in runs})}",
                    flush=True,
                )
