"""Invented passages for the answer tests, as the search step hands them over, and the answer
step over them."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.reader import judge, read, weigh_yes_no
from deepresearch.citations import Source
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.testing import JudgingModel


def src(sid: int, title: str, text: str) -> Source:
    """Source ``sid`` titled ``title`` whose text is ``text``."""
    return Source(id=sid, url=f"doc://{sid}", title=title, content=text)


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
