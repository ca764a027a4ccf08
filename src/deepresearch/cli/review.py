"""``research --review-plan``: the plan shown in the terminal, accepted, trimmed or edited."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.markup import escape

from deepresearch.domain import TodoItem
from deepresearch.errors import ResearchCancelledError
from deepresearch.text import key_terms

HELP = (
    "Enter: research this plan · d N [N…]: drop tasks · q N TEXT: new query for task N · "
    "t N TEXT: new title · x: stop"
)


class TerminalReviewer:
    """A plan reviewer that prints to ``console`` and reads commands from ``read`` (stdin's lines;
    an empty line or the end of input accepts the plan as it stands)."""

    def __init__(self, console: Console, read: Callable[[], str] | None = None) -> None:
        self.console = console
        self.read = read or sys.stdin.readline

    def __call__(self, tasks: list[TodoItem]) -> Sequence[TodoItem]:
        plan = {t.id: t for t in tasks}
        while True:
            self._show(plan)
            line = self.read()
            if not line.strip():
                return list(plan.values())
            self._apply(plan, line.split(maxsplit=2))

    def _show(self, plan: dict[int, TodoItem]) -> None:
        self.console.print("[bold]Plan[/bold] (review before searching)")
        for task in plan.values():
            self.console.print(f"  {task.id}. {escape(task.title)} [dim]— query: {escape(task.query)}[/dim]")
        self.console.print(f"[dim]{HELP}[/dim]")

    def _apply(self, plan: dict[int, TodoItem], words: list[str]) -> None:
        command = words[0].lower()
        if command == "x":
            raise ResearchCancelledError("stopped at plan review")
        try:
            if command == "d":
                for number in " ".join(words[1:]).split():
                    plan.pop(int(number))
            elif command in ("q", "t") and len(words) == 3:
                field = "query" if command == "q" else "title"
                plan[int(words[1])] = plan[int(words[1])].model_copy(update={field: words[2].strip()})
            else:
                self.console.print(f"[yellow]not understood:[/yellow] {escape(' '.join(words))}")
        except (KeyError, ValueError):
            self.console.print(f"[yellow]no such task:[/yellow] {escape(' '.join(words[1:]))}")


VAGUE_TERMS = 3
"""A question with fewer content words than this is broad enough to ask what to focus on."""


def clarify(question: str, console: Console, read: Callable[[], str] | None = None) -> str:
    """``research --clarify``: for a broad question ("quantum computing"), ask once what the
    research should focus on and add the answer to the question ("quantum computing: error
    correction"; no word of ours, which the plan would search); Enter keeps it as it is."""
    if len(key_terms(question)) >= VAGUE_TERMS:
        return question
    console.print(
        "[bold]The question is broad.[/bold] What should the research focus on "
        "(an aspect, a period, a place)? Enter keeps it as it is."
    )
    focus = " ".join((read or sys.stdin.readline)().split())
    return f"{question.rstrip(' ?？.')}: {focus}" if focus else question
