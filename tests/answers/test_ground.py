"""Grounded answers: a span of a cited sentence, a two-hop chain, or an honest abstention."""

from __future__ import annotations

import pytest

from deepresearch.answers.evidence import names_whole
from deepresearch.answers.ground import check_answer, ground_answer
from deepresearch.citations import Source


def src(sid: int, title: str, text: str) -> Source:
    return Source(id=sid, url=f"doc://{sid}", title=title, content=text)


PURKYNE = src(1, "Karel Purkyně", "Karel Purkyně (1834–1868) was a Czech painter. He died in Prague in 1868.")
CLOCK = src(
    2,
    "Prague astronomical clock",
    "The Prague astronomical clock, or Orloj, is a medieval astronomical clock attached to the Old Town "
    "Hall in Prague. The clock was first installed in 1410, making it the third-oldest astronomical "
    "clock in the world.",
)
BRIGHTON = src(3, "Brighton Clock Tower", "The Clock Tower in Brighton was built in 1888 for Queen Victoria.")
PIZZA = src(
    4,
    "Pizza Hut",
    "Pizza Hut is an American restaurant chain. The company was founded in 1958 in Wichita, Kansas "
    "by Dan and Frank Carney.",
)
DEBUT = src(
    5, "Jung Joon-young", "Jung Joon-young made his big screen debut in the film My Paparotti in 2013."
)
FILM = src(
    6,
    "My Paparotti",
    "My Paparotti is a 2013 South Korean film directed by Yoon Jong-chan, starring Han Suk-kyu.",
)


@pytest.mark.parametrize(
    ("question", "sources", "answer", "source_id"),
    [
        (
            "When was the astronomical clock built in the city where Karel Purkyně died?",
            [PURKYNE, CLOCK, BRIGHTON],
            "1410",
            2,
        ),
        ("In what year was Pizza Hut founded?", [PIZZA, BRIGHTON], "1958", 4),
        (
            "Who directed the film in which Jung Joon-young made his big screen debut?",
            [DEBUT, FILM],
            "Yoon Jong-chan",
            6,
        ),
        ("In which city was Pizza Hut founded?", [PIZZA], "Wichita, Kansas", 4),
    ],
)
def test_answer_is_a_span_of_the_cited_sentence(
    question: str, sources: list[Source], answer: str, source_id: int
) -> None:
    got = ground_answer(question, sources)
    assert (got.text, got.status, got.source_id) == (answer, "grounded", source_id)
    cited = next(s for s in sources if s.id == got.source_id)
    assert got.text in got.sentence and got.sentence in cited.content


def test_second_hop_is_named_with_its_bridge() -> None:
    got = ground_answer(
        "When was the astronomical clock built in the city where Karel Purkyně died?", [PURKYNE, CLOCK]
    )
    assert got.via_source_id == 1 and "Prague" in got.via_sentence


def test_abstains_when_no_source_is_about_the_question() -> None:
    got = ground_answer(
        "When was the astronomical clock built in the city where Karel Purkyně died?", [BRIGHTON]
    )
    assert got.status == "abstained" and got.source_id is None
    assert got.text.startswith("The sources read do not say when was the astronomical clock built")


def test_no_sources_is_an_abstention() -> None:
    assert ground_answer("Who founded Pizza Hut?", []).status == "abstained"


def test_choice_by_the_earlier_date() -> None:
    sources = [
        src(1, "The Exies", "The Exies are an American rock band formed in Los Angeles in 1997."),
        src(2, "Circus Diablo", "Circus Diablo is an American rock band formed in 2004."),
    ]
    got = ground_answer("Which band was formed first The Exies or Circus Diablo ?", sources)
    assert (got.text, got.source_id) == ("Exies", 1)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Are Medici and Senet both board games?", "yes"),
        ("Are Medici and Senet both card games?", "no"),
    ],
)
def test_yes_no_from_both_passages(question: str, answer: str) -> None:
    sources = [
        src(1, "Medici (board game)", "Medici is a board game designed by Reiner Knizia."),
        src(2, "Senet", "Senet is a board game from ancient Egypt."),
    ]
    assert ground_answer(question, sources).text == answer


