"""Split document text into passages small enough to rank and to quote.

Contract: every chunk is at most ``max_chars`` long (a single word longer than the cap is cut),
chunks follow the text's order, and consecutive chunks share one unit of overlap (a paragraph,
or a sentence when a paragraph alone is over the cap) whenever that unit still fits beside the
next one. Nothing but whitespace between units is lost. :func:`stitch` joins consecutive chunks back into
one text, each overlapping unit once.
"""

from __future__ import annotations

import re

from deepresearch.text import split_sentences

MAX_CHARS = 1200

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_PARAGRAPH_JOIN = "\n\n"
_SENTENCE_JOIN = " "


def chunk_text(text: str, max_chars: int = MAX_CHARS) -> list[str]:
    """Return the chunks of ``text``; an empty or blank text gives ``[]``."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    return _pack(_paragraphs(text, max_chars), max_chars, _PARAGRAPH_JOIN)


def _paragraphs(text: str, max_chars: int) -> list[str]:
    """Paragraphs of ``text``; one over the cap is replaced by sentence-packed pieces."""
    units: list[str] = []
    for paragraph in _PARAGRAPH_BREAK.split(text):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= max_chars:
            units.append(paragraph)
        else:
            units.extend(_pack(_sentences(paragraph, max_chars), max_chars, _SENTENCE_JOIN))
    return units


def _sentences(paragraph: str, max_chars: int) -> list[str]:
    """Sentences of ``paragraph``; one over the cap is cut at word boundaries."""
    units: list[str] = []
    for sentence in split_sentences(paragraph, at_cjk_stops=False):
        if len(sentence) <= max_chars:
            units.append(sentence)
        else:
            units.extend(_cut_words(sentence, max_chars))
    return [unit for unit in units if unit]


def _cut_words(sentence: str, max_chars: int) -> list[str]:
    """Greedy word packing without overlap; a single over-long word is cut hard."""
    pieces: list[str] = []
    current = ""
    for word in sentence.split():
        while len(word) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:max_chars])
            word = word[max_chars:]
        candidate = f"{current} {word}" if current else word
        if len(candidate) > max_chars:
            pieces.append(current)
            candidate = word
        current = candidate
    if current:
        pieces.append(current)
    return pieces


def _pack(units: list[str], max_chars: int, joiner: str) -> list[str]:
    """Join units into chunks of at most ``max_chars``, carrying the last unit forward."""
    chunks: list[str] = []
    current: list[str] = []
    for unit in units:
        if current and len(joiner.join([*current, unit])) > max_chars:
            chunks.append(joiner.join(current))
            overlap = current[-1]
            fits = len(overlap) + len(joiner) + len(unit) <= max_chars
            current = [overlap] if fits else []
        current.append(unit)
    if current:
        chunks.append(joiner.join(current))
    return chunks


def stitch(chunks: list[str]) -> str:
    """Consecutive chunks of one text joined back into it: where a chunk opens with the unit that
    ends the text before it (the overlap :func:`chunk_text` carries forward), that unit is kept
    once. Chunks that do not follow one another are joined by a paragraph break."""
    text = ""
    for chunk in chunks:
        shared = _overlap(text, chunk)
        text = text + chunk[shared:] if shared else _PARAGRAPH_JOIN.join(filter(None, [text, chunk]))
    return text


def _overlap(text: str, chunk: str) -> int:
    """The length of the longest whole unit that ends ``text`` and opens ``chunk`` (0 if none):
    it starts ``text``'s last unit (after whitespace) and ends where ``chunk``'s next unit starts."""
    for size in range(min(len(text), len(chunk)), 0, -1):
        ends_unit = size == len(chunk) or chunk[size].isspace()
        starts_unit = size == len(text) or text[-size - 1].isspace()
        if ends_unit and starts_unit and text.endswith(chunk[:size]):
            return size
    return 0
