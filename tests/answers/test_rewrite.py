"""A reworded question gets the same answer: each form of a question is read as its plain form.
Questions and passages are invented."""

from __future__ import annotations

import pytest

from deepresearch.answers.ground import ground_answer
from deepresearch.answers.question import frame_question, is_person_noun
from deepresearch.answers.rewrite import canonical_question

from .sources import src

PAINTERS = [
    src(1, "Ines Moreno", "Ines Moreno (born 1950) is a Chilean painter."),
    src(2, "Tomas Ruiz", "Tomas Ruiz (1931–2001) was an Argentine painter."),
]
DINER = [
    src(
        3,
        "Copper Kettle",
        "Copper Kettle is a chain of diners. It was founded in 1958 by brothers Dan and Frank "
        "Hollis in Wichita, Kansas.",
    )
]
MILL = [
    src(
        4,
        "Harrow Mill",
        "Harrow Mill is a watermill on the Lune. In 1895, the year the lake froze over, the mill "
        "was owned by Edwin Marsh.",
    )
]


@pytest.mark.parametrize(
    ("reworded", "plain"),
    [
        (
            "Is it true that Ines Moreno and Tomas Ruiz are both painters?",
            "Are Ines Moreno and Tomas Ruiz both painters?",
        ),
        ("Are both Ines Moreno and Tomas Ruiz painters?", "Are Ines Moreno and Tomas Ruiz both painters?"),
        (
            "When the lake froze over, who owned Harrow Mill?",
            "Who owned Harrow Mill when the lake froze over?",
        ),
        ("Who owned Harrow Mill?", "Who owned Harrow Mill?"),
        (
            "When the lake froze over, the owner of Harrow Mill paid how many men?",
            "The owner of Harrow Mill paid how many men when the lake froze over?",
        ),
        ("When the lake froze over, the mill stopped.", "When the lake froze over, the mill stopped."),
        (
            "Do Ines Moreno and Tomas Ruiz both work as painters?",
            "Are Ines Moreno and Tomas Ruiz both painters?",
        ),
        ("Of the Lune and the Wyre, which river is longer?", "Which river is longer, the Lune or the Wyre?"),
        ("The Lune or the Wyre - which one is longer?", "Which one is longer, The Lune or the Wyre?"),
        (
            "Ines Moreno or Tomas Ruiz: whose career was longer?",
            "Whose career was longer, Ines Moreno or Tomas Ruiz?",
        ),
    ],
)
def test_a_reworded_question_is_read_in_its_plain_form(reworded: str, plain: str) -> None:
    assert canonical_question(reworded) == plain


def test_yes_no_rewordings_get_the_same_answer() -> None:
    answers = {
        ground_answer(q, PAINTERS).text
        for q in (
            "Are Ines Moreno and Tomas Ruiz both painters?",
            "Is it true that Ines Moreno and Tomas Ruiz are both painters?",
            "Are both Ines Moreno and Tomas Ruiz painters?",
            "Do Ines Moreno and Tomas Ruiz both work as painters?",
        )
    }
    assert answers == {"yes"}


def test_a_leading_clause_does_not_decide_what_is_asked() -> None:
    got = ground_answer("When the lake froze over, who owned Harrow Mill?", MILL)
    assert (got.kind, got.text) == ("person", "Edwin Marsh")


def test_the_ask_after_a_leading_clause_decides_the_kind() -> None:
    """The "when" opening a clause is not what is asked; the "how many" after it is."""
    frame = frame_question("When the lake froze over, the owner of Harrow Mill paid how many men?")
    assert frame.kind == "number"


def test_an_adverb_after_the_noun_asked_about_is_not_the_noun() -> None:
    frame = frame_question("The Lune rises in a county; what is the name of the lake there?")
    assert frame.type_noun == "lake"


def test_a_noun_naming_people_asks_for_a_person() -> None:
    assert frame_question("Which brothers founded Copper Kettle?").kind == "person"
    assert ground_answer("Which brothers founded Copper Kettle?", DINER).text == "Dan and Frank Hollis"
    assert [is_person_noun(n) for n in ("performer", "sculptors", "wife", "tower", "river", "number")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_word_that_only_qualifies_the_noun_asked_about_need_not_be_in_the_evidence() -> None:
    """ "US" in "which US state" says what kind of answer is wanted; the sentence that answers
    names the state, not "US"."""
    got = ground_answer("In which US state was Copper Kettle founded?", DINER)
    assert (got.status, got.text, got.source_id) == ("grounded", "Kansas", 3)


def test_the_place_noun_asked_about_need_not_be_in_the_evidence() -> None:
    """ "Which Welsh town …": the answer sentence calls it a municipality, or nothing at all."""
    town = src(
        5,
        "Llanfor",
        "Llanfor is a municipality in the county of Gwynedd, Wales. It is mostly known as the "
        "maker of the Welsh harp clock.",
    )
    got = ground_answer("Which Welsh town is known for making the Welsh harp clock?", [town])
    assert (got.status, got.text) == ("grounded", "Llanfor")


def test_options_named_before_the_question_get_the_choice_answer() -> None:
    older = [
        src(5, "Harbor Daily", "Harbor Daily is a newspaper first published in 1871."),
        src(6, "Valley Post", "Valley Post is a newspaper first published in 1922."),
    ]
    answers = {
        ground_answer(q, older).text
        for q in (
            "Which newspaper was published first, Harbor Daily or Valley Post?",
            "Harbor Daily or Valley Post - which one came out earlier?",
        )
    }
    assert answers == {"Harbor Daily"}
