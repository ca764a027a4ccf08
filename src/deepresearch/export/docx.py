"""A report as a Word document (python-docx, ``deepresearch-offline[docs]``).

Headings, paragraphs with bold and italic, lists and the Limits quote come from the report's
Markdown as CommonMark parses it; then every cited passage, quoted, under its reference number.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from deepresearch.citations import Source
from deepresearch.errors import ConfigurationError
from deepresearch.export.html import PASSAGE_CHARS, cited_sources
from deepresearch.export.registry import ExportFormat, register_format
from deepresearch.result import ResearchResult

INSTALL = "DOCX export needs python-docx: pip install 'deepresearch-offline[docs]'"


def report_docx(result: ResearchResult) -> bytes:
    """The report's .docx bytes."""
    document = load_docx().Document()
    document.core_properties.title = result.question[:255]
    _Writer(document).write(MarkdownIt("commonmark").enable("table").parse(result.report_markdown))
    _passages(document, cited_sources(result))
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def load_docx() -> Any:
    """The ``docx`` module (python-docx), or :class:`ConfigurationError` with the install line."""
    try:
        import docx
    except ImportError:
        raise ConfigurationError(INSTALL) from None
    return docx


class _Writer:
    """Walks CommonMark block tokens and adds one paragraph per text block."""

    def __init__(self, document: Any) -> None:
        self.document = document
        self.lists: list[str] = []
        self.quote = 0
        self.heading = 0

    def write(self, tokens: Sequence[Token]) -> None:
        for token in tokens:
            self._block(token)

    def _block(self, token: Token) -> None:
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            self.lists.append("List Bullet" if kind == "bullet_list_open" else "List Number")
        elif kind in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()
        elif kind in ("blockquote_open", "blockquote_close"):
            self.quote += 1 if kind == "blockquote_open" else -1
        elif kind == "heading_open":
            self.heading = int(token.tag[1:])
        elif kind == "inline":
            self._paragraph(token)
        elif kind in ("fence", "code_block"):
            self.document.add_paragraph(token.content.rstrip("\n"), style="No Spacing")

    def _paragraph(self, token: Token) -> None:
        if self.heading:
            paragraph = self.document.add_heading(level=min(self.heading, 9))
            self.heading = 0
        elif self.lists:
            paragraph = self.document.add_paragraph(style=self.lists[-1])
        else:
            paragraph = self.document.add_paragraph(style="Quote" if self.quote else None)
        _runs(paragraph, token.children or [])


def _runs(paragraph: Any, children: Sequence[Token]) -> None:
    bold = italic = False
    href = ""
    for child in children:
        if child.type in ("strong_open", "strong_close"):
            bold = child.type == "strong_open"
        elif child.type in ("em_open", "em_close"):
            italic = child.type == "em_open"
        elif child.type == "link_open":
            href = str(child.attrGet("href") or "")
        elif child.type == "link_close":
            if href.startswith(("http://", "https://")):
                paragraph.add_run(f" <{href}>")
            href = ""
        elif child.type in ("text", "code_inline"):
            run = paragraph.add_run(child.content)
            run.bold, run.italic = bold or None, italic or None
        elif child.type in ("softbreak", "hardbreak"):
            paragraph.add_run(" ")


def _passages(document: Any, cited: Sequence[Source]) -> None:
    if not cited:
        return
    document.add_heading("Passages read", level=2)
    for number, source in enumerate(cited, 1):
        document.add_heading(f"[{number}] {source.title or source.url}", level=3)
        document.add_paragraph(source.url + (f" (document {source.doc_id})" if source.doc_id else ""))
        text = source.content or source.snippet or "(no text was kept for this source)"
        quoted = text if len(text) <= PASSAGE_CHARS else text[:PASSAGE_CHARS].rstrip() + " …"
        document.add_paragraph(quoted, style="Quote")


FORMAT = register_format(
    ExportFormat(
        "docx",
        "Word (.docx)",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        (".docx",),
        report_docx,
        binary=True,
        check=load_docx,
    )
)
