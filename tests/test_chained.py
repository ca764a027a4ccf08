"""A two-hop question the answer step abstains on is asked again as its hop of the bridge a
sentence read names (``chained.through_bridge``), and an open yes/no question as the open question
it checks (``chained.through_claim``), with the real answer step and reader code and a scripted
model at the model seam. Invented people, seas and bridges."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest

from deepresearch.answers import claims
from deepresearch.answers.claims import ClaimCheck
from deepresearch.answers.ground import GroundedAnswer
from deepresearch.answers.hops import split_hops
from deepresearch.chained import through_bridge, through_claim
from deepresearch.llm.base import Message, ModelCall
from deepresearch.llm.testing import JudgingModel

from .answers.sources import ISLAND, answer_step, island_reader, src

QUESTION = "Who was the husband of the first woman to sail alone across the Merrow Sea?"
SAILOR = src(
    1,
    "Ilse Varga",
    "Ilse Varga (2 March 1901 – 8 May 1960) was a Danish mariner who was the first female sailor "
    "to cross the Merrow Sea single-handed.",
)
HUSBAND = src(
    2,
    "Tomas Brenner",
    "Tomas Brenner (1899 – 1970) was a Danish shipwright. In 1931 he married the sailor Ilse Varga, "
    "and the couple lived in Aarhus.",
)
SEA = src(
    3,
    "Merrow Sea",
    "The Merrow Sea is a shallow sea between two islands. A steamer first crossed it in 1850.",
)
SOURCES = [SAILOR, HUSBAND, SEA]


def _reader_reply(call: ModelCall) -> str:
    """A small reader as measured: over the whole question it gives the bridge (the sailor);
    asked of the sailor by name, it reads the husband from the line that says so."""
    asked = call.prompt.rsplit("Question:", 1)[-1]
    if "Ilse Varga" in asked.split("\n")[0]:
        return json.dumps({"lines": [1], "answer": "Tomas Brenner"})
    return json.dumps({"lines": [1], "answer": "Ilse Varga"})


def _yes(messages: list[Message]) -> float:
    """A judge that says yes to the husband only (the sailor answers no husband question)."""
    return 0.99 if "Proposed answer: Tomas Brenner" in messages[-1].content else 0.1


def _step(model: JudgingModel) -> Callable[[str], GroundedAnswer]:
    return answer_step(model, SOURCES)


def test_the_hop_asked_of_the_bridge_answers_the_question_with_the_bridge_as_the_way() -> None:
    """ "the first woman to sail alone" is found in "the first female sailor … single-handed";
    "Who was the husband of Ilse Varga?" is then answered from her husband's page, and the
    answer cites that line with the sailor's line as the way to it."""
    ask = _step(JudgingModel({"reader": _reader_reply}, yes=_yes))
    whole = ask(QUESTION)
    assert whole.status == "abstained"  # the whole question's reading is the bridge itself
    got = through_bridge(QUESTION, SOURCES, whole, ask)
    assert got.status == "grounded"
    assert got.text == "Tomas Brenner"
    assert got.source_id == 2
    assert got.via_source_id == 1
    assert "first female sailor" in got.via_sentence


def test_a_hop_the_sources_do_not_answer_leaves_the_abstention() -> None:
    ask = _step(JudgingModel({"reader": json.dumps({"lines": [], "answer": "none"})}, yes=0.99))
    whole = ask(QUESTION)
    got = through_bridge(QUESTION, SOURCES, whole, ask)
    assert got == whole
    assert got.text.startswith("The sources read do not answer: Who was the husband of the first woman")


ACCORD_QUESTION = "Who founded a shipyard in the town where the Velmora accord was signed?"
ACCORD = src(
    4,
    "Velmora accord",
    "The Velmora accord was signed by Anders Holm in Ostvik in 1820, ending the herring war.",
)
OSTVIK = src(5, "Ostvik", "Ostvik is a harbour town. Per Lund opened its boatworks in 1851.")
HOLM = src(6, "Anders Holm", "Anders Holm (1771 – 1840) was a Danish envoy.")
ACCORD_SOURCES = [ACCORD, OSTVIK, HOLM]


def _accord_reply(call: ModelCall) -> str:
    """A reader that reads each one-hop question by meaning, where a line says it, and nothing
    of the whole chain."""
    asked = call.prompt.rsplit("Question:", 1)[-1].split("\n")[0].strip()
    lines = call.prompt.rsplit("Lines:", 1)[-1].splitlines()
    wanted = {
        "What is the town where the Velmora accord was signed?": ("Velmora accord was signed", "Ostvik"),
        "Who founded a shipyard in Ostvik?": ("opened its boatworks", "Per Lund"),
    }.get(asked)
    line = next((line for line in lines if wanted and wanted[0] in line), None)
    if wanted is None or line is None:
        return json.dumps({"lines": [], "answer": "none"})
    return json.dumps({"lines": [int(line[1 : line.index("]")])], "answer": wanted[1]})


