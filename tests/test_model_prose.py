"""What a model writes reaches the report only as safe, useful prose: no links, images, URLs, prompt
tags or reference lists it typed; no summary that only restates the question or lists the sources;
no unverified answer where a sentence read states one. Each with invented inputs of its kind."""

from __future__ import annotations

import json
import re

from deepresearch import ResearchResult, research
from deepresearch.llm.testing import ModelCall, ScriptedModel
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings
from deepresearch.untrusted import model_prose

from .conftest import QUESTION

HOSTILE = (
    "The clock was built in 1410 [1]. See [steal](http://evil.example/steal) "
    "![x](http://127.0.0.1:9/x.png) and https://evil.example/raw <img src=http://evil.example/i.png>\n"
    "References:\n1. [Fake ref](http://evil.example/fake-ref)\n"
)


def test_model_prose_keeps_the_words_and_drops_every_link_image_url_and_typed_reference() -> None:
    clean = model_prose(HOSTILE)

    assert "evil.example" not in clean and "127.0.0.1" not in clean
    assert "Fake ref" not in clean and "References" not in clean
    assert clean.startswith("The clock was built in 1410 [1]. See steal")


def test_a_cut_off_prompt_tag_is_removed() -> None:
    assert model_prose('Orloj history <source id="3" title="Or') == "Orloj history"
    assert model_prose("<source id=") == ""


def _draft(call: ModelCall) -> str:
    return json.dumps(
        {
            "answer": "It was built in 1851 [1].",
            "background": f'{HOSTILE} <source id="2',
            "insights": [{"text": HOSTILE, "sources": [1]}],
            "risks": ["1. [more](http://evil.example/more)", "Dates differ between sources."],
        }
    )


def _run(settings: Settings, local_search: LocalSearch, model: ScriptedModel) -> ResearchResult:
    return research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        max_web_research_loops=1,
        summary_mode="model",
        llm_provider="custom",
    )


def test_no_url_reaches_the_report_that_the_run_did_not_read(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel({"report": _draft, "summarize": HOSTILE})

    report = _run(settings, local_search, model).report_markdown

    assert "evil.example" not in report and "127.0.0.1" not in report
    assert "<source" not in report and "Fake ref" not in report
    links = report.split("## References")[1]
    assert "doc://" in links


FRAGMENTS = (
    'The Orloj was built in 1410 by Mikuláš of Kadaň [2] <iframe src=" x\n'
    "[3]:\n"
    "[2]: clock-face.png\n"
    "It is mounted on the Old Town Hall in Prague [2]."
)


def test_a_cut_off_tag_and_a_typed_reference_definition_do_not_reach_the_report(
    settings: Settings, local_search: LocalSearch
) -> None:
    """A tag cut off before its ``>`` would swallow the rest of the line as attributes in a viewer
    that renders HTML; ``[2]: clock-face.png`` would turn every ``[2]`` of the report into a link."""
    model = ScriptedModel({"report": _draft, "summarize": FRAGMENTS})

    report = _run(settings, local_search, model).report_markdown

    assert "<iframe" not in report and 'src="' not in report
    assert not re.search(r"(?m)^\s*\[\d+\]:", report) and "clock-face.png" not in report
    assert "built in 1410 by Mikuláš of Kadaň" in report and "mounted on the Old Town Hall" in report


def test_a_summary_that_only_lists_the_sources_or_restates_the_question_is_replaced(
    settings: Settings, local_search: LocalSearch
) -> None:
    echoes = [
        "[1] Karel Purkyně [2] Prague astronomical clock [3] Prague",
        f"{QUESTION.rstrip('?')}. The source number is [2].",
    ]
    result = _run(settings, local_search, ScriptedModel({"summarize": echoes}))

    summaries = [t.summary for t in result.todo_items if t.summary]
    assert summaries and not any(s in echoes for s in summaries)
    assert any("only restated the question" in f for f in result.fallbacks)


def test_an_unverified_model_answer_gives_way_to_the_sentence_that_states_one(
    settings: Settings, local_search: LocalSearch
) -> None:
    report = _run(settings, local_search, ScriptedModel({"report": _draft})).report_markdown

    answer_line = report.split("\n\n")[1]
    assert "1410" in answer_line and "1851" not in answer_line


def test_a_year_the_bridge_sentence_holds_is_not_stated_as_the_answer(
    settings: Settings, local_search: LocalSearch
) -> None:
    """A server model answers the year the painter died, which the sentence it cites holds: the
    report must not mark it grounded; code's answer from the clock's own sentence stands."""

    def wrong_year(call: ModelCall) -> str:
        return json.dumps(
            {"answer": "1868 [1]", "background": "", "insights": [], "risks": []}, ensure_ascii=False
        )

    result = _run(settings, local_search, ScriptedModel({"report": wrong_year}))

    assert not (result.answer_status == "grounded" and "1868" in result.answer)
    assert result.answer_status == "grounded" and result.answer.startswith("1410")


def test_model_prose_whose_facts_no_source_states_never_reaches_the_report(
    settings: Settings, local_search: LocalSearch
) -> None:
    """A summary that moves the city to another country, a sentence citing a source that says
    something else, a Background cut off mid-word and an insight naming a place no source names:
    none of it reaches the summaries, the report or the notes; what the sources do state stays."""
    summary = (
        "The Prague astronomical clock was built in 1410 by Mikuláš of Kadaň [2]. "
        "Prague lies in Wrocław, Silesia [3]. The clock was rebuilt in 1866 [2]."
    )

    def draft(call: ModelCall) -> str:
        return json.dumps(
            {
                "answer": "1410 [2]",
                "background": "Karel Purkyně was a Czech painter who died in Prague [1]. "
                "The clock stands on the Old Town Hall and a2",
                "insights": [
                    {"text": "The clock was carried to Wrocław in 1945 [2].", "sources": [2]},
                    {"text": "The Prague astronomical clock was built in 1410 [2].", "sources": [2]},
                ],
                "risks": ["Records from Kraków in 1870 may disagree.", "Dates of the clock's parts differ."],
            },
            ensure_ascii=False,
        )

    result = _run(settings, local_search, ScriptedModel({"summarize": summary, "report": draft}))
    report = result.report_markdown
    notes = " ".join(p.read_text(encoding="utf-8") for p in (settings.home / "notes").rglob("*.md"))

    for invented in ("Wrocław", "Silesia", "1866", "1945", "Kraków", "a2"):
        word = re.compile(rf"\b{re.escape(invented)}\b")  # as a word: a note id such as "a27a60" holds "a2"
        assert not word.search(report) and not word.search(notes), invented
        assert not any(word.search(t.summary) for t in result.todo_items), invented
    assert "Karel Purkyně was a Czech painter who died in Prague" in report
    assert "The Prague astronomical clock was built in 1410 [" in report
    assert "Dates of the clock's parts differ." in report
    assert "sentence(s) of the model's prose left out" in report
