"""The one migration runner: numbered, in order, each in one transaction, under the database's lock.

The PostgreSQL adapter is exercised by tests/cluster/test_postgres_store.py; the SQLite one here and
by the job store's and the index's own tests (databases created at every older version).
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from deepresearch.errors import DeepResearchError, SearchError
from deepresearch.migrations import migrate
from deepresearch.sqlite import migrate as migrate_sqlite

SHELVES = "CREATE TABLE shelves (id INTEGER PRIMARY KEY, label TEXT NOT NULL)"
BOOKS = "CREATE TABLE books (id INTEGER PRIMARY KEY, shelf INTEGER REFERENCES shelves (id))"


def _tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _version(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])


def _migrate(path: Path, migrations: list[str]) -> int:
    conn = sqlite3.connect(path)
    try:
        return migrate_sqlite(conn, migrations, what="shelf database", fix="delete it")
    finally:
        conn.close()


def test_only_the_missing_migrations_run_in_order(tmp_path: Path) -> None:
    path = tmp_path / "shelf.sqlite"
    assert _migrate(path, [SHELVES]) == 1
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO shelves (label) VALUES ('poetry')")

    assert _migrate(path, [SHELVES, BOOKS]) == _migrate(path, [SHELVES, BOOKS]) == 2

    assert {"shelves", "books"} <= _tables(path) and _version(path) == 2
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT label FROM shelves").fetchall() == [("poetry",)]


def test_a_failing_migration_leaves_the_database_at_the_version_before(tmp_path: Path) -> None:
    path = tmp_path / "shelf.sqlite"
    broken = f"{BOOKS}; INSERT INTO no_such_table VALUES (1)"

    with pytest.raises(sqlite3.OperationalError, match="no_such_table"):
        _migrate(path, [SHELVES, broken])

    assert _version(path) == 1 and "books" not in _tables(path)
    assert _migrate(path, [SHELVES, BOOKS]) == 2


def test_a_newer_database_is_refused_with_the_callers_error_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "shelf.sqlite"
    _migrate(path, [SHELVES, BOOKS])
    conn = sqlite3.connect(path)

    with pytest.raises(SearchError, match=r"shelf database is at schema version 2.*\(1\).*or delete it"):
        migrate_sqlite(conn, [SHELVES], what="shelf database", fix="delete it", error=SearchError)
    conn.close()


class _Recorded:
    """A schema that records what the runner asks of it, in order."""

    def __init__(self, version: int) -> None:
        self.at = version
        self.calls: list[str] = []

    @contextmanager
    def locked(self) -> Iterator[None]:
        self.calls.append("lock")
        try:
            yield
        finally:
            self.calls.append("unlock")

    def version(self) -> int:
        self.calls.append("version")
        return self.at

    def apply(self, number: int, script: str) -> None:
        self.calls.append(f"apply {number}: {script}")
        self.at = number


def test_the_lock_covers_the_version_the_migrations_and_the_setup_after_them() -> None:
    schema = _Recorded(version=1)

    assert (
        migrate(schema, ["one", "two", "three"], what="db", fix="-", then=lambda: schema.calls.append("then"))
        == 3
    )

    assert schema.calls == ["lock", "version", "apply 2: two", "apply 3: three", "then", "unlock"]


def test_a_refused_database_runs_no_migration_and_no_setup() -> None:
    schema = _Recorded(version=5)

    with pytest.raises(DeepResearchError, match="newer than this deepresearch"):
        migrate(schema, ["one"], what="db", fix="-", then=lambda: schema.calls.append("then"))

    assert schema.calls == ["lock", "version", "unlock"]


def _open_at_once(path: str, start: Any, outcomes: Any) -> None:
    from deepresearch.index.store import DocumentIndex
    from deepresearch.jobs.store import JobStore

    start.wait()
    try:
        JobStore(Path(path) / "jobs.sqlite").close()
        DocumentIndex(Path(path) / "index.sqlite").close()
        outcomes.put("opened")
    except Exception as exc:  # noqa: BLE001 - the test reports what any process met
        outcomes.put(f"{type(exc).__name__}: {exc}")


@pytest.mark.parametrize("trial", range(3))
def test_processes_opening_a_brand_new_database_at_once_all_open_it(tmp_path: Path, trial: int) -> None:
    """A server and CLI commands started together on an empty home (before: "table jobs already
    exists" in some of them, every time with six)."""
    context = multiprocessing.get_context("fork")
    start, outcomes = context.Barrier(6), context.Queue()
    processes = [
        context.Process(target=_open_at_once, args=(str(tmp_path), start, outcomes)) for _ in range(6)
    ]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [outcomes.get(timeout=5) for _ in processes] == ["opened"] * 6
    assert _version(tmp_path / "jobs.sqlite") > 0 and _version(tmp_path / "index.sqlite") > 0
