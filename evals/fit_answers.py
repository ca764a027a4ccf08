"""Fit the grounded answer's candidate scorer and abstention on the dev half; report both halves.

    python evals/answer_dev.py collect --limit 200 --seed 0              # sources the agent reads
    python evals/answer_dev.py collect --limit 80 --seed 0 --drop-gold   # … without the gold passages
    python evals/fit_answers.py [--write] [--target 0.75] [--l2 1.0]

or, from the run folders of the evals a user runs (the sources the current agent reads):

    DEEPRESEARCH_HOME=/tmp/dev deepresearch eval ../shared/eval/questions.jsonl \
        --corpus ../shared/eval/corpus.jsonl --half dev --seed 0            # likewise /tmp/test
    DEEPRESEARCH_HOME=/tmp/nogold deepresearch eval … --half test --seed 0 --drop-gold
    python evals/fit_answers.py --runs /tmp/dev/runs /tmp/test/runs --nogold-runs /tmp/nogold/runs

Rows come from ``evals/out/sources.jsonl`` (and ``sources-nogold.jsonl`` when present) or the
``--runs`` folders, and from each question's context passages (with and without the gold). Each
question goes to the dev or test half by :func:`deepresearch.evaluation.dataset.half_of`; only dev
rows are fitted on. Two logistic regressions, fitted with a few lines of numpy:

- **candidate**: each candidate span of the top sentences, labelled by whether it matches a gold
  answer, over the features :func:`deepresearch.answers.ground.occurrences` computes;
- **confidence**: the fitted best candidate of each question (gold and no-gold runs), labelled by
  whether it is right, over :func:`deepresearch.answers.ground.confidence_features`.

An answer is stated when the confidence is at least the threshold: by default the highest whose
dev answer_match (agent and context rows) is not below the hand-set scoring's, so the gate trades
no right answers for its precision on dev; ``--threshold`` sets it, ``--target`` picks the lowest
whose dev precision when answering reaches that. Without ``--fit-ranking`` that is the default
gate of the answer line (the confidence over the hand-set ranking).
``--cv`` first prints the confidence's 10-fold cross-validated log-loss and AUC on dev (a
question's rows in one fold), so that a feature set (``--confidence-features a,b,…``) is chosen
on dev, not by the test half. It prints, for dev and test beside the hand-set support gate:
answer_match, precision when answering, abstention with the gold passages dropped, and the test
half's precision/coverage curve.
``--write`` stores the weights in ``src/deepresearch/data/answer_weights.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from answer_dev import answer_dense, rows_from_runs, stored_source

from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.feature_set import CONFIDENCE_FEATURES as DECLARED
from deepresearch.answers.features import confidence_features, occurrences, score_candidates
from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import WEIGHTS_FILE, AnswerWeights, Linear, confidence_gate, read_weights
from deepresearch.answers.question import QuestionFrame, frame_question
from deepresearch.citations import Source
from deepresearch.evaluation.dataset import half_of
from deepresearch.evaluation.scoring import answer_match

OUT = Path(__file__).resolve().parent / "out"
EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
WEIGHTS = Path(__file__).resolve().parents[1] / "src" / "deepresearch" / "data" / WEIGHTS_FILE
CANDIDATE_FEATURES = (
    "log_score", "coverage", "rank", "top", "proximity", "typed", "bridge", "via", "names", "words",
    "agree", "member", "non_member", "name_cue", "unit", "life_date", "year_number",
    "not_person", "defined", "subject", "nationality", "acronym_asked", "place_cue",
)  # fmt: skip
CONFIDENCE_FEATURES = tuple(DECLARED)


@dataclass(frozen=True)
class Row:
    qid: str
    half: str
    question: str
    answers: list[str]
    sources: list[Source]
    gold_read: bool  # False for the runs whose gold passages were dropped

    @property
    def frame(self) -> QuestionFrame:
        return frame_question(self.question)


def load_corpus(path: Path) -> dict[str, dict[str, Any]]:
    """A corpus file's passages by ``doc_id``."""
    with path.open(encoding="utf-8") as lines:
        return {d["doc_id"]: d for d in map(json.loads, lines)}


def doc_sources(docs: Sequence[dict[str, Any]]) -> list[Source]:
    """Corpus passages as the sources of a row, numbered from 1 as a run numbers them."""
    return [
        Source(id=i, url=f"doc://{d['doc_id']}", title=d["title"], content=d["text"], doc_id=d["doc_id"])
        for i, d in enumerate(docs, 1)
    ]


