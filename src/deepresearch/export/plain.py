"""The report as the run wrote it: its Markdown, and the whole result as JSON."""

from __future__ import annotations

from deepresearch.export.registry import ExportFormat, register_format
from deepresearch.result import ResearchResult


def report_markdown(result: ResearchResult) -> bytes:
    return result.report_markdown.encode("utf-8")


def result_json(result: ResearchResult) -> bytes:
    return result.model_dump_json(indent=2).encode("utf-8")


MARKDOWN = register_format(
    ExportFormat(
        "md",
        "Markdown",
        "text/markdown; charset=utf-8",
        (".md", ".markdown"),
        report_markdown,
        aliases=("markdown",),
    )
)
JSON = register_format(
    ExportFormat("json", "JSON", "application/json", (".json",), result_json, download=False)
)
