"""The jobs database: jobs and their events in SQLite, changed only through numbered migrations.

The schema version is SQLite's ``PRAGMA user_version``; :data:`MIGRATIONS` ``[n]`` moves a database
from version ``n`` to ``n + 1``. Every write commits at once (WAL journal), so a process killed with
``kill -9`` loses at most the write in flight. One connection is shared by all threads behind a lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from deepresearch.errors import StorageFullError
from deepresearch.jobs.base import JobStoreLike
from deepresearch.jobs.rows import (
    UNFINISHED,
    JobRow,
    JobStatus,
    StoredEvent,
    event_from_row,
    job_from_row,
    utc_now,
)
from deepresearch.sqlite import immediate, is_storage_error, use_wal
from deepresearch.sqlite import migrate as apply_migrations

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        topic TEXT NOT NULL,
        status TEXT NOT NULL,
        dry_run INTEGER NOT NULL DEFAULT 0,
        overrides TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        run_dir TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        result TEXT
    );
    CREATE INDEX jobs_by_created ON jobs (created_at);
    CREATE INDEX jobs_by_status ON jobs (status);
    CREATE TABLE job_events (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (job_id, seq)
    );
    """,
    # 2: a cancel asked of a running job is kept, so a restart does not resume the job.
    """
    ALTER TABLE jobs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
    """,
    # 3: plan review: the job stops at ``awaiting_review`` and resumes with the stored decision.
    """
    ALTER TABLE jobs ADD COLUMN review_plan INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN plan_decision TEXT;
    """,
    # 4: an event a graph step writes carries a key (its task, kind and ordinal), stored once: a
    # step run again after a resume writes nothing twice.
    """
    ALTER TABLE job_events ADD COLUMN key TEXT;
    CREATE UNIQUE INDEX job_events_by_key ON job_events (job_id, key);
    """,
    # 5: one row rewritten by the readiness probe, so that /readyz knows whether writes succeed.
    """
    CREATE TABLE write_probe (id INTEGER PRIMARY KEY CHECK (id = 1), at REAL NOT NULL);
    """,
)


