"""Running research: ``research_stream()`` drives the graph; ``research()`` drains it.

One code path: the blocking API is the stream, consumed. Parts (model, search backend) can be
passed in — the test doubles in :mod:`deepresearch.llm.testing` and :mod:`deepresearch.search.testing`
plug in here — otherwise they are built from :class:`Settings`.
"""

from __future__ import annotations

import itertools
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from deepresearch.answers.learned import weights_notice
from deepresearch.citations import Source, renumber_citations, report_numbers
from deepresearch.domain import TodoItem
from deepresearch.errors import (
    DeepResearchError,
    InvalidQuestionError,
    ResearchCancelledError,
    error_code,
    error_from_code,
)
from deepresearch.events import Event, event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.state import ResearchState
from deepresearch.llm.base import ChatModel, ChatModelBase
from deepresearch.llm.interruptible import InterruptibleModel
from deepresearch.llm.metered import MeteredModel
from deepresearch.notes import NoteStore
from deepresearch.result import NoteRef, ResearchResult
from deepresearch.runs import RUN_FILE, RunFolder, RunStore
from deepresearch.search.base import SearchBackend
from deepresearch.search.registry import fetches_pages
from deepresearch.settings import Settings
from deepresearch.text import language_of

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.types import Command

    from deepresearch.durable import Durability
    from deepresearch.fetch.client import PageFetcher
    from deepresearch.graph.planning import Opening
    from deepresearch.graph.review import PlanReviewer

EventSink = Callable[[Event], None]
AWAITING_REVIEW = "awaiting_review"
"""The step of the ``status`` event a durable run stopped at plan review ends with (``tasks``: the
plan); it continues when resumed with a decision (:attr:`Durability.decision`)."""


def research_stream(
    question: str,
    *,
    settings: Settings | None = None,
    model: ChatModel | None = None,
    search: SearchBackend | None = None,
    cancel: threading.Event | None = None,
    durable: Durability | None = None,
    review_plan: PlanReviewer | None = None,
    **overrides: Any,
) -> Iterator[Event]:
    """Validate now (bad input raises here), then yield the run's events; the last is ``done``
    (its ``data["result"]`` is the :class:`ResearchResult`) or ``error``.

    Setting ``cancel`` stops the run at its next step with an ``error`` event (``cancelled: true``).
    ``durable`` checkpoints the run (see :mod:`deepresearch.durable`) or resumes a checkpointed one.
    ``review_plan`` gets the planned tasks before any search and returns the ones to research
    (see :mod:`deepresearch.graph.review`).
    """
    base = settings or Settings.load()
    resolved = base.with_overrides(**overrides) if overrides else base
    cleaned, notices = validate_question(question, resolved.max_question_chars)
    return _run(cleaned, resolved, model, search, notices, cancel, durable, review_plan)


def research(
    question: str,
    *,
    settings: Settings | None = None,
    model: ChatModel | None = None,
    search: SearchBackend | None = None,
    on_event: EventSink | None = None,
    review_plan: PlanReviewer | None = None,
    cancel: threading.Event | None = None,
    **overrides: Any,
) -> ResearchResult:
    """Run a whole research and return its result.

    A failed run raises the :class:`DeepResearchError` subclass its ``error`` event's ``code``
    names (``ConfigurationError``, ``ModelNotAvailableError``, ``ResearchCancelledError`` ...),
    with ``run_id`` set to its run folder's name. Setting ``cancel`` stops the run at its next
    step (a model call in flight is abandoned) with ``ResearchCancelledError``.
    """
    result: ResearchResult | None = None
    stream = research_stream(
        question,
        settings=settings,
        model=model,
        search=search,
        review_plan=review_plan,
        cancel=cancel,
        **overrides,
    )
    for item in stream:
        done = result_of(item, on_event)
        result = done if done is not None else result
    if result is None:
        raise DeepResearchError("the research stream ended without a result")
    return result


def result_of(item: Event, on_event: EventSink | None) -> ResearchResult | None:
    """One event of a research stream as :func:`research` and
    :func:`~deepresearch.aio.aresearch` read it: shown to ``on_event``, raised as its error
    (``error``), the run's result (``done``), else None."""
    if on_event is not None:
        on_event(item)
    if item.type == "error":
        raise raised(item.data)
    return ResearchResult.model_validate(item.data["result"]) if item.type == "done" else None


def raised(data: Mapping[str, Any]) -> DeepResearchError:
    """The exception an ``error`` event's data stands for (its ``code`` picks the class)."""
    run_dir = data.get("run_dir")
    run_id = Path(run_dir).name if run_dir else None
    return error_from_code(data.get("code"), data.get("message", "research failed"), run_id=run_id)


