"""The one migration runner, for every database the project keeps (the SQLite index and job store,
the PostgreSQL job store).

A schema changes only through a list of numbered migrations: ``migrations[n]`` moves a database from
version ``n`` to ``n + 1``, and is never edited once released (databases created by older code must
keep opening). :func:`migrate` applies the ones a database has not had, in order, each with its new
version recorded in the same transaction, and refuses a database newer than the code. What differs
between databases is the :class:`Schema` adapter: where the version is kept, how one migration runs
in one transaction, and which lock keeps two processes from migrating at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from deepresearch.errors import DeepResearchError


class Schema(Protocol):
    """One database's hooks for :func:`migrate`."""

    def locked(self) -> AbstractContextManager[object]:
        """Held while the version is read and the migrations run (one migrating process at a time)."""
        ...

    def version(self) -> int:
        """The migrations applied so far (0 for an empty database)."""
        ...

    def apply(self, number: int, script: str) -> None:
        """Run ``script`` and record ``number`` as the version, in one transaction."""
        ...


def migrate(
    schema: Schema,
    migrations: Sequence[str],
    *,
    what: str,
    fix: str,
    error: type[DeepResearchError] = DeepResearchError,
    then: Callable[[], object] | None = None,
) -> int:
    """Apply the migrations ``schema`` has not had, then ``then()`` under the same lock; return the
    version (``len(migrations)``). A database newer than this code raises ``error`` naming ``what``
    (the database) and ``fix`` (what else the user can do)."""
    with schema.locked():
        version = schema.version()
        if version > len(migrations):
            raise error(
                f"the {what} is at schema version {version}, newer than this deepresearch supports "
                f"({len(migrations)}); upgrade deepresearch or {fix}"
            )
        for number, script in enumerate(migrations[version:], start=version + 1):
            schema.apply(number, script)
        if then is not None:
            then()
    return len(migrations)
