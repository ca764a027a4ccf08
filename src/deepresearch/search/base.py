"""The search seam: ``SearchBackend.search(query, limit=...) -> list[SearchHit]``.

Every backend returns hits of one shape. ``content`` is the text the backend already holds (the
local index holds whole passages, some web APIs return page text); when it is ``None`` the
fetcher reads ``url``. ``is_fallback`` marks hits that a fallback engine produced; it travels with
the source into the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


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


@runtime_checkable
class SearchBackend(Protocol):
    name: str

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """Return at most ``limit`` hits; raise :class:`deepresearch.errors.SearchError` on failure."""
        ...
