"""Where ``deepresearch research`` puts its report: which format, which file, what goes to stdout."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from deepresearch.errors import ConfigurationError
from deepresearch.export import FORMATS, ExportFormat, render, resolve_format
from deepresearch.result import ResearchResult


@dataclass(frozen=True)
class Output:
    """``fmt`` goes to ``out`` when given; stdout gets the streamed Markdown, or ``stdout_format``."""

    fmt: ExportFormat
    out: Path | None
    stdout_format: ExportFormat

    @property
    def streams_markdown(self) -> bool:
        return self.stdout_format.name == "md"

    def write(self, result: ResearchResult, console: Console, *, streamed: bool) -> None:
        if self.out is not None:
            self.out.write_bytes(render(result, self.fmt))
            console.print(f"[dim]{self.fmt.name} report written to {escape(str(self.out))}[/dim]")
        if self.streams_markdown and streamed:
            return
        text = render(result, self.stdout_format).decode("utf-8")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def plan_output(format_name: str | None, out: Path | None, as_json: bool) -> Output:
    """Checked before the research starts, so a bad name or a missing library fails at once."""
    fmt = resolve_format(format_name, out)
    if out is None and fmt.binary:
        raise ConfigurationError(
            f"{fmt.name} is a binary format: give a file, e.g. --out report{fmt.suffixes[0]}"
        )
    fmt.check()
    if as_json:
        return Output(fmt, out, FORMATS.get("json"))
    return Output(fmt, out, fmt if out is None else FORMATS.get("md"))
