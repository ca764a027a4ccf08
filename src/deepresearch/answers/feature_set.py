"""The confidence model's declared features: each named once, with what it measures.

The answer line's confidence (:mod:`deepresearch.answers.learned`) is a logistic regression over
these names, computed in one place (``features.confidence_features``). The weights file stores
the names and :func:`feature_set_hash` it was fitted on; weights fitted on another set (a feature
renamed, added, dropped, or computed by changed code) are not used — the hand-set support gate
answers instead, with a notice, until ``python evals/refit.py … --write`` refits them.
"""

from __future__ import annotations

import hashlib
import json

from deepresearch.domain import AnswerKind

CONFIDENCE_FEATURES: dict[str, str] = {
    "score": (
        "the best candidate's score (log of its hand-set score; "
        "its sentence's meaning counts, answers/dense.py)"
    ),
    "margin": "its score's lead over the second candidate (capped at 4)",
    "coverage": "the weighted share of the question's terms its evidence chain holds (like words in part)",
    "names": "the share of the question's names its evidence chain holds",
    "names_sentence": "the share of the question's names its own sentence holds",
    "supported": "1 when the hand-set support gate would answer",
    "candidates": "log of how many candidates compete",
    "via": "1 when its evidence borrowed coverage from a bridge sentence",
    "kind_person": "1 for a who-question",
    "kind_place": "1 for a where-question",
    "kind_date": "1 for a when-question",
    "kind_number": "1 for a how-many-question",
    "kind_entity": "1 for a what/which-question",
}
OPEN_KINDS: tuple[AnswerKind, ...] = ("person", "place", "date", "number", "entity")
VERSION = 3  # raise when a feature's computation changes without its name changing


def feature_set_hash() -> str:
    """A short hash of the declared names, their meaning and :data:`VERSION`."""
    text = json.dumps({"features": CONFIDENCE_FEATURES, "version": VERSION}, sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
