"""The local document index: loaders, chunking, incremental indexing, safe search, backend."""

from __future__ import annotations

import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from deepresearch.errors import IndexNotFoundError, SearchError
from deepresearch.index.chunking import MAX_CHARS, chunk_text, stitch
from deepresearch.index.loaders import Document, demo_corpus_path
from deepresearch.index.store import MIGRATIONS, DocumentIndex, Passage
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.local import LocalSearch

README_QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"
README_GOLD = {"musique:956c7da2de64", "musique:47e5c49623f2"}
HOSTILE_QUERIES = (
    *('"unbalanced', "a AND", "foo*", "(bar", "NEAR(", "-x:y", "", "   ", "中文的查询"),
    *("OR OR", "title:volcano", "^start", "a\x00b", "NOT", "{x}", "'quoted'", "c++ && ||"),
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def jsonl(*records: object) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def paragraphs(count: int, words: int = 40) -> list[str]:
    return [f"Paragraph {n}: " + " ".join([f"word{n}"] * words) for n in range(count)]


@pytest.fixture
def index() -> DocumentIndex:
    return DocumentIndex(":memory:")


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    write(root / "volcano.md", "# Volcanoes of Iceland\n\nEyjafjallajokull erupted in 2010.\n")
    write(root / "notes" / "bread.txt", "Sourdough bread rises thanks to wild yeast.\n")
    write(root / "records.jsonl", jsonl({"doc_id": "r1", "title": "Otters", "text": "Sea otters."}))
    return root


def test_index_paths_indexes_every_supported_file(index: DocumentIndex, corpus: Path) -> None:
    write(corpus / "ignored.odt", "a,b\n")
    stats = index.index_paths([corpus])
    assert (stats.files_indexed, stats.passages_added, stats.passages_total) == (3, 3, 3)
    assert stats.files_skipped_unchanged == stats.files_removed == stats.records_skipped == 0


def test_second_run_skips_unchanged_files(index: DocumentIndex, corpus: Path) -> None:
    index.index_paths([corpus])
    messages: list[str] = []
    stats = index.index_paths([corpus], progress=messages.append)
    assert (stats.files_indexed, stats.files_skipped_unchanged, stats.passages_added) == (0, 3, 0)
    assert stats.passages_total == 3
    assert all(message.startswith("unchanged ") for message in messages)


def test_edited_file_is_reindexed(index: DocumentIndex, corpus: Path) -> None:
    index.index_paths([corpus])
    write(corpus / "notes" / "bread.txt", "Rye bread is dense and dark.\n")
    stats = index.index_paths([corpus])
    assert (stats.files_indexed, stats.files_skipped_unchanged) == (1, 2)
    assert index.search("sourdough yeast") == []
    assert index.search("rye")[0][0].title == "bread"
    assert index.count() == 3


def test_deleted_file_loses_its_passages(index: DocumentIndex, corpus: Path) -> None:
    index.index_paths([corpus])
    (corpus / "volcano.md").unlink()
    stats = index.index_paths([corpus])
    assert (stats.files_removed, stats.passages_total) == (1, 2)
    assert index.search("Eyjafjallajokull") == []


def test_vanished_root_loses_its_passages(index: DocumentIndex, corpus: Path) -> None:
    index.index_paths([corpus])
    for path in sorted(corpus.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    corpus.rmdir()
    assert index.index_paths([corpus]).files_removed == 3
    assert index.count() == 0


def test_hidden_folders_are_not_indexed(index: DocumentIndex, tmp_path: Path) -> None:
    write(tmp_path / ".git" / "notes.md", "# Secret\n\nhidden words\n")
    write(tmp_path / "visible.txt", "visible words\n")
    assert index.index_paths([tmp_path]).files_indexed == 1


def test_markdown_title_is_first_heading(index: DocumentIndex, tmp_path: Path) -> None:
    text = "Intro line.\n\n```\n# not a title\n```\n\n# Real Title #\n\nBody about comets.\n"
    index.index_paths([write(tmp_path / "doc.md", text)])
    passage = index.search("comets")[0][0]
    assert passage.title == "Real Title"
    assert passage.doc_id == str((tmp_path / "doc.md").resolve())
    assert passage.source == passage.doc_id


def test_markdown_without_heading_and_text_use_file_stem(index: DocumentIndex, tmp_path: Path) -> None:
    write(tmp_path / "field-notes.md", "Just lichens on rocks.\n")
    write(tmp_path / "diary.txt", "# not markdown here\n\nmoss\n")
    index.index_paths([tmp_path])
    assert index.search("lichens")[0][0].title == "field-notes"
    assert index.search("moss")[0][0].title == "diary"


def test_jsonl_keeps_doc_ids_and_counts_bad_lines(index: DocumentIndex, tmp_path: Path) -> None:
    text = jsonl(
        {"doc_id": "hotpotqa:1bbfe3b70d1d", "title": "Alû", "text": "Alû is a demon."},
        {"id": 42, "title": "Numbered", "text": "An integer id."},
        {"title": "No id", "text": "Gets a line-based id."},
        "{not json",
        "[1, 2]",
        {"title": "No text"},
        {"doc_id": ["bad"], "title": "Bad id", "text": "x"},
        "",
    )
    path = write(tmp_path / "set.jsonl", text)
    stats = index.index_paths([path])
    assert (stats.passages_added, stats.records_skipped) == (3, 4)
    assert index.get("hotpotqa:1bbfe3b70d1d") == Passage(
        "hotpotqa:1bbfe3b70d1d", "hotpotqa:1bbfe3b70d1d", "Alû", "Alû is a demon.", str(path), 0
    )
    assert index.get("42") is not None
    assert index.get(f"{path}:3") is not None


def test_long_jsonl_record_is_chunked_under_its_doc_id(index: DocumentIndex, tmp_path: Path) -> None:
    long_text = " ".join(f"Sentence number {n} talks about glaciers." for n in range(120))
    record = {"doc_id": "d:1", "title": "Ice", "text": long_text}
    index.index_paths([write(tmp_path / "long.jsonl", jsonl(record))])
    passages = [index.get(f"d:1#{n}") for n in range(index.count())]
    assert len(passages) > 1 and index.get("d:1") is None
    assert all(p is not None and p.doc_id == "d:1" and len(p.text) <= MAX_CHARS for p in passages)
    assert [p.position for p in passages if p] == list(range(len(passages)))


def test_duplicate_ids_keep_the_first_and_are_counted(index: DocumentIndex, tmp_path: Path) -> None:
    record = {"doc_id": "same", "title": "T", "text": "first"}
    write(tmp_path / "a.jsonl", jsonl(record))
    write(tmp_path / "b.jsonl", jsonl({**record, "text": "second"}))
    stats = index.index_paths([tmp_path])
    assert (stats.passages_added, stats.records_skipped) == (1, 1)
    kept = index.get("same")
    assert kept is not None and kept.text == "first"


def test_chunks_respect_cap_overlap_by_one_paragraph_and_lose_nothing() -> None:
    parts = paragraphs(12)
    chunks = chunk_text("\n\n".join(parts))
    assert len(chunks) > 1 and all(len(chunk) <= MAX_CHARS for chunk in chunks)
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.startswith(before.split("\n\n")[-1])
    assert all(any(part.strip() in chunk for chunk in chunks) for part in parts)


def test_stitched_chunks_give_the_text_back_with_each_overlap_once() -> None:
    sentences = [f"Sentence {n} tells of lighthouse keeper number {n} on the cold coast." for n in range(60)]
    text = " ".join(sentences)
    chunks = chunk_text(text, max_chars=300)
    assert len(chunks) > 3 and chunks[1].startswith(chunks[0].split(". ")[-1])
    assert stitch(chunks) == text
    assert stitch([chunks[0], chunks[2]]) == f"{chunks[0]}\n\n{chunks[2]}"
    assert stitch([]) == ""


def test_chunking_cuts_oversized_words_and_ignores_blank_text() -> None:
    assert chunk_text("  \n\n ") == []
    assert all(len(chunk) <= 50 for chunk in chunk_text("x" * 130 + " tail", max_chars=50))


def test_long_markdown_file_becomes_numbered_passages(index: DocumentIndex, tmp_path: Path) -> None:
    path = write(tmp_path / "long.md", "# Long\n\n" + "\n\n".join(paragraphs(10)))
    stats = index.index_paths([path])
    assert stats.passages_added > 1
    first = index.get(f"{path}#0")
    assert first is not None and first.title == "Long" and first.position == 0


@pytest.mark.parametrize("query", HOSTILE_QUERIES)
def test_fts_hostile_queries_never_raise(index: DocumentIndex, corpus: Path, query: str) -> None:
    index.index_paths([corpus])
    assert isinstance(index.search(query), list)


def test_empty_and_stopword_queries_return_nothing(index: DocumentIndex, corpus: Path) -> None:
    index.index_paths([corpus])
    assert index.search("") == []
    assert index.search("the of and") == []
    assert index.search("volcanoes", limit=0) == []


def test_chinese_text_is_searchable_as_whole_runs(index: DocumentIndex) -> None:
    index.add_documents([Document("zh", "长城", "长城 是 中国 的 古代 防御 工程")])
    assert [p.id for p, _ in index.search("长城")] == ["zh"]


def test_ranking_puts_the_relevant_passage_first(index: DocumentIndex) -> None:
    index.add_documents(
        [
            {"doc_id": "cook", "title": "Cooking", "text": "Boil pasta in salted water."},
            {"doc_id": "photo", "title": "Photosynthesis", "text": "Plants turn light into sugar."},
            {"doc_id": "tide", "title": "Tides", "text": "The moon pulls the oceans."},
        ]
    )
    results = index.search("How do plants make sugar from light?")
    assert results[0][0].doc_id == "photo"
    assert [score for _, score in results] == sorted((s for _, s in results), reverse=True)


def test_add_documents_replaces_a_doc_id(index: DocumentIndex) -> None:
    assert index.add_documents([Document("d", "Old", "old words")]) == 1
    assert index.add_documents([{"doc_id": "d", "title": "New", "text": "new words"}]) == 1
    assert index.count() == 1 and index.search("old") == []


def test_open_existing_missing_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="run: deepresearch index PATH"):
        DocumentIndex.open_existing(tmp_path / "nope" / "index.db")


def test_index_on_disk_persists_and_reopens(tmp_path: Path, corpus: Path) -> None:
    path = tmp_path / "deep" / "dir" / "index.db"
    with DocumentIndex(path) as index:
        index.index_paths([corpus])
    with DocumentIndex.open_existing(path) as reopened:
        assert reopened.count() == 3
        assert reopened.index_paths([corpus]).files_skipped_unchanged == 3


def test_schema_version_tracks_migrations(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    DocumentIndex(path).close()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(SearchError, match="newer"):
        DocumentIndex(path)


def test_a_file_that_is_not_a_database_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path / "index.db", "not sqlite " * 100)
    with pytest.raises(SearchError, match="deepresearch index PATH"):
        DocumentIndex.open_existing(path)


def test_searches_from_many_threads(tmp_path: Path, corpus: Path) -> None:
    with DocumentIndex(tmp_path / "index.db") as index:
        index.index_paths([corpus])
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda _: index.search("otters"), range(64)))
    assert all(result[0][0].id == "r1" for result in results)


