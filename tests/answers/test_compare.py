"""Questions that compare two named things: decided by what each one's own page says about what
is compared, or not at all.

Every person, film and place here is invented. Every test but the one on a site's name in a
title holds a case that failed on the answer step before :mod:`deepresearch.answers.compare`,
which compared the first year of each option's best-ranked
line (a film's year for its director's birth, a tour's year for a singer's), fell back to the
better-ranked option on any order it could not read, and answered every "the same …?" with "no".
"""

from __future__ import annotations

import pytest

from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import confidence_gate

from .sources import src

SINGERS = [
    src(1, "Ada Venn", "Ada Venn toured Europe in 1950. Ada Venn (4 May 1931 – 2019) was a Welsh singer."),
    src(2, "Tomas Pell", "Tomas Pell released Blue Hour in 1980. Tomas Pell (born 1925) is a Danish singer."),
]
SAILORS = [
    src(1, "Ines Moro", "Ines Moro (1901 – 1990) was a Chilean sailor."),
    src(2, "Brann Holt", "Brann Holt (1895 – 1960) was a Scottish sailor."),
]
FILMS = [
    src(1, "Grey Orchard", "Grey Orchard is a 1977 American drama film directed by Lena Morrow."),
    src(2, "Salt Road (film)", "Salt Road is a 1981 Italian war film directed by Piero Vanni."),
    src(3, "Lena Morrow", "Lena Morrow (12 June 1931 – 2001) was an American film director."),
    src(4, "Piero Vanni", "Piero Vanni (3 March 1908 – 1979) was an Italian film director."),
    src(5, "Dune Mile", "Dune Mile is a 2011 British-Canadian-American thriller film directed by Ari Kalm."),
]


def _answer(question: str, sources: list) -> str:  # type: ignore[type-arg]
    got = ground_answer(question, sources, weights=confidence_gate(None))
    return "abstained" if got.status == "abstained" else got.text


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who was born first, Ada Venn or Tomas Pell?", "Tomas Pell"),
        ("Who is younger, Ada Venn or Tomas Pell?", "Ada Venn"),
    ],
)
def test_an_order_of_lives_is_read_from_the_life_not_a_first_year(question: str, answer: str) -> None:
    assert _answer(question, SINGERS) == answer


@pytest.mark.parametrize(
    "question",
    ["Who is older Ada Venn or Tomas Pell?", "Who is older, Ada Venn or Tomas Pell?"],
)
def test_a_comparison_typed_without_a_comma_is_read_as_one(question: str) -> None:
    """People type the options straight after the comparative; the answer is the same."""
    assert _answer(question, SINGERS) == "Tomas Pell"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who was born first, Ines Moro or Brann Holt?", "Brann Holt"),
        ("Who died first, Ines Moro or Brann Holt?", "Brann Holt"),
        ("Who lived longer, Brann Holt or Ines Moro?", "Ines Moro"),
    ],
)
def test_death_and_length_of_life_are_read_from_the_years_of_the_life(question: str, answer: str) -> None:
    assert _answer(question, SAILORS) == answer


def test_a_related_persons_birth_is_read_from_their_own_page() -> None:
    """The films' years order them 1977, 1981; their directors were born 1931 and 1908."""
    asked = "Which film has the director who was born first, Grey Orchard or Salt Road?"
    got = ground_answer(asked, FILMS, weights=confidence_gate(None))
    assert (got.text, got.source_id) == ("Salt Road", 4)


def test_a_related_person_whose_page_was_not_read_is_no_answer() -> None:
    asked = "Which film has the director who was born first, Grey Orchard or Salt Road?"
    assert _answer(asked, FILMS[:3]) == "abstained"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Are Grey Orchard and Salt Road from the same country?", "no"),
        ("Are Grey Orchard and Dune Mile from the same country?", "yes"),
        ("Are the directors of films Grey Orchard and Salt Road of the same nationality?", "no"),
    ],
)
def test_the_same_country_is_read_from_each_page(question: str, answer: str) -> None:
    assert _answer(question, FILMS) == answer


def test_a_same_that_no_page_opening_says_is_no_answer() -> None:
    lakes = [
        src(1, "Lake Orrin", "Lake Orrin is a lake in the Pell Hills, 40 metres deep."),
        src(2, "Lake Tarn Vey", "Lake Tarn Vey is a glacial lake, 40 metres deep."),
    ]
    assert _answer("Are Lake Orrin and Lake Tarn Vey the same depth?", lakes) == "abstained"


