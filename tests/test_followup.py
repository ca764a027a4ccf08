"""Follow-up questions on a finished run: answered from its own sources with the report's numbers,
or "the sources read do not answer"; kept in the run folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.followup import answer_from, ask_followup, find_run, followups, resolve_references
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.runs import RunFolder
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .conftest import QUESTION


@pytest.fixture
def finished(settings: Settings, local_search: LocalSearch) -> tuple[ResearchResult, RunFolder]:
    result = research(QUESTION, settings=settings, model=ScriptedModel(), search=local_search)
    assert result.run_dir
    return result, RunFolder(Path(result.run_dir))


def _reference_numbers(report: str) -> set[int]:
    return {int(n) for n in re.findall(r"(?m)^(\d+)\. \[", report.split("## References", 1)[1])}


def test_who_built_it_is_answered_with_a_number_the_report_uses(
    finished: tuple[ResearchResult, RunFolder],
) -> None:
    result, folder = finished
    followup = ask_followup(folder, "Who built it?")
    assert followup.answered and followup.answer == "Mikuláš of Kadaň"
    assert followup.read_as == "Who built Prague astronomical clock?"
    assert followup.source_number in _reference_numbers(result.report_markdown)
    assert "Mikuláš of Kadaň" in followup.sentence


def test_a_question_the_sources_cannot_answer_says_so(finished: tuple[ResearchResult, RunFolder]) -> None:
    _, folder = finished
    followup = ask_followup(folder, "What is the population of Mars?")
    assert not followup.answered and followup.source_number is None
    assert followup.answer == "The sources read do not answer: What is the population of Mars?"


def test_the_conversation_is_kept_in_the_run_folder(finished: tuple[ResearchResult, RunFolder]) -> None:
    _, folder = finished
    ask_followup(folder, "Who built it?")
    ask_followup(folder, "What is the population of Mars?")
    again = RunFolder(folder.path)
    assert [f.question for f in followups(again)] == ["Who built it?", "What is the population of Mars?"]
    markdown = (folder.path / "followups.md").read_text(encoding="utf-8")
    assert markdown.startswith("## Follow-up questions") and "**Answer:** Mikuláš of Kadaň [" in markdown


def test_runs_are_found_by_id_or_folder_and_bad_input_is_explained(
    finished: tuple[ResearchResult, RunFolder], settings: Settings
) -> None:
    _, folder = finished
    assert find_run(folder.run_id, settings).path == folder.path
    assert find_run(str(folder.path), settings).path == folder.path
    with pytest.raises(DeepResearchError, match="no run"):
        find_run("20990101-000000-nothing-abcd", settings)
    with pytest.raises(ConfigurationError, match="empty"):
        ask_followup(folder, "   ")
    (folder.path / "sources.json").unlink()
    with pytest.raises(DeepResearchError, match="did not finish"):
        ask_followup(folder, "Who built it?")


def test_pointers_are_read_as_the_subject_only_as_whole_words() -> None:
    assert resolve_references("When did its tower fall, and who rebuilt it?", "Old Mill") == (
        "When did Old Mill's tower fall, and who rebuilt Old Mill?"
    )
    assert resolve_references("Who wrote Italian poems?", "Old Mill") == "Who wrote Italian poems?"
    assert answer_from([], "Who built it?").answered is False


def test_the_cli_answers_a_followup(finished: tuple[ResearchResult, RunFolder], settings: Settings) -> None:
    result, folder = finished
    env = {**os.environ, "DEEPRESEARCH_HOME": str(settings.home)}
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.main", "followup", folder.run_id, "Who built it?", "--json"],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["answer"] == "Mikuláš of Kadaň"
    assert shown["source_number"] in _reference_numbers(result.report_markdown)
