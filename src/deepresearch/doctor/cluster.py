"""Readiness of the team setup: the broker (Redis) and the database (PostgreSQL), for ``/readyz``
and ``deepresearch doctor``. Nothing is checked for ``JOBS_BACKEND=local``."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from deepresearch.doctor.check import Check
    from deepresearch.settings import Settings

EXTRA = "pip install 'deepresearch-offline[team]'"


def cluster_checks(settings: Settings) -> list[Check]:
    """``broker`` and ``database`` checks when ``JOBS_BACKEND=celery``, else none."""
    if settings.jobs_backend != "celery":
        return []
    return [broker_check(settings), database_check(settings)]


def broker_check(settings: Settings) -> Check:
    from deepresearch.doctor.check import Check

    if settings.redis_url is None:
        return Check("broker", False, "REDIS_URL is not set", "set REDIS_URL=redis://host:6379/0")
    url = settings.redis_url.get_secret_value()
    try:
        import redis
    except ImportError:
        return Check("broker", False, "the redis client is not installed", EXTRA)
    client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
    try:
        client.ping()
    except redis.RedisError as exc:
        return Check(
            "broker", False, f"Redis at {where(url)} does not answer: {exc}", "start Redis or fix REDIS_URL"
        )
    finally:
        client.close()
    return Check("broker", True, f"Redis at {where(url)} answers")


def database_check(settings: Settings) -> Check:
    from deepresearch.doctor.check import Check

    if settings.database_url is None:
        return Check(
            "database", False, "DATABASE_URL is not set", "set DATABASE_URL=postgresql://user:pass@host/db"
        )
    url = settings.database_url.get_secret_value()
    try:
        import psycopg
    except ImportError:
        return Check("database", False, "the PostgreSQL driver is not installed", EXTRA)
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            version = _schema_version(conn)
    except psycopg.Error as exc:
        detail = " ".join(str(exc).split())[:300]
        return Check(
            "database", False, f"PostgreSQL at {where(url)}: {detail}", "start PostgreSQL or fix DATABASE_URL"
        )
    from deepresearch.jobs.postgres import MIGRATIONS

    state = "up to date" if version == len(MIGRATIONS) else f"version {version}, migrated on start"
    return Check("database", True, f"PostgreSQL at {where(url)} answers; schema {state}")


def _schema_version(conn: object) -> int:
    import psycopg

    assert isinstance(conn, psycopg.Connection)
    exists = conn.execute("SELECT to_regclass('deepresearch_schema') IS NOT NULL").fetchone()
    if not exists or not exists[0]:
        return 0
    row = conn.execute("SELECT COALESCE(MAX(version), 0) FROM deepresearch_schema").fetchone()
    return int(row[0]) if row else 0


def where(url: str) -> str:
    """``host:port/db`` of a URL, without its user or password."""
    parts = urlsplit(url)
    return f"{parts.hostname or 'localhost'}{f':{parts.port}' if parts.port else ''}{parts.path}"
