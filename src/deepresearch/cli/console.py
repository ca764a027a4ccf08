"""Where every command writes its progress and errors (stderr), and how it reports the project's
errors: one red line and an exit code. Each ``*_cmd`` module imports this, not :mod:`.main`,
which imports them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from deepresearch.errors import ConfigurationError, DeepResearchError, InvalidQuestionError

err = Console(stderr=True, soft_wrap=True)


@contextmanager
def friendly_errors() -> Iterator[None]:
    """Turn our errors into one red line and an exit code (2: bad input or setting, 1: failure).
    The message prints as written: its fix hints hold brackets (``'deepresearch-offline[pdf]'``)
    that rich would read as markup and drop."""
    try:
        yield
    except DeepResearchError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        code = 2 if isinstance(exc, InvalidQuestionError | ConfigurationError) else 1
        raise typer.Exit(code) from None
