"""Jobs, their events and the research checkpoints in PostgreSQL (``DATABASE_URL``), for Celery workers.

The schema changes only through :data:`MIGRATIONS` (``deepresearch_schema`` records the version),
applied by the project's one runner (:mod:`deepresearch.migrations`); every process migrates on
start under an advisory lock, so API nodes and workers may start together.
Events are numbered per job from the job row (``last_seq``, bumped under its row lock), so the
sequence has no gap and no duplicate whichever process writes. A running job carries a lease
(``lease_owner``, ``lease_until`` on the database's clock): its worker renews it; a job whose lease
ran out (its worker died) is handed to another worker, which resumes it from its last checkpoint.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

from deepresearch.errors import ConfigurationError, DeepResearchError, JobNotFoundError, UnavailableError
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
from deepresearch.limits import TEAM_EXTRA
from deepresearch.migrations import migrate as run_migrations

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

MIGRATION_LOCK = 0x6472_6A6F_6273  # "drjobs": one migrating process at a time
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE jobs (
        id TEXT PRIMARY KEY,
        topic TEXT NOT NULL,
        status TEXT NOT NULL,
        dry_run BOOLEAN NOT NULL DEFAULT FALSE,
        overrides TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        started_at TEXT,
        finished_at TEXT,
        run_dir TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 0,
        result TEXT,
        cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
        last_seq INTEGER NOT NULL DEFAULT 0,
        lease_owner TEXT,
        lease_until TIMESTAMPTZ,
        ordinal BIGSERIAL
    );
    CREATE INDEX jobs_by_created ON jobs (created_at);
    CREATE INDEX jobs_by_status ON jobs (status);
    CREATE TABLE job_events (
        job_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (job_id, seq)
    );
    """,
    # 2: when a queued job is next sent to the broker again if no worker has taken it (an API node
    # that died between storing the job and queueing it must not leave it queued for ever).
    "ALTER TABLE jobs ADD COLUMN requeue_at TIMESTAMPTZ",
    # 3: plan review: the job stops at ``awaiting_review`` and resumes with the stored decision.
    "ALTER TABLE jobs ADD COLUMN review_plan BOOLEAN NOT NULL DEFAULT FALSE, ADD COLUMN plan_decision TEXT",
    # 4: an event a graph step writes carries a key (its task, kind and ordinal), stored once: a
    # step run again after a resume writes nothing twice.
    """
    ALTER TABLE job_events ADD COLUMN key TEXT;
    CREATE UNIQUE INDEX job_events_by_key ON job_events (job_id, key);
    """,
)
REQUEUE_LEASES = 0.5
"""How often, in lease periods, the keepers look for queued jobs whose broker message is missing."""
POOL_WAIT_SECONDS = 5.0
"""How long a request waits for a database connection before it is answered 503 (unavailable)."""
RECONNECT_SECONDS = 10.0
"""How long the pool retries one reconnection (with backoff) before the next request starts a fresh
one: with psycopg_pool's default (5 min) the backoff grew so long during an outage that the pool
stayed empty minutes after the database was back."""
FIX = (
    "set DATABASE_URL to a reachable PostgreSQL database, e.g. postgresql://user:pass@host:5432/deepresearch"
)


def connection_pool(url: str, *, max_size: int = 10) -> ConnectionPool:
    """A pool of autocommit connections with dict rows (what the store and LangGraph's saver want)."""
    try:
        import psycopg
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool
    except ImportError as exc:
        raise ConfigurationError(TEAM_EXTRA) from exc
    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.Error as exc:
        raise ConfigurationError(f"cannot connect to PostgreSQL: {_clean(exc)}; {FIX}") from None
    kwargs = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}
    return ConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        kwargs=kwargs,
        open=True,
        check=ConnectionPool.check_connection,
        timeout=POOL_WAIT_SECONDS,
        reconnect_timeout=RECONNECT_SECONDS,
    )


MIGRATION_WAIT_SECONDS = 300.0


def migrate(pool: ConnectionPool, *, wait: float = MIGRATION_WAIT_SECONDS) -> int:
    """Apply the migrations the database has not had (and LangGraph's); returns the version.

    :func:`deepresearch.migrations.migrate` over :class:`PostgresSchema`; the migrating connection
    runs LangGraph's setup too, under the same lock.
    """
    with pool.connection() as conn:
        return run_migrations(
            PostgresSchema(conn, wait),
            MIGRATIONS,
            what="jobs database",
            fix="point DATABASE_URL elsewhere",
            then=lambda: postgres_checkpointer(conn).setup(),
        )


