"""``SEARCH_API=hybrid``: engines tried in order until one returns hits.

The first engine tried is the primary; hits from any later engine are flagged ``is_fallback`` and
keep that flag into the report. Every fallback taken becomes a notice naming the engine that
failed, why, and the engine tried next. Duplicate URLs (by :func:`normalize_url`) within one
result are merged, first one kept. When every engine fails the call raises :class:`SearchError`
listing each failure; when every engine simply found nothing, the result is empty. No hit is
ever made up.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from deepresearch.citations import normalize_url
from deepresearch.errors import ConfigurationError, SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.factory import build_backend
from deepresearch.search.pages import search_outcome
from deepresearch.search.registry import BackendSpec, Notice, parse_order, register_backend
from deepresearch.settings import Settings


class SearchChain(SearchBackend):
    """A :class:`~deepresearch.search.base.SearchBackend` that falls back through ``backends``."""

    name = "hybrid"

    def __init__(self, backends: Sequence[SearchBackend]) -> None:
        if not backends:
            raise ValueError("a search chain needs at least one backend")
        self.backends = list(backends)

    @property
    def order(self) -> list[str]:
        """The engines' names in the order they are tried."""
        return [backend.name for backend in self.backends]

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The first engine's outcome that has hits, with a notice for each fallback taken."""
        failures: list[tuple[str, str]] = []
        for index, backend in enumerate(self.backends):
            try:
                outcome = search_outcome(backend, query, limit=limit)
            except SearchError as exc:
                failures.append((backend.name, str(exc)))
                continue
            hits = merge_duplicates(outcome.hits)[:limit]
            if hits:
                flagged = [replace(hit, is_fallback=True) for hit in hits] if index else hits
                notices = self._fallback_notices(query, failures)
                return replace(outcome, hits=flagged).with_notices(notices)
            failures.append((backend.name, "no results"))
        return self._nothing(query, failures)

    def close(self) -> None:
        """Close every engine (each releases what it owns)."""
        for backend in self.backends:
            backend.close()

    def _fallback_notices(self, query: str, failures: list[tuple[str, str]]) -> list[str]:
        names = self.order
        return [
            f"{name} failed for {query!r} ({reason}); fell back to {names[i + 1]}"
            for i, (name, reason) in enumerate(failures)
        ]

    def _nothing(self, query: str, failures: list[tuple[str, str]]) -> SearchOutcome:
        if all(reason == "no results" for _, reason in failures):
            return SearchOutcome(hits=[])
        summary = "; ".join(f"{name}: {reason}" for name, reason in failures)
        raise SearchError(f"every engine failed for {query!r} ({summary})")


def merge_duplicates(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """``hits`` with later duplicates (same normalised URL) dropped; a dropped one's content fills
    a kept hit that had none."""
    kept: dict[str, SearchHit] = {}
    for hit in hits:
        key = normalize_url(hit.url)
        first = kept.get(key)
        if first is None:
            kept[key] = hit
        elif first.content is None and hit.content is not None:
            kept[key] = replace(first, content=hit.content)
    return list(kept.values())


def build_chain(settings: Settings, notice: Notice | None = None) -> SearchChain:
    """The ``hybrid`` chain in ``SEARCH_ORDER`` (closing it closes every engine); engines that
    cannot be built (no key, no URL, no package) are skipped with a notice."""
    built: list[SearchBackend] = []
    skipped: list[str] = []
    for name in parse_order(settings.search_order):
        try:
            built.append(build_backend(name, settings, notice))
        except ConfigurationError as exc:
            skipped.append(f"{name} ({exc})")
    if not built:
        raise ConfigurationError(f"SEARCH_API=hybrid has no usable engine: {'; '.join(skipped)}")
    if notice and skipped:
        notice(f"hybrid search skips {'; '.join(skipped)}")
    chain = SearchChain(built)
    if notice:
        notice(f"hybrid search order: {' → '.join(chain.order)}")
    return chain


BACKEND = register_backend(
    BackendSpec(
        "hybrid",
        "hybrid (web chain)",
        build_chain,
        summary="the engines of SEARCH_ORDER, each tried when the one before finds nothing",
        web=True,
        chain=False,
    )
)
