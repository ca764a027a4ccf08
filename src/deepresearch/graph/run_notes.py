"""What the research loop writes as notes: one ``task_state`` note per task, one ``conclusion``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepresearch.citations import code_span
from deepresearch.domain import ReportResult, TodoItem
from deepresearch.graph.state import ResearchState, TaskInput
from deepresearch.notes import DEEP_RESEARCH_TAG as TAG
from deepresearch.notes import REPORT_TAG, task_tag
from deepresearch.untrusted import markdown_literal as literal

if TYPE_CHECKING:
    from deepresearch.notes import Note, NoteStore


def write_task_note(store: NoteStore, inp: TaskInput, task: TodoItem) -> str:
    """Create or update the task's note; return its id. Titles, URLs, the question and the task's
    words are written as Markdown that does nothing (the summary already is: see
    :func:`~deepresearch.extractive.render_points` and the model prose cleaning)."""
    sources = "\n".join(
        f"- [{s.id}] {literal(s.title)} — {code_span(s.url)}" + (" (fallback)" if s.is_fallback else "")
        for s in inp["sources"]
    )
    queries = "; ".join(literal(q) for q in task.queries)
    body = (
        f"# Task {task.id}: {literal(task.title)}\n\n"
        f"## Overview\n\n- Question: {literal(inp['question'])}\n- Intent: {literal(task.intent)}\n"
        f"- Round: {inp['round']}\n- Queries: {queries}\n- Status: {task.status}\n\n"
        f"## Sources\n\n{sources or '- none'}\n\n## Summary\n\n{task.summary or '-'}\n"
    )
    note = store.write(
        note_type="task_state",
        title=f"Task {task.id}: {task.title}",
        body=body,
        tags=[TAG, task_tag(task.id)],
        note_id=task.note_id,
        extra={"task_id": task.id, "round": inp["round"], "status": task.status},
    )
    return note.id


def write_conclusion_note(store: NoteStore, state: ResearchState, report: ReportResult) -> Note:
    tags = [TAG, REPORT_TAG, *(task_tag(t.id) for t in state["tasks"])]
    return store.write(
        note_type="conclusion",
        title=f"Research report: {state['question'][:120]}",
        body=report.markdown,
        tags=tags,
        extra={"rounds": state.get("round", 1), "sources": len(state.get("sources", []))},
    )
