"""Sentence meaning for the answer step: MiniLM cosines between the question and its best sentences.

Words alone rank "Until what date could people still pay with the markka?" away from "the markka
could be exchanged until 28 February 2002": few of the question's words are there. The sentence
embedding reads both as saying the same thing. :func:`~deepresearch.answers.evidence.rank_sentences`
adds ``DENSE_WEIGHT`` × the cosine to the score of the lexical best ``DENSE_TOP`` chains (a sentence
and the bridge sentence it borrowed from), so meaning reorders what the words found without
letting a sentence that holds none of the question in.

``ANSWER_EMBEDDINGS`` (``auto``, ``on``, ``off``) decides: ``auto`` uses MiniLM whenever its
weights are installed (``scripts/install.sh`` installs them), on llama.cpp where it runs
(``EMBEDDER``). The shipped confidence was fitted with it on; without it the scores are lower and
the answer line abstains more often (measured in docs/BENCHMARKS.md).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigurationError
from deepresearch.settings import Settings

if TYPE_CHECKING:
    from deepresearch.index.embeddings import Embedder

Dense = Callable[[str, Sequence[str]], list[float]]
"""The cosine of a question with each of ``texts``."""

PERSON_PHRASES = ("the name of a person", "a man or a woman, known by name")
PLACE_PHRASES = ("the name of a place", "a city, town, region or country")
PERSON_NOT_PLACE = 0.1
"""How much closer in meaning a "where" answer may stand to :data:`PERSON_PHRASES` than to
:data:`PLACE_PHRASES` (:func:`reads_as_person`) before it is taken for a person's name, not a
place. Chosen on the dev halves' gold answers (docs/BENCHMARKS.md, issue 34's eighteenth step):
no gold place of 61 reaches it, 39 of 59 gold people do."""
DENSE_TOP = 40  # chains of the lexical ranking that meaning may reorder
DENSE_WEIGHT = 0.5  # chosen on the dev sets (evals/contexts.py): 0.5 and 1.5 measured, 0.5 kept precision
CACHE_SIZE = 4096


class SentenceMeaning:
    """Cosines from an embedder, each text's unit vector kept (a run ranks the same sentences for
    every answer it checks); safe to share between a run's threads."""

    def __init__(self, embedder: Embedder, cache_size: int = CACHE_SIZE) -> None:
        self._embedder = embedder
        self._vectors: OrderedDict[str, Any] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()

    def resize(self, cache_size: int) -> None:
        """Keep up to ``cache_size`` vectors (an evaluation ranks the same sentences many times)."""
        self._size = cache_size

    def __call__(self, question: str, texts: Sequence[str]) -> list[float]:
        if not texts:
            return []
        import numpy as np

        with self._lock:
            vectors = self._unit([question, *texts])
        return [float(c) for c in np.stack(vectors[1:]) @ vectors[0]]

    def _unit(self, texts: Sequence[str]) -> list[Any]:
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self._embedder.embed(missing), strict=True):
                self._vectors[text] = vector / (np.linalg.norm(vector) or 1.0)
        for text in texts:
            self._vectors.move_to_end(text)
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)
        return [self._vectors[t] for t in texts]


def reads_as_person(dense: Dense, text: str) -> bool:
    """``text`` reads as a person's name rather than a place's, by meaning (MiniLM knows "Lena
    Marsh" for a woman and "Marsh End" for a village): its :func:`person_margin` reaches
    :data:`PERSON_NOT_PLACE`."""
    return person_margin(dense, text) >= PERSON_NOT_PLACE


def person_margin(dense: Dense, text: str) -> float:
    """The cosine of ``text`` with its closest :data:`PERSON_PHRASES` less that with its closest
    :data:`PLACE_PHRASES`."""
    cosines = dense(text, [*PERSON_PHRASES, *PLACE_PHRASES])
    people = len(PERSON_PHRASES)
    return max(cosines[:people]) - max(cosines[people:])


_shared: dict[tuple[object, ...], SentenceMeaning] = {}
_shared_lock = threading.Lock()


def dense_for(settings: Settings, notice: Callable[[str], None] | None = None) -> Dense | None:
    """The answer step's sentence meaning as ``ANSWER_EMBEDDINGS`` asks, or None when off (or
    ``auto`` without the MiniLM weights). One per process for the same runtime and cache, so a
    service's jobs share it. Raises :class:`ConfigurationError` naming the install command when
    it is ``on`` and something is missing."""
    from deepresearch.index.dense import dense_missing, runtime_for

    if settings.answer_embeddings == "off":
        return None
    missing = dense_missing()
    if missing is not None:
        if settings.answer_embeddings == "on":
            raise ConfigurationError(f"ANSWER_EMBEDDINGS=on needs MiniLM: {missing}")
        return None
    key = (settings.embedder, settings.embeddings_cache.resolve(), settings.embedded_threads)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = SentenceMeaning(runtime_for(settings, notice))
        return _shared[key]
