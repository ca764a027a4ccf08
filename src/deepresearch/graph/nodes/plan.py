"""Role selection and planning: the model proposes, code checks and completes."""

from __future__ import annotations

import re
import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.schemas import PlannedTask, PlanOut, RoleChoice
from deepresearch.graph.state import ResearchRole, ResearchState, TodoItem
from deepresearch.llm.structured import ask_structured
from deepresearch.prompts.roles import ROLE_TYPES, guess_role, role_spec
from deepresearch.prompts.steps import plan_messages, role_messages
from deepresearch.text import key_terms, tokens

MAX_TASKS, MIN_TASKS = 5, 3
_PLACEHOLDER = re.compile(r"[\[\]{}<>]|\.\.\.|…")
_ENTITY = re.compile(
    r"\"([^\"]{3,80})\"|((?:[A-Z][\w'’.-]*\s+(?:(?:of|the|de|and|von|van|la|le)\s+)*)*[A-Z][\w'’.-]+)"
)


def select_role(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, question, started = runtime.context, state["question"], time.perf_counter()
    runtime.stream_writer(event("status", step="role", message="Choosing a research role"))
    result = ask_structured(
        ctx.model,
        role_messages(question),
        RoleChoice,
        step="role",
        max_tokens=80,
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    role, fallbacks = _role_from(result.value, question), []
    if role.is_fallback:
        fallbacks.append(f"role: {result.error or 'unknown role'}; chose {role.type} by keywords")
    runtime.stream_writer(event("status", step="role", message=f"Role: {role.label}", role=role.model_dump()))
    return {"role": role, "fallbacks": fallbacks, "timings": _since("role", started)}


def plan_tasks(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, question, started = runtime.context, state["question"], time.perf_counter()
    runtime.stream_writer(event("status", step="plan", message="Planning research tasks"))
    result = ask_structured(
        ctx.model,
        plan_messages(question, state["role"], state["language"]),
        PlanOut,
        step="plan",
        max_tokens=400,
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    proposed = result.value.tasks if result.value else []
    tasks, fallbacks = build_plan(question, state["language"], proposed, result.error)
    runtime.stream_writer(event("todo_list", step="plan", tasks=[t.model_dump() for t in tasks]))
    return {
        "tasks": tasks,
        "active_task_ids": [t.id for t in tasks],
        "round": 1,
        "fallbacks": fallbacks,
        "timings": _since("plan", started),
    }


def build_plan(
    question: str, language: str, proposed: list[PlannedTask], error: str | None = None
) -> tuple[list[TodoItem], list[str]]:
    """Keep the model's usable tasks; with none, the single fallback task; with too few, add
    tasks code derives from the question. One task always searches the question as asked."""
    kept, rejected = _usable(question, proposed)
    if not kept:
        reason = error or (f"{rejected} proposed task(s) unusable" if rejected else "empty plan")
        return [fallback_task(question, language)], [f"plan: {reason}; using the fallback task"]
    fallbacks = [f"plan: dropped {rejected} unusable task(s)"] if rejected else []
    tasks = _with_anchor(question, kept)
    if len(tasks) < MIN_TASKS:
        tasks = _top_up(question, tasks)
        fallbacks.append("plan: added tasks derived from the question's names")
    return [t.model_copy(update={"id": i + 1}) for i, t in enumerate(tasks[:MAX_TASKS])], fallbacks


def fallback_task(question: str, language: str) -> TodoItem:
    if language == "zh":
        return TodoItem(
            id=1,
            title="背景梳理",
            intent=f"梳理与“{question}”相关的基础背景与最新进展",
            query=f"{question} 最新进展",
            is_fallback=True,
        )
    return TodoItem(
        id=1,
        title="background",
        intent=f"Background and latest developments on: {question}",
        query=f"{question} latest developments",
        is_fallback=True,
    )


def normalize_query(query: str) -> str:
    return " ".join(tokens(query))


def _usable(question: str, proposed: list[PlannedTask]) -> tuple[list[TodoItem], int]:
    question_terms, seen = set(key_terms(question)), set[str]()
    kept: list[TodoItem] = []
    for item in proposed:
        query = " ".join(item.query.split())[:200].strip(" \"'")
        norm = normalize_query(query)
        on_topic = bool(question_terms & set(key_terms(query))) or not question_terms
        if not norm or norm in seen or _PLACEHOLDER.search(query) or not on_topic:
            continue
        seen.add(norm)
        title = " ".join(item.title.split())[:80] or query[:60]
        intent = " ".join(item.intent.split())[:300] or title
        kept.append(TodoItem(id=len(kept) + 1, title=title, intent=intent, query=query))
    return kept, len(proposed) - len(kept)


def _with_anchor(question: str, tasks: list[TodoItem]) -> list[TodoItem]:
    anchor_query = " ".join(key_terms(question)) or question
    if any(normalize_query(t.query) == normalize_query(anchor_query) for t in tasks):
        return tasks
    anchor = TodoItem(
        id=0,
        title="The question as asked",
        intent=f"Find passages that answer: {question}",
        query=anchor_query,
    )
    return [anchor, *tasks][:MAX_TASKS]


def _top_up(question: str, tasks: list[TodoItem]) -> list[TodoItem]:
    """Add entity tasks, then one task on the question's terms no query covers yet."""
    have = {normalize_query(t.query) for t in tasks}
    extra: list[TodoItem] = []
    for name in question_entities(question):
        if normalize_query(name) not in have and len(tasks) + len(extra) < MIN_TASKS:
            have.add(normalize_query(name))
            extra.append(
                TodoItem(id=0, title=name, intent=f"Who or what is {name}, as the question needs", query=name)
            )
    anchor = normalize_query(" ".join(key_terms(question)))
    covered = set(" ".join(q for q in have if q != anchor).split())
    rest = " ".join(t for t in key_terms(question) if t not in covered)
    if rest and normalize_query(rest) not in have and len(tasks) + len(extra) < MIN_TASKS:
        extra.append(
            TodoItem(
                id=0, title=f"Details: {rest}", intent=f"What the question says about {rest}", query=rest
            )
        )
    return [*tasks, *extra]


def question_entities(question: str) -> list[str]:
    """Quoted titles and capitalised names in the question, longest first, sentence start aside."""
    found: dict[str, None] = {}
    for match in _ENTITY.finditer(question):
        name = (match.group(1) or match.group(2) or "").strip()
        if name and key_terms(name) and not (match.start() == 0 and " " not in name):
            found.setdefault(name, None)
    return sorted(found, key=len, reverse=True)


def _role_from(choice: RoleChoice | None, question: str) -> ResearchRole:
    if choice is not None and choice.role in ROLE_TYPES:
        spec = role_spec(choice.role)
        focus = " ".join(choice.focus.split())[:200]
        instructions = f"{spec.instructions} {focus}".strip()
        return ResearchRole(type=spec.type, label=spec.label, instructions=instructions)
    spec = guess_role(question)
    return ResearchRole(type=spec.type, label=spec.label, instructions=spec.instructions, is_fallback=True)


def _since(step: str, started: float) -> dict[str, float]:
    return {step: time.perf_counter() - started}
