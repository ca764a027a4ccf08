"""A local HTTP server that replays recorded engine answers (fixture files), and a network probe."""

from __future__ import annotations

import json
import socket
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "search"


def fixture_text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def fixture_json(name: str) -> Any:
    return json.loads(fixture_text(name))


@dataclass
class Reply:
    status: int = 200
    body: str = "{}"
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json; charset=utf-8"


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class ReplayServer:
    """Answers each path from a queue of replies (the last one repeats); records every request."""

    def __init__(self) -> None:
        self.replies: dict[str, list[Reply]] = {}
        self.requests: list[Seen] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, path: str, *replies: Reply) -> None:
        self.replies.setdefault(path, []).extend(replies)

    def add_fixture(
        self, path: str, name: str, *, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        self.add(path, Reply(status=status, body=fixture_text(name), headers=headers or {}))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next(self, path: str) -> Reply:
        queue = self.replies.get(path)
        if not queue:
            return Reply(status=404, body='{"error": "no recorded reply for this path"}')
        return queue.pop(0) if len(queue) > 1 else queue[0]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self._answer()

            def do_POST(self) -> None:
                self._answer()

            def _answer(self) -> None:
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                server.requests.append(Seen(self.command, parts.path, parse_qs(parts.query), headers, body))
                reply = server._next(parts.path)
                data = reply.body.encode("utf-8")
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        return Handler


def reachable(host: str, port: int = 443, timeout: float = 2.0) -> bool:
    """True when ``host`` resolves and a TCP connection to it opens within ``timeout`` seconds.

    Resolving the engine's own host matters: sandboxes may accept any TCP connect to an IP
    address while having no DNS and no route out.
    """
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False
