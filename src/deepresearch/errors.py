"""One exception hierarchy for deepresearch.

Third-party errors are mapped to these at the boundary where they happen; only the CLI and the
HTTP layer turn them into words for people. Every message says how to fix the problem.

Every class has a machine-readable :attr:`~DeepResearchError.code`. A run's ``error`` event
carries it, :func:`deepresearch.research` re-raises the matching class from it
(:func:`error_from_code`), and the HTTP service maps it to a status in one place.
"""

from __future__ import annotations

from typing import ClassVar


class DeepResearchError(Exception):
    """Base class of every error deepresearch raises on purpose.

    ``code`` names the kind for programs; ``run_id`` names the run it ended, when there was one.
    """

    code: ClassVar[str] = "internal"
    run_id: str | None = None


class ConfigurationError(DeepResearchError):
    """A setting is missing, unknown or invalid."""

    code = "configuration"


class InvalidQuestionError(DeepResearchError):
    """The question cannot be researched (empty, whitespace only, ...)."""

    code = "invalid_question"


class InvalidRequestError(DeepResearchError):
    """A request to the service is malformed (a body or parameter that does not validate)."""

    code = "invalid_request"


class ModelError(DeepResearchError):
    """A model call failed (server down, timeout, bad answer that no rung of the ladder saved)."""

    code = "model_error"


class ModelNotAvailableError(ModelError):
    """The configured model cannot be loaded or reached (missing file, missing extra, no server)."""

    code = "model_unavailable"


class ModelTimeoutError(ModelError):
    """A model call did not finish within its total deadline (``LLM_TIMEOUT``)."""

    code = "model_timeout"


class SearchError(DeepResearchError):
    """A search backend failed. The research loop records it as a notice; it never kills a run."""

    code = "search_error"


class IndexNotFoundError(SearchError):
    """The local document index does not exist yet."""

    code = "index_not_found"


class FetchError(SearchError):
    """A page or document could not be read: refused by policy, too large, wrong type, timed out."""

    code = "fetch_error"


class ResearchCancelledError(DeepResearchError):
    """The run was cancelled by its caller."""

    code = "cancelled"


class NotFoundError(DeepResearchError):
    """The thing asked for (a note, a job) does not exist."""

    code = "not_found"


class NoteNotFoundError(NotFoundError):
    """No note with the requested id exists in the notes workspace."""

    code = "note_not_found"


class JobNotFoundError(NotFoundError):
    """No job with the requested id exists."""

    code = "job_not_found"

    @classmethod
    def of(cls, job_id: str) -> JobNotFoundError:
        """The error for ``job_id``, worded once for every door (HTTP, MCP, a worker)."""
        return cls(f"no job {job_id!r}: check the id (the one POST /tasks or start_research returned)")


class ConflictError(DeepResearchError):
    """The request does not fit the current state (cancelling a job that has already finished)."""

    code = "conflict"


class QueueFullError(DeepResearchError):
    """The service holds as many waiting runs as it may (``MAX_QUEUED_JOBS``); ask again later."""

    code = "queue_full"
    retry_after: int = 30


class UnavailableError(DeepResearchError):
    """A server the service depends on (the jobs database, the broker) cannot be reached now; the
    request changed nothing and may be sent again after :attr:`retry_after` seconds."""

    code = "unavailable"
    retry_after: int = 5


class StorageFullError(DeepResearchError):
    """The jobs database (or the disk under ``DEEPRESEARCH_HOME``) takes no more writes: the disk is
    full, or a file-size limit is reached. Nothing was changed; send again after
    :attr:`retry_after` seconds, once space is freed."""

    code = "storage_full"
    retry_after: int = 30


def error_classes() -> dict[str, type[DeepResearchError]]:
    """Every error class by its code (the base class included)."""
    found: dict[str, type[DeepResearchError]] = {}
    pending: list[type[DeepResearchError]] = [DeepResearchError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


def error_from_code(code: str | None, message: str, *, run_id: str | None = None) -> DeepResearchError:
    """The error of class ``code`` (the base class for an unknown or missing code)."""
    cls = error_classes().get(code or "", DeepResearchError)
    error = cls(message)
    error.run_id = run_id
    return error


def error_code(exc: BaseException) -> str:
    """``exc``'s code; ``internal`` for anything that is not one of ours."""
    return exc.code if isinstance(exc, DeepResearchError) else DeepResearchError.code