def context_rows(
    drop_gold: bool = False, questions: Path | None = None, corpus_path: Path | None = None
) -> list[Row]:
    """Each question with its own context passages as the sources (gold and distractors, the
    HotpotQA distractor setting): labelled rows that need no agent run. ``drop_gold`` leaves the
    gold passages out (the answer should then be an abstention)."""
    corpus = load_corpus(corpus_path or EVAL / "corpus.jsonl")
    rows = []
    for line in (questions or EVAL / "questions.jsonl").open(encoding="utf-8"):
        q = json.loads(line)
        ids = q.get("context_doc_ids") or q["gold_doc_ids"]
        docs = [corpus[d] for d in ids if d in corpus and not (drop_gold and d in q["gold_doc_ids"])]
        rows.append(
            Row(q["qid"], half_of(q["qid"]), q["question"], q["answers"], doc_sources(docs), not drop_gold)
        )
    return rows


def run_rows(folders: Sequence[Path], gold_read: bool = True) -> list[Row]:
    """Rows from the run folders a ``deepresearch eval`` wrote (``DEEPRESEARCH_HOME=… deepresearch
    eval …`` keeps them under ``HOME/runs``): the sources the current agent read, no collect step.
    ``gold_read`` False for an eval run with ``--drop-gold``."""
    return [
        Row(
            r["qid"],
            half_of(r["qid"]),
            r["question"],
            r["answers"],
            [stored_source(s) for s in r["sources"]],
            gold_read,
        )
        for r in rows_from_runs(folders)
    ]


def load_rows() -> list[Row]:
    rows = []
    for name, gold_read in (("sources.jsonl", True), ("sources-nogold.jsonl", False)):
        path = OUT / name
        for line in path.open(encoding="utf-8") if path.exists() else ():
            data = json.loads(line)
            sources = [stored_source(s) for s in data["sources"]]
            half = half_of(data["qid"])
            rows.append(Row(data["qid"], half, data["question"], data["answers"], sources, gold_read))
    return rows


def _ranked(row: Row, top: int):  # type: ignore[no-untyped-def]
    frame = row.frame
    pool = sentence_pool(row.sources)
    ranked = rank_sentences(
        frame.terms, pool, frame.names, frame.text, optional=frame.describes, dense=answer_dense()
    )
    return frame, ranked[:top]


def _open(frame: QuestionFrame) -> bool:
    """Questions the candidate scorer answers (yes/no and choice questions are decided apart)."""
    return not (frame.kind in ("yesno", "choice") and frame.options) and frame.kind != "yesno"


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> tuple[np.ndarray, float, np.ndarray]:
    """Newton's method on the L2-penalised log-loss; features scaled by their spread first."""
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    xb = np.hstack([x / scale, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-xb @ w))
        grad = xb.T @ (p - y) + penalty * w
        hess = xb.T @ (xb * (p * (1 - p))[:, None]) + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return w[:-1], float(w[-1]), scale


def as_linear(names: Sequence[str], w: np.ndarray, bias: float, scale: np.ndarray) -> Linear:
    return Linear(
        {n: round(float(v), 5) for n, v in zip(names, w, strict=True)},
        round(bias, 5),
        {n: round(float(s), 5) for n, s in zip(names, scale, strict=True)},
    )


def matrix(features: Sequence[dict[str, float]], names: Sequence[str]) -> np.ndarray:
    return np.array([[f.get(n, 0.0) for n in names] for f in features], dtype=float)


def fit_candidate(rows: Sequence[Row], top: int, l2: float) -> Linear:
    feats, labels = [], []
    for row in rows:
        frame, ranked = _ranked(row, top)
        if not _open(frame):
            continue
        for o in occurrences(frame, ranked):
            feats.append(o.features)
            labels.append(answer_match(o.text, row.answers))
    w, b, s = fit_logistic(matrix(feats, CANDIDATE_FEATURES), np.array(labels), l2)
    print(f"candidate rows: {len(labels)} ({int(sum(labels))} gold spans)")
    return as_linear(CANDIDATE_FEATURES, w, b, s)


def confidence_rows(
    rows: Sequence[Row], top: int, scorer: Linear | None
) -> tuple[list[dict[str, float]], list[float], list[str]]:
    """The best candidate's confidence features per open question, whether it is right, its qid."""
    feats, labels, qids = [], [], []
    for row in rows:
        frame, ranked = _ranked(row, top)
        scored = score_candidates(frame, ranked, scorer) if _open(frame) and ranked else []
        if scored:
            feats.append(confidence_features(frame, scored, scorer is None))
            labels.append(answer_match(scored[0][0], row.answers))
            qids.append(row.qid)
    return feats, labels, qids


