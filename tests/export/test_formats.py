"""Each export format opened and read back: HTML links resolve, PDF text holds the answer and the
references, DOCX paragraphs hold the report and the passages; formats follow --out's suffix."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.citations import Source
from deepresearch.errors import ConfigurationError
from deepresearch.export import render, resolve_format
from deepresearch.export.html import report_fragment, report_html
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from ..conftest import QUESTION


@pytest.fixture
def result(settings: Settings, local_search: LocalSearch) -> ResearchResult:
    return research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
    )


class Anchors(HTMLParser):
    """Ids, hrefs, the text of each element with an id, and the tags seen."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, list[str]] = {}
        self.hrefs: list[str] = []
        self.tags: list[str] = []
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        self.tags.append(tag)
        if found.get("href") is not None:
            self.hrefs.append(str(found["href"]))
        if found.get("id"):
            self.ids[str(found["id"])] = []
            self._open.append(str(found["id"]))

    def handle_data(self, data: str) -> None:
        for name in self._open:
            self.ids[name].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("li", "section") and self._open:
            self._open.pop()

    def text(self, anchor: str) -> str:
        return "".join(self.ids[anchor])


def parse(html: str) -> Anchors:
    parser = Anchors()
    parser.feed(html)
    return parser


def test_html_is_one_file_whose_citations_reach_the_passage_read(result: ResearchResult) -> None:
    html = report_html(result)
    page = parse(html)
    internal = [h for h in page.hrefs if h.startswith("#")]
    assert "#ref-1" in internal and all(h[1:] in page.ids for h in internal), "a link points nowhere"
    assert not [h for h in page.hrefs if not h.startswith(("#", "http://", "https://"))]
    assert "<script" not in html and "<link" not in html and "doc://d2)" not in html
    first = next(s for s in result.sources if s.id == result.cited_source_ids[0])
    assert first.title in page.text("ref-1")
    assert first.content in page.text(f"src-{first.id}"), "the reference leads to the passage read"
    assert "1410" in html and "[Prague astronomical clock](" not in html


def test_references_keep_the_reports_numbers(result: ResearchResult) -> None:
    page = parse(report_fragment(result))
    for number, source_id in enumerate(result.cited_source_ids, 1):
        title = next(s.title for s in result.sources if s.id == source_id)
        assert title in page.text(f"ref-{number}")


def test_the_limits_blockquote_and_web_links_render() -> None:
    web = Source(id=1, url="https://example.org/a?b=1", title="Example", content="Alpha <b>beta</b>.")
    report = (
        "# Q\n\n> **Limits of this report:**\n> - thin evidence\n\nAlpha [1].\n\n"
        "## References\n\n1. [Example](https://example.org/a?b=1)\n"
    )
    result = ResearchResult(
        question="Q", report_markdown=report, running_summary="", sources=[web], cited_source_ids=[1]
    )
    html = report_fragment(result)
    assert "<blockquote>" in html and "&gt; **Limits" not in html and "<strong>Limits" in html
    assert 'href="https://example.org/a?b=1"' in html and "<b>beta</b>" not in html
    assert 'href="#src-1"' in html


def test_a_model_written_link_to_another_scheme_loses_its_href() -> None:
    markdown = "[x](javascript:alert(1)) [y](file:///etc/passwd) [z](doc://d9) <script>"
    html = report_fragment(ResearchResult(question="Q", report_markdown=markdown, running_summary=""))
    assert parse(html).hrefs == []
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_pdf_text_holds_the_answer_and_the_references(result: ResearchResult) -> None:
    pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    from pypdf import PdfReader

    pdf = render(result, "pdf")
    assert pdf.startswith(b"%PDF")
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(pdf)).pages)
    assert "1410" in text
    for source_id in result.cited_source_ids:
        assert next(s.title for s in result.sources if s.id == source_id) in text


def test_docx_paragraphs_hold_the_report_and_the_passages(result: ResearchResult) -> None:
    docx = pytest.importorskip("docx", reason="pip install 'deepresearch-offline[docs]'")
    document = docx.Document(io.BytesIO(render(result, "docx")))
    paragraphs = [(p.style.name, p.text) for p in document.paragraphs]
    texts = [text for _, text in paragraphs]
    assert texts[0] == QUESTION
    assert any("1410" in t and "[1]" in t for t in texts)
    assert ("Heading 2", "References") in paragraphs and ("Heading 2", "Passages read") in paragraphs
    quoted = [text for style, text in paragraphs if style == "Quote"]
    assert any("built in 1410" in q for q in quoted)


def test_json_and_markdown_are_the_result_and_its_report(result: ResearchResult) -> None:
    assert json.loads(render(result, "json"))["report_markdown"] == result.report_markdown
    assert render(result, "md").decode("utf-8") == result.report_markdown


@pytest.mark.parametrize(
    ("explicit", "out", "expected"),
    [
        (None, None, "md"),
        (None, "r.HTML", "html"),
        (None, "r.pdf", "pdf"),
        (None, "r.docx", "docx"),
        (None, "r.json", "json"),
        ("markdown", "r.html", "md"),
        ("PDF", None, "pdf"),
    ],
)
def test_format_comes_from_the_choice_or_the_suffix(
    explicit: str | None, out: str | None, expected: str
) -> None:
    assert resolve_format(explicit, Path(out) if out else None).name == expected


def test_an_unknown_suffix_or_format_is_an_error_not_markdown() -> None:
    with pytest.raises(ConfigurationError, match="--format"):
        resolve_format(None, Path("report.odt"))
    with pytest.raises(ConfigurationError, match=r"name it .*\.md") as suffix:
        resolve_format(None, Path("report.txt"))
    assert all(f".{name}" in str(suffix.value) for name in ("md", "html", "pdf", "docx", "json"))
    with pytest.raises(ConfigurationError, match="choose one of") as unknown:
        resolve_format("rtf")
    assert all(name in str(unknown.value) for name in ("md", "html", "pdf", "docx", "json"))
