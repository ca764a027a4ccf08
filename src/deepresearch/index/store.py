"""The local document index: passages in SQLite, ranked by FTS5 ``bm25()``.

Contracts:

- The schema changes only through :data:`MIGRATIONS`, applied in order and recorded in
  ``PRAGMA user_version``; each migration runs in one transaction.
- Passage ids are unique index-wide. A document that fits in one passage keeps its ``doc_id`` as
  the passage id (evaluation keys on it); a longer one becomes ``<doc_id>#<n>`` passages that all
  keep ``doc_id``. When two documents claim one id, the first indexed wins; the other is skipped
  and counted in :attr:`IndexStats.records_skipped`.
- Files are indexed one transaction each, skipped when their sha256 is unchanged, and removed
  when they disappear from under a root being indexed.
- :meth:`DocumentIndex.search` accepts any user text: it never passes FTS5 syntax through.
- With an :class:`~deepresearch.index.embeddings.Embedder`, indexing also embeds every passage
  that has no vector from that model yet (so an index built without vectors gains them on the
  next run, and a passage is embedded once: re-indexing a changed file keeps the vectors of its
  unchanged passages), and :meth:`DocumentIndex.search_hybrid` fuses BM25 and dense rankings by RRF.
- One index may be shared between threads; calls are serialised by a lock.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from deepresearch.errors import ConfigurationError, IndexNotFoundError, SearchError
from deepresearch.index import vectors
from deepresearch.index.chunking import MAX_CHARS, chunk_text
from deepresearch.index.embeddings import Embedder
from deepresearch.index.fusion import RRF_K, reciprocal_rank_fusion
from deepresearch.index.loaders import (
    SUPPORTED_SUFFIXES,
    Document,
    IndexLimits,
    document_from_mapping,
    is_supported,
    iter_supported_files,
    load_file,
    skip_reason,
    unpacked_problem,
)
from deepresearch.index.query import fts_query
from deepresearch.sqlite import immediate, migrate, use_wal

Progress = Callable[[str], None]

MEMORY = ":memory:"
IN_MEMORY_SOURCE = "<memory>"
TITLE_WEIGHT = 2.0
TEXT_WEIGHT = 1.0
HYBRID_DEPTH = 50
EMBED_CHUNK = 64

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE files (
        path TEXT PRIMARY KEY,
        sha256 TEXT NOT NULL,
        mtime REAL NOT NULL
    );
    CREATE TABLE passages (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        doc_id TEXT NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        source TEXT NOT NULL,
        position INTEGER NOT NULL
    );
    CREATE INDEX passages_source ON passages(source);
    CREATE INDEX passages_doc_id ON passages(doc_id);
    CREATE VIRTUAL TABLE passages_fts USING fts5(
        title, text,
        content='passages', content_rowid='rowid',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER passages_after_insert AFTER INSERT ON passages BEGIN
        INSERT INTO passages_fts(rowid, title, text) VALUES (new.rowid, new.title, new.text);
    END;
    CREATE TRIGGER passages_after_delete AFTER DELETE ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, title, text)
        VALUES ('delete', old.rowid, old.title, old.text);
    END;
    CREATE TRIGGER passages_after_update AFTER UPDATE ON passages BEGIN
        INSERT INTO passages_fts(passages_fts, rowid, title, text)
        VALUES ('delete', old.rowid, old.title, old.text);
        INSERT INTO passages_fts(rowid, title, text) VALUES (new.rowid, new.title, new.text);
    END;
    """,
    vectors.VECTORS_MIGRATION,
)


_PASSAGE_COLUMNS = "p.id, p.doc_id, p.title, p.text, p.source, p.position"
_SEARCH_SQL = f"""
    SELECT {_PASSAGE_COLUMNS}, bm25(passages_fts, ?, ?) AS bm25_score
    FROM passages_fts JOIN passages AS p ON p.rowid = passages_fts.rowid
    WHERE passages_fts MATCH ?
    ORDER BY bm25_score LIMIT ?
"""
_INSERT_SQL = """
    INSERT OR IGNORE INTO passages (id, doc_id, title, text, source, position)
    VALUES (?, ?, ?, ?, ?, ?)
"""


