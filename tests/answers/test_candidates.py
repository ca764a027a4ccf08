"""Candidate answer spans by kind: only text that stands in the sentence."""

from __future__ import annotations

import pytest

from deepresearch.answers.candidates import candidates


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("The clock was built in 1410 by Mikuláš of Kadaň.", "date", ["1410"]),
        ("Trent Reznor (born May 17, 1965) is an American musician.", "date", ["May 17, 1965"]),
        ("He was born on 15 March 1834 in Prague.", "date", ["15 March 1834"]),
        ("Kansas had a population of 2,913,123 in 2019.", "number", ["2,913,123", "2019"]),
        ("The singer has sold more than 150 million records worldwide.", "number", ["150 million records"]),
        ("The river is 56 km long.", "number", ["56 km"]),
        ("He was the Premier of South Australia twice, from 1885.", "number", ["twice", "1885"]),
        ("It is the 12th most populous city in the country.", "number", ["12th"]),
        ("It was directed by Park Jin-pyo and stars Kim Ha-neul.", "person", ["Park Jin-pyo", "Kim Ha-neul"]),
        ("He studied at the University of Bath in England.", "entity", ["University of Bath", "England"]),
        (
            "The company is headquartered in Canton, Massachusetts.",
            "place",
            ["Canton, Massachusetts", "Canton", "Massachusetts"],
        ),
        (
            'He starred in the film "the Big Lebowski" in 1998.',
            "entity",
            ["Big Lebowski", "the Big Lebowski"],
        ),
        ("In 1958 the company opened.", "person", []),
    ],
)
def test_candidates_by_kind(sentence: str, kind: str, expected: list[str]) -> None:
    assert candidates(sentence, kind) == expected  # type: ignore[arg-type]


def test_every_candidate_is_text_of_its_sentence() -> None:
    sentence = "Sir Ellis Clark, the first president of Trinidad and Tobago, died on 12 June 1987."
    for kind in ("person", "place", "entity", "date", "number"):
        for found in candidates(sentence, kind):
            assert found in sentence
