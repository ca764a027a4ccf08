"""What code reads from a question: the kind of answer, the options it names, its names.

Every question here is invented (people, places and works made up for the test).
"""

from __future__ import annotations

import pytest

from deepresearch.answers.question import frame_question


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who choreographed the ballet that opened the Lumen Hall season?", "person"),
        ("When was the stone bridge built in the town where Edda Lindqvist died?", "date"),
        ("The score of the film Paper Moon Street was written by a woman born in what year?", "date"),
        ("How many lanterns hang along the Osterby pier?", "number"),
        ("What population did the parish where Wrenfold Abbey stands record at its last census?", "number"),
        ("In what county is the town where Odile W. Fenn was born?", "place"),
        ("Where do the Corrin glassblowers sell their bowls?", "place"),
        ("Nora Quill starred in a series that first aired on what network?", "entity"),
        ("Which kiln was fired first The Emberwick or Sallow Moor ?", "choice"),
        ("Who is older, Ada Brandt or Lev Sokol?", "choice"),
        ("Are Quillon and Tarrow both card games?", "yesno"),
        ("The writer Ines Moreno has an OBE. Does the writer Tomas Ruiz also have one?", "yesno"),
        ("Winter Harbour is a remake of Summer Road, released in which year?", "date"),
        # the asking clause decides; "where" and "who" later only name the bridge
        ("Who trained the falcons kept at the keep where Hesper Vane was crowned?", "person"),
        ("The lake where Orla Finch swam has how many islands?", "number"),
        ("Tobias Wren is a locksmith who has repaired gates for the abbot of what abbey town?", "place"),
        ("Who was governor when the region where Dunmore Solar Farm is located became a province?", "person"),
        # the noun asked about decides over a relative "who" later in the question
        ("What magazine does a former Glenmore Otters goalkeeper, who retired early, edit?", "entity"),
        ("Salt and Bread, released in which year, is a cookbook by Ruth Ames?", "date"),
    ],
)
def test_kind_of_answer(question: str, kind: str) -> None:
    assert frame_question(question).kind == kind


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which kiln was fired first The Emberwick or Sallow Moor ?", ("Emberwick", "Sallow Moor")),
        (
            "Which newspaper was published first, Harbor Daily or Valley Post?",
            ("Harbor Daily", "Valley Post"),
        ),
        ("Which tree is taller, the Sequoia or the Juniper?", ("Sequoia", "Juniper")),
        ("Which lake is larger the Velm or Lake Orrin?", ("Velm", "Lake Orrin")),
        ("Which tower is more famous Tarn Spire or the Quell Tower?", ("Tarn Spire", "Quell Tower")),
        ("Are Quillon and Tarrow both card games?", ("Quillon", "Tarrow")),
        ("Are Brenton and Halford situated in the same county ?", ("Brenton", "Halford")),
        ("do Brenton and Halford lie in one and the same county", ("Brenton", "Halford")),
        ("were Quillon and Tarrow each sold as card games", ("Quillon", "Tarrow")),
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
        ("Tallow Ridge, in the valley where Brackwater lies, is the tallest of what hill chain?", "chain"),
        ("Fennick Lodge is a boathouse on a lake found in what Norwegian county?", "county"),
        ("Ada Brandt was the script editor for the show which was created by who?", None),
        ("What movie stars Clara Voss, Henrik Dahl and the producer of Glass Orchard?", "movie"),
        ("Harbour Lights starred which stage and screen actress from Scotland?", "actress"),
        ("What song premiered in the March 3, 2004 episode of Pip the Badger?", "song"),
        ("What river flows through the city Marcus Dale played for before Riverton?", "river"),
        ("Which navigator first charted the coasts of both islands?", "navigator"),
        ("What hidden clue makes its first showing in this puzzle?", "clue"),
        ("Ivo Marchetti wrote about members of what crime family of Trenton?", "family"),
        (
            "What is the name of the lighthouse on the cape where radio station WQXB is licensed?",
            "lighthouse",
        ),
        ("What was the profession of Edda Lindqvist, whose life was told in a novel?", "profession"),
        ("What is the hometown of the drummer who plays with Ilse Marr?", "hometown"),
        ("What is the population of the island where Gullhaven is?", "population"),
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
        ("Who roasted the first batch at Tin Kettle Coffee, and in what year?", "person", "date"),
        ("When was Tin Kettle Coffee founded and by whom?", "date", "person"),
        # a relative clause after "and" is no second question
        (
            "When was the Breton harpist born who is famous for her lullabies and whose debut record is "
            "Driftwood?",
            "date",
            None,
        ),
    ],
)
def test_a_second_question_joined_by_and(question: str, kind: str, also: str | None) -> None:
    frame = frame_question(question)
    assert (frame.kind, frame.also) == (kind, also)


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Are The Orchard (Film) and Salt Road from the same country?", ("Orchard (Film)", "Salt Road")),
        (
            "Do both films Grey Orchard (1977 Film) and Salt Road come from the same country?",
            ("Grey Orchard (1977 Film)", "Salt Road"),
        ),
        (
            "Are both directors of films Grey Orchard and Salt Road from the same country?",
            ("Grey Orchard", "Salt Road"),
        ),
    ],
)
def test_a_yes_no_pair_is_the_two_names_without_the_words_around_them(
    question: str, options: tuple[str, str]
) -> None:
    assert frame_question(question).options == options
