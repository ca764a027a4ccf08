"""Sentence meaning in the answer step: the sentence that says it in other words ranks first.

Invented passages; MiniLM is the installed one (on llama.cpp where it runs), as the product uses it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from deepresearch.answers.dense import Dense, SentenceMeaning, dense_for, reads_as_person
from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.ground import ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.question import frame_question
from deepresearch.answers.reader import judge, read
from deepresearch.citations import Source
from deepresearch.errors import ConfigurationError
from deepresearch.llm.testing import JudgingModel
from deepresearch.settings import Settings

SPIRE = (
    "Marlow Spire",
    "The Marlow Spire in Dunbrook was completed in 1911 by the builder Otto Grane. "
    "The plans for the Marlow Spire were drawn by the architect Ada Linnet.",
)
TOWN = (
    "Pelling",
    "Pelling has 412 listed buildings and a Norman church. "
    "Pelling had a population of 23,400 at the 2011 census.",
)
PIANIST = (
    "Hanne Solvik",
    "Hanne Solvik has lived in Vienna since 1995. "
    "Hanne Solvik spent her childhood in Tromsø, where her father taught.",
)


@pytest.fixture
def dense():  # type: ignore[no-untyped-def]
    """Built after the isolated environment (shared by every test through ``dense_for``'s memo)."""
    meaning = dense_for(Settings.load({"answer_embeddings": "on"}))
    assert meaning is not None
    return meaning


def _best(question: str, passage: tuple[str, str], dense=None) -> str:  # type: ignore[no-untyped-def]
    source = Source(id=1, url="doc://1", title=passage[0], content=passage[1])
    frame = frame_question(question)
    pool = sentence_pool([source])
    ranked = rank_sentences(frame.terms, pool, frame.names, frame.text, optional=frame.describes, dense=dense)
    return ranked[0].sentence.text


@pytest.mark.parametrize(
    ("question", "passage", "says_it"),
    [
        (
            "Who came up with the design of the Marlow Spire?",
            SPIRE,
            "The plans for the Marlow Spire were drawn",
        ),
        ("How many people live in Pelling?", TOWN, "Pelling had a population of 23,400"),
        ("Where did Hanne Solvik grow up?", PIANIST, "Hanne Solvik spent her childhood"),
    ],
)
def test_the_sentence_that_says_it_in_other_words_ranks_first(
    dense: Dense, question: str, passage: tuple[str, str], says_it: str
) -> None:
    """ "came up with the design" is "the plans were drawn by"; "how many people live" is "had a
    population"; "grow up" is "spent her childhood": words alone tie each with the other sentence,
    which names the subject as often."""
    assert not _best(question, passage).startswith(says_it)
    assert _best(question, passage, dense).startswith(says_it)


class CountingEmbedder:
    """A stand-in at the model seam: one fixed direction per text, and a count of texts embedded."""

    name, dim = "counting", 3

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded.extend(texts)
        return np.array([[len(t), 1.0, 0.0] for t in texts])


def test_each_text_is_embedded_once_and_the_oldest_leave_first() -> None:
    embedder = CountingEmbedder()
    meaning = SentenceMeaning(embedder, cache_size=3)
    first = meaning("q", ["aa", "bbbb"])
    assert meaning("q", ["aa", "bbbb"]) == first and embedder.embedded == ["q", "aa", "bbbb"]
    assert all(-1.0 <= c <= 1.0 for c in first) and first[0] > first[1]  # closer length, closer vector
    meaning("q", ["ccc"])  # "aa" is the oldest now and leaves
    meaning("q", ["aa"])
    assert embedder.embedded.count("aa") == 2 and embedder.embedded.count("q") == 1


def test_off_means_none_and_on_without_minilm_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    assert dense_for(Settings.load({"answer_embeddings": "off"})) is None
    monkeypatch.setattr("deepresearch.index.dense.dense_missing", lambda: "run `pip install x`")
    assert dense_for(Settings.load({"answer_embeddings": "auto"})) is None
    with pytest.raises(ConfigurationError, match="ANSWER_EMBEDDINGS=on needs MiniLM: run `pip install x`"):
        dense_for(Settings.load({"answer_embeddings": "on"}))


def test_one_meaning_is_shared_by_runs_with_the_same_runtime(dense) -> None:  # type: ignore[no-untyped-def]
    assert dense_for(Settings.load({"answer_embeddings": "auto"})) is dense


@pytest.mark.parametrize(
    ("text", "person"),
    [("Odell Prane", True), ("Vera Lusk", True), ("Harlan County, Kentucky", False), ("Stockholm", False)],
)
def test_a_persons_name_reads_as_a_person_and_a_place_as_a_place(
    dense: Dense, text: str, person: bool
) -> None:
    assert reads_as_person(dense, text) is person


DIRECTOR = [
    Source(
        id=1,
        url="doc://1",
        title="The Copper Gull",
        content="The Copper Gull is a 1923 silent drama film directed by Odell Prane and starring Vera Lusk.",
    ),
    Source(
        id=2,
        url="doc://2",
        title="Odell Prane",
        content="Odell Prane (1889 – 1961), born Amos Odell Prandt, was an American film director. "
        "He was born in Harlan County, Kentucky.",
    ),
]


@pytest.mark.parametrize(
    ("said", "stated"),
    [("Amos Odell Prandt", None), ("Harlan County, Kentucky", "Harlan County, Kentucky")],
)
def test_a_where_answer_that_reads_as_a_persons_name_is_turned_away(
    dense: Dense, said: str, stated: str | None
) -> None:
    """The director's birth name is a span of the line that says where he was born, and a judge
    that says "yes" to anything would state it; by meaning it is a person, not the place asked."""
    model = JudgingModel({"reader": json.dumps({"lines": [1, 2], "answer": said})}, yes=0.99)
    answer = ground_answer(
        "Where was the man who made The Copper Gull born?",
        DIRECTOR,
        weights=confidence_gate(None),
        dense=dense,
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: judge(model, f, reading),
    )
    assert (answer.text if answer.status == "grounded" else None) == stated
