"""An embedder double for tests and examples: fast, deterministic, no model files.

:class:`HashEmbedder` hashes lower-cased words into buckets, so texts that share words get
similar vectors and texts that share none are orthogonal. It knows no synonyms. It records
every text it embedded in :attr:`HashEmbedder.seen`. Needs numpy.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepresearch.index.embeddings import Matrix

_WORD = re.compile(r"\w+")


class HashEmbedder:
    """:class:`~deepresearch.index.embeddings.Embedder` by hashed bag of words (unit vectors)."""

    def __init__(self, dim: int = 64, name: str = "hash-test") -> None:
        self._dim = dim
        self._name = name
        self.seen: list[str] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One unit row per text; a text without words gets a zero row."""
        import numpy as np

        self.seen.extend(texts)
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                out[row, self._bucket(word)] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: Matrix = out / np.clip(norms, 1e-12, None)
        return unit

    def _bucket(self, word: str) -> int:
        return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "little") % self._dim
