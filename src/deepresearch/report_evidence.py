"""What the sources say about the question, whether or not the answer line can say it.

The run's sentences are ranked against the question by :func:`~deepresearch.answers.evidence.rank_sentences`
(meaning-aware, with one bridge hop: a passage that names the question's bridge counts through the
sentence that covers the question). A sentence *bears on* the question when it scores at least
:data:`QUOTE_SHARE` of the best sentence, covers at least :data:`QUOTE_FLOOR` of the question and
writes one of its terms itself:
those are the report's quoted insights and, among each task's own sources, its evidence. When the
answer line abstains, :func:`still_missing` names the part of the question no passage resolved:
the bridge (nothing read says who or what the question describes) or the hop (the bridge is
named, but no passage read states what the question asks of it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.answers.candidates import names
from deepresearch.answers.evidence import Ranked, Sentence, meaning, rank_sentences, sentence_pool
from deepresearch.answers.hops import split_hops
from deepresearch.answers.question import QuestionFrame, frame_question
from deepresearch.citations import Source
from deepresearch.domain import TodoItem
from deepresearch.lexicon import NATIONALITIES
from deepresearch.text import key_stems
from deepresearch.wordsim import SoftTerms

QUOTE_SHARE = 0.7
QUOTE_FLOOR = 0.34
MAX_QUOTES = 4
TASK_QUOTES = 3
BACKGROUND_PASSAGES = 2


MIN_QUOTE_WORDS = 4
"""A sentence of fewer words is a split's leftover ("Pictures." of "… Warner Bros. Pictures."), no quote."""


@dataclass(frozen=True)
class Bearing:
    """The question's ranked sentences, the score a sentence needs to bear on it, and the sources
    whose passage holds one of the question's names (all of them when it names nothing)."""

    frame: QuestionFrame
    ranked: tuple[Ranked, ...]
    cutoff: float
    named: frozenset[int]

    def bears(self, ranked: Ranked) -> bool:
        """Scores near the best, covers enough, writes a term of the question itself (its
        passage's title counts in the ranking, but "The coast has 40,000 people" of a passage
        titled by the question's lighthouse says nothing of the lighthouse), and is from a
        passage that holds a name of the question (its chain's other half may be the one that
        names none)."""
        close = ranked.score >= self.cutoff and ranked.coverage >= QUOTE_FLOOR
        own = bool(ranked.sentence.terms & set(self.frame.terms))
        return close and own and _whole(ranked.sentence) and ranked.sentence.source_id in self.named

    def bearing(self) -> list[Sentence]:
        """The sentences that bear on the question, best first, each followed by the other half
        of its chain (the sentence that names the bridge, which need not write the question's
        words: "He taught Ansel Corwin …"), each text once."""
        out: dict[tuple[int, str], Sentence] = {}
        for ranked in self.ranked:
            if self.bears(ranked):
                for sentence in (ranked.sentence, ranked.via):
                    if sentence is not None and _whole(sentence):
                        out.setdefault((sentence.source_id, sentence.text), sentence)
        return list(out.values())


def _whole(sentence: Sentence) -> bool:
    return len(sentence.text.split()) >= MIN_QUOTE_WORDS


def bearing(question: str, sources: Sequence[Source]) -> Bearing:
    """The run's sentences ranked against ``question`` (see the module docstring)."""
    frame = frame_question(question)
    pool = sentence_pool(sources)
    ranked = rank_sentences(frame.terms, pool, frame.names, frame.text, optional=frame.describes)
    best = ranked[0].score if ranked else 0.0
    words = {n for n in frame.names if not n.isdigit() and not n[:1].isdigit()}  # "1940s" names no one
    named = {
        s.id for s in sources if not words or words & set(key_stems(f"{s.title} {s.content or s.snippet}"))
    }
    return Bearing(frame, tuple(ranked), QUOTE_SHARE * best, frozenset(named))


def best_quotes(found: Bearing, skip: set[str], limit: int = MAX_QUOTES) -> list[Sentence]:
    """The sentences that bear most on the question, at most one per source, none of ``skip``
    (keys of sentences the report already quotes)."""
    out: list[Sentence] = []
    used: set[int] = set()
    for sentence in found.bearing():
        key = _key(sentence.text)
        if sentence.source_id in used or key in skip:
            continue
        used.add(sentence.source_id)
        skip.add(key)
        out.append(sentence)
        if len(out) >= limit:
            break
    return out