def validate_question(question: str, max_chars: int) -> tuple[str, list[str]]:
    if not isinstance(question, str) or not question.strip():
        raise InvalidQuestionError('the question is empty: ask something, e.g. deepresearch research "..."')
    cleaned = " ".join(question.split())
    if len(cleaned) > max_chars:
        raise InvalidQuestionError(
            f"the question is {len(cleaned):,} characters; the limit is {max_chars:,} (MAX_QUESTION_CHARS): "
            "ask a shorter question, or raise MAX_QUESTION_CHARS"
        )
    return cleaned, []


def _run(
    question: str,
    settings: Settings,
    model: ChatModel | None,
    search: SearchBackend | None,
    notices: list[str],
    cancel: threading.Event | None = None,
    durable: Durability | None = None,
    review_plan: PlanReviewer | None = None,
) -> Iterator[Event]:
    seq = itertools.count(1)
    run: RunFolder | None = None
    started = time.perf_counter()
    with ExitStack() as stack:
        try:
            run, removed = _open_run(question, settings, durable)
            if removed:
                notices.append(
                    f"removed {removed} run folder(s) older than "
                    f"{settings.research_run_retention_days} day(s)"
                )
            starting = event(
                "status", step="start", message="Starting research", question=question, run_dir=str(run.path)
            )
            yield Event.numbered(next(seq), starting)
            setup: list[str] = []
            context = _build_context(settings, model, search, stack, setup, cancel)
            context.plan_reviewer = review_plan
            for message in setup:
                yield Event.numbered(next(seq), event("status", step="setup", message=message))
            if durable is not None and durable.resume:
                resuming = event("status", step="resume", message="Resuming from the last checkpoint")
                yield Event.numbered(next(seq), resuming)
            else:
                context.opening = _send_opening(context, question)
            for ev in _drive(question, settings, context, notices, setup, seq, run, started, durable):
                run.append_jsonl("events.jsonl", ev.as_dict())
                yield ev
        except ResearchCancelledError as exc:
            yield _error(seq, run, exc, cancelled=True)
        except DeepResearchError as exc:
            yield _error(seq, run, exc)
        except Exception as exc:  # noqa: BLE001 - recorded in the run folder and the error event
            if run is not None:
                run.write_text("error.txt", traceback.format_exc())
            yield _error(seq, run, exc)


def _drive(
    question: str,
    settings: Settings,
    context: ResearchContext,
    notices: list[str],
    setup: list[str],
    seq: Iterator[int],
    run: RunFolder,
    started: float,
    durable: Durability | None = None,
) -> Iterator[Event]:
    first_event: float | None = None
    if context.opening is not None:
        from deepresearch.graph.planning import PLANNING

        first_event = time.perf_counter() - started
        yield Event.numbered(next(seq), event("status", step="plan", message=PLANNING))
    graph = _built_graph(settings, context, durable)
    inputs, config = _graph_inputs(question, settings, notices, durable)
    streamed = _Streamed(started, first_event)
    yield from _streamed(
        graph, _resumed(graph, config, durable) or inputs, config, context, durable, seq, streamed
    )
    state = streamed.state
    if durable is not None:
        snapshot = graph.get_state(config)
        if snapshot.interrupts:
            yield Event.numbered(next(seq), _awaiting(snapshot.interrupts[0].value))
            return
        state = dict(snapshot.values)
    wall = time.perf_counter() - started
    result = _result(state, context, run, wall, streamed.first_event, streamed.conclusion)
    result.notices = [*setup, *result.notices]
    _write_run(run, state, result)
    yield Event.numbered(next(seq), event("done", step="done", result=result))


def _built_graph(settings: Settings, context: ResearchContext, durable: Durability | None) -> Any:
    from deepresearch.graph.builder import build_graph

    graph = build_graph(checkpointer=durable.checkpointer if durable else None)
    if context.fetcher is not None and fetches_pages(settings.search_api):
        # Only now: trafilatura and LangGraph both import xml.sax, and importing them from two
        # threads at once can end in Python's import deadlock error.
        context.fetcher.preload()
    return graph


@dataclass
class _Streamed:
    """What the graph's stream left: its last state, when its first event came (seconds after
    ``started``), the report note."""

    started: float
    first_event: float | None
    state: dict[str, Any] = field(default_factory=dict)
    conclusion: NoteRef | None = None