class PostgresSchema:
    """The version in ``deepresearch_schema`` (one row per migration applied, inserted in the
    migration's transaction), under the advisory lock :data:`MIGRATION_LOCK`.

    One process migrates at a time. The others wait for the lock *between* statements
    (``pg_try_advisory_lock``, polled), never inside one: LangGraph's setup builds an index
    ``CONCURRENTLY``, which waits for every open transaction, and a blocked ``pg_advisory_lock``
    is one, so processes started together on an empty database deadlocked (the index waited for
    the waiters, which waited for the lock).
    """

    def __init__(self, conn: psycopg.Connection[Any], wait: float = MIGRATION_WAIT_SECONDS) -> None:
        self.conn = conn
        self.wait = wait

    @contextmanager
    def locked(self) -> Iterator[None]:
        _lock(self.conn, self.wait)
        try:
            yield
        finally:
            self.conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK,))

    def version(self) -> int:
        self.conn.execute("CREATE TABLE IF NOT EXISTS deepresearch_schema (version INTEGER NOT NULL)")
        row = self.conn.execute("SELECT MAX(version) AS v FROM deepresearch_schema").fetchone()
        return int(row["v"] or 0) if row else 0

    def apply(self, number: int, script: str) -> None:
        with self.conn.transaction():
            self.conn.execute(script, prepare=False)
            self.conn.execute("INSERT INTO deepresearch_schema (version) VALUES (%s)", (number,))


def _lock(conn: psycopg.Connection[Any], wait: float) -> None:
    deadline = time.monotonic() + wait
    while not _try_lock(conn):
        if time.monotonic() > deadline:
            raise DeepResearchError(
                f"another process has held the migration lock for over {wait:g} s; if none is migrating, "
                "a stuck session holds it: end it (pg_terminate_backend) and start again"
            )
        time.sleep(0.1)


def _try_lock(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (MIGRATION_LOCK,)).fetchone()
    return bool(row and row["locked"])


def postgres_checkpointer(pool: ConnectionPool | psycopg.Connection[Any]) -> Any:
    """LangGraph's PostgreSQL saver over ``pool`` (or one connection), reviving only the research
    state's own types."""
    from langgraph.checkpoint.postgres import PostgresSaver

    from deepresearch.durable import state_serializer

    return PostgresSaver(pool, serde=state_serializer())  # type: ignore[arg-type]


