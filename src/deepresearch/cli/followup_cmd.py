"""``deepresearch followup RUN "question"``: a follow-up answered from a finished run's sources."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from deepresearch.cli.console import friendly_errors

if TYPE_CHECKING:
    from deepresearch.citations import Source
    from deepresearch.followup import Researcher
    from deepresearch.settings import Settings


def followup_command(
    run: Annotated[str, typer.Argument(help="The run: its folder, or its id under RUNS_WORKSPACE.")],
    question: Annotated[str, typer.Argument(help="The follow-up question about the report.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the follow-up as JSON.")] = False,
    research: Annotated[
        bool,
        typer.Option(
            "--research/--no-research",
            help="When the run's sources do not answer, research a new round (its sources numbered on).",
        ),
    ] = True,
) -> None:
    """Answer QUESTION from RUN's own sources, cited with the report's numbers, and keep it in the run
    folder (followups.md, followups.jsonl); when they do not answer, research it as a new round whose
    new sources are numbered after the report's (report.md grows), or with --no-research say so."""
    from deepresearch.answers.dense import dense_for
    from deepresearch.followup import ask_followup, find_run
    from deepresearch.settings import Settings

    with friendly_errors():
        settings = Settings.load()
        folder = find_run(run, settings)
        rounds = _researcher(settings) if research else None
        followup = ask_followup(folder, question, rounds, dense_for(settings))
    if as_json:
        sys.stdout.write(json.dumps(followup.model_dump(), ensure_ascii=False) + "\n")
        return
    sys.stdout.write(followup.markdown() + "\n")
    if followup.answered:
        sys.stdout.write(f"\n[{followup.source_number}] {followup.source_title} — {followup.source_url}\n")


def _researcher(settings: Settings) -> Researcher:
    """A new research round on the follow-up, with the settings in force, its progress on stderr."""
    from deepresearch.agent import research

    def researched(question: str) -> list[Source]:
        sys.stderr.write(f"The run's sources do not answer; researching: {question}\n")
        return list(research(question, settings=settings).sources)

    return researched