def _streamed(
    graph: Any,
    given: Any,
    config: RunnableConfig,
    context: ResearchContext,
    durable: Durability | None,
    seq: Iterator[int],
    out: _Streamed,
) -> Iterator[Event]:
    """The graph's custom events, numbered; its values and first-event time are kept in ``out``."""
    parts = graph.stream(
        given,
        config=config,
        context=context,
        stream_mode=["custom", "values"],
        # "sync": a step starts only once the checkpoint it starts from is stored. LangGraph's
        # default ("async") stores it while the step runs, so after a kill -9 the step could run
        # again from an older checkpoint, under new task ids, and its events got new keys.
        durability="sync" if durable is not None else None,
    )
    for mode, chunk in cast("Iterator[tuple[str, Any]]", parts):
        if mode == "values":
            out.state = chunk
            continue
        out.first_event = out.first_event or time.perf_counter() - out.started
        if chunk["type"] == "report_note":
            data = chunk["data"]
            out.conclusion = NoteRef(id=data["note_id"], type="conclusion", path=data["note_path"])
        yield Event.numbered(next(seq), chunk)


def _graph_inputs(
    question: str, settings: Settings, notices: list[str], durable: Durability | None
) -> tuple[ResearchState | None, RunnableConfig]:
    """The graph's input (none when a durable run resumes) and its run configuration."""
    config: RunnableConfig = {
        "max_concurrency": settings.task_concurrency + 2,
        "recursion_limit": 20 + 8 * settings.max_web_research_loops,
        **(durable.config if durable else {}),
    }
    if durable is not None and durable.resume:
        return None, config
    inputs = ResearchState(
        question=question,
        language=language_of(question),
        notices=list(notices),
    )
    return inputs, config


def _resumed(graph: Any, config: RunnableConfig, durable: Durability | None) -> Command[Any] | None:
    """The input that answers a checkpoint waiting at plan review with the run's decision."""
    if durable is None or durable.decision is None or not durable.resume:
        return None
    if not graph.get_state(config).interrupts:
        return None
    from langgraph.types import Command

    return Command(resume=durable.decision)


def _awaiting(shown: Any) -> dict[str, Any]:
    tasks = shown.get("tasks", []) if isinstance(shown, Mapping) else []
    message = "Waiting for plan review: accept, drop or edit the tasks to continue"
    return event("status", step=AWAITING_REVIEW, message=message, tasks=tasks)


def _build_context(
    settings: Settings,
    model: ChatModel | None,
    search: SearchBackend | None,
    stack: ExitStack,
    setup: list[str],
    cancel: threading.Event | None = None,
) -> ResearchContext:
    if model is None:
        from deepresearch.llm.factory import build_model

        model = build_model(settings)
        if isinstance(model, ChatModelBase):
            stack.callback(model.close)
    if search is None:
        from deepresearch.search.factory import build_search

        search = build_search(settings, notice=setup.append)
        stack.callback(search.close)
    notes = NoteStore(settings.resolved_notes_workspace) if settings.enable_notes else None
    stale = weights_notice()
    if stale:
        setup.append(stale)
    cancelled = cancel if cancel is not None else threading.Event()
    meter = MeteredModel(model)
    return ResearchContext(
        settings=settings,
        model=InterruptibleModel(meter, cancelled),
        search=search,
        meter=meter,
        notes=notes,
        fetcher=_fetcher(settings, stack),
        cancelled=cancelled,
    )


def _send_opening(context: ResearchContext, question: str) -> Future[Opening]:
    """Send the run's first model call (role and plan) now, from a thread, so that it is answered
    while LangGraph is imported and the graph built (about 0.8 s on 2 cores); the plan node takes
    its result. Where code plans, the thread loads the reader's model instead
    (:meth:`~deepresearch.graph.context.ResearchContext.load_reader`)."""
    from deepresearch.graph.planning import open_question

    future: Future[Opening] = Future()
    strip, language = context.settings.strip_thinking_tokens, language_of(question)
    choose, plans = context.model_chooses_role, context.model_plans

    def send() -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            opening = open_question(
                context.model, question, language, strip_think=strip, choose_role=choose, model_plans=plans
            )
            context.load_reader()
            future.set_result(opening)
        except BaseException as exc:  # noqa: BLE001 - handed to the plan node, which raises it
            future.set_exception(exc)

    threading.Thread(target=send, name="deepresearch-opening", daemon=True).start()
    return future


def _fetcher(settings: Settings, stack: ExitStack) -> PageFetcher | None:
    """The run's one page fetcher (closed when the run ends), or None when pages are not read."""
    if not settings.fetch_full_page:
        return None
    from deepresearch.fetch.client import PageFetcher

    return stack.enter_context(PageFetcher.from_settings(settings))