def task_quotes(task: TodoItem, found: Bearing, skip: set[str], limit: int = TASK_QUOTES) -> list[Sentence]:
    """The task's own sentences that bear on the question, ranked against the task (its intent
    and query) with the question's names, none of ``skip``."""
    own = set(task.source_ids)
    pool = [s for s in found.bearing() if s.source_id in own]
    if not pool or limit <= 0:
        return []
    terms = tuple(dict.fromkeys([*key_stems(f"{task.intent} {task.query}"), *found.frame.names]))
    out: list[Sentence] = []
    for ranked in rank_sentences(terms, pool, found.frame.names):
        key = _key(ranked.sentence.text)
        if key not in skip:
            skip.add(key)
            out.append(ranked.sentence)
        if len(out) >= limit:
            break
    return out


def openings(found: Bearing, sources: Sequence[Source], skip: set[str]) -> list[tuple[str, int]]:
    """What the topic is: the opening sentence of each of the (at most
    :data:`BACKGROUND_PASSAGES`) passages whose sentences bear most on the question, unless the
    report quotes it already; empty when no passage bears on it."""
    by_id = {s.id: s for s in sources}
    out: list[tuple[str, int]] = []
    for source_id in dict.fromkeys(s.source_id for s in found.bearing()):
        pool = sentence_pool([by_id[source_id]]) if source_id in by_id else []
        if pool and _key(pool[0].text) not in skip:
            skip.add(_key(pool[0].text))
            out.append((pool[0].text, source_id))
        if len(out) >= BACKGROUND_PASSAGES:
            break
    return out


@dataclass(frozen=True)
class Missing:
    """The unresolved part of the question: ``part`` is ``"bridge"`` (``what`` the bridge's
    question), ``"hop"`` (``what`` the hop asked of the bridge named) or ``"answer"`` (a question
    of one part: ``what`` is the question); ``quoted`` whether sentences bearing on it are quoted;
    ``bridge`` the sentence that holds the description and names the bridge (a ``"hop"`` only)."""

    part: str
    what: str
    quoted: bool
    bridge: Sentence | None = None


BRIDGE_FOUND = 0.6
"""Share of the description's key terms (its head noun aside) a sentence, with its passage's
title, must hold to name the bridge: "the first painter to cross the Velmora glacier" is found in
"Ansel Corwin … was the first artist to walk across the Velmora glacier"."""


def still_missing(question: str, found: Bearing) -> Missing:
    """What no passage read resolved (see the module docstring): the bridge when no sentence
    that bears on the question holds the description, else the hop asked of the passage's
    subject that holds it."""
    quotes = found.bearing()
    hops = split_hops(question)
    if hops is None:
        return Missing("answer", question, bool(quotes))
    if hops.named:  # the named one's own page holds the words, and names others besides the bridge
        return Missing("bridge", hops.bridge, bool(quotes))
    wanted = set(key_stems(hops.described)) - set(key_stems(hops.head))
    soft = meaning(tuple(wanted), quotes, found.frame.names)
    asked = set(found.frame.terms)
    holding = [s for s in quotes if wanted and _held(wanted, s, soft) >= BRIDGE_FOUND]
    named = (_bridge_name(s, asked, found.frame.names) for s in holding)
    found_in = next(((s, n) for s, n in zip(holding, named, strict=True) if n), None)
    if found_in is None:
        return Missing("bridge", hops.bridge, bool(quotes))
    line, bridge = found_in
    return Missing("hop", hops.hop_of(bridge), True, line)


def _held(wanted: set[str], sentence: Sentence, soft: SoftTerms | None) -> float:
    return sum(
        soft.held(t, sentence.all_terms) if soft else float(t in sentence.all_terms) for t in wanted
    ) / len(wanted)


def _bridge_name(sentence: Sentence, asked: set[str], question_names: frozenset[str]) -> str | None:
    """What a sentence that holds the description names: its passage's subject (the title, as a
    name: "Raven Peak (Montana)" → "Raven Peak") unless it is the question's own (its words are
    all the question's, or it shares a name of the question: "Ada Marie Venn" for a question
    naming "Ada Venn"); else the first name the sentence writes that the question does not
    ("Prague" in "She died in Prague" of a passage titled by the question's own subject); None
    when it names nothing new."""
    subject = sentence.subject
    if subject and _new(subject, asked, question_names):
        return subject
    for name in names(sentence.text):
        if _new(name, asked, question_names) and name.lower() not in NATIONALITIES:
            return name
    return None


def _new(name: str, asked: set[str], question_names: frozenset[str]) -> bool:
    """``name`` is not the question's: not all its words, and none of its names."""
    terms = set(key_stems(name))
    return bool(terms) and not terms <= asked and not terms & question_names


def _key(text: str) -> str:
    return " ".join(key_stems(text))


__all__ = ["Bearing", "Missing", "bearing", "best_quotes", "openings", "still_missing", "task_quotes"]
