"""SQLite pieces shared by the document index and the jobs store: numbered migrations recorded in
``PRAGMA user_version``, and ``BEGIN IMMEDIATE`` transactions under a lock."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from deepresearch.errors import DeepResearchError


def migrate(
    conn: sqlite3.Connection,
    migrations: Sequence[str],
    *,
    what: str,
    fix: str,
    error: type[DeepResearchError] = DeepResearchError,
) -> int:
    """Apply the migrations ``conn`` has not had, each in its own transaction; return the version.

    A database newer than this code raises ``error`` naming ``what`` and ``fix``.
    """
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if version > len(migrations):
        raise error(
            f"the {what} is at schema version {version}, newer than this deepresearch supports "
            f"({len(migrations)}); upgrade deepresearch or {fix}"
        )
    for number, script in enumerate(migrations[version:], start=version + 1):
        conn.executescript(f"BEGIN;\n{script};\nPRAGMA user_version = {number};\nCOMMIT;")
    return len(migrations)


@contextmanager
def immediate(
    conn: sqlite3.Connection, lock: threading.Lock | threading.RLock
) -> Iterator[sqlite3.Connection]:
    """One write transaction at a time: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error."""
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
