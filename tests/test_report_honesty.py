"""Reports say only what is true and useful (issue 23): a Limits line only where it changes how far
the reader should trust the answer, never against the answer line or another line; a task dropped at
plan review listed once, as dropped; a "via" that is another passage; insights about the question;
no task that is a fragment or a copy of the question or of another task.

Every question, passage and task here is invented for these tests."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import pytest

from deepresearch import research
from deepresearch.answers.ground import GroundedAnswer
from deepresearch.citations import Source
from deepresearch.domain import RoundEvaluation, TaskJudgement, TodoItem
from deepresearch.graph.planning import ANCHOR_TITLE, build_plan, is_fragment
from deepresearch.graph.review import DROPPED
from deepresearch.llm.testing import ScriptedModel
from deepresearch.model_outputs import PlannedTask
from deepresearch.report_markdown import ReportInput, render_report
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

QUESTION = "Who designed the lighthouse on the island where the painter Odile Varenne was born?"
SOURCES = [
    Source(
        id=1,
        url="doc://varenne",
        title="Odile Varenne",
        content="Odile Varenne was a painter of seascapes. She was born on the island of Soreth.",
    ),
    Source(
        id=2,
        url="doc://soreth",
        title="Soreth lighthouse",
        content="The Soreth lighthouse was designed by Augustin Mollard in 1862. "
        "The Tarnish coast has a population of about 40,000.",
    ),
    Source(
        id=3,
        url="doc://grain",
        title="Grain trade of the Tarnish coast",
        content="Grain ships crossed the Tarnish sea each autumn.",
    ),
]
ANSWER = GroundedAnswer(
    text="Augustin Mollard",
    status="grounded",
    kind="person",
    source_id=2,
    sentence="The Soreth lighthouse was designed by Augustin Mollard in 1862.",
    support=0.9,
    via_source_id=1,
    via_sentence="She was born on the island of Soreth.",
)
ABSTAINED = GroundedAnswer(text="The sources read do not answer.", status="abstained", kind="person")


def done(tid: int, summary: str, title: str = "") -> TodoItem:
    return TodoItem(
        id=tid,
        title=title or f"Lighthouse task {tid}",
        intent="i",
        query="q",
        status="completed",
        summary=summary,
    )


def round_of(*judged: tuple[int, float]) -> RoundEvaluation:
    tasks = [
        TaskJudgement(
            task_id=tid, relevance=score, code_relevance=score, relevant=round(score / 10), total=10
        )
        for tid, score in judged
    ]
    mean = sum(score for _, score in judged) / len(judged)
    return RoundEvaluation(round=1, relevance=mean, code_relevance=mean, tasks=tasks, enough=False)


def report(
    tasks: Sequence[TodoItem],
    answer: GroundedAnswer | None = ANSWER,
    evaluations: Sequence[RoundEvaluation] = (),
    threshold: float = 50.0,
    notices: Sequence[str] = (),
) -> str:
    inp = ReportInput(QUESTION, "en", tasks, SOURCES, evaluations, threshold, None, notices, answer)
    return render_report(inp).markdown


def limits(markdown: str) -> str:
    head = markdown.split("## ", 1)[0]
    return head.split("**Limits of this report:**", 1)[1] if "**Limits of this report:**" in head else ""


# 1. The Limits box


def test_a_grounded_cited_answer_is_not_called_thin_evidence() -> None:
    markdown = report([done(1, "")], ANSWER, [round_of((1, 3.0))])
    assert "**Answer:** Augustin Mollard [" in markdown
    assert "thin" not in limits(markdown)


def test_thin_evidence_is_said_when_nothing_answers_and_never_against_a_zero_threshold() -> None:
    thin = report([done(1, "")], ABSTAINED, [round_of((1, 10.0))], threshold=50.0)
    assert "Evidence stayed thin" in limits(thin) and "50%" in limits(thin)
    zero = report([done(1, "")], ABSTAINED, [round_of((1, 0.0))], threshold=0.0)
    assert "0% threshold" not in zero and "Evidence stayed thin" not in zero


def test_a_task_whose_passages_were_off_topic_shows_no_relevance_score() -> None:
    tasks = [done(1, "- Grain ships crossed the Tarnish sea each autumn. [3]")]
    markdown = report(tasks, ANSWER, [round_of((1, 100.0))])
    heading, section = markdown.split("### Task 1: Lighthouse task 1", 1)[1].split("\n", 1)
    assert "not about the question" in section.split("##", 1)[0]
    assert "key terms" not in heading


def test_a_task_s_score_is_its_best_round_not_a_last_round_that_found_nothing_new() -> None:
    tasks = [done(1, "- The Soreth lighthouse was designed by Augustin Mollard in 1862. [2]")]
    markdown = report(tasks, ANSWER, [round_of((1, 60.0)), round_of((1, 0.0))])
    heading = markdown.split("### Task 1: Lighthouse task 1", 1)[1].split("\n", 1)[0]
    assert "6 of 10 sources judged relevant" in heading


def test_plan_and_run_bookkeeping_is_not_a_limit_but_a_failed_search_is() -> None:
    notices = [
        "plan: 6 proposed task(s) unusable (6 off topic); planned from the question's terms and names",
        "plan: dropped 2 unusable task(s) (2 fragment)",
        "role: no word of the question fits the model's travel_guide; chose historian by keywords",
        "judge: the model's answer was not JSON; kept the code-side relevance",
        "round 3: no new query left to try; writing the report",
        "removed 4 run folder(s) older than 30 day(s)",
        "task 2: model summary failed (timed out); used an extractive summary",
        "task 3: search failed for 'Soreth harbour': connection refused",
    ]
    box = limits(report([done(1, "")], ANSWER, notices=notices))
    assert "search failed for 'Soreth harbour'" in box
    for internal in ("plan:", "role:", "judge:", "round 3", "run folder", "unusable", "model summary"):
        assert internal not in box, internal


# 2. Tasks dropped at plan review


def test_a_task_dropped_at_plan_review_is_listed_once_as_dropped() -> None:
    dropped = TodoItem(
        id=3, title="Harbour tolls", intent="i", query="Soreth harbour tolls", status="skipped"
    )
    dropped = dropped.model_copy(update={"skip_reason": DROPPED})
    tasks = [done(1, "- The Soreth lighthouse was designed by Augustin Mollard in 1862. [2]"), dropped]
    evaluation = round_of((1, 80.0))
    judged = [*evaluation.tasks, TaskJudgement(task_id=3, relevance=0.0, code_relevance=0.0, gaps=["tolls"])]
    markdown = report(tasks, ANSWER, [evaluation.model_copy(update={"tasks": judged})])
    assert markdown.count("Harbour tolls") == 1
    assert markdown.count(DROPPED) == 1
    assert "### Task 3" not in markdown and "no evidence" not in markdown
    assert "tolls" not in markdown.replace("Harbour tolls", "")


def test_a_dropped_task_is_not_judged(settings: Settings) -> None:
    hits = [
        SearchHit(
            url="https://example.org/soreth", title="Soreth lighthouse", snippet=SOURCES[1].content or ""
        ),
        SearchHit(url="https://example.org/varenne", title="Odile Varenne", snippet=SOURCES[0].content or ""),
    ]
    queries = [
        "Odile Varenne painter born island",
        "Soreth lighthouse designer",
        "Odile Varenne island harbour tolls",
    ]
    tasks = {"tasks": [{"title": f"Part {i}", "intent": q, "query": q} for i, q in enumerate(queries, 1)]}
    model = ScriptedModel({"plan": json.dumps(tasks)})

    def review(planned: list[TodoItem]) -> list[TodoItem]:
        return [t for t in planned if "tolls" not in t.query]

    result = research(
        QUESTION, settings=settings, model=model, search=StaticSearch(default=hits), max_web_research_loops=1,
        review_plan=review,
    )  # fmt: skip
    dropped = [t.id for t in result.todo_items if t.skip_reason == DROPPED]
    assert dropped
    assert not {j.task_id for e in result.evaluations for j in e.tasks} & set(dropped)
    assert result.report_markdown.count(DROPPED) == 1


# 3. The "via" line


@pytest.mark.parametrize(
    ("source_id", "sentence"),
    [
        (2, ANSWER.sentence),  # the answer's own passage
        (2, "The Tarnish coast has a population of about 40,000."),  # the answer's own source
        (1, ANSWER.sentence),  # the answer's sentence, found again elsewhere
    ],
)
def test_a_via_that_is_not_another_passage_is_left_out(source_id: int, sentence: str) -> None:
    answer = replace(ANSWER, via_source_id=source_id, via_sentence=sentence)
    markdown = report([done(1, "")], answer)
    assert " via " not in markdown
    assert "Augustin Mollard in 1862" in markdown


def test_a_via_from_another_passage_is_shown() -> None:
    markdown = report([done(1, "")], ANSWER)
    assert "via “Odile Varenne: She was born on the island of Soreth.”" in markdown


# 4. Insights are about the question


def test_an_insight_that_shares_nothing_with_the_question_is_left_out() -> None:
    tasks = [
        done(1, "- The Tarnish coast has a population of about 40,000. [2]"),
        done(2, "- Odile Varenne was a painter of seascapes. [1]"),
    ]
    markdown = report(tasks, ANSWER)
    insights = markdown.split("## Key insights", 1)[1].split("\n## ", 1)[0]
    evidence = markdown.split("## Evidence and data", 1)[1].split("\n## ", 1)[0]
    assert "population" not in insights
    assert "painter of seascapes" in evidence


# 5. Tasks that are fragments or copies


@pytest.mark.parametrize("title", ["EP", "Norway", "Portugal", "History of the"])
def test_a_fragment_title_is_replaced(title: str) -> None:
    question = "Which composer wrote the anthem of the town where the chemist Ilse Marrow taught?"
    proposed = [PlannedTask(title=title, intent="", query="Ilse Marrow chemist taught town")]
    tasks, _ = build_plan(question, "en", proposed)
    assert title not in [t.title for t in tasks]
    for task in tasks:
        assert task.title == ANCHOR_TITLE or not is_fragment(task.title), task.title


def test_the_derived_details_task_has_no_fragment_title() -> None:
    question = "In what year was the granary in the village where the weaver Tomas Ferrel lived restored?"
    tasks, _ = build_plan(question, "en", [])
    assert not [t.title for t in tasks if t.title.startswith("Details:")]
    for task in tasks:
        assert task.title == ANCHOR_TITLE or not is_fragment(task.title), task.title


def test_no_task_repeats_the_question_or_another_task_by_title() -> None:
    question = "Which river flows past the abbey where the monk Aldric Venn copied manuscripts?"
    proposed = [
        PlannedTask(title=question, intent="", query=question),
        PlannedTask(title="Aldric Venn", intent="", query="Aldric Venn monk abbey"),
        PlannedTask(title="Aldric Venn", intent="", query="abbey river manuscripts copied"),
    ]
    tasks, _ = build_plan(question, "en", proposed)
    titles = [t.title.casefold() for t in tasks]
    assert question.casefold() not in titles
    assert len(titles) == len(set(titles)), titles


def test_clarify_adds_the_reader_s_focus_without_the_word_focus() -> None:
    from io import StringIO

    from rich.console import Console

    from deepresearch.cli.review import clarify

    question = clarify("Ventral clock", Console(file=StringIO()), read=lambda: "its maker\n")
    assert "focus" not in question.lower()
    assert "Ventral clock" in question and "its maker" in question
    tasks, _ = build_plan(question, "en", [])
    assert not [t.query for t in tasks if "focus" in t.query.lower()]
