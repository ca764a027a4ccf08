"""The search seam: ``SearchBackend.search(query, limit=...) -> list[SearchHit]``.

A backend subclasses :class:`SearchBackend` and implements ``search`` or ``search_detailed`` (to
report notices and an engine's own answer with its hits, as a :class:`SearchOutcome`); each has
the other as its default. It may override ``close`` (to release a client or an index it owns; the default does
nothing). Nothing is kept on the backend between calls, so one backend serves concurrent tasks.

Every backend returns hits of one shape. ``content`` is the text the backend already holds (the
local index holds whole passages, some web APIs return page text); when it is ``None`` the
fetcher reads ``url``. ``is_fallback`` marks hits that a fallback engine produced; it travels with
the source into the report. Scholarly engines fill ``authors``, ``venue`` and ``year``, which the
references show after the title; every other backend leaves them empty.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

ANSWER_PREVIEW_CHARS = 600


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str
    snippet: str = ""
    content: str | None = None
    backend: str = ""
    is_fallback: bool = False
    doc_id: str | None = None
    score: float | None = None
    authors: tuple[str, ...] = ()
    venue: str = ""
    year: int | None = None


@dataclass(frozen=True)
class SearchOutcome:
    """Hits of one call, the notices it raised, and the answering engine's own answer, if any.

    An engine's answer (Tavily's ``answer``, Perplexity's reply) is the engine's words, not a
    source: it never becomes a hit and is never cited. :meth:`messages` labels it as such.
    """

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


def answer_notice(backend: str, answer: str) -> str:
    """The line that shows an engine's answer without passing it off as evidence."""
    flat = " ".join(answer.split())
    if len(flat) > ANSWER_PREVIEW_CHARS:
        flat = flat[:ANSWER_PREVIEW_CHARS].rsplit(" ", 1)[0] + "…"
    return f"{backend}'s own answer (the engine's words, not a cited source): {flat}"


@runtime_checkable
class SearchBackend(Protocol):
    """What the research loop needs from a search engine. Subclass it: ``search_detailed`` and
    ``close`` have working defaults."""

    name: str

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """At most ``limit`` hits, best first; :class:`deepresearch.errors.SearchError` on failure.
        By default the hits of :meth:`search_detailed`."""
        return self.search_detailed(query, limit=limit).hits

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The hits with the call's notices and the engine's own answer; by default the hits alone."""
        return SearchOutcome(hits=self.search(query, limit=limit))

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        inherits_both = (
            cls.search is SearchBackend.search and cls.search_detailed is SearchBackend.search_detailed
        )
        if not getattr(cls, "_is_protocol", False) and inherits_both:
            raise TypeError(f"{cls.__name__} must implement search() or search_detailed()")

    def close(self) -> None:
        """Release what the backend owns (an HTTP client, an index); by default nothing."""
        return None
