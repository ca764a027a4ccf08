"""The result of a research run, as the Python API, the CLI's --json and the HTTP API return it."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, Field, field_validator, model_validator

from deepresearch.citations import Source, report_numbers
from deepresearch.domain import ResearchRole, RoundEvaluation, TodoItem


class NoteRef(BaseModel):
    id: str
    type: str
    path: str


class NumberedSource(Source):
    """A source as the result shows it, with the one number users see."""

    number: int = Field(
        0,
        description=(
            "The [k] the report, its exports, the web page and MCP give this source: the cited "
            "sources 1..N in the report's order, the others after them in the order they were read. "
            "`id` is the run's internal registry id and may differ."
        ),
    )


class ResearchResult(BaseModel):
    question: str
    report_markdown: str
    running_summary: str
    answer: str = ""
    answer_status: str = Field(
        "", description="grounded (a span of a cited sentence), sentence, unverified or abstained"
    )
    answer_source_id: int | None = Field(
        None, description="The registry id of the source holding the answer's sentence (internal)."
    )
    answer_source_number: int | None = Field(
        None, description="The number ([k], as sources[].number) of the source holding the answer's sentence."
    )
    role: ResearchRole | None = None
    todo_items: list[TodoItem] = Field(
        default_factory=list,
        description="The tasks; each summary's [k] is a source's number, as in the report.",
    )
    sources: list[NumberedSource] = Field(default_factory=list)
    cited_source_ids: list[int] = Field(
        default_factory=list,
        description="Registry ids in report order: the report's [k] is cited_source_ids[k-1].",
    )
    read_source_ids: list[int] = Field(
        default_factory=list,
        description=(
            "Registry ids of sources read, about the question, but not cited: the report lists their "
            "titles apart, in one line after the references."
        ),
    )
    off_topic_source_ids: list[int] = Field(
        default_factory=list,
        description="Registry ids of sources read, off the question: counted in the report, not listed.",
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

    @field_validator("sources", mode="before")
    @classmethod
    def _as_numbered(cls, value: Any) -> Any:
        """Registry sources (plain :class:`Source`) are taken as they are and numbered below."""
        if not isinstance(value, list):
            return value
        return [_unnumbered(item) for item in value]

    @model_validator(mode="after")
    def _numbered(self) -> Self:
        """Every source's ``number`` and the answer's, from the report's order (the same numbers
        whether the result was just built or read back from JSON)."""
        numbers = report_numbers(self.cited_source_ids, [s.id for s in self.sources])
        for source in self.sources:
            source.number = numbers[source.id]
        if self.answer_source_id is not None:
            self.answer_source_number = numbers.get(self.answer_source_id)
        return self

    @property
    def task_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for task in self.todo_items:
            counts[task.status] = counts.get(task.status, 0) + 1
        return counts


def _unnumbered(item: Any) -> Any:
    is_registry = isinstance(item, Source) and not isinstance(item, NumberedSource)
    return item.model_dump() if is_registry else item
