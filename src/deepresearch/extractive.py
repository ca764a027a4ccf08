"""Extractive summaries: the sources' own sentences ranked against the task, each cited.

The honest default for tiny models (measured: their free summaries are generic or echo the prompt).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.citations import Source
from deepresearch.text import key_terms, rank_by_terms, sentences, truncate


def extractive_points(
    sources: Sequence[Source], query_text: str, *, limit: int = 4, max_chars: int = 320
) -> list[tuple[str, int]]:
    """The ``limit`` best (sentence, source id) pairs, at most two per source, best first."""
    pool = [(s, source.id) for source in sources for s in _sentences(source)]
    ranked = rank_by_terms([s for s, _ in pool], key_terms(query_text))
    chosen: list[tuple[str, int]] = []
    per_source: dict[int, int] = {}
    for score, index in ranked:
        sentence, source_id = pool[index]
        if score <= 0 or per_source.get(source_id, 0) >= 2:
            continue
        per_source[source_id] = per_source.get(source_id, 0) + 1
        chosen.append((truncate(sentence, max_chars, "…"), source_id))
        if len(chosen) >= limit:
            break
    return chosen


def render_points(points: Sequence[tuple[str, int]]) -> list[str]:
    """Lines of a Markdown list, one chunk each, so a stream shows the summary growing."""
    return [f"- {sentence} [{source_id}]\n" for sentence, source_id in points]


def _sentences(source: Source) -> list[str]:
    body = sentences(source.content or source.snippet)
    return [f"{source.title}: {body[0]}", *body[1:]] if body else []
