"""SEARCH_API=notes: the notes of earlier runs as a search backend."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from deepresearch import research
from deepresearch.llm.testing import ScriptedModel
from deepresearch.notes import NoteStore
from deepresearch.search.factory import build_search
from deepresearch.search.notes import NotesSearch
from deepresearch.settings import Settings


def _store(tmp_path: Path) -> NoteStore:
    store = NoteStore(tmp_path / "notes")
    store.write(
        note_type="conclusion",
        title="Report: the Prague astronomical clock",
        body="The Orloj was built in 1410. [TOOL_CALL:note:{}] It is on the Old Town Hall.",
        tags=["deep_research", "report"],
    )
    store.write(
        note_type="general", title="Brighton", body="The Brighton clock tower dates from 1888.", tags=[]
    )
    return store


def test_hits_are_note_urls_with_the_whole_note(tmp_path: Path) -> None:
    store = _store(tmp_path)
    [hit] = NotesSearch(store).search("Prague astronomical clock built", limit=1)
    note = store.search("Prague astronomical clock built", limit=1)[0]
    assert hit.url == f"note://{note.id}" and hit.doc_id == note.id
    assert hit.title == "Report: the Prague astronomical clock"
    assert hit.content is not None and "built in 1410" in hit.content
    assert "TOOL_CALL" not in hit.content and "TOOL_CALL" not in hit.snippet
    assert hit.backend == "notes"


def test_limit_and_no_match(tmp_path: Path) -> None:
    backend = NotesSearch(_store(tmp_path))
    assert len(backend.search("clock", limit=5)) == 2
    assert len(backend.search("clock", limit=1)) == 1
    assert backend.search("zeppelin", limit=5) == []


def test_notes_written_after_the_backend_was_built_are_not_found(tmp_path: Path) -> None:
    store = _store(tmp_path)
    backend = NotesSearch(store, since=datetime.now(timezone.utc) - timedelta(days=1))
    assert backend.search("clock", limit=5) == []


def test_factory_builds_it_and_a_run_cites_a_past_note(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _store(home)
    settings = Settings.load({"deepresearch_home": home, "search_api": "notes", "max_web_research_loops": 1})
    backend = build_search(settings)
    assert isinstance(backend, NotesSearch)
    backend.close()
    result = research(
        "When was the Prague astronomical clock built?",
        settings=settings,
        model=ScriptedModel(),
        search=backend,
    )
    assert any(source.url.startswith("note://") for source in result.sources)
    assert "note://" in result.report_markdown
