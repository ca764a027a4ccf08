"""Reciprocal rank fusion: one ranking from several, using ranks only, never raw scores.

BM25 scores and cosine similarities live on unrelated scales; RRF (Cormack, Clarke & Büttcher,
2009) ignores them and scores each item ``Σ 1 / (k + rank)`` over the rankings it appears in,
ranks counted from 1. ``k = 60`` is the paper's constant: it damps the weight of the very top.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

RRF_K = 60

Key = TypeVar("Key", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[Key]], *, k: int = RRF_K, limit: int | None = None
) -> list[tuple[Key, float]]:
    """Items of ``rankings`` (each best first) with their fused score, best first.

    An item repeated within one ranking counts at its first (best) rank only. Ties keep the
    order in which items were first met, earlier rankings first, so the first ranking breaks
    them. ``limit`` keeps the best ``limit`` items (``None``: all). Raises ``ValueError`` for
    ``k < 0``.
    """
    if k < 0:
        raise ValueError(f"RRF k must be >= 0, got {k}")
    scores: dict[Key, float] = {}
    for ranking in rankings:
        seen: set[Key] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    fused = sorted(scores.items(), key=lambda item: -item[1])
    return fused if limit is None else fused[: max(0, limit)]
