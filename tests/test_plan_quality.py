"""Plans without fragments or near-duplicates, and roles that fit the question.

Every question here is invented (people, places and works made up for the test), one of each shape
that has broken a plan: one-word names, names joined by "and", possessives, a full stop inside the
question, a space before the question mark, leading stopwords, months and nationalities, quoted
titles, a question in Chinese. "Which U.S. state …" is the issue's own example.
"""

from __future__ import annotations

import json

import pytest

from deepresearch.answers.hops import split_hops
from deepresearch.graph.nodes.requery import template_queries
from deepresearch.graph.planning import (
    ANCHOR_TITLE,
    DUPLICATE_JACCARD,
    build_plan,
    entity_query,
    is_fragment,
    near_duplicate,
    plan_only,
    question_entities,
    resolve_role,
)
from deepresearch.llm.testing import ScriptedModel
from deepresearch.model_outputs import PlannedTask, RoleChoice
from deepresearch.roles import guess_role, role_votes
from deepresearch.text import STOPWORDS, key_stems

TWO_HOP = "When was the stone bridge built in the town where Edda Lindqvist died?"
TWO_BREEDS = (
    "The Fenwick Terrier, state dog of Ohio, and the Harlow Setter, are both dog breeds "
    "developed during which century?"
)
ONE_WORD_NAMES = "If Borra is a goblin Tesk is what?"
PLANT_CHOICE = "Which plant flowers earlier, the Feathercap or the Ridgewort?"
SPOUSE = "Who is the godmother of Glass Orchard's youngest singer?"
QUESTIONS = [
    TWO_HOP,
    TWO_BREEDS,
    ONE_WORD_NAMES,
    PLANT_CHOICE,
    SPOUSE,
    "Which U.S. county grows the most cranberries?",
    "Are Ada Brandt and Lev Sokol both film directors?",
    "What anthem did Kellbrook's navy adopt?",
    "The writer Ines Moreno has an OBE. Does the writer Tomas Ruiz also have one?",
    "Which kiln was fired first The Emberwick or Sallow Moor ?",
    "Fennick Lodge is a boathouse on a lake found in what Norwegian county?",
    "Are both magazines, the Gardener's Friend and Tell Me More, Irish publications?",
    "The harbour master who quit Pellow Quay after the great flood was born in which decade?",
    "What song premiered in the March 3, 2004 episode of Pip the Badger?",
    'Glass Orchard starred which Scottish actress, known for a role on "Harbour Lights"?',
    "How many TEUs did the city where the 14th Harbour Games were held handle in 2012?",
    "Under what name did the founder of Glass Harbor release her album Quiet Engines?",
    "What magazine does a former Glenmore Otters goalkeeper, who retired early, edit?",
    "Which river drains Millbrook, a hamlet in the same shire as Dorrance?",
    "Who roasted the first batch at Tin Kettle Coffee, and in what year?",
    "Salt and Bread, released in which year, is a cookbook by Ruth Ames?",
    "Which singer is Irish, Tom King or Ada Brandt?",
    "Who choreographed the ballet that opened the Lumen Hall season?",
    "What acronym does the guild that certified Tilewm go by?",
    "Is Tessera older than Mancala?",
    "Who is the husband of Park Min-seo?",
    "Describe the history of the Eskerby stone bridge.",
    "斯德哥尔摩老桥的历史",
]


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


