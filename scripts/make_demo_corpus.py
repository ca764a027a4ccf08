"""Build ``src/deepresearch/data/demo_corpus.jsonl`` from the shared evaluation set.

The demo corpus is every context passage (gold and distractors) of the questions in
:data:`DEMO_QIDS`, so each of those multi-hop questions is answerable from it and still has to be
searched for among look-alike passages. The questions were picked by hand for varied topics among
those whose gold passages BM25 ranks in the top 10 of the full evaluation corpus. Records keep only
``doc_id``, ``title`` and ``text``; order is question order, then context order, without repeats.

After writing, the script indexes the result and prints, per question, how many gold passages a
search with the question text finds in the top 10, so a change of ranking shows up here.

Usage::

    python scripts/make_demo_corpus.py [--eval-dir ../shared/eval] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from deepresearch.index.store import DocumentIndex  # noqa: E402

DEMO_QIDS: tuple[str, ...] = (
    "musique:2hop__145681_54580",
    "hotpotqa:5a8531265542997b5ce3ffba",
    "musique:2hop__196614_8477",
    "musique:2hop__155827_84254",
    "hotpotqa:5ade6c0555429975fa854ec9",
    "musique:2hop__102960_54210",
    "hotpotqa:5a77ec115542992a6e59dff7",
    "musique:2hop__54638_5348",
    "hotpotqa:5abcd1c75542993a06baf972",
    "musique:2hop__243339_774871",
    "hotpotqa:5adffe83554299025d62a3a2",
    "musique:2hop__787940_83984",
    "hotpotqa:5ac0eb285542992a796dedb7",
    "musique:3hop2__2453_9998_46960",
    "hotpotqa:5adff9ea55429942ec259bb1",
    "musique:2hop__814145_7643",
    "hotpotqa:5a8ef1395542995a26add572",
    "hotpotqa:5ade144d55429975fa854e2a",
    "hotpotqa:5a7cdb3c554299683c1c63a1",
    "hotpotqa:5a79caf55542996c55b2dc72",
    "hotpotqa:5ac2a291554299657fa28ff6",
)
FIELDS = ("doc_id", "title", "text")


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a JSON Lines file, skipping blank lines."""
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def select(questions: dict[str, dict[str, Any]], corpus: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Context passages of :data:`DEMO_QIDS`, trimmed to :data:`FIELDS`, without repeats."""
    chosen: dict[str, dict[str, Any]] = {}
    for qid in DEMO_QIDS:
        for doc_id in questions[qid]["context_doc_ids"]:
            record = corpus[doc_id]
            chosen.setdefault(doc_id, {field: record[field] for field in FIELDS})
    return list(chosen.values())


def write_jsonl(records: Sequence[dict[str, Any]], out: Path) -> None:
    """Write one compact JSON object per line, UTF-8, no ASCII escaping."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("w", encoding="utf-8", newline="\n") as sink:
        for record in records:
            sink.write(json.dumps(record, ensure_ascii=False) + "\n")


def check(out: Path, questions: dict[str, dict[str, Any]]) -> None:
    """Print gold passages found in the top 10 for each demo question."""
    with DocumentIndex(":memory:") as index:
        index.index_paths([out])
        for qid in DEMO_QIDS:
            question = questions[qid]
            found = {p.doc_id for p, _ in index.search(str(question["question"]), limit=10)}
            gold = list(question["gold_doc_ids"])
            hits = sum(doc_id in found for doc_id in gold)
            print(f"{hits}/{len(gold)}  {qid}  {question['question']}  -> {question['answers']}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eval-dir", type=Path, default=REPO.parent / "shared" / "eval")
    parser.add_argument(
        "--out", type=Path, default=REPO / "src" / "deepresearch" / "data" / "demo_corpus.jsonl"
    )
    args = parser.parse_args(argv)
    questions = {str(q["qid"]): q for q in read_jsonl(args.eval_dir / "questions.jsonl")}
    corpus = {str(d["doc_id"]): d for d in read_jsonl(args.eval_dir / "corpus.jsonl")}
    records = select(questions, corpus)
    write_jsonl(records, args.out)
    print(f"wrote {len(records)} passages for {len(DEMO_QIDS)} questions to {args.out}")
    check(args.out, questions)


if __name__ == "__main__":
    main()
