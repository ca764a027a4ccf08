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
from deepresearch.citations import Source
from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.followup import (
    Referents,
    answer_from,
    ask_followup,
    find_run,
    followups,
    report_person,
    resolve_references,
)
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import NumberedSource, ResearchResult
from deepresearch.runs import RunFolder
from deepresearch.search.base import SearchHit
from deepresearch.search.local import LocalSearch
from deepresearch.search.testing import StaticSearch
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
    mill = Referents("Old Mill")
    assert resolve_references("When did its tower fall, and who rebuilt it?", mill) == (
        "When did Old Mill's tower fall, and who rebuilt Old Mill?"
    )
    assert resolve_references("Who wrote Italian poems?", mill) == "Who wrote Italian poems?"
    assert answer_from([], "Who built it?").answered is False


def test_she_and_her_mean_the_person_the_report_answered() -> None:
    record = {"question": "Who did Tomas Brandt marry?", "answer": "Lena Okafor", "answer_status": "grounded"}
    refers = Referents("Tomas Brandt", report_person(record, []))
    assert refers.person == "Lena Okafor"
    assert resolve_references("When was she born?", refers) == "When was Lena Okafor born?"
    assert resolve_references("Who was her father?", refers) == "Who was Lena Okafor's father?"
    assert resolve_references("Who trained her in 1920?", refers) == "Who trained Lena Okafor in 1920?"
    assert resolve_references("Where was it built?", refers) == "Where was Tomas Brandt built?"
    unanswered = {**record, "answer_status": "abstained"}
    assert report_person(unanswered, []) == ""


def test_a_followup_on_she_is_answered_from_her_passage_not_a_namesake() -> None:
    texts = {
        "Tomas Brandt": "Tomas Brandt (1899-1960) was a glider pilot. In 1931 he married Lena Okafor.",
        "Lena Okafor": "Lena Okafor (born 4 May 1905) was a navigator and rally driver.",
        "Lena Marsh": "Lena Marsh was born in 1776 in a fishing village.",
    }
    sources = [
        NumberedSource(id=i, number=i, url=f"doc://{i}", title=title, content=text)
        for i, (title, text) in enumerate(texts.items(), 1)
    ]
    followup = answer_from(sources, "When was she born?", refers=Referents("Tomas Brandt", "Lena Okafor"))
    assert followup.read_as == "When was Lena Okafor born?"
    assert followup.answered and followup.answer == "4 May 1905" and followup.source_number == 2


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


BRIDGE = SearchHit(
    url="https://example.org/charles-bridge",
    title="Charles Bridge",
    content="The Charles Bridge in Prague was designed by the architect Peter Parler. It crosses the Vltava.",
)


def test_a_followup_the_sources_cannot_answer_is_researched_as_a_new_round(
    finished: tuple[ResearchResult, RunFolder], settings: Settings
) -> None:
    """The new round's sources are numbered after the report's, the old numbers stay, the report
    grows by a Follow-up section, and the answer cites the new source."""
    result, folder = finished
    before = json.loads((folder.path / "sources.json").read_text(encoding="utf-8"))
    asked: list[str] = []

    def researcher(question: str) -> list[Source]:
        asked.append(question)
        search = StaticSearch(default=[BRIDGE])
        return list(research(question, settings=settings, model=ScriptedModel(), search=search).sources)

    followup = ask_followup(folder, "Who designed the Charles Bridge?", researcher)
    assert asked == ["Who designed the Charles Bridge?"]
    assert followup.researched and followup.answered and followup.answer == "Peter Parler"
    last = max(s["number"] for s in before)
    assert [s.number for s in followup.new_sources] == [last + 1] and followup.source_number == last + 1
    after = json.loads((folder.path / "sources.json").read_text(encoding="utf-8"))
    assert after[: len(before)] == before and after[-1]["url"] == BRIDGE.url
    report = (folder.path / "report.md").read_text(encoding="utf-8")
    assert report.startswith(result.report_markdown.rstrip()) and "## Follow-up" in report
    assert f"**Answer:** Peter Parler [{last + 1}]" in report and f"{last + 1}. [Charles Bridge]" in report
    assert followups(RunFolder(folder.path))[-1].new_sources[0].title == "Charles Bridge"


def test_without_a_researcher_or_when_the_round_finds_nothing_it_says_so(
    finished: tuple[ResearchResult, RunFolder],
) -> None:
    _, folder = finished
    followup = ask_followup(folder, "Who designed the Charles Bridge?", lambda question: [])
    assert followup.researched and not followup.answered and followup.new_sources == []
    assert "researched as a new round: 0 new source(s)" in followup.markdown().lower()


def test_the_cli_says_so_without_researching_when_asked_not_to(
    finished: tuple[ResearchResult, RunFolder], settings: Settings
) -> None:
    _, folder = finished
    env = {**os.environ, "DEEPRESEARCH_HOME": str(settings.home)}
    asked = ["followup", folder.run_id, "Who designed the Charles Bridge?", "--no-research", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.main", *asked],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert not shown["answered"] and not shown["researched"] and "researching" not in done.stderr
