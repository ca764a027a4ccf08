"""What the HTTP routes, the MCP tools and the job workers share: the server's settings, the
injected parts, request validation and the masking of secrets."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from deepresearch.errors import ConfigurationError, InvalidQuestionError, QueueFullError
from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.search.registry import check_search_settings
from deepresearch.settings import SECRET_FIELDS, Settings, mask_secret, request_settings

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""Control characters a topic cannot usefully hold (a NUL is refused by PostgreSQL): read as spaces."""


class Redactor:
    """Replaces every configured secret value (API keys, the API token) with its masked form.

    Applied to everything the service sends or stores from a run, so a secret echoed in an
    upstream error message never reaches a client or the jobs database.
    """

    def __init__(self, settings: Settings) -> None:
        raw = (getattr(settings, name) for name in SECRET_FIELDS)
        values = {s.get_secret_value() for s in raw if s is not None}
        self._pairs = sorted(((v, mask_secret(v) or "***") for v in values if v), key=lambda p: -len(p[0]))

    def text(self, value: str) -> str:
        for secret, masked in self._pairs:
            value = value.replace(secret, masked)
        return value

    def data(self, value: Any) -> Any:
        """``value`` (JSON-like) with secrets masked in every string, keys included."""
        if not self._pairs:
            return value
        return json.loads(self.text(json.dumps(value, ensure_ascii=False)))


@dataclass(frozen=True)
class ServerOptions:
    """Service tunables that are not research settings.

    ``heartbeat_seconds``: interval of the SSE ``: ping`` comments. ``retention_interval_seconds``:
    how often expired run folders are deleted (``RESEARCH_RUN_RETENTION_DAYS``).
    ``max_direct_runs``: concurrent ``/research`` runs (default: ``MAX_CONCURRENT_JOBS``); more wait.
    ``max_job_attempts``: a job interrupted this many times (server killed mid-run) is failed.
    ``storage_retry_seconds``: how often the ending of a job that a full disk kept from being
    written is tried again.
    """

    heartbeat_seconds: float = 15.0
    retention_interval_seconds: float = 3600.0
    max_direct_runs: int | None = None
    max_job_attempts: int = 3
    storage_retry_seconds: float = 2.0


class RunGate:
    """The one admission gate for direct runs, whatever the door: ``POST /research``, the SSE
    streams and MCP's ``research`` tool (over stdio or ``/mcp``). ``running`` runs at once, as many
    more wait; the next is refused with :class:`QueueFullError` (HTTP 429, an MCP error with
    ``queue_full``), whichever door it came through."""

    def __init__(self, running: int, waiting: int) -> None:
        self.slots = threading.Semaphore(running)
        self.limit = running + waiting
        self.count = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        """Count one more run; :class:`QueueFullError` when ``limit`` are in flight."""
        with self._lock:
            if self.count >= self.limit:
                raise QueueFullError(
                    f"{self.limit} direct runs are running or waiting (MAX_CONCURRENT_JOBS + "
                    f"MAX_QUEUED_JOBS); try again in {QueueFullError.retry_after} s"
                )
            self.count += 1

    def leave(self) -> None:
        with self._lock:
            self.count -= 1

    @contextmanager
    def admitted(self) -> Iterator[None]:
        """Admitted (or :class:`QueueFullError`), then holding a run slot, for a blocking run."""
        self.enter()
        try:
            with self.slots:
                yield
        finally:
            self.leave()


@dataclass
class Service:
    """What the HTTP app, the MCP server and a worker run jobs with: the settings, the parts passed
    in (None: built from the settings per run), the options, and the :class:`Redactor` of the
    settings' secrets. The settings' search backend names are checked against the registry when
    the service is built, so a misspelt one stops the server at start, not each job."""

    settings: Settings
    model: ChatModel | None = None
    search: SearchBackend | None = None
    options: ServerOptions = field(default_factory=ServerOptions)
    redactor: Redactor = field(init=False)
    gate: RunGate = field(init=False)

    def __post_init__(self) -> None:
        check_search_settings(self.settings)
        self.redactor = Redactor(self.settings)
        running = self.options.max_direct_runs or self.settings.max_concurrent_jobs
        self.gate = RunGate(running, self.settings.max_queued_jobs)

    def resolve(self, overrides: Mapping[str, Any]) -> Settings:
        """The server's settings with a request's ``overrides``; :class:`ConfigurationError` for
        an unknown, server-only, invalid or over-the-limit one (see ``REQUEST_SETTINGS``)."""
        try:
            return request_settings(self.settings, overrides)
        except ConfigurationError as exc:
            raise ConfigurationError(self.redactor.text(str(exc))) from None

    def check_topic(self, topic: str, settings: Settings) -> str:
        """The topic with whitespace collapsed; :class:`InvalidQuestionError` when empty or, as
        sent, longer than MAX_QUESTION_CHARS (the limit the OpenAPI schema states as maxLength)."""
        cleaned = " ".join(_CONTROL.sub(" ", topic).split())
        if not cleaned:
            raise InvalidQuestionError("the topic is empty")
        if len(topic) > settings.max_question_chars:
            raise InvalidQuestionError(
                f"the topic is {len(topic)} characters; the limit is {settings.max_question_chars} "
                "(MAX_QUESTION_CHARS)"
            )
        return cleaned
