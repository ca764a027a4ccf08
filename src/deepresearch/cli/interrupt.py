"""Ctrl-C during ``deepresearch research``: the run stops at once and says where it stopped.

Python's own KeyboardInterrupt reached only the main thread: the step running on LangGraph's
threads (a model call, a page read) went on to its end, and the process exited 130 seconds later
with nothing said (measured 7-9 s with the embedded model). Here the first Ctrl-C sets the run's
cancel event, which abandons the model call in flight (:mod:`deepresearch.llm.interruptible`) and
stops the run at its next step; the command then prints one line — what was interrupted and
where the partial run folder is — and exits 130. Whatever still runs on other threads is not
waited for: after :data:`GRACE_SECONDS`, or at a second Ctrl-C, the process ends regardless.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import NoReturn

from rich.console import Console
from rich.markup import escape

from deepresearch.events import Event

GRACE_SECONDS = 0.8
"""How long the run may take to wind down after Ctrl-C before the process ends anyway."""
EXIT_CODE = 130
"""128 + SIGINT, what shells expect of a command stopped by Ctrl-C."""

_DOING = {
    "start": "starting",
    "setup": "starting",
    "plan": "planning",
    "role": "planning",
    "review": "reviewing the plan",
    "search": "searching and summarising",
    "research": "searching and summarising",
    "summarize": "searching and summarising",
    "judge": "judging the evidence",
    "requery": "writing the next queries",
    "report": "writing the report",
}


class Interruption:
    """Watches a run's events (what it is doing, its run folder) and owns its cancel event."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.cancel = threading.Event()
        self.doing = "starting"
        self.round: int | None = None
        self.run_dir: str | None = None
        self._said = threading.Lock()

    def watching(self, sink: Callable[[Event], None] | None) -> Callable[[Event], None]:
        """``sink`` with every event noted first."""

        def on_event(item: Event) -> None:
            self.note(item)
            if sink is not None:
                sink(item)

        return on_event

    def note(self, item: Event) -> None:
        run_dir = item.data.get("run_dir")
        if isinstance(run_dir, str) and run_dir:
            self.run_dir = run_dir
        round_number = item.data.get("round")
        if isinstance(round_number, int):
            self.round = round_number
        self.doing = _DOING.get(item.step or "", self.doing)

    def line(self) -> str:
        """ "research interrupted while judging the evidence (round 1); partial run folder: <path>"
        (the tasks run in parallel, so their search and summary are one thing being done)."""
        where = f" (round {self.round})" if self.round is not None else ""
        folder = f"partial run folder: {self.run_dir}" if self.run_dir else "no run folder was made yet"
        return f"research interrupted while {self.doing}{where}; {folder}"

    def exit(self) -> NoReturn:
        """Say :meth:`line` once and end the process now, without waiting for other threads."""
        if self._said.acquire(blocking=False):
            self.console.print(f"[yellow]{escape(self.line())}[/yellow]")
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_CODE)
        threading.Event().wait()  # another thread is saying it and ending the process
        raise AssertionError("unreachable")

    @contextmanager
    def installed(self) -> Iterator[None]:
        """Ctrl-C cancels the run while the block runs (the previous handler is put back after)."""
        previous = signal.signal(signal.SIGINT, self._on_sigint)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, previous)

    def _on_sigint(self, _signum: int, _frame: FrameType | None) -> None:
        if self.cancel.is_set():
            self.exit()
        self.cancel.set()
        timer = threading.Timer(GRACE_SECONDS, self.exit)
        timer.daemon = True
        timer.start()
