"""Compare embedded models on questions of ../shared/eval: answer EM/F1, evidence recall, time.

usage: python evals/compare_models.py [--limit 20] [--models smollm2 gemma3] [--out evals/out/models.json]
Indexes the eval corpus once (into a temp folder), then runs the agent per question per model.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from deepresearch import DeepResearchError, Settings, research
from deepresearch.evaluation.scoring import evidence_recall, exact_match, f1
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.search.local import LocalSearch

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--models", nargs="+", default=["smollm2", "gemma3"])
    parser.add_argument("--loops", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "evals" / "out" / "models.json")
    args = parser.parse_args()
    questions = [json.loads(line) for line in (EVAL / "questions.jsonl").open()]
    random.Random(args.seed).shuffle(questions)
    questions = questions[: args.limit]
    home = Path(tempfile.mkdtemp(prefix="dr-eval-"))
    index = DocumentIndex(home / "index.sqlite")
    index.index_paths([EVAL / "corpus.jsonl"])
    search = LocalSearch(index)
    report: dict[str, object] = {}
    for name in args.models:
        model = EmbeddedModel.from_name(name)
        settings = Settings.load({"deepresearch_home": home, "max_web_research_loops": args.loops})
        rows = [_one(q, model, search, settings) for q in questions]
        report[name] = {"summary": _summary(rows), "rows": rows}
        print(name, json.dumps(report[name]["summary"]), flush=True)  # type: ignore[index]
        model.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False))


def _one(q: dict, model: EmbeddedModel, search: LocalSearch, settings: Settings) -> dict:
    start = time.perf_counter()
    try:
        result = research(q["question"], settings=settings, model=model, search=search)
    except DeepResearchError as exc:
        return {"qid": q["qid"], "error": str(exc), "seconds": time.perf_counter() - start}
    return {
        "qid": q["qid"],
        "answer": result.answer,
        "gold": q["answers"],
        "em": exact_match(result.answer, q["answers"]),
        "f1": f1(result.answer, q["answers"]),
        "recall": evidence_recall([s.doc_id for s in result.sources], q["gold_doc_ids"]),
        "rounds": result.rounds,
        "calls": result.usage.get("calls", 0),
        "seconds": round(time.perf_counter() - start, 2),
    }


def _summary(rows: list[dict]) -> dict[str, float]:
    ok = [r for r in rows if "error" not in r]
    mean = lambda key: round(statistics.fmean(r[key] for r in ok), 3) if ok else 0.0  # noqa: E731
    return {
        "n": len(rows),
        "failed": len(rows) - len(ok),
        "em": mean("em"),
        "f1": mean("f1"),
        "evidence_recall": mean("recall"),
        "rounds": mean("rounds"),
        "seconds": mean("seconds"),
    }


if __name__ == "__main__":
    main()
