"""The export formats there are: each module of a format registers one :class:`ExportFormat`.

A format is added by one module (``export/<name>.py``, or a third party's module once imported)
that calls ``register_format(ExportFormat(...))``: its name (``--format``, ``?format=``), the label
people see, its media type and file suffixes, the function that renders a result, and whether it
is binary or needs a library. :func:`deepresearch.export.resolve_format` and
:func:`~deepresearch.export.render`, the CLI, the job API's ``/tasks/{id}/report``, its OpenAPI
schema and the web page read :data:`FORMATS`; no other list of format names exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from deepresearch.registry import Registry
from deepresearch.result import ResearchResult


def _nothing_to_check() -> None:
    return None


@dataclass(frozen=True)
class ExportFormat:
    """One export format. ``suffixes`` name it in a file name (the first names the download);
    ``aliases`` are other names ``--format`` takes; ``binary`` formats cannot go to a terminal;
    ``check`` raises :class:`~deepresearch.errors.ConfigurationError` with the install line when
    the library it needs is missing (called before a run starts, so a run is not wasted)."""

    name: str
    label: str
    media_type: str
    suffixes: tuple[str, ...]
    render: Callable[[ResearchResult], bytes]
    aliases: tuple[str, ...] = ()
    binary: bool = False
    check: Callable[[], object] = _nothing_to_check
    download: bool = True


FORMATS: Registry[ExportFormat] = Registry("export format", "deepresearch.export", lambda fmt: fmt.name)
"""Every export format; the built-ins are the modules of :mod:`deepresearch.export`."""


def register_format(fmt: ExportFormat, *, replace: bool = False) -> ExportFormat:
    """Make ``fmt`` a choice of ``--format``, of a file's suffix and of ``?format=``."""
    return FORMATS.register(fmt, replace=replace)


def named(name: str) -> ExportFormat | None:
    """The format ``name`` (or one of its aliases) names; ``None`` when none does."""
    wanted = name.strip().lower().lstrip(".")
    return next((fmt for fmt in FORMATS if wanted == fmt.name or wanted in fmt.aliases), None)


def by_suffix(suffix: str) -> ExportFormat | None:
    """The format a file suffix (``.md``) names; ``None`` when none does."""
    return next((fmt for fmt in FORMATS if suffix.lower() in fmt.suffixes), None)


def suffixes() -> list[str]:
    return [suffix for fmt in FORMATS for suffix in fmt.suffixes[:1]]
