"""The answer step alone over each question's own passages, on every dev set at once, in seconds.

    python evals/contexts.py [--half dev|test|all] [--show SET]

No agent run: each question gets its context passages as the sources (gold and distractors for
the shared set, 2WikiMultihopQA and the rewordings; the gold passages alone for the demo
questions), and the answer step (:func:`~deepresearch.answers.ground.ground_answer` with the
shipped gate) is scored on them. A second line per set drops the gold passages: the answer
should then be an abstention. Sets:

- ``shared`` — ``../shared/eval`` (``--half`` picks the half; the test half is for reporting);
- ``twowiki`` — ``evals/data/twowiki_*`` (its test half never fitted);
- ``hard`` — ``evals/data/hard_*``: HotpotQA-train questions of level hard and MuSiQue-train
  questions, none in the shared set (``evals/build_hard.py``; its test half never fitted);
- ``reworded`` — ``evals/out/reworded.jsonl`` (``python evals/reworded.py write``), the shared
  dev questions in other words;
- ``onehop`` — the single hops of the hard set's MuSiQue questions (``decomposition``), each a
  question of its own with the earlier hops' answers put in for ``#1``, ``#2`` (hops written as
  ``entity >> relation`` left out), over the whole question's passages; without its gold, the
  hop's own passage is dropped (:func:`onehop_rows`);
- ``demo``, ``own_words``, ``own_words_dev`` — the demo corpus questions
  (``evals/data/demo_questions*.jsonl``; ``own_words`` is never fitted, ``own_words_dev`` is for
  tuning), one-hop and two-hop only, over their gold passages.

Prints ``set: n, answer_match, precision, abstained``, the share whose best candidate is right
whatever the gate says (what the ranking alone would get), and for the gold-dropped rows the share
abstained. Use it to see whether a change to the answer step pays on more than one set before
an end-to-end ``deepresearch eval``.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
from collections.abc import Sequence
from pathlib import Path

from fit_answers import (
    EVAL,
    Row,
    confidence_rows,
    context_rows,
    doc_sources,
    gate_from,
    grounded,
    load_corpus,
    outcomes,
    summary,
)

from deepresearch.evaluation.dataset import half_of

DATA = Path(__file__).resolve().parent / "data"
DEMO_CORPUS = Path(__file__).resolve().parents[1] / "src" / "deepresearch" / "data" / "demo_corpus.jsonl"
TOP = 8  # sentences whose candidates compete, as the shipped gate ranks them
REWORDED = Path(__file__).resolve().parent / "out" / "reworded.jsonl"


def demo_rows(path: Path) -> list[Row]:
    """The demo questions that ask for a span, each over its gold passages."""
    corpus = load_corpus(DEMO_CORPUS)
    rows = []
    for q in map(json.loads, path.open(encoding="utf-8")):
        if q["kind"] not in ("one-hop", "two-hop"):
            continue
        docs = [corpus[d] for d in q["doc_ids"] if d in corpus]
        rows.append(Row(q["id"], "dev", q["question"], q["answers"], doc_sources(docs), True))
    return rows


def onehop_rows(drop_gold: bool = False) -> list[Row]:
    """One-hop questions a person wrote, with their gold passage and real distractors: MuSiQue's
    decompositions in the hard set (its hops come from single-hop datasets), ``qid#hopK``. A dev
    hop whose passage is a test-half question's gold is left out, so that tuning on these rows
    does not tune on the hard test half."""
    corpus = load_corpus(DATA / "hard_corpus.jsonl")
    questions = [json.loads(line) for line in (DATA / "hard_questions.jsonl").open(encoding="utf-8")]
    tested = {d for q in questions if half_of(q["qid"]) == "test" for d in q["gold_doc_ids"]}
    rows = []
    for q in questions:
        found: list[str] = []
        for k, hop in enumerate(q.get("decomposition") or [], 1):
            text = re.sub(
                r"#(\d)",
                lambda m: found[int(m.group(1)) - 1] if int(m.group(1)) <= len(found) else m.group(0),
                hop["question"],
            )
            found.append(hop["answer"])
            if ">>" in text or "#" in text or (half_of(q["qid"]) == "dev" and hop["doc_id"] in tested):
                continue  # a triple, an unresolved hop, or a dev hop a test-half question also asks
            docs = [
                corpus[d]
                for d in q["context_doc_ids"]
                if d in corpus and not (drop_gold and d == hop["doc_id"])
            ]
            last = k == len(q["decomposition"])
            answers = list(dict.fromkeys([hop["answer"], *(q["answers"] if last else [])]))
            rows.append(
                Row(f"{q['qid']}#hop{k}", half_of(q["qid"]), text, answers, doc_sources(docs), not drop_gold)
            )
    return rows


@functools.cache
def sets(half: str) -> dict[str, tuple[list[Row], list[Row]]]:
    """Each set's rows with and without their gold passages (none without for the demo sets);
    built once per half (a caller asking for several sets asks again)."""

    def pick(rows: Sequence[Row]) -> list[Row]:
        return [r for r in rows if half == "all" or half_of(r.qid.partition("#")[0]) == half]

    twowiki = {"questions": DATA / "twowiki_questions.jsonl", "corpus_path": DATA / "twowiki_corpus.jsonl"}
    hard = {"questions": DATA / "hard_questions.jsonl", "corpus_path": DATA / "hard_corpus.jsonl"}
    out = {
        "shared": (pick(context_rows()), pick(context_rows(drop_gold=True))),
        "twowiki": (pick(context_rows(**twowiki)), pick(context_rows(drop_gold=True, **twowiki))),
        "hard": (pick(context_rows(**hard)), pick(context_rows(drop_gold=True, **hard))),
        "onehop": (pick(onehop_rows()), pick(onehop_rows(drop_gold=True))),
        "demo": (demo_rows(DATA / "demo_questions.jsonl"), []),
        "own_words": (demo_rows(DATA / "demo_questions_own_words.jsonl"), []),
        "own_words_dev": (demo_rows(DATA / "demo_questions_own_words_dev.jsonl"), []),
    }
    if REWORDED.is_file():
        reworded = {"questions": REWORDED, "corpus_path": EVAL / "corpus.jsonl"}
        out["reworded"] = (pick(context_rows(**reworded)), pick(context_rows(drop_gold=True, **reworded)))
    return out


def labelled(half: str, leave_out: Sequence[str] = ()) -> dict[str, list[Row]]:
    """Every set of :func:`sets` but ``leave_out`` as labelled rows: ``NAME-ctx`` with the gold
    (an answer is due) and ``NAME-nogold`` without it (an abstention is due)."""
    out: dict[str, list[Row]] = {}
    for name, (rows, dropped) in sets(half).items():
        if name in leave_out:
            continue
        out[f"{name}-ctx"] = rows
        if dropped:
            out[f"{name}-nogold"] = dropped
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--half", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--show", help="print each question of this set with its answer")
    parser.add_argument("--sets", help="only these sets, comma-separated (twowiki,own_words)")
    parser.add_argument("--weights", type=Path, help="a weights file to use instead of the shipped one")
    args = parser.parse_args()
    answer = grounded(gate_from(args.weights))
    wanted = set(args.sets.split(",")) if args.sets else None
    for name, (rows, dropped) in sets(args.half).items():
        if wanted is not None and name not in wanted:
            continue
        marks = outcomes(rows, answer)
        s = summary(marks)
        line = (
            f"{name:10s} n={len(rows):3d} answer_match {s['answer_match']:.3f} precision {s['precision']:.3f}"
        )
        line += f" abstained {s['abstained']:.3f}"
        _, best_right, _ = confidence_rows(rows, TOP, None)
        line += f" best candidate right {sum(best_right) / max(1, len(rows)):.3f}"
        if dropped:
            gone = summary(outcomes(dropped, answer))
            line += f" | gold dropped: abstained {gone['abstained']:.3f}"
        print(line)
        if args.show == name:
            for row, (stated, right, _) in zip(rows, marks, strict=True):
                print(f"  {'R' if right else 'W' if stated else '-'} {row.question} | {row.answers[0]}")


if __name__ == "__main__":
    main()
