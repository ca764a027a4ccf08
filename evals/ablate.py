"""Which answer-step rules pay on more than the set they were written for: score each rule switched off.

    python evals/ablate.py --set dev=/tmp/ev/dev/runs --set twowiki=/tmp/ev/2wiki/runs [--only a,b]

Each ``--set NAME=FOLDER`` is the run folders of one ``deepresearch eval`` (``DEEPRESEARCH_HOME=…``
keeps them under ``HOME/runs``); the answer step is re-run offline on the sources each run read,
so a rule's worth is measured on the same evidence, in seconds; ``--contexts`` adds every dev set
of ``evals/contexts.py`` (each question over its own passages, and with the gold dropped, where an
abstention is due). For each rule of
:data:`RULES` (a hand-set factor of ``answers/features.py`` set to 1, i.e. the rule gone) it prints
answer_match / precision when answering per set, beside the shipped code (``shipped``) and the
``soft=off`` variant (matching by stems alone, before ``wordsim``). A rule that does not pay on a
set it was not written for (anything but the shared dev half) is a candidate to go. Rules joined
by ``+`` (``--only type_noun+list``) are switched off together, as one row.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from contexts import labelled
from fit_answers import Row, gate_from, grounded, outcomes, run_rows, summary

import deepresearch.answers.evidence as evidence
import deepresearch.answers.features as features

RULES = [*features.SHAPE_FACTORS, "BRIDGE_PENALTY", "PROXIMITY_WEIGHT"]


@contextlib.contextmanager
def switched_off(rule: str) -> Iterator[None]:
    """The answer step with ``rule`` gone (a shape flag's factor 1, a penalty 1, proximity
    unweighted); ``a+b`` switches both off."""
    if "+" in rule:
        with contextlib.ExitStack() as stack:
            for one in rule.split("+"):
                stack.enter_context(switched_off(one))
            yield
        return
    if rule == "shipped":
        yield
        return
    if rule == "soft=off":
        saved_meaning = evidence.meaning
        evidence.meaning = lambda *_a, **_k: None  # type: ignore[assignment]
        try:
            yield
        finally:
            evidence.meaning = saved_meaning
        return
    if rule in features.SHAPE_FACTORS:
        saved = features.SHAPE_FACTORS[rule]
        features.SHAPE_FACTORS[rule] = 1.0
        try:
            yield
        finally:
            features.SHAPE_FACTORS[rule] = saved
        return
    value = getattr(features, rule)
    setattr(features, rule, 1.0 if rule != "PROXIMITY_WEIGHT" else 0.0)
    try:
        yield
    finally:
        setattr(features, rule, value)


def score(rows: Sequence[Row], answer: Callable[[Row], tuple[str, bool, float | None]]) -> str:
    s = summary(outcomes(rows, answer))
    if not any(row.gold_read for row in rows):  # the gold dropped: an abstention is due
        return f"abstained {s['abstained']:.3f}"
    return f"{s['answer_match']:.3f}/{s['precision']:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", action="append", default=[], help="NAME=RUNS_FOLDER (repeatable)")
    parser.add_argument("--contexts", action="store_true", help="add the dev sets of evals/contexts.py")
    parser.add_argument("--only", help="comma-separated rules (default: every rule)")
    parser.add_argument("--weights", type=Path, help="weights file to gate with (default: shipped)")
    args = parser.parse_args()
    sets = {name: run_rows([Path(folder)]) for name, folder in (s.split("=", 1) for s in args.set)}
    if args.contexts:
        sets.update(labelled("dev"))
    if not sets:
        parser.error("give --set NAME=RUNS_FOLDER or --contexts")
    rules = ["shipped", "soft=off", *(args.only.split(",") if args.only else RULES)]
    gate = grounded(gate_from(args.weights))
    print("rule".ljust(18) + "".join(f"{n} (n={len(r)})".ljust(22) for n, r in sets.items()))
    for rule in rules:
        with switched_off(rule):
            print(rule.ljust(18) + "".join(score(rows, gate).ljust(22) for rows in sets.values()), flush=True)


if __name__ == "__main__":
    main()
