"""The one text module: stopwords, tokenizer, CJK rule, the index's stemming, citation markers.

Everything that decides whether a text "contains" a term — the judge's relevance and gaps, the
planner's duplicate checks, the extractive summariser's ranking, the notes search — goes through
here, so that it agrees with the local index. The index is SQLite FTS5 with the
``porter unicode61 remove_diacritics 2`` tokenizer, so:

- :func:`words` splits like ``unicode61``: runs of letters and digits, case-folded (NFKC), every
  other character a separator (``Gallup's`` → ``gallup``, ``s``). CJK runs (Han, kana, Hangul) are
  split from Latin letters and become overlapping character pairs (bigrams), which is how a CJK
  term can match inside a longer unsegmented run.
- :func:`stem` folds diacritics and applies the original Porter algorithm (``snowballstemmer``'s
  ``porter``, the same algorithm as FTS5's ``porter``): ``states``/``state``, ``dogs``/``dog``,
  ``breeds``/``breed`` share a stem. CJK and numbers stay as they are.
- :data:`STOPWORDS` is the one stopword list (English function words plus the boilerplate of
  research queries such as "latest developments").

:func:`key_terms` returns *surface* words (for showing gaps and writing queries), one per stem;
:func:`key_stems` their stems; :func:`coverage`, :func:`missing_terms`, :func:`jaccard` and
:func:`rank_by_terms` compare *stems*.
:func:`tokens` keeps its older, coarser contract (words keep inner ``' . -``) for callers that
want whole words such as ``3.5`` or ``covid-19``.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Protocol, cast

import snowballstemmer

STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had
    has have having he her here hers herself him himself his how i if in into is it its itself just
    me more most my myself no nor not now of off on once only or other our ours out over own same
    she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom whose
    why will with would you your yours yourself name named known latest developments
    background""".split()  # noqa: SIM905
)
"""The one stopword list: the index's query builder, key terms and the notes search all use it."""

TRUNCATION_MARKER = "[truncated]"
"""The one mark of text cut short: fetched pages, sources in prompts, the embedded model's context."""

CITATION = re.compile(r"\[(\d+(?:\s*[,，]\s*\d+)*)\]")
"""The one citation marker: ``[n]`` or ``[n, m]``, ids separated by a comma or a full-width comma
with optional spaces; group 1 holds the ids, read by :func:`cited_numbers`."""
CITATION_LIKE = re.compile(r"\[[\d,\s]+\]")
"""Brackets of digits, commas and spaces only (``[1,2]``, but also ``[ ]`` or ``[1,,]``): blanked
before comparing words, so that nothing marker-shaped counts as a word; never read as ids."""
_CITATION_SEPARATOR = re.compile(r"\s*[,，]\s*")
_LEADING_CITATIONS = re.compile(rf"^(?:{CITATION.pattern}\s*)+")

CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
"""The CJK rule: Hiragana, Katakana, CJK ideographs (with extension A and compatibility), Hangul."""

_CJK = re.compile(f"[{CJK_CHARS}]")
_CJK_RUN = re.compile(f"^[{CJK_CHARS}]+$")
_HAN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_RUN = re.compile(rf"[{CJK_CHARS}]+|[^\W_{CJK_CHARS}]+")
_TOKEN = re.compile(rf"[{CJK_CHARS}]+|[^\W_{CJK_CHARS}]+(?:['’.-][^\W_{CJK_CHARS}]+)*")
_FOOTNOTE = re.compile(rf"\s?{CITATION.pattern}")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")
_SENTENCE = re.compile(rf"{_SENTENCE_END.pattern}|(?<=[。！？])")
_ABBREVIATION = re.compile(r"(?:\b[A-Z]|\b(?:Mr|Mrs|Ms|Dr|St|Prof|Gen|Col|Lt|Capt|Mt|No|vs))\.$")
_NAME_FINAL = re.compile(r"\b(?:Jr|Sr|Inc|Co|Ltd)\.$")
"""Abbreviations that end a name ("Ford Jr.", "Acme Inc."), so often a sentence too: joined to
what follows only when that does not open a sentence of its own."""


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...  # noqa: N802 (snowballstemmer's name)


