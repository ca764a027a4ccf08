"""What code reads from a question: the kind of answer, the options it names, its names.

Every question here is invented (people, places and works made up for the test).
"""

from __future__ import annotations

import pytest

from deepresearch.answers.question import frame_question


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who directed the film in which Mira Castellane made her big screen debut?", "person"),
        ("When was the stone bridge built in the town where Edda Lindqvist died?", "date"),
        ("The score of the film Paper Moon Street was written by a woman born in what year?", "date"),
        ("How many times was Oskar Lind selected for the all-star team?", "number"),
        ("What is the population of the county where Harlow Field Airport is located?", "number"),
        ("In what county is the town where Odile W. Fenn was born?", "place"),
        ("Where does the Tamsin River start?", "place"),
        ("Nora Quill starred in a series that first aired on what network?", "entity"),
        ("Which band was formed first The Lanterns or Velvet Engine ?", "choice"),
        ("Who is older, Ada Brandt or Lev Sokol?", "choice"),
        ("Are Tessera and Mancala both board games?", "yesno"),
        ("The writer Ines Moreno has an OBE. Does the writer Tomas Ruiz also have one?", "yesno"),
        ("Winter Harbour is a remake of Summer Road, released in which year?", "date"),
        # the asking clause decides; "where" and "who" later only name the bridge
        ("Who was in charge of the province where Kellbrook is located?", "person"),
        ("The state where Ada Brandt died has how many counties?", "number"),
        ("Mila Hart is an adviser who has worked with the mayor of what city?", "place"),
        ("Who was governor when the region where Dunmore Solar Farm is located became a province?", "person"),
        # the noun asked about decides over a relative "who" later in the question
        ("What show does a retired Riverton Hawks player, who missed a season, host?", "entity"),
        ("Salt and Bread, released in which year, is a cookbook by Ruth Ames?", "date"),
    ],
)
def test_kind_of_answer(question: str, kind: str) -> None:
    assert frame_question(question).kind == kind


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which band was formed first The Lanterns or Velvet Engine ?", ("Lanterns", "Velvet Engine")),
        (
            "Which newspaper was published first, Harbor Daily or Valley Post?",
            ("Harbor Daily", "Valley Post"),
        ),
        ("Which tree is taller, the Sequoia or the Juniper?", ("Sequoia", "Juniper")),
        ("Are Tessera and Mancala both board games?", ("Tessera", "Mancala")),
        ("Are Brenton and Halford situated in the same county ?", ("Brenton", "Halford")),
        (
            "Are both magazines, the Gardener's Friend and Tell Me More, Irish publications?",
            ("Gardener's Friend", "Tell Me More"),
        ),
        (
            "The writer Ines Moreno has an OBE. Does the writer Tomas Ruiz also have one?",
            ("Ines Moreno", "Tomas Ruiz"),
        ),
    ],
)
def test_options_named_by_the_question(question: str, options: tuple[str, ...]) -> None:
    assert frame_question(question).options == options


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("In what county is the town where Odile W. Fenn was born?", "county"),
        ("Raven Peak, in the state where Millbrook is located, belongs to what mountain range?", "range"),
        ("Lark House is a student hall in a university located in what Canadian city?", "city"),
        ("Ada Brandt was the script editor for the show which was created by who?", None),
        ("What movie stars Clara Voss, Henrik Dahl and the producer of Glass Orchard?", "movie"),
        ("Harbour Lights starred which stage and screen actress from Scotland?", "actress"),
        ("What song premiered in the March 3, 2004 episode of Pip the Badger?", "song"),
        ("What river flows through the city Marcus Dale played for before Riverton?", "river"),
        ("Which navigator first charted the coasts of both islands?", "navigator"),
        ("What minor character makes her first appearance in this chapter?", "character"),
        ("Ivo Marchetti wrote about members of what crime family of Trenton?", "family"),
        ("What is the name of the airport in the city where KZRL is licensed to broadcast?", "airport"),
        ("What was the profession of Edda Lindqvist, whose life was told in a novel?", "profession"),
        ("What is the country of citizenship of the actor who plays Martin?", "country"),
        ("What is the population of the state where Millbrook is?", "population"),
    ],
)
def test_the_noun_the_question_asks_about(question: str, noun: str | None) -> None:
    assert frame_question(question).type_noun == noun


def test_type_noun_and_names() -> None:
    frame = frame_question("In what county is the town where Odile W. Fenn was born?")
    assert frame.type_noun == "county"
    assert {"odil", "fenn"} <= frame.names
    assert "counti" in frame.focus


@pytest.mark.parametrize(
    ("question", "kind", "also"),
    [
        ("Who founded Copper Kettle, and in what year?", "person", "date"),
        ("When was Copper Kettle founded and by whom?", "date", "person"),
        # a relative clause after "and" is no second question
        (
            "When was the Irish singer born who is known for her voice and who's second album is Lantern?",
            "date",
            None,
        ),
    ],
)
def test_a_second_question_joined_by_and(question: str, kind: str, also: str | None) -> None:
    frame = frame_question(question)
    assert (frame.kind, frame.also) == (kind, also)
