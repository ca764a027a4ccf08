"""A fitted sentence ranking for the answer line, measured beside the hand-set one (not shipped).

    python evals/sentence_ranker.py --runs /tmp/dev/runs /tmp/test/runs [--l2 1.0]

The answer line ranks evidence sentences by how much of the question they and their bridge cover
(:func:`~deepresearch.answers.evidence.rank_sentences`). Here a logistic regression re-ranks the
first ``DEPTH`` of them by what code knows of each sentence — its chain's coverage and names, its
own, its place in its passage, whether it holds a candidate of the kind asked — fitted on the dev
half only (agent rows from ``--runs`` and each question's context passages), labelled by whether
the sentence holds a gold answer. For each half and origin it prints how often a sentence holding
the answer is first, in the first 3 and in the first 8 (hand-set, fitted), then the answer line's
answer_match / precision under the shipped gate with the sentences in the fitted order: ``order``
keeps each sentence's hand-set score (only which sentences the candidates come from, and their
rank, change), ``probability`` scores each sentence by the fitted P (the candidates inherit it).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from fit_answers import (
    Row,
    as_linear,
    context_rows,
    fit_logistic,
    grounded,
    matrix,
    outcomes,
    run_rows,
    summary,
)

import deepresearch.answers.ground as ground
from deepresearch.answers.candidates import candidates
from deepresearch.answers.evidence import Ranked, Sentence, rank_sentences, sentence_pool
from deepresearch.answers.learned import Linear, confidence_gate
from deepresearch.answers.question import QuestionFrame, frame_question
from deepresearch.evaluation.scoring import answer_match
from deepresearch.text import key_stems

DEPTH = 40
OPEN_KINDS = ("date", "number", "person", "place", "entity")
FEATURES = ("score", "coverage", "own", "via", "names", "names_own", "lead", "position", "length", "typed")


def features(frame: QuestionFrame, evidence: Ranked, position: int) -> dict[str, float]:
    sentence = evidence.sentence
    question = set(frame.terms)
    held = [c for c in candidates(sentence.text, frame.kind) if not _question_text(c, frame)]
    return {
        "score": evidence.score,
        "coverage": evidence.coverage,
        "own": _share(question, sentence.all_terms),
        "via": float(evidence.via is not None),
        "names": _share(frame.names, evidence.chain_terms, 1.0),
        "names_own": _share(frame.names, sentence.all_terms, 1.0),
        "lead": float(position == 0),
        "position": math.log1p(position),
        "length": math.log1p(len(sentence.text.split())),
        "typed": float(bool(held)),
    }


def _question_text(cand: str, frame: QuestionFrame) -> bool:
    terms = set(key_stems(cand))
    return (
        cand.lower() in frame.text.lower() or bool(terms) and len(terms & set(frame.terms)) >= len(terms) / 2
    )


def _share(wanted: frozenset[str] | set[str], held: frozenset[str], empty: float = 0.0) -> float:
    return len(wanted & held) / len(wanted) if wanted else empty


def _positions(pool: Sequence[Sentence]) -> dict[int, int]:
    """Each pooled sentence's place in its passage (by object identity; 0 opens the passage)."""
    seen: dict[int, int] = {}
    out = {}
    for sentence in pool:
        out[id(sentence)] = seen.get(sentence.source_id, 0)
        seen[sentence.source_id] = out[id(sentence)] + 1
    return out


def ranked_with_features(row: Row) -> tuple[QuestionFrame, list[Ranked], list[dict[str, float]]]:
    frame = row.frame
    pool = sentence_pool(row.sources)
    ranked = rank_sentences(frame.terms, pool, frame.names, frame.text, optional=frame.describes)[:DEPTH]
    at = _positions(pool)
    return frame, ranked, [features(frame, r, at[id(r.sentence)]) for r in ranked]


def fit(rows: Sequence[Row], l2: float) -> Linear:
    feats: list[dict[str, float]] = []
    labels: list[float] = []
    for row in rows:
        frame, ranked, found = ranked_with_features(row)
        if frame.kind in OPEN_KINDS:
            feats += found
            labels += [answer_match(r.sentence.text, row.answers) for r in ranked]
    w, b, s = fit_logistic(matrix(feats, FEATURES), np.array(labels), l2)
    print(f"fitted on {len(labels)} sentences ({int(sum(labels))} hold the answer)")
    return as_linear(FEATURES, w, b, s)


def recall(rows: Sequence[Row], ranker: Linear) -> tuple[dict[int, float], dict[int, float]]:
    """How often a sentence holding the answer is first, in the first 3 and in the first 8: in the
    hand-set order, then in the fitted one (each row's features computed once for both)."""
    hits = {order: {1: 0, 3: 0, 8: 0} for order in ("hand-set", "fitted")}
    asked = 0
    for row in rows:
        frame, ranked, found = ranked_with_features(row)
        holds = [answer_match(r.sentence.text, row.answers) for r in ranked]
        if frame.kind not in OPEN_KINDS or not any(holds):
            continue
        asked += 1
        orders = {
            "hand-set": list(range(len(ranked))),
            "fitted": sorted(range(len(ranked)), key=lambda i: -ranker.logit(found[i])),
        }
        for name, order in orders.items():
            for k in hits[name]:
                hits[name][k] += any(holds[i] for i in order[:k])
    hand_set, fitted = (
        {k: round(v / asked, 3) if asked else 0.0 for k, v in h.items()} for h in hits.values()
    )
    return hand_set, fitted


def reordering(ranker: Linear, probability: bool) -> Callable[..., list[Ranked]]:
    """``rank_sentences`` followed by the fitted order, for the answer line to use."""

    def ranked(terms: Sequence[str], pool: Sequence[Sentence], *args: Any, **kwargs: Any) -> list[Ranked]:
        hand_set = rank_sentences(terms, pool, *args, **kwargs)[:DEPTH]
        frame = frame_question(args[1] if len(args) > 1 else kwargs["question_text"])
        positions = _positions(pool)
        scored = [(ranker.probability(features(frame, r, positions[id(r.sentence)])), r) for r in hand_set]
        scored.sort(key=lambda pair: -pair[0])
        return [replace(r, score=p) if probability else r for p, r in scored]

    return ranked


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=Path, nargs="+", required=True, help="eval run folders (HOME/runs)")
    parser.add_argument("--l2", type=float, default=1.0)
    args = parser.parse_args()
    agent, contexts = run_rows(args.runs), context_rows()
    ranker = fit([r for r in agent + contexts if r.half == "dev"], args.l2)
    print({n: round(w, 2) for n, w in ranker.weights.items()})
    gate = confidence_gate(None)
    original = ground.rank_sentences
    for half in ("dev", "test"):
        for origin, part in (("agent", agent), ("context", contexts)):
            rows = [r for r in part if r.half == half]
            hand_set, fitted = recall(rows, ranker)
            print(f"{half} {origin} ({len(rows)}): answer sentence at 1/3/8, hand-set {hand_set}")
            print(f"  fitted {fitted}")
            print(f"  answer line, hand-set order: {summary(outcomes(rows, grounded(gate)))}")
            for name, probability in (("order", False), ("probability", True)):
                ground.rank_sentences = reordering(ranker, probability)  # type: ignore[assignment]
                print(f"  answer line, fitted {name}: {summary(outcomes(rows, grounded(gate)))}")
                ground.rank_sentences = original


if __name__ == "__main__":
    main()
