"""Share of valid structured outputs per step for the embedded model, with and without constrained
decoding.

Usage: ``python bench/structured_bench.py [--questions 20] [--threads 1] [--model smollm2]
[--steps role plan queries judge answer] [--out results.json]``

For each question (spread evenly over ``../shared/eval/questions.jsonl``) every step's real prompt
(``deepresearch.prompts.steps``) is sent through the real ladder (``ask_structured``: extraction,
``json-repair``, one retry showing the error) with the step's ``max_tokens`` from the graph:

* ``constrained``: the schema reaches llama.cpp, which turns it into a grammar;
* ``unconstrained``: the schema is withheld from the model (prompt-only JSON), the ladder is the same.

Per step it reports: valid on the first answer, valid after the retry, usable (what the graph
would keep: a known role; a plan that needs no fallback task; a new, on-topic query for every task;
a judgement for every task with relevance in 0–100; a non-empty short answer), and the mean
seconds per step. Prompts quote the eval set's gold passages as evidence, so the inputs are
realistic without running search. Timings on 2 shared cores vary ±20 %: compare within one run.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from deepresearch.domain import ResearchRole, TaskJudgement, TodoItem
from deepresearch.graph.planning import build_plan, normalize_query
from deepresearch.llm.base import ChatModel, Completion, Message
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.structured import Structured, ask_structured
from deepresearch.model_outputs import JudgeOut, PlanOut, QueriesOut, RoleChoice, ShortAnswer
from deepresearch.prompts.steps import (
    answer_messages,
    judge_messages,
    plan_messages,
    requery_messages,
    role_messages,
)
from deepresearch.roles import ROLE_TYPES, guess_role
from deepresearch.text import key_terms, language_of

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
STEPS = ("role", "plan", "queries", "judge", "answer")
MODES = ("constrained", "unconstrained")
PLACEHOLDER = re.compile(r"[\[\]{}<>]|\.\.\.|…")


@dataclass(frozen=True)
class Case:
    """One question with the evidence its prompts quote."""

    question: str
    passages: list[tuple[str, str]]

    @property
    def language(self) -> str:
        return language_of(self.question)


@dataclass
class Tally:
    calls: int = 0
    valid_first: int = 0
    valid: int = 0
    usable: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def add(self, result: Structured[Any], usable: bool, seconds: float) -> None:
        self.calls += 1
        self.valid_first += result.value is not None and result.attempts == 1
        self.valid += result.value is not None
        self.usable += usable
        self.seconds += seconds
        if result.error and len(self.errors) < 3:
            self.errors.append(result.error[:160])

    def row(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "valid_first": self._share(self.valid_first),
            "valid": self._share(self.valid),
            "usable": self._share(self.usable),
            "seconds": round(self.seconds / self.calls, 2) if self.calls else 0.0,
            "errors": self.errors,
        }

    def _share(self, count: int) -> float:
        return round(count / self.calls, 2) if self.calls else 0.0


class SchemaWithheld:
    """The model without constrained decoding: ``schema`` never reaches it."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner = inner
        self.name = f"{inner.name} (unconstrained)"

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        return self.inner.complete(messages, step=step, schema=None, max_tokens=max_tokens)

    def stream(self, messages: list[Message], *, step: str = "", max_tokens: int = 512) -> Iterator[str]:
        return self.inner.stream(messages, step=step, max_tokens=max_tokens)


