"""Small text utilities shared by the judge, the extractive summariser and the planner."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own same
    she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why
    will with would you your yours yourself which whose what's who's did was were name named known
    latest developments background""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")


def is_cjk(text: str) -> bool:
    """True when most letters of ``text`` are CJK characters."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(bool(_CJK.match(c)) for c in letters) / len(letters) > 0.3


def language_of(text: str) -> str:
    return "zh" if is_cjk(text) else "en"


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens; CJK runs become character bigrams."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        if _CJK.search(word):
            out.extend(_bigrams(word))
        else:
            out.append(word.strip("'’.-"))
    return [t for t in out if t]


def key_terms(text: str) -> list[str]:
    """Content terms in first-seen order, stopwords and one-letter words dropped."""
    seen: dict[str, None] = {}
    for token in tokens(text):
        if token not in STOPWORDS and (len(token) > 1 or token.isdigit()):
            seen.setdefault(token, None)
    return list(seen)


def coverage(terms: Sequence[str], text: str) -> float:
    """Share of ``terms`` that occur in ``text`` (0..1)."""
    if not terms:
        return 0.0
    present = set(tokens(text))
    return sum(t in present for t in terms) / len(terms)


def sentences(text: str) -> list[str]:
    parts = (s.strip() for s in _SENTENCE.split(text.replace("\n", " ")))
    return [s for s in parts if len(s) > 1]


def rank_by_terms(candidates: Sequence[str], terms: Iterable[str]) -> list[tuple[float, int]]:
    """BM25-style scores of each candidate against ``terms``, best first, as (score, index)."""
    docs = [Counter(tokens(c)) for c in candidates]
    query = list(dict.fromkeys(terms))
    if not docs or not query:
        return []
    avg = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    idf = {t: _idf(t, docs) for t in query}
    scored = [(_bm25(d, query, idf, avg), i) for i, d in enumerate(docs)]
    return sorted(scored, key=lambda pair: (-pair[0], pair[1]))


def truncate(text: str, limit: int, marker: str = " [truncated]") -> str:
    return text if len(text) <= limit else text[:limit].rstrip() + marker


def _idf(term: str, docs: Sequence[Counter[str]]) -> float:
    containing = sum(term in d for d in docs)
    return math.log(1 + (len(docs) - containing + 0.5) / (containing + 0.5))


def _bm25(doc: Counter[str], query: Sequence[str], idf: dict[str, float], avg: float) -> float:
    k1, b, length = 1.2, 0.75, sum(doc.values())
    score = 0.0
    for term in query:
        freq = doc.get(term, 0)
        if freq:
            score += idf[term] * freq * (k1 + 1) / (freq + k1 * (1 - b + b * length / avg))
    return score


def _bigrams(word: str) -> list[str]:
    return [word] if len(word) < 2 else [word[i : i + 2] for i in range(len(word) - 1)]
