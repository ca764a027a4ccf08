"""What code reads from a question: the kind of answer, the options it names, its names."""

from __future__ import annotations

import pytest

from deepresearch.answers.question import frame_question


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who directed the film in which Jung Joon-young made his big screen debut?", "person"),
        ("When was the astronomical clock built in the city where Karel Purkyně died?", "date"),
        (
            "The soundtrack from the film Natural Born Killers was produced by a man born in what year?",
            "date",
        ),
        ("How many times was Deltha Lee O'Neal selected for the all-star game?", "number"),
        ("What is the population of the state where Dodge City Regional Airport is located?", "number"),
        ("In what county is the city where Harris W. Fawell was born?", "place"),
        ("Where does the Merrimack River start?", "place"),
        ("Drew Fuller stared in a series that originally broadcast on what station?", "entity"),
        ("Which band was formed first The Exies or Circus Diablo ?", "choice"),
        ("Who is the oldest, Sid Haig or Vic Darchinyan?", "choice"),
        ("Are Medici and Senet both board games?", "yesno"),
        ("The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?", "yesno"),
        ("Do Lafzon Ki Kahani is a remake of Always, released in which year?", "date"),
        # the asking clause decides; "where" and "who" later only name the bridge
        ("Who was in charge of the state where Shringarpur is located?", "person"),
        ("The state where Henry Worrall died has how many congressional districts?", "number"),
        ("Scott Howell is a consultant who has worked with the mayor of what city?", "place"),
        ("Who was president when the area where Intrepid Wind Farm is located became a state?", "person"),
        # the noun asked about decides over a relative "who" later in the question
        ("What show does a retired Orlando Magic player, who missed a season, host?", "entity"),
        ("How to Eat, released in which year, is a book by Nigella Lawson?", "date"),
    ],
)
def test_kind_of_answer(question: str, kind: str) -> None:
    assert frame_question(question).kind == kind


@pytest.mark.parametrize(
    ("question", "options"),
    [
        ("Which band was formed first The Exies or Circus Diablo ?", ("Exies", "Circus Diablo")),
        (
            "Which magazine was published first, Guitar World or Science News?",
            ("Guitar World", "Science News"),
        ),
        ("Which plant is larger, the Pterocarya or the Cotula?", ("Pterocarya", "Cotula")),
        ("Are Medici and Senet both board games?", ("Medici", "Senet")),
        ("Are Nantong and Jingdezhen situated in the same province ?", ("Nantong", "Jingdezhen")),
        (
            "Are both magazines, the Woman's Viewpoint and Pick Me Up, British publications?",
            ("Woman's Viewpoint", "Pick Me Up"),
        ),
        (
            "The director Armando Iannucci has an OBE. Does the director Puneet Sira also have one?",
            ("Armando Iannucci", "Puneet Sira"),
        ),
    ],
)
def test_options_named_by_the_question(question: str, options: tuple[str, ...]) -> None:
    assert frame_question(question).options == options


@pytest.mark.parametrize(
    ("question", "noun"),
    [
        ("In what county is the city where Harris W. Fawell was born?", "county"),
        ("Humboldt Peak, in the state where Silverton is located, is part of what mountain range?", "range"),
        ("Toad Hall is a residential hall in a university located in what Australian city?", "city"),
        ("Terry McGurrin was the story editor for the show which was written by who?", None),
        ("What movie stars Morgan Freeman, Robert De Niro and the producer of The Jewel?", "movie"),
        ("Simon & Simon starred which television and movie actor from the US?", "actor"),
        ("What song debuted in the October 27, 1999 episode of South Park?", "song"),
        ("What river flows through the city Kevin Durant played for before Golden State?", "river"),
        ("Which explorer accurately mapped the coasts of both continents?", "explorer"),
        ("What recurring character makes his first appearance in this episode?", "character"),
        ("Philip Carlo wrote about members of what crime family of Newark?", "family"),
        ("What is the name of the airport in the city where WILM is licensed to broadcast?", "airport"),
        ("What was the profession of Amy Johnson, whose life was featured in a biopic?", "profession"),
        ("What is the country of citizenship of the actor who plays John?", "country"),
        ("What is the population of the state where Dodge City is?", "population"),
    ],
)
def test_the_noun_the_question_asks_about(question: str, noun: str | None) -> None:
    assert frame_question(question).type_noun == noun


def test_type_noun_and_names() -> None:
    frame = frame_question("In what county is the city where Harris W. Fawell was born?")
    assert frame.type_noun == "county"
    assert {"harri", "fawel"} <= frame.names
    assert "counti" in frame.focus


@pytest.mark.parametrize(
    ("question", "kind", "also"),
    [
        ("Who founded Pizza Hut, and in what year?", "person", "date"),
        ("When was Pizza Hut founded and by whom?", "date", "person"),
        # a relative clause after "and" is no second question
        (
            "When was the Welsh singer born who is known for her voice and who's third album is Faster?",
            "date",
            None,
        ),
    ],
)
def test_a_second_question_joined_by_and(question: str, kind: str, also: str | None) -> None:
    frame = frame_question(question)
    assert (frame.kind, frame.also) == (kind, also)