def test_the_bridge_read_by_meaning_leads_to_the_hop_where_its_line_names_another_first() -> None:
    """The accord's line holds the description ("the town where the Velmora accord was signed")
    but names the envoy before the town, so the bridge found by words is the envoy, and "Who
    founded a shipyard in Anders Holm?" is not answered. The bridge's own question, read by the
    reader, is Ostvik; the hop asked of Ostvik ("opened its boatworks") is Per Lund, cited to
    Ostvik's page with the accord's line as the way to it."""
    model = JudgingModel({"reader": _accord_reply}, yes=0.99)
    ask = answer_step(model, ACCORD_SOURCES)
    whole = ask(ACCORD_QUESTION)
    assert whole.status == "abstained"
    got = through_bridge(ACCORD_QUESTION, ACCORD_SOURCES, whole, ask)
    assert (got.status, got.text, got.source_id) == ("grounded", "Per Lund", 5)
    assert got.via_source_id == 4 and "Velmora accord was signed" in got.via_sentence


def test_a_bridge_the_judge_doubts_leads_to_no_hop() -> None:
    """The reader reads Ostvik for the town, but the judge gives it 0.3: the gate turns it away,
    and no hop is asked of it, though the hop's own line is there."""

    def yes(messages: list[Message]) -> float:
        return 0.3 if "Proposed answer: Ostvik" in messages[-1].content else 0.99

    model = JudgingModel({"reader": _accord_reply}, yes=yes)
    ask = answer_step(model, ACCORD_SOURCES)
    whole = ask(ACCORD_QUESTION)
    assert through_bridge(ACCORD_QUESTION, ACCORD_SOURCES, whole, ask) == whole
    assert not any("shipyard in Ostvik?" in call.prompt for call in model.calls)


def test_a_bridge_read_whose_hop_is_not_stated_leaves_the_abstention() -> None:
    """Ostvik is read as the town, and the hop is asked of it, but no line says who founded a
    shipyard there."""
    sources = [ACCORD, src(5, "Ostvik", "Ostvik is a small harbour town."), HOLM]
    model = JudgingModel({"reader": _accord_reply}, yes=0.99)
    ask = answer_step(model, sources)
    whole = ask(ACCORD_QUESTION)
    assert through_bridge(ACCORD_QUESTION, sources, whole, ask) == whole
    assert any("shipyard in Ostvik?" in call.prompt for call in model.calls)


@pytest.mark.parametrize(
    ("question", "bridge", "hop"),
    [
        (
            "Who sang on Dusk by the producer of Grey Harbour?",
            "Who is the producer of Grey Harbour?",
            "Who sang on Dusk by that producer?",
        ),
        (
            "Where was the father of Ines Marr born?",
            "Who is the father of Ines Marr?",
            "Where was that father born?",
        ),
        (
            "What is the record label of the writer of Salt in Winter?",
            "Who is the writer of Salt in Winter?",
            "What is the record label of that writer?",
        ),
    ],
)
def test_a_named_one_described_inside_the_question_is_its_bridge(
    question: str, bridge: str, hop: str
) -> None:
    hops = split_hops(question)
    assert hops is not None
    assert (hops.bridge, hops.hop) == (bridge, hop)
    assert hops.hop_of("Tove Brandt") == hop.replace("that " + hops.head, "Tove Brandt")


def test_a_thing_named_by_a_possessive_is_found_first() -> None:
    """ "Eskerby's country" is found as a bridge ("What is the country of Eskerby?"), and the
    question is asked again of it; before, the question had no split and abstained."""
    question = "Who led the government in Eskerby's country at first?"
    sources = ISLAND
    ask = answer_step(JudgingModel({"reader": island_reader(reads_bridge=True)}, yes=0.99), sources)
    whole = ask(question)
    assert whole.status == "abstained"
    got = through_bridge(question, sources, whole, ask)
    assert (got.status, got.text, got.source_id, got.via_source_id) == ("grounded", "Ada Holm", 2, 1)


@pytest.mark.parametrize(
    ("question", "bridge", "hop"),
    [
        (
            "Who was the first mayor of Ada Holm's hometown?",
            "What is the hometown of Ada Holm?",
            "Who was the first mayor of that hometown?",
        ),
        (
            "Which bakery is the oldest one in Tove Brandt's home town?",
            "What is the home town of Tove Brandt?",
            "Which bakery is the oldest one in that town?",
        ),
    ],
)
def test_a_possessive_after_a_preposition_is_its_bridge(question: str, bridge: str, hop: str) -> None:
    hops = split_hops(question)
    assert hops is not None
    assert (hops.bridge, hops.hop) == (bridge, hop)


