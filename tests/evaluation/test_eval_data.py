"""The dev sets under ``evals/data/`` load with the evaluation loaders and point at their corpora."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from deepresearch.evaluation.dataset import half_of, load_questions
from deepresearch.index.loaders import demo_corpus_path, load_jsonl

DATA = Path(__file__).resolve().parents[2] / "evals" / "data"


def _corpus_ids(path: Path) -> set[str]:
    loaded = load_jsonl(path, path.read_text(encoding="utf-8"))
    assert loaded.bad_records == 0
    ids = [d.doc_id for d in loaded.documents]
    assert len(ids) == len(set(ids))
    return set(ids)


def _rows(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_twowiki_questions_load_and_their_gold_is_in_the_corpus() -> None:
    questions = load_questions(DATA / "twowiki_questions.jsonl")
    corpus = _corpus_ids(DATA / "twowiki_corpus.jsonl")
    assert len(questions) == 150
    assert len({q.qid for q in questions}) == 150
    assert 1000 <= len(corpus) <= 4000
    assert all(q.answers and q.gold_doc_ids for q in questions)
    assert all(d in corpus for q in questions for d in q.gold_doc_ids)
    rows = _rows(DATA / "twowiki_questions.jsonl")
    assert all(d in corpus for r in rows for d in r["context_doc_ids"])  # type: ignore[attr-defined]
    types = Counter(str(r["type"]) for r in rows)
    assert set(types) == {"compositional", "comparison", "inference", "bridge_comparison"}


def test_hard_train_questions_load_and_none_is_a_shared_question() -> None:
    questions = load_questions(DATA / "hard_questions.jsonl")
    corpus = _corpus_ids(DATA / "hard_corpus.jsonl")
    shared = Path(__file__).resolve().parents[3] / "shared" / "eval" / "questions.jsonl"
    assert len(questions) == 164 and len({q.qid for q in questions}) == 164
    assert all(q.answers and q.gold_doc_ids for q in questions)
    assert all(d in corpus for q in questions for d in q.gold_doc_ids)
    rows = _rows(DATA / "hard_questions.jsonl")
    assert all(r["level"] == "hard" for r in rows if r["dataset"] == "hotpotqa")
    assert Counter(str(r["dataset"]) for r in rows) == {"hotpotqa": 85, "musique": 79}
    if shared.is_file():
        known = {str(r["qid"]) for r in _rows(shared)} | {str(r["question"]) for r in _rows(shared)}
        assert not known & ({str(r["qid"]) for r in rows} | {str(r["question"]) for r in rows})


def test_rewordings_are_dev_half_rows_with_two_each() -> None:
    rows = _rows(DATA / "rewordings_dev.jsonl")
    earlier = {r["qid"] for r in _rows(DATA / "paraphrases.jsonl")}
    qids = [str(r["qid"]) for r in rows]
    assert len(rows) == 60 and len(set(qids)) == 60
    assert all(half_of(q) == "dev" for q in qids)
    assert not set(qids) & earlier
    assert all(len(r["paraphrases"]) == 2 for r in rows)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "kinds", "earlier"),
    [
        (
            "demo_questions_own_words.jsonl",
            {"one-hop": 10, "two-hop": 10, "yesno": 7, "unanswerable": 3},
            ("demo_questions.jsonl",),
        ),
        (
            "demo_questions_own_words_dev.jsonl",
            {"one-hop": 10, "two-hop": 8, "yesno": 8, "unanswerable": 4},
            ("demo_questions.jsonl", "demo_questions_own_words.jsonl"),
        ),
        (
            "demo_questions_yes_no_dev.jsonl",
            {"yesno": 32},
            ("demo_questions.jsonl", "demo_questions_own_words.jsonl", "demo_questions_own_words_dev.jsonl"),
        ),
    ],
)
def test_demo_questions_in_own_words_point_at_the_demo_corpus(
    name: str, kinds: dict[str, int], earlier: tuple[str, ...]
) -> None:
    rows = _rows(DATA / name)
    corpus = _corpus_ids(demo_corpus_path())
    texts = {d["doc_id"]: d["text"] for d in _rows(demo_corpus_path())}
    assert len({r["id"] for r in rows}) == len(rows) == sum(kinds.values())
    assert Counter(str(r["kind"]) for r in rows) == kinds
    for row in rows:
        docs = list(row["doc_ids"])  # type: ignore[call-overload]
        assert all(d in corpus for d in docs)
        assert bool(docs) == bool(row["answers"]) == (row["kind"] != "unanswerable")
        if row["kind"] in ("one-hop", "two-hop"):  # the first gold answer is the passage's span
            assert any(str(row["answers"][0]) in str(texts[d]) for d in docs)  # type: ignore[index]
    known = {r["question"] for file in earlier for r in _rows(DATA / file)}
    assert not {r["question"] for r in rows} & known
    if kinds.keys() == {"yesno"}:  # yes and no in equal numbers, so saying one alone scores half
        assert Counter(str(r["answers"][0]) for r in rows) == {"yes": 16, "no": 16}  # type: ignore[index]