_PORTER = cast(_Stemmer, snowballstemmer.stemmer("porter"))
_PORTER_LOCK = threading.Lock()
"""A snowball stemmer keeps the word being stemmed on itself: one thread at a time."""


def is_cjk_run(word: str) -> bool:
    """True when every character of ``word`` is CJK (see :data:`CJK_CHARS`)."""
    return bool(_CJK_RUN.match(word))


def is_cjk(text: str) -> bool:
    """True when more than 30 % of the letters of ``text`` are CJK (Han, kana or Hangul)."""
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(bool(_CJK.match(c)) for c in letters) / len(letters) > 0.3


def language_of(text: str) -> str:
    """``"zh"`` when Han characters make up more than 30 % of the letters; else ``"de"``, ``"fr"``
    or ``"es"`` when at least two of that language's function words stand in the text and more
    than of any other's (English included); else ``"en"``."""
    letters = [c for c in text if c.isalpha()]
    han = sum(bool(_HAN.match(c)) for c in letters)
    if letters and han / len(letters) > 0.3:
        return "zh"
    words = [w.lower() for w in re.findall(r"[^\W\d_]+", text)]
    hits = {lang: sum(w in vocab for w in words) for lang, vocab in _FUNCTION_WORDS.items()}
    best = max(hits, key=lambda lang: hits[lang])
    runner_up = max(v for lang, v in hits.items() if lang != best)
    return best if best != "en" and hits[best] >= 2 and hits[best] > runner_up else "en"


def _words(text: str) -> list[str]:
    return text.split()


_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_words("the of and is was are were what who when where which how in on did does")),
    "de": frozenset(
        _words(
            "der die das und ist war wurde wer wann wo welche welcher welchem welchen welches wie nicht "
            "ein eine den dem im"
        )
    ),
    "fr": frozenset(
        _words("le la les l d qu de et est était été qui quand où quel quelle comment un une des du au")
    ),
    "es": frozenset(_words("el la los las de y es fue quién cuándo dónde cuál cómo un una del qué se")),
}


_OTHER_STOPWORDS: dict[str, frozenset[str]] = {
    "fr": frozenset(
        _words(
            """le la les l d de des du un une et ou est sont était étaient été fut a ont avait
            avaient en au aux à dans par pour sur sous avec sans entre qui que qu quoi quel quelle
            quels quelles lequel laquelle quand où comment pourquoi combien ce cet cette ces c il
            elle ils elles on se s sa son ses leur leurs y ne n pas plus t être avoir fait"""
        )
    ),
    "de": frozenset(
        _words(
            """der die das den dem des ein eine einen einem einer eines und oder ist war sind
            waren wurde wurden worden wer was wann wo woher wohin welche welcher welches welchem
            welchen wie
            warum wieviel im in am an auf aus bei mit von vom zu zum zur für nach über unter
            nicht es er sie hat hatte haben sein ihr ihre seine"""
        )
    ),
    "es": frozenset(
        _words(
            """el la los las lo un una unos unas y e o u de del al a en por para con sin entre
            que qué quién quiénes cuál cuáles cuándo dónde cómo cuánto cuántos cuántas es fue
            son era eran fueron ha han se su sus le les ser"""
        )
    ),
}
"""Function words of the other languages :func:`language_of` tells apart (see :func:`stopwords_for`)."""


def split_words(text: str) -> list[str]:
    """Case-folded runs of letters and digits as ``unicode61`` cuts them; CJK runs kept whole."""
    return _RUN.findall(unicodedata.normalize("NFKC", text).casefold())


