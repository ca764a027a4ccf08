"""Search hits made safe to quote (:func:`search_outcome`) and filled with the text of their pages."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from deepresearch.errors import FetchError
from deepresearch.fetch.client import PageFetcher
from deepresearch.fetch.page import FetchResult
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.untrusted import clean_title, sanitize


def search_outcome(backend: SearchBackend, query: str, *, limit: int) -> SearchOutcome:
    """The full outcome of one search on ``backend``; raises whatever the backend raises.

    Search results are untrusted: every hit comes back through :func:`clean_hit` (no prompt
    framing, tool-call markup or brackets in titles), whichever backend produced it, so no path from
    here into a prompt, a note or a report carries them.
    """
    outcome = backend.search_detailed(query, limit=limit)
    return replace(outcome, hits=[clean_hit(hit) for hit in outcome.hits])


def read_hits(hits: Sequence[SearchHit], fetcher: PageFetcher) -> tuple[list[SearchHit], list[str]]:
    """``hits`` in order, those without ``content`` read through ``fetcher`` in parallel.

    A read page becomes the hit's ``content`` (its title fills an empty hit title). A page that
    cannot be read leaves its hit with the snippet and adds one notice naming the URL and why.
    Snippets of the hits read here are sanitised like page text. Hits that already hold content
    are returned untouched.
    """
    urls = list(dict.fromkeys(hit.url for hit in hits if hit.content is None))
    if not urls:
        return list(hits), []
    results = dict(zip(urls, fetcher.fetch_many(urls), strict=True))
    filled = [hit if hit.content is not None else _filled(hit, results[hit.url]) for hit in hits]
    notices = [
        f"could not read {url}: {result}; kept the search snippet"
        for url, result in results.items()
        if isinstance(result, FetchError)
    ]
    return filled, notices


def clean_hit(hit: SearchHit) -> SearchHit:
    """``hit`` as data: title, snippet and content without prompt tags, tool-call markup or
    chat-template tokens; the title on one line with no quote or bracket (the URL stands in for a
    title that is empty after cleaning). Idempotent."""
    title = clean_title(hit.title) or clean_title(hit.url) or "untitled"
    content = None if hit.content is None else sanitize(hit.content)
    authors = tuple(name for name in (clean_title(a) for a in hit.authors) if name)
    venue = clean_title(hit.venue) or ""
    return replace(
        hit, title=title, snippet=sanitize(hit.snippet), content=content, authors=authors, venue=venue
    )


def _filled(hit: SearchHit, result: FetchResult) -> SearchHit:
    snippet = sanitize(hit.snippet)
    if isinstance(result, FetchError):
        return replace(hit, snippet=snippet)
    return replace(hit, snippet=snippet, content=result.text, title=hit.title or result.title or hit.url)