@pytest.mark.parametrize(
    ("written", "status", "source_id"),
    [
        ("1410 [2]", "grounded", 2),
        ("It was first installed in 1410.", "grounded", 2),
        ("1412", "unverified", None),
        ("Built by Hanuš in 1410", "unverified", None),
        ("The sources do not say.", "abstained", None),
    ],
)
def test_a_server_models_answer_is_checked_against_the_sources(
    written: str, status: str, source_id: int | None
) -> None:
    got = check_answer("When was the astronomical clock in Prague built?", written, [PURKYNE, CLOCK])
    assert (got.status, got.source_id) == (status, source_id)


def test_a_yes_no_question_is_never_answered_with_a_name() -> None:
    got = ground_answer("Is it true?", [PIZZA])
    assert got.status == "abstained"


def test_a_passage_titled_by_the_questions_subject_ranks_first() -> None:
    sources = [
        src(
            1,
            "Granite Peak (Humboldt County)",
            "Granite Peak is a mountain summit in Humboldt County, part of the Santa Rosa Range.",
        ),
        src(
            2,
            "Humboldt Peak (Colorado)",
            "Humboldt Peak is a high mountain summit, part of the Sangre de Cristo Range.",
        ),
    ]
    got = ground_answer("Humboldt Peak is part of what mountain range?", sources)
    assert (got.text, got.source_id) == ("Sangre de Cristo Range", 2)


def test_the_questions_own_words_in_front_of_a_name_are_not_the_answer() -> None:
    staff = src(
        7,
        "Scott Buchholz",
        "Scott Buchholz is an Australian politician. He previously served as chief of staff to "
        "Queensland Senator Barnaby Joyce.",
    )
    answer = ground_answer(
        "Scott Buchholz previously served as chief of staff to which Queensland Senator?", [staff]
    )
    assert answer.text == "Barnaby Joyce"


def test_a_sentence_that_defines_its_subject_in_the_questions_words_names_the_answer() -> None:
    oh = src(
        8,
        "Sandra Oh",
        "Sandra Miju Oh (born July 20, 1971) is a Canadian actress known for her role as Cristina Yang "
        "on Grey's Anatomy, for which she won a Golden Globe Award.",
    )
    film = src(9, "Barrier Device", "Barrier Device is a 2002 short film starring Sandra Oh as a researcher.")
    answer = ground_answer(
        'Barrier Device starred which Canadian actress, known for a role on "Grey\'s Anatomy"?', [oh, film]
    )
    assert answer.text == "Sandra Miju Oh"
    assert answer.source_id == 8


def test_a_bridge_name_that_begins_with_a_passages_title_leads_to_that_passage() -> None:
    fawell = src(
        10,
        "Harris W. Fawell",
        "Harris W. Fawell was an American politician. Fawell is a graduate of West Chicago High School.",
    )
    town = src(
        11, "West Chicago, Illinois", "West Chicago is a city in DuPage County, Illinois, United States."
    )
    answer = ground_answer("In what county is the city where Harris W. Fawell was born?", [fawell, town])
    assert answer.text.startswith("DuPage County")
    assert answer.source_id == 11


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("In what year was the man who resigned as president of Israel in 2000 born?", "15 June 1924"),
        ("When did the man who resigned as president of Israel in 2000 die?", "24 April 2005"),
    ],
)
def test_a_life_date_answers_born_or_died(question: str, answer: str) -> None:
    election = src(
        12,
        "Israeli presidential election, 2000",
        "Elections for the President of Israel were held on 31 July 2000, following the resignation of "
        "Ezer Weizman.",
    )
    weizman = src(
        13,
        "Ezer Weizman",
        "Ezer Weizman (Hebrew: עזר ויצמן; 15 June 1924 – 24 April 2005), the man who resigned as "
        "president of Israel in 2000, was born in Tel Aviv and died in Caesarea.",
    )
    assert ground_answer(question, [election, weizman]).text == answer


def test_the_asked_noun_is_a_word_of_the_candidate_not_part_of_one() -> None:
    peak = src(
        14,
        "Humboldt Peak (Colorado)",
        "Humboldt Peak is part of the Santa Rosa Ranger District, in the Sangre de Cristo Range.",
    )
    answer = ground_answer("Humboldt Peak is part of what mountain range?", [peak])
    assert answer.text == "Sangre de Cristo Range"


