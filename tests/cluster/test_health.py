"""The broker and database checks that /readyz and ``deepresearch doctor`` show for a team setup."""

from __future__ import annotations

from deepresearch.doctor.cluster import cluster_checks
from deepresearch.settings import Settings


def _checks(**values: object) -> dict[str, tuple[bool, str, str]]:
    settings = Settings.load({"jobs_backend": "celery", **values})
    return {c.name: (c.ok, c.detail, c.fix) for c in cluster_checks(settings)}


def test_the_local_backend_checks_nothing_more() -> None:
    assert cluster_checks(Settings.load({"jobs_backend": "local"})) == []


def test_missing_urls_say_what_to_set() -> None:
    checks = _checks()
    assert checks["broker"][0] is False and "REDIS_URL" in checks["broker"][2]
    assert checks["database"][0] is False and "DATABASE_URL" in checks["database"][2]


def test_unreachable_servers_fail_without_showing_the_password() -> None:
    checks = _checks(
        redis_url="redis://:hunter2@127.0.0.1:1/0", database_url="postgresql://u:hunter2@127.0.0.1:1/db"
    )
    assert checks["broker"][0] is False and "127.0.0.1:1" in checks["broker"][1]
    assert checks["database"][0] is False and "127.0.0.1:1/db" in checks["database"][1]
    assert "hunter2" not in repr(checks)


def test_live_servers_pass(redis_url: str, database_url: str) -> None:
    checks = _checks(redis_url=redis_url, database_url=database_url)
    assert checks["broker"][0] and checks["database"][0]
    assert "migrated on start" in checks["database"][1]
