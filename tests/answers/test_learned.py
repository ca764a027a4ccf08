"""The fitted answer step: weights round-trip, the confidence gate abstains, abstentions speak the
question's language. Passages and questions here are invented."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.features import confidence_features, score_candidates
from deepresearch.answers.ground import abstention_text, ground_answer
from deepresearch.answers.learned import AnswerWeights, Linear, confidence_gate, read_weights, shipped_weights
from deepresearch.answers.question import frame_question

from .sources import src

PASSAGES = [
    src(
        1,
        "Harbour Lantern",
        "Harbour Lantern is a 1961 drama film directed by Odile Marchetti. It was shot in Brest.",
    ),
    src(2, "Odile Marchetti", "Odile Marchetti (1920–1999) was a French film director born in Lyon."),
]
QUESTION = "Harbour Lantern was directed by whom?"


def _weights(bias: float, threshold: float = 0.5) -> AnswerWeights:
    return AnswerWeights(candidate=None, confidence=Linear({"score": 0.0}, bias), threshold=threshold)


def test_a_confident_answer_is_stated_with_its_confidence() -> None:
    got = ground_answer(QUESTION, PASSAGES, weights=_weights(bias=3.0))
    assert (got.text, got.status, got.source_id) == ("Odile Marchetti", "grounded", 1)
    assert got.confidence is not None and got.confidence > 0.9


def test_below_the_threshold_the_answer_is_an_abstention() -> None:
    got = ground_answer(QUESTION, PASSAGES, weights=_weights(bias=-3.0))
    assert got.status == "abstained"
    assert got.text == f"The sources read do not answer: {QUESTION}"
    assert got.confidence is not None and got.confidence < 0.1


def test_a_fitted_candidate_scorer_decides_the_ranking() -> None:
    """A scorer that prefers spans far down the sentence list picks what the hand-set scoring
    would not (the last-ranked sentence's place name): the weights, not code, decide."""
    hand = ground_answer(QUESTION, PASSAGES, weights=None)
    contrary = AnswerWeights(
        candidate=Linear({"rank": 5.0, "top": -5.0}),
        confidence=Linear({}, 3.0),
        threshold=0.5,
    )
    fitted = ground_answer(QUESTION, PASSAGES, weights=contrary)
    assert hand.text == "Odile Marchetti"
    assert (fitted.text, fitted.status) == ("Brest", "grounded")


def test_the_default_gate_is_the_shipped_confidence_at_its_dev_threshold() -> None:
    """By default the shipped confidence decides, at the threshold fitted on dev (the highest that
    keeps dev's right answers), over the hand-set ranking; a threshold asked for replaces it."""
    shipped = shipped_weights()
    assert shipped is not None and 0.0 < shipped.threshold < 0.9
    default = confidence_gate(None)
    assert default is not None and default.candidate is None
    assert (default.threshold, default.confidence) == (shipped.threshold, shipped.confidence)
    stated = ground_answer(QUESTION, PASSAGES, weights=default)
    assert (stated.text, stated.status) == (ground_answer(QUESTION, PASSAGES).text, "grounded")
    assert stated.confidence is not None and stated.confidence >= shipped.threshold
    loose, strict = confidence_gate(0.0), confidence_gate(1.0)
    assert loose is not None and loose.threshold == 0.0
    assert ground_answer(QUESTION, PASSAGES, weights=loose).confidence == stated.confidence
    refused = ground_answer(QUESTION, PASSAGES, weights=strict)
    assert refused.status == "abstained" and refused.confidence == stated.confidence


def test_the_confidence_not_the_support_gate_decides_when_weights_are_given() -> None:
    """Evidence that covers too little of the question abstains under the hand-set support gate;
    under fitted weights the confidence decides: a sure model states the same answer, an unsure
    one abstains."""
    question = "Who directed the film Harbour Lantern that won the Golden Anchor at Saint-Malo?"
    assert ground_answer(question, PASSAGES).status == "abstained"
    assert ground_answer(question, PASSAGES, weights=_weights(bias=6.0)).status == "grounded"
    assert ground_answer(question, PASSAGES, weights=_weights(bias=-6.0)).status == "abstained"


def test_weights_round_trip_through_json(tmp_path: Path) -> None:
    candidate, confidence = Linear({"a": 1.5}, -0.5, {"a": 2.0}), Linear({"score": 1.0})
    weights = AnswerWeights(candidate, confidence, 0.4, 12, {"n": 3})
    path = tmp_path / "w.json"
    path.write_text(json.dumps(weights.to_json()), encoding="utf-8")
    assert read_weights(path) == weights
    assert Linear({"a": 1.5}, -0.5, {"a": 2.0}).logit({"a": 4.0}) == pytest.approx(2.5)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "Wer gründete die Firma Halvorsen in Bergen?",
            "Die gelesenen Quellen beantworten nicht: Wer gründete",
        ),
        ("Qui a construit le pont de Varennes ?", "Les sources lues ne répondent pas à : Qui a construit"),
        ("¿Quién diseñó el puente de la ciudad?", "Las fuentes leídas no responden: ¿Quién diseñó"),
        ("谁设计了这座桥？", "已读来源没有回答：谁设计了这座桥？"),
        (
            "Who designed the Varennes bridge?",
            "The sources read do not answer: Who designed the Varennes bridge?",
        ),
        (
            "In what year was the Halvard signal station constructed?",
            "The sources read do not answer: In what year was the Halvard signal station constructed?",
        ),
        (
            "How many arches does the Tessby viaduct have",
            "The sources read do not answer: How many arches does the Tessby viaduct have?",
        ),
        (
            "Is the Orrin lighthouse older than the harbour wall?",
            "The sources read do not answer: Is the Orrin lighthouse older than the harbour wall?",
        ),
    ],
)
def test_an_abstention_speaks_the_question_language(question: str, expected: str) -> None:
    assert abstention_text(question).startswith(expected)


