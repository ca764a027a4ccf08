"""Candidate answer spans of the kind a question asks for, cut from evidence sentences by code.

Dates and numbers by pattern; names (people, places, works, organisations) as runs of capitalised
words with their connectors ("University of Bath", "Leonardo da Vinci"); quoted titles whole.
A span is only ever text that stands in a source sentence, so an answer chosen from these
cannot contain a word that no source holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from deepresearch.domain import AnswerKind
from deepresearch.lexicon import (
    CALENDAR_WORDS,
    CAPITALISED_WORD,
    MONTH,
    NAME,
    NAME_LEADING,
    NAME_TRAILING,
    POST_NOMINALS,
)

YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+{MONTH}\s+{YEAR}|{MONTH}\s+\d{{1,2}},?\s+{YEAR}|{MONTH}\s+{YEAR}"
    rf"|{YEAR}s?|\d{{1,2}}(?:st|nd|rd|th)[ -]century)\b"
)
_SCALE = r"(?:\s+(?:million|billion|trillion|thousand|hundred))?"
_UNIT = (
    r"(?:\s*(?:%|percent|per cent|km2|km|kilometres|kilometers|miles|metres|meters|m|ft|feet|kg|"
    r"people|inhabitants|residents|times|records|copies|units|seats|episodes|games|goals|years|members|"
    r"square miles|square kilometres|hectares|acres|students|employees|hL|tonnes|tons))?"
)
_NUMBER_WORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|twenty)"
)
NUMBER = re.compile(
    rf"(?<![\w.])(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?){_SCALE}{_UNIT}(?![\w])"
    rf"|\b{_NUMBER_WORD}(?:-time)?{_UNIT}\b|\b(?:once|twice|thrice)\b|(?<![\w.])\d+(?:st|nd|rd|th)\b",
    re.IGNORECASE,
)
_SHARED_SURNAME = re.compile(r"\b[A-Z][a-z]+ and [A-Z][a-z]+ [A-Z][\w'’-]+\b(?! [A-Z])")
_WORDS = rf"{CAPITALISED_WORD}(?:\s+{CAPITALISED_WORD})*"
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_PLACE_TAIL = re.compile(rf"({_WORDS}),\s+({_WORDS})")
_NOT_NAMES = CALENDAR_WORDS | {"i"}


def candidates(sentence: str, kind: AnswerKind) -> list[str]:
    """Distinct spans of ``sentence`` that could answer a question of ``kind``, in text order."""
    found = dict.fromkeys(_spans(sentence, kind))
    return [c for c in found if c]


def _spans(sentence: str, kind: AnswerKind) -> Iterator[str]:
    if kind == "date":
        yield from (m.group(0) for m in DATE.finditer(sentence))
    elif kind == "number":
        yield from (m.group(0).strip() for m in NUMBER.finditer(sentence))
    else:
        if kind == "place":
            yield from (f"{a}, {b}".rstrip(".,;:") for a, b in _PLACE_TAIL.findall(sentence))
        if kind == "person":  # "Tom and Eli Ames": two people of one family name
            yield from (m.group(0) for m in _SHARED_SURNAME.finditer(sentence))
        yield from names(sentence)
        if kind == "entity":
            yield from (m.group(1).strip() for m in _QUOTED.finditer(sentence))


def names(sentence: str) -> Iterator[str]:
    """Runs of capitalised words, trimmed of leading function words and trailing connectors."""
    for match in NAME.finditer(sentence):
        words = match.group(0).split()
        while words and words[0].lower().strip(".") in NAME_LEADING:
            words = words[1:]
        while words and (words[-1] in NAME_TRAILING or words[-1].rstrip(".,;:") in POST_NOMINALS):
            words = words[:-1]
        name = re.sub(r"['’]s$", "", " ".join(words).rstrip(".,;:'’"))
        first = name.split()[0].lower() if name else ""
        if name and first not in _NOT_NAMES and any(c.isalpha() for c in name) and not DATE.fullmatch(name):
            yield name  # "6 August 1945" is a date, never a name
