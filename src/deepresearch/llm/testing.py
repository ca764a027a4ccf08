"""Model doubles for tests — ours and yours.

``ScriptedModel`` answers by research step (``plan``: role and tasks in one answer; ``judge``:
judgements with the next round's queries; ``summarize``, ``report``, ``answer``; and the separate
``role`` and ``queries`` steps the benchmarks still ask). Give it text, a list of texts (served in
order, the last one repeats), or a function of the call. Steps you do not script get a sensible
built-in answer, so a test only scripts what it is about. Fail on purpose by scripting bad JSON,
``<think>`` blocks, empty text, or a function that raises :class:`deepresearch.errors.ModelError`.

``FunctionModel`` hands every call to one function. ``JudgingModel`` is a ``ScriptedModel`` that
also gives P("yes") as the in-process runtime does, for the judge of the reader's answer.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from deepresearch.llm.base import ChatModelBase, Completion, Message, ModelCall, Usage
from deepresearch.text import key_terms

__all__ = [
    "FunctionModel",
    "JudgingModel",
    "ModelCall",
    "Responder",
    "ScriptedModel",
    "default_answer",
    "distinct_plan",
]


Responder = str | Callable[[ModelCall], str]


class FunctionModel(ChatModelBase):
    """A model whose every answer comes from ``function(call)``; records calls; optional delay."""

    def __init__(
        self, function: Callable[[ModelCall], str], *, delay: float = 0.0, name: str = "function"
    ) -> None:
        self.name = name
        self.calls: list[ModelCall] = []
        self._function = function
        self._delay = delay
        self._lock = threading.Lock()

    def on_complete(self, call: ModelCall) -> Completion:
        with self._lock:
            self.calls.append(call)
        if self._delay:
            time.sleep(self._delay)
        text = self._function(call)
        usage = Usage(_count(call.prompt), _count(text), 1)
        return Completion(text=text, usage=usage, finish_reason="stop")

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        text = self.on_complete(call).text
        yield from re.findall(r"\S+\s*|\s+", text)

    def steps(self) -> list[str]:
        return [call.step for call in self.calls]


class ScriptedModel(FunctionModel):
    """Answers by step from a script; unscripted steps get :func:`default_answer`."""

    def __init__(
        self,
        script: Mapping[str, Responder | Sequence[Responder]] | None = None,
        *,
        default: Responder | None = None,
        delay: float = 0.0,
        name: str = "scripted",
    ) -> None:
        self._queues = {step: _as_list(answers) for step, answers in (script or {}).items()}
        self._default = default
        super().__init__(self._answer, delay=delay, name=name)

    def _answer(self, call: ModelCall) -> str:
        queue = self._queues.get(call.step)
        if queue:
            responder = queue.pop(0) if len(queue) > 1 else queue[0]
        elif self._default is not None:
            responder = self._default
        else:
            return default_answer(call)
        return responder(call) if callable(responder) else responder


class JudgingModel(ScriptedModel):
    """A :class:`ScriptedModel` that also answers P("yes") (``yes``: a number, or a function of the
    messages), as :meth:`~deepresearch.llm.embedded.EmbeddedModel.yes_probability` does, and a
    multiple choice's shares (``options``: a function of the messages and the letters; by
    default all on the last letter, "none of these"), as
    :meth:`~deepresearch.llm.embedded.EmbeddedModel.option_probabilities` does; the messages it
    judged are kept in ``judged``."""

    def __init__(
        self,
        script: Mapping[str, Responder | Sequence[Responder]] | None = None,
        *,
        yes: float | Callable[[list[Message]], float] = 1.0,
        options: Callable[[list[Message], Sequence[str]], list[float]] | None = None,
        name: str = "judging",
    ) -> None:
        super().__init__(script, name=name)
        self._yes = yes
        self._options = options
        self.judged: list[list[Message]] = []

    def option_probabilities(self, messages: list[Message], letters: Sequence[str]) -> list[float]:
        with self._lock:
            self.judged.append(messages)
        if self._options is not None:
            return self._options(messages, letters)
        return [0.0] * (len(letters) - 1) + [1.0]

    def yes_probability(self, messages: list[Message]) -> float:
        with self._lock:
            self.judged.append(messages)
        return self._yes(messages) if callable(self._yes) else self._yes


def default_answer(call: ModelCall) -> str:
    """A plausible, valid answer for each step, derived from the prompt."""
    question = _field(call.prompt, "Question") or "the question"
    answers: dict[str, Callable[[], str]] = {
        "role": lambda: json.dumps(
            {"role": "general_researcher", "instructions": "Be factual and cite sources."}
        ),
        "plan": lambda: json.dumps(_opening_for(question)),
        "queries": lambda: json.dumps({"queries": _requeries(call.prompt)}),
        "judge": lambda: json.dumps({"tasks": _judgements(call.prompt)}),
        "summarize": lambda: _first_source_summary(call.prompt),
        "report": lambda: json.dumps(_report(question)),
        "answer": lambda: json.dumps({"answer": _first_source_sentence(call.prompt)}),
    }
    return answers.get(call.step, lambda: "ok")()


def distinct_plan(question: str) -> list[dict[str, str]]:
    """The plan a good model writes: the question, then two tasks on different halves of its key
    terms, none a near-duplicate of another (the planner drops those)."""
    terms = key_terms(question)
    half = max(2, len(terms) // 2)
    queries = [question, " ".join(terms[:half]), " ".join(terms[half:])]
    return [
        {"title": query[:60], "intent": f"Find out: {query}", "query": query}
        for query in queries
        if len(key_terms(query)) >= 2
    ]


_plan_for = distinct_plan


def _opening_for(question: str) -> dict[str, Any]:
    """The role and plan of the combined opening call (see :mod:`deepresearch.graph.planning`)."""
    return {
        "role": "general_researcher",
        "focus": "Be factual and cite sources.",
        "tasks": _plan_for(question),
    }


def _requeries(prompt: str) -> list[dict[str, Any]]:
    found = re.findall(r"task_id=(\d+) \| query=([^|\n]*)", prompt)
    rnd = _field(prompt, "Round") or "2"
    return [{"task_id": int(i), "query": f"{q.strip()} details {rnd}"} for i, q in found]


def _judgements(prompt: str) -> list[dict[str, Any]]:
    """Judgements of every task; when the prompt asks for next queries (a ``Round:`` line), one
    per task as the re-query step's default answer would write it."""
    queries = {q["task_id"]: q["query"] for q in _requeries(prompt)} if _field(prompt, "Round") else {}
    return [
        {
            "task_id": int(i),
            "relevance": 80,
            "explanation": "Sources address the task.",
            "gaps": [],
            "next_query": queries.get(int(i), ""),
        }
        for i in dict.fromkeys(re.findall(r"task_id=(\d+)", prompt))
    ]