class JobStore(JobStoreLike):
    """Jobs and events at ``path``; the schema is migrated to the latest version on open.

    Writes go through one connection, reads through another, so readers (event streams) never
    wait behind a writer. ``synchronous=NORMAL`` under WAL: a committed write survives the process
    being killed; only a power cut can lose the last commits.
    """

    _FINISH = (
        "UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ? "
        "WHERE id = ? AND status IN (?, ?, ?)"
    )

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._read_lock = threading.Lock()
        self._write_failure: str | None = None
        self._conn = _connect(path)
        use_wal(self._conn)
        migrate(self._conn)
        self._reader = _connect(path)

    def close(self) -> None:
        with self._lock, self._read_lock:
            self._reader.close()
            self._conn.close()

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock:
            yield self._reader

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction; a disk that takes no writes is :class:`StorageFullError`, and is
        remembered (:meth:`write_failure`) until a write succeeds again."""
        try:
            with immediate(self._conn, self._lock) as db:
                yield db
        except sqlite3.Error as exc:
            if not is_storage_error(exc):
                raise
            self._write_failure = f"the jobs database {self.path} cannot be written ({exc})"
            raise StorageFullError(
                f"{self._write_failure}: free space on that disk (or raise its file-size limit); "
                "nothing was changed"
            ) from exc
        self._write_failure = None

    def probe_writes(self) -> str | None:
        """Write and commit one row (``write_probe``); why that failed, or None."""
        with suppress(StorageFullError), self._tx() as db:
            db.execute("INSERT OR REPLACE INTO write_probe (id, at) VALUES (1, ?)", (time.time(),))
        return self._write_failure

    def create(
        self, topic: str, *, overrides: dict[str, Any], dry_run: bool = False, review_plan: bool = False
    ) -> JobRow:
        """A new ``queued`` job with a fresh random id."""
        job_id = uuid.uuid4().hex
        with self._tx() as db:
            db.execute(
                "INSERT INTO jobs (id, topic, status, dry_run, overrides, created_at, review_plan) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (job_id, topic, "queued", int(dry_run), json.dumps(overrides), utc_now(), int(review_plan)),
            )
        return self.require(job_id)

    def get(self, job_id: str) -> JobRow | None:
        with self._read() as db:
            row = db.execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return job_from_row(row) if row else None

    def recent(self, *, limit: int = 50, offset: int = 0, status: str | None = None) -> list[JobRow]:
        """Newest first."""
        where, args = ("WHERE status = ?", [status]) if status else ("", [])
        sql = f"SELECT * FROM jobs {where} ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
        with self._read() as db:
            rows = db.execute(sql, [*args, limit, offset]).fetchall()
        return [job_from_row(r) for r in rows]

    def count(self, status: JobStatus) -> int:
        with self._read() as db:
            row = db.execute("SELECT COUNT(*) FROM jobs WHERE status = ?", (status,)).fetchone()
        return int(row[0])

    def request_cancel(self, job_id: str) -> bool:
        """Record that the job must stop (kept across restarts); False when it has finished."""
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND status IN (?, ?)",
                (job_id, *UNFINISHED),
            )
        return cur.rowcount == 1

    def unfinished(self) -> list[JobRow]:
        """Jobs a restart must pick up again, oldest first."""
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM jobs WHERE status IN (?, ?) ORDER BY created_at, rowid", UNFINISHED
            ).fetchall()
        return [job_from_row(r) for r in rows]

    def mark_running(self, job_id: str) -> bool:
        """``queued``/``running`` → ``running`` (one more attempt); False when already finished."""
        with self._tx() as db:
            cur = db.execute(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, "
                "started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN (?, ?)",
                (utc_now(), job_id, *UNFINISHED),
            )
        return cur.rowcount == 1

    def set_run_dir(self, job_id: str, run_dir: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE jobs SET run_dir = ? WHERE id = ?", (run_dir, job_id))

    def await_review(self, job_id: str, event: dict[str, Any], now: float) -> StoredEvent | None:
        """``running`` → ``awaiting_review``, with the event showing the plan (one transaction);
        None when the job was not running."""
        sql = "UPDATE jobs SET status = 'awaiting_review' WHERE id = ? AND status = 'running'"
        return self._moved(sql, (job_id,), job_id, event, now)

    def resume_review(
        self, job_id: str, decision: dict[str, Any], event: dict[str, Any], now: float
    ) -> StoredEvent | None:
        """``awaiting_review`` → ``queued`` with the reviewed plan (one transaction); None when the
        job was not awaiting review."""
        sql = (
            "UPDATE jobs SET status = 'queued', plan_decision = ? WHERE id = ? AND status = 'awaiting_review'"
        )
        return self._moved(sql, (json.dumps(decision, ensure_ascii=False), job_id), job_id, event, now)

    def _moved(
        self, sql: str, values: Sequence[Any], job_id: str, event: dict[str, Any], now: float
    ) -> StoredEvent | None:
        with self._tx() as db:
            cur = db.execute(sql, values)
            return self._insert_event(db, job_id, event, now) if cur.rowcount == 1 else None

    def _appended(self, job_id: str, event: dict[str, Any], now: float, key: str | None) -> StoredEvent:
        with self._tx() as db:
            return self._insert_event(db, job_id, event, now, key)

    def _insert_event(
        self, db: sqlite3.Connection, job_id: str, event: dict[str, Any], now: float, key: str | None = None
    ) -> StoredEvent:
        row = db.execute("SELECT COALESCE(MAX(seq), 0) FROM job_events WHERE job_id = ?", (job_id,))
        seq = int(row.fetchone()[0]) + 1
        body = {**event, "seq": seq}
        cur = db.execute(
            "INSERT OR IGNORE INTO job_events (job_id, seq, type, body, created_at, key) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (job_id, seq, body["type"], json.dumps(body, ensure_ascii=False), now, key),
        )
        if cur.rowcount == 0:
            stored = db.execute("SELECT * FROM job_events WHERE job_id = ? AND key = ?", (job_id, key))
            return event_from_row(stored.fetchone())
        return StoredEvent(job_id, seq, body["type"], body, now)

    def events(self, job_id: str, *, after: int = 0, limit: int = 500) -> list[StoredEvent]:
        """The job's events with ``seq > after``, in order."""
        with self._read() as db:
            rows = db.execute(
                "SELECT * FROM job_events WHERE job_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                (job_id, after, limit),
            ).fetchall()
        return [event_from_row(r) for r in rows]

    def event_types(self, job_id: str) -> Sequence[tuple[str, dict[str, Any]]]:
        """``(type, body)`` of every event but ``done`` (whose body holds the whole result)."""
        with self._read() as db:
            rows = db.execute(
                "SELECT type, body FROM job_events WHERE job_id = ? AND type != 'done' ORDER BY seq",
                (job_id,),
            ).fetchall()
        return [(r["type"], json.loads(r["body"])) for r in rows]


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations the database has not had yet; returns the resulting version."""
    return apply_migrations(conn, MIGRATIONS, what="jobs database", fix="point DEEPRESEARCH_HOME elsewhere")


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA busy_timeout=5000")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn
