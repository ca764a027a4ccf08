"""How the answer step's kind check by meaning (``answers.dense.reads_as_person``) reads gold answers.

    python evals/kinds.py [--half dev|test]

For every question of the shared set (dev half only), 2WikiMultihopQA and the hard set whose frame
asks for a place or a person, prints how many gold answers reach each bar of the person-over-place
margin: a gold place that reaches the bar would be turned away as a person's name.
"""

from __future__ import annotations

import argparse
import json

from answer_dev import EVAL, answer_dense
from contexts import DATA

from deepresearch.answers.dense import person_margin
from deepresearch.answers.question import frame_question
from deepresearch.evaluation.dataset import half_of

BARS = (0.05, 0.1, 0.15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--half", default="dev", choices=["dev", "test"])
    args = parser.parse_args()
    dense = answer_dense()
    assert dense is not None, "MiniLM is not installed: scripts/install.sh"

    files = [DATA / "twowiki_questions.jsonl", DATA / "hard_questions.jsonl"]
    if args.half == "dev":  # the shared test half is looked at end to end only
        files.append(EVAL / "questions.jsonl")
    margins: dict[str, list[float]] = {"place": [], "person": []}
    for path in files:
        for q in map(json.loads, path.open(encoding="utf-8")):
            kind = frame_question(q["question"]).kind
            if half_of(q["qid"]) == args.half and kind in margins:
                margins[kind].append(person_margin(dense, q["answers"][0]))
    for bar in BARS:
        over = {kind: sum(m >= bar for m in ms) for kind, ms in margins.items()}
        print(
            f"bar {bar}: gold places read as people {over['place']} / {len(margins['place'])}, "
            f"gold people {over['person']} / {len(margins['person'])}"
        )


if __name__ == "__main__":
    main()
