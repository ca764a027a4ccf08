"""Invented passages for the answer tests, as the search step hands them over, and the answer
step over them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.reader import judge, read, weigh_yes_no
from deepresearch.citations import Source
from deepresearch.llm.base import ModelCall
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.testing import JudgingModel


def src(sid: int, title: str, text: str) -> Source:
    """Source ``sid`` titled ``title`` whose text is ``text``."""
    return Source(id=sid, url=f"doc://{sid}", title=title, content=text)


ISLAND = [
    src(1, "Eskerby", "Eskerby, a fishing village of Varnland, lies across the strait from Orrland."),
    src(2, "Varnland", "Varnland is an island republic. Its first president was Ada Holm, elected in 1921."),
    src(3, "Orrland", "Orrland is a kingdom. Its first president was Ivo Brand, elected in 1990."),
]
"""Two countries with a first president each, and a village of one that names both."""


def island_reader(reads_bridge: bool) -> Callable[[ModelCall], str]:
    """A reader over :data:`ISLAND` that reads the first president of a country asked by name,
    the country of Eskerby only where ``reads_bridge``, and nothing of the whole question."""

    def reply(call: ModelCall) -> str:
        asked = call.prompt.rsplit("Question:", 1)[-1].split("\n")[0]
        for line, country, president in ((2, "Varnland", "Ada Holm"), (3, "Orrland", "Ivo Brand")):
            if country in asked:
                return json.dumps({"lines": [line], "answer": president})
        if reads_bridge and "country of Eskerby" in asked:
            return json.dumps({"lines": [1], "answer": "Varnland"})
        return json.dumps({"lines": [], "answer": "none"})

    return reply


def answer_step(
    model: JudgingModel | EmbeddedModel, sources: Sequence[Source]
) -> Callable[[str], GroundedAnswer]:
    """The shipped answer step over ``sources`` with ``model`` as reader, judge and yes/no
    weigher, as the report node asks it (``graph/nodes/report.py``)."""

    def ask(question: str) -> GroundedAnswer:
        return ground_answer(
            question,
            sources,
            weights=confidence_gate(None),
            reader=lambda frame, ranked: read(model, frame, ranked),
            judge=lambda frame, reading: judge(model, frame, reading),
            yes_no=lambda frame, ranked: weigh_yes_no(model, frame, ranked),
        )

    return ask
