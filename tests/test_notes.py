from __future__ import annotations

import json
import os
import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deepresearch.errors import DeepResearchError, NoteNotFoundError
from deepresearch.notes import INDEX_FILE, Note, NoteStore, task_tag
from deepresearch.notes.note import InvalidNoteError


class Clock:
    """A settable clock for deterministic timestamps."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _index(workspace: Path) -> dict[str, dict[str, object]]:
    document = json.loads((workspace / INDEX_FILE).read_text(encoding="utf-8"))
    notes: dict[str, dict[str, object]] = document["notes"]
    return notes


def _task_note(store: NoteStore, n: int, body: str = "overview") -> Note:
    return store.write(
        note_type="task_state",
        title=f"Task {n}",
        body=body,
        tags=["deep_research", task_tag(n)],
        extra={"task_id": n},
    )


def test_write_and_read_round_trip(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    note = store.write(
        note_type="task_state",
        title="任务 1: 背景梳理",
        body="# 任务 1\n\n- 来源概览\n",
        tags=["deep_research", "task_1"],
        extra={"task_id": 1, "query": "a: b", "score": 0.5, "done": False, "none": None},
    )
    assert re.fullmatch(r"note_\d{8}_\d{6}_[0-9a-f]{6}", note.id)
    assert note.path == tmp_path / f"{note.id}.md"
    assert note.created_at.tzinfo is not None
    assert note.created_at == note.updated_at
    assert store.read(note.id) == note
    assert dict(store.read(note.id).extra) == {
        "task_id": 1,
        "query": "a: b",
        "score": 0.5,
        "done": False,
        "none": None,
    }
    text = note.path.read_text(encoding="utf-8")
    assert text.startswith(f"---\nid: {note.id}\n")
    assert text.endswith("---\n\n# 任务 1\n\n- 来源概览\n")


@pytest.mark.parametrize(
    "title",
    [
        "a\n---\nb: c",
        "---",
        "...\n---",
        "line\u2028sep\x85nel\r\n",
        "'quoted' \"double\" # not a comment",
        "  padded  ",
        "null",
        "2024-01-01",
        "",
    ],
)
def test_hostile_titles_round_trip_and_keep_the_fence(tmp_path: Path, title: str) -> None:
    store = NoteStore(tmp_path)
    note = store.write(
        note_type="general",
        title=title,
        body="---\nb: c\n---\n",
        tags=["x\n---", "y"],
        extra={"k": title},
    )
    read = store.read(note.id)
    assert read.title == title
    assert read.body == "---\nb: c\n---\n"
    assert read.tags == ("x\n---", "y")
    assert read.extra["k"] == title
    lines = note.path.read_text(encoding="utf-8").split("\n")
    assert lines[0] == "---"
    fence = lines.index("---", 1)
    assert lines[1:fence][0].startswith("id: ")
    assert not any(line.startswith("b:") for line in lines[1:fence])


def test_body_round_trips_exactly(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    for body in ["", "\n", "\nleading newline", "crlf\r\nline\r", "no newline at end"]:
        note = store.write(note_type="general", title="t", body=body, tags=[])
        assert store.read(note.id).body == body


def test_update_keeps_created_at_and_file(tmp_path: Path) -> None:
    clock = Clock(datetime(2024, 5, 1, 12, 0, tzinfo=timezone.utc))
    store = NoteStore(tmp_path, clock=clock)
    first = _task_note(store, 1, body="v1")
    clock.advance(90)
    second = store.write(
        note_id=first.id,
        note_type="task_state",
        title="Task 1 (updated)",
        body="v1\nv2",
        tags=["deep_research", "task_1"],
    )
    assert second.id == first.id
    assert second.path == first.path
    assert second.created_at == first.created_at
    assert second.updated_at == first.updated_at + timedelta(seconds=90)
    assert dict(second.extra) == {"task_id": 1}
    assert store.read(first.id) == second
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.path.name, INDEX_FILE])
    entry = _index(tmp_path)[first.id]
    assert entry["title"] == "Task 1 (updated)"
    assert entry["updated_at"] == second.updated_at.isoformat(timespec="microseconds")


def test_update_with_extra_replaces_extra(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    note = _task_note(store, 2)
    updated = store.write(
        note_id=note.id, note_type="task_state", title="t", body="b", tags=[], extra={"x": 1}
    )
    assert dict(updated.extra) == {"x": 1}


def test_index_lists_every_note(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    notes = [_task_note(store, n) for n in (1, 2, 3)]
    report = store.write(
        note_type="conclusion", title="研究报告：x", body="r", tags=["deep_research", "report"]
    )
    index = _index(tmp_path)
    assert set(index) == {note.id for note in [*notes, report]}
    assert index[report.id] == {
        "title": "研究报告：x",
        "type": "conclusion",
        "tags": ["deep_research", "report"],
        "created_at": report.created_at.isoformat(timespec="microseconds"),
        "updated_at": report.updated_at.isoformat(timespec="microseconds"),
        "path": report.path.name,
    }


def test_list_filters_by_tag_and_type(tmp_path: Path) -> None:
    clock = Clock(datetime(2024, 5, 1, tzinfo=timezone.utc))
    store = NoteStore(tmp_path, clock=clock)
    task1 = _task_note(store, 1)
    clock.advance(1)
    task2 = _task_note(store, 2)
    clock.advance(1)
    report = store.write(note_type="conclusion", title="report", body="r", tags=["deep_research", "report"])
    assert store.list(tag="task_1") == [task1]
    assert store.list(tag="deep_research") == [report, task2, task1]
    assert store.list(note_type="task_state") == [task2, task1]
    assert store.list(tag="report", note_type="task_state") == []
    assert store.list(tag="missing") == []


def test_tags_are_cleaned(tmp_path: Path) -> None:
    note = NoteStore(tmp_path).write(note_type="general", title="t", body="", tags=[" a ", "", "b", "a"])
    assert note.tags == ("a", "b")


def test_search_ranks_by_matched_terms(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    both = store.write(note_type="conclusion", title="Solar power costs", body="battery storage", tags=[])
    one = store.write(note_type="general", title="Wind", body="Solar farms", tags=[])
    store.write(note_type="general", title="Cooking", body="pasta", tags=[])
    chinese = store.write(note_type="general", title="三花智控研究报告", body="热管理", tags=[])
    assert store.search("SOLAR battery") == [both, one]
    assert store.search("solar", limit=1) == [both]
    assert store.search("三花智控") == [chinese]
    assert store.search("the of") == []
    assert store.search("") == []
    assert store.search("solar", limit=0) == []


def test_read_missing_or_invalid_id(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    with pytest.raises(NoteNotFoundError):
        store.read("note_20240101_000000_abcdef")
    with pytest.raises(NoteNotFoundError):
        store.read("../etc/passwd")
    with pytest.raises(NoteNotFoundError):
        store.write(note_id="nope", note_type="general", title="t", body="", tags=[])
    assert not (tmp_path / "nope.md").exists()


def test_invalid_arguments_are_rejected(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    with pytest.raises(InvalidNoteError, match="note_type"):
        store.write(note_type="bogus", title="t", body="", tags=[])  # type: ignore[arg-type]
    with pytest.raises(InvalidNoteError, match="extra key"):
        store.write(note_type="general", title="t", body="", tags=[], extra={"title": "x"})
    with pytest.raises(InvalidNoteError, match="tags"):
        store.write(note_type="general", title="t", body="", tags="deep_research")
    assert list(tmp_path.iterdir()) == []


def test_corrupt_note_file_is_reported_and_skipped(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    good = _task_note(store, 1)
    bad = tmp_path / "note_20240101_000000_badbad.md"
    bad.write_text("no front matter here", encoding="utf-8")
    with pytest.raises(DeepResearchError):
        store.read(bad.stem)
    assert store.list() == [good]
    assert store.rebuild_index() == 1


def test_index_is_rebuilt_when_unreadable(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    first = _task_note(store, 1)
    (tmp_path / INDEX_FILE).write_text("{not json", encoding="utf-8")
    second = _task_note(store, 2)
    assert set(_index(tmp_path)) == {first.id, second.id}


def test_parallel_writes_from_threads_all_land_in_index(tmp_path: Path) -> None:
    barrier = threading.Barrier(8)
    written: list[Note] = []
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        store = NoteStore(tmp_path) if n % 2 else shared
        barrier.wait()
        try:
            for round_ in range(5):
                note = _task_note(store, n, body=f"round {round_}")
                written.append(note)
                store.write(
                    note_id=note.id,
                    note_type="task_state",
                    title=f"Task {n} updated",
                    body="done",
                    tags=["deep_research", task_tag(n)],
                )
        except BaseException as exc:  # recorded and asserted below
            errors.append(exc)
            raise

    shared = NoteStore(tmp_path)
    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    ids = {note.id for note in written}
    assert len(ids) == 40
    index = _index(tmp_path)
    assert set(index) == ids
    assert all(str(entry["title"]).endswith("updated") for entry in index.values())
    assert len(shared.list(tag="deep_research")) == 40


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    note = _task_note(store, 1)
    store.write(note_id=note.id, note_type="task_state", title="t", body="b", tags=[])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([note.path.name, INDEX_FILE])


def test_failed_write_leaves_no_temporary_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = NoteStore(tmp_path)
    note = _task_note(store, 1)

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(DeepResearchError, match="writable"):
        store.write(note_id=note.id, note_type="task_state", title="t", body="new", tags=[])
    monkeypatch.undo()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([note.path.name, INDEX_FILE])
    assert store.read(note.id) == note


def test_lone_surrogates_become_replacement_characters(tmp_path: Path) -> None:
    store = NoteStore(tmp_path)
    note = store.write(note_type="general", title="a\ud800", body="b\udfff", tags=["c\ud83d"])
    read = store.read(note.id)
    assert (read.title, read.body, read.tags) == ("a\ufffd", "b\ufffd", ("c\ufffd",))
    assert read == note


def test_workspace_is_created_on_first_write(tmp_path: Path) -> None:
    workspace = tmp_path / "data" / "notes"
    store = NoteStore(workspace)
    assert store.list() == []
    assert not workspace.exists()
    note = _task_note(store, 1)
    assert note.path.parent == workspace
