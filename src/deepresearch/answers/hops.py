"""A two-hop question read as its two parts: the *bridge* (who or what the question describes
without naming it) and the *hop* (what it asks of that bridge).

"Who was the tutor of the first painter to cross the Velmora glacier?" describes a painter it
does not name: the bridge is "Who was the first painter to cross the Velmora glacier?", the hop
"Who was the tutor of that painter?". Plans research the bridge first, then the hop; a report that
cannot answer says which part is still missing. Code reads four English shapes (an "of" phrase
after the question word, a relative clause, a subject described by an "of" phrase, and a named
one described anywhere in the question, "by the producer of Grey Harbour"); any other question,
or any other language, has no split (None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from deepresearch.lexicon import (
    AGENT_ENDINGS,
    KIN_NOUNS,
    NATIONALITIES,
    NOT_AGENT_NOUNS,
    PERSON_NOUNS,
    PLACE_NOUNS,
)

_AUX = r"(?:is|was|are|were)"
_OF_AFTER_WH = re.compile(
    rf"^(?P<wh>(?:(?:in|on|at|from|for|by)\s+)?(?:who|what|which|where|when|how\s+\w+)(?:\s+\w+)?)\s+"
    rf"(?P<aux>{_AUX})\s+(?P<rel>the\s+(?:\w+\s+){{0,2}}?\w+)\s+of\s+"
    r"(?P<desc>(?:the|a|an)\s+[^?]+?)\s*(?P<tail>,\s*(?:and|or|but)\b[^?]*)?\?$",
    re.IGNORECASE,
)
_RELATIVE = re.compile(
    r"^(?P<pre>.*?\b(?:in|of|by|for|with|from|to|at|on|about|through|into|near|under|over|during|as|\w+ed)\s+)"
    r"(?P<desc>the\s+(?:\w+\s+){0,3}?\w+\s+(?-i:who|that|which|whose|in which|where)\s+(?P<clause>[^?]+?))"
    r"\s*(?P<tail>,\s*(?:and|or|but)\b[^?]*)?\?$",
    re.IGNORECASE,
)
_SUBJECT_OF = re.compile(
    r"^(?P<desc>the\s+(?:\w+\s+){0,2}?(?P<head>\w+)\s+of\s+[^,?]+?)\s+"
    r"(?P<verb>is|was|are|were|has|had|did|does|do)\s+(?P<rest>[^?]+)\?$",
    re.IGNORECASE,
)
_NAMED_OF = re.compile(
    r"\bthe\s+(?:(?![A-Z])\w+\s+){0,2}?(?P<head>[a-z]\w*)\s+of\s+"
    r"(?P<name>(?:the\s+)?[A-Z][^\s?,]*(?:\s+(?:[A-Z(\d][^\s?,]*|(?:of|in|the|de|la|von|van|and|a|on|to|for)"
    r"(?=\s+[A-Z])))*)"
)
_LEADS_TO_OBJECT = frozenset(
    ["in", "on", "at", "from", "for", "by", "with", "to", "of", "about", "into", "during", "under"]
    + ["over", "near", "through", "as", "after", "before", "is", "was", "are", "were", "did", "does"]
    + ["do", "has", "had"]
)
_PICKS_ONE_OF = re.compile(r"^(?:which|who|what|how\s+many)\s+of\s*$", re.IGNORECASE)
_PLACE_DESCRIBED = frozenset(["capital", "place", "location", "area"])
_CHOICE = re.compile(r"\b(?:or|both|same)\b", re.IGNORECASE)
_ASKS = re.compile(r"\b(?:what|which|who|whom|when|where|how)\b")
_DETERMINER = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
_HEAD_ENDS = frozenset(
    ["of", "to", "who", "that", "which", "whose", "where", "in", "from", "with", "on", "at", "by", "for"]
)
_RELATIVE_OF = re.compile(
    r"\b(?P<rel>[a-z]+)\s+of\s+(?:the\s+)?(?:(?:film|song|album|novel|book|band|series|show|game|play)\s+)?"
    r"(?P<name>[A-Z][^\s?,]*(?:\s+(?:[A-Z(][^\s?,]*|of|de|la|the|von|van|der|and))*)"
)
_POSSESSIVE = re.compile(
    r"(?P<name>[A-Z][^\s?,]*(?:\s+[A-Z(][^\s?,]*)*)'s\s+(?:(?P<adj>[a-z]+)\s+)?(?P<rel>[a-z]+)\b"
)
_FUNCTION_WORD = r"(?:and|or|but|in|on|at|of|for|by|with|to|from|during|is|was|were|are|the|a|an)"
_POSSESSED = re.compile(
    r"\b(?:in|on|at|from|for|by|with|to|of|about|into|during|under|over|near|through|after|before)\s+"
    r"(?P<name>(?-i:[A-Z])[^\s?,'’]*(?:\s+(?-i:[A-Z(])[^\s?,'’]*)*)['’]s\s+"
    rf"(?P<rel>[a-z]+(?:\s+(?!{_FUNCTION_WORD}\b)[a-z]+){{0,2}}(?:\s+of\s+(?!{_FUNCTION_WORD}\b)[a-z]+)?)\b"
)
_ASKS_WHO = re.compile(
    r"^(?:who|whom|what|which\s+\w+)(?:'s|\s+(?:is|was|are|were|do|does|did))\s+(?:the\s+)?(?:[a-z]+\s+)?$",
    re.I,
)
_ENDS_IN_VERB = re.compile(r"\b(?:\w+ed|born|built|made|written|known|held|given|won|sold|begun)$", re.I)


@dataclass(frozen=True)
class Hops:
    """``bridge``: the question that finds what the question describes; ``hop``: the question
    asked of it, with the description replaced by "that <head>"; ``described``: the description
    as the question writes it."""

    bridge: str
    hop: str
    described: str
    head: str
    named: bool = False
    """The description is of a named one ("the producer of Grey Harbour"): a line that holds
    its words is that one's own page, which names the bridge among other names."""

    def hop_of(self, name: str) -> str:
        """The hop asked of a bridge found: "Who was the tutor of Ilse Marr?"."""
        return self.hop.replace(f"that {self.head}", name, 1).replace(f"That {self.head}", name, 1)


