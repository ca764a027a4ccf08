"""The model chooses an answer among code's candidates, under a grammar that allows only them.

The candidates become a JSON-schema ``enum``; llama.cpp turns the schema into a grammar and
servers with structured output enforce it, so the model can pick but cannot invent. Anything
else it returns is ignored and code's own ranking stands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, create_model

from deepresearch.answers.evidence import Ranked
from deepresearch.answers.ground import Chooser
from deepresearch.answers.question import QuestionFrame
from deepresearch.llm.base import ChatModel
from deepresearch.llm.structured import ask_structured
from deepresearch.prompts.steps import choice_messages


def choice_schema(options: Sequence[str]) -> type[BaseModel]:
    """A pydantic model whose only field ``answer`` must be one of ``options``."""
    literal: Any = Literal[tuple(options)]
    return create_model("AnswerChoice", answer=(literal, ...))


def model_chooser(model: ChatModel, *, strip_think: bool = True) -> Chooser:
    """A :data:`~deepresearch.answers.ground.Chooser` that asks ``model`` (one short call)."""

    def choose(frame: QuestionFrame, options: Sequence[str], evidence: Sequence[Ranked]) -> str | None:
        lines = [(r.sentence.text, r.sentence.source_id) for r in evidence]
        result = ask_structured(
            model,
            choice_messages(frame.text, options, lines),
            choice_schema(options),
            step="answer",
            max_tokens=48,
            strip_think=strip_think,
        )
        value = getattr(result.value, "answer", None)
        return value if isinstance(value, str) else None

    return choose