def words(text: str) -> list[str]:
    """:func:`split_words` with CJK runs as overlapping character pairs (a lone character stays)."""
    out: list[str] = []
    for word in split_words(text):
        out.extend(_bigrams(word) if is_cjk_run(word) else [word])
    return out


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The index's stem of one word: Latin diacritics folded, then Porter; CJK runs, short words
    (under three characters) and words with other characters than letters and digits unchanged.

    ``stem("States") == stem("state") == "state"``; ``stem("Purkyně") == "purkyn"``.
    """
    folded = fold_diacritics(unicodedata.normalize("NFKC", word).casefold())
    if len(folded) < 3 or not folded.isalnum() or is_cjk_run(folded):
        return folded
    return _porter(folded)


def stems(text: str) -> list[str]:
    """The stems of every word of ``text``, in order (stopwords included)."""
    return [stem(w) for w in words(text)]


def fold_diacritics(text: str) -> str:
    """Latin letters without their marks (``ě`` → ``e``), as ``remove_diacritics 2`` folds them;
    other scripts (Greek, Cyrillic) keep theirs, as FTS5 keeps them."""
    return "".join(_fold_char(c) for c in text)


def _fold_char(char: str) -> str:
    if char.isascii():
        return char
    base = unicodedata.normalize("NFKD", char)[0]
    return base if base.isascii() and base.isalpha() else char


def _porter(word: str) -> str:
    """Snowball's ``porter`` plus the two rules of Porter's C version that FTS5 follows
    (step 2: ``logi`` → ``log``, ``bli`` → ``ble``), so ``technology`` → ``technolog``."""
    out = _snowball(word)
    if out.endswith("logi") and _measure(out[:-4]) > 0:
        return out[:-1]
    if out.endswith("bli") and _measure(out[:-3]) > 0:
        return _snowball(out[:-1] + "e")
    return out


def _snowball(word: str) -> str:
    with _PORTER_LOCK:
        return _PORTER.stemWord(word)


def _measure(stem_part: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem_part``."""
    shape = ""
    for i, char in enumerate(stem_part):
        vowel = char in "aeiou" or (char == "y" and i > 0 and shape[-1] == "c")
        shape += "v" if vowel else "c"
    return shape.replace("vc", "|").count("|") if shape else 0


def is_content_word(word: str, stopwords: frozenset[str] = STOPWORDS) -> bool:
    """Not a stopword, and longer than one letter (a lone digit or CJK character counts)."""
    return word not in stopwords and (len(word) > 1 or word.isdigit() or is_cjk_run(word))


def stopwords_for(text: str) -> frozenset[str]:
    """The stopwords of the language ``text`` is in (:func:`language_of`): :data:`STOPWORDS`,
    plus French, German or Spanish function words for a text in that language — "en", "quelle"
    and "été" are no key terms of "En quelle année la tour a-t-elle été construite ?"."""
    extra = _OTHER_STOPWORDS.get(language_of(text))
    return STOPWORDS | extra if extra else STOPWORDS


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens that keep inner ``' . -`` (``covid-19``, ``3.5``); CJK runs become
    character bigrams. Coarser than :func:`words`; compare terms with :func:`stems` instead."""
    out: list[str] = []
    for word in _TOKEN.findall(text.lower()):
        out.extend(_bigrams(word) if is_cjk_run(word) else [word.strip("'’.-")])
    return [t for t in out if t]


def key_terms(text: str) -> list[str]:
    """Content words in first-seen order, one per stem (``dogs`` after ``dog`` is a repeat).

    Words are returned as written (lower-cased), fit to show to a person or put in a query.
    """
    seen: dict[str, str] = {}
    stop = stopwords_for(text)
    for word in words(text):
        if is_content_word(word, stop):
            seen.setdefault(stem(word), word)
    return list(seen.values())


def key_stems(text: str) -> list[str]:
    """The stems of :func:`key_terms`, in the same order: what to compare two texts' terms by."""
    return [stem(term) for term in key_terms(text)]


def term_stems(terms: Iterable[str]) -> set[str]:
    """The stems of ``terms`` (each may hold several words), as one set."""
    return {s for term in terms for s in stems(term)}


def contains_term(term: str, present: set[str]) -> bool:
    """Whether every stem of ``term`` is in ``present`` (a set of stems); an empty term is not."""
    wanted = stems(term)
    return bool(wanted) and all(s in present for s in wanted)


def missing_terms(terms: Sequence[str], text: str) -> list[str]:
    """The ``terms`` that ``text`` does not contain, compared by stem, in their order."""
    present = set(stems(text))
    return [t for t in terms if not contains_term(t, present)]


