"""What every route shares: the server's settings, the injected parts, request validation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from deepresearch.doctor import Check, run_checks
from deepresearch.errors import ConfigurationError, InvalidQuestionError
from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.server.security import Redactor
from deepresearch.settings import Settings, request_settings


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

    def readiness(self, settings: Settings | None = None) -> list[Check]:
        """The doctor's checks; a part injected into the app replaces the checks of its setting."""
        checks = run_checks(settings or self.settings, probe=False)
        if self.model is not None:
            name = getattr(self.model, "name", type(self.model).__name__)
            checks = [c for c in checks if c.name not in ("provider", "model")]
            checks.insert(0, Check("model", True, f"model supplied by the application ({name})"))
        if self.search is not None:
            name = getattr(self.search, "name", type(self.search).__name__)
            checks = [c for c in checks if c.name != "search"]
            checks.insert(1, Check("search", True, f"search backend supplied by the application ({name})"))
        return [Check(c.name, c.ok, self.redactor.text(c.detail), self.redactor.text(c.fix)) for c in checks]
