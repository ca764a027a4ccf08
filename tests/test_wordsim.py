"""Word meaning for matching: the shipped word table and the credit a close word earns.

The pairs are ordinary English words, not eval text: what a person types against what a
passage writes ("married" against "his wife", "woman" against "female pilot").
"""

from __future__ import annotations

import pytest

from deepresearch.graph.nodes.judge import is_relevant
from deepresearch.text import key_terms, stem, stems
from deepresearch.wordsim import FLOOR, MAX_CREDIT, bundled, credit, soft_terms


def _sim(a: str, b: str) -> float:
    table = bundled()
    assert table is not None, "data/word_vectors.npz ships with the package"
    return table.similarity(stem(a), stem(b))


@pytest.mark.parametrize(
    ("asked", "written"),
    [
        ("married", "wife"),
        ("husband", "wife"),
        ("woman", "female"),
        ("built", "constructed"),
        ("film", "movie"),
    ],
)
def test_a_word_a_passage_writes_for_the_asked_one_is_close(asked: str, written: str) -> None:
    assert _sim(asked, written) >= FLOOR + 0.1


@pytest.mark.parametrize(
    ("asked", "written"), [("wife", "pilot"), ("married", "flew"), ("river", "mountain")]
)
def test_unrelated_words_earn_nothing(asked: str, written: str) -> None:
    assert credit(_sim(asked, written)) == 0.0


def test_a_close_word_earns_part_of_the_weight_never_all() -> None:
    soft = soft_terms([stem("married")], stems("He flew the Channel with his wife"))
    assert soft is not None
    earned = soft.held(stem("married"), set(stems("with his wife")))
    assert 0.4 < earned <= MAX_CREDIT < 1.0
    assert soft.held(stem("married"), set(stems("They married in June"))) == 1.0
    assert soft.stand_ins(stem("married"), set(stems("with his wife"))) == [stem("wife")]


def test_the_relevance_judge_counts_a_passage_in_other_words() -> None:
    terms = key_terms("woman aviator Cairo")
    text = "Ilse Marten was the first female pilot to reach Cairo."
    without = is_relevant(terms, text)
    soft = soft_terms([stem(t) for t in terms], stems(text))
    assert not without
    assert is_relevant(terms, text, soft)
