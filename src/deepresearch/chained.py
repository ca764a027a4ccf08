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
step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from deepresearch.answers.ground import GroundedAnswer
from deepresearch.citations import Source
from deepresearch.report_evidence import bearing, still_missing

Ask = Callable[[str], GroundedAnswer]
"""The answer step on another question over the same sources."""


def through_bridge(
    question: str, sources: Sequence[Source], answer: GroundedAnswer, ask: Ask
) -> GroundedAnswer:
    """``answer``, or where it abstains on a two-hop question whose bridge a sentence read
    names, the answer step's answer to the hop asked of that bridge, its bridge sentence the
    way to it; ``answer`` again where the hop is not answered either."""
    if answer.status != "abstained":
        return answer
    missing = still_missing(question, bearing(question, sources))
    if missing.part != "hop" or missing.bridge is None:
        return answer
    hop = ask(missing.what)
    if hop.status == "abstained":
        return answer
    return replace(hop, via_source_id=missing.bridge.source_id, via_sentence=missing.bridge.text)


__all__ = ["Ask", "through_bridge"]