def fit_confidence(
    rows: Sequence[Row],
    top: int,
    scorer: Linear | None,
    l2: float,
    names: Sequence[str] = CONFIDENCE_FEATURES,
) -> Linear:
    feats, labels, _ = confidence_rows(rows, top, scorer)
    w, b, s = fit_logistic(matrix(feats, names), np.array(labels), l2)
    print(f"confidence rows: {len(labels)} ({int(sum(labels))} right)")
    return as_linear(names, w, b, s)


def cross_validate(
    rows: Sequence[Row], top: int, scorer: Linear | None, names: Sequence[str], l2: float, folds: int = 10
) -> tuple[float, float]:
    """Log-loss and AUC of the confidence over ``names``, each question predicted by a fit on the
    other folds (a question's rows — agent, context, without gold — stay in one fold): a feature
    set is chosen on dev by this, not by the test half."""
    feats, labels, qids = confidence_rows(rows, top, scorer)
    x, y = matrix(feats, names), np.array(labels)
    order = sorted(set(qids))
    np.random.default_rng(0).shuffle(order)
    place = {q: i for i, q in enumerate(order)}
    fold = np.array([place[q] % folds for q in qids])
    p = np.zeros(len(y))
    for k in range(folds):
        w, b, s = fit_logistic(x[fold != k], y[fold != k], l2)
        p[fold == k] = 1 / (1 + np.exp(-((x[fold == k] / s) @ w + b)))
    loss = float(-np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9)))
    return loss, auc(p, y)


def auc(scores: np.ndarray, labels: np.ndarray) -> float:
    """The chance that a right row scores above a wrong one (Mann-Whitney, from the ranks)."""
    ranks = np.argsort(np.argsort(scores)) + 1
    right = labels.sum()
    return float((ranks[labels == 1].sum() - right * (right + 1) / 2) / (right * (len(labels) - right)))


def outcomes(
    rows: Sequence[Row], answer: Callable[[Row], tuple[str, bool, float | None]]
) -> list[tuple[bool, bool, float]]:
    """(answered, right, confidence) per row."""
    out = []
    for row in rows:
        text, answered, confidence = answer(row)
        sure = 1.0 if confidence is None else confidence  # yes/no and choice: decided without the gate
        out.append((answered, bool(answered and answer_match(text, row.answers)), sure))
    return out


def summary(marks: Sequence[tuple[bool, bool, float]]) -> dict[str, float]:
    answered = [m for m in marks if m[0]]
    right = sum(m[1] for m in marks)
    return {
        "n": len(marks),
        "answer_match": round(right / len(marks), 3) if marks else 0.0,
        "precision": round(right / len(answered), 3) if answered else 0.0,
        "abstained": round(1 - len(answered) / len(marks), 3) if marks else 0.0,
    }


def grounded(weights: AnswerWeights | None) -> Callable[[Row], tuple[str, bool, float | None]]:
    def answer(row: Row) -> tuple[str, bool, float | None]:
        got = ground_answer(row.question, row.sources, weights=weights, dense=answer_dense())
        return got.text, got.status != "abstained", got.confidence

    return answer


def curve(rows: Sequence[Row], weights: AnswerWeights) -> list[tuple[float, float, float]]:
    """(threshold, coverage, precision) over thresholds, on ``rows``."""
    loose = replace(weights, threshold=0.0)
    marks = [m for m in outcomes(rows, grounded(loose))]
    points = []
    for t in [i / 20 for i in range(20)]:
        kept = [m for m in marks if m[0] and m[2] >= t]
        precision = sum(m[1] for m in kept) / len(kept) if kept else 1.0
        points.append((t, len(kept) / len(marks), precision))
    return points


def hold_threshold(rows: Sequence[Row], weights: AnswerWeights) -> float:
    """The highest threshold whose answer_match on ``rows`` is not below the hand-set scoring's:
    the gate buys precision without giving up right answers (on dev)."""
    loose = replace(weights, threshold=0.0)
    marks = outcomes(rows, grounded(loose))
    hand_set = sum(m[1] for m in outcomes(rows, grounded(None)))
    held = [t for t in (i / 20 for i in range(20)) if sum(m[1] and m[2] >= t for m in marks) >= hand_set]
    return max(held, default=0.0)


def choose_threshold(rows: Sequence[Row], weights: AnswerWeights, target: float) -> float:
    for t, _, precision in curve(rows, weights):
        if precision >= target:
            return t
    return 0.95


