"""SQLite pieces shared by the document index and the jobs store: numbered migrations recorded in
``PRAGMA user_version`` (run by :mod:`deepresearch.migrations`), and ``BEGIN IMMEDIATE``
transactions under a lock."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext

from deepresearch import migrations as migrations_runner
from deepresearch.errors import DeepResearchError


def migrate(
    conn: sqlite3.Connection,
    migrations: Sequence[str],
    *,
    what: str,
    fix: str,
    error: type[DeepResearchError] = DeepResearchError,
) -> int:
    """Apply the migrations ``conn`` has not had, each in its own transaction; return the version
    (:func:`deepresearch.migrations.migrate` over :class:`SqliteSchema`)."""
    return migrations_runner.migrate(SqliteSchema(conn), migrations, what=what, fix=fix, error=error)


class SqliteSchema:
    """The version in ``PRAGMA user_version``, set by the migration's own script; each migration is
    one ``BEGIN`` … ``COMMIT`` script, and SQLite's own file lock keeps writers apart, so
    :meth:`locked` adds none."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def locked(self) -> AbstractContextManager[object]:
        return nullcontext()

    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def apply(self, number: int, script: str) -> None:
        self.conn.executescript(f"BEGIN;\n{script};\nPRAGMA user_version = {number};\nCOMMIT;")


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
