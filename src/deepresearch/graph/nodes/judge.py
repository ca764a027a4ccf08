"""Judging the evidence: a code-side relevance score per source, backed by the model where it helps,
and whether the sources answer the question at all (a grounded answer, not an abstention).

Code relevance: a source is relevant to a task when it contains at least half of the key terms
of the task's first query, and at least two of them when the query has two or more.
Task relevance is relevant/total (a task without sources scores 0); the run's relevance is the
mean over tasks; a task dropped at plan review is not judged (nobody looked for it). Gaps are the
question's and the task's key terms that no source of the task contains. Terms are compared by
stem, as the index compares them (see :mod:`deepresearch.text`): a source with "breeds" contains
the term "breed". With ``model_judge`` on, the model's score is
averaged in; both kept, and the same answer carries the model's query for each task whose evidence
is thin (``next_query``), which the re-query step tries first: one call per round, not two. Whether
the sources answer (code's grounded answer) is worked out while the model judges, not after.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.answers.ground import ground_answer
from deepresearch.citations import Source
from deepresearch.domain import DROPPED, RoundEvaluation, TaskJudgement, TodoItem
from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.state import ResearchState
from deepresearch.llm.structured import ask_structured
from deepresearch.model_outputs import JudgeOut, ModelJudgement
from deepresearch.prompts.steps import judge_messages
from deepresearch.text import contains_term, key_terms, missing_terms, stem, stems
from deepresearch.wordsim import SoftTerms, soft_terms

RELEVANT_COVERAGE = 0.5


def judge(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, started = runtime.context, time.perf_counter()
    runtime.stream_writer(event("status", step="judge", message="Judging the evidence"))
    tasks = [t for t in state["tasks"] if t.skip_reason != DROPPED]
    sources = state.get("sources", [])
    judgements = [code_judgement(state["question"], t, sources) for t in tasks]
    fallbacks: list[str] = []
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="deepresearch-ground") as pool:
        grounded = pool.submit(ground_answer, state["question"], sources, weights=ctx.answer_weights)
        if ctx.use_model_judge:
            model_view, error = _model_judgements(state, runtime, rounds_left(state, ctx))
            judgements = [_blend(j, model_view.get(j.task_id)) for j in judgements]
            if error:
                fallbacks.append(f"judge: {error}; kept the code-side relevance")
        answered = grounded.result().status != "abstained"
    evaluation = summarize_round(state["round"], judgements, ctx.settings.relevance_threshold)
    early = state["round"] < ctx.settings.min_research_rounds
    evaluation = evaluation.model_copy(
        update={"answered": answered, "enough": evaluation.enough and answered and not early}
    )
    runtime.stream_writer(event("evaluation", step="judge", **evaluation.model_dump()))
    return {
        "evaluations": [evaluation],
        "another_round": rounds_left(state, ctx) and not evaluation.enough,
        "fallbacks": fallbacks,
        "timings": {"judge": time.perf_counter() - started},
    }


def code_judgement(question: str, task: TodoItem, registry: Sequence[Source]) -> TaskJudgement:
    own = [s for s in registry if task.id in s.task_ids]
    terms = key_terms(task.queries[0] if task.queries else task.query)
    texts = [f"{s.title} {s.content or s.snippet}" for s in own]
    soft = soft_terms([stem(t) for t in terms], {w for text in texts for w in stems(text)})
    relevant = sum(is_relevant(terms, text, soft) for text in texts)
    score = 100.0 * relevant / len(own) if own else 0.0
    gaps = _gaps(key_terms(f"{question} {task.queries[0] if task.queries else task.query}"), texts)
    return TaskJudgement(
        task_id=task.id,
        relevance=round(score, 1),
        code_relevance=round(score, 1),
        relevant=relevant,
        total=len(own),
        gaps=gaps,
        explanation=_explain(task, relevant, len(own), gaps),
    )


def is_relevant(terms: Sequence[str], text: str, soft: SoftTerms | None = None) -> bool:
    """``text`` covers enough of ``terms``: by stem, or with ``soft`` in part by words of like
    meaning ("female pilot" for "woman")."""
    if not terms:
        return False
    present = set(stems(text))
    held = [1.0 if contains_term(t, present) else soft.held(stem(t), present) if soft else 0.0 for t in terms]
    share = sum(held) / len(terms)
    return share >= RELEVANT_COVERAGE and share * len(terms) >= min(2, len(terms))


def summarize_round(round_number: int, tasks: list[TaskJudgement], threshold: float) -> RoundEvaluation:
    if not tasks:
        return RoundEvaluation(round=round_number, relevance=0.0, code_relevance=0.0)
    relevance = sum(t.relevance for t in tasks) / len(tasks)
    code = sum(t.code_relevance for t in tasks) / len(tasks)
    model_scores = [t.model_relevance for t in tasks if t.model_relevance is not None]
    model = sum(model_scores) / len(model_scores) if model_scores else None
    return RoundEvaluation(
        round=round_number,
        relevance=round(relevance, 1),
        code_relevance=round(code, 1),
        model_relevance=round(model, 1) if model is not None else None,
        relevant=sum(t.relevant for t in tasks),
        total=sum(t.total for t in tasks),
        tasks=tasks,
        enough=relevance >= threshold,
    )


def rounds_left(state: ResearchState, ctx: ResearchContext) -> bool:
    """Whether the run's round limit (``MAX_WEB_RESEARCH_LOOPS``, read here and nowhere else in
    the graph) allows a round after this one."""
    return state["round"] < ctx.settings.max_web_research_loops


def _model_judgements(
    state: ResearchState, runtime: Runtime[ResearchContext], more: bool
) -> tuple[dict[int, ModelJudgement], str | None]:
    ctx = runtime.context
    judged = [t for t in state["tasks"] if t.status == "completed"]
    if not judged:
        return {}, None
    messages = judge_messages(
        state["question"],
        judged,
        next_round=state["round"] + 1 if more else None,
        queries_run=state.get("queries_run", []),
    )
    result = ask_structured(
        ctx.model,
        messages,
        JudgeOut,
        step="judge",
        max_tokens=80 + (140 if more else 90) * len(judged),
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    if result.value is None:
        return {}, result.error
    return {j.task_id: j for j in result.value.tasks}, None


def _blend(code: TaskJudgement, model: ModelJudgement | None) -> TaskJudgement:
    if model is None:
        return code
    score = min(100.0, max(0.0, model.relevance))
    explanation = " ".join(model.explanation.split())[:300]
    return code.model_copy(
        update={
            "model_relevance": score,
            "relevance": round((code.code_relevance + score) / 2, 1),
            "explanation": f"{code.explanation} Model: {explanation}".strip(),
            "gaps": list(dict.fromkeys([*code.gaps, *(g[:80] for g in model.gaps[:5])])),
            "next_query": " ".join(model.next_query.split())[:200],
        }
    )


def _gaps(terms: Sequence[str], texts: Sequence[str]) -> list[str]:
    return missing_terms(terms, " ".join(texts))[:8]


def _explain(task: TodoItem, relevant: int, total: int, gaps: Sequence[str]) -> str:
    if total == 0:
        return f"No sources for task {task.id}" + (f" ({task.skip_reason})." if task.skip_reason else ".")
    missing = f" Missing: {', '.join(gaps)}." if gaps else ""
    return f"{relevant} of {total} sources contain most key terms of the task's query.{missing}"
