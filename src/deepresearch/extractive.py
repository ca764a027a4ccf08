"""Extractive summaries: the sources' own sentences ranked against the task, each cited.

The honest default for tiny models (measured: their free summaries are generic or echo the prompt).
"""

from __future__ import annotations

from collections.abc import Sequence

from deepresearch.citations import Source
from deepresearch.lexicon import OPENING_PRONOUNS, opening
from deepresearch.text import key_stems, key_terms, rank_by_terms, sentences
from deepresearch.untrusted import markdown_literal


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
        chosen.append((cut_at_word(sentence, max_chars), source_id))
        if len(chosen) >= limit:
            break
    return chosen


def render_points(points: Sequence[tuple[str, int]]) -> list[str]:
    """Lines of a Markdown list, one chunk each, so a stream shows the summary growing; each
    quoted sentence is Markdown that does nothing (:func:`~deepresearch.untrusted.markdown_literal`)."""
    return [f"- {markdown_literal(sentence)} [{source_id}]\n" for sentence, source_id in points]


def cut_at_word(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a word boundary, with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return cut.rstrip(" ,;:") + "…"


_OPENING_PRONOUN = opening(OPENING_PRONOUNS)


def with_subject(sentence: str, title: str) -> str:
    """``sentence`` prefixed with its passage's title when it does not name it: quoted out of its
    passage, "The company was founded in 1961" must still say which company, and "She was the
    second wife of Ned Hale" who she is, though it shares a name with her title."""
    named = set(key_stems(title)) & set(key_stems(sentence))
    pronoun = _OPENING_PRONOUN.match(sentence) is not None and title not in sentence
    return sentence if (named and not pronoun) or not title.strip() else f"{title}: {sentence}"


def _sentences(source: Source) -> list[str]:
    return [with_subject(s, source.title) for s in sentences(source.content or source.snippet)]