@dataclass(frozen=True)
class Passage:
    """One searchable chunk of a document; ``id`` is stable across re-indexing."""

    id: str
    doc_id: str
    title: str
    text: str
    source: str
    position: int


@dataclass(frozen=True)
class IndexStats:
    """What one :meth:`DocumentIndex.index_paths` call did."""

    files_indexed: int = 0
    files_skipped_unchanged: int = 0
    files_removed: int = 0
    passages_added: int = 0
    passages_total: int = 0
    seconds: float = 0.0
    records_skipped: int = 0
    files_failed: int = 0
    passages_embedded: int = 0
    files_skipped: int = 0


def passages_for(document: Document, source: str, max_chars: int = MAX_CHARS) -> list[Passage]:
    """Chunk ``document``; a single chunk keeps the doc_id as its id, else ``<doc_id>#<n>``."""
    body = document.text.strip()
    chunks = [body] if len(body) <= max_chars else chunk_text(body, max_chars)
    if len(chunks) == 1:
        return [Passage(document.doc_id, document.doc_id, document.title, chunks[0], source, 0)]
    return [
        Passage(f"{document.doc_id}#{n}", document.doc_id, document.title, chunk, source, n)
        for n, chunk in enumerate(chunks)
    ]


class DocumentIndex:
    """A SQLite file (or ``":memory:"``) holding passages, their FTS5 index and, optionally, vectors.

    ``embedder`` (optional) embeds new passages while indexing and queries for dense search.
    """

    def __init__(self, path: Path | str, embedder: Embedder | None = None) -> None:
        self.path = path
        self.embedder = embedder
        self._lock = threading.RLock()
        self._conn = _open(path)
        self._vectors = vectors.VectorCache()

    @classmethod
    def open_existing(cls, path: Path | str, embedder: Embedder | None = None) -> DocumentIndex:
        """Open an index that must already exist; raise :class:`IndexNotFoundError` if not."""
        if not Path(path).is_file():
            raise IndexNotFoundError(
                f"No document index at {path}. Build one first; run: deepresearch index PATH"
            )
        return cls(path, embedder)

    def __enter__(self) -> DocumentIndex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection and free the embedder's runtime (if it has a ``close``: a later
        embed loads it again, so an embedder shared by two indexes keeps working); the index
        is unusable afterwards."""
        with self._lock:
            self._conn.close()
        close = getattr(self.embedder, "close", None)
        if callable(close):
            close()

    def count(self) -> int:
        """Number of passages in the index."""
        with self._lock:
            row = self._conn.execute("SELECT count(*) FROM passages").fetchone()
        return int(row[0])

    def get(self, passage_id: str) -> Passage | None:
        """The passage with this id, or ``None``."""
        sql = f"SELECT {_PASSAGE_COLUMNS} FROM passages AS p WHERE p.id = ?"
        with self._lock:
            row = self._conn.execute(sql, (passage_id,)).fetchone()
        return None if row is None else _passage(row)

    def chunks_of(self, doc_id: str, positions: Iterable[int]) -> list[Passage]:
        """The passages of document ``doc_id`` at ``positions`` (those that exist), in order."""
        wanted = sorted(set(positions))
        if not wanted:
            return []
        marks = ",".join("?" * len(wanted))
        sql = (
            f"SELECT {_PASSAGE_COLUMNS} FROM passages AS p "
            f"WHERE p.doc_id = ? AND p.position IN ({marks}) ORDER BY p.position"
        )
        with self._lock:
            rows = self._conn.execute(sql, [doc_id, *wanted]).fetchall()
        return [_passage(row) for row in rows]

    def search(self, query: str, limit: int = 5) -> list[tuple[Passage, float]]:
        """Best passages for free text, best first, with scores where higher is better.

        Returns ``[]`` when ``limit < 1`` or the query has no searchable words. Raises
        :class:`SearchError` only if SQLite itself fails.
        """
        match = fts_query(query)
        if not match or limit < 1:
            return []
        params = (TITLE_WEIGHT, TEXT_WEIGHT, match, limit)
        try:
            with self._lock:
                rows = self._conn.execute(_SEARCH_SQL, params).fetchall()
        except sqlite3.Error as exc:
            raise SearchError(f"local index search failed: {exc}") from exc
        return [(_passage(row), -float(row[6])) for row in rows]

    def has_vectors(self) -> bool:
        """Whether an embedder is set and the index holds vectors from its model."""
        if self.embedder is None:
            return False
        with self._lock:
            rowids, _ = self._vectors.get(self._conn, self.embedder.name, self.embedder.dim)
        return bool(rowids)

    def search_dense(self, query: str, limit: int = 5) -> list[tuple[Passage, float]]:
        """Passages by cosine similarity to the embedded query, best first (brute force).

        Only passages with a vector from the embedder's model take part. Raises
        :class:`ConfigurationError` when the index has no embedder.
        """
        embedder = self._require_embedder()
        if limit < 1 or not query.strip():
            return []
        query_vector = embedder.embed([query])[0]
        with self._lock:
            rowids, matrix = self._vectors.get(self._conn, embedder.name, embedder.dim)
        ranked = vectors.nearest(rowids, matrix, query_vector, limit)
        found = self._by_rowid([rowid for rowid, _ in ranked])
        return [(found[rowid], score) for rowid, score in ranked if rowid in found]

    def search_hybrid(
        self, query: str, limit: int = 5, *, depth: int = HYBRID_DEPTH, k: int = RRF_K
    ) -> list[tuple[Passage, float]]:
        """BM25 top-``depth`` and dense top-``depth`` fused by reciprocal rank fusion.

        Scores are the fused RRF scores (higher is better). Raises :class:`ConfigurationError`
        when the index has no embedder, :class:`SearchError` if SQLite fails.
        """
        if limit < 1:
            return []
        keyword = self.search(query, depth)
        dense = self.search_dense(query, depth)
        passages = {passage.id: passage for passage, _ in keyword + dense}
        rankings = [[p.id for p, _ in keyword], [p.id for p, _ in dense]]
        fused = reciprocal_rank_fusion(rankings, k=k, limit=limit)
        return [(passages[passage_id], score) for passage_id, score in fused]

    def _require_embedder(self) -> Embedder:
        if self.embedder is None:
            raise ConfigurationError(
                "dense search needs an embedder: set INDEX_EMBEDDINGS=true (or pass one to DocumentIndex)"
            )
        return self.embedder

    def _by_rowid(self, rowids: Sequence[int]) -> dict[int, Passage]:
        marks = ",".join("?" * len(rowids))
        sql = f"SELECT p.rowid, {_PASSAGE_COLUMNS} FROM passages AS p WHERE p.rowid IN ({marks})"
        with self._lock:
            rows = self._conn.execute(sql, list(rowids)).fetchall() if rowids else []
        return {int(row[0]): _passage(row[1:]) for row in rows}

    def embed_pending(self, progress: Progress | None = None) -> int:
        """Embed every passage without a vector from the embedder's model; return how many.

        Vectors are committed every :data:`EMBED_CHUNK` passages, so an interrupted run keeps
        its work. Does nothing without an embedder.
        """
        if self.embedder is None:
            return 0
        with self._lock:
            todo = vectors.pending(self._conn, self.embedder.name)
        done, started = 0, time.perf_counter()
        for start in range(0, len(todo), EMBED_CHUNK):
            chunk = todo[start : start + EMBED_CHUNK]
            matrix = self.embedder.embed([text for _, text in chunk])
            with self._transaction() as conn:
                done += vectors.save(conn, self.embedder.name, [rowid for rowid, _ in chunk], matrix)
            (progress or _ignore)(
                _embed_progress(start + len(chunk), len(todo), time.perf_counter() - started)
            )
        return done

    def indexed_files(self) -> list[str]:
        """The paths of the files indexed (as :meth:`index_paths` recorded them), sorted."""
        with self._lock:
            return sorted(str(row[0]) for row in self._conn.execute("SELECT path FROM files"))

    def remove_files(self, paths: Iterable[str]) -> int:
        """Remove these indexed files with their passages (and, by trigger, their vectors);
        paths never indexed are ignored. Returns the number of passages removed."""
        before = self.count()
        for path in paths:
            self._remove_file(path)
        return before - self.count()

    def add_documents(
        self, docs: Iterable[Document | Mapping[str, object]], source: str = IN_MEMORY_SOURCE
    ) -> int:
        """Add documents (or mappings with ``title``, ``text``, ``doc_id``); return passages added.

        A doc_id added earlier from the same ``source`` is replaced. Unusable mappings are skipped.
        """
        documents = [d for d in map(_as_document, docs) if d is not None]
        doc_ids = [(d.doc_id, source) for d in documents]
        with self._transaction() as conn:
            conn.executemany("DELETE FROM passages WHERE doc_id = ? AND source = ?", doc_ids)
            added = _insert(conn, documents, source)[0]
        self.embed_pending()
        return added

    def index_paths(
        self, paths: Sequence[Path | str], progress: Progress | None = None, limits: IndexLimits | None = None
    ) -> IndexStats:
        """Index files and folders (recursively) incrementally; see the module contract.

        A root that no longer exists has its indexed files removed. Files that fail to read (an
        I/O error) are reported through ``progress`` and counted in ``files_failed``; files and
        folders not read (a link out of the folder, a FIFO or a device, permission denied, an
        unsupported type given by name, over a cap of ``limits``) are named with the reason and
        counted in ``files_skipped``. Neither stops the run.
        """
        started = time.perf_counter()
        tally: Counter[str] = Counter()
        report = progress or _ignore
        for root in paths:
            self._index_root(Path(root).resolve(), tally, report, limits or IndexLimits())
        tally["passages_embedded"] = self.embed_pending(report)
        return IndexStats(passages_total=self.count(), seconds=time.perf_counter() - started, **tally)

    def _index_root(self, root: Path, tally: Counter[str], report: Progress, limits: IndexLimits) -> None:
        """A folder, recursively; a file named itself (a FIFO or a device given so is named as
        skipped, never opened); a path gone, whose indexed files are removed."""
        if root.is_dir():

            def unreadable(path: Path, exc: OSError) -> None:
                self._skip(path, f"unreadable ({exc.strerror}): check its permissions", tally, report)

            seen = {str(path) for path in iter_supported_files(root, on_error=unreadable)}
            for path in sorted(seen):
                self._index_file(Path(path), tally, report, _Read(root, limits))
            self._remove_missing(root, seen, tally, report)
        elif not root.exists():
            self._remove_missing(root, set(), tally, report)
        elif root.is_file() and not is_supported(root):
            supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
            self._skip(root, f"unsupported type (supported: {supported})", tally, report)
        else:
            self._index_file(root, tally, report, _Read(None, limits))

    def _index_file(self, path: Path, tally: Counter[str], report: Progress, read: _Read) -> None:
        reason = skip_reason(path, read.root, read.limits)
        if reason is not None:
            self._skip(path, reason, tally, report)
            return
        try:
            data = path.read_bytes()
            mtime = path.stat().st_mtime
        except PermissionError as exc:
            self._skip(path, f"unreadable ({exc.strerror}): check its permissions", tally, report)
            return
        except OSError as exc:
            tally["files_failed"] += 1
            report(f"failed {path}: {exc}")
            return
        problem = (
            unpacked_problem(data, read.limits.max_unpacked_bytes) if path.suffix.lower() == ".docx" else None
        )
        if problem is not None:
            self._skip(path, problem, tally, report)
            return
        digest = hashlib.sha256(data).hexdigest()
        if self._known_digest(str(path)) == digest:
            tally["files_skipped_unchanged"] += 1
            report(f"unchanged {path}")
            return
        loaded = load_file(path, data)
        with self._transaction() as conn:
            vectors.keep(conn, str(path))
            conn.execute("DELETE FROM passages WHERE source = ?", (str(path),))
            added, duplicates = _insert(conn, loaded.documents, str(path))
            vectors.restore(conn, str(path))
            conn.execute(
                "INSERT OR REPLACE INTO files (path, sha256, mtime) VALUES (?, ?, ?)",
                (str(path), digest, mtime),
            )
        skipped = loaded.bad_records + duplicates
        tally["files_indexed"] += 1
        tally["passages_added"] += added
        tally["records_skipped"] += skipped
        report(f"indexed {path}: {added} passages" + (f", {skipped} skipped" if skipped else ""))

    def _skip(self, path: Path, reason: str, tally: Counter[str], report: Progress) -> None:
        """Not read: anything indexed from it before goes, so a file replaced by a link leaves nothing."""
        self._remove_file(str(path))
        tally["files_skipped"] += 1
        report(f"skipped {path}: {reason}")

    def _known_digest(self, path: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT sha256 FROM files WHERE path = ?", (path,)).fetchone()
        return None if row is None else str(row[0])

    def _remove_missing(self, root: Path, seen: set[str], tally: Counter[str], report: Progress) -> None:
        with self._lock:
            known = [str(row[0]) for row in self._conn.execute("SELECT path FROM files")]
        for path in known:
            if path not in seen and Path(path).is_relative_to(root):
                self._remove_file(path)
                tally["files_removed"] += 1
                report(f"removed {path}")

    def _remove_file(self, path: str) -> None:
        with self._transaction() as conn:
            conn.execute("DELETE FROM passages WHERE source = ?", (path,))
            conn.execute("DELETE FROM files WHERE path = ?", (path,))

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with immediate(self._conn, self._lock) as conn:
            yield conn
        self._vectors.invalidate()


@dataclass(frozen=True)
class _Read:
    """How the files of one root are read: inside which folder, within which caps."""

    root: Path | None
    limits: IndexLimits


def _open(path: Path | str) -> sqlite3.Connection:
    """Connect, configure and migrate; SQLite failures become :class:`SearchError`."""
    in_memory = str(path) == MEMORY
    if not in_memory:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        raise SearchError(f"cannot open the index at {path}: {exc}") from exc
    try:
        if not in_memory:
            use_wal(conn)
            conn.execute("PRAGMA synchronous=NORMAL")
        _migrate(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise SearchError(
            f"{path} is not a usable deepresearch index ({exc}); delete it and run: deepresearch index PATH"
        ) from exc
    except SearchError:
        conn.close()
        raise
    return conn


def _migrate(conn: sqlite3.Connection) -> None:
    migrate(conn, MIGRATIONS, what="index", fix="rebuild: deepresearch index PATH", error=SearchError)


def _insert(conn: sqlite3.Connection, documents: Sequence[Document], source: str) -> tuple[int, int]:
    """Insert the documents' passages; return (passages added, passages skipped as duplicates)."""
    rows = [
        (p.id, p.doc_id, p.title, p.text, p.source, p.position)
        for document in documents
        for p in passages_for(document, source)
    ]
    added = conn.executemany(_INSERT_SQL, rows).rowcount if rows else 0
    return added, len(rows) - added


def _as_document(doc: Document | Mapping[str, object]) -> Document | None:
    if isinstance(doc, Document):
        return doc
    text = doc.get("text")
    digest = hashlib.sha256(str(text).encode()).hexdigest()[:12]
    return document_from_mapping(doc, fallback_id=f"doc:{digest}")


def _passage(row: tuple[Any, ...]) -> Passage:
    """A passage from a row whose first six columns are :data:`_PASSAGE_COLUMNS`."""
    return Passage(*row[:6])


def _embed_progress(done: int, total: int, seconds: float) -> str:
    """``embedded 128/2980 passages (14.2/s, about 3 min left)``."""
    rate = done / seconds if seconds > 0 else 0.0
    left = (total - done) / rate if rate > 0 else 0.0
    eta = f"about {left / 60:.0f} min left" if left >= 90 else f"about {left:.0f} s left"
    return f"embedded {done}/{total} passages ({rate:.1f}/s, {eta})"


def _ignore(_message: str) -> None:
    """A progress callback that discards messages."""
