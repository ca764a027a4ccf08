"""Does the answer hold when the question is reworded? Dev-half questions, two paraphrases each.

    python evals/paraphrases.py [--limit N] [--show]
    python evals/paraphrases.py --fixed [--show]    # the answer step alone, on fixed sources

``evals/data/paraphrases.jsonl`` holds, per ``qid`` of the shared eval set's dev half, two
rewordings with the same gold answer; the original question and its gold are read from
``../shared/eval/questions.jsonl`` by ``qid`` when this runs. Each of the three questions runs the
agent as ``deepresearch eval`` does: local search over the cached index of
``../shared/eval/corpus.jsonl`` (vectors when ``INDEX_EMBEDDINGS`` is on), the configured model
(embedded by default, built once), notes off.

``--fixed`` runs no agent: each question and its rewordings are answered by the answer step
(:func:`~deepresearch.answers.ground.ground_answer` with the default gate) from the same sources —
those the agent read for the original (``evals/out/sources.jsonl``, see ``evals/answer_dev.py
collect``) and the question's own context passages — so only the wording differs (seconds, not
an hour).

A pair (the original and one paraphrase) gives the same answer when the normalised answer texts
are equal, or both runs abstained, or both answer_match the gold. A run that fails is never the
same as another. Prints each question's three answers with ``--show``, then a JSON summary:
``same_answer`` over the pairs, and answer_match and abstention of the originals and of the
paraphrases.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from answer_dev import answer_dense

from deepresearch.agent import research
from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import AnswerWeights, confidence_gate
from deepresearch.errors import DeepResearchError
from deepresearch.evaluation.dataset import EvalQuestion, load_questions
from deepresearch.evaluation.runner import own_model
from deepresearch.evaluation.scoring import answer_match, normalize_answer
from deepresearch.index.corpus import ensure_corpus_index
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.base import ChatModel
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
PARAPHRASES = Path(__file__).resolve().parent / "data" / "paraphrases.jsonl"


@dataclass(frozen=True)
class Item:
    original: EvalQuestion
    paraphrases: tuple[str, ...]


@dataclass(frozen=True)
class Run:
    question: str
    answer: str
    status: str
    match: float
    seconds: float


def load(path: Path, questions: Path, limit: int | None) -> list[Item]:
    """The paraphrase rows, each with its original question and gold from ``questions``."""
    by_qid = {q.qid: q for q in load_questions(questions)}
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    missing = [r["qid"] for r in records if r["qid"] not in by_qid]
    if missing:
        raise SystemExit(f"{len(missing)} qid(s) of {path} are not in {questions}: {missing[:3]}")
    items = [Item(by_qid[r["qid"]], tuple(r["paraphrases"])) for r in records]
    return items[:limit] if limit else items


def same(a: Run, b: Run) -> bool:
    if "error" in (a.status, b.status):
        return False
    if a.status == "abstained" or b.status == "abstained":
        return a.status == b.status
    return normalize_answer(a.answer) == normalize_answer(b.answer) or bool(a.match and b.match)


def ask(text: str, gold: Sequence[str], settings: Settings, model: ChatModel, search: LocalSearch) -> Run:
    started = time.perf_counter()
    try:
        result = research(text, settings=settings, model=model, search=search)
    except DeepResearchError as exc:
        return Run(text, f"{exc.code}: {exc}", "error", 0.0, time.perf_counter() - started)
    answered = result.answer if result.answer_status != "abstained" else ""
    seconds = float(result.timings.get("total", 0.0))
    return Run(text, result.answer, result.answer_status, answer_match(answered, gold), seconds)


def run_all(items: Sequence[Item], show: bool) -> list[list[Run]]:
    settings = Settings.load({"enable_notes": False, "search_api": "local"})
    index_path, _ = ensure_corpus_index(settings, EVAL / "corpus.jsonl")
    settings = settings.with_overrides(index_path=index_path, search_api="local", enable_notes=False)
    rows: list[list[Run]] = []
    with ExitStack() as stack:
        model = own_model(settings, stack)
        index = stack.enter_context(DocumentIndex.open_existing(index_path, embedder_for(settings)))
        search = LocalSearch(index)
        for item in items:
            gold = item.original.answers
            texts = (item.original.question, *item.paraphrases)
            rows.append([ask(text, gold, settings, model, search) for text in texts])
            if show:
                _show(item, rows[-1])
    return rows


def fixed_sources(items: Sequence[Item], show: bool) -> dict[str, Any]:
    """Same-answer share of the pairs when only the wording differs, per source set."""
    from fit_answers import context_rows, load_rows  # a sibling script: evals/ is on sys.path

    gate = confidence_gate(None)
    out: dict[str, Any] = {}
    for label, rows in (("agent", load_rows()), ("context", context_rows())):
        by_qid = {r.qid: r for r in rows if r.gold_read}
        runs = []
        for item in (i for i in items if i.original.qid in by_qid):
            texts = (item.original.question, *item.paraphrases)
            runs.append([_grounded(text, by_qid[item.original.qid], gate) for text in texts])
            if show:
                _show(item, runs[-1])
        pairs = [float(same(row[0], run)) for row in runs for run in row[1:]]
        out[label] = {"questions": len(runs), "pairs": len(pairs), "same_answer": _mean(pairs)}
    return out


def _grounded(text: str, row: Any, gate: AnswerWeights | None) -> Run:
    got = ground_answer(text, row.sources, weights=gate, dense=answer_dense())
    answered = got.text if got.status != "abstained" else ""
    return Run(text, got.text, got.status, answer_match(answered, row.answers), 0.0)


def _mean(values: Sequence[float]) -> float | None:
    return round(statistics.fmean(values), 3) if values else None


def _show(item: Item, runs: Sequence[Run]) -> None:
    print(f"{item.original.qid} gold={list(item.original.answers)[:2]}")
    for n, run in enumerate(runs):
        label = "O " if n == 0 else f"P{n}"
        flag = "" if n == 0 else (" same" if same(runs[0], run) else " DIFFERENT")
        ok = "OK" if run.match else "--"
        print(f"  {label} {ok} [{run.status}] {run.answer[:90]!r}{flag}\n     {run.question}", flush=True)


def summary(rows: Sequence[Sequence[Run]]) -> dict[str, Any]:
    originals = [runs[0] for runs in rows]
    paraphrased = [run for runs in rows for run in runs[1:]]
    pairs = [same(runs[0], run) for runs in rows for run in runs[1:]]
    everything = [run for runs in rows for run in runs]
    return {
        "questions": len(rows),
        "pairs": len(pairs),
        "same_answer": _mean([float(p) for p in pairs]),
        "answer_match_original": _mean([r.match for r in originals]),
        "answer_match_paraphrase": _mean([r.match for r in paraphrased]),
        "abstained_original": _mean([float(r.status == "abstained") for r in originals]),
        "abstained_paraphrase": _mean([float(r.status == "abstained") for r in paraphrased]),
        "failed": sum(r.status == "error" for r in everything),
        "seconds_per_run": _mean([r.seconds for r in everything]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--show", action="store_true", help="print each run's answer")
    parser.add_argument("--fixed", action="store_true", help="the answer step alone, on fixed sources")
    parser.add_argument("--paraphrases", type=Path, default=PARAPHRASES)
    parser.add_argument("--questions", type=Path, default=EVAL / "questions.jsonl")
    args = parser.parse_args()
    items = load(args.paraphrases, args.questions, args.limit)
    if args.fixed:
        print(json.dumps(fixed_sources(items, args.show)))
        return
    print(json.dumps(summary(run_all(items, args.show))))


if __name__ == "__main__":
    main()
