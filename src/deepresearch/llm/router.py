"""Separate models per role: a cheap one for summaries, a strong one for the report.

Roles and the steps they serve: ``planner`` → role, plan, queries; ``summarizer`` → summarize;
``judge`` → judge; ``writer`` → report, answer; ``reader`` → reader, claim. A step of no role, or of a
role without its own model, goes to the default model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from deepresearch.llm.base import ChatModel, Completion, ModelCall
from deepresearch.llm.wrapper import ModelWrapper

ROLE_STEPS: Mapping[str, tuple[str, ...]] = {
    "planner": ("role", "plan", "queries"),
    "summarizer": ("summarize",),
    "judge": ("judge",),
    "writer": ("report", "answer"),
    "reader": ("reader", "claim"),
}
STEP_ROLES: Mapping[str, str] = {step: role for role, steps in ROLE_STEPS.items() for step in steps}


class StepRouter(ModelWrapper):
    """A ChatModel that hands each call to the model of its step's role (see :data:`ROLE_STEPS`).

    ``by_role`` maps role names to models; unknown role names are an error, so a typo in a
    setting does not silently route nothing. Completions name the model that wrote them.
    """

    def __init__(self, default: ChatModel, by_role: Mapping[str, ChatModel]) -> None:
        unknown = sorted(set(by_role) - set(ROLE_STEPS))
        if unknown:
            raise ValueError(f"unknown role(s) {unknown}: use {sorted(ROLE_STEPS)}")
        super().__init__(default)
        self.default = default
        self.by_role = dict(by_role)

    def model_for(self, step: str) -> ChatModel:
        role = STEP_ROLES.get(step)
        return self.by_role.get(role, self.default) if role else self.default

    def wrapped(self) -> list[ChatModel]:
        distinct = {id(model): model for model in (self.default, *self.by_role.values())}
        return list(distinct.values())

    def on_complete(self, call: ModelCall) -> Completion:
        model = self.model_for(call.step)
        completion = call.complete(model)
        return completion if completion.model else replace(completion, model=model.name)