class PostgresJobStore(JobStoreLike):
    """The same contract as the SQLite :class:`~deepresearch.jobs.store.JobStore`, shared by every
    API node and worker. ``owner`` names this process in the leases it takes."""

    _FINISH = (
        "UPDATE jobs SET status = %s, finished_at = %s, result = %s, error = %s, "
        "lease_owner = NULL, lease_until = NULL WHERE id = %s AND status IN (%s, %s, %s) RETURNING id"
    )

    def __init__(
        self, pool: ConnectionPool, *, owner: str | None = None, lease_seconds: float = 30.0
    ) -> None:
        self.pool = pool
        self.path = "postgresql"
        self.owner = owner or uuid.uuid4().hex
        self.lease_seconds = lease_seconds

    def close(self) -> None:
        self.pool.close()

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection (checked before use: one a restart closed is replaced); a database
        that cannot be reached, or went away mid-statement, is :class:`UnavailableError`."""
        import psycopg

        try:
            with self.pool.connection() as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise UnavailableError(f"the jobs database cannot be reached now: {_clean(exc)}") from exc

    @contextmanager
    def _tx(self) -> Iterator[psycopg.Connection[Any]]:
        with self._connection() as conn, conn.transaction():
            yield conn

    def _one(self, sql: str, args: Sequence[Any] = ()) -> dict[str, Any] | None:
        with self._connection() as conn:
            row = conn.execute(sql, args).fetchone()
        return cast("dict[str, Any] | None", row)

    def _all(self, sql: str, args: Sequence[Any] = ()) -> list[dict[str, Any]]:
        with self._connection() as conn:
            return cast("list[dict[str, Any]]", conn.execute(sql, args).fetchall())

    def create(
        self, topic: str, *, overrides: dict[str, Any], dry_run: bool = False, review_plan: bool = False
    ) -> JobRow:
        job_id = uuid.uuid4().hex
        self._one(
            "INSERT INTO jobs (id, topic, status, dry_run, overrides, created_at, requeue_at, review_plan) "
            "VALUES (%s, %s, 'queued', %s, %s, %s, now() + make_interval(secs => %s), %s) RETURNING id",
            (job_id, topic, dry_run, json.dumps(overrides), utc_now(), self.requeue_seconds, review_plan),
        )
        return self.require(job_id)

    def discard(self, job_id: str) -> None:
        """Delete a job that was never queued (its broker refused it), with its events."""
        self._one("DELETE FROM jobs WHERE id = %s AND status = 'queued' RETURNING id", (job_id,))

    def get(self, job_id: str) -> JobRow | None:
        if not storable(job_id):
            return None
        row = self._one("SELECT * FROM jobs WHERE id = %s", (job_id,))
        return job_from_row(row) if row else None

    def recent(self, *, limit: int = 50, offset: int = 0, status: str | None = None) -> list[JobRow]:
        """Newest first."""
        where, args = ("WHERE status = %s", [status]) if status else ("", [])
        sql = f"SELECT * FROM jobs {where} ORDER BY created_at DESC, ordinal DESC LIMIT %s OFFSET %s"
        return [job_from_row(r) for r in self._all(sql, [*args, limit, offset])]

    def count(self, status: JobStatus) -> int:
        row = self._one("SELECT COUNT(*) AS n FROM jobs WHERE status = %s", (status,))
        return int(row["n"]) if row else 0

    def request_cancel(self, job_id: str) -> bool:
        if not storable(job_id):
            return False
        row = self._one(
            "UPDATE jobs SET cancel_requested = TRUE WHERE id = %s AND status IN ('queued', 'running') "
            "RETURNING id",
            (job_id,),
        )
        return row is not None

    def unfinished(self) -> list[JobRow]:
        rows = self._all("SELECT * FROM jobs WHERE status IN (%s, %s) ORDER BY ordinal", UNFINISHED)
        return [job_from_row(r) for r in rows]

    def mark_running(self, job_id: str) -> bool:
        """Take the job (one more attempt, a fresh lease): False when it has finished or another
        live worker holds it."""
        row = self._one(
            "UPDATE jobs SET status = 'running', attempts = attempts + 1, "
            "started_at = COALESCE(started_at, %s), lease_owner = %s, "
            "lease_until = now() + make_interval(secs => %s) "
            "WHERE id = %s AND (status = 'queued' OR (status = 'running' AND "
            "(lease_until IS NULL OR lease_until < now()))) RETURNING id",
            (utc_now(), self.owner, self.lease_seconds, job_id),
        )
        return row is not None

    def renew(self, job_ids: Sequence[str]) -> list[str]:
        """Extend this process's leases on ``job_ids``; returns the ids whose run must stop: a
        cancel was asked, or the job is no longer this process's (finished, or handed on)."""
        if not job_ids:
            return []
        rows = self._all(
            "UPDATE jobs SET lease_until = now() + make_interval(secs => %s) "
            "WHERE id = ANY(%s) AND status = 'running' AND lease_owner = %s RETURNING id, cancel_requested",
            (self.lease_seconds, list(job_ids), self.owner),
        )
        kept = {r["id"] for r in rows if not r["cancel_requested"]}
        return [job_id for job_id in job_ids if job_id not in kept]

    def reclaim_expired(self) -> list[str]:
        """Put back to ``queued`` the running jobs whose lease ran out (their worker died); each is
        returned to exactly one caller, who queues it again."""
        rows = self._all(
            "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL, "
            "requeue_at = now() + make_interval(secs => %s) "
            "WHERE status = 'running' AND lease_until < now() RETURNING id",
            (self.requeue_seconds,),
        )
        return [r["id"] for r in rows]

    @property
    def requeue_seconds(self) -> float:
        return self.lease_seconds * REQUEUE_LEASES

    def requeue_stranded(self) -> list[str]:
        """The queued jobs no worker has taken for :data:`REQUEUE_LEASES` of a lease period, each
        returned to one caller per period, who sends it again if its broker message is missing
        (never sent, or lost with a Redis restart). A second delivery of a taken job is a no-op."""
        rows = self._all(
            "UPDATE jobs SET requeue_at = now() + make_interval(secs => %s) "
            "WHERE status = 'queued' AND dry_run = FALSE AND requeue_at < now() RETURNING id",
            (self.requeue_seconds,),
        )
        return [r["id"] for r in rows]

    def release(self, job_id: str) -> bool:
        """Give back a job this process holds (it is stopping), so another worker takes it now."""
        row = self._one(
            "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL, "
            "requeue_at = now() + make_interval(secs => %s) "
            "WHERE id = %s AND status = 'running' AND lease_owner = %s RETURNING id",
            (self.requeue_seconds, job_id, self.owner),
        )
        return row is not None

    def set_run_dir(self, job_id: str, run_dir: str) -> None:
        self._one("UPDATE jobs SET run_dir = %s WHERE id = %s RETURNING id", (run_dir, job_id))

    def await_review(self, job_id: str, event: dict[str, Any], now: float) -> StoredEvent | None:
        """``running`` → ``awaiting_review`` (lease released), with the plan's event; None when the
        job was not running."""
        sql = (
            "UPDATE jobs SET status = 'awaiting_review', lease_owner = NULL, lease_until = NULL "
            "WHERE id = %s AND status = 'running' RETURNING id"
        )
        return self._moved(sql, (job_id,), job_id, event, now)

    def resume_review(
        self, job_id: str, decision: dict[str, Any], event: dict[str, Any], now: float
    ) -> StoredEvent | None:
        """``awaiting_review`` → ``queued`` with the reviewed plan; None when it was not waiting."""
        sql = (
            "UPDATE jobs SET status = 'queued', plan_decision = %s, "
            "requeue_at = now() + make_interval(secs => %s) "
            "WHERE id = %s AND status = 'awaiting_review' RETURNING id"
        )
        values = (json.dumps(decision, ensure_ascii=False), self.requeue_seconds, job_id)
        return self._moved(sql, values, job_id, event, now)

    def _moved(
        self, sql: str, values: Sequence[Any], job_id: str, event: dict[str, Any], now: float
    ) -> StoredEvent | None:
        """``sql`` ends ``RETURNING id``: a row back is a row changed."""
        with self._tx() as conn:
            row = conn.execute(sql, values).fetchone()
            return _insert_event(conn, job_id, event, now) if row else None

    def _appended(self, job_id: str, event: dict[str, Any], now: float, key: str | None) -> StoredEvent:
        with self._tx() as conn:
            return _insert_event(conn, job_id, event, now, key)

    def events(self, job_id: str, *, after: int = 0, limit: int = 500) -> list[StoredEvent]:
        if not storable(job_id):
            return []
        rows = self._all(
            "SELECT * FROM job_events WHERE job_id = %s AND seq > %s ORDER BY seq LIMIT %s",
            (job_id, after, limit),
        )
        return [event_from_row(r) for r in rows]

    def event_types(self, job_id: str) -> Sequence[tuple[str, dict[str, Any]]]:
        if not storable(job_id):
            return []
        rows = self._all(
            "SELECT type, body FROM job_events WHERE job_id = %s AND type != 'done' ORDER BY seq", (job_id,)
        )
        return [(r["type"], json.loads(r["body"])) for r in rows]


