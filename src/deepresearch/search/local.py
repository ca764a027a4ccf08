"""The local document index as a search backend.

A hit is a document, read as a web page is read: its ``content`` (nothing to fetch) is the chunk
that matched with the chunks beside it, stitched back into one text, so a fact one sentence past a
chunk's edge is read too (a search for where someone fled finds the chunk with her name; the
city is in the next one). Several matching chunks of one document make one hit. Its URL is
``doc://<passage id>`` of the best chunk, and it carries the ``doc_id`` that evaluation and
citations key on.
"""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.index.chunking import stitch
from deepresearch.index.corpus import local_index_path
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import HYBRID_DEPTH, DocumentIndex, Passage
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.registry import BackendSpec, Notice, register_backend
from deepresearch.settings import Settings

SNIPPET_CHARS = 200
READ_REACH = 1
"""Chunks read on either side of each chunk that matched."""
MAX_READ_CHUNKS = 5
"""The most chunks one hit reads (about 6,000 characters), nearest the best match first."""
CANDIDATES = HYBRID_DEPTH
"""Chunks asked of the index for any number of hits up to it, so that the chunks of one long
document crowd out no other (hybrid search ranks this many of each kind anyway)."""


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
        depth = max(limit, CANDIDATES)
        if self.index.has_vectors():
            found = self.index.search_hybrid(query, depth)
        else:
            found = self.index.search(query, depth)
        return [self._read(matched, score) for matched, score in _by_document(found)[:limit]]

    def _read(self, matched: Sequence[Passage], score: float) -> SearchHit:
        """The hit for one document's ``matched`` chunks (best first): those chunks and their
        neighbours, stitched."""
        best = matched[0]
        near = sorted(
            {p.position + step for p in matched for step in range(-READ_REACH, READ_REACH + 1)},
            key=lambda position: abs(position - best.position),
        )
        read = self.index.chunks_of(best.doc_id, near[:MAX_READ_CHUNKS]) or [best]
        return _hit(best, score, stitch([p.text for p in read]))


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


def _by_document(found: Sequence[tuple[Passage, float]]) -> list[tuple[list[Passage], float]]:
    """``found`` (best first) grouped by document, in the order of each document's best chunk,
    with that chunk's score."""
    groups: dict[str, tuple[list[Passage], float]] = {}
    for passage, score in found:
        groups.setdefault(passage.doc_id, ([], score))[0].append(passage)
    return list(groups.values())


def _hit(passage: Passage, score: float, content: str) -> SearchHit:
    return SearchHit(
        url=passage_url(passage.id),
        title=passage.title,
        snippet=snippet(passage.text),
        content=content,
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
