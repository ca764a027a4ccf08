"""Evidence sentences ranked against a question, following one bridge hop.

A multi-hop question's answer sentence is about an entity the question never names (the city
where someone died), so the question's words alone do not find it. Code scores each sentence by
how much of the question it covers (its passage's title counts: "She died in Eskerby" belongs to
the passage about the woman), then lets a sentence borrow coverage from a *bridge*: a sentence that
covers the question and names something (a place, a film, a person) that titles or appears in
the second sentence. Weights are inverse sentence frequencies over the run's own sentences, so
the question's rare names count most. A name listed among many peers of the question's subject
("19 member states: …, Malta, …") is no bridge: a peer's facts are not the subject's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from deepresearch.answers.candidates import names
from deepresearch.answers.dense import DENSE_TOP, DENSE_WEIGHT, Dense
from deepresearch.citations import Source
from deepresearch.lexicon import NATIONALITIES
from deepresearch.text import key_stems, sentences
from deepresearch.wordsim import SoftTerms, soft_terms

MAX_SENTENCES_PER_SOURCE = 40
BRIDGE_SEEDS = 6
NAME_WEIGHT = 1.0
OWN_SHARE = 0.1
TITLE_BONUS = 0.1
_TITLE_TAIL = re.compile(r"\s*(?:\(.*?\)|,.*)$")
LIST_GLUE = re.compile(r",\s*(?:and\s+)?|\s+and\s+")
_LOWER_WORD = re.compile(r"\b[a-z]+\b")
SIBLINGS = 5  # a list of this many names or more makes its members peers, not hops


QUALIFIER = re.compile(r"\s*\(.*?\)\s*$")
"""A bracketed qualifier ending a title or a name: "(film)", "(1961 film)"."""


@dataclass(frozen=True)
class Sentence:
    """A sentence of a source, with its passage's title (the sentence's usual subject)."""

    text: str
    source_id: int
    title: str
    terms: frozenset[str]
    title_terms: frozenset[str]

    @property
    def all_terms(self) -> frozenset[str]:
        return self.terms | self.title_terms

    @property
    def subject(self) -> str:
        """The passage's subject: its title as a name, without a bracketed qualifier ("Raven Peak
        (Montana)" → "Raven Peak")."""
        return QUALIFIER.sub("", self.title).strip()


@dataclass(frozen=True)
class Ranked:
    """A sentence with its score; ``via`` is the bridge sentence it borrowed coverage from and
    ``bridge`` the name that links them."""

    sentence: Sentence
    score: float
    coverage: float
    via: Sentence | None = None
    bridge: str | None = None

    @property
    def chain_terms(self) -> frozenset[str]:
        extra = self.via.all_terms if self.via else frozenset()
        return self.sentence.all_terms | extra


def sentence_pool(sources: Sequence[Source]) -> list[Sentence]:
    """Every distinct sentence of ``sources`` (the first ``MAX_SENTENCES_PER_SOURCE`` of each)."""
    pool: list[Sentence] = []
    seen: set[str] = set()
    for source in sources:
        title_terms = frozenset(key_stems(source.title))
        whole = sentences(source.content or source.snippet)
        for text in whole[:MAX_SENTENCES_PER_SOURCE]:
            key = " ".join(text.lower().split())
            if key in seen:
                continue
            seen.add(key)
            pool.append(Sentence(text, source.id, source.title, frozenset(key_stems(text)), title_terms))
    return pool


def term_weights(
    question_terms: Sequence[str], pool: Sequence[Sentence], names: frozenset[str] = frozenset()
) -> dict[str, float]:
    """Inverse sentence frequency of each question term over the pool (absent terms weigh most),
    times ``NAME_WEIGHT`` for the terms of the question's names: a chain must hold what the
    question is about, not just its common words."""
    total = len(pool) + 1
    return {
        t: math.log(1 + total / (1 + sum(t in s.all_terms for s in pool)))
        * (NAME_WEIGHT if t in names else 1.0)
        for t in question_terms
    }


