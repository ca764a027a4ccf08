"""The research rules, one table each: what the planner keeps, what round 2 and round 3 search,
which source counts as relevant, and what the judge reports as gaps.

Each table pins one rule: removing the rule from the code makes its table fail.
"""

from __future__ import annotations

import pytest

from deepresearch.citations import Source
from deepresearch.domain import TaskJudgement, TodoItem
from deepresearch.graph.nodes.judge import code_judgement, is_relevant
from deepresearch.graph.nodes.requery import bridge_query, choose_query, second_hop_queries, template_queries
from deepresearch.graph.planning import (
    ANCHOR_TITLE,
    MAX_TASKS,
    MIN_TASKS,
    build_plan,
    has_placeholder,
    normalize_query,
)
from deepresearch.model_outputs import PlannedTask

QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"
TASK = TodoItem(
    id=2,
    title="Prague clock history",
    intent="when the Prague astronomical clock was built",
    query="Prague astronomical clock built",
    queries=["Prague astronomical clock built"],
)


def planned(*queries: str) -> list[PlannedTask]:
    return [PlannedTask(title=f"Task {i}", intent=f"find {q}", query=q) for i, q in enumerate(queries, 1)]


def judgement(*gaps: str) -> TaskJudgement:
    return TaskJudgement(task_id=TASK.id, relevance=0, code_relevance=0, gaps=list(gaps))


def source(text: str, *, title: str = "Page", task: int = TASK.id, sid: int = 1) -> Source:
    return Source(id=sid, url=f"https://example.org/{sid}", title=title, content=text, task_ids=[task])


# -- the plan ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "blank"),
    [
        ("[specific technology] astronomical clock", True),
        ("astronomical clock {topic}", True),
        ("astronomical clock <entity> Prague", True),
        ("astronomical clock history ...", True),
        ("astronomical clock history …", True),
        ("Prague astronomical clock 1410", False),
        ("Karel Purkyně death place", False),
    ],
)
def test_a_prompt_blank_copied_into_a_plan_is_dropped(query: str, blank: bool) -> None:
    assert has_placeholder(query) is blank
    tasks, fallbacks = build_plan(QUESTION, "en", planned(query, "Karel Purkyně died city"))
    kept = [normalize_query(t.query) for t in tasks]
    assert (normalize_query(query) not in kept) is blank
    assert any("placeholder" in note for note in fallbacks) is blank


@pytest.mark.parametrize(
    ("proposed", "kept", "note"),
    [
        (["banana bread recipe", "Karel Purkyně died city"], ["Karel Purkyně died city"], "off topic"),
        (["Which U.S.", "Karel Purkyně died city"], ["Karel Purkyně died city"], "fragment"),
        (
            ["Karel Purkyně died city", "Karel Purkyně died city Prague"],
            ["Karel Purkyně died city"],
            "near-duplicate",
        ),
    ],
)
def test_the_plan_keeps_usable_tasks_and_says_what_it_dropped(
    proposed: list[str], kept: list[str], note: str
) -> None:
    tasks, fallbacks = build_plan(QUESTION, "en", planned(*proposed))
    queries = [t.query for t in tasks]
    assert queries[0] != kept[0] and tasks[0].title == ANCHOR_TITLE
    assert [q for q in queries if q in proposed] == kept
    assert any(note in line for line in fallbacks)
    assert MIN_TASKS <= len(tasks) <= MAX_TASKS
    assert [t.id for t in tasks] == list(range(1, len(tasks) + 1))


def test_a_plan_with_nothing_usable_is_planned_from_the_question_and_flagged() -> None:
    tasks, fallbacks = build_plan(QUESTION, "en", [], "the model answered no JSON")
    assert MIN_TASKS <= len(tasks) <= MAX_TASKS and all(t.is_fallback for t in tasks)
    assert "the model answered no JSON" in fallbacks[0]
    zh_tasks, zh_notes = build_plan("布拉格天文钟是什么时候建造的？", "zh", [])
    assert len(zh_tasks) == 1 and zh_tasks[0].title == "背景梳理" and "fallback task" in zh_notes[0]


# -- the next round's queries ---------------------------------------------------------------------


def test_round_two_narrows_the_first_query_with_the_judges_gaps() -> None:
    queries = template_queries(QUESTION, TASK, judgement("Orloj", "Hanuš", "1410", "mechanism"), 2)
    assert queries[0] == "Prague astronomical clock built Orloj Hanuš 1410"


def test_round_three_takes_a_different_angle_from_the_gaps_and_the_unused_question_terms() -> None:
    queries = template_queries(QUESTION, TASK, judgement("Orloj", "Hanuš", "1410", "mechanism", "x"), 3)
    assert queries[0] == "Orloj Hanuš 1410 mechanism"
    assert queries[1].split() == ["city", "karel", "purkyně", "died"]


