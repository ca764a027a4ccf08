"""Reports in the formats people share: Markdown, one-file HTML, PDF, Word and JSON, and any format
a module registers (:mod:`deepresearch.export.registry`).

``render(result, fmt)`` gives the bytes of one format; ``resolve_format`` picks the format from an
explicit choice or a file name's suffix. The CLI (``--format``/``--out``), the job API
(``GET /tasks/{id}/report?format=``) and the web page all go through here.
"""

from __future__ import annotations

from pathlib import Path

from deepresearch.errors import ConfigurationError
from deepresearch.export.registry import FORMATS, ExportFormat, by_suffix, named, register_format, suffixes
from deepresearch.result import ResearchResult

DEFAULT = "md"

__all__ = ["FORMATS", "ExportFormat", "ensure_available", "register_format", "render", "resolve_format"]


def resolve_format(explicit: str | None, out: Path | None = None) -> ExportFormat:
    """``explicit`` when given, else the format ``out``'s suffix names, else Markdown.

    Raises :class:`ConfigurationError` for an unknown format or an ``out`` suffix that names none
    while no format was given (so ``--out report.odt`` does not silently write Markdown)."""
    if explicit is not None:
        chosen = named(explicit)
        if chosen is None:
            raise ConfigurationError(
                f"unknown format {explicit!r}: choose one of {', '.join(FORMATS.names())}"
            )
        return chosen
    if out is None or not out.suffix:
        return FORMATS.get(DEFAULT)
    found = by_suffix(out.suffix)
    if found is None:
        raise ConfigurationError(
            f"cannot tell the format of {out.name!r} from its suffix: name it "
            f"{', '.join(suffixes())}, or give --format"
        )
    return found


def ensure_available(fmt: ExportFormat | str) -> None:
    """Raise :class:`ConfigurationError` (with the install line) when ``fmt`` cannot be written here."""
    _format(fmt).check()


def render(result: ResearchResult, fmt: ExportFormat | str) -> bytes:
    """The report as ``fmt`` bytes (text formats in UTF-8)."""
    return _format(fmt).render(result)


def _format(fmt: ExportFormat | str) -> ExportFormat:
    return fmt if isinstance(fmt, ExportFormat) else resolve_format(fmt)
