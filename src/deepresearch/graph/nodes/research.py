"""Per-task research branches: search (and read), then summarise from the registry's sources."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.citations import Source
from deepresearch.domain import TodoItem
from deepresearch.errors import ModelError, ModelNotAvailableError, SearchError
from deepresearch.events import event
from deepresearch.extractive import extractive_points, render_points
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.run_notes import write_task_note
from deepresearch.graph.state import ResearchState, TaskInput
from deepresearch.llm.thinking import clean_model_text, filter_stream
from deepresearch.prompts.steps import summarize_messages
from deepresearch.report_markdown import stated_prose
from deepresearch.search.base import SearchHit
from deepresearch.search.domains import LEFT_OUT, DomainFilter
from deepresearch.search.pages import read_hits, search_outcome
from deepresearch.text import key_stems, strip_citations, truncate


def search_task(inp: TaskInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Search for one task, at most ``task_concurrency`` at once."""
    with runtime.context.task_slots:
        return _search_task(inp, runtime)


def summarize_task(inp: TaskInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    """Summarise one task's sources, at most ``task_concurrency`` at once."""
    with runtime.context.task_slots:
        return _summarize_task(inp, runtime)


def _search_task(inp: TaskInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, task, started = runtime.context, inp["task"], time.perf_counter()
    ctx.check_cancelled()
    runtime.stream_writer(_status(task, "in_progress", inp["round"], query=task.query))
    notices: list[str] = []
    try:
        outcome = search_outcome(ctx.search, task.query, limit=ctx.settings.max_results_per_query)
        hits, notices = outcome.hits, [f"task {task.id}: {message}" for message in outcome.messages()]
    except SearchError as exc:
        hits, notices = [], [f"task {task.id}: search failed for {task.query!r}: {exc}"]
    except Exception as exc:  # noqa: BLE001 - a third-party backend's bug must not kill the run
        failure = f"{type(exc).__name__}: {exc}"
        hits, notices = [], [f"task {task.id}: search backend error for {task.query!r}: {failure}"]
    hits, left_out = DomainFilter.from_settings(ctx.settings).apply(hits)
    notices += [f"task {task.id}: {notice}" for notice in left_out]
    if ctx.settings.fetch_full_page and ctx.fetcher is not None:
        hits, unread = read_hits(hits, ctx.fetcher)
        notices += [f"task {task.id}: {notice}" for notice in unread]
    limit = ctx.settings.max_tokens_per_source * 4
    sources = [_source(hit, task, inp["round"], limit) for hit in hits]
    task = task.model_copy(update={"queries": [*task.queries, task.query], "status": "in_progress"})
    if not sources and not task.source_ids:
        reason = notices[0] if notices else f"no results for query {task.query!r}"
        task = task.model_copy(update={"status": "skipped", "skip_reason": reason})
        runtime.stream_writer(_status(task, "skipped", inp["round"], reason=reason))
    return {
        "tasks": [task],
        "sources": sources,
        "queries_run": [task.query],
        "notices": notices,
        "timings": {"search": time.perf_counter() - started},
    }


def gather(state: ResearchState) -> dict[str, Any]:
    """Join point after a round's searches: the registry has assigned every new source an id.

    A run that has read nothing while its searches reported failures (an offline machine, a
    backend that is down) stops here with the search's own error, instead of writing a report
    from no evidence and calling the run completed."""
    if not state.get("sources") and state.get("notices"):
        failures = [n for n in state["notices"] if n.startswith("task ")]
        if failures and all(LEFT_OUT in n for n in failures):
            raise SearchError(
                "nothing was read: every hit the searches found is of a domain that "
                "SEARCH_INCLUDE_DOMAINS / SEARCH_EXCLUDE_DOMAINS leave out "
                f"(first: {failures[0]}). Widen the lists or ask another way"
            )
        if failures:
            raise SearchError(
                f"no search succeeded, so nothing was read ({len(failures)} failure(s)); first: "
                f"{failures[0]}. Check the network or the search settings (SEARCH_API=local "
                "searches your own index, offline)"
            )
    return {}


def _summarize_task(inp: TaskInput, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, task, sources, started = runtime.context, inp["task"], inp["sources"], time.perf_counter()
    ctx.check_cancelled()
    fresh = [s for s in sources if s.id not in task.source_ids]
    runtime.stream_writer(
        event(
            "sources",
            task_id=task.id,
            step="search",
            round=inp["round"],
            sources=[_public(s) for s in fresh],
            total=len(sources),
        )
    )
    summary, fallbacks = _summarize(inp, runtime)
    task = task.model_copy(
        update={"status": "completed", "summary": summary, "source_ids": [s.id for s in sources]}
    )
    if ctx.notes is not None:
        task = task.model_copy(update={"note_id": write_task_note(ctx.notes, inp, task)})
    runtime.stream_writer(_status(task, "completed", inp["round"], summary=summary))
    return {"tasks": [task], "fallbacks": fallbacks, "timings": {"summarize": time.perf_counter() - started}}


def _summarize(inp: TaskInput, runtime: Runtime[ResearchContext]) -> tuple[str, list[str]]:
    ctx = runtime.context
    if ctx.model_writes_prose:
        try:
            return _model_summary(inp, runtime)
        except ModelNotAvailableError:
            raise
        except ModelError as exc:
            note = f"task {inp['task'].id}: model summary failed ({exc}); used an extractive summary"
            return _extractive_summary(inp, runtime), [note]
    return _extractive_summary(inp, runtime), []


def _extractive_summary(inp: TaskInput, runtime: Runtime[ResearchContext]) -> str:
    task = inp["task"]
    query_text = f"{inp['question']} {task.title} {task.query}"
    lines = render_points(extractive_points(inp["sources"], query_text))
    for line in lines:
        runtime.stream_writer(event("task_summary_chunk", task_id=task.id, step="summarize", content=line))
    return "".join(lines).strip()


def _model_summary(inp: TaskInput, runtime: Runtime[ResearchContext]) -> tuple[str, list[str]]:
    """The model's summary, only the sentences its sources state (``stated_prose``), streamed once
    checked: a summary streamed as written showed facts no source states before they were cut."""
    ctx, task = runtime.context, inp["task"]
    quoted = inp["sources"][:6]
    messages = summarize_messages(inp["question"], task, quoted, inp["language"], per_source=700)
    stream = ctx.model.stream(messages, step="summarize", max_tokens=300)
    written = "".join(filter_stream(stream, strip_think=ctx.settings.strip_thinking_tokens))
    text = clean_model_text(written, strip_think=ctx.settings.strip_thinking_tokens)
    if not text:
        raise ModelError("the model returned an empty summary")
    given = " ".join(
        [inp["question"], task.title, task.intent, task.query, *(s.title for s in inp["sources"])]
    )
    if len(new_terms(text, given)) < MIN_NEW_TERMS:
        raise ModelError("the model's summary only restated the question and the source titles")
    checked, dropped = stated_prose(text, quoted)
    if not checked:
        raise ModelError("no sentence of the model's summary is stated by the sources it cites")
    for line in checked.splitlines(keepends=True):
        runtime.stream_writer(event("task_summary_chunk", task_id=task.id, step="summarize", content=line))
    left_out = (
        f"task {task.id}: left out {dropped} sentence(s) of the model's summary that no source read states"
    )
    return checked, [left_out] if dropped else []


MIN_NEW_TERMS = 3
"""A summary must say at least this many content words that the prompt's question, task and source
titles do not: measured, Qwen2.5-0.5B answered with the source list ("[1] Title [2] Title") or with
the question restated ("X was built in the city where Y died. The source number is [2].")."""


def new_terms(text: str, given: str) -> set[str]:
    """The content words (by stem) of ``text`` that ``given`` does not hold."""
    return set(key_stems(strip_citations(text))) - set(key_stems(given)) - _FILLER


_FILLER = frozenset(key_stems("source sources number according states passage text first second third"))


def _source(hit: SearchHit, task: TodoItem, round_number: int, limit: int) -> Source:
    return Source(
        url=hit.url,
        title=hit.title or hit.url,
        content=truncate(hit.content or hit.snippet, limit),
        snippet=hit.snippet,
        doc_id=hit.doc_id,
        backend=hit.backend,
        is_fallback=hit.is_fallback,
        round=round_number,
        task_ids=[task.id],
        queries=[task.query],
        authors=list(hit.authors),
        venue=hit.venue,
        year=hit.year,
    )


def _public(source: Source) -> dict[str, Any]:
    return source.model_dump(exclude={"content"})


def _status(task: TodoItem, status: str, round_number: int, **extra: Any) -> dict[str, Any]:
    return event(
        "task_status",
        task_id=task.id,
        step="research",
        status=status,
        title=task.title,
        round=round_number,
        **extra,
    )
