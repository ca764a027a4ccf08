"""What each structured model step must return. Values are checked and clamped by code after."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from deepresearch.roles import ROLE_TYPES
from deepresearch.text import truncate
from deepresearch.untrusted import model_prose


class RoleChoice(BaseModel):
    role: str = Field(json_schema_extra={"enum": list(ROLE_TYPES)})
    focus: str = ""


class PlannedTask(BaseModel):
    title: str
    intent: str
    query: str


MAX_PLANNED_TASKS = 5
"""The plan's 3 to 5 tasks, in the grammar only (a server that sends more keeps its plan; code
keeps the first tasks): measured, SmolLM2 repeats one task until the token
cap (400 tokens, 4.4 s on 2 cores) when the schema leaves the list open."""


class PlanOut(BaseModel):
    tasks: list[PlannedTask] = Field(min_length=1, json_schema_extra={"maxItems": MAX_PLANNED_TASKS})


class OpeningOut(BaseModel):
    """Role and plan in one answer; the role first, so a grammar decodes it before the tasks.
    Required in the schema; a parsed answer without a role keeps its tasks (role by keywords)."""

    model_config = ConfigDict(json_schema_extra={"required": ["role", "focus", "tasks"]})

    role: str = Field("", json_schema_extra={"enum": list(ROLE_TYPES)})
    focus: str = ""
    tasks: list[PlannedTask] = Field(min_length=1, json_schema_extra={"maxItems": MAX_PLANNED_TASKS})


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


INSIGHT_CHARS = 250
BACKGROUND_CHARS = 500
RISK_CHARS = 160
ANSWER_CHARS = 200


class Insight(BaseModel):
    text: str = Field(json_schema_extra={"maxLength": INSIGHT_CHARS})
    sources: list[int] = Field(json_schema_extra={"maxItems": 4})


# The bounds below reach the grammar, so a small model under it cannot run out of tokens before
# the JSON closes (measured: Qwen2.5-0.5B hit a 900-token cap mid-draft, every field lost); they
# are not validated: ReportDraft.cleaned() cuts what a server that ignores them sends.
class ReportDraft(BaseModel):
    """Every field is required so constrained decoding cannot settle for ``{}``."""

    answer: str = Field(json_schema_extra={"maxLength": ANSWER_CHARS})
    background: str = Field(json_schema_extra={"maxLength": BACKGROUND_CHARS})
    insights: list[Insight] = Field(json_schema_extra={"maxItems": 5})
    risks: list[str] = Field(
        json_schema_extra={"maxItems": 3, "items": {"type": "string", "maxLength": RISK_CHARS}}
    )

    def cleaned(self) -> ReportDraft:
        """The draft as it may be stored: model prose made safe (no links, images, URLs, prompt tags
        or typed reference lists) and cut to the bounds the grammar was given."""
        insights = [
            Insight(text=truncate(model_prose(i.text), INSIGHT_CHARS), sources=i.sources[:4])
            for i in self.insights[:5]
        ]
        risks = [truncate(model_prose(r), RISK_CHARS) for r in self.risks[:3]]
        return ReportDraft(
            answer=truncate(model_prose(self.answer), ANSWER_CHARS),
            background=truncate(model_prose(self.background), BACKGROUND_CHARS),
            insights=[i for i in insights if i.text],
            risks=[r for r in risks if r],
        )


class ShortAnswer(BaseModel):
    """``maxLength`` reaches the grammar, so a tiny model cannot ramble; code truncates for servers."""

    answer: str = Field(json_schema_extra={"maxLength": 60})
