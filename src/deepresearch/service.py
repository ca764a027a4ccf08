"""What the HTTP routes, the MCP tools and the job workers share: the server's settings, the
injected parts, request validation and the masking of secrets."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deepresearch.errors import ConfigurationError, InvalidQuestionError
from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.settings import SECRET_FIELDS, Settings, mask_secret, request_settings


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
    """

    heartbeat_seconds: float = 15.0
    retention_interval_seconds: float = 3600.0
    max_direct_runs: int | None = None
    max_job_attempts: int = 3


@dataclass
class Service:
    settings: Settings
    model: ChatModel | None
    search: SearchBackend | None
    options: ServerOptions
    redactor: Redactor

    def resolve(self, overrides: Mapping[str, Any]) -> Settings:
        """The server's settings with a request's ``overrides``; :class:`ConfigurationError` for
        an unknown, server-only, invalid or over-the-limit one (see ``REQUEST_SETTINGS``)."""
        try:
            return request_settings(self.settings, overrides)
        except ConfigurationError as exc:
            raise ConfigurationError(self.redactor.text(str(exc))) from None

    def check_topic(self, topic: str, settings: Settings) -> str:
        """The topic with whitespace collapsed; :class:`InvalidQuestionError` when empty or
        longer than MAX_QUESTION_CHARS."""
        cleaned = " ".join(topic.split())
        if not cleaned:
            raise InvalidQuestionError("the topic is empty")
        if len(cleaned) > settings.max_question_chars:
            raise InvalidQuestionError(
                f"the topic is {len(cleaned)} characters; the limit is {settings.max_question_chars} "
                "(MAX_QUESTION_CHARS)"
            )
        return cleaned
