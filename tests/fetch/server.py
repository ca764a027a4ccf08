"""A real HTTP server on 127.0.0.1 (stdlib, one thread per request) serving fixture routes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Body = bytes | Callable[["Handler"], None]


@dataclass
class Route:
    body: Body = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)


class FixtureServer:
    """Serves ``routes`` (path → :class:`Route`); counts requests per path and tracks how many
    requests of each path are in flight at once (:meth:`wait_overlap` waits for a number of them).
    ``stop`` releases handlers that wait on it."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.hits: dict[str, int] = {}
        self.in_flight: dict[str, int] = {}
        self.max_in_flight: dict[str, int] = {}
        self.bytes_sent: dict[str, int] = {}
        self.stop = threading.Event()
        self._changed = threading.Condition()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> FixtureServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()

    def enter(self, path: str) -> None:
        with self._changed:
            self.hits[path] = self.hits.get(path, 0) + 1
            self.in_flight[path] = self.in_flight.get(path, 0) + 1
            self.max_in_flight[path] = max(self.max_in_flight.get(path, 0), self.in_flight[path])
            self._changed.notify_all()

    def wait_overlap(self, path: str, count: int, timeout: float = 30.0) -> bool:
        """Whether ``count`` requests of ``path`` were in flight at once, waiting up to ``timeout``
        for it: a handler that waits here holds its request open until that many have come,
        however slowly the client's threads run."""
        with self._changed:
            return self._changed.wait_for(lambda: self.max_in_flight.get(path, 0) >= count, timeout)

    def leave(self, path: str) -> None:
        with self._changed:
            self.in_flight[path] -= 1

    def sent(self, path: str, size: int) -> None:
        with self._changed:
            self.bytes_sent[path] = self.bytes_sent.get(path, 0) + size


class Handler(BaseHTTPRequestHandler):
    server_state: FixtureServer
    protocol_version = "HTTP/1.0"

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        state = self.server_state
        state.enter(path)
        try:
            route = state.routes.get(path, Route(b"not found", 404, {"Content-Type": "text/plain"}))
            self.send_response(route.status)
            for name, value in route.headers.items():
                self.send_header(name, value)
            if isinstance(route.body, bytes):
                self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)
            else:
                self.end_headers()
                route.body(self)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            state.leave(path)

    def write_chunks(self, chunks: Iterator[bytes], pause: float = 0.0) -> None:
        """Write ``chunks`` until they end, the client hangs up or the server stops."""
        for chunk in chunks:
            if self.server_state.stop.is_set():
                return
            self.wfile.write(chunk)
            self.wfile.flush()
            self.server_state.sent(self.path, len(chunk))
            if pause:
                time.sleep(pause)

    def log_message(self, format: str, *args: object) -> None:
        return


def _handler_for(state: FixtureServer) -> type[Handler]:
    return type("BoundHandler", (Handler,), {"server_state": state})
