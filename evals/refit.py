"""Fit the answer line's confidence on more than one distribution; check it on a set it never saw.

    python evals/refit.py --fit dev=/tmp/ev/dev/runs --fit reworded=/tmp/ev/reworded/runs \
        --fit twowiki=/tmp/ev/2wiki/runs --check twowiki=/tmp/ev/2wiki/runs [--target 0.6] [--write]

Rows are the sources each ``deepresearch eval`` run read (``--fit NAME=RUNS`` and ``--check
NAME=RUNS``, repeatable). A fit set contributes its rows of the *dev* half (a hash of the qid:
the shared set's split, applied to every set), a check set its rows of the *test* half, so a
question is never both fitted and checked; the shared set's test half is never read here. The
confidence (:data:`deepresearch.answers.features.CONFIDENCE_FEATURES`, a logistic regression) is
fitted on the fit rows; the threshold is the one that gives the most right answers on them at a
precision of at least ``--target``. Printed: answer_match / precision / answered per set for the
shipped weights and the refit, and the refit's calibration on the check rows (predicted P(right)
against the share right, in bins). ``--write`` ships the refit (``data/answer_weights.json``,
with the feature names and registry hash it was fitted on).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
from contexts import labelled
from fit_answers import (
    WEIGHTS,
    Row,
    as_linear,
    confidence_rows,
    curve,
    fit_logistic,
    gate_from,
    grounded,
    matrix,
    outcomes,
    run_rows,
    summary,
)

from deepresearch.answers.feature_set import CONFIDENCE_FEATURES, feature_set_hash
from deepresearch.answers.learned import AnswerWeights

BINS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.01)


def _contexts(half: str) -> dict[str, list[Row]]:
    """Each question with its own context passages (``evals/contexts.py``), with the gold (an
    answer is due) and without it (an abstention is due): rows of the ``half`` of each set, no
    agent run needed. The demo questions are fitted on; the own-words demo questions are only
    ever checked; the shared test half is never read here (it is looked at once per step, by
    ``deepresearch eval``)."""
    return labelled(half, ("shared", "reworded", "demo") if half == "test" else ("own_words",))


def _sets(specs: Sequence[str], half: str) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for spec in specs:
        name, folder = spec.split("=", 1)
        out[name] = [r for r in run_rows([Path(folder)]) if r.half == half]
    return out


def fit(rows: Sequence[Row], l2: float, top: int) -> AnswerWeights:
    feats, labels, _ = confidence_rows(rows, top, None)
    names = tuple(CONFIDENCE_FEATURES)
    w, b, s = fit_logistic(matrix(feats, names), np.array(labels), l2)
    print(f"fitted on {len(labels)} confidence rows ({int(sum(labels))} right)")
    return AnswerWeights(None, as_linear(names, w, b, s), 0.0, top)


def threshold_for(rows: Sequence[Row], weights: AnswerWeights, target: float) -> float:
    """The threshold with the most right answers on ``rows`` at precision ≥ ``target``."""
    best = (-1, 0.95)
    for t, coverage, precision in curve(rows, weights):
        right = coverage * precision
        if precision >= target and right > best[0]:
            best = (right, t)
    return best[1]


def calibration(rows: Sequence[Row], weights: AnswerWeights) -> list[tuple[str, int, float, float]]:
    """(bin, rows, mean predicted, share right) of the best candidate's confidence on ``rows``."""
    feats, labels, _ = confidence_rows(rows, weights.top_sentences, None)
    predicted = np.array([weights.confidence.probability(f) for f in feats])
    right = np.array(labels)
    table = []
    for low, high in zip(BINS, BINS[1:], strict=False):
        inside = (predicted >= low) & (predicted < high)
        if inside.any():
            table.append(
                (
                    f"{low:.1f}-{min(high, 1.0):.1f}",
                    int(inside.sum()),
                    float(predicted[inside].mean()),
                    float(right[inside].mean()),
                )
            )
    return table


def _line(name: str, rows: Sequence[Row], weights: AnswerWeights | None) -> str:
    s = summary(outcomes(rows, grounded(weights)))
    answered = 1 - s["abstained"]
    return f"{name}: {s['answer_match']:.3f} / {s['precision']:.3f} / answered {answered:.3f} (n={s['n']})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--fit", action="append", default=[], help="NAME=RUNS: its dev-half rows are fitted on"
    )
    parser.add_argument(
        "--check", action="append", default=[], help="NAME=RUNS: its test-half rows are checked"
    )
    parser.add_argument(
        "--target", type=float, default=0.6, help="precision the threshold keeps on the fit rows"
    )
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--no-contexts", dest="contexts", action="store_false", help="agent rows only")
    parser.add_argument(
        "--check-contexts",
        action="store_true",
        help="also check the test half's context rows (2Wiki) and the own-words demo questions",
    )
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument(
        "--thresholds",
        type=lambda text: [float(t) for t in text.split(",")],
        default=[],
        help="also print every set at these thresholds (0.3,0.35,0.4): the curve to choose from",
    )
    parser.add_argument("--threshold", type=float, help="ship this threshold instead of the --target one")
    parser.add_argument("--write", action="store_true", help="ship the refit")
    parser.add_argument("--before", type=Path, help="weights to compare with (default: the shipped ones)")
    args = parser.parse_args()
    fitting, checking = _sets(args.fit, "dev"), _sets(args.check, "test")
    if args.contexts:
        fitting.update(_contexts("dev"))
        checking.update(_contexts("test") if args.check_contexts else {})
    train = [r for rows in fitting.values() for r in rows]
    refit = fit(train, args.l2, args.top)
    chosen = args.threshold if args.threshold is not None else threshold_for(train, refit, args.target)
    refit = AnswerWeights(None, refit.confidence, chosen, args.top)
    how = "as asked" if args.threshold is not None else f"precision ≥ {args.target} on the fit rows"
    print(f"threshold {refit.threshold:.2f} ({how})")
    shipped = gate_from(args.before)
    for label, chosen in (("fit (dev half)", fitting), ("check (test half, never fitted)", checking)):
        print(label)
        for name, rows in chosen.items():
            print("  " + _line(f"{name:10} before ", rows, shipped))
            print("  " + _line(f"{name:10} support", rows, None))
            print("  " + _line(f"{name:10} refit  ", rows, refit))
    for threshold in args.thresholds:
        at = replace(refit, threshold=threshold)
        print(f"refit at threshold {threshold:.2f}")
        for name, rows in [*fitting.items(), *checking.items()]:
            print("  " + _line(f"{name:16}", rows, at))
    for name, rows in checking.items():
        print(f"calibration of the refit on {name} (test half): bin, rows, predicted, right")
        for row in calibration(rows, refit):
            print(f"  {row[0]}  {row[1]:3}  {row[2]:.2f}  {row[3]:.2f}")
    if args.write:
        meta = {
            "fitted_by": " ".join(["python evals/refit.py", *sys.argv[1:]]),
            "fit_rows": {n: len(r) for n, r in fitting.items()},
            "features": list(CONFIDENCE_FEATURES),
            "feature_hash": feature_set_hash(),
        }
        final = AnswerWeights(None, refit.confidence, refit.threshold, args.top, meta)
        WEIGHTS.write_text(json.dumps(final.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {WEIGHTS}")


if __name__ == "__main__":
    main()
