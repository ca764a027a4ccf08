"""Free text to a safe FTS5 MATCH expression.

User text never reaches FTS5 as syntax: it is cut into words of unicode letters and digits, each
word is quoted, and the words are joined with ``OR`` so that BM25 ranks passages by how many rare
query words they hold. Quotes, operators (``AND``, ``NEAR``, ``*``, ``-``, ``:``) and parentheses
are therefore plain text. CJK runs stay whole words (``unicode61`` does not segment them), so a
Chinese query matches only passages holding the same run; it never fails.
"""

from __future__ import annotations

import re
import unicodedata

MAX_QUERY_TERMS = 64

_STOPWORD_TEXT = """
    a about after all also an and any are as at be been before being between both but by can
    could did do does doing during each for from had has have having he her here hers him his how
    i if in into is it its itself me more most my no nor not of off on once only or other our ours
    out over own same she should so some such than that the their theirs them then there these they
    this those through to too under until up very was we were what when where which while who whom
    whose why will with would you your yours"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_WORD = re.compile(r"[^\W_]+")


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text: quoted word terms joined by ``OR``.

    Stopwords, single ASCII letters and repeats are dropped; ``""`` means nothing is searchable.
    Terms hold only letters and digits, so no user text can form FTS5 syntax.
    """
    terms: list[str] = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        if _is_noise(word) or word in terms:
            continue
        terms.append(word)
    return " OR ".join(f'"{term}"' for term in terms[:MAX_QUERY_TERMS])


def _is_noise(word: str) -> bool:
    return word in STOPWORDS or (len(word) == 1 and word.isascii() and word.isalpha())
