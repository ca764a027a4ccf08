"""Writing the report (model draft, code rendering) and keeping it as a conclusion note.

The rendered report streams as ``report_chunk`` events (a paragraph each) before ``final_report``:
citations are resolved and references rendered by code, so text is streamed once it is rendered."""

from __future__ import annotations

import re
import time
from typing import Any

from langgraph.runtime import Runtime

from deepresearch.answers.choose import model_chooser
from deepresearch.answers.dense import Dense
from deepresearch.answers.ground import Chooser, GroundedAnswer, check_answer, ground_answer
from deepresearch.answers.hops import split_hops
from deepresearch.answers.learned import AnswerWeights
from deepresearch.chained import through_bridge, through_claim
from deepresearch.citations import Source, cited_ids
from deepresearch.events import event
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.run_notes import write_conclusion_note
from deepresearch.graph.state import ResearchState
from deepresearch.llm.structured import ask_structured
from deepresearch.model_outputs import ReportDraft
from deepresearch.prompts.steps import report_messages
from deepresearch.report_markdown import ReportInput, render_report

MAX_REPORT_SOURCES = 8


def write_report(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict[str, Any]:
    ctx, started = runtime.context, time.perf_counter()
    ctx.check_cancelled()
    runtime.stream_writer(event("status", step="report", message="Writing the report"))
    sources = state.get("sources", [])
    draft, error, fallbacks = None, None, []
    if ctx.model_writes_prose:
        draft, error = _model_draft(state, ctx)
        fallbacks = [] if draft else [f"report: {error}; wrote the report from the evidence alone"]
        written = draft.answer if draft else ""
        answer = _checked_answer(state["question"], written, sources, ctx.answer_weights, ctx.answer_dense)
    else:
        answer = _grounded(state["question"], sources, ctx)
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
            answer=answer,
            report_type=ctx.settings.report_type,
        )
    )
    update: dict[str, Any] = {"report": report, "fallbacks": fallbacks}
    if ctx.notes is not None:
        note = write_conclusion_note(ctx.notes, state, report)
        runtime.stream_writer(event("report_note", step="report", note_id=note.id, note_path=str(note.path)))
    for chunk in report_chunks(report.markdown):
        runtime.stream_writer(event("report_chunk", step="report", content=chunk))
    runtime.stream_writer(
        event(
            "final_report", step="report", report=report.markdown, removed_citations=report.removed_citations
        )
    )
    update["timings"] = {"report": time.perf_counter() - started}
    return update


def _grounded(question: str, sources: list[Source], ctx: ResearchContext) -> GroundedAnswer:
    """Code's answer line with the reader and its judge, and where it abstains on a two-hop
    question, the same step on the hop asked of the bridge a sentence read names
    (:func:`~deepresearch.chained.through_bridge`); on an open yes/no question, the same step on
    the open question it checks (:func:`~deepresearch.chained.through_claim`). The model's pick
    among code's candidates weighs the question asked and its bridge's own one-hop question
    ("What is the country of Eskerby?") only: a hop built from a bridge it read rests on that
    bridge, which the pick does not see (on hard dev it stated three wrong hops)."""
    hops = split_hops(question)
    weighed = {question} | ({hops.bridge} if hops is not None else set())

    def ask(asked: str) -> GroundedAnswer:
        return ground_answer(
            asked,
            sources,
            chooser=_chooser(ctx),
            weights=ctx.answer_weights,
            reader=ctx.reader,
            dense=ctx.answer_dense,
            judge=ctx.answer_judge,
            yes_no=ctx.answer_yes_no,
            pick=ctx.answer_pick if asked in weighed else None,
        )

    answer = through_bridge(question, sources, ask(question), ask)
    return through_claim(question, sources, answer, ask, ctx.answer_claims)


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
        max_tokens=1024,
        strip_think=ctx.settings.strip_thinking_tokens,
    )
    return (result.value.cleaned() if result.value else None), result.error


def _checked_answer(
    question: str,
    written: str,
    sources: list[Source],
    weights: AnswerWeights | None = None,
    dense: Dense | None = None,
) -> GroundedAnswer:
    """The model's answer where a sentence read states it; else code's grounded answer, when code
    finds one (measured on a real server model: Qwen2.5-0.5B wrote an unverified '1851' where a cited
    sentence said 1410); else the model's, marked unverified."""
    checked = check_answer(question, written, sources, weights, dense)
    if checked.status != "unverified":
        return checked
    grounded = ground_answer(question, sources, weights=weights, dense=dense)
    return grounded if grounded.status != "abstained" else checked


def report_chunks(markdown: str) -> list[str]:
    """The report's text in the pieces it is streamed in (``report_chunk`` events): a paragraph
    each, blank lines kept, so that the pieces joined are the report exactly."""
    return [piece for piece in re.split(r"(?<=\n\n)", markdown) if piece]


def _chooser(ctx: ResearchContext) -> Chooser | None:
    """The model chooses among code's candidates only where that measured better (see
    ``ANSWER_CHOOSER`` and docs/BENCHMARKS.md)."""
    if ctx.settings.answer_chooser != "model":
        return None
    return model_chooser(ctx.model, strip_think=ctx.settings.strip_thinking_tokens)


def report_sources(state: ResearchState) -> list[Source]:
    """The sources the writer sees: those the task summaries cite first, then the rest by id."""
    sources = state.get("sources", [])
    cited = [int(n) for t in state["tasks"] for n in _ids(t.summary)]
    order = {sid: i for i, sid in enumerate(dict.fromkeys(cited))}
    ranked = sorted(sources, key=lambda s: (order.get(s.id, len(order)), s.id))
    return ranked[:MAX_REPORT_SOURCES]


def _ids(text: str) -> list[str]:
    return [str(i) for i in cited_ids(text)]
