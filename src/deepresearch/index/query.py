"""Free text to a safe FTS5 MATCH expression.

User text never reaches FTS5 as syntax: it is cut into words of unicode letters and digits, each
word is quoted, and the words are joined with ``OR`` so that BM25 ranks passages by how many rare
query words they hold. Words and stopwords come from :mod:`deepresearch.text` (the same split as
the index's ``unicode61`` tokenizer, the one stopword list). Quotes, operators (``AND``, ``NEAR``,
``*``, ``-``, ``:``) and parentheses are therefore plain text. CJK runs stay whole words
(``unicode61`` does not segment them), so a Chinese query matches only passages holding the same
run; it never fails.
"""

from __future__ import annotations

from deepresearch.text import STOPWORDS, split_words

MAX_QUERY_TERMS = 64


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression for free text: quoted word terms joined by ``OR``.

    Stopwords, single ASCII letters and repeats are dropped; ``""`` means nothing is searchable.
    Terms hold only letters and digits, so no user text can form FTS5 syntax.
    """
    terms: list[str] = []
    for word in split_words(text):
        if _is_noise(word) or word in terms:
            continue
        terms.append(word)
    return " OR ".join(f'"{term}"' for term in terms[:MAX_QUERY_TERMS])


def _is_noise(word: str) -> bool:
    return word in STOPWORDS or (len(word) == 1 and word.isascii() and word.isalpha())
