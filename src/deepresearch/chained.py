"""A two-hop question the answer step abstains on, asked again as its hop of the bridge the
sources name.

"Who was the husband of the first woman to sail alone across the Merrow Sea?" describes a sailor
it does not name. Where the answer step cannot answer it whole, the report already finds the
bridge (:func:`~deepresearch.report_evidence.still_missing`: a sentence read that holds the
description, by meaning as well as words, "the first female sailor to cross the Merrow Sea
single-handed"), and names the hop still missing, asked of the sailor by name. That hop is a
one-part question about a named subject: the answer step is asked it over the same sources, and
what it states, with all its checks, answers the question, cited with the bridge's sentence as
the way to it. What it does not state leaves the abstention as it was. Measured on the dev sets'
own passages, with and without their gold passages (docs/BENCHMARKS.md, issue 34's thirteenth
step). Where that leads to no answer, or the question describes a named one ("the producer of
Grey Harbour", whose own page holds those words and names others too), the answer step is asked
the bridge's own question, the reader reading it by meaning, and the hop is asked of the bridge
it states (issue 34's nineteenth step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from deepresearch.answers.claims import ClaimCheck, settle
from deepresearch.answers.ground import GroundedAnswer, abstain
from deepresearch.answers.hops import Hops, split_hops
from deepresearch.answers.question import frame_question
from deepresearch.answers.reader import same_answer
from deepresearch.citations import Source
from deepresearch.report_evidence import bearing, still_missing
from deepresearch.text import key_stems

Ask = Callable[[str], GroundedAnswer]
"""The answer step on another question over the same sources."""


def through_bridge(
    question: str, sources: Sequence[Source], answer: GroundedAnswer, ask: Ask
) -> GroundedAnswer:
    """``answer``, or where it abstains on a two-hop question whose bridge a sentence read
    names, the answer step's answer to the hop asked of that bridge, its bridge sentence the
    way to it; else the hop asked of the bridge the answer step reads for the bridge's own
    question (:func:`_through_asked_bridge`); ``answer`` again where no hop is answered. A
    stated answer that is the bridge itself leads to the hop too (:func:`_not_the_bridge`)."""
    hops = split_hops(question)
    if hops is None:
        return answer
    if answer.status != "abstained":
        return _not_the_bridge(question, hops, answer, ask)
    missing = still_missing(question, bearing(question, sources))
    tried = ""
    if missing.part == "hop" and missing.bridge is not None:
        hop, tried = ask(missing.what), missing.what
        if hop.status != "abstained":
            return replace(hop, via_source_id=missing.bridge.source_id, via_sentence=missing.bridge.text)
    return _through_asked_bridge(hops, answer, ask, tried)


def _through_asked_bridge(hops: Hops, answer: GroundedAnswer, ask: Ask, tried: str = "") -> GroundedAnswer:
    """The hop asked of the bridge the answer step states for the bridge's own question ("What
    is the city where …?" → Selby → "Who founded the mill in Selby?"), where no line that holds
    the description in its words leads to an answer, or the description is of a named one ("the
    husband of Ada Venn": her own page holds those words and names her birthplace as readily as
    him): the reader reads the bridge's one-hop question by meaning. Its answer, with all its
    checks, cites the hop's line, the bridge's line the way to it; ``answer`` where either part
    is not stated, the hop is the one ``tried`` already, or it states the bridge again. A bridge
    the gate turns away leads nowhere: taken on dev end to end, such bridges led to four wrong
    answers (a European capital's population for an Asian country's fashion capital's, an actor's
    award year for a cast member's, a state for a town twice) and one right (docs/BENCHMARKS.md)."""
    return _hop_of(hops, ask(hops.bridge), answer, ask, tried)


def _not_the_bridge(question: str, hops: Hops, answer: GroundedAnswer, ask: Ask) -> GroundedAnswer:
    """``answer``, unless the answer step states the same for the bridge's own question: it then
    names what the question describes, not what it asks of it ("Cold Harbour", the village an
    album was recorded in, for the county that village lies in). The hop is asked of that bridge
    instead, and where it states nothing the question is left open. Replayed over the 17 stated
    answers to two-part questions of the three dev sets, the two the bridge's question also gave
    were both wrong (docs/BENCHMARKS.md, issue 34's twenty-first step)."""
    bridge = ask(hops.bridge)
    if bridge.status != "grounded" or not same_answer(bridge.text, answer.text):
        return answer
    frame = frame_question(question)
    return _hop_of(hops, bridge, abstain(frame, answer.support, answer.confidence), ask)


def _hop_of(
    hops: Hops, bridge: GroundedAnswer, answer: GroundedAnswer, ask: Ask, tried: str = ""
) -> GroundedAnswer:
    """The hop asked of a ``bridge`` the answer step stated, cited with the bridge's line as the
    way to it; ``answer`` where the bridge or the hop is not stated, or the hop was ``tried``."""
    asked = hops.hop_of(bridge.text)
    if bridge.status != "grounded" or bridge.kind == "yesno" or asked == tried:
        return answer
    hop = ask(asked)
    if hop.status == "abstained" or same_answer(hop.text, bridge.text):
        return answer
    return replace(hop, via_source_id=bridge.source_id, via_sentence=bridge.sentence)


def through_claim(
    question: str, sources: Sequence[Source], answer: GroundedAnswer, ask: Ask, check: ClaimCheck | None
) -> GroundedAnswer:
    """``answer``, or where it abstains on a yes/no question, "yes" or "no" settled through
    the open question it checks (:mod:`deepresearch.answers.claims`) by the answer step's answer
    to that question, cited to the line read that writes both that answer and every name the
    open question does (its text or its page's title): an answer read from another page's line
    through a bridge says nothing of the question's subject (end to end, a band's founding city
    was read from another band's page). ``answer`` again where nothing settles it."""
    frame = frame_question(question)
    if check is None or answer.status != "abstained" or frame.kind != "yesno":
        return answer
    claim = check.rewrite(question)
    if claim is None:
        return answer
    found = ask(claim.asks)
    cited = _subject_line(found, sources, frame_question(claim.asks).names)
    if cited is None:
        return answer
    line = _titled(cited.sentence, cited.source_id, sources)
    verdict, p_yes = settle(claim, cited.text, cited.sentence, lambda: check.weigh(question, [line]))
    if verdict is None:
        return answer
    settled = replace(cited, text=verdict, kind="yesno", candidates=("yes", "no"), chosen_by="reader")
    return replace(settled, judged=None if p_yes is None else round(p_yes, 3))


def _subject_line(
    found: GroundedAnswer, sources: Sequence[Source], names: frozenset[str]
) -> GroundedAnswer | None:
    """``found`` cited to its own line, or else to its bridge line, whichever (titled) writes the
    answer and every one of ``names`` ("(Tessa Morrow) She grew up in Tenby" where the answer's
    own line is Tenby's page); None when neither does or nothing was found."""
    if found.status == "abstained":
        return None
    wanted = names | frozenset(key_stems(found.text))
    bridge = replace(
        found, source_id=found.via_source_id, sentence=found.via_sentence, via_source_id=None, via_sentence=""
    )
    for cited in (found, bridge):
        if cited.sentence and wanted <= frozenset(
            key_stems(_titled(cited.sentence, cited.source_id, sources))
        ):
            return cited
    return None


def _titled(sentence: str, source_id: int | None, sources: Sequence[Source]) -> str:
    """The line as the model is shown it: its page's title in parentheses, then the sentence."""
    title = next((s.title for s in sources if s.id == source_id), "")
    return f"({title}) {sentence}"


__all__ = ["Ask", "through_bridge", "through_claim"]
