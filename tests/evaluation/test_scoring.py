"""Scoring functions on hand-made cases."""

from __future__ import annotations

import pytest

from deepresearch.citations import cited_ids
from deepresearch.evaluation.scoring import (
    answer_match,
    citation_precision,
    evidence_recall,
    exact_match,
    f1,
    normalize_answer,
)


@pytest.mark.parametrize(
    ("raw", "normal"),
    [("The Beatles!", "beatles"), ("  an  Apple, a day ", "apple day"), ("U.S.A.", "usa"), ("1410", "1410")],
)
def test_squad_normalisation(raw: str, normal: str) -> None:
    assert normalize_answer(raw) == normal


def test_exact_match_uses_the_best_alias() -> None:
    assert exact_match("the Finnish markka", ["markka", "Finnish markka"]) == 1.0
    assert exact_match("markka coins", ["Finnish markka"]) == 0.0
    assert exact_match("anything", []) == 0.0


def test_f1_is_token_overlap_best_over_aliases() -> None:
    assert f1("Finnish markka", ["markka"]) == pytest.approx(2 / 3)
    assert f1("John Lennon", ["John Winston Lennon", "Lennon"]) == pytest.approx(0.8)
    assert f1("yes", ["no"]) == 0.0
    assert f1("", ["x"]) == 0.0


def test_evidence_recall_counts_gold_passages_read() -> None:
    assert evidence_recall(["a", "b", None, "c"], ["a", "z"]) == 0.5
    assert evidence_recall([], ["a"]) == 0.0


def test_citation_precision_counts_gold_or_answer_bearing_passages() -> None:
    cited = [("g1", "irrelevant"), ("x", "It was built in 1410."), ("y", "Nothing here.")]
    assert citation_precision(cited, ["g1"], ["1410"]) == pytest.approx(2 / 3)
    assert citation_precision([], ["g1"], ["1410"]) is None


def test_citation_parsing() -> None:
    assert cited_ids("A [1]. B [2, 3] and [2]. C [12]，[4，5]") == [1, 2, 3, 12, 4, 5]
    assert cited_ids("No cite [a] or [1.5]") == []


@pytest.mark.parametrize(
    ("answer", "gold", "match"),
    [
        ("1410 [3]", ["1410"], 1.0),
        ("The clock was first installed in 1410.", ["1410"], 1.0),
        ("14100", ["1410"], 0.0),
        ("Frank Ca", ["Frank Carney"], 0.0),
        ("Dan and Frank Carney", ["Frank Carney", "Dan Carney"], 1.0),
        ("The sources read do not say", ["Prague"], 0.0),
    ],
)
def test_answer_match_finds_a_gold_answer_in_the_answer_line(
    answer: str, gold: list[str], match: float
) -> None:
    assert answer_match(answer, gold) == match
