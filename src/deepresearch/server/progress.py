"""A job's progress, derived from its stored events (a pure fold, so a restart loses nothing)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

FINISHED_TASK = frozenset({"completed", "skipped", "failed"})
PHASE_FLOOR = {"start": 0.02, "role": 0.05, "plan": 0.1, "judge": 0.8, "requery": 0.8, "report": 0.9}


@dataclass
class Progress:
    """``value`` never goes down while a job runs, even when a new round reopens tasks."""

    value: float = 0.0
    phase: str | None = None
    tasks: dict[int, dict[str, Any]] = field(default_factory=dict)
    sources: int = 0
    rounds: int = 0

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for task in self.tasks.values():
            counts[task["status"]] = counts.get(task["status"], 0) + 1
        return counts

    def apply(self, type_: str, body: dict[str, Any]) -> None:
        data = body.get("data", {})
        self.phase = body.get("step") or self.phase
        if type_ == "todo_list":
            self.tasks = {
                t["id"]: {"id": t["id"], "title": t["title"], "status": t["status"]} for t in data["tasks"]
            }
        elif type_ == "task_status" and body.get("task_id") in self.tasks:
            self.tasks[body["task_id"]]["status"] = data.get("status", "pending")
            self.rounds = max(self.rounds, int(data.get("round", 0)))
        elif type_ == "sources":
            self.sources = max(
                self.sources, int(data.get("total", 0)), self.sources + len(data.get("sources", []))
            )
        self.value = max(self.value, self._estimate())

    def _estimate(self) -> float:
        if self.phase == "research" and self.tasks:
            done = sum(1 for t in self.tasks.values() if t["status"] in FINISHED_TASK)
            return 0.1 + 0.7 * done / len(self.tasks)
        return PHASE_FLOOR.get(self.phase or "", 0.0)


def fold(events: Iterable[tuple[str, dict[str, Any]]]) -> Progress:
    """The progress after ``events`` (``(type, body)`` pairs in order)."""
    progress = Progress()
    for type_, body in events:
        progress.apply(type_, body)
    return progress
