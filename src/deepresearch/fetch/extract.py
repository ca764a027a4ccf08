"""Turning fetched bytes into clean text: HTML through trafilatura, PDF through pypdf, plain text as is.

Everything here is pure: bytes and a content type in, :class:`Extracted` out, no I/O. The text that
comes out is data, never instructions: ``[TOOL_CALL:…]`` markers and the tags that structure our
prompts (``<source>``, ``<think>``) are removed from it, so a page cannot close the quotation it is
placed in or pass itself off as a tool call (:mod:`deepresearch.untrusted`). Text longer than the
limit is cut and ends with :data:`deepresearch.text.TRUNCATION_MARKER`.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass

from deepresearch.errors import FetchError
from deepresearch.fetch.pdfpages import drop_page_furniture
from deepresearch.text import TRUNCATION_MARKER
from deepresearch.untrusted import clean_title, sanitize

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
PDF_TYPES = frozenset({"application/pdf", "application/x-pdf"})
TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})
SUPPORTED_TYPES = HTML_TYPES | PDF_TYPES | TEXT_TYPES


@dataclass(frozen=True)
class Extracted:
    """Clean text of one document; ``title`` and ``date`` are ``None`` when the document has none."""

    text: str
    title: str | None = None
    date: str | None = None
    truncated: bool = False


def media_type(content_type: str | None) -> str:
    """``"Text/HTML; charset=utf-8"`` → ``"text/html"``; ``""`` when there is none."""
    return (content_type or "").split(";", 1)[0].strip().lower()


def charset(content_type: str | None) -> str | None:
    """The ``charset`` parameter of a Content-Type header, if any."""
    for part in (content_type or "").split(";")[1:]:
        key, _, value = part.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def sniff_type(data: bytes) -> str | None:
    """A media type guessed from the first bytes, for responses without a usable Content-Type:
    PDF by its magic number, HTML by its opening tag, text when it has no NUL byte; else ``None``."""
    head = data[:1024]
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if b"\x00" in head:
        return None
    start = head.lstrip().lower()
    if start.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
        return "text/html"
    return "text/plain"


def extract(
    data: bytes, content_type: str, *, max_chars: int, url: str | None = None, cut_short: bool = False
) -> Extracted:
    """Clean text of ``data`` as ``content_type`` (a media type in :data:`SUPPORTED_TYPES`), at most
    ``max_chars`` characters plus the marker; ``cut_short`` says ``data`` is only the start of the
    document (the marker is added then too). Raises :class:`FetchError` for another type or a
    document that cannot be parsed."""
    kind = media_type(content_type)
    if kind in HTML_TYPES:
        found = extract_html(data, url=url, encoding=charset(content_type))
    elif kind in PDF_TYPES:
        found = extract_pdf(data, max_chars=max_chars)
    elif kind in TEXT_TYPES:
        found = Extracted(text=decode(data, charset(content_type)))
    else:
        raise FetchError(f"cannot read content of type {kind or 'unknown'!r}; readable: HTML, PDF, text")
    return finish(found, max_chars, truncated=cut_short)


def extract_html(data: bytes | str, *, url: str | None = None, encoding: str | None = None) -> Extracted:
    """The main text of an HTML page (navigation, footers and ads left out) with its title and
    date. Falls back to all visible text when trafilatura finds no main content."""
    import trafilatura

    html = decode(data, encoding) if isinstance(data, bytes) and encoding else data
    raw = trafilatura.extract(html, url=url, output_format="json", with_metadata=True, include_comments=False)
    found = _parse_json(raw)
    if found is not None and found.text.strip():
        return found
    return Extracted(text=trafilatura.html2txt(html) or "", title=found.title if found else None)


def extract_pdf(data: bytes, *, max_chars: int | None = None) -> Extracted:
    """The text of a PDF, page after page, without the headers, footers and page numbers printed
    on each page (:mod:`deepresearch.fetch.pdfpages`), and its title from the document
    information. Stops reading pages once ``max_chars`` characters are collected. Raises
    :class:`FetchError` when the file is not a readable PDF (damaged, encrypted)."""
    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    pages: list[str] = []
    try:
        reader = PdfReader(io.BytesIO(data))
        title = reader.metadata.title if reader.metadata else None
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            if max_chars is not None and sum(map(len, pages)) > max_chars:
                break
    except (PyPdfError, ValueError, KeyError, TypeError) as exc:
        raise FetchError(f"cannot read the PDF: {exc}") from exc
    return Extracted(text="\n\n".join(drop_page_furniture(pages)), title=str(title) if title else None)


def decode(data: bytes, encoding: str | None = None) -> str:
    """``data`` as text in ``encoding`` (UTF-8 when unknown or invalid); bad bytes become U+FFFD."""
    try:
        return data.decode(encoding or "utf-8-sig", errors="replace")
    except LookupError:
        return data.decode("utf-8-sig", errors="replace")


def limit_text(text: str, max_chars: int) -> tuple[str, bool]:
    """``text`` if it fits in ``max_chars``, else its start (cut at a word boundary when one is
    near) followed by `` [truncated]``, the whole at most ``max_chars`` long; and whether it was cut."""
    if len(text) <= max_chars:
        return text, False
    room = max(max_chars - len(TRUNCATION_MARKER) - 1, 0)
    cut = text[:room]
    boundary = cut.rfind(" ")
    if boundary > room * 0.8:
        cut = cut[:boundary]
    return f"{cut.rstrip()} {TRUNCATION_MARKER}".lstrip(), True


def finish(found: Extracted, max_chars: int, *, truncated: bool = False) -> Extracted:
    """``found`` sanitised and cut to ``max_chars``; ``truncated`` marks input already cut short."""
    text, cut = limit_text(sanitize(found.text), max_chars)
    if truncated and not cut:
        room = max(max_chars - len(TRUNCATION_MARKER) - 1, 0)
        text = f"{text[:room].rstrip()} {TRUNCATION_MARKER}".lstrip()
    return Extracted(text=text, title=clean_title(found.title), date=found.date, truncated=cut or truncated)


def _parse_json(raw: str | None) -> Extracted | None:
    if not raw:
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    text, title, date = record.get("text"), record.get("title"), record.get("date")
    return Extracted(
        text=text if isinstance(text, str) else "",
        title=title if isinstance(title, str) else None,
        date=date if isinstance(date, str) else None,
    )