@pytest.mark.parametrize(
    ("question", "names"),
    [
        (ONE_WORD_NAMES, ["Borra", "Tesk"]),
        ("Which U.S. county grows the most cranberries?", []),
        ("Are Ada Brandt and Lev Sokol both film directors?", ["Ada Brandt", "Lev Sokol"]),
        ("What anthem did Kellbrook's navy adopt?", ["Kellbrook"]),
        (
            "The writer Ines Moreno has an OBE. Does the writer Tomas Ruiz also have one?",
            ["Ines Moreno", "Tomas Ruiz", "OBE"],
        ),
        ("Which kiln was fired first The Emberwick or Sallow Moor ?", ["Sallow Moor", "Emberwick"]),
        (TWO_HOP, ["Edda Lindqvist"]),
        ("Describe the history of the Eskerby stone bridge.", ["Eskerby"]),  # an opening verb is no name
        ("Fennick Lodge is a boathouse on a lake found in what Norwegian county?", ["Fennick Lodge"]),
        (
            "Are both magazines, the Gardener's Friend and Tell Me More, Irish publications?",
            ["Gardener's Friend", "Tell Me More"],
        ),
    ],
)
def test_question_entities_are_whole_names(question: str, names: list[str]) -> None:
    assert question_entities(question) == names


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("Which U.S.", True),
        ("If Borra", True),
        ("Tesk is what", True),
        ("eye's", True),
        ("The source of the Tamsin River is located in the county of", True),
        ("Copper Kettle founders and", True),
        ("stone bridge built in the town of New", True),
        ("Borra goblin", False),
        ("Eskerby Ohio film 1994", False),
        ("Which metre does the poet behind Salt Road favour?", False),
        ("斯德哥尔摩老桥", False),
    ],
)
def test_is_fragment(text: str, fragment: bool) -> None:
    assert is_fragment(text) is fragment


@pytest.mark.parametrize(
    ("a", "b", "duplicate"),
    [
        ("Fenwick Terrier dog breed history", "Fenwick Terrier dog breeds history Ohio", True),
        ("Fenwick Terrier history", "Fenwick Terrier dog breeds history Ohio", True),  # subset
        ("Edda Lindqvist died Eskerby", "Edda Lindqvist death Eskerby", False),  # died/death stem apart
        ("Copper Kettle founders", "Copper Kettle founder", True),
        ("Borra goblin", "Tesk goblin", False),
    ],
)
def test_near_duplicate(a: str, b: str, duplicate: bool) -> None:
    assert near_duplicate(set(key_stems(a)), set(key_stems(b))) is duplicate


def test_a_one_word_name_searches_with_the_question_topic() -> None:
    entities = question_entities(ONE_WORD_NAMES)
    assert [entity_query(name, ONE_WORD_NAMES, entities) for name in entities] == [
        "Borra goblin",
        "Tesk goblin",
    ]
    assert entity_query("Ridgewort", PLANT_CHOICE, question_entities(PLANT_CHOICE)) == "Ridgewort plant"
    verb_first = "Who filmed the documentary Borra?"  # an -ed verb is no topic
    assert entity_query("Borra", verb_first, question_entities(verb_first)) == "Borra documentary"


def test_plan_drops_fragments_and_near_duplicates_and_says_so() -> None:
    proposed = [
        PlannedTask(
            title="Fenwick Terrier",
            intent="Origin of the Fenwick Terrier",
            query="Fenwick Terrier dog breed history",
        ),
        PlannedTask(title="Fenwick origins", intent="When", query="Fenwick Terrier dog breeds history Ohio"),
        PlannedTask(title="Which U.S.", intent="Which state", query="Which U.S."),
        PlannedTask(title="Harlow", intent="", query="Harlow Setter breed century"),
        PlannedTask(title="If Harlow", intent="", query="Harlow Setter developed in the"),
    ]
    tasks, fallbacks = build_plan(TWO_BREEDS, "en", proposed)
    kept = ["Fenwick Terrier dog breed history", "Harlow Setter breed century"]
    assert [t.query for t in tasks][1:] == kept
    assert tasks[0].title == "The question as asked"
    assert fallbacks == ["plan: dropped 3 unusable task(s) (1 near-duplicate, 2 fragment)"]


def test_a_fragment_title_becomes_a_question_on_its_query() -> None:
    proposed = [PlannedTask(title="Which U.S.", intent="", query="Ohio county Fenwick Terrier mascot")]
    tasks, _ = build_plan("Which U.S. county named the Fenwick Terrier its mascot?", "en", proposed)
    assert "Which U.S." not in [t.title for t in tasks]
    assert "What do the sources say about Ohio county Fenwick Terrier mascot?" in [t.title for t in tasks]


