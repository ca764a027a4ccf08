"""The answer step on each set's comparisons: its yes/no and choice questions, over the set's own
passages (``evals/contexts.py``), with and without their gold passages, code alone (no reader).

    python evals/comparisons.py --half dev [--show]

Prints, per set and over all, how many comparisons the answer line gets right, wrong and
abstains on. ``--show`` prints each one it does not get right (dev half only: never the test
half's questions).
"""

from __future__ import annotations

import argparse
from collections import Counter

from answer_dev import answer_dense
from contexts import sets
from fit_answers import gate_from

from deepresearch.answers.ground import ground_answer
from deepresearch.evaluation.scoring import answer_match


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--half", choices=("dev", "test"), default="dev")
    parser.add_argument("--show", action="store_true", help="print the misses (dev half only)")
    args = parser.parse_args()
    gate, dense = gate_from(None), answer_dense()
    total: Counter[tuple[str, str]] = Counter()
    for name, (gold, no_gold) in sets(args.half).items():
        counts: Counter[tuple[str, str]] = Counter()
        for which, rows in (("gold", gold), ("no gold", no_gold)):
            for row in rows:
                if row.frame.kind not in ("yesno", "choice"):
                    continue
                got = ground_answer(row.question, row.sources, weights=gate, dense=dense)
                right = got.status != "abstained" and answer_match(got.text, row.answers)
                outcome = "abstained" if got.status == "abstained" else ("right" if right else "wrong")
                counts[which, outcome] += 1
                if args.show and args.half == "dev" and which == "gold" and outcome != "right":
                    print(f"   {name} {outcome}: {got.text[:40]!r} gold {row.answers[:1]} | {row.question}")
        total.update(counts)
        if counts:
            print(name, _line(counts), flush=True)
    print("all", _line(total))


def _line(counts: Counter[tuple[str, str]]) -> str:
    return " | ".join(
        f"{which}: right {counts[which, 'right']}, wrong {counts[which, 'wrong']}, "
        f"abstained {counts[which, 'abstained']}"
        for which in ("gold", "no gold")
    )


if __name__ == "__main__":
    main()
