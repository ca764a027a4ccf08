"""One number per source on every surface: the report's [k] is the number the JSON result (the
CLI's --json and the HTTP API's format=json), the task summaries, the HTML, PDF and DOCX exports
and MCP give the same source, in a run whose report numbers its sources unlike the registry."""

from __future__ import annotations

import io
import json
import re
from typing import Any

import pytest

from deepresearch import research
from deepresearch.citations import Source, renumber_citations, report_numbers
from deepresearch.export import render
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .conftest import PASSAGES, QUESTION

REFERENCE = re.compile(r"^(\d+)\. \[(.+?)\]\(", re.MULTILINE)
POINT = re.compile(r"^- (.+?) \[(\d+)\]$", re.MULTILINE)


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> ResearchResult:
    home = tmp_path_factory.mktemp("numbers")
    with DocumentIndex(home / "index.sqlite") as index:
        index.add_documents(PASSAGES)
        done = research(
            QUESTION,
            settings=Settings.load({"deepresearch_home": home / "home"}),
            model=ScriptedModel(),
            search=LocalSearch(index),
            max_web_research_loops=1,
        )
    assert any(k != sid for k, sid in enumerate(done.cited_source_ids, 1)), "the run must renumber"
    return done


def report_references(result: ResearchResult) -> dict[str, int]:
    """Title -> the [k] the report's References give it."""
    return {title: int(k) for k, title in REFERENCE.findall(result.report_markdown)}


def test_the_json_numbers_each_source_and_the_answer_as_the_report_does(result: ResearchResult) -> None:
    data: dict[str, Any] = json.loads(render(result, "json"))
    references = report_references(result)
    numbers = {source["title"]: source["number"] for source in data["sources"]}

    assert references and all(numbers[title] == k for title, k in references.items())
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1)), "uncited sources follow the cited"
    answer = re.search(r"\*\*Answer:\*\* .*?\[(\d+)\]", result.report_markdown)
    assert answer and data["answer_source_number"] == int(answer.group(1))
    assert data["answer_source_number"] != data["answer_source_id"]


def test_each_summary_cites_the_source_by_its_number(result: ResearchResult) -> None:
    data: dict[str, Any] = json.loads(render(result, "json"))
    by_number = {source["number"]: source for source in data["sources"]}
    points = [point for task in data["todo_items"] for point in POINT.findall(task["summary"])]

    assert points
    for sentence, k in points:
        assert sentence.split(": ", 1)[-1] in by_number[int(k)]["content"], (sentence, k)
    assert all(sentence in data["running_summary"] for sentence, _ in points)


def test_a_result_read_back_keeps_its_numbers_and_summaries(result: ResearchResult) -> None:
    again = ResearchResult.model_validate_json(result.model_dump_json())

    assert again == result
    assert [t.summary for t in again.todo_items] == [t.summary for t in result.todo_items]


def test_html_and_docx_exports_give_each_passage_its_number(result: ResearchResult) -> None:
    docx = pytest.importorskip("docx", reason="pip install 'deepresearch-offline[docs]'")
    html = render(result, "html").decode("utf-8")
    headings = [p.text for p in docx.Document(io.BytesIO(render(result, "docx"))).paragraphs]

    for source in result.sources:
        if source.id in result.cited_source_ids:
            assert f'href="#ref-{source.number}">[{source.number}]</a> {source.title}' in html
            assert f"[{source.number}] {source.title}" in headings


def test_the_pdf_export_gives_each_passage_its_number(result: ResearchResult) -> None:
    pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    from pypdf import PdfReader

    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(render(result, "pdf"))).pages)

    for source in result.sources:
        if source.id in result.cited_source_ids:
            assert f"[{source.number}] {source.title}" in text


def test_mcp_answers_with_the_same_numbers(result: ResearchResult) -> None:
    pytest.importorskip("mcp", reason="pip install 'deepresearch-offline[mcp]'")
    from deepresearch.server.mcp.server import answer_of

    number_of = {source.url: source.number for source in result.sources}
    cited = answer_of(result).sources

    assert cited and all(source.number == number_of[source.url] for source in cited)


def test_report_numbers_put_the_cited_first_and_renumbering_drops_unknown_ids() -> None:
    numbers = report_numbers([7, 3], [1, 3, 5, 7])

    assert numbers == {7: 1, 3: 2, 1: 3, 5: 4}
    assert renumber_citations("A [3]. B [7, 3]. C [9]. D [9, 1].", numbers) == "A [2]. B [1, 2]. C . D [3]."


def test_a_result_from_registry_sources_is_numbered_when_built() -> None:
    sources = [Source(id=n, url=f"doc://n{n}", title=f"T{n}") for n in (1, 2, 3)]
    built = ResearchResult(
        question="Q", report_markdown="", running_summary="", sources=sources, cited_source_ids=[3]
    )
    built_with_answer = built.model_copy(update={"answer_source_id": 3})

    assert [s.number for s in built.sources] == [2, 3, 1]
    assert ResearchResult.model_validate(built_with_answer.model_dump()).answer_source_number == 1
