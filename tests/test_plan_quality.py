"""Plans without fragments or near-duplicates, and roles that fit the question.

Questions come from the shared eval set (``../shared/eval/questions.jsonl``) where they exist there;
"Which U.S. state …" is the issue's own example.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deepresearch.graph.nodes.requery import template_queries
from deepresearch.graph.planning import (
    ANCHOR_TITLE,
    DUPLICATE_JACCARD,
    build_plan,
    entity_query,
    is_fragment,
    near_duplicate,
    question_entities,
    resolve_role,
)
from deepresearch.model_outputs import PlannedTask, RoleChoice
from deepresearch.roles import guess_role, role_votes
from deepresearch.text import STOPWORDS, key_stems

EVAL_QUESTIONS = Path(__file__).resolve().parents[2] / "shared" / "eval" / "questions.jsonl"
DEMO = "When was the astronomical clock built in the city where Karel Purkyně died?"
BLUE_LACY = (
    "The Blue Lacy, official breed of Texas, and Chesapeake Bay Retriever, are both dog breeds "
    "developed during which century?"
)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def _eval_questions() -> list[str]:
    if not EVAL_QUESTIONS.is_file():
        return [DEMO, BLUE_LACY, "If Gallu is a demon Lilu is what?"]
    lines = EVAL_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question"] for line in lines if line.strip()]


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("If Gallu is a demon Lilu is what?", ["Gallu", "Lilu"]),
        ("Which U.S. state has the most dog breeds?", []),
        (
            "Are Christopher Nolan and Sathish Kalathil both film directors?",
            ["Christopher Nolan", "Sathish Kalathil"],
        ),
        ("Who was the first president of Damerjog's country?", ["Damerjog"]),
        (
            "The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?",
            ["Armando Iannucci", "Puneet Sira", "OBE"],
        ),
        ("Which band was formed first The Exies or Circus Diablo ?", ["Circus Diablo", "Exies"]),
        (DEMO, ["Karel Purkyně"]),
        ("Toad Hall is a residential hall in a university located in what Australian city?", ["Toad Hall"]),
        (
            "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?",
            ["Woman's Viewpoint", "Pick Me Up"],
        ),
    ],
)
def test_question_entities_are_whole_names(question: str, names: list[str]) -> None:
    assert question_entities(question) == names


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Which U.S.", True),
        ("If Gallu", True),
        ("Lilu is what", True),
        ("eye's", True),
        ("The mouth of the Tikhaya Sosna is located in the continent of", True),
        ("Pizza Hut founders and", True),
        ("astronomical clock built in the city of New", True),
        ("Gallu demon", False),
        ("Leland North Carolina film 1986", False),
        ("What genre is the author of Act of War associated with?", False),
        ("布拉格天文钟", False),
    ],
)
def test_is_fragment(text: str, fragment: bool) -> None:
    assert is_fragment(text) is fragment


@pytest.mark.parametrize(
    ("a", "b", "duplicate"),
    [
        ("Blue Lacy dog breed history", "Blue Lacy dog breeds history Texas", True),  # subset
        ("Karel Purkyně died Prague", "Karel Purkyne death Prague", False),  # died/death stem apart
        ("Pizza Hut founders", "Pizza Hut founder", True),
        ("Gallu demon", "Lilu demon", False),
    ],
)
def test_near_duplicate(a: str, b: str, duplicate: bool) -> None:
    assert near_duplicate(set(key_stems(a)), set(key_stems(b))) is duplicate


def test_a_one_word_name_searches_with_the_question_topic() -> None:
    question = "If Gallu is a demon Lilu is what?"
    entities = question_entities(question)
    assert [entity_query(name, question, entities) for name in entities] == ["Gallu demon", "Lilu demon"]
    which = "Which plant is larger, the Pterocarya or the Cotula?"
    assert entity_query("Cotula", which, question_entities(which)) == "Cotula plant"


def test_plan_drops_fragments_and_near_duplicates_and_says_so() -> None:
    proposed = [
        PlannedTask(title="Blue Lacy", intent="Origin of the Blue Lacy", query="Blue Lacy dog breed history"),
        PlannedTask(title="Blue Lacy origins", intent="When", query="Blue Lacy dog breeds history Texas"),
        PlannedTask(title="Which U.S.", intent="Which state", query="Which U.S."),
        PlannedTask(title="Chesapeake", intent="", query="Chesapeake Bay Retriever breed century"),
        PlannedTask(title="If Chesapeake", intent="", query="Chesapeake Bay Retriever developed in the"),
    ]
    tasks, fallbacks = build_plan(BLUE_LACY, "en", proposed)
    kept = ["Blue Lacy dog breed history", "Chesapeake Bay Retriever breed century"]
    assert [t.query for t in tasks][1:] == kept
    assert tasks[0].title == "The question as asked"
    assert fallbacks == ["plan: dropped 3 unusable task(s) (1 near-duplicate, 2 fragment)"]


def test_a_fragment_title_is_replaced_by_its_query() -> None:
    proposed = [PlannedTask(title="Which U.S.", intent="", query="Texas official state dog breed")]
    tasks, _ = build_plan("Which U.S. state has the Blue Lacy as its official dog breed?", "en", proposed)
    assert "Which U.S." not in [t.title for t in tasks]
    assert "Texas official state dog breed" in [t.title for t in tasks]


@pytest.mark.parametrize("question", _eval_questions())
def test_no_eval_question_gets_a_fragment_or_duplicate_task(question: str) -> None:
    """The scripted model's habit (the question plus one word, three times) and a cut-off task,
    on every question of the eval set: what is planned has no fragment and no near-duplicate."""
    words = question.split()
    proposed = [
        PlannedTask(title="Background", intent="", query=f"{question} background"),
        PlannedTask(title="Key facts", intent="", query=f"{question} facts"),
        PlannedTask(title=" ".join(words[:2]), intent="", query=" ".join(words[:2])),
    ]
    tasks, _ = build_plan(question, "en", proposed)
    anchor = set(key_stems(question))
    whole = [t for t in tasks if _jaccard(set(key_stems(t.query)), anchor) >= DUPLICATE_JACCARD]
    parts = [t for t in tasks if t not in whole]
    assert len(whole) == 1, [t.query for t in whole]  # the question as asked, once
    for task in parts:
        assert not is_fragment(task.query), task.query
        assert not is_fragment(task.title, min_terms=1), task.title
    for i, a in enumerate(parts):
        for b in parts[i + 1 :]:
            assert not near_duplicate(set(key_stems(a.query)), set(key_stems(b.query))), (a.query, b.query)
    for name in question_entities(question):
        assert f'"{name}"' in question or name.split()[0].lower() not in STOPWORDS, name


@pytest.mark.parametrize(
    ("question", "model_role", "expected"),
    [
        (
            "In what year was the man that resigned as the president of Israel before the Israeli "
            "presidential election, 2000 born?",
            "travel_guide",
            "historian",
        ),
        (BLUE_LACY, "travel_guide", "historian"),
        (DEMO, "finance_analyst", "historian"),
        ("Which plant is larger, the Pterocarya or the Cotula?", "finance_analyst", "science_researcher"),
        (DEMO, "historian", "historian"),
        (DEMO, "general_researcher", "general_researcher"),  # never wrong, so it stands
        ("Who is the spouse of Big Eye's main director?", "general_researcher", "general_researcher"),
        ("Who is the spouse of Big Eye's main director?", "travel_guide", "general_researcher"),
        ("If Gallu is a demon Lilu is what?", "finance_analyst", "general_researcher"),
        ("What is the best time to visit Prague?", "travel_guide", "travel_guide"),
    ],
)
def test_the_role_fits_the_question(question: str, model_role: str, expected: str) -> None:
    role = resolve_role(RoleChoice(role=model_role, focus=""), question)
    assert role.type == expected
    assert role.is_fallback is (expected != model_role)


@pytest.mark.parametrize(
    ("question", "role"),
    [
        ("When was the company founded for which Kathi-Anne Reinstein resigned?", "historian"),
        ("Which singer is American, Mark King or Nick Hexum?", "general_researcher"),  # King is a name
        ("Which actress said she was making a film?", "general_researcher"),  # no "ai", no "king"
        ("What is the best time to visit Prague?", "travel_guide"),
        ("How did the stock market react to inflation in 2022?", "finance_analyst"),
        ("布拉格天文钟的历史", "historian"),
    ],
)
def test_keyword_role_guess(question: str, role: str) -> None:
    assert guess_role(question).type == role


def test_keywords_match_whole_words_and_plurals() -> None:
    votes = role_votes("Which wars and battles were fought in the 15th century?")
    assert votes["historian"] == 3


@pytest.mark.parametrize("round_number", [2, 3])
def test_requeries_of_the_anchor_task_carry_no_boilerplate(round_number: int) -> None:
    question = "If Gallu is a demon Lilu is what?"
    proposed = [PlannedTask(title="Lilu", intent="", query="Lilu demon spirit")]
    anchor = build_plan(question, "en", proposed)[0][0]
    assert anchor.title == ANCHOR_TITLE
    for query in template_queries(question, anchor, None, round_number):
        assert not {"question", "asked", "passages"} & set(query.lower().split()), query


def test_parts_of_the_question_are_no_repeat_of_the_whole() -> None:
    """A good plan: the question itself, then narrower tasks on its parts; all are kept."""
    proposed = [
        PlannedTask(title="The question", intent="", query=DEMO),
        PlannedTask(title="Death place", intent="", query="Karel Purkyně died city"),
        PlannedTask(title="The clock", intent="", query="astronomical clock built"),
        PlannedTask(title="The clock again", intent="", query="astronomical clocks built when"),
    ]
    tasks, fallbacks = build_plan(DEMO, "en", proposed)
    assert [t.query for t in tasks] == [DEMO, "Karel Purkyně died city", "astronomical clock built"]
    assert fallbacks == ["plan: dropped 1 unusable task(s) (1 near-duplicate)"]
