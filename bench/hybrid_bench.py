"""Benchmark BM25 against hybrid (BM25 + MiniLM dense, fused by RRF) on the shared eval corpus.

Builds the index (BM25, then embeds every passage), then runs each question's text as a query in
three modes — ``bm25``, ``dense`` and ``hybrid`` — and prints build seconds, query latency
p50/p95 in milliseconds (dense and hybrid include embedding the query), and recall@10 of
``gold_doc_ids`` (share of a question's gold passages among the doc_ids of its top 10), overall
and per dataset. Embedding ~2,900 passages takes 8–16 minutes on 2 cores with numpy, a few with
llama.cpp (``--embedder llama``, the default: its GGUF is converted into a temporary cache first);
``--keep PATH`` keeps the index so a rerun reuses its vectors (the build time is then not measured
again).

Usage::

    python bench/hybrid_bench.py [CORPUS] [--questions PATH] [--limit 10] [--keep PATH] [--out JSON]
                                 [--embedder llama|numpy] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))
sys.path.insert(0, str(REPO / "bench"))

from index_bench import DEFAULT_CORPUS, percentile, read_questions  # noqa: E402

from deepresearch.index.embeddings import Embedder, MiniLMEmbedder  # noqa: E402
from deepresearch.index.llama_embeddings import LlamaEmbedder, LlamaOptions  # noqa: E402
from deepresearch.index.store import DocumentIndex, Passage  # noqa: E402

Search = Callable[[str, int], list[tuple[Passage, float]]]


def build(path: Path, corpus: Path, embedder: Embedder) -> tuple[DocumentIndex, dict[str, float]]:
    """Index ``corpus`` at ``path`` (BM25), then embed what lacks a vector; seconds for each step."""
    with DocumentIndex(path) as plain:
        stats = plain.index_paths([corpus])
    index = DocumentIndex(path, embedder)
    started = time.perf_counter()
    embedded = index.embed_pending(progress=lambda message: print(f"  {message}", file=sys.stderr))
    return index, {
        "passages": stats.passages_total,
        "bm25_build_s": stats.seconds,
        "embed_s": time.perf_counter() - started,
        "embedded": embedded,
    }


def measure(search: Search, questions: Sequence[dict[str, Any]], limit: int) -> dict[str, Any]:
    """Latency percentiles (ms) and mean recall@limit, overall and per dataset, for one mode."""
    latencies: list[float] = []
    recalls: dict[str, list[float]] = defaultdict(list)
    for question in questions:
        started = time.perf_counter()
        hits = search(question["question"], limit)
        latencies.append((time.perf_counter() - started) * 1000)
        found = {passage.doc_id for passage, _ in hits}
        gold = question["gold_doc_ids"]
        recall = sum(doc_id in found for doc_id in gold) / len(gold)
        recalls["all"].append(recall)
        recalls[str(question.get("dataset", "?"))].append(recall)
    return {
        "p50_ms": percentile(latencies, 0.50),
        "p95_ms": percentile(latencies, 0.95),
        "recall": {name: statistics.fmean(values) for name, values in sorted(recalls.items())},
        "n": len(latencies),
    }


def report(timings: dict[str, float], results: dict[str, dict[str, Any]], limit: int) -> None:
    print(f"passages        {int(timings['passages'])}")
    print(f"build bm25      {timings['bm25_build_s']:.3f} s")
    if timings["embedded"]:
        rate = timings["embedded"] / timings["embed_s"]
        print(
            f"build hybrid    {timings['bm25_build_s'] + timings['embed_s']:.1f} s "
            f"(embedding {int(timings['embedded'])} passages: {timings['embed_s']:.1f} s, {rate:.2f}/s)"
        )
    else:
        print("build hybrid    not measured: the kept index already had every vector")
    datasets = list(next(iter(results.values()))["recall"])
    print(f"{'mode':<8} {'p50 ms':>8} {'p95 ms':>8}  " + "  ".join(f"R@{limit} {d:<10}" for d in datasets))
    for mode, result in results.items():
        recall = "  ".join(f"{result['recall'][d]:<15.3f}" for d in datasets)
        print(f"{mode:<8} {result['p50_ms']:>8.2f} {result['p95_ms']:>8.2f}  {recall}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--questions", type=Path, default=None)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--keep", type=Path, default=None, help="index file to keep (and reuse)")
    parser.add_argument("--out", type=Path, default=None, help="also write the figures as JSON")
    parser.add_argument("--embedder", choices=("llama", "numpy"), default="llama")
    parser.add_argument("--threads", type=int, default=2, help="llama.cpp threads")
    args = parser.parse_args(argv)
    questions = read_questions(args.questions or args.corpus.with_name("questions.jsonl"))
    with tempfile.TemporaryDirectory() as folder:
        embedder: Embedder = (
            LlamaEmbedder(Path(folder) / "cache", options=LlamaOptions(n_threads=args.threads))
            if args.embedder == "llama"
            else MiniLMEmbedder()
        )
        index, timings = build(args.keep or Path(folder) / "i.sqlite", args.corpus, embedder)
        with index:
            modes: dict[str, Search] = {
                "bm25": index.search,
                "dense": index.search_dense,
                "hybrid": index.search_hybrid,
            }
            results = {mode: measure(search, questions, args.limit) for mode, search in modes.items()}
    print(f"embedder        {args.embedder}")
    report(timings, results, args.limit)
    if args.out:
        args.out.write_text(json.dumps({"build": timings, "modes": results}, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
