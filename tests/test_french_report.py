"""A question asked in French gets a French report: every heading and fixed phrase, the plan's own
titles and intents, key terms and queries without French function words, and no model-written
task title that states what the question does not. A real on-disk index of invented passages,
the scripted model writing (``llm_provider=custom``), one and two rounds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from deepresearch import ResearchResult, research
from deepresearch.domain import TodoItem
from deepresearch.graph.nodes.judge import code_judgement
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ModelCall, ScriptedModel
from deepresearch.report_text import HEADINGS
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings
from deepresearch.text import key_terms

QUESTION = "En quelle année la tour Vauban de Lorsac a-t-elle été construite ?"
FRENCH_FUNCTION_WORDS = {"en", "quelle", "la", "de", "elle", "été", "a", "t"}
PAGES = [
    {
        "doc_id": "f1",
        "title": "Tour Vauban de Lorsac",
        "text": "La tour Vauban de Lorsac est une tour de guet en pierre. Elle domine le port de Lorsac.",
    },
    {
        "doc_id": "f2",
        "title": "Lorsac",
        "text": "Lorsac est une commune de la vallée de l'Ardène, connue pour son port fortifié.",
    },
]


def _plan(call: ModelCall) -> str:
    tasks = [
        {"title": "La tour Vauban construite en 1989", "intent": "Date", "query": "tour Vauban Lorsac"},
        {"title": "Histoire du port", "intent": "Le port", "query": "port Lorsac histoire"},
    ]
    return json.dumps({"role": "historian", "focus": "", "tasks": tasks}, ensure_ascii=False)


@pytest.fixture
def result(tmp_path: Path) -> ResearchResult:
    with DocumentIndex(tmp_path / "fr.sqlite") as index:
        index.add_documents(PAGES)
        return research(
            QUESTION,
            settings=Settings.load({"deepresearch_home": tmp_path / "home"}),
            model=ScriptedModel({"plan": _plan}),
            search=LocalSearch(index),
            max_web_research_loops=2,
            llm_provider="custom",
        )


def test_french_key_terms_leave_out_french_function_words() -> None:
    assert key_terms(QUESTION) == ["année", "tour", "vauban", "lorsac", "construite"]
    task = TodoItem(id=1, title="t", intent="i", query="tour Vauban Lorsac")
    judged = code_judgement(QUESTION, task, [])
    assert judged.gaps and not FRENCH_FUNCTION_WORDS & {g.lower() for g in judged.gaps}


def test_the_plan_speaks_french_and_states_nothing_the_question_does_not(result: ResearchResult) -> None:
    titles = [t.title for t in result.todo_items]
    assert "La question telle que posée" in titles
    assert not any("1989" in t for t in titles), titles
    assert not any(
        re.search(r"\b(?:The|Find|Who|What)\b", f"{t.title} {t.intent}") for t in result.todo_items
    )


def test_queries_and_missing_terms_hold_no_french_function_words(result: ResearchResult) -> None:
    for query in result.queries_run:
        assert not FRENCH_FUNCTION_WORDS & set(query.lower().split()), query
    gaps = result.report_markdown.split("Termes de la question absents de toutes les sources :")
    listed = gaps[1].split(".")[0] if len(gaps) > 1 else ""
    assert not FRENCH_FUNCTION_WORDS & {w.strip(" ,") for w in listed.split(",")}, listed


def test_every_heading_and_fixed_phrase_of_the_report_is_french(result: ResearchResult) -> None:
    report = result.report_markdown
    french, english = HEADINGS["fr"], HEADINGS["en"]
    for key in ("insights", "evidence", "references"):
        assert f"## {french[key]}" in report
    assert "Ce rapport étudie" not in report  # a Background from the sources, or none
    assert re.search(r"Tâche 1 ?: La question telle que posée", report)
    for phrase in english.values():
        fixed = phrase.split("{")[0].strip()
        if len(fixed) > 12:
            assert fixed not in report, fixed
