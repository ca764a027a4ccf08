"""A two-hop question the answer step abstains on is asked again as its hop of the bridge a
sentence read names (``chained.through_bridge``), with the real answer step and reader code and a
scripted model at the model seam. Invented people and seas."""

from __future__ import annotations

import json
from collections.abc import Callable

from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.reader import judge, read
from deepresearch.chained import through_bridge
from deepresearch.llm.base import Message, ModelCall
from deepresearch.llm.testing import JudgingModel

from .answers.sources import src

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
    def ask(question: str) -> GroundedAnswer:
        return ground_answer(
            question,
            SOURCES,
            weights=confidence_gate(None),
            reader=lambda frame, ranked: read(model, frame, ranked),
            judge=lambda frame, reading: judge(model, frame, reading),
        )

    return ask


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


def test_an_answer_already_stated_and_a_question_of_one_part_ask_nothing_more() -> None:
    asked: list[str] = []
    ask = _step(JudgingModel({"reader": _reader_reply}, yes=_yes))

    def counting(question: str) -> GroundedAnswer:
        asked.append(question)
        return ask(question)

    stated = ask("Who was the husband of Ilse Varga?")
    assert stated.text == "Tomas Brenner"
    assert through_bridge("Who was the husband of Ilse Varga?", SOURCES, stated, counting) is stated
    one_part = ask("Which harbour did Tomas Brenner sail from?")
    assert one_part.status == "abstained"
    assert (
        through_bridge("Which harbour did Tomas Brenner sail from?", SOURCES, one_part, counting) is one_part
    )
    assert asked == []