@pytest.mark.parametrize(
    "question",
    [
        "Who was the producer of Grey Harbour?",  # one hop: the relative itself is asked
        "Who does the voice of Pim on Harbour Tales?",  # "does" is the verb asked: one hop
        "Which came first, the founding of Harlow Mills or the birth of Ada Venn?",  # each side's page
        "When was the city of Vellmar founded?",  # the city of Vellmar is Vellmar
        "Edda Lorn provided the voice of Pim on a show first aired when?",  # a verb's object
        "Where was the place of death of Ines Marr's father?",  # a possessive, read elsewhere
        "Who scored first for the club of Ines Marr's creators?",  # people named by a possessive
        "Who is older, Ada Holm's brother or Tove Brandt's?",  # a comparison reads each side
        "Which of the founders of the Tarn Society wrote poems?",  # one picked of many
    ],
)
def test_no_bridge_is_split_off_where_nothing_is_described_to_find_first(question: str) -> None:
    assert split_hops(question) is None


def test_a_stated_answer_that_is_the_bridge_itself_leads_to_the_hop() -> None:
    """A judge that says yes to anything lets the reader's bridge ("Ilse Varga") stand for the
    husband asked; the bridge's own question states her too, so the hop is asked of her."""
    ask = _step(JudgingModel({"reader": _reader_reply}, yes=0.99))
    whole = ask(QUESTION)
    assert (whole.status, whole.text) == ("grounded", "Ilse Varga")
    got = through_bridge(QUESTION, SOURCES, whole, ask)
    assert (got.status, got.text, got.source_id, got.via_source_id) == ("grounded", "Tomas Brenner", 2, 1)


def test_a_stated_answer_that_is_the_bridge_with_no_hop_stated_is_left_open() -> None:
    def bridge_only(call: ModelCall) -> str:
        return json.dumps({"lines": [1], "answer": "Ilse Varga"})

    ask = answer_step(JudgingModel({"reader": bridge_only}, yes=0.99), [SAILOR, SEA])
    whole = ask(QUESTION)
    assert (whole.status, whole.text) == ("grounded", "Ilse Varga")
    assert through_bridge(QUESTION, [SAILOR, SEA], whole, ask).status == "abstained"


def _counted(ask: Callable[[str], GroundedAnswer]) -> tuple[list[str], Callable[[str], GroundedAnswer]]:
    """``ask``, keeping each question it is asked in the list returned beside it."""
    asked: list[str] = []

    def counting(question: str) -> GroundedAnswer:
        asked.append(question)
        return ask(question)

    return asked, counting


def test_a_stated_answer_other_than_the_bridge_stands() -> None:
    ask = _step(JudgingModel({"reader": _reader_reply}, yes=_yes))
    asked, counting = _counted(ask)
    stated = replace(ask("Who was the husband of Ilse Varga?"), text="Tomas Brenner")
    assert through_bridge(QUESTION, SOURCES, stated, counting) is stated
    assert asked == [split_hops(QUESTION).bridge]  # type: ignore[union-attr]


def test_an_answer_already_stated_and_a_question_of_one_part_ask_nothing_more() -> None:
    ask = _step(JudgingModel({"reader": _reader_reply}, yes=_yes))
    asked, counting = _counted(ask)
    stated = ask("Who was the husband of Ilse Varga?")
    assert stated.text == "Tomas Brenner"
    assert through_bridge("Who was the husband of Ilse Varga?", SOURCES, stated, counting) is stated
    one_part = ask("Which harbour did Tomas Brenner sail from?")
    assert one_part.status == "abstained"
    assert (
        through_bridge("Which harbour did Tomas Brenner sail from?", SOURCES, one_part, counting) is one_part
    )
    assert asked == []


VIADUCT = [
    src(
        1,
        "Kellan Viaduct",
        "The Kellan Viaduct is a stone railway bridge. It went up in Dunmore in 1921, to the design of "
        "the engineer Ada Roe.",
    ),
    src(2, "Dunmore", "Dunmore is a market town on the river Kell."),
]


