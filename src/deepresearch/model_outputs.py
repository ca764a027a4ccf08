"""What each structured model step must return. Values are checked and clamped by code after."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.prompts.roles import ROLE_TYPES


class RoleChoice(BaseModel):
    role: str = Field(json_schema_extra={"enum": list(ROLE_TYPES)})
    focus: str = ""


class PlannedTask(BaseModel):
    title: str
    intent: str
    query: str


class PlanOut(BaseModel):
    tasks: list[PlannedTask] = Field(min_length=1)


class OpeningOut(BaseModel):
    """Role and plan in one answer; the role first, so a grammar decodes it before the tasks.
    Required in the schema; a parsed answer without a role keeps its tasks (role by keywords)."""

    model_config = ConfigDict(json_schema_extra={"required": ["role", "focus", "tasks"]})

    role: str = Field("", json_schema_extra={"enum": list(ROLE_TYPES)})
    focus: str = ""
    tasks: list[PlannedTask] = Field(min_length=1)


class NewQuery(BaseModel):
    task_id: int
    query: str


class QueriesOut(BaseModel):
    queries: list[NewQuery] = Field(min_length=1)


class ModelJudgement(BaseModel):
    """``next_query`` is the judge's new search for a task whose evidence is thin (empty when it is
    enough): the next round's query comes with the judgement, not from another call."""

    task_id: int
    relevance: float
    explanation: str = ""
    gaps: list[str] = Field(default_factory=list)
    next_query: str = ""


class JudgeOut(BaseModel):
    """Lists are non-empty so a grammar cannot settle for ``{"tasks": []}`` (measured: it does)."""

    tasks: list[ModelJudgement] = Field(min_length=1)


class Insight(BaseModel):
    text: str
    sources: list[int]


class ReportDraft(BaseModel):
    """Every field is required so constrained decoding cannot settle for ``{}``."""

    answer: str
    background: str
    insights: list[Insight]
    risks: list[str]


class ShortAnswer(BaseModel):
    """``maxLength`` reaches the grammar, so a tiny model cannot ramble; code truncates for servers."""

    answer: str = Field(json_schema_extra={"maxLength": 60})
