"""A report as PDF: the HTML export laid out by WeasyPrint (``deepresearch-offline[pdf]``).

Citations and references stay links inside the PDF. WeasyPrint needs Pango from the system
(``apt-get install libpango-1.0-0 libpangoft2-1.0-0``; ``scripts/install.sh`` does it as root).
"""

from __future__ import annotations

from typing import Any

from deepresearch.errors import ConfigurationError
from deepresearch.export.html import report_html
from deepresearch.result import ResearchResult

INSTALL = (
    "PDF export needs WeasyPrint and Pango: pip install 'deepresearch-offline[pdf]' and "
    "apt-get install libpango-1.0-0 libpangoft2-1.0-0 (or export --format html and print it)"
)


def report_pdf(result: ResearchResult) -> bytes:
    """The report's PDF bytes; :class:`ConfigurationError` says how to install what is missing."""
    pdf: bytes = load_weasyprint().HTML(string=report_html(result)).write_pdf()
    return pdf


def load_weasyprint() -> Any:
    """The ``weasyprint`` module, or :class:`ConfigurationError` with the install line."""
    try:
        import weasyprint
    except (ImportError, OSError) as exc:  # OSError: the Pango libraries are missing
        raise ConfigurationError(f"{INSTALL} ({type(exc).__name__}: {exc})") from None
    return weasyprint
