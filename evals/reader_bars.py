"""The answer step's right and wrong answers at other bars for the reader's span, per cache.

    python evals/reader_bars.py --top 6 --set hard=contexts --replies hard=/tmp/hard.json \
        --set hard-nogold=contexts-nogold --replies hard-nogold=/tmp/hard-nogold.json
    python evals/reader_bars.py --top 3 --set hard=contexts --replies hard=/tmp/top3.json …

The reader's replies and the judge's P are replayed from ``evals/reader.py`` caches read over
``--top`` chains (``reader.py read --top N``, then ``judge --reader-only --top N``). For each pair
of bars — the least code confidence that states the reader's span (``ground.READER_MIN_CONFIDENCE``)
and the judge's P that states it where the lines shown write every name of the question
(``ground.JUDGE_COVERED_YES``) — prints the answers stated right and wrong over the sets with
gold, and those stated over the sets without (``NAME-nogold``: every one is wrong). Two line
counts compared at equal bars, and at the bars where one states as many wrong answers as the
other, say whether the reader's better reads move the answers the gate lets through (issue 34's
fourteenth step, docs/BENCHMARKS.md). No chain (``evals/chained.py`` adds it).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from chained import _rows
from fit_answers import gate_from
from reader import replayed

from deepresearch.answers import ground
from deepresearch.evaluation.scoring import answer_match

BARS = ((0.5, 0.8), (0.6, 0.8), (0.7, 0.8), (0.5, 0.85), (0.6, 0.85), (0.6, 0.9), (0.7, 0.9))


def tally(
    sets: dict[str, list[Any]], replies: dict[str, dict[str, Any]], top: int
) -> dict[str, dict[str, int]]:
    """Per set: answers stated and right with today's bars (``ground``'s module values)."""
    gate = gate_from(None)
    out: dict[str, dict[str, int]] = {}
    for name, rows in sets.items():
        counts = {"stated": 0, "right": 0}
        for row in rows:
            got = replayed(row, gate, replies.get(name, {}).get(row.qid), top)
            if got.status != "abstained":
                counts["stated"] += 1
                counts["right"] += bool(answer_match(got.text, row.answers))
        out[name] = counts
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", required=True, help="NAME=contexts|contexts-nogold|RUNS")
    parser.add_argument("--replies", action="append", default=[], help="NAME=evals/reader.py cache")
    parser.add_argument("--top", type=int, required=True, help="the chains the caches were read over")
    parser.add_argument("--half", default="dev", choices=["dev", "test"])
    args = parser.parse_args()
    replies = {name: json.loads(Path(f).read_text()) for name, f in (r.split("=", 1) for r in args.replies)}
    sets = {name: _rows(name, where, args.half) for name, where in (s.split("=", 1) for s in args.set)}
    for floor, covered in BARS:
        ground.READER_MIN_CONFIDENCE, ground.JUDGE_COVERED_YES = floor, covered
        counts = tally(sets, replies, args.top)
        gold = [c for name, c in counts.items() if not name.endswith("-nogold")]
        right = sum(c["right"] for c in gold)
        wrong = sum(c["stated"] - c["right"] for c in gold)
        no_gold = sum(c["stated"] for name, c in counts.items() if name.endswith("-nogold"))
        each = " ".join(f"{name}:{c['right']}/{c['stated']}" for name, c in counts.items())
        print(f"floor {floor} judge {covered}: right {right} wrong {wrong} no-gold stated {no_gold} | {each}")


if __name__ == "__main__":
    main()