def _report(question: str) -> dict[str, Any]:
    return {
        "answer": "",
        "background": f"This report looks at: {question}",
        "insights": [{"text": "The first source is the most relevant [1].", "sources": [1]}],
        "risks": ["Evidence comes from a small local corpus."],
    }


def _first_source_summary(prompt: str) -> str:
    """What a model that follows the summary prompt writes: the first source's opening sentences
    (none cut off mid-way), cited by that source's own number."""
    match = re.search(r'<source id="(\d+)"[^>]*>([^<]{0,200})', prompt)
    if match is None:
        return "The sources say nothing of it."
    parts = re.split(r"(?<=[.!?])\s+", " ".join(match.group(2).split()))
    whole = parts[:-1] if len(parts) > 1 and not parts[-1].endswith((".", "!", "?")) else parts
    return f"{' '.join(whole).rstrip('.')} [{match.group(1)}]."


def _first_source_sentence(prompt: str) -> str:
    match = re.search(r"<source id=[^>]*>([^<]{0,60})", prompt)
    return match.group(1).strip() if match else "unknown"


def _field(prompt: str, name: str) -> str | None:
    match = re.search(rf"^{name}:\s*(.+)$", prompt, re.MULTILINE)
    return match.group(1).strip() if match else None


def _as_list(answers: Responder | Sequence[Responder]) -> list[Responder]:
    if isinstance(answers, str) or callable(answers):
        return [answers]
    return list(answers)


def _count(text: str) -> int:
    return max(1, len(text) // 4) if text else 0
