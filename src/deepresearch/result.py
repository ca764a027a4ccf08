"""The result of a research run, as the Python API, the CLI's --json and the HTTP API return it."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from deepresearch.citations import Source
from deepresearch.domain import ResearchRole, RoundEvaluation, TodoItem


class NoteRef(BaseModel):
    id: str
    type: str
    path: str


class ResearchResult(BaseModel):
    question: str
    report_markdown: str
    running_summary: str
    answer: str = ""
    answer_status: str = Field(
        "", description="grounded (a span of a cited sentence), sentence, unverified or abstained"
    )
    answer_source_id: int | None = Field(None, description="The source holding the answer's sentence.")
    role: ResearchRole | None = None
    todo_items: list[TodoItem] = Field(default_factory=list)
    sources: list[Source] = Field(default_factory=list)
    cited_source_ids: list[int] = Field(
        default_factory=list,
        description="Source ids in report order: the report's [k] is cited_source_ids[k-1].",
    )
    removed_citations: int = 0
    rounds: int = 0
    evaluations: list[RoundEvaluation] = Field(default_factory=list)
    queries_run: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    fallbacks: list[str] = Field(default_factory=list)
    notes: list[NoteRef] = Field(default_factory=list)
    run_dir: str | None = None
    timings: dict[str, float] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)

    @property
    def task_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for task in self.todo_items:
            counts[task.status] = counts.get(task.status, 0) + 1
        return counts
