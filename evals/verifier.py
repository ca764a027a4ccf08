"""A model's P(yes) that the answer line's evidence states its answer, beside the fitted confidence.

    python evals/verifier.py smollm2 --runs /tmp/dev/runs /tmp/test/runs     # or qwen0.5b, qwen1.5b

For each question whose best candidate the shipped confidence scores (the answer line with the gate
at threshold 0), the model reads the candidate's sentence (after its bridge sentence), the question
and the proposed answer, and is asked whether the evidence shows it is the answer; its P("yes") is
read from the first token's distribution (:meth:`EmbeddedModel.yes_probability`). Prints per half
the AUC of the confidence, of P(yes) and of both combined (a logistic regression over their logits,
fitted on dev), then answered / right at the combined gate's thresholds beside the shipped gate.
"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
from answer_dev import answer_dense
from fit_answers import auc, fit_logistic, run_rows

from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.evaluation.scoring import answer_match
from deepresearch.llm.base import Message
from deepresearch.llm.embedded import EmbeddedModel

Mark = tuple[str, float, float, bool]  # half, confidence, P(yes), right


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def collect(model: EmbeddedModel, runs: list[Path]) -> list[Mark]:
    gate = confidence_gate(None)
    assert gate is not None, "needs the shipped weights"
    loose = replace(gate, threshold=0.0)
    marks = []
    for row in run_rows(runs):
        got = ground_answer(row.question, row.sources, weights=loose, dense=answer_dense())
        if got.status == "abstained" or got.confidence is None:
            continue
        evidence = f"{got.via_sentence} {got.sentence}".strip()
        ask = (
            f"Evidence: {evidence}\nQuestion: {row.question}\nProposed answer: {got.text}\n"
            "Does the evidence show that the proposed answer is the answer to the question? Reply yes or no."
        )
        p_yes = model.yes_probability(
            [Message("system", "You check answers. Reply yes or no."), Message("user", ask)]
        )
        marks.append((row.half, got.confidence, p_yes, bool(answer_match(got.text, row.answers))))
    return marks


def report(marks: list[Mark], threshold: float) -> None:
    dev = [m for m in marks if m[0] == "dev"]
    x = np.array([[_logit(m[1]), _logit(m[2])] for m in dev])
    w, bias, scale = fit_logistic(x, np.array([m[3] for m in dev], dtype=float), 1.0)
    for half in ("dev", "test"):
        chosen = [m for m in marks if m[0] == half]
        labels = [m[3] for m in chosen]
        both = 1 / (
            1 + np.exp(-((np.array([[_logit(m[1]), _logit(m[2])] for m in chosen]) / scale) @ w + bias))
        )
        y = np.array(labels, dtype=float)
        aucs = (
            auc(np.array([m[1] for m in chosen]), y),
            auc(np.array([m[2] for m in chosen]), y),
            auc(both, y),
        )
        print(f"{half}: {len(chosen)} scored, {sum(labels)} right; AUC confidence {aucs[0]:.3f}, "
              f"P(yes) {aucs[1]:.3f}, both {aucs[2]:.3f}")  # fmt: skip
        shipped = [m for m in chosen if m[1] >= threshold]
        print(f"  shipped gate: answered {len(shipped)}, right {sum(m[3] for m in shipped)}")
        for t in (0.3, 0.35, 0.4, 0.45, 0.5):
            kept = [m for m, p in zip(chosen, both, strict=True) if p >= t]
            print(f"  both >= {t}: answered {len(kept)}, right {sum(m[3] for m in kept)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", help="an embedded model name (smollm2, qwen0.5b, qwen1.5b)")
    parser.add_argument("--runs", nargs="+", required=True, help="run folders of `deepresearch eval`")
    parser.add_argument("--cache", default="/tmp/deepresearch-models", help="where split models are joined")
    args = parser.parse_args()
    model = EmbeddedModel.from_name(args.model, cache_dir=Path(args.cache), n_threads=2, n_threads_batch=2)
    gate = confidence_gate(None)
    report(collect(model, [Path(p) for p in args.runs]), gate.threshold if gate else 0.4)


if __name__ == "__main__":
    main()
