"""Fixtures for the scale-out tests: real redis-server and PostgreSQL, started once per session.

Every test gets its own database and its own Redis database number, so tests cannot see each
other's jobs, events or locks. Without the binaries the tests skip and say how to install them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from .services import create_database, missing, postgres_server, redis_server

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def _servers() -> Iterator[tuple[str, str]]:
    reason = missing()
    if reason:
        pytest.skip(reason)
    with redis_server() as redis_url, postgres_server() as pg_url:
        yield redis_url, pg_url


@pytest.fixture
def database_url(_servers: tuple[str, str]) -> str:
    """A fresh, empty PostgreSQL database for this test."""
    return create_database(_servers[1], f"dr_test_{next(_numbers)}")


@pytest.fixture
def redis_url(_servers: tuple[str, str]) -> Iterator[str]:
    """A Redis database (0-15) emptied before the test."""
    import redis

    url = _servers[0].rsplit("/", 1)[0] + f"/{next(_numbers) % 16}"
    client = redis.Redis.from_url(url)
    client.flushdb()
    client.close()
    yield url