@pytest.mark.parametrize(
    ("proposals", "ran", "chosen"),
    [
        (["Prague Orloj 1410 builders"], set(), "Prague Orloj 1410 builders"),
        (["[builder] of the Prague clock", "Prague Orloj builders"], set(), "Prague Orloj builders"),
        (["banana bread recipe", "Prague Orloj builders"], set(), "Prague Orloj builders"),
        (["Prague Orloj builders"], {"prague orloj builders"}, "Prague astronomical clock built Orloj 1410"),
        ([None, "Orloj of"], set(), "Prague astronomical clock built Orloj 1410"),
    ],
)
def test_the_next_query_is_the_first_usable_proposal_else_a_template(
    proposals: list[str | None], ran: set[str], chosen: str
) -> None:
    assert choose_query(QUESTION, TASK, judgement("Orloj", "1410"), 2, proposals, ran) == chosen


def test_no_query_is_chosen_when_every_candidate_already_ran() -> None:
    candidates = template_queries(QUESTION, TASK, judgement("Orloj"), 2)
    ran = {normalize_query(q) for q in candidates}
    assert choose_query(QUESTION, TASK, judgement("Orloj"), 2, [], ran) is None


def test_a_bridge_query_names_what_the_sources_add_with_the_terms_they_lack() -> None:
    found = source("Karel Purkyně died in Prague in 1868 after a short illness.", title="Karel Purkyně")
    query = bridge_query(QUESTION, [found])
    assert query is not None and query.startswith("Prague")
    assert "astronomical" in query and "clock" in query and "Karel" not in query


def test_the_next_hop_comes_from_the_passage_about_what_the_question_names() -> None:
    """The first hop is the passage on the question's own name, not one sharing its common words
    ("admiral … fleet … kingdom"); the next query names what that passage adds, not the subject's
    full name."""
    asked = "Which admiral commanded the fleet of Velmora's kingdom?"
    village = Source(
        id=1,
        url="doc://velmora",
        title="Velmora",
        content="Velmora Stane is a farming village. Velmora lies in eastern Kestria, near Lake Oster.",
    )
    other = Source(
        id=2,
        url="doc://ostland",
        title="Ostland",
        content="Hans Berg was the admiral who commanded the fleet of Ostland, a kingdom of the north.",
    )
    hops = second_hop_queries(asked, [other, village])
    assert hops[0].startswith("Kestria")
    assert not any(h.startswith(("Velmora Stane", "Hans Berg")) for h in hops[:2])


@pytest.mark.parametrize(
    "text",
    [
        "A painter of the nineteenth century.",  # no name the question does not hold
        "Vienna and Brno lie in Central Europe.",  # names, but nothing the question asks about
    ],
)
def test_no_bridge_query_without_a_new_name_in_a_source_about_the_question(text: str) -> None:
    assert bridge_query(QUESTION, [source(text)]) is None


# -- relevance and the judge's gaps ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("terms", "text", "relevant"),
    [
        (["clock"], "The clock strikes.", True),
        (["clock", "Prague"], "The clock strikes.", False),  # half the terms, but only one of them
        (["clock", "Prague"], "The Prague clock strikes.", True),
        (["clock", "Prague", "built"], "The Prague clock strikes.", True),
        (["clock", "Prague", "built", "Orloj"], "The Prague clock strikes.", True),
        (["clock", "Prague", "built", "Orloj", "1410"], "The Prague clock strikes.", False),
        (["clock", "Prague"], "Bread and butter.", False),
    ],
)
def test_a_source_is_relevant_with_half_its_task_terms_and_at_least_two(
    terms: list[str], text: str, relevant: bool
) -> None:
    assert is_relevant(terms, text) is relevant


def test_the_code_judgement_scores_the_tasks_own_sources_and_names_the_gaps() -> None:
    own = [
        source("The Prague astronomical clock was built in 1410.", sid=1),
        source("Bread and butter.", sid=2),
    ]
    other = source("The Prague astronomical clock was built in 1410.", task=9, sid=3)
    judged = code_judgement(QUESTION, TASK, [*own, other])
    assert (judged.relevant, judged.total, judged.relevance) == (1, 2, 50.0)
    assert judged.gaps == ["city", "karel", "purkyně", "died"]
    assert "1 of 2 sources" in judged.explanation and "Missing: city" in judged.explanation


def test_a_task_without_sources_is_judged_zero_and_says_why() -> None:
    skipped = TASK.model_copy(update={"status": "skipped", "skip_reason": "search failed"})
    judged = code_judgement(QUESTION, skipped, [])
    assert (judged.relevance, judged.total) == (0.0, 0)
    assert judged.explanation == f"No sources for task {TASK.id} (search failed)."
