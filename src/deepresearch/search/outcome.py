"""What one search call produced beyond its hits: notices for the user and an engine's own answer.

``SearchBackend.search`` returns hits only; that seam stays as it is. Backends that have more to
say (an engine's own answer, a fallback that was taken, a query that had to be shortened) also
implement ``search_detailed`` and return a :class:`SearchOutcome`. Nothing is kept on the backend
between calls, so one backend can serve concurrent research tasks. Callers that want the extras
use :func:`search_outcome`, which works with any backend.

An engine's answer (Tavily's ``answer``, Perplexity's reply) is the engine's words, not a source:
it never becomes a hit and is never cited. :meth:`SearchOutcome.messages` labels it as such.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from deepresearch.fetch.hits import clean_hit
from deepresearch.search.base import SearchBackend, SearchHit

ANSWER_PREVIEW_CHARS = 600


@dataclass(frozen=True)
class SearchOutcome:
    """Hits of one call, the notices it raised, and the answering engine's own answer, if any."""

    hits: list[SearchHit]
    notices: list[str] = field(default_factory=list)
    answer: str | None = None
    answer_backend: str | None = None

    def with_notices(self, notices: list[str]) -> SearchOutcome:
        """A copy with ``notices`` placed before this outcome's own."""
        return replace(self, notices=[*notices, *self.notices]) if notices else self

    def messages(self) -> list[str]:
        """Notices for the user, then the engine's answer labelled as not being a source."""
        if not self.answer:
            return list(self.notices)
        return [*self.notices, answer_notice(self.answer_backend or "the engine", self.answer)]


@runtime_checkable
class DetailedSearch(Protocol):
    """A backend that reports notices and an engine answer alongside its hits."""

    name: str

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome: ...


def search_outcome(backend: SearchBackend, query: str, *, limit: int) -> SearchOutcome:
    """The full outcome of one search on any backend; raises whatever the backend raises.

    Search results are untrusted: every hit comes back through
    :func:`~deepresearch.fetch.hits.clean_hit` (no prompt framing, tool-call markup or brackets in
    titles), whichever backend produced it, so no path from here into a prompt, a note or a report
    carries them.
    """
    if isinstance(backend, DetailedSearch):
        outcome = backend.search_detailed(query, limit=limit)
    else:
        outcome = SearchOutcome(hits=backend.search(query, limit=limit))
    return replace(outcome, hits=[clean_hit(hit) for hit in outcome.hits])


def answer_notice(backend: str, answer: str) -> str:
    """The line that shows an engine's answer without passing it off as evidence."""
    flat = " ".join(answer.split())
    if len(flat) > ANSWER_PREVIEW_CHARS:
        flat = flat[:ANSWER_PREVIEW_CHARS].rsplit(" ", 1)[0] + "…"
    return f"{backend}'s own answer (the engine's words, not a cited source): {flat}"
