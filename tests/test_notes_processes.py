"""The notes index stays complete when separate processes write to one workspace at once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from deepresearch.notes import INDEX_FILE, NoteStore

PROCESSES = 15
NOTES_EACH = 6
WRITER = """
import sys
from pathlib import Path
from deepresearch.notes import NoteStore

workspace, name = Path(sys.argv[1]), sys.argv[2]
store = NoteStore(workspace)
print("ready", flush=True)
sys.stdin.readline()
for number in range(int(sys.argv[3])):
    store.write(note_type="task_state", title=f"{name} note {number}", body="text", tags=["t"])
"""


def test_parallel_processes_lose_no_index_entry(tmp_path: Path) -> None:
    """Every writer is started and ready before any writes (a barrier over their pipes), so their
    writes meet however slowly the processes start."""
    workspace = tmp_path / "notes"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(workspace), f"p{i}", str(NOTES_EACH)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for i in range(PROCESSES)
    ]
    pipes = [(writer.stdin, writer.stdout) for writer in writers]
    assert [stdout.readline() for _, stdout in pipes if stdout] == [b"ready\n"] * PROCESSES
    for stdin, _ in pipes:
        if stdin:
            stdin.write(b"go\n")
            stdin.close()
    assert [writer.wait(120) for writer in writers] == [0] * PROCESSES
    for _, stdout in pipes:
        if stdout:
            stdout.close()

    index = json.loads((workspace / INDEX_FILE).read_text(encoding="utf-8"))["notes"]
    files = sorted(path.stem for path in workspace.glob("*.md"))
    assert len(files) == PROCESSES * NOTES_EACH
    assert sorted(index) == files
    assert NoteStore(workspace).rebuild_index() == PROCESSES * NOTES_EACH
