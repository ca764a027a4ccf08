"""``deepresearch settings``: every setting, its default and what it does (the docs page's source)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from deepresearch.cli.console import friendly_errors


def settings_command(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the docs page (docs/SETTINGS.md) as Markdown.")
    ] = False,
) -> None:
    """Print every setting in force as .env lines, each under what it does (secrets masked)."""
    from deepresearch.settings import Settings
    from deepresearch.settings_docs import settings_markdown, settings_text

    if markdown:
        sys.stdout.write(settings_markdown())
        return
    with friendly_errors():
        current = Settings.load()
    sys.stdout.write(settings_text(current))
