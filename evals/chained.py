"""Two-hop questions asked again as their hop of the bridge (``chained.through_bridge``), per set.

    python evals/chained.py --set hard=contexts --replies hard=/tmp/hard.json \
        --set hard-nogold=contexts-nogold --replies hard-nogold=/tmp/hard-nogold.json
    python evals/chained.py --set hard=/tmp/runs/hard-gold --replies hard=/tmp/run-hard-gold.json

For each row, the product's answer step (code's answer line, the reader and its judge) answers the
question; the reader's reply and the judge's P are replayed from an ``evals/reader.py`` cache
(``--replies NAME=FILE``; a set without one is answered by code alone, which abstains at least as
often, so the chain is tried on more rows). Where it abstains, ``through_bridge`` asks the hop of
the bridge a sentence read names, with the reader and judge live (the embedded model, its replies
kept in ``--reads`` by prompt, so a rerun costs nothing). Prints answer_match / precision / stated
before and after, and each question the chain changed with ``--show``. ``NAME=contexts`` is that
set's dev half over its own passages (``evals/contexts.py``), ``NAME-nogold=contexts-nogold``
without its gold passages, any other value a folder of run folders; ``--half test`` takes the
contexts' test half.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from answer_dev import answer_dense
from fit_answers import Row, gate_from, run_rows
from reader import replayed

from deepresearch.answers.ground import GroundedAnswer, ground_answer
from deepresearch.answers.reader import TOP_LINES, judge, read
from deepresearch.chained import through_bridge
from deepresearch.evaluation.scoring import answer_match
from deepresearch.llm.base import Completion, Message, Usage
from deepresearch.llm.embedded import EmbeddedModel


class KeptReads:
    """The embedded model's replies and P("yes") kept by prompt in a JSON file."""

    def __init__(self, path: Path, model_dir: Path) -> None:
        self._path, self._model_dir = path, model_dir
        self._kept: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
        self._model: EmbeddedModel | None = None

    def _live(self) -> EmbeddedModel:
        if self._model is None:
            self._model = EmbeddedModel.from_name(
                "qwen1.5b", cache_dir=self._model_dir, n_threads=2, n_threads_batch=2
            )
        return self._model

    def _kept_or(self, key: str, make: Any) -> Any:
        digest = hashlib.sha1(key.encode()).hexdigest()
        if digest not in self._kept:
            self._kept[digest] = make()
            self._path.write_text(json.dumps(self._kept))
        return self._kept[digest]

    def complete(self, messages: list[Message], **options: Any) -> Completion:
        key = "c" + repr(messages) + repr(options.get("schema"))
        text = self._kept_or(key, lambda: self._live().complete(messages, **options).text)
        return Completion(text=text, usage=Usage(0, 0, 1), finish_reason="stop")

    def yes_probability(self, messages: list[Message]) -> float:
        return float(self._kept_or("y" + repr(messages), lambda: self._live().yes_probability(messages)))


def _rows(name: str, where: str, half: str) -> list[Row]:
    if where in ("contexts", "contexts-nogold"):
        from contexts import sets

        return sets(half)[name.removesuffix("-nogold")][where == "contexts-nogold"]
    return run_rows([Path(where)])


def _said(answer: GroundedAnswer) -> str | None:
    return answer.text if answer.status != "abstained" else None


def chain(model: KeptReads, top: int = TOP_LINES) -> Callable[[Row, GroundedAnswer], GroundedAnswer]:
    """``through_bridge`` over a row's sources, the hop answered by the product's answer step
    with the reader (shown ``top`` chains) and judge of ``model``."""
    gate, dense = gate_from(None), answer_dense()
    live = {"reader": lambda f, r: read(model, f, r, top), "judge": lambda f, rd: judge(model, f, rd)}

    def chained(row: Row, whole: GroundedAnswer) -> GroundedAnswer:
        def ask(question: str) -> GroundedAnswer:
            return ground_answer(question, row.sources, weights=gate, dense=dense, **live)

        return through_bridge(row.question, row.sources, whole, ask)

    return chained


def measure(
    rows: list[Row], replies: dict[str, Any], model: KeptReads, show: bool, top: int = TOP_LINES
) -> dict[str, list[int]]:
    gate = gate_from(None)
    chained = chain(model, top)
    counts = {"before": [0, 0], "after": [0, 0]}
    for row in rows:
        cached = replies.get(row.qid)
        whole = replayed(row, gate, cached, top)
        final = chained(row, whole)
        for key, answer in (("before", whole), ("after", final)):
            said = _said(answer)
            counts[key][0] += said is not None
            counts[key][1] += bool(said and answer_match(said, row.answers))
        if show and final is not whole:
            right = "right" if answer_match(final.text, row.answers) else "wrong"
            print(f"  {right}: {final.text!r} | gold {row.answers[:1]} | {row.question}")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", required=True, help="NAME=contexts|contexts-nogold|RUNS")
    parser.add_argument("--replies", action="append", default=[], help="NAME=evals/reader.py cache")
    parser.add_argument("--reads", type=Path, default=Path("evals/out/chained-reads.json"))
    parser.add_argument("--models", type=Path, default=Path("/tmp/deepresearch-models"))
    parser.add_argument("--half", default="dev", choices=["dev", "test"])
    parser.add_argument("--show", action="store_true")
    parser.add_argument(
        "--top",
        type=int,
        default=TOP_LINES,
        help="the chains the cached replies were read over (evals/reader.py read --top)",
    )
    args = parser.parse_args()
    replies = {name: json.loads(Path(f).read_text()) for name, f in (r.split("=", 1) for r in args.replies)}
    model = KeptReads(args.reads, args.models)
    for name, where in (s.split("=", 1) for s in args.set):
        rows = _rows(name, where, args.half)
        counts = measure(rows, replies.get(name, {}), model, args.show, args.top)
        n = len(rows)
        line = " | ".join(
            f"{key} {right / n:.3f} / {right / max(stated, 1):.3f} ({stated} stated)"
            for key, (stated, right) in counts.items()
        )
        print(f"{name:14} n={n:3} {line}", flush=True)


if __name__ == "__main__":
    main()
