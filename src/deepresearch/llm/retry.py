"""When and how long to wait before calling a model server again.

Retried: 429, 5xx (other than a rejected ``response_format``, which the caller handles), and
connection errors. Not retried: timeouts (a server that did not answer within ``LLM_TIMEOUT``
is usually still generating; asking again only queues behind it) and every other 4xx.
A ``Retry-After`` (or ``retry-after-ms``) header is honoured; one asking for longer than
:data:`MAX_RETRY_AFTER` seconds ends the call instead of stalling the run.
"""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass

MAX_RETRY_AFTER = 60.0
RETRY_STATUSES = frozenset({408, 409, 429})


@dataclass(frozen=True)
class RetryPolicy:
    """``retries`` extra attempts; exponential backoff from ``base_delay`` capped at ``max_delay``,
    with jitter (each delay is 50–100 % of its step)."""

    retries: int = 2
    base_delay: float = 0.5
    max_delay: float = 8.0

    def backoff(self, attempt: int) -> float:
        """The delay before retry number ``attempt + 1`` when the server named none."""
        step = min(self.max_delay, self.base_delay * 2.0**attempt)
        return step * (0.5 + random.random() / 2)

    def delay(self, attempt: int, headers: Mapping[str, str] | None) -> float:
        """The server's ``Retry-After`` when it sent one, else :meth:`backoff`."""
        asked = retry_after(headers) if headers is not None else None
        return asked if asked is not None else self.backoff(attempt)


def retryable_status(status: int) -> bool:
    return status in RETRY_STATUSES or status >= 500


def retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds the server asks to wait (``retry-after-ms``, ``retry-after`` as seconds or an HTTP
    date), or ``None`` when it asks nothing readable. Never negative."""
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return max(0.0, millis / 1000)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _number(value)
    if seconds is not None:
        return max(0.0, seconds)
    parsed = email.utils.parsedate_tz(value)
    if parsed is None:
        return None
    return max(0.0, email.utils.mktime_tz(parsed) - (time.time() if now is None else now))


def _number(value: str | None) -> float | None:
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        return None
