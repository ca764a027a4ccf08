"""Benchmark the local index on the shared evaluation corpus.

Indexes the corpus into a temporary SQLite file, then searches with each question's text and
prints: build seconds, an unchanged re-index, query latency p50/p95 in milliseconds, and
recall@10 of ``gold_doc_ids`` (share of a question's gold passages among the doc_ids of its top
10 passages, averaged over questions), overall and per dataset.

Usage::

    python bench/index_bench.py [CORPUS] [--questions PATH] [--limit 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from deepresearch.index.store import DocumentIndex  # noqa: E402

DEFAULT_CORPUS = REPO.parent / "shared" / "eval" / "corpus.jsonl"


def read_questions(path: Path) -> list[dict[str, Any]]:
    """Question records of a JSON Lines file."""
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile, ``share`` in (0, 1]."""
    ordered = sorted(values)
    rank = max(1, round(share * len(ordered)))
    return ordered[rank - 1]


def run_queries(
    index: DocumentIndex, questions: Sequence[dict[str, Any]], limit: int
) -> tuple[list[float], dict[str, list[float]]]:
    """Latencies in ms, and recall per question grouped by dataset (key ``all`` too)."""
    latencies: list[float] = []
    recalls: dict[str, list[float]] = defaultdict(list)
    for question in questions:
        started = time.perf_counter()
        hits = index.search(question["question"], limit=limit)
        latencies.append((time.perf_counter() - started) * 1000)
        found = {passage.doc_id for passage, _ in hits}
        gold = question["gold_doc_ids"]
        recall = sum(doc_id in found for doc_id in gold) / len(gold)
        recalls["all"].append(recall)
        recalls[str(question.get("dataset", "?"))].append(recall)
    return latencies, recalls


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--questions", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=10)
    args = parser.parse_args(argv)
    questions = read_questions(args.questions or args.corpus.with_name("questions.jsonl"))
    with tempfile.TemporaryDirectory() as folder, DocumentIndex(Path(folder) / "i.db") as index:
        built = index.index_paths([args.corpus])
        again = index.index_paths([args.corpus])
        latencies, recalls = run_queries(index, questions, args.limit)
    print(f"corpus        {args.corpus} ({built.passages_total} passages)")
    print(f"build         {built.seconds:.3f} s")
    print(f"re-index      {again.seconds:.3f} s (unchanged: {again.files_skipped_unchanged})")
    print(f"query p50     {percentile(latencies, 0.50):.2f} ms")
    print(f"query p95     {percentile(latencies, 0.95):.2f} ms  ({len(latencies)} queries)")
    for name, values in sorted(recalls.items()):
        print(f"recall@{args.limit:<6} {statistics.fmean(values):.3f}  {name} (n={len(values)})")


if __name__ == "__main__":
    main()
