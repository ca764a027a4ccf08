"""A report as PDF: the HTML export laid out by WeasyPrint (``deepresearch-offline[pdf]``).

Citations and references stay links inside the PDF. WeasyPrint fetches nothing: its URL fetcher
refuses every URL (a report quotes untrusted text, and an image there would be a request to
wherever it points, past the fetcher's guard). WeasyPrint needs Pango from the system
(``apt-get install libpango-1.0-0 libpangoft2-1.0-0``; ``scripts/install.sh`` does it as root).
"""

from __future__ import annotations

from typing import Any

from deepresearch.errors import ConfigurationError
from deepresearch.export.html import report_html
from deepresearch.export.registry import ExportFormat, register_format
from deepresearch.result import ResearchResult

INSTALL = (
    "PDF export needs WeasyPrint and Pango: pip install 'deepresearch-offline[pdf]' and "
    "apt-get install libpango-1.0-0 libpangoft2-1.0-0 (or export --format html and print it)"
)


def report_pdf(result: ResearchResult) -> bytes:
    """The report's PDF bytes; :class:`ConfigurationError` says how to install what is missing."""
    weasyprint = load_weasyprint()
    fetcher = _refusing_fetcher(weasyprint)
    pdf: bytes = weasyprint.HTML(string=report_html(result), url_fetcher=fetcher).write_pdf()
    return pdf


def _refusing_fetcher(weasyprint: Any) -> Any:
    """A WeasyPrint URL fetcher that fetches nothing (every URL is an error WeasyPrint skips)."""

    class Refusing(weasyprint.urls.URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            raise ValueError(f"deepresearch renders reports without loading anything ({url!r})")

    return Refusing()


def load_weasyprint() -> Any:
    """The ``weasyprint`` module, or :class:`ConfigurationError` with the install line."""
    try:
        import weasyprint
    except (ImportError, OSError) as exc:  # OSError: the Pango libraries are missing
        raise ConfigurationError(f"{INSTALL} ({type(exc).__name__}: {exc})") from None
    return weasyprint


FORMAT = register_format(
    ExportFormat("pdf", "PDF", "application/pdf", (".pdf",), report_pdf, binary=True, check=load_weasyprint)
)