def _open_run(question: str, settings: Settings, durable: Durability | None = None) -> tuple[RunFolder, int]:
    if durable is not None and durable.run_dir is not None and (durable.run_dir / RUN_FILE).is_file():
        (durable.run_dir / "error.json").unlink(missing_ok=True)
        return RunFolder(durable.run_dir), 0
    store = RunStore(settings.resolved_runs_workspace)
    removed = store.cleanup(settings.research_run_retention_days)
    return store.create(question), len(removed)


def _result(
    state: Mapping[str, Any],
    context: ResearchContext,
    run: RunFolder,
    wall: float,
    first: float | None,
    conclusion: NoteRef | None,
) -> ResearchResult:
    report = state["report"]
    sources: list[Source] = state.get("sources", [])
    tasks = _numbered_summaries(state.get("tasks", []), report_numbers(report.cited, [s.id for s in sources]))
    notes = [
        NoteRef(id=t.note_id, type="task_state", path=str(_note_path(context, t.note_id)))
        for t in tasks
        if t.note_id
    ]
    if conclusion:
        notes.append(conclusion)
    timings = {**state.get("timings", {}), "total": round(wall, 3)}
    if first is not None:
        timings["first_event"] = round(first, 3)
    return ResearchResult(
        question=state["question"],
        report_markdown=report.markdown,
        running_summary="\n\n".join(f"## {t.title}\n\n{t.summary}" for t in tasks if t.summary),
        answer=report.answer,
        answer_status=report.answer_status,
        answer_source_id=report.answer_source_id,
        role=state.get("role"),
        todo_items=tasks,
        sources=sources,
        cited_source_ids=report.cited,
        read_source_ids=report.read_not_cited,
        off_topic_source_ids=report.off_topic,
        removed_citations=report.removed_citations,
        rounds=state.get("round", 0),
        evaluations=state.get("evaluations", []),
        queries_run=state.get("queries_run", []),
        notices=state.get("notices", []),
        fallbacks=state.get("fallbacks", []),
        notes=notes,
        run_dir=str(run.path),
        timings=timings,
        usage=priced(context.meter.as_dict(), context.settings),
    )


def _numbered_summaries(tasks: list[TodoItem], numbers: dict[int, int]) -> list[TodoItem]:
    """``tasks`` with each summary's ``[id]`` written as the number the report gives that source
    (the run's state, notes and events keep registry ids)."""
    return [task.model_copy(update={"summary": renumber_citations(task.summary, numbers)}) for task in tasks]


def priced(usage: dict[str, Any], settings: Settings) -> dict[str, Any]:
    """``usage`` with its ``cost`` when LLM_PRICE_PROMPT_PER_MTOK and LLM_PRICE_COMPLETION_PER_MTOK
    are set (per million tokens, in the provider's currency)."""
    prompt_price, completion_price = (
        settings.llm_price_prompt_per_mtok,
        settings.llm_price_completion_per_mtok,
    )
    if prompt_price is None or completion_price is None:
        return usage
    tokens = (int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0)))
    return {**usage, "cost": round((tokens[0] * prompt_price + tokens[1] * completion_price) / 1e6, 6)}


def _note_path(context: ResearchContext, note_id: str) -> Any:
    return context.settings.resolved_notes_workspace / f"{note_id}.md"


def _write_run(run: RunFolder, state: Mapping[str, Any], result: ResearchResult) -> None:
    run.write_json("plan.json", {"role": result.role, "tasks": [t.model_dump() for t in result.todo_items]})
    run.write_json("sources.json", [s.model_dump() for s in result.sources])
    run.write_json("summaries.json", {t.id: t.summary for t in result.todo_items})
    run.write_json("judgements.json", [e.model_dump() for e in result.evaluations])
    run.write_text("report.md", result.report_markdown)
    run.write_json("timings.json", {"timings": result.timings, "usage": result.usage})
    run.write_json("result.json", result.model_dump(mode="json"))


def _error(
    seq: Iterator[int], run: RunFolder | None, exc: BaseException, *, cancelled: bool = False
) -> Event:
    message = str(exc) if isinstance(exc, DeepResearchError) else f"{type(exc).__name__}: {exc}"
    if run is not None:
        run.write_json("error.json", {"message": message, "cancelled": cancelled})
    payload = event(
        "error",
        step="error",
        message=message,
        code=error_code(exc),
        cancelled=cancelled,
        run_dir=str(run.path) if run else None,
    )
    return Event.numbered(next(seq), payload)
