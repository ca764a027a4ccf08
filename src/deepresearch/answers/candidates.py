"""Candidate answer spans of the kind a question asks for, cut from evidence sentences by code.

Dates and numbers by pattern; names (people, places, works, organisations) as runs of capitalised
words with their connectors ("University of Bath", "Leonardo da Vinci"); quoted titles whole.
A span is only ever text that stands in a source sentence, so an answer chosen from these
cannot contain a word that no source holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from deepresearch.answers.question import AnswerKind

_MONTH = (
    r"(?:January|February|March|April|May|June|July|August|September|October|November|December"
    r"|Jan\.|Feb\.|Aug\.|Sept?\.|Oct\.|Nov\.|Dec\.)"
)
_YEAR = r"(?:1[0-9]{3}|20[0-9]{2})"
DATE = re.compile(
    rf"\b(?:\d{{1,2}}\s+{_MONTH}\s+{_YEAR}|{_MONTH}\s+\d{{1,2}},?\s+{_YEAR}|{_MONTH}\s+{_YEAR}"
    rf"|{_YEAR}s?|\d{{1,2}}(?:st|nd|rd|th)[ -]century)\b"
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
CONNECTORS = frozenset(
    ["of", "the", "de", "da", "di", "del", "della", "des", "du", "von", "van", "der", "den", "la", "le", "y"]
)
_CONNECT = rf"(?:{'|'.join(sorted(CONNECTORS))})"
_CAP = r"(?:[A-Z][\w'’.\-]*|[A-Z]\.)"
NAME = re.compile(rf"{_CAP}(?:\s+(?:{_CONNECT}\s+)*(?:{_CAP}|\d+\b(?![,.]\d)))*")
_SHARED_SURNAME = re.compile(r"\b[A-Z][a-z]+ and [A-Z][a-z]+ [A-Z][\w'’-]+\b(?! [A-Z])")
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]")
_PLACE_TAIL = re.compile(rf"({_CAP}(?:\s+{_CAP})*),\s+({_CAP}(?:\s+{_CAP})*)")
_LEADING = frozenset(
    [
        "a",
        "an",
        "the",
        "in",
        "on",
        "at",
        "of",
        "for",
        "from",
        "to",
        "by",
        "with",
        "as",
        "and",
        "but",
        "or",
        "he",
        "she",
        "it",
        "its",
        "his",
        "her",
        "their",
        "they",
        "this",
        "that",
        "these",
        "those",
        "there",
        "after",
        "before",
        "during",
        "when",
        "while",
        "although",
        "since",
        "however",
        "also",
        "then",
        "later",
        "in",
        "born",
        "died",
        "was",
        "is",
        "are",
        "were",
        "after",
        "following",
    ]
)
_TRAILING = frozenset(
    [
        "of",
        "the",
        "de",
        "da",
        "di",
        "del",
        "della",
        "des",
        "du",
        "von",
        "van",
        "der",
        "den",
        "la",
        "le",
        "y",
        "and",
        "on",
        "upon",
        "in",
    ]
)
NATIONALITIES = frozenset(
    [
        "american",
        "british",
        "english",
        "french",
        "german",
        "italian",
        "spanish",
        "canadian",
        "australian",
        "korean",
        "japanese",
        "chinese",
        "indian",
        "russian",
        "irish",
        "scottish",
        "welsh",
        "dutch",
        "swedish",
        "norwegian",
        "danish",
        "finnish",
        "polish",
        "czech",
        "mexican",
        "brazilian",
        "argentine",
        "greek",
        "turkish",
        "african",
        "european",
        "asian",
        "soviet",
        "roman",
        "egyptian",
        "persian",
        "israeli",
        "iranian",
        "pakistani",
        "filipino",
        "thai",
        "vietnamese",
        "portuguese",
        "belgian",
        "swiss",
        "austrian",
        "hungarian",
        "romanian",
        "ukrainian",
        "nigerian",
        "kenyan",
        "latin",
        "christian",
        "catholic",
        "muslim",
        "jewish",
        "republican",
        "democratic",
        "democrat",
        "hindi",
        "telugu",
        "tamil",
    ]
)
_NOT_NAMES = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "i",
    ]
)


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
        while words and words[0].lower().strip(".") in _LEADING:
            words = words[1:]
        while words and words[-1] in _TRAILING:
            words = words[:-1]
        name = re.sub(r"['’]s$", "", " ".join(words).rstrip(".,;:'’"))
        first = name.split()[0].lower() if name else ""
        if name and first not in _NOT_NAMES and any(c.isalpha() for c in name):
            yield name