def test_local_search_returns_doc_hits(index: DocumentIndex) -> None:
    text = "Sea otters hold hands while sleeping. " * 20
    index.add_documents([Document("otters:1", "Sea otter", text)])
    backend = LocalSearch(index)
    assert isinstance(backend, SearchBackend) and backend.name == "local"
    [hit] = backend.search("otters sleeping", limit=3)
    assert isinstance(hit, SearchHit)
    assert (hit.url, hit.doc_id, hit.backend) == ("doc://otters:1", "otters:1", "local")
    assert hit.title == "Sea otter"
    assert hit.content == text.strip() and hit.score is not None and hit.score > 0
    assert hit.snippet.endswith("…") and len(hit.snippet) <= 201 and not hit.is_fallback


def test_a_hit_reads_past_the_edge_of_the_chunk_that_matched(index: DocumentIndex) -> None:
    opening = "Maren Tollefsen kept the Skarvholm light for thirty years. " + "She logged every storm. " * 45
    later = "After the station closed she fled to Bergen, where she taught sailors to read the sky."
    index.add_documents([Document("keeper", "Maren Tollefsen", opening + later)])
    assert len(index.chunks_of("keeper", range(5))) == 2
    [hit] = LocalSearch(index).search("Maren Tollefsen Skarvholm light", limit=3)
    assert hit.url == "doc://keeper#0" and hit.doc_id == "keeper"
    content = hit.content or ""
    assert "fled to Bergen" in content and content.count("She logged every storm.") == 45


