"""Reports in the formats people share: Markdown, one-file HTML, PDF, Word and JSON.

``render(result, fmt)`` gives the bytes of one format; ``resolve_format`` picks the format from an
explicit choice or a file name's suffix. The CLI (``--format``/``--out``), the job API
(``GET /tasks/{id}/report?format=``) and the web page all go through here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, cast, get_args

from deepresearch.errors import ConfigurationError
from deepresearch.result import ResearchResult

Format = Literal["md", "html", "pdf", "docx", "json"]
FORMATS: tuple[str, ...] = get_args(Format)
MEDIA_TYPES: dict[str, str] = {
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "json": "application/json",
}
SUFFIXES: dict[str, Format] = {
    ".md": "md", ".markdown": "md", ".html": "html", ".htm": "html",
    ".pdf": "pdf", ".docx": "docx", ".json": "json",
}  # fmt: skip

__all__ = ["FORMATS", "Format", "MEDIA_TYPES", "ensure_available", "render", "resolve_format"]


def resolve_format(explicit: str | None, out: Path | None = None) -> Format:
    """``explicit`` when given, else the format ``out``'s suffix names, else Markdown.

    Raises :class:`ConfigurationError` for an unknown format or an ``out`` suffix that names none
    while no format was given (so ``--out report.odt`` does not silently write Markdown)."""
    if explicit is not None:
        chosen = explicit.strip().lower().lstrip(".")
        chosen = "md" if chosen == "markdown" else chosen
        if chosen not in FORMATS:
            raise ConfigurationError(f"unknown format {explicit!r}: choose one of {', '.join(FORMATS)}")
        return cast(Format, chosen)
    if out is None or not out.suffix:
        return "md"
    if out.suffix.lower() not in SUFFIXES:
        raise ConfigurationError(
            f"cannot tell the format of {out.name!r} from its suffix: name it .md, .html, .pdf, "
            ".docx or .json, or give --format"
        )
    return SUFFIXES[out.suffix.lower()]


def ensure_available(fmt: Format) -> None:
    """Raise :class:`ConfigurationError` (with the install line) when ``fmt`` cannot be written here."""
    if fmt == "pdf":
        from deepresearch.export.pdf import load_weasyprint

        load_weasyprint()
    elif fmt == "docx":
        from deepresearch.export.docx import load_docx

        load_docx()


def render(result: ResearchResult, fmt: Format) -> bytes:
    """The report as ``fmt`` bytes (text formats in UTF-8)."""
    if fmt == "md":
        return result.report_markdown.encode("utf-8")
    if fmt == "json":
        return result.model_dump_json(indent=2).encode("utf-8")
    if fmt == "html":
        from deepresearch.export.html import report_html

        return report_html(result).encode("utf-8")
    if fmt == "pdf":
        from deepresearch.export.pdf import report_pdf

        return report_pdf(result)
    from deepresearch.export.docx import report_docx

    return report_docx(result)
