"""A report worth reading when the answer line cannot be given (issue 35): what the sources do say,
quoted and cited, grouped by task; what is still missing; a Background from the sources or none;
Limits whose numbers count what they say; references as cited, the others read in one line; tasks
that are research questions.

Every question, passage and task here is invented for these tests."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from deepresearch import research
from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.hops import split_hops
from deepresearch.citations import Source
from deepresearch.domain import RoundEvaluation, TaskJudgement, TodoItem
from deepresearch.export.html import report_html
from deepresearch.graph.planning import build_plan
from deepresearch.llm.testing import ScriptedModel
from deepresearch.model_outputs import PlannedTask
from deepresearch.report_evidence import bearing, still_missing
from deepresearch.report_markdown import ReportInput, render_report
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings
from deepresearch.text import key_stems

from .answers.sources import src


def _measure() -> ModuleType:
    """``evals/report_quality.py``, the measure the benchmarks table uses (not a package)."""
    path = Path(__file__).resolve().parents[1] / "evals" / "report_quality.py"
    spec = importlib.util.spec_from_file_location("report_quality", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["report_quality"] = module
    spec.loader.exec_module(module)
    return module


is_fragment_task = _measure().is_fragment_task

QUESTION = "Who was the tutor of the first painter to cross the Velmora glacier, and where did he teach?"
CORWIN = Source(
    id=1,
    url="doc://corwin",
    title="Ansel Corwin",
    content="Ansel Corwin (1801 – 1870) was a landscape painter who was the first artist to walk across "
    "the Velmora glacier. He exhibited in Holmsted.",
)
WREN = Source(
    id=2,
    url="doc://wren",
    title="Tobias Wren",
    content="Tobias Wren was a Kestrian drawing master. He taught Ansel Corwin at the academy in Holmsted.",
)
GRAIN = Source(
    id=3, url="doc://grain", title="Grain trade", content="Grain ships crossed the Tarnish sea each autumn."
)
GLACIER = Source(
    id=4,
    url="doc://glacier",
    title="Velmora glacier",
    content="The Velmora glacier is the longest ice field of the Kestrian Alps. In 1829 the painter "
    "Ansel Corwin was the first to cross the glacier on foot.",
)
ABSTAINED = GroundedAnswer(text="The sources read do not answer.", status="abstained", kind="person")


def task(tid: int, ids: list[int], title: str = "", summary: str = "") -> TodoItem:
    return TodoItem(
        id=tid,
        title=title or f"Who or what is part {tid} of the question?",
        intent=title or "i",
        query="q",
        status="completed",
        source_ids=ids,
        summary=summary,
    )


def report(
    sources: list[Source], tasks: list[TodoItem], evaluations: list[RoundEvaluation] | None = None
) -> str:
    inp = ReportInput(QUESTION, "en", tasks, sources, evaluations or [], 50.0, None, answer=ABSTAINED)
    return render_report(inp).markdown


def section(markdown: str, heading: str) -> str:
    return markdown.split(f"## {heading}", 1)[1].split("\n## ", 1)[0] if f"## {heading}" in markdown else ""


def numbered(markdown: str) -> dict[str, int]:
    """Reference titles by the number the report gives them."""
    refs = section(markdown, "References")
    return {m.group(2): int(m.group(1)) for m in re.finditer(r"(?m)^(\d+)\. \[([^\]]+)\]", refs)}


# 1. What the sources say, when the answer line abstains


def test_an_abstaining_report_quotes_both_hops_cited_even_when_no_task_summary_holds_them() -> None:
    markdown = report([CORWIN, WREN, GRAIN], [task(1, [1, 2, 3])])
    insights, refs = section(markdown, "Key insights"), numbered(markdown)
    first = "was the first artist to walk across the Velmora glacier."
    assert f"{first} [{refs['Ansel Corwin']}]" in insights
    assert f"He taught Ansel Corwin at the academy in Holmsted. [{refs['Tobias Wren']}]" in insights
    assert "Grain ships" not in markdown


def test_the_missing_line_names_the_hop_asked_of_the_bridge_found() -> None:
    markdown = report([CORWIN, GRAIN], [task(1, [1, 3])])
    hop = "Who was the tutor of Ansel Corwin, and where did he teach?"
    assert (
        f"- **Unknown** — Still missing — the second hop: no sentence read states outright “{hop}”"
        in markdown
    )
    assert QUESTION not in section(markdown, "Key insights")  # the question is not restated


def test_a_longer_form_of_the_questions_own_subject_is_no_bridge() -> None:
    """A page titled by the question's subject with a middle name ("Ada Marie Venn" for "Ada
    Venn") is the subject again, not the state she was born in: the hop is asked of the new name
    the sentence writes."""
    asked = "Who was the first governor of the state where Ada Venn was born?"
    venn = src(
        1,
        "Ada Marie Venn",
        "Ada Marie Venn (born 1950) is a painter. Ada Marie Venn was born in Lorvania and "
        "studied in Dunmore.",
    )
    missing = still_missing(asked, bearing(asked, [venn, GRAIN]))
    assert (missing.part, missing.what) == ("hop", "Who was the first governor of Lorvania?")
    assert missing.bridge is not None and "born in Lorvania" in missing.bridge.text


def test_the_missing_line_names_the_bridge_when_nothing_read_bears_on_it() -> None:
    markdown = report([GRAIN], [task(1, [3])])
    bridge = "Who was the first painter to cross the Velmora glacier?"
    assert f"Still missing — the bridge: no passage read answers “{bridge}”" in markdown


def test_each_task_shows_its_own_sentences_that_bear_on_the_question() -> None:
    tasks = [task(1, [1], "Who was the first painter to cross the Velmora glacier?"), task(2, [2, 3])]
    evidence = section(report([CORWIN, WREN, GRAIN], tasks), "Evidence and data")
    first, second = evidence.split("### Task 2")
    assert "Velmora glacier. [" in first and "Tobias" not in first
    assert "He taught Ansel Corwin" in second and "Grain" not in second


# 2. Background from the sources, or none


def test_the_background_says_what_the_topic_is_from_the_passage_not_quoted_elsewhere() -> None:
    markdown = report([GLACIER, WREN], [task(1, [4, 2])])
    background = section(markdown, "Background")
    number = numbered(markdown)["Velmora glacier"]
    assert f"The Velmora glacier is the longest ice field of the Kestrian Alps. [{number}]" in background
    assert "This report researches" not in markdown


def test_with_nothing_on_the_question_there_is_no_background_and_no_question_restated() -> None:
    markdown = report([GRAIN], [task(1, [3])])
    assert "## Background" not in markdown
    assert markdown.count(QUESTION) == 1  # the title, nowhere else


# 3. Limits whose numbers count what they say


def judged(relevant: int, total: int) -> list[RoundEvaluation]:
    share = 100.0 * relevant / total
    one = TaskJudgement(task_id=1, relevance=share, code_relevance=share, relevant=relevant, total=total)
    return [
        RoundEvaluation(
            round=1, relevance=share, code_relevance=share, relevant=relevant, total=total, tasks=[one]
        )
    ]


def limits(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if line.startswith("> "))


def test_thin_relevance_is_said_as_sources_judged_relevant_of_those_judged() -> None:
    markdown = report([CORWIN, WREN, GRAIN], [task(1, [1, 2, 3])], judged(1, 3))
    assert "after 1 round(s), 1 of 3 sources were judged relevant to their task" in limits(markdown)
    assert "of the question's key terms" not in limits(markdown)


def test_key_term_coverage_is_what_the_closest_cited_passage_holds() -> None:
    markdown = report([CORWIN, WREN, GRAIN], [task(1, [1, 2, 3])], judged(1, 3))
    terms = set(key_stems(QUESTION))
    cited = [CORWIN, WREN]  # the two the report quotes
    best = max(len(terms & set(key_stems(f"{s.title} {s.content}"))) for s in cited)
    assert (
        f"The cited passage closest to the question holds {best} of its {len(terms)} key terms." in markdown
    )


# 4. References as cited, the others read in one line, off-topic ones left out


def test_references_list_the_cited_then_one_line_for_the_others_without_off_topic_titles() -> None:
    copies = [
        CORWIN.model_copy(update={"id": i, "url": f"doc://c{i}", "title": f"Corwin copy {i}"}) for i in (5, 6)
    ]
    inp = ReportInput(QUESTION, "en", [task(1, [1, 3, 5, 6])], [CORWIN, GRAIN, *copies], [], 50.0, None)
    inp.answer = ABSTAINED
    result = render_report(inp)
    refs = section(result.markdown, "References")
    assert list(numbered(result.markdown)) == ["Ansel Corwin"]  # the cited, numbered as cited
    assert "3 other passage(s) read, not cited; 2 on the question: Corwin copy 5; Corwin copy 6" in refs
    assert "1 off the question, not listed" in refs and "Grain trade" not in refs
    assert (result.read_not_cited, result.off_topic) == ([5, 6], [3])


def test_the_result_and_the_html_export_carry_the_same_split(tmp_path: Path) -> None:
    hits = [
        SearchHit(url=s.url, title=s.title, snippet=s.content, content=s.content)
        for s in (CORWIN, WREN, GRAIN)
    ]
    settings = Settings.load({"deepresearch_home": tmp_path / "home"})
    result = research(
        QUESTION,
        settings=settings,
        model=ScriptedModel(),
        search=StaticSearch(default=hits),
        max_web_research_loops=1,
    )
    grain = next(s.id for s in result.sources if s.title == "Grain trade")
    assert grain in result.off_topic_source_ids and grain not in result.cited_source_ids
    assert set(result.read_source_ids).isdisjoint(result.cited_source_ids)
    page = report_html(result)
    assert "off the question, not listed" in page and "Grain trade" not in page.split("References", 1)[1]
    assert "Tobias Wren" in page


# 5. Tasks that are research questions


@pytest.mark.parametrize(
    "question",
    [
        QUESTION,
        "What river runs through the town where the sculptor Ilse Marr was born?",
        "Who is the spouse of the director of Harbour Lights Over Ostvik?",
    ],
)
def test_a_two_hop_question_is_planned_bridge_first_then_hop_each_a_question(question: str) -> None:
    hops = split_hops(question)
    assert hops is not None
    tasks, _ = build_plan(question, "en", [])
    titles = [t.title for t in tasks]
    assert titles.index(hops.bridge) < titles.index(hops.hop)
    assert all(not is_fragment_task(t) for t in titles[1:]), titles
    assert question not in titles


def test_a_task_that_repeats_the_question_or_a_name_alone_becomes_a_question() -> None:
    proposed = [
        PlannedTask(
            title="Who was the tutor of the first painter to cross the Velmora glacier?",
            intent="",
            query="tutor painter Velmora glacier teacher",
        ),
        PlannedTask(title="Velmora", intent="", query="Velmora glacier painter crossing"),
    ]
    tasks, _ = build_plan(QUESTION, "en", proposed)
    for t in tasks:
        assert not set(key_stems(QUESTION)) <= set(key_stems(t.title)), t.title
        assert t.title == "The question as asked" or not is_fragment_task(t.title), t.title


# A comparison the pages do not decide


def test_a_comparison_it_cannot_decide_hands_over_each_options_own_page() -> None:
    """Which came out first cannot be said when one film's own page was not read: the answer
    line abstains, and says what the other film's page says and that the first has none."""
    asked = "Which film came out first, Salt Road or Amber Gate?"
    salt = src(
        1,
        "Salt Road (film)",
        "Salt Road is a 1964 drama film directed by Lena Morrow. It was shot in Tarnish.",
    )
    review = src(
        2, "Tarnish Film Weekly", "Tarnish Film Weekly reviewed Amber Gate and Salt Road in its first issue."
    )
    answer = ground_answer(asked, [salt, review])
    assert answer.status == "abstained"
    inp = ReportInput(asked, "en", [task(1, [1, 2])], [salt, review], [], 50.0, None, answer=answer)
    markdown = render_report(inp).markdown
    line = markdown.split("**Answer:**", 1)[1].split("\n## ", 1)[0]
    assert "What each option's own page says:" in line
    assert "Salt Road — “Salt Road is a 1964 drama film directed by Lena Morrow.” [1]" in line
    assert "Amber Gate — no page of its own among the sources read" in line