def test_the_confidence_weighs_whether_the_answer_sentence_itself_names_the_question() -> None:
    """A candidate reached through a bridge sentence has the question's names in its chain but
    not in its own sentence; one stated beside the names has both (the fitted confidence weighs
    the two apart)."""
    question = "In which city was the director of Harbour Lantern born?"
    frame = frame_question(question)
    ranked = rank_sentences(frame.terms, sentence_pool(PASSAGES), frame.names, frame.text)
    scored = score_candidates(frame, ranked[:8])
    assert scored[0][0] == "Lyon"
    bridged = confidence_features(frame, scored, hand_set=True)
    assert bridged["via"] == 1.0 and bridged["names"] == 1.0 and bridged["names_sentence"] == 0.0
    direct = frame_question(QUESTION)
    ranked = rank_sentences(direct.terms, sentence_pool(PASSAGES), direct.names, direct.text)
    stated = confidence_features(direct, score_candidates(direct, ranked[:8]), hand_set=True)
    assert stated["names_sentence"] == 1.0


def test_a_position_stated_at_its_cue_passes_the_default_gate() -> None:
    """A profession, position or genre is cut right after the words that state it ("plays as a
    …"), so it stands as near the question's relation as a span can: the shipped confidence
    states it even when the sentence's other words (a birth date, a town) lie between it and
    the question's words."""
    footballer = src(
        1,
        "Tom Reyes",
        "Tom Reyes (born 4 March 1991 in Valdora) is a Chilean footballer who plays as a goalkeeper "
        "for Club Arvel.",
    )
    club = src(2, "Club Arvel", "Club Arvel is a football club based in Valdora, Chile, founded in 1921.")
    got = ground_answer(
        "What position does Tom Reyes play for Club Arvel?", [footballer, club], weights=confidence_gate(None)
    )
    assert (got.text, got.status, got.source_id) == ("goalkeeper", "grounded", 1)


def test_a_sentence_that_states_the_whole_question_is_answered_whatever_the_confidence() -> None:
    """The confidence was fitted on multi-hop questions, where a sentence naming the subject is
    the first hop; it does not decide a one-hop question whose answer sentence holds every term
    and name of it (with no bridge), even at a threshold no answer reaches. A chain through a
    bridge is still gated."""
    default = confidence_gate(None)
    assert default is not None
    strict = replace(default, threshold=0.999)
    band = src(
        1,
        "Salt Harbour",
        "Salt Harbour are a Scottish folk band formed in Leith in 1975 by fiddler Ada Lund.",
    )
    got = ground_answer("Who formed the folk band Salt Harbour?", [band], weights=strict)
    assert (got.text, got.status) == ("Ada Lund", "grounded")
    two_hop = "In which city was the director of Harbour Lantern born?"
    assert ground_answer(two_hop, PASSAGES, weights=replace(strict, threshold=0.0)).text == "Lyon"
    assert ground_answer(two_hop, PASSAGES, weights=strict).status == "abstained"
    asked_for = confidence_gate(0.999)  # ANSWER_MIN_CONFIDENCE: the confidence alone decides
    assert ground_answer("Who formed the folk band Salt Harbour?", [band], weights=asked_for).status == (
        "abstained"
    )
