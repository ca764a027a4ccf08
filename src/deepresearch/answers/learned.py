"""Fitted weights for the grounded answer: how candidates are scored and when to abstain.

Two logistic regressions over features code already computes (:mod:`deepresearch.answers.ground`):
``candidate`` scores each (candidate span, evidence sentence) pair — the probability that the span
is the gold answer; None keeps the hand-set score, which the fitted one has not yet beaten on the
test half — and ``confidence`` turns the best candidate's features (its score, its
margin over the next, how much of the question its evidence covers) into P(the answer is right).
The answer line abstains below ``threshold``, a point of the precision/coverage curve of the dev
half: the highest threshold that keeps the dev half's right answers, so on dev it turns away wrong
answers only. That is the default gate (:func:`confidence_gate` without a threshold); the hand-set
support gate is what answers without the weights. ``evals/fit_answers.py`` fits both on the dev
half of the shared eval set and writes ``data/answer_weights.json``; nothing here is hand-set.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from deepresearch.answers.feature_set import CONFIDENCE_FEATURES, feature_set_hash
from deepresearch.errors import ConfigurationError

WEIGHTS_FILE = "answer_weights.json"


@dataclass(frozen=True)
class Linear:
    """A logistic regression: named weights, a bias, and the scale of each feature it was fitted on
    (features are divided by their scale first, so the weights read as comparable sizes)."""

    weights: Mapping[str, float]
    bias: float = 0.0
    scale: Mapping[str, float] = field(default_factory=dict)

    def logit(self, features: Mapping[str, float]) -> float:
        total = self.bias
        for name, weight in self.weights.items():
            total += weight * features.get(name, 0.0) / self.scale.get(name, 1.0)
        return total

    def probability(self, features: Mapping[str, float]) -> float:
        return sigmoid(self.logit(features))

    def to_json(self) -> dict[str, Any]:
        return {"weights": dict(self.weights), "bias": self.bias, "scale": dict(self.scale)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Linear:
        return cls(dict(data["weights"]), float(data.get("bias", 0.0)), dict(data.get("scale", {})))


@dataclass(frozen=True)
class AnswerWeights:
    """The fitted candidate scorer, the confidence model and the abstention threshold."""

    candidate: Linear | None
    confidence: Linear
    threshold: float
    top_sentences: int = 8
    meta: Mapping[str, Any] = field(default_factory=dict)
    one_hop_outright: bool = False  # a sentence stating the whole question answers it ungated

    def to_json(self) -> dict[str, Any]:
        return {
            "candidate": self.candidate.to_json() if self.candidate else None,
            "confidence": self.confidence.to_json(),
            "threshold": self.threshold,
            "top_sentences": self.top_sentences,
            "meta": dict(self.meta),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AnswerWeights:
        return cls(
            Linear.from_json(data["candidate"]) if data.get("candidate") else None,
            Linear.from_json(data["confidence"]),
            float(data["threshold"]),
            int(data.get("top_sentences", 8)),
            dict(data.get("meta", {})),
        )


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def read_weights(path: Path) -> AnswerWeights:
    return AnswerWeights.from_json(json.loads(path.read_text(encoding="utf-8")))


@functools.cache
def shipped_weights() -> AnswerWeights | None:
    """The weights shipped in the package (``data/answer_weights.json``), or None without them."""
    file = resources.files("deepresearch") / "data" / WEIGHTS_FILE
    if not file.is_file():
        return None
    return AnswerWeights.from_json(json.loads(file.read_text(encoding="utf-8")))


def confidence_gate(min_confidence: float | None) -> AnswerWeights | None:
    """The shipped confidence model abstaining below ``min_confidence`` (P(right), 0..1; without
    it, the shipped threshold) instead of the hand-set support gate, over the hand-set ranking.
    None (the support gate alone) when the weights are missing and no threshold is asked for.
    At the shipped threshold a sentence that states the whole question answers it ungated (the
    confidence was fitted on multi-hop questions only; see ``ground._states_it_all``); a
    threshold asked for is the confidence's alone."""
    shipped = shipped_weights()
    if shipped is not None and weights_problem(shipped):
        shipped = None
    if shipped is None and min_confidence is not None:
        raise ConfigurationError(
            f"ANSWER_MIN_CONFIDENCE needs fitted weights data/{WEIGHTS_FILE} that match this code's "
            f"features ({weights_notice() or 'the file is missing'}); reinstall deepresearch or unset "
            "ANSWER_MIN_CONFIDENCE"
        )
    if shipped is None:
        return None
    if min_confidence is None:
        return replace(shipped, candidate=None, one_hop_outright=True)
    return replace(shipped, candidate=None, threshold=min_confidence)


def weights_problem(weights: AnswerWeights) -> str | None:
    """Why ``weights`` cannot score this code's features (fitted on another declared feature set:
    a feature renamed, added, dropped or computed anew), or None when they can."""
    fitted = weights.meta.get("feature_hash")
    if fitted == feature_set_hash() and set(weights.confidence.weights) <= set(CONFIDENCE_FEATURES):
        return None
    return (
        f"the shipped answer weights were fitted on feature set {fitted or '(unrecorded)'}, "
        f"the code declares {feature_set_hash()}"
    )


def weights_notice() -> str | None:
    """A line for the run's notices and ``doctor`` when the shipped weights are not used, else None."""
    shipped = shipped_weights()
    problem = weights_problem(shipped) if shipped is not None else f"data/{WEIGHTS_FILE} is missing"
    if problem is None:
        return None
    return f"{problem}: the answer line uses the hand-set support gate (refit: python evals/refit.py --write)"
