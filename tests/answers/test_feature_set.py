"""The confidence's declared features: weights know what they were fitted on.

A renamed, added or dropped feature without a refit must not score silently as 0: the shipped
weights then give way to the hand-set support gate, with a notice, and ``doctor`` says so.
"""

from __future__ import annotations

import pytest

import deepresearch.answers.learned as learned
from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.feature_set import CONFIDENCE_FEATURES, feature_set_hash
from deepresearch.answers.features import confidence_features, score_candidates
from deepresearch.answers.learned import (
    AnswerWeights,
    Linear,
    confidence_gate,
    weights_notice,
    weights_problem,
)
from deepresearch.answers.question import frame_question
from deepresearch.doctor import run_checks
from deepresearch.errors import ConfigurationError
from deepresearch.settings import Settings

from .sources import src


def _weights(features: dict[str, float], fitted_on: str | None) -> AnswerWeights:
    meta = {"feature_hash": fitted_on} if fitted_on else {}
    return AnswerWeights(None, Linear(features, 0.0), 0.4, 8, meta)


def test_the_shipped_weights_were_fitted_on_the_declared_features() -> None:
    shipped = learned.shipped_weights()
    assert shipped is not None
    assert weights_problem(shipped) is None, (
        "a feature changed without a refit: python evals/refit.py … --write"
    )
    assert set(shipped.confidence.weights) == set(CONFIDENCE_FEATURES)


def test_the_features_computed_are_exactly_the_declared_ones() -> None:
    frame = frame_question("When did Cedar Hall open?")
    pool = sentence_pool(
        [src(1, "Cedar Hall", "Cedar Hall is a concert venue in Dunmore. It opened in 1977.")]
    )
    scored = score_candidates(frame, rank_sentences(frame.terms, pool, frame.names, frame.text))
    assert set(confidence_features(frame, scored, hand_set=True)) == set(CONFIDENCE_FEATURES)


def test_weights_of_another_feature_set_give_way_to_the_support_gate_with_a_notice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    renamed = {("evidence_share" if k == "coverage" else k): 1.0 for k in CONFIDENCE_FEATURES}
    for stale in (
        _weights(renamed, feature_set_hash()),
        _weights(dict.fromkeys(CONFIDENCE_FEATURES, 1.0), "0ld"),
    ):
        monkeypatch.setattr(learned, "shipped_weights", lambda stale=stale: stale)
        assert weights_problem(stale) is not None
        assert confidence_gate(None) is None
        notice = weights_notice()
        assert notice is not None and "hand-set support gate" in notice
        with pytest.raises(ConfigurationError, match="ANSWER_MIN_CONFIDENCE"):
            confidence_gate(0.5)
        check = next(c for c in run_checks(Settings.load({}), probe=False) if c.name == "answer weights")
        assert "hand-set support gate" in check.detail and "refit" in check.fix


def test_matching_weights_are_used(monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = _weights(dict.fromkeys(CONFIDENCE_FEATURES, 0.1), feature_set_hash())
    monkeypatch.setattr(learned, "shipped_weights", lambda: fresh)
    gate = confidence_gate(None)
    assert gate is not None and gate.confidence == fresh.confidence and gate.threshold == 0.4
    assert weights_notice() is None
