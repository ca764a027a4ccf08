"""Report types: brief, detailed and resources keep the five sections and code-built citations."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.citations import cited_ids
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .conftest import QUESTION

SECTIONS = [
    "## Background",
    "## Key insights",
    "## Evidence and data",
    "## Risks and open questions",
    "## References",
]


def _run(settings: Settings, search: LocalSearch, report_type: str) -> ResearchResult:
    return research(
        QUESTION, settings=settings, model=ScriptedModel(), search=search, report_type=report_type
    )


def _section(report: str, heading: str) -> str:
    return report.split(heading, 1)[1].split("\n## ", 1)[0]


def _references(report: str) -> list[str]:
    return re.findall(r"(?m)^\d+\. \[.*$", _section(report, "## References"))


@pytest.mark.parametrize("report_type", ["brief", "detailed", "resources"])
def test_every_type_keeps_the_five_sections_and_resolved_citations(
    settings: Settings, local_search: LocalSearch, report_type: str
) -> None:
    result = _run(settings, local_search, report_type)
    report = result.report_markdown
    positions = [report.find(heading) for heading in SECTIONS if heading in report]
    assert positions == sorted(positions) and "## Key insights" in report and "## References" in report
    body = report.split("## References", 1)[0]
    cited = cited_ids(body)
    assert cited and max(cited) == len(_references(report)), "every [n] names a listed reference"
    assert result.answer


def test_brief_is_the_answer_and_key_facts(settings: Settings, local_search: LocalSearch) -> None:
    detailed = _run(settings, local_search, "detailed").report_markdown
    brief = _run(settings, local_search, "brief").report_markdown
    assert len(brief) < len(detailed)
    answer = re.compile(r"(?m)^\*\*Answer:\*\*.*$")
    assert answer.findall(brief) == answer.findall(detailed) != [], "the same answer"
    evidence = _section(brief, "## Evidence and data").strip()
    assert "### " not in evidence, "no per-task sections in a brief report"
    points = evidence.splitlines()
    assert evidence == "The key cited facts are the insights above." or all(
        line.startswith("- ") and line.rstrip().endswith("]") for line in points
    )


def test_resources_list_every_source_read_once_by_task(settings: Settings, local_search: LocalSearch) -> None:
    result = _run(settings, local_search, "resources")
    evidence = _section(result.report_markdown, "## Evidence and data")
    assert re.search(r"(?m)^### Task 1: ", evidence)
    listed = re.findall(r"(?m)^- \*\*(.+?)\*\*", evidence)
    assert sorted(listed) == sorted(s.title for s in result.sources), "each source read, once"
    assert len(_references(result.report_markdown)) == len(result.sources)


def test_an_unknown_report_type_names_the_choices(settings: Settings, local_search: LocalSearch) -> None:
    with pytest.raises(Exception, match="brief"):
        _run(settings, local_search, "long")


def test_the_cli_takes_report_type(tmp_path: Path) -> None:
    env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.main", "research", "-q", "--demo", "--report-type", "brief",
         "Who built the Prague astronomical clock?"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "## Evidence and data" in done.stdout and "### Task" not in done.stdout
