"""The answer line's matching by meaning: a question in other words than its passage.

Invented people and places; each case is a question a person types in their own words.
"""

from __future__ import annotations

from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.features import score_candidates
from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.question import frame_question
from deepresearch.citations import Source

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


def _best_candidate(question: str, *sources: Source) -> str:
    frame = frame_question(question)
    ranked = rank_sentences(frame.terms, sentence_pool(list(sources)), frame.names, frame.text)
    return score_candidates(frame, ranked[:8])[0][0]


def test_the_person_beside_his_wife_answers_married_to() -> None:
    """ "wife" stands for "married" next to a candidate too, not only in the sentence's coverage:
    the mechanic named nearer the asked name is not the spouse."""
    crew = src(3, "Arvo Lind", "Arvo Lind flew with the mechanic Per Holm and with his wife, Ilse Marten.")
    assert _best_candidate("Who was Arvo Lind married to?", crew) == "Ilse Marten"


def test_the_asked_person_written_out_with_a_nickname_is_not_the_answer() -> None:
    """'Karl Arvo "Vo" Lind' is the Arvo Lind the question names, written in full: not the
    answer to whom he married."""
    full = src(
        4,
        "Arvo Lind",
        'Karl Arvo "Vo" Lind (1899–1961) was a Finnish aviator who set records with his wife, Ilse Marten.',
    )
    assert _best_candidate("Who was Arvo Lind married to?", full) == "Ilse Marten"


def test_a_company_is_known_by_its_legal_suffix() -> None:
    """ "Which company did she start?" over a passage that says "founded": the name ending in "Ltd."
    is the company asked for, not the town named in the sentence before."""
    founder = src(
        5,
        "Lena Ovik",
        "Lena Ovik (born 1970) is a Norwegian engineer from Bergen, Norway. "
        "She founded Fjordline Ltd. in 2001.",
    )
    assert _best_candidate("Which company did Lena Ovik start?", founder) == "Fjordline Ltd"


def test_the_passage_subject_is_the_spouse_when_the_asked_name_is_his_wife() -> None:
    """ "Who was Ilse Marten married to?" over a passage about the husband that names her as "his
    wife": the passage's subject is the answer (his honours are not part of his name), and the
    shipped gate lets it through."""
    husband = src(
        6,
        "Arvo Lind",
        "Karl Arvo Lind OBE (1899–1961) was a Finnish aviator who, flying alone or with his wife, "
        "Ilse Marten, set many distance records in the early days of long flights.",
    )
    answer = ground_answer("Who was Ilse Marten married to?", [husband], weights=confidence_gate(None))
    assert answer.status == "grounded" and answer.text == "Karl Arvo Lind"
