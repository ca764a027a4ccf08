"""Search doubles for tests — ours and yours."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit


class StaticSearch(SearchBackend):
    """Answers from a fixed mapping of query → hits; unknown queries get ``default`` (empty).

    ``fail_on`` lists queries that raise :class:`SearchError`. Every query is recorded in ``queries``.
    """

    name = "static"

    def __init__(
        self,
        results: Mapping[str, Sequence[SearchHit]] | None = None,
        *,
        default: Sequence[SearchHit] | Callable[[str], Sequence[SearchHit]] = (),
        fail_on: Sequence[str] = (),
    ) -> None:
        self._results = dict(results or {})
        self._default = default
        self._fail_on = set(fail_on)
        self.queries: list[str] = []
        self._lock = threading.Lock()

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        with self._lock:
            self.queries.append(query)
        if query in self._fail_on:
            raise SearchError(f"scripted failure for {query!r}")
        hits = self._results.get(query)
        if hits is None:
            hits = self._default(query) if callable(self._default) else self._default
        return list(hits)[:limit]


def hit(
    url: str, title: str, content: str, *, is_fallback: bool = False, doc_id: str | None = None
) -> SearchHit:
    """A hit with ``content``, for building fixtures in one line."""
    return SearchHit(
        url=url,
        title=title,
        snippet=content[:200],
        content=content,
        backend="static",
        is_fallback=is_fallback,
        doc_id=doc_id,
    )