@pytest.mark.parametrize("question", QUESTIONS)
def test_no_question_gets_a_fragment_or_duplicate_task(question: str) -> None:
    """The scripted model's habit (the question plus one word, three times) and a cut-off task,
    on questions of every shape above: what is planned has no fragment and no near-duplicate."""
    words = question.split()
    proposed = [
        PlannedTask(title="Background", intent="", query=f"{question} background"),
        PlannedTask(title="Key facts", intent="", query=f"{question} facts"),
        PlannedTask(title=" ".join(words[:2]), intent="", query=" ".join(words[:2])),
    ]
    tasks, _ = build_plan(question, "en", proposed)
    anchor = set(key_stems(question))
    hops = split_hops(question)
    bridge = hops.bridge if hops else None  # the description alone: a part, though most of the words
    whole = [
        t
        for t in tasks
        if _jaccard(set(key_stems(t.query)), anchor) >= DUPLICATE_JACCARD and t.title != bridge
    ]
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
            "The harbour master who quit Pellow Quay after the great flood was born in which decade?",
            "travel_guide",
            "historian",
        ),
        (TWO_BREEDS, "travel_guide", "historian"),
        (TWO_HOP, "finance_analyst", "historian"),
        (PLANT_CHOICE, "finance_analyst", "science_researcher"),
        (TWO_HOP, "historian", "historian"),
        (TWO_HOP, "general_researcher", "general_researcher"),  # never wrong, so it stands
        (SPOUSE, "general_researcher", "general_researcher"),
        (SPOUSE, "travel_guide", "general_researcher"),
        (ONE_WORD_NAMES, "finance_analyst", "general_researcher"),
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
        ("In what decade was the shipyard that Mila Hart left founded?", "historian"),
        ("Which singer is Irish, Tom King or Ada Brandt?", "general_researcher"),  # King is a name
        ("Which sailor was walking to the train?", "general_researcher"),  # no "ai", no "king"
        ("What is the best time to visit Prague?", "travel_guide"),
        ("How did the stock market react to inflation in 2022?", "finance_analyst"),
        ("斯德哥尔摩老桥的历史", "historian"),
    ],
)
def test_keyword_role_guess(question: str, role: str) -> None:
    assert guess_role(question).type == role


def test_keywords_match_whole_words_and_plurals() -> None:
    votes = role_votes("Which wars and battles were fought in the 15th century?")
    assert votes["historian"] == 3


@pytest.mark.parametrize("round_number", [2, 3])
def test_requeries_of_the_anchor_task_carry_no_boilerplate(round_number: int) -> None:
    proposed = [PlannedTask(title="Tesk", intent="", query="Tesk goblin spirit")]
    anchor = build_plan(ONE_WORD_NAMES, "en", proposed)[0][0]
    assert anchor.title == ANCHOR_TITLE
    for query in template_queries(ONE_WORD_NAMES, anchor, None, round_number):
        assert not {"question", "asked", "passages"} & set(query.lower().split()), query


def test_parts_of_the_question_are_no_repeat_of_the_whole() -> None:
    """A good plan: the question itself, then narrower tasks on its parts; all are kept."""
    proposed = [
        PlannedTask(title="The question", intent="", query=TWO_HOP),
        PlannedTask(title="Death place", intent="", query="Edda Lindqvist died town"),
        PlannedTask(title="The bridge", intent="", query="stone bridge built"),
        PlannedTask(title="The bridge again", intent="", query="stone bridges built when"),
    ]
    tasks, fallbacks = build_plan(TWO_HOP, "en", proposed)
    assert [t.query for t in tasks] == [TWO_HOP, "Edda Lindqvist died town", "stone bridge built"]
    assert fallbacks == ["plan: dropped 1 unusable task(s) (1 near-duplicate)"]


def test_the_plan_grammar_stops_at_five_tasks_and_a_longer_plan_still_parses() -> None:
    topics = ["harbour", "lighthouse", "ferry", "fishing fleet", "tides", "storms", "shipyard"]
    plan = {
        "tasks": [
            {"title": t, "intent": f"What is known of the {t}?", "query": f"Port Venn {t}"} for t in topics
        ]
    }
    model = ScriptedModel({"plan": json.dumps(plan)})

    opening = plan_only(model, "What shaped the history of Port Venn?", "en")

    schema = model.calls[0].schema
    assert schema is not None and schema["properties"]["tasks"]["maxItems"] == 5
    assert 3 <= len(opening.tasks) <= 5
    assert not any("unusable" in note for note in opening.fallbacks)
