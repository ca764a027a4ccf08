from __future__ import annotations

import json
import os
import re
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from deepresearch.errors import DeepResearchError, StorageFullError
from deepresearch.notes import NoteStore
from deepresearch.runs import RUN_FILE, RunFolder, RunStore, slugify

NOW = datetime(2024, 6, 10, 12, 0, tzinfo=timezone.utc)


def _tree(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


def test_create_names_folder_and_writes_run_json(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "runs")
    run = store.create("What is LangGraph's Send API?", now=NOW)
    assert run.path.parent == tmp_path / "runs"
    assert run.path.is_dir()
    assert run.run_id == run.path.name
    assert re.fullmatch(r"20240610-120000-what-is-langgraph-s-send-api-[0-9a-f]{4}", run.run_id)
    meta = json.loads((run.path / RUN_FILE).read_text(encoding="utf-8"))
    assert meta == {
        "run_id": run.run_id,
        "question": "What is LangGraph's Send API?",
        "created_at": "2024-06-10T12:00:00+00:00",
    }


def test_slug_is_ascii_and_bounded() -> None:
    assert slugify("Crème brûlée: history & recipes!") == "creme-brulee-history-recipes"
    assert slugify("三花智控") == ""
    long = slugify("word " * 30)
    assert len(long) <= 40
    assert not long.endswith("-")


def test_non_ascii_question_gets_timestamp_only_name(tmp_path: Path) -> None:
    run = RunStore(tmp_path).create("三花智控深度研究", now=NOW)
    assert re.fullmatch(r"20240610-120000-[0-9a-f]{4}", run.run_id)
    assert json.loads((run.path / RUN_FILE).read_text(encoding="utf-8"))["question"] == ("三花智控深度研究")


def test_same_second_same_question_never_collide(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    runs = [store.create("same question", now=NOW) for _ in range(30)]
    assert len({run.path for run in runs}) == 30


def test_get_returns_existing_run(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    run = store.create("q", now=NOW)
    assert store.get(run.run_id).path == run.path
    with pytest.raises(DeepResearchError):
        store.get("20240101-000000-nope-abcd")
    with pytest.raises(DeepResearchError):
        store.get("../etc")


def test_write_json_text_and_jsonl(tmp_path: Path) -> None:
    run = RunStore(tmp_path).create("q", now=NOW)
    json_path = run.write_json("tasks/task_1.json", {"title": "背景", "when": NOW, "n": 1})
    assert json_path == run.path / "tasks" / "task_1.json"
    text = json_path.read_text(encoding="utf-8")
    assert "背景" in text
    assert json.loads(text) == {"title": "背景", "when": str(NOW), "n": 1}
    assert text.startswith('{\n  "title"')

    report = run.write_text("report.md", "# 报告\r\nline\n")
    with report.open(encoding="utf-8", newline="") as handle:
        assert handle.read() == "# 报告\r\nline\n"

    run.append_jsonl("events.jsonl", {"type": "status", "message": "a\nb"})
    run.append_jsonl("events.jsonl", {"type": "done"})
    lines = (run.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"type": "status", "message": "a\nb"},
        {"type": "done"},
    ]


def test_lone_surrogates_are_written_as_json_escapes(tmp_path: Path) -> None:
    run = RunStore(tmp_path).create("q", now=NOW)
    run.write_json("a.json", {"text": "x\ud800"})
    run.append_jsonl("e.jsonl", {"text": "y\udfff"})
    assert json.loads((run.path / "a.json").read_text(encoding="utf-8")) == {"text": "x\ud800"}
    assert json.loads((run.path / "e.jsonl").read_text(encoding="utf-8")) == {"text": "y\udfff"}


def test_parallel_jsonl_appends_keep_whole_lines(tmp_path: Path) -> None:
    run = RunStore(tmp_path).create("q", now=NOW)

    def worker(n: int) -> None:
        for i in range(50):
            run.append_jsonl("events.jsonl", {"task": n, "i": i, "pad": "x" * 5000})

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = (run.path / "events.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    assert sorted((r["task"], r["i"]) for r in records) == [(n, i) for n in range(8) for i in range(50)]


@pytest.mark.parametrize("name", ["", "/etc/passwd", "../escape.json", "a/../../b", "a\\b"])
def test_names_outside_the_run_are_rejected(tmp_path: Path, name: str) -> None:
    run = RunStore(tmp_path / "runs").create("q", now=NOW)
    with pytest.raises(ValueError):
        run.write_text(name, "x")


def test_symlinked_subfolder_cannot_escape(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    run = RunStore(tmp_path / "runs").create("q", now=NOW)
    (run.path / "link").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError):
        run.write_text("link/file.txt", "x")
    assert list(outside.iterdir()) == []


def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    run = RunStore(tmp_path).create("q", now=NOW)
    run.write_json("a.json", [1])
    run.write_json("a.json", [2])
    run.write_text("b.md", "b")
    assert sorted(p.name for p in run.path.iterdir()) == sorted([RUN_FILE, "a.json", "b.md"])


def test_failed_write_removes_temporary_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = RunStore(tmp_path).create("q", now=NOW)

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(StorageFullError, match="free space on that disk"):
        run.write_text("b.md", "b")
    monkeypatch.undo()
    assert [p.name for p in run.path.iterdir()] == [RUN_FILE]


def test_cleanup_deletes_only_expired_run_folders(tmp_path: Path) -> None:
    workspace = tmp_path / "runs"
    store = RunStore(workspace)
    old = store.create("old question", now=NOW - timedelta(days=8))
    old.write_json("tasks/task_1.json", {"x": 1})
    edge = store.create("edge", now=NOW - timedelta(days=6, hours=23))
    new = store.create("new question", now=NOW)

    plain_dir = workspace / "20240101-000000-not-a-run-abcd"
    plain_dir.mkdir()
    (plain_dir / "data.txt").write_text("keep", encoding="utf-8")
    other_dir = workspace / "my-stuff"
    other_dir.mkdir()
    (other_dir / RUN_FILE).write_text('{"created_at": "2000-01-01T00:00:00+00:00"}')
    stray_file = workspace / "20240101-000000-file-abcd"
    stray_file.write_text("x", encoding="utf-8")

    deleted = store.cleanup(7, now=NOW)
    assert deleted == [old.path]
    assert not old.path.exists()
    assert edge.path.is_dir() and new.path.is_dir()
    assert plain_dir.is_dir() and other_dir.is_dir() and stray_file.is_file()


def test_cleanup_falls_back_to_folder_mtime(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    run = store.create("q", now=NOW)
    (run.path / RUN_FILE).write_text("{broken", encoding="utf-8")
    old_time = (NOW - timedelta(days=30)).timestamp()
    os.utime(run.path, (old_time, old_time))
    assert store.cleanup(7, now=NOW) == [run.path]


def test_cleanup_keeps_all_when_retention_is_zero_or_negative(tmp_path: Path) -> None:
    store = RunStore(tmp_path)
    run = store.create("q", now=NOW - timedelta(days=365))
    assert store.cleanup(0, now=NOW) == []
    assert store.cleanup(-1, now=NOW) == []
    assert run.path.is_dir()


def test_cleanup_of_missing_workspace_is_a_no_op(tmp_path: Path) -> None:
    assert RunStore(tmp_path / "absent").cleanup(7, now=NOW) == []


def test_cleanup_never_follows_symlinks(tmp_path: Path) -> None:
    workspace = tmp_path / "runs"
    store = RunStore(workspace)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "keep.txt").write_text("keep", encoding="utf-8")

    elsewhere = RunStore(tmp_path / "elsewhere").create("linked", now=NOW - timedelta(days=90))
    link = workspace / elsewhere.run_id
    workspace.mkdir(exist_ok=True)
    link.symlink_to(elsewhere.path, target_is_directory=True)

    old = store.create("old", now=NOW - timedelta(days=90))
    (old.path / "precious-link").symlink_to(precious, target_is_directory=True)

    assert store.cleanup(7, now=NOW) == [old.path]
    assert link.is_symlink() and elsewhere.path.is_dir()
    assert (precious / "keep.txt").read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize("layout", ["nested", "beside"])
def test_cleanup_leaves_notes_alone(tmp_path: Path, layout: str) -> None:
    runs_dir = tmp_path / "data" / "runs"
    notes_dir = runs_dir / "notes" if layout == "nested" else tmp_path / "data" / "notes"
    notes = NoteStore(notes_dir)
    note = notes.write(note_type="conclusion", title="r", body="b", tags=["deep_research"])
    old_time = (NOW - timedelta(days=400)).timestamp()
    for path in [notes_dir, *notes_dir.iterdir()]:
        os.utime(path, (old_time, old_time))
    before = _tree(notes_dir)

    store = RunStore(runs_dir)
    old = store.create("old", now=NOW - timedelta(days=30))
    assert store.cleanup(7, now=NOW) == [old.path]
    assert _tree(notes_dir) == before
    assert notes.read(note.id) == note


def test_run_folder_repr_and_identity(tmp_path: Path) -> None:
    folder = RunFolder(tmp_path / "20240610-120000-q-abcd")
    assert folder.run_id == "20240610-120000-q-abcd"
    assert "20240610-120000-q-abcd" in repr(folder)