def split_hops(question: str) -> Hops | None:
    """The question's bridge and hop (see the module docstring), or None when it has no
    description to resolve first."""
    text = " ".join(question.split())
    if not text.endswith("?"):
        return None
    return _of_after_wh(text) or _subject_of(text) or _relative(text) or _named_of(text) or _possessed(text)


def relative_named(question: str) -> str | None:
    """The name whose relative the question asks something of: "Where was the husband of Ines
    Marr born?" → "Ines Marr" (a person noun before "of", or after "Ines Marr's"). The answer is a
    fact about the husband, so a line about Ines Marr herself does not give it. None where the
    question asks for the relative itself ("Who was the husband of Ines Marr?") or names none."""
    text = " ".join(question.split())
    for pattern in (_RELATIVE_OF, _POSSESSIVE):
        for match in pattern.finditer(text):
            ends = [match.end(g) for g in ("adj", "rel") if g in match.re.groupindex and _person(match[g])]
            if not ends:
                continue
            after = text[ends[0] if pattern is _POSSESSIVE else match.end() :].strip()
            asks_the_relative = _ASKS_WHO.match(text[: match.start()]) and after in ("?", "")
            return None if asks_the_relative else match["name"]
    return None


def _person(word: str | None) -> bool:
    return word is not None and _names_a_person(word)


def _of_after_wh(text: str) -> Hops | None:
    match = _OF_AFTER_WH.match(text)
    if match is None or _unfinished(match["desc"]):
        return None
    desc, head = match["desc"], _head(match["desc"])
    tail = match["tail"] or ""
    hop = f"{match['wh']} {match['aux']} {match['rel']} of that {head}{tail}?"
    return Hops(_bridge(desc, match["aux"]), _capital(hop), desc, head)


def _subject_of(text: str) -> Hops | None:
    match = _SUBJECT_OF.match(text)
    if match is None or not match["head"].islower():
        return None
    head = _head(match["desc"])
    hop = f"That {head} {match['verb']} {match['rest']}?"
    return Hops(_bridge(match["desc"], "is"), hop, match["desc"], head)


def _relative(text: str) -> Hops | None:
    match = _RELATIVE.match(text)
    if match is None or _ASKS.search(match["clause"]) or match["desc"].split()[-1].lower() in _HEAD_ENDS:
        return None
    tail = match["tail"] or ""
    head = _head(match["desc"])
    hop = f"{match['pre']}that {head}{tail}?"
    return Hops(_bridge(match["desc"], "is"), _capital(hop), match["desc"], head)


