"""The shared dev questions in other words, as an eval set of their own, and the pairs scored.

    python evals/reworded.py write                       # evals/out/reworded.jsonl (120 questions)
    DEEPRESEARCH_HOME=/tmp/ev/reworded deepresearch eval evals/out/reworded.jsonl \
        --corpus ../shared/eval/corpus.jsonl --seed 0
    python evals/reworded.py pairs --originals /tmp/ev/dev/runs --reworded /tmp/ev/reworded/runs
    python evals/reworded.py pairs --as-run --originals … --reworded …   # the runs' own answers
    python evals/reworded.py pairs --originals … --reworded … --replies O.json R.json

``write`` turns ``evals/data/rewordings_dev.jsonl`` (two rewordings by hand of 60 dev-half
questions) into questions with the original's answers and gold passages (qid ``<qid>#r1``,
``#r2``), so ``deepresearch eval`` measures them like any set. ``pairs`` answers, offline, on the
sources each run read: a pair (the original and one rewording) gives the same answer when the
normalised answers are equal, both abstain, or both match the gold; it prints the share of same
answers and answer_match of originals and rewordings (the issue's target: same on ≥ 80 % of pairs,
answer_match within 0.03). ``--as-run`` scores the answer each run stated instead (its
``result.json``: the whole answer step, the reader and its judge included) — the figure a user
sees; ``--replies`` answers with today's whole answer step on the runs' sources, the reader's
replies and the judge's P(yes) replayed from ``evals/reader.py`` caches of each folder (``read
--where-asked``, then ``judge --reader-only``): the figure a user would see from today's answer
step without running the agent again; without either, code's answer step alone.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from answer_dev import EVAL, OUT, rows_from_runs
from chained import KeptReads, chain
from fit_answers import Row, gate_from, run_rows
from reader import replayed

from deepresearch.answers.ground import GroundedAnswer
from deepresearch.answers.learned import AnswerWeights
from deepresearch.answers.reader import TOP_LINES
from deepresearch.evaluation.scoring import answer_match, normalize_answer

REWORDINGS = Path(__file__).resolve().parent / "data" / "rewordings_dev.jsonl"


def write() -> Path:
    originals = {q["qid"]: q for q in map(json.loads, (EVAL / "questions.jsonl").open(encoding="utf-8"))}
    out = OUT / "reworded.jsonl"
    OUT.mkdir(exist_ok=True)
    with out.open("w", encoding="utf-8") as lines:
        for entry in map(json.loads, REWORDINGS.open(encoding="utf-8")):
            original = originals[entry["qid"]]
            for n, text in enumerate(entry["paraphrases"], 1):
                row = {**original, "qid": f"{entry['qid']}#r{n}", "question": text}
                row.pop("supporting_facts", None)
                lines.write(json.dumps(row, ensure_ascii=False) + "\n")
    return out


Step = Callable[[Row, dict[str, Any] | None], GroundedAnswer]
"""The answer step on a row, given its cached reader replies (None: none cached)."""


def replay_step(gate: AnswerWeights | None, top: int = TOP_LINES, chained: KeptReads | None = None) -> Step:
    """Today's answer step with the replies replayed over ``top`` chains (``reader.replayed``), and
    where ``chained`` keeps the live hop reads, two-hop abstentions asked again (``chained.chain``)."""
    hop = chain(chained, top) if chained is not None else None

    def step(row: Row, cached: dict[str, Any] | None) -> GroundedAnswer:
        got = replayed(row, gate, cached, top)
        return hop(row, got) if hop is not None else got

    return step


def _answer(row: Row, step: Step, replies: dict[str, Any] | None) -> tuple[str | None, bool]:
    got = step(row, (replies or {}).get(row.qid))
    stated = got.text if got.status != "abstained" else None
    return stated, bool(stated and answer_match(stated, row.answers))


def _as_run(folders: Path) -> dict[str, tuple[str | None, bool]]:
    """The answer each run in ``folders`` stated, by qid (None where it abstained)."""
    return {
        r["qid"]: (r["stated"], bool(r["stated"] and answer_match(r["stated"], r["answers"])))
        for r in rows_from_runs([folders])
    }


def _same(a: tuple[str | None, bool], b: tuple[str | None, bool]) -> bool:
    if a[0] is None or b[0] is None:
        return a[0] is None and b[0] is None
    return normalize_answer(a[0]) == normalize_answer(b[0]) or (a[1] and b[1])


def _answers(
    folders: Path, step: Step, as_run: bool, replies: Path | None = None
) -> dict[str, tuple[str | None, bool]]:
    if as_run:
        return _as_run(folders)
    cache = json.loads(replies.read_text()) if replies is not None else None
    return {r.qid: _answer(r, step, cache) for r in run_rows([folders])}


def pairs(
    originals: Path,
    reworded: Path,
    step: Step,
    as_run: bool = False,
    replies: Sequence[Path] = (),
) -> dict[str, float]:
    first, second = replies if replies else (None, None)
    by_qid = _answers(originals, step, as_run, first)
    scored = [(qid.split("#")[0], a) for qid, a in _answers(reworded, step, as_run, second).items()]
    kept = [(by_qid[q], a) for q, a in scored if q in by_qid]
    asked = {q for q, _ in scored}
    return {
        "pairs": len(kept),
        "same_answer": round(sum(_same(o, a) for o, a in kept) / len(kept), 3) if kept else 0.0,
        "answer_match_originals": round(sum(by_qid[q][1] for q in asked if q in by_qid) / len(asked), 3),
        "answer_match_rewordings": round(sum(a[1] for _, a in scored) / len(scored), 3) if scored else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("write", help="write evals/out/reworded.jsonl")
    scoring = commands.add_parser("pairs", help="same answer across wordings, on the runs' own sources")
    scoring.add_argument("--originals", type=Path, required=True, help="runs of the dev half")
    scoring.add_argument("--reworded", type=Path, required=True, help="runs of evals/out/reworded.jsonl")
    scoring.add_argument("--weights", type=Path, help="weights file to gate with (default: shipped)")
    scoring.add_argument("--as-run", action="store_true", help="score the answers the runs stated")
    scoring.add_argument(
        "--replies",
        nargs=2,
        type=Path,
        default=(),
        metavar=("ORIGINALS_CACHE", "REWORDED_CACHE"),
        help="today's answer step with these evals/reader.py caches replayed",
    )
    scoring.add_argument(
        "--chained",
        type=Path,
        help="with --replies: two-hop abstentions asked again as their hop (evals/chained.py), "
        "the live model's replies kept in this file",
    )
    scoring.add_argument("--models", type=Path, default=Path("/tmp/deepresearch-models"))
    scoring.add_argument(
        "--top", type=int, default=TOP_LINES, help="the chains the --replies caches were read over"
    )
    args = parser.parse_args()
    if args.command == "write":
        print(write())
    else:
        kept = KeptReads(args.chained, args.models) if args.chained else None
        step = replay_step(gate_from(args.weights), args.top, kept)
        scored = pairs(args.originals, args.reworded, step, args.as_run, args.replies)
        print(json.dumps(scored, indent=2))


if __name__ == "__main__":
    main()
