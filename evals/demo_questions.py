"""Twenty questions of our own on the bundled demo corpus, asked as a new user asks them.

    python evals/demo_questions.py [--limit N] [--show] [--naive]
    python evals/demo_questions.py --questions evals/data/demo_questions_own_words.jsonl

The questions are ``evals/data/demo_questions.jsonl`` (8 one-hop, 6 two-hop, 3 yes/no, 3 that the
corpus cannot answer), or the file ``--questions`` names in the same format:
``demo_questions_own_words.jsonl`` holds 30 more (10 one-hop, 10 two-hop, 7 yes/no, 3
unanswerable) asked in other words than the passages use ("married to" for "his wife",
"started" for "founded"). Each runs the agent as ``deepresearch research QUESTION`` does when you
have indexed nothing: local search over the demo corpus's own index (``<home>/demo-index.sqlite``,
built or refreshed by :func:`~deepresearch.index.corpus.ensure_demo_index`, vectors when
``INDEX_EMBEDDINGS`` is on), the configured model (embedded by default, built once), notes off.

A question is right when:

- one-hop and two-hop: the answer line answer_matches a gold answer AND the sentence it quotes
  (the report's "From: “…”", or the answer itself when the answer is a whole sentence) holds a
  gold answer — a span of a sentence that names someone else is not right;
- yes/no: the answer line answer_matches the gold ``yes``/``no`` and cites one of the passages
  that hold the fact (``doc_ids``);
- unanswerable: the answer is an abstention.

With ``--naive`` each question is answered instead by the naive baseline
(:func:`~deepresearch.evaluation.baseline.naive_answer`: one search, the top five hits, one model
call) over the same index and model, right when its answer answer_matches a gold answer (it
cites nothing and never abstains, so an unanswerable question is wrong).

Prints one line per question with ``--show``, then ``right N / M`` per kind and overall, and a
JSON summary. A run that fails counts as wrong and is listed under ``failed``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.agent import research
from deepresearch.errors import DeepResearchError
from deepresearch.evaluation.baseline import naive_answer
from deepresearch.evaluation.runner import own_model
from deepresearch.evaluation.scoring import answer_match
from deepresearch.index.corpus import ensure_demo_index
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.base import ChatModel
from deepresearch.report_text import HEADINGS
from deepresearch.result import ResearchResult
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

QUESTIONS = Path(__file__).resolve().parent / "data" / "demo_questions.jsonl"
KINDS = ("one-hop", "two-hop", "yesno", "comparison", "unanswerable")
_QUOTE = re.compile(rf"\*{re.escape(HEADINGS['en']['evidence_for'])}:\* “(.*?)” \[\d+\]")


@dataclass(frozen=True)
class DemoQuestion:
    id: str
    question: str
    answers: tuple[str, ...]
    kind: str
    doc_ids: tuple[str, ...]


@dataclass(frozen=True)
class Outcome:
    answer: str
    status: str
    quote: str
    cited_doc: str | None
    seconds: float


def load(path: Path, limit: int | None) -> list[DemoQuestion]:
    with path.open(encoding="utf-8") as lines:
        records = [json.loads(line) for line in lines if line.strip()]
    questions = [
        DemoQuestion(r["id"], r["question"], tuple(r["answers"]), r["kind"], tuple(r.get("doc_ids", [])))
        for r in records
    ]
    return questions[:limit] if limit else questions


def quoted_sentence(result: ResearchResult) -> str:
    """The sentence the answer line stands on, as the report shows it."""
    if result.answer_status == "sentence":
        return result.answer
    found = _QUOTE.search(result.report_markdown)
    return found.group(1) if found else ""


def outcome(result: ResearchResult) -> Outcome:
    docs = {s.id: s.doc_id for s in result.sources}
    cited = docs.get(result.answer_source_id) if result.answer_source_id is not None else None
    seconds = float(result.timings.get("total", 0.0))
    return Outcome(result.answer, result.answer_status, quoted_sentence(result), cited, seconds)


def is_right(q: DemoQuestion, got: Outcome) -> bool:
    if got.status == "naive":
        return q.kind != "unanswerable" and bool(answer_match(got.answer, q.answers))
    if q.kind == "unanswerable":
        return got.status == "abstained"
    if got.status in ("abstained", "error") or not answer_match(got.answer, q.answers):
        return False
    if q.kind in ("yesno", "comparison"):
        return got.cited_doc in q.doc_ids
    return bool(answer_match(got.quote, q.answers))


def ask(q: DemoQuestion, settings: Settings, model: ChatModel, search: LocalSearch) -> Outcome:
    started = time.perf_counter()
    try:
        return outcome(research(q.question, settings=settings, model=model, search=search))
    except DeepResearchError as exc:
        return Outcome(f"{exc.code}: {exc}", "error", "", None, time.perf_counter() - started)


def ask_naive(q: DemoQuestion, model: ChatModel, search: LocalSearch) -> Outcome:
    started = time.perf_counter()
    text, _ = naive_answer(q.question, model, search)
    return Outcome(text, "naive", "", None, time.perf_counter() - started)


def run_all(
    questions: Sequence[DemoQuestion], show: bool, naive: bool = False
) -> list[tuple[DemoQuestion, Outcome]]:
    settings = Settings.load({"enable_notes": False, "search_api": "local"})
    embedder = embedder_for(settings)
    index_path = ensure_demo_index(settings, embedder=embedder)
    settings = settings.with_overrides(index_path=index_path)
    rows: list[tuple[DemoQuestion, Outcome]] = []
    with ExitStack() as stack:
        model = own_model(settings, stack)
        search = LocalSearch(stack.enter_context(DocumentIndex.open_existing(index_path, embedder)))
        for q in questions:
            rows.append((q, ask_naive(q, model, search) if naive else ask(q, settings, model, search)))
            if show:
                _show(*rows[-1])
    return rows


def _show(q: DemoQuestion, got: Outcome) -> None:
    mark = "OK " if is_right(q, got) else "-- "
    print(
        f"{mark}{q.id} [{q.kind}] {q.question}\n"
        f"    gold={list(q.answers)[:3]} got={got.answer[:100]!r} ({got.status}, {got.cited_doc})\n"
        f"    quote={got.quote[:160]!r}",
        flush=True,
    )


def summary(rows: Sequence[tuple[DemoQuestion, Outcome]]) -> dict[str, Any]:
    right = [(q.kind, is_right(q, got)) for q, got in rows]
    by_kind = {
        kind: [sum(ok for k, ok in right if k == kind), sum(k == kind for k, _ in right)]
        for kind in KINDS
        if any(k == kind for k, _ in right)
    }
    return {
        "right": sum(ok for _, ok in right),
        "n": len(rows),
        "by_kind": by_kind,
        "abstained": sum(got.status == "abstained" for _, got in rows),
        "failed": [q.id for q, got in rows if got.status == "error"],
        "seconds_per_question": round(sum(got.seconds for _, got in rows) / max(len(rows), 1), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument("--show", action="store_true", help="print each question's answer")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="a questions file (JSONL)")
    parser.add_argument("--naive", action="store_true", help="answer by the naive baseline instead")
    args = parser.parse_args()
    result = summary(run_all(load(args.questions, args.limit), args.show, args.naive))
    for kind, (right, n) in result["by_kind"].items():
        print(f"{kind}: right {right} / {n}")
    print(f"all: right {result['right']} / {result['n']}")
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