@pytest.mark.parametrize(
    ("question", "title", "text", "answer"),
    [
        # the noun asked about opens the name: not stripped as the question's own word
        (
            "James Stockdale was awarded what medal?",
            "James Stockdale",
            "James Stockdale was a United States Navy vice admiral awarded the Medal of Honor in 1976.",
            "Medal of Honor",
        ),
        # the noun asked about right after the name belongs to the answer
        (
            "Richard Kuklinski was associated with members of what crime family?",
            "Richard Kuklinski",
            "He was associated with members of the DeCavalcante crime family of Newark, New Jersey.",
            "DeCavalcante crime family",
        ),
        # "Park" opens a Korean name here, not a park's
        (
            "Who directed the film Love Forecast?",
            "Love Forecast",
            "Love Forecast is a 2015 film directed by Park Jin-pyo, starring Moon Chae-won.",
            "Park Jin-pyo",
        ),
        # a film defined as one answers "what movie"
        (
            "What movie stars Morgan Freeman and Robert De Niro?",
            "Last Vegas",
            "Last Vegas is a 2013 American comedy film directed by Jon Turteltaub, written by Dan Fogelman "
            "and starring Michael Douglas, Robert De Niro and Morgan Freeman.",
            "Last Vegas",
        ),
        # a number whose unit is a word of the question beats a bare one
        (
            "What amount of TEUs did the Port of Piraeus handle?",
            "Port of Piraeus",
            "The Port of Piraeus has 18 berths and handled 513,319 TEUs in 2010.",
            "513,319",
        ),
        # a name that holds the word "country" is no country
        (
            "In what country does CKHL-FM broadcast?",
            "CKHL-FM",
            "CKHL-FM is a Canadian radio station that broadcasts a country format branded as YL Country, "
            "from a studio in Canada.",
            "Canada",
        ),
        # a question asking for several gets the whole list
        (
            "What actresses were involved in the Edison Chen photo scandal in 2008?",
            "Edison Chen photo scandal",
            "In 2008, photographs of Hong Kong actor Edison Chen with actresses Gillian Chung, Bobo Chan and "
            "Cecilia Cheung were distributed over the Internet.",
            "Gillian Chung, Bobo Chan and Cecilia Cheung",
        ),
        # an abbreviation question wants the capitals
        (
            "What is the abbreviation of the magazine that reviewed Qvwm?",
            "Qvwm",
            "The magazine Linux Format (LXF) reviewed Qvwm as an unusually impressive imposter.",
            "LXF",
        ),
        # a broadcaster is not a person
        (
            "The show Scaredy Squirrel was written by who?",
            "Scaredy Squirrel",
            "Written for BBC One, the show Scaredy Squirrel is by Mélanie Watt.",
            "Mélanie Watt",
        ),
        # a listed answer keeps the noun asked about after it
        (
            "The US state of the Black Hills is named after which Native American tribes?",
            "South Dakota",
            "The Black Hills are in South Dakota, a US state named after the Lakota and Dakota Sioux Native "
            "American tribes.",
            "Lakota and Dakota Sioux Native American tribes",
        ),
    ],
)
def test_the_noun_asked_about_shapes_the_answer(question: str, title: str, text: str, answer: str) -> None:
    assert ground_answer(question, [src(15, title, text)]).text == answer


def test_the_bridge_person_is_not_what_the_question_asks_for() -> None:
    season = src(
        17,
        "2003–04 Orlando Magic season",
        "Grant Hill missed the entire season recovering from ankle surgery.",
    )
    hill = src(
        18,
        "Grant Hill",
        "Grant Henry Hill is a retired American basketball player and a sports show host on NBA TV's "
        "NBA Inside Stuff.",
    )
    answer = ground_answer(
        "What show does a retired Orlando Magic player, who missed the entire season, host?", [season, hill]
    )
    assert "NBA Inside Stuff" in answer.text


@pytest.mark.parametrize(
    ("question", "title", "text", "answer"),
    [
        # a country for "which country", though the question says "state" too
        (
            "In which country is Midway, in the same state as McRae?",
            "Midway, Arkansas",
            "Midway is an unincorporated community in White County, Arkansas, United States. "
            "McRae is a city in White County.",
            "United States",
        ),
        # a language for "what language", not the country named beside it
        (
            "What language were Aristotle's books translated into during the Middle Ages?",
            "Recovery of Aristotle",
            "The Recovery of Aristotle refers to the re-translating of Aristotle's books (of ancient "
            "Greece) into Latin during the Middle Ages.",
            "Latin",
        ),
    ],
)
def test_a_closed_class_noun_asks_for_one_of_its_members(
    question: str, title: str, text: str, answer: str
) -> None:
    assert ground_answer(question, [src(19, title, text)]).text == answer


