"""Rendering run events: progress lines on stderr, the report's text on stdout as it streams."""

from __future__ import annotations

import sys
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from deepresearch.events import Event

_STATUS_STYLE = {"completed": "green", "skipped": "yellow", "failed": "red", "in_progress": "cyan"}


class ProgressPrinter:
    def __init__(self, console: Console) -> None:
        self.console = console

    def __call__(self, item: Event) -> None:
        handler = getattr(self, f"_on_{item.type}", None)
        if handler is not None:
            handler(item)

    def _on_status(self, item: Event) -> None:
        self.console.print(f"[dim]•[/dim] {escape(str(item.data.get('message', '')))}")

    def _on_todo_list(self, item: Event) -> None:
        for task in item.data.get("tasks", []):
            self.console.print(
                f"  [bold]{task['id']}.[/bold] {escape(task['title'])} [dim]— {escape(task['query'])}[/dim]"
            )

    def _on_task_status(self, item: Event) -> None:
        status = str(item.data.get("status"))
        style = _STATUS_STYLE.get(status, "white")
        extra = f" [dim]({escape(str(item.data['reason']))})[/dim]" if item.data.get("reason") else ""
        query = f" [dim]query: {escape(str(item.data['query']))}[/dim]" if item.data.get("query") else ""
        self.console.print(
            f"  task {item.task_id} [{style}]{status}[/{style}] round {item.data.get('round')}{query}{extra}"
        )

    def _on_sources(self, item: Event) -> None:
        count = len(item.data.get("sources", []))
        self.console.print(f"  task {item.task_id}: {count} new source(s), {item.data.get('total')} in all")

    def _on_evaluation(self, item: Event) -> None:
        data = item.data
        verdict = "enough" if data.get("enough") else "thin"
        self.console.print(
            f"[dim]•[/dim] round {data['round']}: relevance {data['relevance']:.0f}% "
            f"({data['relevant']}/{data['total']} sources relevant) — {verdict}"
        )

    def _on_report_note(self, item: Event) -> None:
        self.console.print(f"[dim]• report note: {escape(str(item.data.get('note_path')))}[/dim]")

    def _on_error(self, item: Event) -> None:
        """Nothing: the run raises the same error next, and the command prints it once."""


class ReportPrinter:
    """Writes the report's ``report_chunk`` pieces to ``out`` as they arrive, then passes every
    event on to ``progress``; ``printed`` says whether any report text was written."""

    def __init__(self, progress: ProgressPrinter | None, out: TextIO | None = None) -> None:
        self.progress = progress
        self.out = out or sys.stdout
        self.printed = False

    def __call__(self, item: Event) -> None:
        if self.progress is not None:
            self.progress(item)
        if item.type == "report_chunk":
            self.out.write(str(item.data.get("content", "")))
            self.out.flush()
            self.printed = True
