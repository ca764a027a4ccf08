"""Serving the real app on 127.0.0.1 with uvicorn, and reading Server-Sent Events with httpx."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch, hit

TOPIC = "When was the Prague astronomical clock built?"


def corpus_search(query: str) -> list[SearchHit]:
    """Two distinct hits per query, so every task gets sources."""
    slug = "-".join(query.lower().split())[:40]
    return [
        hit(f"https://example.org/{slug}/a", f"About {query}", f"{query} is described here. Built in 1410."),
        hit(
            f"https://example.org/{slug}/b", f"More on {query}", f"Another page on {query}. It is in Prague."
        ),
    ]


def static_search() -> StaticSearch:
    return StaticSearch(default=corpus_search)


class LiveServer:
    """``app`` served by uvicorn in a thread on a free port of 127.0.0.1; the clients it hands out
    are closed when it stops."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.clients: list[httpx.Client] = []

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        for client in self.clients:
            client.close()
        self.server.should_exit = True
        self.thread.join(20)

    @property
    def url(self) -> str:
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def client(self, **kwargs: Any) -> httpx.Client:
        """A client of this server, closed when the server stops (or earlier, by its ``with``)."""
        client = httpx.Client(base_url=self.url, **{"timeout": 30, **kwargs})
        self.clients.append(client)
        return client


@dataclass
class SseMessage:
    event: str | None = None
    id: str | None = None
    data_lines: list[str] = field(default_factory=list)
    comment: str | None = None

    @property
    def data(self) -> dict[str, Any]:
        return dict(json.loads("\n".join(self.data_lines)))


def iter_sse(response: httpx.Response) -> Iterator[SseMessage]:
    """Messages and comments, as an EventSource parser reads them (blank line ends a message)."""
    current = SseMessage()
    for line in response.iter_lines():
        if not line:
            if current.event or current.data_lines or current.id:
                yield current
            current = SseMessage()
        elif line.startswith(":"):
            yield SseMessage(comment=line[1:].strip())
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                current.event = value
            elif name == "id":
                current.id = value
            elif name == "data":
                current.data_lines.append(value)


def read_events(
    response: httpx.Response, *, until: Callable[[SseMessage], bool] | None = None
) -> list[SseMessage]:
    """Every event message (comments dropped) up to the final done/error, or until ``until``."""
    messages: list[SseMessage] = []
    for message in iter_sse(response):
        if message.comment is not None:
            continue
        messages.append(message)
        if message.event in ("done", "error") or (until and until(message)):
            break
    return messages


def wait_for(predicate: Callable[[], Any], timeout: float = 30.0, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s")


def wait_job(
    client: httpx.Client, job_id: str, statuses: tuple[str, ...], timeout: float = 60.0
) -> dict[str, Any]:
    def check() -> dict[str, Any] | None:
        body = client.get(f"/tasks/{job_id}").json()
        return body if body["status"] in statuses else None

    return dict(wait_for(check, timeout, 0.1))