def _named_of(text: str) -> Hops | None:
    """A description of a named one anywhere in the question: "Who sang on Dusk by the producer
    of Grey Harbour?" → "Who is the producer of Grey Harbour?", then "Who sang on Dusk by that
    producer?". None where the question asks for that one itself ("Who was the producer of Grey
    Harbour?": one hop), or compares ("A or B", "both", "the same"), which reads each side's page."""
    if _CHOICE.search(text):
        return None
    match = next((m for m in _NAMED_OF.finditer(text) if _describes(m, text)), None)
    if match is None:
        return None
    head, before = match["head"], text[: match.start()]
    if _ASKS_WHO.match(before) and text[match.end() :].strip() in ("?", ""):
        return None
    desc = match.group(0)
    hop = f"{before}that {head}{text[match.end() :]}"
    return Hops(_bridge(desc, "is"), _capital(hop), desc, head, named=True)


def _possessed(text: str) -> Hops | None:
    """A thing named by a possessive after a preposition: "Who was the first mayor of Ada Holm's
    hometown?" → "What is the hometown of Ada Holm?", then "Who was the first mayor of that
    hometown?". A person so named ("of Ada Holm's father") is read by
    :func:`relative_named` instead, and a comparison reads each side's page."""
    if _CHOICE.search(text):
        return None
    match = _POSSESSED.search(text)
    if match is None or any(_person(w) or _person(w.removesuffix("s")) for w in match["rel"].split()):
        return None
    desc = f"the {match['rel']} of {match['name']}"
    head = _head(desc)
    hop = f"{text[: match.start('name')]}that {head}{text[match.end() :]}"
    return Hops(_bridge(desc, "is"), _capital(hop), desc, head, named=True)


def _describes(match: re.Match[str], text: str) -> bool:
    """The "the … of <Name>" at ``match`` describes someone or something to find first: it is
    the object of a preposition or a question verb ("by the producer of", "was the father of"),
    not a verb's ("provided the voice of"); its words before the head are no prepositions ("the
    place of death of"), and it is not one picked of many ("Which of the founders of …"); the
    name is no possessive ("X's father", read elsewhere), no nationality and not followed by an
    apposition (", 4th Baron …"); and "the city of Leeds" (a place noun alone) is Leeds itself."""
    before = text[: match.start()]
    modifiers = text[match.start() : match.start("head")].split()[1:]  # between "the" and the head
    name = _DETERMINER.sub("", match["name"])
    head = match["head"].lower()
    words = before.split()
    return (
        bool(words)
        and words[-1].lower() in _LEADS_TO_OBJECT
        and not _PICKS_ONE_OF.match(before)
        and not any(w.lower() in _HEAD_ENDS for w in modifiers)
        and "'" not in name
        and "’" not in name
        and name.lower() not in NATIONALITIES
        and not text[match.end() :].lstrip().startswith(",")
        and not (head in PLACE_NOUNS and head not in _PLACE_DESCRIBED and not modifiers)
    )


def _unfinished(description: str) -> bool:
    """A description that ends in a verb or a preposition runs into the question's own verb
    ("the river built in …" of "When was the river built in …"), not a description alone."""
    last = description.split()[-1].lower()
    return last in _HEAD_ENDS or _ENDS_IN_VERB.search(last) is not None


def _head(description: str) -> str:
    """The noun a description is about, the last word before its first preposition or relative
    word: "the first painter to cross …" → "painter", "the eastern tip of …" → "tip"."""
    words = _DETERMINER.sub("", description).split()
    ends = [i for i, w in enumerate(words) if i > 0 and (w in _HEAD_ENDS or w.endswith(("ed", "ly")))]
    before = ends[0] if ends else len(words)
    return words[before - 1] if words else description


def _bridge(description: str, aux: str) -> str:
    head = _head(description).lower()
    wh = "Who" if _names_a_person(head) else "What"
    return f"{wh} {aux.lower()} {description}?"


def _names_a_person(noun: str) -> bool:
    if noun in PERSON_NOUNS or noun in KIN_NOUNS:
        return True
    return noun.endswith(AGENT_ENDINGS) and noun not in NOT_AGENT_NOUNS


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


__all__ = ["Hops", "relative_named", "split_hops"]
