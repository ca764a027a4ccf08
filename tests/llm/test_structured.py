"""The ladder's parsing rungs: thinking stripped first, JSON extracted and repaired, broken items of
an answer cut off by ``max_tokens`` dropped, one retry showing the error."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, ValidationError

from deepresearch.llm.base import Message
from deepresearch.llm.structured import ask_structured, parse_salvaged
from deepresearch.llm.testing import ScriptedModel


class Task(BaseModel):
    title: str
    query: str


class Plan(BaseModel):
    tasks: list[Task]
    note: str = ""


def _task(n: int) -> dict[str, str]:
    return {"title": f"T{n}", "query": f"q{n}"}


def test_an_answer_cut_mid_item_keeps_the_complete_items() -> None:
    text = json.dumps({"tasks": [_task(1), _task(2)]})[:-2] + ', {"title": "T3", "que'

    plan, dropped = parse_salvaged(Plan, text)

    assert [t.title for t in plan.tasks] == ["T1", "T2"]
    assert dropped == 1


def test_nothing_is_salvaged_when_every_item_is_broken() -> None:
    with pytest.raises(ValidationError):
        parse_salvaged(Plan, '{"tasks": [{"title": "only"}]}')


def test_nothing_is_salvaged_when_an_error_lies_outside_the_lists() -> None:
    with pytest.raises(ValidationError):
        parse_salvaged(Plan, json.dumps({"tasks": [_task(1), {"title": "x"}], "note": ["not", "text"]}))


def test_thinking_is_stripped_before_parsing() -> None:
    text = '<think>{"tasks": []}</think>Here: ```json\n' + json.dumps({"tasks": [_task(1)]}) + "\n```"

    assert parse_salvaged(Plan, text)[0].tasks[0].title == "T1"


def test_a_bare_list_fills_the_list_field() -> None:
    assert len(parse_salvaged(Plan, json.dumps([_task(1), _task(2)]))[0].tasks) == 2


def test_ask_structured_reports_dropped_items_and_retries_once_with_the_error() -> None:
    truncated = json.dumps({"tasks": [_task(1)]})[:-2] + ', {"title": "T2"'
    model = ScriptedModel({"plan": ["no json here", truncated]})

    result = ask_structured(model, [Message("user", "plan")], Plan, step="plan", max_tokens=50)

    assert result.value is not None and result.attempts == 2 and result.dropped == 1
    assert "not valid" in model.calls[1].messages[-1].content