def test_a_definition_after_a_long_aside_still_defines() -> None:
    album = src(
        20,
        "Vicious Lies and Dangerous Rumors",
        "The album Vicious Lies and Dangerous Rumors features guest appearances from Sleepy Brown and "
        "ASAP Rocky.",
    )
    rocky = src(
        21,
        "ASAP Rocky",
        "Rakim Mayers (born October 3, 1988), better known by his stage name ASAP Rocky (stylized as "
        "A$AP Rocky), is an American rapper and actor from Harlem.",
    )
    answer = ground_answer(
        "Vicious Lies and Dangerous Rumors featured a guest appearance by which rapper from Harlem?",
        [album, rocky],
    )
    assert answer.text == "Rakim Mayers"


def test_a_value_stands_by_the_entity_the_chain_went_through() -> None:
    olympiad = src(
        22, "26th Chess Olympiad", "The 26th Chess Olympiad was held in Thessaloniki, Greece, in 1984."
    )
    ports = src(
        23,
        "Economy of Greece",
        "In 2010 Piraeus handled 513,319 TEUs, followed by Thessaloniki, which handled 273,282 TEUs.",
    )
    answer = ground_answer(
        "What amount of TEUs did the city where the 26th Chess Olympiad was held handle in 2010?",
        [olympiad, ports],
    )
    assert answer.text == "273,282"


def test_under_what_name_asks_for_the_name_used_not_the_person() -> None:
    album = src(
        27,
        "Indicates Void",
        "Indicates Void is an album released by Steven Wilson, founder of the band Porcupine Tree, "
        "under the pseudonym Bass Communion.",
    )
    founder = src(28, "Steven Wilson", "Steven Wilson is the founder of the band Porcupine Tree.")
    answer = ground_answer(
        "Under what name did the founder of Porcupine Tree release his album Indicates Void?",
        [founder, album],
    )
    assert answer.text == "Bass Communion"


HUT = src(
    32,
    "Pizza Hut",
    "Pizza Hut is an American restaurant chain and international franchise founded in 1958 by Dan and "
    "Frank Carney.",
)
DANE = src(33, "List of U.S. state dogs", "Pennsylvania followed the year after, naming the Great Dane.")
VEGAS = src(
    34,
    "Last Vegas",
    "Last Vegas is a 2013 American comedy film written by Dan Fogelman, a year after his debut.",
)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # two people of one family name are one answer
        ("Who founded Pizza Hut?", "Dan and Frank Carney"),
        # the verb relates the date: not the year of a film whose writer is also called Dan
        ("In what year was Pizza Hut founded?", "1958"),
        # two questions in one: the sentence that answers both, whole
        (
            "Who founded Pizza Hut, and in what year?",
            "Pizza Hut is an American restaurant chain and international franchise founded in 1958 by Dan "
            "and Frank Carney.",
        ),
    ],
)
def test_the_readme_pizza_question_and_its_parts(question: str, answer: str) -> None:
    got = ground_answer(question, [HUT, DANE, VEGAS])
    assert (got.text, got.source_id) == (answer, 32)


@pytest.mark.parametrize(
    ("name", "text", "named"),
    [
        ("Dan", "naming the Great Dane", False),
        ("Dan", "written by Dan Fogelman", False),
        ("Dan", "founded by Dan and Frank Carney", True),
        ("Korea", "held in South Korea", True),
        ("Frank Carney", "by Dan and Frank Carney.", True),
    ],
)
def test_a_bridge_name_is_matched_whole(name: str, text: str, named: bool) -> None:
    assert names_whole(name, text) is named


def test_the_readme_demo_answers_when_the_clock_was_made_not_first_mentioned() -> None:
    clock = src(
        35,
        "Prague astronomical clock",
        "The oldest part of the Orloj, the mechanical clock and astronomical dial, dates back to 1410 "
        "when it was made by clockmaker Mikuláš of Kadaň. The first recorded mention of the clock was "
        "on 9 October 1410.",
    )
    painter = src(
        36,
        "Karel Purkyně",
        "Karel Purkyně (15 March 1834, Wrocław – 5 April 1868, Prague) was a painter in the "
        "Austro-Hungarian Empire. He died in the city of Prague.",
    )
    answer = ground_answer(
        "When was the astronomical clock built in the city where Karel Purkyně died?", [clock, painter]
    )
    assert answer.text == "1410" and answer.sentence.startswith("The oldest part of the Orloj")
