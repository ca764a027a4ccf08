"""Passage vectors in the index's SQLite file, and brute-force cosine search over them.

Contracts:

- :data:`VECTORS_MIGRATION` (schema version 2) adds ``vectors(passage_rowid, model, dim, blob)``:
  one row per passage and model, the vector as little-endian float32 bytes. Triggers drop a
  passage's vectors when the passage is deleted or its title or text change, so a vector always
  belongs to the text it was computed from.
- Re-indexing a file keeps the vectors of its passages whose title and text did not change
  (:func:`keep`, :func:`restore`): editing one record of a corpus file re-embeds that record only.
- Vectors are unit length (see :class:`~deepresearch.index.embeddings.Embedder`), so a dot
  product is the cosine similarity.
- numpy is imported only by the functions that need it; importing this module does not.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

VECTORS_MIGRATION = """
    CREATE TABLE vectors (
        passage_rowid INTEGER NOT NULL,
        model TEXT NOT NULL,
        dim INTEGER NOT NULL,
        blob BLOB NOT NULL,
        PRIMARY KEY (passage_rowid, model)
    );
    CREATE INDEX vectors_model ON vectors(model, dim);
    CREATE TRIGGER passages_delete_vectors AFTER DELETE ON passages BEGIN
        DELETE FROM vectors WHERE passage_rowid = old.rowid;
    END;
    CREATE TRIGGER passages_update_vectors AFTER UPDATE OF title, text ON passages BEGIN
        DELETE FROM vectors WHERE passage_rowid = old.rowid;
    END;
"""

_PENDING_SQL = """
    SELECT p.rowid, p.title, p.text FROM passages AS p
    WHERE NOT EXISTS (SELECT 1 FROM vectors AS v WHERE v.passage_rowid = p.rowid AND v.model = ?)
    ORDER BY p.rowid
"""
_SAVE_SQL = """
    INSERT OR REPLACE INTO vectors (passage_rowid, model, dim, blob)
    SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM passages WHERE rowid = ?)
"""
_LOAD_SQL = "SELECT passage_rowid, blob FROM vectors WHERE model = ? AND dim = ? ORDER BY passage_rowid"


_KEEP_SQL = (
    "CREATE TEMP TABLE IF NOT EXISTS kept_vectors (title TEXT, text TEXT, model TEXT, dim INT, blob BLOB)",
    "CREATE INDEX IF NOT EXISTS temp.kept_vectors_text ON kept_vectors(text)",
    "DELETE FROM temp.kept_vectors",
    """INSERT INTO temp.kept_vectors
       SELECT p.title, p.text, v.model, v.dim, v.blob
       FROM passages AS p JOIN vectors AS v ON v.passage_rowid = p.rowid WHERE p.source = ?""",
)
_RESTORE_SQL = """
    INSERT OR IGNORE INTO vectors (passage_rowid, model, dim, blob)
    SELECT p.rowid, k.model, k.dim, k.blob
    FROM passages AS p JOIN temp.kept_vectors AS k ON k.text = p.text AND k.title = p.title
    WHERE p.source = ?
"""


def keep(conn: sqlite3.Connection, source: str) -> None:
    """Set aside the vectors of ``source``'s passages, keyed by their title and text, before the
    passages are replaced (deleting them drops their vectors). Call inside the transaction that
    replaces them, then :func:`restore`."""
    for sql in _KEEP_SQL:
        conn.execute(sql, (source,) if "?" in sql else ())


def restore(conn: sqlite3.Connection, source: str) -> int:
    """Give the new passages of ``source`` the vectors :func:`keep` set aside for the same title
    and text, so re-indexing a changed file embeds only what changed; returns how many."""
    restored = conn.execute(_RESTORE_SQL, (source,)).rowcount
    conn.execute("DELETE FROM temp.kept_vectors")
    return int(restored)


def embedding_text(title: str, text: str) -> str:
    """What is embedded for a passage: its title (often the only mention of the subject) and text."""
    return f"{title}\n{text}" if title else text


def pending(conn: sqlite3.Connection, model: str) -> list[tuple[int, str]]:
    """``(rowid, text to embed)`` of every passage without a vector from ``model``, by rowid."""
    rows = conn.execute(_PENDING_SQL, (model,)).fetchall()
    return [(int(rowid), embedding_text(str(title), str(text))) for rowid, title, text in rows]


def save(conn: sqlite3.Connection, model: str, rowids: Sequence[int], matrix: Matrix) -> int:
    """Store one vector per rowid (rows of ``matrix``); rowids whose passage is gone are skipped.

    Returns how many vectors were stored. Call inside a transaction.
    """
    import numpy as np

    data = np.ascontiguousarray(matrix, dtype="<f4")
    dim = int(data.shape[1])
    rows = [(rowid, model, dim, data[i].tobytes(), rowid) for i, rowid in enumerate(rowids)]
    return conn.executemany(_SAVE_SQL, rows).rowcount if rows else 0


def count(conn: sqlite3.Connection, model: str) -> int:
    """Number of stored vectors from ``model``."""
    return int(conn.execute("SELECT count(*) FROM vectors WHERE model = ?", (model,)).fetchone()[0])


def load(conn: sqlite3.Connection, model: str, dim: int) -> tuple[list[int], Matrix]:
    """Rowids and the ``(n, dim)`` matrix of every vector from ``model`` with length ``dim``."""
    import numpy as np

    rows = conn.execute(_LOAD_SQL, (model, dim)).fetchall()
    matrix = np.frombuffer(b"".join(blob for _, blob in rows), dtype="<f4").reshape(len(rows), dim)
    return [int(rowid) for rowid, _ in rows], matrix.astype(np.float32)


def nearest(rowids: Sequence[int], matrix: Matrix, query: Matrix, limit: int) -> list[tuple[int, float]]:
    """The ``limit`` rowids whose vectors have the largest dot product with ``query``, best first."""
    import numpy as np

    if limit < 1 or not rowids:
        return []
    scores = matrix @ query.astype(np.float32)
    top = np.argpartition(-scores, limit - 1)[:limit] if limit < len(rowids) else np.arange(len(rowids))
    best = top[np.argsort(-scores[top], kind="stable")]
    return [(rowids[int(i)], float(scores[i])) for i in best]


class VectorCache:
    """The stored matrix of one model, loaded once and kept until :meth:`invalidate`.

    It also reloads when ``PRAGMA data_version`` shows that another connection wrote to the file.
    The caller serialises access (the index holds its lock around every call).
    """

    def __init__(self) -> None:
        self._key: tuple[str, int, int] | None = None
        self._rowids: list[int] = []
        self._matrix: Matrix | None = None

    def invalidate(self) -> None:
        """Forget the loaded matrix; the next :meth:`get` reads it again."""
        self._key = None

    def get(self, conn: sqlite3.Connection, model: str, dim: int) -> tuple[list[int], Matrix]:
        """Rowids and matrix as :func:`load` returns them, from memory when nothing changed."""
        version = int(conn.execute("PRAGMA data_version").fetchone()[0])
        key = (model, dim, version)
        if key != self._key or self._matrix is None:
            self._rowids, self._matrix = load(conn, model, dim)
            self._key = key
        return self._rowids, self._matrix
