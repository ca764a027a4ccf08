"""Redis pub/sub for the Celery backend: live events to every API node, cancels to every worker.

PostgreSQL holds every event with its sequence number; Redis only rings the bell. A stream reader
that misses a message (it subscribed late, Redis restarted) sees the gap in the sequence, or a
quiet spell, and reads the missing events from the database — so pub/sub's fire-and-forget
delivery loses nothing, and no second copy of the log has to be kept and trimmed (what Redis
Streams would add).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from deepresearch.jobs.rows import StoredEvent
from deepresearch.limits import redis_client

logger = logging.getLogger(__name__)

PREFIX = "deepresearch"
EVENTS = f"{PREFIX}:events:"
CANCEL = f"{PREFIX}:cancel"


class RedisOutage:
    """Logs an outage of Redis once when it starts and once when it ends, however many calls fail
    in between (a worker publishes several events a second; a line for each flooded the log)."""

    def __init__(self) -> None:
        self._down = False
        self._lock = threading.Lock()

    def failed(self, exc: BaseException) -> None:
        with self._lock:
            was_down, self._down = self._down, True
        if not was_down:
            logger.warning(
                "Redis is unreachable (%s); live events and cancels wait for it, the database keeps "
                "every event",
                exc,
            )

    def answered(self) -> None:
        with self._lock:
            was_down, self._down = self._down, False
        if was_down:
            logger.warning("Redis answers again; live events and cancels flow")


class RedisBus:
    """Publishes events and cancels; :meth:`listen` delivers messages to a handler on a thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = redis_client(url)
        self.outage = RedisOutage()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def publish_event(self, stored: StoredEvent) -> None:
        """Best effort: a reader fills any gap from the database."""
        message = {"job_id": stored.job_id, "seq": stored.seq, "type": stored.type, "time": stored.time}
        self._publish(
            EVENTS + stored.job_id, json.dumps({**message, "body": stored.body}, ensure_ascii=False)
        )

    def publish_cancel(self, job_id: str) -> None:
        self._publish(CANCEL, job_id)

    def _publish(self, channel: str, data: str) -> None:
        import redis

        try:
            self.client.publish(channel, data)
        except redis.RedisError as exc:
            self.outage.failed(exc)
        else:
            self.outage.answered()

    def listen_events(self, handler: Callable[[StoredEvent], None]) -> None:
        """Every job's events, as published, to ``handler`` (on a background thread)."""

        def deliver(data: str) -> None:
            message = json.loads(data)
            body = message["body"]
            handler(StoredEvent(message["job_id"], message["seq"], message["type"], body, message["time"]))

        self._listen(EVENTS + "*", deliver)

    def listen_cancels(self, handler: Callable[[str], object]) -> None:
        self._listen(CANCEL, handler)

    def _listen(self, pattern: str, handler: Callable[[str], object]) -> None:
        ready = threading.Event()
        thread = threading.Thread(
            target=self._loop, args=(pattern, handler, ready), name=f"redis-{pattern}", daemon=True
        )
        thread.start()
        ready.wait(10)
        self._threads.append(thread)

    def _loop(self, pattern: str, handler: Callable[[str], object], ready: threading.Event) -> None:
        import redis

        while not self._stop.is_set():
            try:
                self._receive(pattern, handler, ready)
            except redis.RedisError as exc:
                self.outage.failed(exc)
                self._stop.wait(1.0)

    def _receive(self, pattern: str, handler: Callable[[str], object], ready: threading.Event) -> None:
        pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.psubscribe(pattern)
            pubsub.get_message(timeout=1.0)
            self.outage.answered()
            ready.set()
            while not self._stop.is_set():
                message = pubsub.get_message(timeout=0.5)
                if message is not None and message["type"] in ("message", "pmessage"):
                    _safely(handler, message["data"])
        finally:
            pubsub.close()

    def ping(self) -> None:
        """Raises when Redis does not answer."""
        self.client.ping()

    def close(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(5)
        self.client.close()


def _safely(handler: Callable[[str], object], data: Any) -> None:
    text = data.decode() if isinstance(data, bytes) else str(data)
    try:
        handler(text)
    except Exception:  # one bad message must not end the subscription
        logger.exception("could not handle the Redis message %.200s", text)