def load_cases(count: int) -> list[Case]:
    """``count`` questions spread evenly over the eval set, each with its gold passages."""
    rows = [json.loads(line) for line in (EVAL / "questions.jsonl").open(encoding="utf-8")]
    wanted = {d for row in rows for d in row["gold_doc_ids"]}
    corpus = {}
    for line in (EVAL / "corpus.jsonl").open(encoding="utf-8"):
        doc = json.loads(line)
        if doc["doc_id"] in wanted:
            corpus[doc["doc_id"]] = (doc["title"], doc["text"])
    step = max(1, len(rows) // count)
    chosen = rows[::step][:count]
    return [Case(r["question"], [corpus[d] for d in r["gold_doc_ids"] if d in corpus]) for r in chosen]


def tasks_for(case: Case) -> list[TodoItem]:
    """Two tasks as the planner's fallbacks make them, with the gold passages as their summaries."""
    terms = " ".join(key_terms(case.question)) or case.question
    tasks = [TodoItem(id=1, title="The question as asked", intent=f"Answer: {case.question}", query=terms)]
    for index, (title, _) in enumerate(case.passages[:1], start=2):
        tasks.append(TodoItem(id=index, title=title, intent=f"Who or what is {title}", query=title))
    return [
        t.model_copy(update={"summary": _passage(case, i), "status": "completed", "queries": [t.query]})
        for i, t in enumerate(tasks)
    ]


def _passage(case: Case, index: int) -> str:
    if not case.passages:
        return ""
    title, text = case.passages[min(index, len(case.passages) - 1)]
    return f"{title}: {text[:500]} [1]"


def _sentences(case: Case) -> list[tuple[str, int]]:
    found: list[tuple[str, int]] = []
    for number, (_, text) in enumerate(case.passages, start=1):
        for sentence in re.split(r"(?<=[.!?])\s+", text)[:3]:
            found.append((sentence[:240], number))
    return found[:6]


StepRun = Callable[[ChatModel, Case], tuple[Structured[Any], bool]]


def run_role(model: ChatModel, case: Case) -> tuple[Structured[Any], bool]:
    result = _ask(model, role_messages(case.question), RoleChoice, "role", 80)
    return result, result.value is not None and result.value.role in ROLE_TYPES


def run_plan(model: ChatModel, case: Case) -> tuple[Structured[Any], bool]:
    spec = guess_role(case.question)
    role = ResearchRole(type=spec.type, label=spec.label, instructions=spec.instructions)
    result = _ask(model, plan_messages(case.question, role, case.language), PlanOut, "plan", 400)
    if result.value is None:
        return result, False
    tasks, fallbacks = build_plan(case.question, case.language, result.value.tasks)
    return result, not any("fallback task" in f for f in fallbacks) and not tasks[0].is_fallback


def run_queries(model: ChatModel, case: Case) -> tuple[Structured[Any], bool]:
    tasks = tasks_for(case)
    weak = [(t, _judgement(case, t)) for t in tasks]
    messages = requery_messages(case.question, 2, weak, [t.query for t in tasks])
    result = _ask(model, messages, QueriesOut, "queries", 40 + 50 * len(weak))
    if result.value is None:
        return result, False
    proposals = {q.task_id: q.query for q in result.value.queries}
    ran = {normalize_query(t.query) for t in tasks}
    return result, all(_usable_query(case, t, proposals.get(t.id), ran) for t, _ in weak)


def run_judge(model: ChatModel, case: Case) -> tuple[Structured[Any], bool]:
    tasks = tasks_for(case)
    result = _ask(model, judge_messages(case.question, tasks), JudgeOut, "judge", 80 + 90 * len(tasks))
    if result.value is None:
        return result, False
    judged = {j.task_id: j.relevance for j in result.value.tasks}
    return result, set(judged) >= {t.id for t in tasks} and all(0 <= r <= 100 for r in judged.values())


def run_answer(model: ChatModel, case: Case) -> tuple[Structured[Any], bool]:
    messages = answer_messages(case.question, _sentences(case), case.language)
    result = _ask(model, messages, ShortAnswer, "answer", 32)
    return result, result.value is not None and 0 < len(result.value.answer.strip()) <= 120


RUNS: dict[str, StepRun] = {
    "role": run_role,
    "plan": run_plan,
    "queries": run_queries,
    "judge": run_judge,
    "answer": run_answer,
}


def _usable_query(case: Case, task: TodoItem, query: str | None, ran: set[str]) -> bool:
    """The requery step's rule: new, on the task's topic, no placeholder."""
    norm = normalize_query(query or "")
    topic = set(key_terms(f"{case.question} {task.query} {task.title}"))
    on_topic = bool(topic & set(key_terms(query or "")))
    return bool(norm) and norm not in ran and on_topic and not PLACEHOLDER.search(query or "")


def _judgement(case: Case, task: TodoItem) -> TaskJudgement:
    gaps = [t for t in key_terms(case.question) if t not in task.query.lower()][:4]
    return TaskJudgement(
        task_id=task.id, relevance=20.0, code_relevance=20.0, explanation="Sources miss key terms.", gaps=gaps
    )


def _ask(
    model: ChatModel, messages: list[Message], output: type[BaseModel], step: str, limit: int
) -> Structured[Any]:
    return ask_structured(model, messages, output, step=step, max_tokens=limit)


def bench(model: ChatModel, cases: list[Case], steps: list[str]) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    for mode in MODES:
        subject = model if mode == "constrained" else SchemaWithheld(model)
        tallies = {step: Tally() for step in steps}
        for number, case in enumerate(cases, start=1):
            for step in steps:
                started = time.perf_counter()
                result, usable = RUNS[step](subject, case)
                tallies[step].add(result, usable, time.perf_counter() - started)
            print(f"{mode}: {number}/{len(cases)} questions", file=sys.stderr, flush=True)
        results[mode] = {step: tally.row() for step, tally in tallies.items()}
    return results


def table(results: dict[str, dict[str, Any]], steps: list[str]) -> str:
    head = "| step | " + " | ".join(f"{m}: valid 1st / after retry / usable / s" for m in MODES) + " |"
    lines = [head, "|---|" + "---|" * len(MODES)]
    for step in steps:
        cells = []
        for mode in MODES:
            row = results[mode][step]
            cells.append(
                f"{row['valid_first']:.2f} / {row['valid']:.2f} / {row['usable']:.2f} / {row['seconds']:.1f}"
            )
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--steps", nargs="+", default=list(STEPS), choices=STEPS)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    model = EmbeddedModel.from_name(args.model, n_threads=args.threads)
    cases = load_cases(args.questions)
    started = time.perf_counter()
    results = bench(model, cases, args.steps)
    elapsed = time.perf_counter() - started
    print(f"{args.model}, {len(cases)} questions, {args.threads} thread(s), {elapsed:.0f}s\n")
    print(table(results, args.steps))
    if args.out:
        args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    model.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
