"""Candidate answer spans by kind: only text that stands in the sentence (invented sentences)."""

from __future__ import annotations

import pytest

from deepresearch.answers.candidates import candidates
from deepresearch.answers.evidence import sentence_pool
from deepresearch.answers.features import person_subjects
from deepresearch.text import key_stems

from .sources import src


@pytest.mark.parametrize(
    ("sentence", "kind", "expected"),
    [
        ("The bridge was built in 1386 by Olof of Turku.", "date", ["1386"]),
        ("Ada Brandt (born June 4, 1972) is a Danish composer.", "date", ["June 4, 1972"]),
        ("She was born on 9 April 1851 in Bergen.", "date", ["9 April 1851"]),
        ("Ohio had a population of 11,780,017 in 2021.", "number", ["11,780,017", "2021"]),
        ("The novel has sold more than 40 million copies worldwide.", "number", ["40 million copies"]),
        ("The canal is 18 km long.", "number", ["18 km"]),
        ("She was the Mayor of Eskerby twice, from 1902.", "number", ["twice", "1902"]),
        ("It is the 7th largest port in the region.", "number", ["7th"]),
        ("It was directed by Park Min-seo and stars Lee Ha-jin.", "person", ["Park Min-seo", "Lee Ha-jin"]),
        ("She trained at the Academy of Vienna in Austria.", "entity", ["Academy of Vienna", "Austria"]),
        (
            "The firm is based in Dayton, Ohio.",
            "place",
            ["Dayton, Ohio", "Dayton", "Ohio"],
        ),
        (
            'She starred in the film "the Quiet Harbour" in 2003.',
            "entity",
            ["Quiet Harbour", "the Quiet Harbour"],
        ),
        ("In 1961 the bakery opened.", "person", []),
        # a date is no name, whatever capitals it has
        (
            "On 6 May 1931 the ferry Tovah, steered by Ada Brandt, left Eskerby.",
            "person",
            ["Tovah", "Ada Brandt", "Eskerby"],
        ),
    ],
)
def test_candidates_by_kind(sentence: str, kind: str, expected: list[str]) -> None:
    assert candidates(sentence, kind) == expected  # type: ignore[arg-type]


def test_every_candidate_is_text_of_its_sentence() -> None:
    sentence = "Dame Ada Brandt, the first mayor of Eskerby and Vell, died on 3 March 1950."
    for kind in ("person", "place", "entity", "date", "number"):
        for found in candidates(sentence, kind):
            assert found in sentence


def test_a_page_that_opens_with_a_life_is_a_persons_page() -> None:
    """ "Name (born …" or a life dated by its month, then "is"/"was": the name is a person's."""
    pool = sentence_pool(
        [
            src(
                1, "Odell Prane", "Odell Prane (March 3, 1889 – June 2, 1961) was an American film director."
            ),
            src(2, "Ines Valo", "Ines Valo (born 1970) is a Finnish architect."),
            src(3, "Harlan County", "Harlan County (founded 1819) is a county in Kentucky."),
            src(4, "Fort Lusk", "Fort Lusk (1861–1865) was a Union fort."),
        ]
    )
    people = person_subjects(pool)
    assert frozenset(key_stems("Odell Prane")) in people and frozenset(key_stems("Ines Valo")) in people
    assert (
        frozenset(key_stems("Harlan County")) not in people
        and frozenset(key_stems("Fort Lusk")) not in people
    )
