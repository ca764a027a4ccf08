"""Tuning the grounded answer offline: collect the sources the agent reads, then re-score answers.

    python evals/answer_dev.py collect --limit 80 --seed 0 [--drop-gold]   # runs the agent once
    python evals/answer_dev.py score [--drop-gold] [--model] [--show]      # seconds, no agent
    python evals/answer_dev.py score --runs HOME/runs [--runs …]           # an eval's own runs

``collect`` runs the real agent (embedded model, local index over ../shared/eval) and keeps each
question's sources in ``evals/out/sources[-nogold].jsonl``; ``score`` runs only the answer step on
them, with code-side choice or (``--model``) the embedded model choosing among the candidates, and
prints answer_match / EM / F1 / abstention. The agent's own numbers come from ``deepresearch eval``;
``score --runs`` re-scores the run folders such an eval wrote (``DEEPRESEARCH_HOME=… deepresearch
eval …`` keeps them under ``HOME/runs``): retrieval at a fixed seed is deterministic, so a change to
the answer step scores there as the eval would.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from deepresearch.agent import research
from deepresearch.answers.dense import Dense, SentenceMeaning, dense_for
from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.citations import Source
from deepresearch.evaluation.dataset import load_questions
from deepresearch.evaluation.runner import without_gold
from deepresearch.evaluation.scoring import answer_match, exact_match, f1
from deepresearch.index.corpus import ensure_corpus_index
from deepresearch.index.store import DocumentIndex
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
OUT = Path(__file__).resolve().parent / "out"


@functools.lru_cache(maxsize=1)
def answer_dense() -> Dense | None:
    """The answer step's sentence meaning as the product builds it (``ANSWER_EMBEDDINGS`` from the
    environment: ``ANSWER_EMBEDDINGS=off python evals/…`` measures without it)."""
    dense = dense_for(Settings.load({}))
    if isinstance(dense, SentenceMeaning):  # an eval ranks many thousand sentences, each again per gate
        dense.resize(1_000_000)
    return dense


def _cache(drop_gold: bool) -> Path:
    return OUT / ("sources-nogold.jsonl" if drop_gold else "sources.jsonl")


def collect(args: argparse.Namespace) -> None:
    questions = load_questions(EVAL / "questions.jsonl", limit=args.limit, seed=args.seed)
    settings = Settings.load({"enable_notes": False, "search_api": "local"})
    corpus = EVAL / "corpus.jsonl"
    corpus = without_gold(settings, corpus, questions) if args.drop_gold else corpus
    index_path, _ = ensure_corpus_index(settings, corpus)
    OUT.mkdir(exist_ok=True)
    with DocumentIndex.open_existing(index_path) as index, _cache(args.drop_gold).open("w") as out:
        search = LocalSearch(index)
        for n, q in enumerate(questions, 1):
            result = research(
                q.question, settings=settings.with_overrides(index_path=index_path), search=search
            )
            row = {
                "qid": q.qid,
                "question": q.question,
                "answers": list(q.answers),
                "gold": list(q.gold_doc_ids),
                "agent_answer": result.answer,
                "sources": [
                    s.model_dump(include={"id", "title", "content", "doc_id"}) for s in result.sources
                ],
            }
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{n}/{len(questions)} {result.answer!r}", file=sys.stderr)


def stored_source(data: dict[str, Any]) -> Source:
    """A source as a run's ``result.json`` or the collect cache stores it (a ``doc://`` URL when
    none is stored)."""
    return Source(**{"url": f"doc://{data.get('doc_id')}", **data})


QUESTION_FILES = [
    EVAL / "questions.jsonl",
    Path(__file__).resolve().parent / "data" / "twowiki_questions.jsonl",
    Path(__file__).resolve().parent / "data" / "hard_questions.jsonl",
    OUT / "reworded.jsonl",  # written by `python evals/reworded.py write`
]


def rows_from_runs(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """One row (qid, question, answers, stored sources) per run folder whose question is in one
    of the questions files the evals use (:data:`QUESTION_FILES`: the shared set, the 2Wiki dev
    set, the hard set, the rewordings), in folder order."""
    questions = {
        " ".join(q.question.split()): q
        for path in QUESTION_FILES
        if path.is_file()
        for q in load_questions(path)
    }
    rows = []
    for result in sorted(f for folder in folders for f in folder.glob("*/result.json")):
        data = json.loads(result.read_text(encoding="utf-8"))
        q = questions.get(" ".join(data["question"].split()))
        if q is not None:
            rows.append(
                {
                    "qid": q.qid,
                    "question": q.question,
                    "answers": list(q.answers),
                    "sources": data["sources"],
                    "stated": _stated(data),
                }
            )
    return rows


def _stated(result: dict[str, Any]) -> str | None:
    """The answer a run's ``result.json`` stated; None where it abstained."""
    if result.get("answer_status") == "abstained":
        return None
    return result.get("answer") or None


def score(args: argparse.Namespace) -> None:
    if args.runs:
        rows = rows_from_runs(args.runs)
    else:
        rows = [json.loads(line) for line in _cache(args.drop_gold).open()]
    chooser = _model_chooser() if args.model else None
    gate = confidence_gate(None)  # the agent's default gate: the fitted confidence at its threshold
    marks: dict[str, list[float]] = {
        "answer_match": [],
        "em": [],
        "f1": [],
        "abstained": [],
        "in_sources": [],
    }
    started = time.perf_counter()
    for row in rows:
        sources = [stored_source(s) for s in row["sources"]]
        got = ground_answer(row["question"], sources, chooser=chooser, weights=gate, dense=answer_dense())
        text = "" if got.status == "abstained" else got.text
        marks["answer_match"].append(answer_match(text, row["answers"]))
        marks["em"].append(exact_match(text, row["answers"]))
        marks["f1"].append(f1(text, row["answers"]))
        marks["abstained"].append(float(got.status == "abstained"))
        marks["in_sources"].append(
            max(answer_match(s.content, row["answers"]) for s in sources) if sources else 0
        )
        if args.show:
            ok = "OK " if marks["answer_match"][-1] else "-- "
            print(
                f"{ok}[{got.kind}/{got.status} {got.support:.2f}] {row['question']}\n"
                f"    gold={row['answers'][:2]} got={got.text[:90]!r} cands={list(got.candidates)[:5]}"
            )
    summary = {k: round(statistics.fmean(v), 3) for k, v in marks.items()}
    summary["n"] = len(rows)
    summary["seconds"] = round(time.perf_counter() - started, 2)
    print(json.dumps(summary))


def _model_chooser():  # type: ignore[no-untyped-def]
    from deepresearch.answers.choose import model_chooser
    from deepresearch.llm.factory import build_model

    return model_chooser(build_model(Settings.load()))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--limit", type=int, default=80)
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--drop-gold", action="store_true")
    s = sub.add_parser("score")
    s.add_argument("--drop-gold", action="store_true")
    s.add_argument("--model", action="store_true")
    s.add_argument("--show", action="store_true")
    s.add_argument("--runs", type=Path, action="append", help="an eval's run folders (HOME/runs)")
    args = parser.parse_args()
    (collect if args.command == "collect" else score)(args)


if __name__ == "__main__":
    main()
