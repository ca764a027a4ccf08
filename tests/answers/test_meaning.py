"""The answer line's matching by meaning: a question in other words than its passage.

Invented people and places; each case is a question a person types in their own words.
"""

from __future__ import annotations

from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.question import frame_question

from .sources import src

PILOT = src(
    1,
    "Ilse Marten",
    "Ilse Marten (1904–1944) was a Danish aviator, the first female pilot to fly alone to Cairo.",
)
PARTNER = src(
    2,
    "Arvo Lind",
    "Arvo Lind (1899–1961) was a Finnish aviator. "
    "He set distance records flying alone or with his wife, Ilse Marten.",
)


def _best(question: str) -> str:
    frame = frame_question(question)
    ranked = rank_sentences(frame.terms, sentence_pool([PILOT, PARTNER]), frame.names, frame.text)
    return ranked[0].sentence.text


def test_married_finds_the_sentence_that_says_wife() -> None:
    assert "his wife" in _best("Who was Ilse Marten married to?")


def test_woman_and_solo_find_female_pilot_and_alone() -> None:
    frame = frame_question("Which woman first flew solo to Cairo?")
    ranked = rank_sentences(frame.terms, sentence_pool([PILOT, PARTNER]), frame.names, frame.text)
    assert ranked[0].sentence.source_id == 1
    assert ranked[0].coverage > 0.6
