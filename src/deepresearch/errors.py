"""One exception hierarchy for deepresearch.

Third-party errors are mapped to these at the boundary where they happen; only the CLI and the
HTTP layer turn them into words for people. Every message says how to fix the problem.
"""

from __future__ import annotations


class DeepResearchError(Exception):
    """Base class of every error deepresearch raises on purpose."""


class ConfigurationError(DeepResearchError):
    """A setting is missing, unknown or invalid."""


class InvalidQuestionError(DeepResearchError):
    """The question cannot be researched (empty, whitespace only, ...)."""


class ModelError(DeepResearchError):
    """A model call failed (server down, timeout, bad answer that no rung of the ladder saved)."""


class ModelNotAvailableError(ModelError):
    """The configured model cannot be loaded or reached (missing file, missing extra, no server)."""


class StructuredOutputError(ModelError):
    """A structured step produced nothing that validates, after every rung of the ladder."""


class SearchError(DeepResearchError):
    """A search backend failed. The research loop records it as a notice; it never kills a run."""


class IndexNotFoundError(SearchError):
    """The local document index does not exist yet."""


class FetchError(SearchError):
    """A page or document could not be read: refused by policy, too large, wrong type, timed out."""


class ResearchCancelledError(DeepResearchError):
    """The run was cancelled by its caller."""


class NoteNotFoundError(DeepResearchError):
    """No note with the requested id exists in the notes workspace."""
