"""What the research loop writes as notes: one ``task_state`` note per task, one ``conclusion``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepresearch.domain import ReportResult, TodoItem
from deepresearch.graph.state import ResearchState, TaskInput
from deepresearch.notes import DEEP_RESEARCH_TAG as TAG
from deepresearch.notes import REPORT_TAG, task_tag

if TYPE_CHECKING:
    from deepresearch.notes import Note, NoteStore


def write_task_note(store: NoteStore, inp: TaskInput, task: TodoItem) -> str:
    """Create or update the task's note; return its id."""
    sources = "\n".join(
        f"- [{s.id}] {s.title} — {s.url}" + (" (fallback)" if s.is_fallback else "") for s in inp["sources"]
    )
    body = (
        f"# Task {task.id}: {task.title}\n\n"
        f"## Overview\n\n- Question: {inp['question']}\n- Intent: {task.intent}\n"
        f"- Round: {inp['round']}\n- Queries: {'; '.join(task.queries)}\n- Status: {task.status}\n\n"
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