def report(name: str, rows: Sequence[Row], weights: AnswerWeights | None) -> dict[str, float]:
    gold = summary(outcomes([r for r in rows if r.gold_read], grounded(weights)))
    dropped = [r for r in rows if not r.gold_read]
    if dropped:
        gold["abstained_nogold"] = summary(outcomes(dropped, grounded(weights)))["abstained"]
    print(f"  {name}: {json.dumps(gold)}")
    return gold


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--top", type=int, default=8, help="sentences whose candidates are scored")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument(
        "--threshold", type=float,
        help="state an answer when P(right) is at least this (default: the highest that keeps dev "
        "answer_match level with the hand-set scoring)",
    )  # fmt: skip
    parser.add_argument("--target", type=float, help="instead, the lowest threshold with this dev precision")
    parser.add_argument("--write", action="store_true", help="ship the weights (the package's data file)")
    parser.add_argument("--out", type=Path, help="write the weights here instead (not shipped)")
    parser.add_argument("--no-context", dest="context", action="store_false", help="agent rows only")
    parser.add_argument("--fit-ranking", action="store_true", help="fit the candidate scorer too")
    parser.add_argument(
        "--confidence-features", type=lambda v: tuple(v.split(",")), default=CONFIDENCE_FEATURES,
        help="comma-separated features of the confidence model (default: all of CONFIDENCE_FEATURES)",
    )  # fmt: skip
    parser.add_argument(
        "--cv", action="store_true",
        help="first print the dev half's 10-fold cross-validated log-loss and AUC of the confidence",
    )  # fmt: skip
    parser.add_argument(
        "--agent-confidence", dest="context_confidence", action="store_false",
        help="fit the confidence on agent rows only (default: dev context rows too)",
    )  # fmt: skip
    parser.add_argument(
        "--runs", type=Path, nargs="*", default=[],
        help="agent rows from these eval run folders (HOME/runs) instead of evals/out/sources*.jsonl",
    )  # fmt: skip
    parser.add_argument("--nogold-runs", type=Path, nargs="*", default=[], help="… of --drop-gold evals")
    args = parser.parse_args()
    rows = run_rows(args.runs) + run_rows(args.nogold_runs, False) if args.runs else load_rows()
    contexts = context_rows() + context_rows(drop_gold=True)
    dev = [r for r in rows if r.half == "dev"]
    context = [r for r in contexts if r.half == "dev"]
    train = [r for r in dev + context if r.gold_read] if args.context else [r for r in dev if r.gold_read]
    scorer = fit_candidate(train, args.top, args.l2) if args.fit_ranking else None
    confidence_set = dev + (context if args.context_confidence else [])
    if args.cv:
        loss, area = cross_validate(confidence_set, args.top, scorer, args.confidence_features, args.l2)
        print(f"dev 10-fold CV of the confidence: log-loss {loss:.4f}, AUC {area:.3f}")
    confidence = fit_confidence(confidence_set, args.top, scorer, args.l2, args.confidence_features)
    weights = AnswerWeights(scorer, confidence, 0.0, args.top)
    gold_dev = [r for r in dev if r.gold_read] + [r for r in context if r.gold_read]
    threshold = hold_threshold(gold_dev, weights) if args.threshold is None else args.threshold
    if args.target is not None:
        threshold = choose_threshold(gold_dev, weights, args.target)
    weights = AnswerWeights(scorer, confidence, threshold, args.top)
    results: dict[str, dict[str, dict[str, float]]] = {}
    for half in ("dev", "test"):
        for origin, part in (("agent", rows), ("context", contexts)):
            chosen = [r for r in part if r.half == half]
            print(f"{half} half, {origin} sources ({sum(r.gold_read for r in chosen)} questions):")
            results[f"{half}/{origin}"] = {
                "hand_set": report("support gate (hand-set)", chosen, None),
                "fitted" if scorer else "default": report(f"confidence >= {threshold}", chosen, weights),
            }
    test = [r for r in rows if r.half == "test" and r.gold_read]
    print("test precision/coverage curve (agent sources):")
    for t, cov, prec in curve(test, weights):
        print(f"  t={t:.2f} coverage={cov:.3f} precision={prec:.3f}")
    if args.write or args.out:
        meta: dict[str, object] = {"fitted_by": " ".join(["python evals/fit_answers.py", *sys.argv[1:]])}
        meta["l2"] = args.l2
        meta["results"] = results
        meta["dev_questions"] = len(dev)
        final = AnswerWeights(scorer, confidence, threshold, args.top, meta)
        path = args.out or WEIGHTS
        path.write_text(json.dumps(final.to_json(), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {path}")


def gate_from(path: Path | None) -> AnswerWeights | None:
    """The default gate of the answer line from a weights file (``--weights``, e.g. an earlier
    fit kept to measure against), or the shipped one when ``path`` is None."""
    if path is None:
        return confidence_gate(None)
    return replace(read_weights(path), candidate=None, one_hop_outright=True)


if __name__ == "__main__":
    main()
