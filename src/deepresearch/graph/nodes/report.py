"""Writing the report (model draft, code rendering) and keeping it as a conclusion note."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.citations import Source, cited_ids
from deepresearch.events import event
from deepresearch.extractive import extractive_points
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.schemas import ReportDraft, ShortAnswer
from deepresearch.graph.state import ResearchState
from deepresearch.llm.structured import ask_structured
from deepresearch.notes_io import write_conclusion_note
from deepresearch.prompts.steps import answer_messages, report_messages
from deepresearch.report import ReportInput, render_report

MAX_REPORT_SOURCES = 8


def write_report(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, started = runtime.context, time.perf_counter()
    ctx.check_cancelled()
    runtime.stream_writer(event("status", step="report", message="Writing the report"))
    sources = state.get("sources", [])
    draft, error = (_model_draft if ctx.model_writes_prose else _answer_only)(state, ctx)
    fallbacks = [] if draft else [f"report: {error}; wrote the report from the evidence alone"]
    notices = [*state.get("fallbacks", []), *fallbacks, *state.get("notices", [])]
    report = render_report(
        ReportInput(
            question=state["question"],
            language=state["language"],
            tasks=state["tasks"],
            sources=sources,
            evaluations=state.get("evaluations", []),
            threshold=ctx.settings.relevance_threshold,
            draft=draft,
            notices=notices,
        )
    )
    update: dict[str, Any] = {"report": report, "fallbacks": fallbacks}
    if ctx.notes is not None:
        note = write_conclusion_note(ctx.notes, state, report)
        runtime.stream_writer(event("report_note", step="report", note_id=note.id, note_path=str(note.path)))
    runtime.stream_writer(
        event(
            "final_report", step="report", report=report.markdown, removed_citations=report.removed_citations
        )
    )
    update["timings"] = {"report": time.perf_counter() - started}
    return update


def _model_draft(state: ResearchState, ctx: ResearchContext) -> tuple[ReportDraft | None, str | None]:
    result = ask_structured(
        ctx.model,
        report_messages(
            state["question"],
            state["role"],
            state["language"],
            state["tasks"],
            report_sources(state),
            per_source=1500,
        ),
        ReportDraft,
        step="report",
        max_tokens=900,
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    return result.value, result.error


def _answer_only(state: ResearchState, ctx: ResearchContext) -> tuple[ReportDraft | None, str | None]:
    """Tiny models write only the short answer, from the best sentences; code writes the rest."""
    evidence = extractive_points(state.get("sources", []), state["question"], limit=6, max_chars=240)
    if not evidence:
        return None, "no evidence to answer from"
    result = ask_structured(
        ctx.model,
        answer_messages(state["question"], evidence, state["language"]),
        ShortAnswer,
        step="answer",
        max_tokens=32,
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    if result.value is None:
        return None, result.error
    return ReportDraft(answer=result.value.answer, background="", insights=[], risks=[]), None


def report_sources(state: ResearchState) -> list[Source]:
    """The sources the writer sees: those the task summaries cite first, then the rest by id."""
    sources = state.get("sources", [])
    cited = [int(n) for t in state["tasks"] for n in _ids(t.summary)]
    order = {sid: i for i, sid in enumerate(dict.fromkeys(cited))}
    ranked = sorted(sources, key=lambda s: (order.get(s.id, len(order)), s.id))
    return ranked[:MAX_REPORT_SOURCES]


def _ids(text: str) -> list[str]:
    return [str(i) for i in cited_ids(text)]