def coverage(terms: Sequence[str], text: str) -> float:
    """Share of ``terms`` that occur in ``text`` (0..1), compared by stem."""
    if not terms:
        return 0.0
    return 1 - len(missing_terms(terms, text)) / len(terms)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard similarity of the stems of two term lists (0 when both are empty)."""
    left, right = term_stems(a), term_stems(b)
    union = left | right
    return len(left & right) / len(union) if union else 0.0


def cited_numbers(ids: str) -> list[int]:
    """The numbers of a :data:`CITATION` marker's ids (its group 1), in the order written:
    ``"1, 2"`` and ``"1，2"`` give ``[1, 2]``."""
    return [int(part) for part in _CITATION_SEPARATOR.split(ids)]


def strip_citations(text: str) -> str:
    """``text`` without its ``[n]`` / ``[n, m]`` citation markers."""
    return _FOOTNOTE.sub("", text)


def split_sentences(text: str, *, at_cjk_stops: bool = True) -> list[str]:
    """The one sentence splitter: the pieces of ``text`` as written, stripped, none empty. A
    ``.``, ``!`` or ``?`` (or ``。！？``) followed by white space ends a sentence, and with
    ``at_cjk_stops`` so does ``。！？`` with nothing after it. The index cuts without that rule, as
    its stored chunks were cut (see :mod:`deepresearch.index.chunking`)."""
    pattern = _SENTENCE if at_cjk_stops else _SENTENCE_END
    return [s for s in (part.strip() for part in pattern.split(text)) if s]


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (one character is none), footnote markers such as ``[3]``
    removed: quoted into a report, a page's own footnote would read as a citation of the run's
    source 3. A split after an initial or an abbreviation ("painted by J. M. Olsen", "the Church
    of St. Anne", "Dr. Ruiz", "Mt. Kenya", "the U.S. Army") is joined back: every step that reads
    sentences — the extractive summaries, the answer's evidence, the report's quotes — reads them
    whole (a summary once quoted "…the Basilica of St." as a sentence)."""
    flat = _FOOTNOTE.sub("", text.replace("\n", " "))
    return _join_abbreviations([s for s in split_sentences(flat) if len(s) > 1])


def cited_sentences(text: str) -> list[str]:
    """The sentences of prose that cites ``[n]`` (a model's), each keeping its own markers: a
    marker written after the full stop ("… in 1410. [2]") belongs to the sentence before it.
    Abbreviations are joined as :func:`sentences` joins them."""
    out: list[str] = []
    for part in split_sentences(text.replace("\n", " ")):
        lead = _LEADING_CITATIONS.match(part)
        if lead and out:
            out[-1] = f"{out[-1]} {lead.group(0).strip()}"
            part = part[lead.end() :].strip()
        if part:
            out.append(part)
    return _join_abbreviations(out)


def _join_abbreviations(parts: list[str]) -> list[str]:
    out: list[str] = []
    for part in parts:
        if out and _continues(out[-1], part):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _continues(before: str, part: str) -> bool:
    """The split after ``before`` fell inside a sentence: after an initial or a title, or after a
    name-final abbreviation when ``part`` does not open a sentence."""
    return bool(_ABBREVIATION.search(before)) or (bool(_NAME_FINAL.search(before)) and not part[:1].isupper())


def rank_by_terms(candidates: Sequence[str], terms: Iterable[str]) -> list[tuple[float, int]]:
    """BM25-style scores of each candidate against ``terms``, best first, as (score, index).

    Candidates and terms are compared by stem, so ``founded`` ranks a sentence with ``founder``.
    """
    docs = [Counter(stems(c)) for c in candidates]
    query = list(dict.fromkeys(s for term in terms for s in stems(term)))
    if not docs or not query:
        return []
    avg = sum(sum(d.values()) for d in docs) / len(docs) or 1.0
    idf = {t: _idf(t, docs) for t in query}
    scored = [(_bm25(d, query, idf, avg), i) for i, d in enumerate(docs)]
    return sorted(scored, key=lambda pair: (-pair[0], pair[1]))


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters and marked with :data:`TRUNCATION_MARKER` when longer."""
    return text if len(text) <= limit else f"{text[:limit].rstrip()} {TRUNCATION_MARKER}"


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
