"""The local document index as a search backend.

Hits carry the whole passage as ``content`` (nothing to fetch), ``doc://<passage id>`` as their
URL, and the passage's ``doc_id`` so that evaluation and citations can key on it.
"""

from __future__ import annotations

from deepresearch.index.corpus import local_index_path
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import DocumentIndex, Passage
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.registry import BackendSpec, Notice, register_backend
from deepresearch.settings import Settings

SNIPPET_CHARS = 200


class LocalSearch(SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over a :class:`DocumentIndex`.

    The index is borrowed unless ``owns_index``: then :meth:`close` closes it.
    """

    name = "local"

    def __init__(self, index: DocumentIndex, *, owns_index: bool = False) -> None:
        self.index = index
        self.owns_index = owns_index

    def close(self) -> None:
        if self.owns_index:
            self.index.close()

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """At most ``limit`` hits, best first; raises :class:`SearchError` if SQLite fails.

        Hybrid (BM25 + dense, fused by RRF) when the index has an embedder and vectors from its
        model; BM25 alone otherwise.
        """
        if self.index.has_vectors():
            return [_hit(passage, score) for passage, score in self.index.search_hybrid(query, limit)]
        return [_hit(passage, score) for passage, score in self.index.search(query, limit)]


def passage_url(passage_id: str) -> str:
    """The URL a local passage is cited by."""
    return f"doc://{passage_id}"


def snippet(text: str, max_chars: int = SNIPPET_CHARS) -> str:
    """The start of ``text`` on one line, cut at a word boundary with an ellipsis if longer."""
    flat = " ".join(text.split())
    if len(flat) <= max_chars:
        return flat
    cut = flat[:max_chars].rsplit(" ", 1)[0] or flat[:max_chars]
    return cut.rstrip(" ,;:.") + "…"


def _hit(passage: Passage, score: float) -> SearchHit:
    return SearchHit(
        url=passage_url(passage.id),
        title=passage.title,
        snippet=snippet(passage.text),
        content=passage.text,
        backend=LocalSearch.name,
        doc_id=passage.doc_id,
        score=score,
    )


def open_local(settings: Settings, notice: Notice | None = None) -> LocalSearch:
    """Search the index :func:`~deepresearch.index.corpus.local_index_path` chooses: the user's
    (``INDEX_PATH``, which must exist, or ``<home>/index.sqlite``) or, with neither, the bundled
    demo corpus's own index, built the first time it is needed; never both."""
    embedder = embedder_for(settings, notice)
    path = local_index_path(settings, notice, embedder)
    index = DocumentIndex.open_existing(path, embedder)
    if embedder is not None and notice and not index.has_vectors():
        notice(
            f"INDEX_EMBEDDINGS is on but {path} has no vectors, so search is BM25 only; "
            "add them with: deepresearch index --embeddings PATH"
        )
    return LocalSearch(index, owns_index=True)


BACKEND = register_backend(
    BackendSpec(
        "local", "local index", open_local, summary="your documents (deepresearch index), or the demo corpus"
    )
)
