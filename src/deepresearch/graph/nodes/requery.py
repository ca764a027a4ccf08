"""New queries for the weak tasks: round 2 narrower, round 3+ a different angle, never a repeat."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.answers.evidence import ranked_bridges, sentence_pool
from deepresearch.answers.question import question_names
from deepresearch.citations import Source
from deepresearch.domain import TaskJudgement, TodoItem
from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.planning import (
    ANCHOR_TITLES,
    has_placeholder,
    is_fragment,
    normalize_query,
    question_entities,
)
from deepresearch.graph.review import DROPPED
from deepresearch.graph.state import ResearchState
from deepresearch.text import key_stems, key_terms, missing_terms, stems, stopwords_for, term_stems, words


def requery(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, started = runtime.context, time.perf_counter()
    next_round = state["round"] + 1
    weak = weak_tasks(state, ctx.settings.relevance_threshold, ctx.settings.min_research_rounds)
    runtime.stream_writer(
        event(
            "status",
            step="requery",
            round=next_round,
            message=f"Round {next_round}: new queries for {len(weak)} weak task(s)",
        )
    )
    proposals = judge_proposals(state)
    ran = {normalize_query(q) for q in state.get("queries_run", [])}
    hops = second_hop_queries(state["question"], state.get("sources", []))
    hops = [q for q in hops if normalize_query(q) not in ran]
    updated: list[TodoItem] = []
    for task, judgement in weak:
        own = [s for s in state.get("sources", []) if task.id in s.task_ids]
        bridge = bridge_query(state["question"], own) if next_round == 2 else None
        hop = hops.pop(0) if hops else None
        candidates = [hop, bridge, proposals.get(task.id)]
        query = choose_query(state["question"], task, judgement, next_round, candidates, ran)
        if query:
            ran.add(normalize_query(query))
            updated.append(task.model_copy(update={"query": query, "status": "pending"}))
    update: dict[str, Any] = {
        "tasks": updated,
        "active_task_ids": [t.id for t in updated],
        "timings": {"requery": time.perf_counter() - started},
    }
    if updated:
        update["round"] = next_round
    else:
        update["notices"] = [f"round {next_round}: no new query left to try; writing the report"]
    return update


def second_hop_queries(question: str, sources: Sequence[Source]) -> list[str]:
    """One query per bridge name the best evidence sentences mention (the film someone debuted
    in, the city where someone died), with the question's words its sentence lacks: the second
    hop of a multi-hop question, which the question's own words do not reach. Sentences about
    what the question names come first (see :func:`~deepresearch.answers.evidence.ranked_bridges`)."""
    terms, stop = key_terms(question), stopwords_for(question)
    queries = []
    pool, names = sentence_pool(sources), question_names(question)
    for name, seed in ranked_bridges(key_stems(question), pool, names=names):
        if only_function_words(name, stop):
            continue
        missing = [t for t in terms if not set(stems(t)) <= seed.all_terms]
        queries.append(_join(name, missing[:4]))
    return queries


def only_function_words(name: str, stop: frozenset[str]) -> bool:
    """Whether a capitalised "name" a source sentence opens with is only function words of the
    question's language: "Elle domine le port" names nothing to search for a French question."""
    return all(word in stop for word in words(name))


def weak_tasks(
    state: ResearchState, threshold: float, min_rounds: int = 1
) -> list[tuple[TodoItem, TaskJudgement | None]]:
    """Tasks below the relevance threshold, skipped or unjudged; every task when the sources read
    so far do not answer the question (relevant passages that answer nothing need another hop) or
    the run has done fewer than ``min_rounds`` (an answer found early is checked against the next
    hop). A task the person dropped at plan review is never researched again."""
    evaluations = state.get("evaluations", [])
    latest = {j.task_id: j for j in evaluations[-1].tasks} if evaluations else {}
    unanswered = bool(evaluations) and (not evaluations[-1].answered or evaluations[-1].round < min_rounds)
    weak = []
    for task in state["tasks"]:
        if task.skip_reason == DROPPED:
            continue
        judgement = latest.get(task.id)
        if unanswered or task.status == "skipped" or judgement is None or judgement.relevance < threshold:
            weak.append((task, judgement))
    return weak


def choose_query(
    question: str,
    task: TodoItem,
    judgement: TaskJudgement | None,
    round_number: int,
    proposals: Sequence[str | None],
    ran: set[str],
) -> str | None:
    """The first usable proposal, else the first template that never ran; None if none.

    Usable: on topic, no placeholder, not a fragment (see :func:`~.plan.is_fragment`)."""
    topic = term_stems(key_terms(f"{question} {task.query} {task.title}"))
    for candidate in [*proposals, *template_queries(question, task, judgement, round_number)]:
        query = " ".join((candidate or "").split())[:200]
        norm = normalize_query(query)
        on_topic = bool(topic & term_stems(key_terms(query)))
        usable = not has_placeholder(query) and not is_fragment(query)
        if norm and norm not in ran and on_topic and usable:
            return query
    return None


def bridge_query(question: str, sources: Sequence[Source]) -> str | None:
    """Multi-hop step: names the sources mention that the question does not (candidate bridges,
    e.g. the city where someone died), with the question's terms their source did not contain.
    BM25 ranks passages matching a bridge *and* the missing terms first."""
    question_terms, stop = key_terms(question), stopwords_for(question)
    question_stems = term_stems(question_terms)
    counts: Counter[str] = Counter()
    origin: dict[str, str] = {}
    for source in sources[:5]:
        text = f"{source.title}. {(source.content or source.snippet)[:800]}"
        if not question_stems & set(stems(text)):
            continue
        for found in question_entities(text):
            name = found.strip(" .,;:")
            fresh = not term_stems(key_terms(name)) & question_stems
            if len(name) <= 60 and fresh and not only_function_words(name, stop):
                counts[name] += 1
                origin.setdefault(name, text)
    if not counts:
        return None
    names = [name for name, _ in counts.most_common(3)]
    missing = missing_terms(question_terms, origin[names[0]])
    return _join(*names, missing[:5]) if missing else None


def template_queries(
    question: str, task: TodoItem, judgement: TaskJudgement | None, round_number: int
) -> list[str]:
    gaps = judgement.gaps if judgement else []
    base = task.queries[0] if task.queries else task.query
    title, intent = ("", question) if task.title in ANCHOR_TITLES else (task.title, task.intent)
    title = " ".join(key_terms(title))  # a title is a question now: its words, not "who was the …"
    if round_number == 2:
        return [
            _join(base, gaps[:3]),
            _join(title, key_terms(intent)[:4]),
            _join(base, key_terms(question)[:3]),
        ]
    unused = missing_terms(key_terms(question), " ".join(task.queries))
    return [
        _join(*gaps[:4]),
        _join(*unused[:5]),
        _join(title, gaps[:2], key_terms(question)[:2]),
        " ".join(key_terms(intent)[:6]),
    ]


def _join(*parts: str | Iterable[str]) -> str:
    words: list[str] = []
    for part in parts:
        words.extend([part] if isinstance(part, str) else list(part))
    return " ".join(w for w in words if w)


def judge_proposals(state: ResearchState) -> dict[int, str]:
    """The model judge's next queries from the latest evaluation (see :mod:`.judge`), by task id;
    empty when the judge is off (the embedded model: its queries were measured usable 1 time in
    10) or failed, and code's second-hop, bridge and template queries stand alone."""
    evaluations = state.get("evaluations", [])
    latest = evaluations[-1].tasks if evaluations else []
    return {j.task_id: j.next_query for j in latest if j.next_query}