def storable(text: str) -> bool:
    """False for text PostgreSQL cannot hold (a NUL character): no job has such an id, so a request
    naming one is answered as for any unknown job, not with the database's DataError (a 500)."""
    return "\x00" not in text


def _insert_event(
    conn: psycopg.Connection[Any], job_id: str, event: dict[str, Any], now: float, key: str | None = None
) -> StoredEvent:
    """Under the job row's lock: the next ``seq``, unless an event with ``key`` is stored already."""
    row = conn.execute("SELECT last_seq FROM jobs WHERE id = %s FOR UPDATE", (job_id,)).fetchone()
    if row is None:
        raise JobNotFoundError.of(job_id)
    body = {**event, "seq": int(row["last_seq"]) + 1}
    inserted = conn.execute(
        "INSERT INTO job_events (job_id, seq, type, body, created_at, key) VALUES (%s, %s, %s, %s, %s, %s) "
        "ON CONFLICT (job_id, key) DO NOTHING RETURNING seq",
        (job_id, body["seq"], body["type"], json.dumps(body, ensure_ascii=False), now, key),
    ).fetchone()
    if inserted is None:
        stored = conn.execute("SELECT * FROM job_events WHERE job_id = %s AND key = %s", (job_id, key))
        return event_from_row(cast("dict[str, Any]", stored.fetchone()))
    conn.execute("UPDATE jobs SET last_seq = %s WHERE id = %s", (body["seq"], job_id))
    return StoredEvent(job_id, body["seq"], body["type"], body, now)


def _clean(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__