def coverage(
    terms: frozenset[str],
    weights: dict[str, float],
    optional: frozenset[str] = frozenset(),
    soft: SoftTerms | None = None,
) -> float:
    """The weighted share of the question's terms that ``terms`` hold; an ``optional`` term counts
    only where it stands ("river" in "which river …": evidence may name it or not). With ``soft``
    a term is also held, in part, by a word of like meaning ("wife" for "married")."""
    held = {t: soft.held(t, terms) if soft else float(t in terms) for t in weights}
    whole = sum(w for t, w in weights.items() if t not in optional or held[t])
    return sum(w * held[t] for t, w in weights.items()) / whole if whole else 0.0


def meaning(
    question_terms: Sequence[str], pool: Sequence[Sentence], names: frozenset[str]
) -> SoftTerms | None:
    """The words of the pool that stand for the question's terms (not its names: "Britain" is no
    stand-in for "England"), or None without the word table."""
    vocabulary = {t for s in pool for t in s.all_terms}
    return soft_terms([t for t in question_terms if t not in names], vocabulary)


def rank_sentences(
    question_terms: Sequence[str],
    pool: Sequence[Sentence],
    names: frozenset[str] = frozenset(),
    question_text: str = "",
    optional: frozenset[str] = frozenset(),
    dense: Dense | None = None,
) -> list[Ranked]:
    """Sentences best first. Score: coverage of the question by the sentence and its bridge
    sentence together, plus a little of the sentence's own coverage (to break ties), plus, with
    ``dense``, their meaning's closeness to the question (see :func:`_with_meaning`).
    ``names`` are the stems of the names the question holds (see :func:`term_weights`);
    ``optional`` terms count only where a sentence holds them (see :func:`coverage`)."""
    weights = term_weights(question_terms, pool, names)
    question = set(question_terms)
    soft = meaning(question_terms, pool, names)
    direct = {id(s): coverage(s.all_terms, weights, optional, soft) for s in pool}
    bonus = {id(s): TITLE_BONUS * _titled(s, question_text) if question_text else 0.0 for s in pool}
    seeds = sorted(pool, key=lambda s: -(direct[id(s)] + bonus[id(s)]))[:BRIDGE_SEEDS]
    bridges = seed_bridges([s for s in seeds if direct[id(s)] > 0], pool, question)
    ranked = [_best_chain(s, direct[id(s)], bridges, weights, bonus, optional, soft) for s in pool]
    ranked.sort(key=lambda r: -r.score)
    return _with_meaning(ranked, dense, question_text) if dense is not None and question_text else ranked


def _with_meaning(ranked: list[Ranked], dense: Dense, question_text: str) -> list[Ranked]:
    """The lexical best chains rescored with their sentence meaning (:mod:`deepresearch.answers.dense`):
    ``DENSE_WEIGHT`` × the cosine of the question with the sentence and its bridge sentence (the
    passage's title put first measured worse on the dev sets: 74 right against 79)."""
    head = [r for r in ranked[:DENSE_TOP] if r.score > 0]
    if not head:
        return ranked
    cosines = dense(question_text, [chain_text(r) for r in head])
    rescored = [
        replace(r, score=r.score + DENSE_WEIGHT * max(c, 0.0)) for r, c in zip(head, cosines, strict=True)
    ]
    return sorted(rescored, key=lambda r: -r.score) + ranked[len(head) :]


def chain_text(ranked: Ranked) -> str:
    """The evidence chain as one text: the sentence, then the bridge sentence it borrowed from."""
    return ranked.sentence.text if ranked.via is None else f"{ranked.sentence.text} {ranked.via.text}"


