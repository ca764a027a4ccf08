"""The fixtures themselves: both servers answer on loopback."""

from __future__ import annotations


def test_redis_and_postgres_answer(redis_url: str, database_url: str) -> None:
    import psycopg
    import redis

    assert redis.Redis.from_url(redis_url).ping()
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT 1").fetchone() == (1,)
