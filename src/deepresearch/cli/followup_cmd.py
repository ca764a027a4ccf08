"""``deepresearch followup RUN "question"``: a follow-up answered from a finished run's sources."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from deepresearch.cli.console import friendly_errors


def followup_command(
    run: Annotated[str, typer.Argument(help="The run: its folder, or its id under RUNS_WORKSPACE.")],
    question: Annotated[str, typer.Argument(help="The follow-up question about the report.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the follow-up as JSON.")] = False,
) -> None:
    """Answer QUESTION from RUN's own sources, cited with the report's numbers, and keep it in the run
    folder (followups.md, followups.jsonl); says so when the sources read do not answer."""
    from deepresearch.followup import ask_followup, find_run
    from deepresearch.settings import Settings

    with friendly_errors():
        folder = find_run(run, Settings.load())
        followup = ask_followup(folder, question)
    if as_json:
        sys.stdout.write(json.dumps(followup.model_dump(), ensure_ascii=False) + "\n")
        return
    sys.stdout.write(followup.markdown() + "\n")
    if followup.answered:
        sys.stdout.write(f"\n[{followup.source_number}] {followup.source_title} — {followup.source_url}\n")
