"""The notes index stays complete when separate processes write to one workspace at once."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from deepresearch.notes import INDEX_FILE, NoteStore

PROCESSES = 15
NOTES_EACH = 6
WRITER = """
import sys, time
from pathlib import Path
from deepresearch.notes import NoteStore

workspace, start, name = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
store = NoteStore(workspace)
time.sleep(max(0.0, start - time.time()))
for number in range(int(sys.argv[4])):
    store.write(note_type="task_state", title=f"{name} note {number}", body="text", tags=["t"])
"""


def test_parallel_processes_lose_no_index_entry(tmp_path: Path) -> None:
    workspace = tmp_path / "notes"
    start = time.time() + 3.0
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(workspace), str(start), f"p{i}", str(NOTES_EACH)])
        for i in range(PROCESSES)
    ]
    assert [writer.wait(120) for writer in writers] == [0] * PROCESSES

    index = json.loads((workspace / INDEX_FILE).read_text(encoding="utf-8"))["notes"]
    files = sorted(path.stem for path in workspace.glob("*.md"))
    assert len(files) == PROCESSES * NOTES_EACH
    assert sorted(index) == files
    assert NoteStore(workspace).rebuild_index() == PROCESSES * NOTES_EACH
