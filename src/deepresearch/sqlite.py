"""SQLite pieces shared by the document index and the jobs store: numbered migrations recorded in
``PRAGMA user_version`` (run by :mod:`deepresearch.migrations`), and ``BEGIN IMMEDIATE``
transactions under a lock."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from deepresearch import migrations as migrations_runner
from deepresearch.errors import DeepResearchError
from deepresearch.retry import RetryPolicy

WAL_SWITCH = RetryPolicy(max_retries=10, base_delay=0.01, max_delay=0.5)
"""Attempts at the switch to WAL while another process holds the new file's lock (about 3 s)."""


def use_wal(conn: sqlite3.Connection, policy: RetryPolicy = WAL_SWITCH) -> None:
    """Put the database in WAL mode. SQLite answers "database is locked" at once, without its busy
    wait, when another process is switching or migrating the same new file at that instant, so the
    switch is tried again under ``policy``."""
    for attempt in range(policy.max_retries + 1):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == policy.max_retries:
                raise
            time.sleep(policy.backoff(attempt))


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
    """The version in ``PRAGMA user_version``. :meth:`locked` is one ``BEGIN IMMEDIATE``
    transaction around reading the version and applying what is missing, so processes opening a
    brand-new database at the same instant migrate it one after the other (each waits on SQLite's
    write lock, then finds the version the first one recorded). Each migration is a savepoint in
    it: a failed one is undone and the ones before it are kept."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            self.conn.execute("COMMIT")

    def version(self) -> int:
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def apply(self, number: int, script: str) -> None:
        self.conn.execute("SAVEPOINT migration")
        try:
            for statement in statements(script):
                self.conn.execute(statement)
            self.conn.execute(f"PRAGMA user_version = {number}")
        except BaseException:
            self.conn.execute("ROLLBACK TO migration")
            raise
        finally:
            self.conn.execute("RELEASE migration")


def statements(script: str) -> Iterator[str]:
    """The statements of ``script`` one at a time (``executescript`` would commit the transaction
    they must run in); :func:`sqlite3.complete_statement` tells where one ends, so a trigger's body
    or a quoted ``;`` stays whole."""
    pending = ""
    for part in script.split(";"):
        pending += part + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \t\r\n;"):
                yield pending
            pending = ""


@contextmanager
def immediate(
    conn: sqlite3.Connection, lock: threading.Lock | threading.RLock
) -> Iterator[sqlite3.Connection]:
    """One write transaction at a time: ``BEGIN IMMEDIATE`` … ``COMMIT``, rolled back on any error,
    a failed ``COMMIT`` included (a full disk fails the commit; SQLite may or may not have rolled
    back already, and a transaction left open would refuse every later ``BEGIN``)."""
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


_STORAGE_ERRORS = frozenset({10, 13})
"""SQLITE_IOERR and SQLITE_FULL (primary codes): the disk took no more writes."""


def is_storage_error(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the disk is full or takes no writes (rather than a bug or a lock)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _STORAGE_ERRORS
    return any(words in str(exc) for words in ("disk is full", "disk I/O error"))