def _claim_step(reader: str, yes: float) -> tuple[Callable[[str], GroundedAnswer], ClaimCheck, JudgingModel]:
    """The answer step over the viaduct's sources and the claim check, both on one scripted
    model: its rewrite and its reading as measured of the 1.5B model, its P("yes") ``yes``
    where it weighs a yes/no question and sure where it judges a reading."""

    def rewrite(call: ModelCall) -> str:
        guess = call.messages[-1].content
        if "designed" in guess:
            return json.dumps({"ask": "Who designed the Kellan Viaduct?", "claim": "Pia Voss"})
        return json.dumps({"ask": "Where was the Kellan Viaduct constructed?", "claim": "Marrow Bay"})

    def p_yes(messages: list[Message]) -> float:
        return (
            yes if "Reply yes or no." in messages[-1].content and "Lines:" in messages[-1].content else 0.99
        )

    model = JudgingModel({"claim": rewrite, "reader": reader}, yes=p_yes)
    return answer_step(model, VIADUCT), claims.claim_check(model, model), model


def test_a_yes_no_question_whose_line_states_another_place_is_answered_no_and_cited() -> None:
    """ "went up in Dunmore" answers "Where was it constructed?"; the model does not read Dunmore
    as lying in Marrow Bay, so the guess is answered no, cited to the line that says otherwise."""
    question = "Was the Kellan Viaduct constructed in Marrow Bay?"
    ask, check, _ = _claim_step(json.dumps({"lines": [1], "answer": "Dunmore"}), yes=0.2)
    whole = ask(question)
    assert whole.status == "abstained"
    got = through_claim(question, VIADUCT, whole, ask, check)
    assert (got.text, got.status, got.kind, got.source_id) == ("no", "grounded", "yesno", 1)
    assert "went up in Dunmore" in got.sentence and got.judged == 0.2


def test_a_place_the_model_reads_as_inside_the_guess_is_yes_and_an_unsure_one_is_left() -> None:
    question = "Was the Kellan Viaduct constructed in Marrow Bay?"
    ask, check, _ = _claim_step(json.dumps({"lines": [1], "answer": "Dunmore"}), yes=0.9)
    assert through_claim(question, VIADUCT, ask(question), ask, check).text == "yes"
    ask, check, _ = _claim_step(json.dumps({"lines": [1], "answer": "Dunmore"}), yes=0.75)
    whole = ask(question)
    assert through_claim(question, VIADUCT, whole, ask, check) is whole


def test_another_person_in_the_role_is_no_without_asking_the_model() -> None:
    question = "Was the Kellan Viaduct designed by Pia Voss?"
    ask, check, model = _claim_step(json.dumps({"lines": [1], "answer": "Ada Roe"}), yes=0.99)
    got = through_claim(question, VIADUCT, ask(question), ask, check)
    assert (got.text, got.source_id) == ("no", 1)
    assert got.judged is None


def test_an_open_question_the_sources_do_not_answer_leaves_the_abstention() -> None:
    question = "Was the Kellan Viaduct constructed in Marrow Bay?"
    ask, check, _ = _claim_step(json.dumps({"lines": [], "answer": "none"}), yes=0.2)
    whole = ask(question)
    assert through_claim(question, VIADUCT, whole, ask, check) is whole


def test_a_rewrite_that_repeats_the_question_asks_nothing_more() -> None:
    question = "Was the Kellan Viaduct constructed in Marrow Bay?"
    ask, _, _ = _claim_step(json.dumps({"lines": [1], "answer": "Dunmore"}), yes=0.2)
    asked: list[str] = []

    def counting(q: str) -> GroundedAnswer:
        asked.append(q)
        return ask(q)

    echo = ClaimCheck(
        rewrite=lambda q: claims.parse_claim(q, json.dumps({"ask": q, "claim": "yes"})),
        weigh=lambda q, lines: 0.2,
    )
    whole = ask(question)
    assert through_claim(question, VIADUCT, whole, counting, echo) is whole
    assert through_claim(question, VIADUCT, whole, counting, None) is whole
    assert asked == []


def test_an_answer_read_from_another_page_through_a_bridge_settles_nothing() -> None:
    """The open question's answer must stand on a line about the question's subject: a line of
    another page reached through a bridge ("It went up in Calder", on the Calder Arch's page)
    says nothing of where the viaduct went up."""
    question = "Was the Kellan Viaduct constructed in Marrow Bay?"
    ask, check, _ = _claim_step(json.dumps({"lines": [], "answer": "none"}), yes=0.2)
    arch = src(3, "Calder Arch", "The Calder Arch is a footbridge. It went up in Calder in 1930.")
    elsewhere = GroundedAnswer(
        "Calder", "grounded", "place", source_id=3, sentence="It went up in Calder in 1930.",
        via_source_id=1, via_sentence=VIADUCT[0].content,
    )  # fmt: skip
    whole = ask(question)
    assert through_claim(question, [*VIADUCT, arch], whole, lambda q: elsewhere, check) is whole
    own = replace(elsewhere, text="Dunmore", source_id=1, sentence="It went up in Dunmore in 1921.")
    assert through_claim(question, [*VIADUCT, arch], whole, lambda q: own, check).text == "no"
