"""Writing the report (model draft, code rendering) and keeping it as a conclusion note."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.citations import Source
from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.schemas import ReportDraft
from deepresearch.graph.state import ResearchState
from deepresearch.llm.structured import ask_structured
from deepresearch.notes_io import write_conclusion_note
from deepresearch.prompts.steps import report_messages
from deepresearch.report import ReportInput, render_report

MAX_REPORT_SOURCES = 8


def write_report(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, started = runtime.context, time.perf_counter()
    ctx.check_cancelled()
    runtime.stream_writer(event("status", step="report", message="Writing the report"))
    sources = state.get("sources", [])
    result = ask_structured(
        ctx.model,
        report_messages(state["question"], state["role"], state["language"], state["tasks"],
                        report_sources(state), per_source=_per_source(ctx)),
        ReportDraft, step="report", max_tokens=700, strip_think=ctx.settings.strip_thinking_tokens,
    )
    fallbacks = [] if result.value else [f"report: {result.error}; wrote the report from the evidence alone"]
    notices = [*state.get("fallbacks", []), *fallbacks, *state.get("notices", [])]
    report = render_report(ReportInput(
        question=state["question"], language=state["language"], tasks=state["tasks"],
        sources=sources, evaluations=state.get("evaluations", []),
        threshold=ctx.settings.relevance_threshold, draft=result.value, notices=notices,
    ))
    update: dict[str, Any] = {"report": report, "fallbacks": fallbacks}
    if ctx.notes is not None:
        note = write_conclusion_note(ctx.notes, state, report)
        runtime.stream_writer(event("report_note", step="report", note_id=note.id, note_path=str(note.path)))
    runtime.stream_writer(event("final_report", step="report", report=report.markdown,
                                removed_citations=report.removed_citations))
    update["timings"] = {"report": time.perf_counter() - started}
    return update


def report_sources(state: ResearchState) -> list[Source]:
    """The sources the writer sees: those the task summaries cite first, then the rest by id."""
    sources = state.get("sources", [])
    cited = [int(n) for t in state["tasks"] for n in _ids(t.summary)]
    order = {sid: i for i, sid in enumerate(dict.fromkeys(cited))}
    ranked = sorted(sources, key=lambda s: (order.get(s.id, len(order)), s.id))
    return ranked[:MAX_REPORT_SOURCES]


def _ids(text: str) -> list[str]:
    from deepresearch.citations import cited_ids

    return [str(i) for i in cited_ids(text)]


def _per_source(ctx: ResearchContext) -> int:
    return 500 if ctx.settings.llm_provider == "embedded" else 1500
