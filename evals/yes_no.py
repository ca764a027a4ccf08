"""Yes/no questions: code's answer line alone, and with the embedded model where code leaves an
open yes/no question unanswered: its P("yes") over code's best lines (``ground.YES_AT``), then the
question settled through the open question it checks (``chained.through_claim``: the model's
rewrite, the answer step with the reader and judge on that question, the model's P over the
answer's line).

    python evals/yes_no.py qwen1.5b [--half dev|test] [--cache F.json] [--show]

Rows: every yes/no question of the :mod:`contexts` sets of that half (their own passages, with
and without the gold ones), and the demo questions' yes/no ones over their gold passages or,
for the "without" line, over four other demo passages drawn by the question's id (the demo sets
are not split by half: ``demo`` and ``own_words_dev`` are read with ``--half dev``,
``own_words`` — never fitted — with ``--half test``; ``yes_no_dev`` with ``--half dev``). The
model's P and replies per prompt are kept in ``--cache`` so a second run costs nothing. Prints per
set: questions, stated and right for code alone, for the answer step before the claim chain
(``P only``) and for the shipped one, and for the rows without gold the share abstained.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from answer_dev import answer_dense
from contexts import DATA, DEMO_CORPUS, sets
from fit_answers import Row, doc_sources, gate_from, load_corpus

from deepresearch.answers.claims import claim_check
from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.reader import judge, read, weigh_yes_no
from deepresearch.chained import through_claim
from deepresearch.evaluation.scoring import answer_match
from deepresearch.llm.base import Completion, Message
from deepresearch.llm.embedded import EmbeddedModel

DEMO_SETS = {
    "dev": ("demo_questions.jsonl", "demo_questions_own_words_dev.jsonl", "demo_questions_yes_no_dev.jsonl"),
    "test": ("demo_questions_own_words.jsonl",),
}
DISTRACTORS = 4


class CachedYesNo:
    """The embedded model's P("yes") and replies, kept per prompt in a JSON file; loaded on first
    need."""

    def __init__(self, name: str, path: Path, models: Path) -> None:
        self._name, self._path, self._models = name, path, models
        self._kept: dict[str, float] = json.loads(path.read_text()) if path.exists() else {}
        self._model: EmbeddedModel | None = None

    def yes_probability(self, messages: list[Message]) -> float:
        key = hashlib.sha1(repr(messages).encode()).hexdigest()
        if key not in self._kept:
            self._kept[key] = self._loaded().yes_probability(messages)
            self._path.write_text(json.dumps(self._kept))
        return float(self._kept[key])

    def complete(
        self,
        messages: list[Message],
        *,
        step: str = "",
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
    ) -> Completion:
        key = hashlib.sha1(repr((messages, schema, max_tokens)).encode()).hexdigest()
        if key not in self._kept:
            reply = self._loaded().complete(messages, step=step, schema=schema, max_tokens=max_tokens)
            self._kept[key] = reply.text
            self._path.write_text(json.dumps(self._kept))
        return Completion(str(self._kept[key]))

    def _loaded(self) -> EmbeddedModel:
        if self._model is None:
            self._model = EmbeddedModel.from_name(
                self._name, cache_dir=self._models, n_threads=2, n_threads_batch=2
            )
        return self._model


def demo_rows(name: str, without_gold: bool) -> list[Row]:
    """A demo file's yes/no questions over their gold passages, or over other demo passages."""
    corpus = load_corpus(DEMO_CORPUS)
    ids = sorted(corpus)
    rows = []
    for q in map(json.loads, (DATA / name).open(encoding="utf-8")):
        if q["kind"] != "yesno":
            continue
        if without_gold:
            others = [i for i in ids if i not in q["doc_ids"]]
            docs = [corpus[d] for d in random.Random(q["id"]).sample(others, DISTRACTORS)]
        else:
            docs = [corpus[d] for d in q["doc_ids"] if d in corpus]
        rows.append(Row(q["id"], "dev", q["question"], q["answers"], doc_sources(docs), not without_gold))
    return rows


def groups(half: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for name, (gold, dropped) in sets(half).items():
        if name.startswith(("demo", "own_words")):
            continue
        out[name] = [r for r in gold if r.frame.kind == "yesno"]
        out[f"{name}-nogold"] = [r for r in dropped if r.frame.kind == "yesno"]
    for file in DEMO_SETS[half]:
        name = file.removesuffix(".jsonl").removeprefix("demo_questions_") or "demo"
        out[name] = demo_rows(file, False)
        out[f"{name}-nogold"] = demo_rows(file, True)
    return {name: rows for name, rows in out.items() if rows}


def _said(answer: GroundedAnswer) -> str | None:
    return answer.text if answer.status != "abstained" else None


def tally(rows: Sequence[Row], model: CachedYesNo, show: bool) -> dict[str, int]:
    gate, dense = gate_from(None), answer_dense()
    check = claim_check(model, model)
    counts = {f"{p}{k}": 0 for p in ("code_", "p_", "") for k in ("stated", "right")} | {"n": 0}
    for row in rows:

        def ask(question: str, row: Row = row) -> GroundedAnswer:
            return ground_answer(
                question,
                row.sources,
                weights=gate,
                dense=dense,
                reader=lambda frame, ranked: read(model, frame, ranked),
                judge=lambda frame, reading: judge(model, frame, reading),
                yes_no=lambda frame, ranked: weigh_yes_no(model, frame, ranked),
            )

        code = _said(ground_answer(row.question, row.sources, weights=gate, dense=dense))
        weighed = ask(row.question)
        shipped = _said(through_claim(row.question, row.sources, weighed, ask, check))
        counts["n"] += 1
        for prefix, said in (("code_", code), ("p_", _said(weighed)), ("", shipped)):
            counts[f"{prefix}stated"] += said is not None
            counts[f"{prefix}right"] += bool(said and answer_match(said, row.answers))
        if show:
            print(
                f"   {row.answers[:1]} code={code} P only={_said(weighed)} shipped={shipped} | {row.question}"
            )
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("model", help="an embedded model name (qwen1.5b)")
    parser.add_argument("--half", choices=["dev", "test"], default="dev")
    parser.add_argument("--cache", type=Path, default=Path("evals/out/yes_no_cache.json"))
    parser.add_argument("--models", type=Path, default=Path("/tmp/deepresearch-models"), help="joined models")
    parser.add_argument("--show", action="store_true", help="print every question's answers")
    args = parser.parse_args()
    model = CachedYesNo(args.model, args.cache, args.models)
    for name, rows in groups(args.half).items():
        c = tally(rows, model, args.show)
        line = (
            f"{name:22} n={c['n']:3} code: stated {c['code_stated']:2} right {c['code_right']:2}"
            f" | P only: stated {c['p_stated']:2} right {c['p_right']:2}"
            f" | shipped: stated {c['stated']:2} right {c['right']:2}"
        )
        if name.endswith("-nogold"):
            line += f" | abstained {1 - c['stated'] / c['n']:.3f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