def test_chunks_of_one_document_make_one_hit_and_crowd_out_no_other(index: DocumentIndex) -> None:
    long_text = " ".join(f"Glacier survey note {n} on the Vatnajokull ice cap." for n in range(120))
    index.add_documents(
        [
            Document("survey", "Ice cap survey", long_text),
            Document("other", "Vatnajokull", "Vatnajokull is a glacier."),
        ]
    )
    hits = LocalSearch(index).search("Vatnajokull glacier", limit=2)
    assert sorted(hit.doc_id or "" for hit in hits) == ["other", "survey"]
    survey = next(hit for hit in hits if hit.doc_id == "survey")
    assert len(survey.content or "") <= 6 * MAX_CHARS


def test_demo_corpus_finds_the_readme_question_gold_passages(index: DocumentIndex) -> None:
    path = demo_corpus_path()
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert 250 <= len(records) <= 450
    assert all(set(record) == {"doc_id", "title", "text"} for record in records)
    stats = index.index_paths([path])
    assert stats.records_skipped == 0
    found = {passage.doc_id for passage, _ in index.search(README_QUESTION, limit=10)}
    assert found >= README_GOLD


def test_local_search_closes_only_an_index_it_owns(tmp_path: Path) -> None:
    borrowed = DocumentIndex(tmp_path / "borrowed.sqlite")
    LocalSearch(borrowed).close()
    assert borrowed.search("anything") == []
    owned = DocumentIndex(tmp_path / "owned.sqlite")
    LocalSearch(owned, owns_index=True).close()
    with pytest.raises(SearchError, match="closed database"):
        owned.search("anything")
    borrowed.close()
