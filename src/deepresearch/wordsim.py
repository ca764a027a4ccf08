"""Word meaning for matching: the words of a text that stand for a question's word in other words.

Every step that matches a question to text compares stems (:mod:`deepresearch.text`), so a question
in other words than its passage ("married" against "with his wife", "woman" against "female
pilot") finds nothing. Here each stem has a vector from a static table distilled from
all-MiniLM-L6-v2 (``data/word_vectors.npz``, built by ``scripts/word_vectors.py``: every
vocabulary word embedded alone by the model, the words of one stem averaged, centred, projected
to :data:`DIMS` dimensions, int8), and a close word earns part of the question word's weight:
:func:`credit` maps cosine similarity to a share, 0 below :data:`FLOOR`, never more than
:data:`MAX_CREDIT` (the word itself always counts more than a word like it).

The table needs numpy; without it (or without the file) :func:`bundled` is None and matching is
by stems alone, as before.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepresearch.text import stem

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

DIMS = 128
FLOOR = 0.62  # below this cosine two words are unrelated (wife/pilot 0.16, married/flew 0.11)
FULL = 0.82  # at this cosine a word earns MAX_CREDIT (married/wife 0.82, woman/female 0.78)
MAX_CREDIT = 0.85
TABLE = Path(__file__).resolve().parent / "data" / "word_vectors.npz"


def credit(similarity: float) -> float:
    """The share of a question word's weight that a word ``similarity`` away earns."""
    if similarity < FLOOR:
        return 0.0
    return MAX_CREDIT * min(1.0, (similarity - FLOOR) / (FULL - FLOOR) * 0.5 + 0.5)


class WordVectors:
    """Unit vectors of words, compared by stem: two stems are as close as their closest words."""

    def __init__(self, words: Sequence[str], matrix: Any) -> None:
        self._words = list(words)
        self._matrix: Matrix = matrix
        self._rows: dict[str, list[int]] = {}
        for row, word in enumerate(self._words):
            self._rows.setdefault(stem(word), []).append(row)

    @classmethod
    def from_float(cls, words: Sequence[str], vectors: Any) -> WordVectors:
        """A table from float vectors, stored as they will be loaded (int8, renormalised)."""
        import numpy as np

        unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return cls(words, _unit(np.round(unit * 127).astype(np.int8)))

    @classmethod
    def load(cls, path: Path) -> WordVectors:
        import numpy as np

        with np.load(path, allow_pickle=False) as data:
            return cls([str(w) for w in data["words"]], _unit(data["vectors"]))

    def save(self, path: Path) -> None:
        import numpy as np

        quantised = np.round(self._matrix * 127).astype(np.int8)
        np.savez_compressed(path, words=np.array(self._words), vectors=quantised)

    def __contains__(self, stem: object) -> bool:
        return stem in self._rows

    def __len__(self) -> int:
        return len(self._words)

    def similarity(self, a: str, b: str) -> float:
        """Cosine of two stems (of their closest words); 1 for one stem, 0 for a stem not in the table."""
        if a == b:
            return 1.0
        if a not in self._rows or b not in self._rows:
            return 0.0
        return float((self._matrix[self._rows[a]] @ self._matrix[self._rows[b]].T).max())

    def related(self, stems: Iterable[str], vocabulary: Iterable[str]) -> dict[str, dict[str, float]]:
        """For each of ``stems``, the stems of ``vocabulary`` close enough to earn credit, with it."""
        import numpy as np

        wanted = [s for s in dict.fromkeys(stems) if s in self._rows]
        known = [v for v in dict.fromkeys(vocabulary) if v in self._rows and v not in wanted]
        if not wanted or not known:
            return {}
        rows = [r for v in known for r in self._rows[v]]
        owner = np.array([k for k, v in enumerate(known) for _ in self._rows[v]])
        out: dict[str, dict[str, float]] = {}
        for stem_ in wanted:
            best = (self._matrix[self._rows[stem_]] @ self._matrix[rows].T).max(axis=0)
            close: dict[str, float] = {}
            for index in (best >= FLOOR).nonzero()[0]:
                name = known[int(owner[index])]
                close[name] = max(close.get(name, 0.0), credit(float(best[index])))
            if close:
                out[stem_] = close
        return out


class SoftTerms:
    """The credit each question term earns from a text's stems: 1 for the term itself, a share
    (:func:`credit`) for its closest related stem, else 0. Built once per question and pool."""

    def __init__(self, related: Mapping[str, Mapping[str, float]]) -> None:
        self._related = related

    def held(self, term: str, present: frozenset[str] | set[str]) -> float:
        if term in present:
            return 1.0
        close = self._related.get(term)
        if not close:
            return 0.0
        return max((share for stem, share in close.items() if stem in present), default=0.0)

    def stand_ins(self, term: str, present: frozenset[str] | set[str]) -> list[str]:
        """The stems of ``present`` that stand for ``term`` (related to it), closest first."""
        close = self._related.get(term, {})
        return sorted((s for s in close if s in present), key=lambda s: -close[s])


def soft_terms(question_stems: Iterable[str], vocabulary: Iterable[str]) -> SoftTerms | None:
    """A :class:`SoftTerms` for the question over a pool's stems, or None without the table."""
    table = bundled()
    if table is None:
        return None
    return SoftTerms(table.related(question_stems, vocabulary))


@functools.lru_cache(maxsize=1)
def bundled() -> WordVectors | None:
    """The shipped table (loaded once), or None without numpy or the file."""
    if importlib.util.find_spec("numpy") is None or not TABLE.is_file():
        return None
    return WordVectors.load(TABLE)


def _unit(quantised: Any) -> Matrix:
    import numpy as np

    vectors = quantised.astype(np.float32)
    unit: Matrix = vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9, None)
    return unit