def _best_chain(
    sentence: Sentence,
    own: float,
    bridges: Sequence[tuple[str, Sentence]],
    weights: dict[str, float],
    bonus: dict[int, float],
    optional: frozenset[str] = frozenset(),
    soft: SoftTerms | None = None,
) -> Ranked:
    """The sentence scored alone and through each bridge that leads to it; a chain keeps the
    title bonus of either end (the question's subject may title the bridge's passage)."""
    best = Ranked(sentence, own * (1 + OWN_SHARE) + bonus[id(sentence)], own)
    for name, seed in bridges:
        if seed is sentence or not _mentions(sentence, name):
            continue
        chained = coverage(sentence.all_terms | seed.all_terms, weights, optional, soft)
        score = chained + OWN_SHARE * own + max(bonus[id(sentence)], bonus[id(seed)])
        if score > best.score:
            best = Ranked(sentence, score, chained, via=seed, bridge=name)
    return best


def _titled(sentence: Sentence, question: str) -> bool:
    """The sentence's passage is titled by a name the question writes out ("Raven Peak
    (Montana)" for a question on Raven Peak): that passage is about the question's subject."""
    title = sentence.subject
    return len(title) > 3 and re.search(rf"\b{re.escape(title)}\b", question, re.IGNORECASE) is not None


