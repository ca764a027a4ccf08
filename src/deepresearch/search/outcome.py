"""The full outcome of one search on any backend, its hits made safe to quote.

:class:`~deepresearch.search.base.SearchOutcome` (hits, notices, an engine's own answer) lives
with the seam; this module adds the one step every caller needs: hits cleaned of prompt framing.
"""

from __future__ import annotations

from dataclasses import replace

from deepresearch.search.base import SearchBackend, SearchOutcome, answer_notice
from deepresearch.search.pages import clean_hit

__all__ = ["SearchOutcome", "answer_notice", "search_outcome"]


def search_outcome(backend: SearchBackend, query: str, *, limit: int) -> SearchOutcome:
    """The full outcome of one search on ``backend``; raises whatever the backend raises.

    Search results are untrusted: every hit comes back through
    :func:`~deepresearch.search.pages.clean_hit` (no prompt framing, tool-call markup or brackets in
    titles), whichever backend produced it, so no path from here into a prompt, a note or a report
    carries them.
    """
    outcome = backend.search_detailed(query, limit=limit)
    return replace(outcome, hits=[clean_hit(hit) for hit in outcome.hits])