def test_an_order_no_page_decides_is_no_answer() -> None:
    """ "Taller" is written on neither page: the better-ranked option is not a guess to state."""
    trees = [
        src(1, "Velmora", "Velmora is a genus of flowering trees in the daisy family, with tall crowns."),
        src(2, "Quastia", "Quastia is a genus of trees in the walnut family."),
    ]
    assert _answer("Which tree grows taller, Velmora or Quastia?", trees) == "abstained"


def test_the_options_own_page_is_the_one_titled_by_it_alone() -> None:
    magazines = [
        src(1, "Fret Monthly", "Fret Monthly is a music magazine published since 1980."),
        src(2, "Field Notes for Children", "Field Notes for Children is a magazine first published in 2003."),
        src(3, "Field Notes", "Field Notes is a science magazine founded in 1921."),
    ]
    assert (
        _answer("Which magazine was published first, Fret Monthly or Field Notes?", magazines)
        == "Field Notes"
    )


def test_a_person_the_page_names_further_on_is_not_the_related_one() -> None:
    """Dune Mile's director, Ari Kalm, has no page among those read; Lena Morrow, who stars in
    it, does: her birth is not the director's."""
    starring = src(
        5, "Dune Mile", "Dune Mile is a 2011 thriller film directed by Ari Kalm and starring Lena Morrow."
    )
    asked = "Which film has the director who was born first, Dune Mile or Salt Road?"
    assert _answer(asked, [*FILMS[1:4], starring]) == "abstained"


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Are Corvale and Marrow Bay in the same province?", "no"),
        ("Do Corvale and Pell Ford lie in one and the same province?", "yes"),
    ],
)
def test_the_same_province_is_the_name_each_page_writes_beside_it(question: str, answer: str) -> None:
    towns = [
        src(1, "Corvale", "Corvale is a market town in eastern Tessa province, on the river Orm."),
        src(2, "Marrow Bay", "Marrow Bay is a fishing port in Lenna province."),
        src(3, "Pell Ford", "Pell Ford is a village in the north of Tessa province."),
    ]
    assert _answer(question, towns) == answer


@pytest.mark.parametrize(
    ("question", "answer"),
    [("Is Ada Venn older than Tomas Pell?", "no"), ("Is Tomas Pell older than Ada Venn?", "yes")],
)
def test_is_a_older_than_b_is_read_from_both_lives(question: str, answer: str) -> None:
    assert _answer(question, SINGERS) == answer


def test_a_life_dated_with_an_em_dash_is_read() -> None:
    sailors = [
        SAILORS[0],
        src(2, "Brann Holt", "Brann Holt (March 3, 1895—May 9, 1960) was a Scottish sailor."),
    ]
    assert _answer("Who died first, Ines Moro or Brann Holt?", sailors) == "Brann Holt"


def test_an_option_whose_own_page_was_not_read_is_no_answer() -> None:
    """Fret Monthly's own page is missing; a page about an album that borrows its name dates the
    album, not the magazine."""
    magazines = [
        src(1, "The Fret Monthly Sessions", "The Fret Monthly Sessions is a 1987 album of guitar solos."),
        src(3, "Field Notes", "Field Notes is a science magazine founded in 1921."),
    ]
    asked = "Which magazine was published first, Fret Monthly or Field Notes?"
    assert _answer(asked, magazines) == "abstained"


def test_a_page_titled_with_a_sites_name_is_the_options_own() -> None:
    sailors = [
        src(1, "Ines Moro - Sailing Archive", "Ines Moro (1901 – 1990) was a Chilean sailor."),
        SAILORS[1],
    ]
    assert _answer("Who was born first, Ines Moro or Brann Holt?", sailors) == "Brann Holt"


def test_an_event_dated_on_another_page_orders_an_option_without_its_own() -> None:
    """Harlow Mills has no page of its own; its founder's page says when he founded it."""
    firms = [
        src(
            1,
            "Oda Brandt",
            "Oda Brandt (born 1950) is a Swiss engineer. She founded Harlow Mills in March 1988.",
        ),
        src(2, "Copper Gull Ltd", "Copper Gull Ltd is a boatyard founded in 1931 in Whitby."),
    ]
    assert _answer("Which was founded first, Harlow Mills or Copper Gull Ltd?", firms) == "Copper Gull Ltd"
    assert _answer("Which was founded later, Harlow Mills or Copper Gull Ltd?", firms) == "Harlow Mills"