def _common_names(pool: Sequence[Sentence]) -> set[str]:
    """Names in more than a quarter of the sources' passages ("American", "English") bridge nothing,
    nor does a one-word name the sources also write as a common word ("Woman" of a title "Wings and
    the Woman", where the pool says "a woman"): it would link every "Wonder Woman" to the chain."""
    by_source: dict[str, set[int]] = {}
    lower: set[str] = set()
    for sentence in pool:
        lower.update(_LOWER_WORD.findall(sentence.text))
        for name in names(sentence.text):
            by_source.setdefault(name, set()).add(sentence.source_id)
    sources = len({s.source_id for s in pool}) or 1
    common = {n for n, ids in by_source.items() if len(ids) > max(3, sources // 4)}
    return common | {n for n in by_source if n.isalpha() and n.lower() in lower}


def _bridge_names(seed: Sentence, question: set[str]) -> list[str]:
    out = []
    found = list(names(seed.text))
    peers = _listed_beside(seed.text, found, question)
    for name in found:
        if name.lower() in NATIONALITIES or name in peers:
            continue
        terms = set(key_stems(name))
        subject = terms <= seed.title_terms or (bool(seed.title_terms) and terms >= seed.title_terms)
        if terms and not terms <= question and not subject:  # nor the passage's subject, in full
            out.append(name)
    return out


def _listed_beside(text: str, found: Sequence[str], question: set[str]) -> set[str]:
    """The names ``text`` lists together with one the question names, in a list of ``SIBLINGS``
    or more ("the sole currency of 19 states: Austria, Belgium, …, Malta, …" for a question on
    Malta): peers of what the question asks about, so none of them leads to its answer."""
    peers: set[str] = set()
    for start, end in list_runs(text, found):
        listed = [n for n in found if n in text[start:end]]
        held = any((stems := set(key_stems(n))) and stems <= question for n in listed)
        if held and len(listed) >= SIBLINGS:
            peers.update(listed)
    return peers


def list_runs(text: str, spans: Sequence[str]) -> Iterator[tuple[int, int]]:
    """(start, end) of each run of two or more of ``spans`` (in text order) that ``text`` lists
    one after another, joined by commas or "and" ("Karin Holm, Lise Lyng and Mette Skov")."""
    run: list[tuple[int, int]] = []
    for span in spans:
        start = text.find(span, run[-1][1] if run else 0)
        if start < 0:
            continue
        if run and not LIST_GLUE.fullmatch(text[run[-1][1] : start]):
            if len(run) >= 2:
                yield run[0][0], run[-1][1]
            run = []
        run.append((start, start + len(span)))
    if len(run) >= 2:
        yield run[0][0], run[-1][1]


def _mentions(sentence: Sentence, name: str) -> bool:
    """The sentence speaks of ``name``: its passage is titled by it, it names it, or the name
    begins with the passage's title ("North Lakeport High School" leads to "North Lakeport, Ohio").
    A one-word name titles a passage only written whole in the title: "Charmed" is not "Charm
    Offensive", though both stem to "charm"."""
    terms = frozenset(key_stems(name))
    if not terms:
        return False
    head = _TITLE_TAIL.sub("", sentence.title).strip()
    named = names_whole(name, sentence.text)
    titled = terms <= sentence.title_terms and (" " in name or names_whole(name, sentence.title))
    return titled or named or (len(head) > 3 and name.startswith(head))


def names_whole(name: str, text: str) -> bool:
    """``text`` names ``name`` as a whole: not "Tom" in "Tomahawk", nor a one-word name as the
    first name of another ("Tom" in "Tom Reyes")."""
    for match in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
        if " " in name or not re.match(r"\s[A-Z]", text[match.end() :]):
            return True
    return False


def about_question(
    question_terms: Sequence[str],
    sources: Sequence[Source],
    floor: float,
    names: frozenset[str] = frozenset(),
) -> set[int]:
    """Ids of the sources about the question: their title and text cover at least ``floor`` of
    the question's terms, weighted like :func:`rank_sentences`, and hold one of its ``names``
    when it has any (a stone bridge in Marlow shares "stone" and "bridge" with a question about
    Eskerby's bridge, but none of its names)."""
    docs = [
        Sentence(
            "", s.id, s.title, frozenset(key_stems(s.content or s.snippet)), frozenset(key_stems(s.title))
        )
        for s in sources
    ]
    weights = term_weights(question_terms, docs)  # source level: names need no extra weight
    soft = meaning(question_terms, docs, names)
    return {
        d.source_id
        for d in docs
        if coverage(d.all_terms, weights, soft=soft) >= floor and (not names or names & d.all_terms)
    }


def ranked_bridges(
    question_terms: Sequence[str],
    pool: Sequence[Sentence],
    limit: int = 5,
    names: frozenset[str] = frozenset(),
) -> list[tuple[str, Sentence]]:
    """The names the best-covering sentences mention that the question does not, each with the
    sentence that names it: where the second hop of a multi-hop question should search next.
    With the question's ``names``, sentences that hold more of them seed first: the first hop is
    the passage about what the question names ("Velmora lies in eastern Kestria" for "Velmora's
    country"), not one that shares its common words ("the first president of …"). A name counts
    by its rarity in the sources, like a term: for "When did the country holding Velmora leave
    the Aldish Empire?" the one sentence on Velmora seeds before the many on the empire."""
    weights = term_weights(question_terms, pool)
    soft = meaning(question_terms, pool, names)
    named = {t: weights.get(t, 1.0) for t in names}
    whole = sum(named.values())

    def key(s: Sentence) -> tuple[float, float]:
        held = sum(w for t, w in named.items() if t in s.all_terms) / whole if whole else 0.0
        return (-held, -coverage(s.all_terms, weights, soft=soft))

    seeds = sorted(pool, key=key)[: BRIDGE_SEEDS * 2]
    covering = [s for s in seeds if coverage(s.all_terms, weights, soft=soft) > 0]
    found: dict[str, Sentence] = {}
    for name, seed in seed_bridges(covering, pool, set(question_terms)):
        found.setdefault(name, seed)
    return list(found.items())[:limit]


def seed_bridges(
    seeds: Sequence[Sentence], pool: Sequence[Sentence], question: set[str]
) -> list[tuple[str, Sentence]]:
    """(name, seed) for every name a seed sentence mentions that can bridge: not the question's,
    not the seed passage's own subject, not a name most of the pool's sources share."""
    common = _common_names(pool)
    return [(name, seed) for seed in seeds for name in _bridge_names(seed, question) if name not in common]
