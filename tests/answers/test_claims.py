"""An open yes/no question settled through the open question it checks: the model's rewrite as
code checks it, and yes or no from the answer the answer step states. Invented bridges and
people."""

from __future__ import annotations

import json

import pytest

from deepresearch.answers.claims import NO_BELOW, YES_AT, Claim, in_period, listed_with, parse_claim, settle

BUILT = "Was the Kellan Viaduct built in Marrow Bay?"


def _reply(ask: str, claim: str) -> str:
    return json.dumps({"ask": ask, "claim": claim})


def test_a_rewrite_that_asks_for_the_guess_and_keeps_the_subject_passes() -> None:
    got = parse_claim(BUILT, _reply("Where was the Kellan Viaduct built?", "Marrow Bay"))
    assert got == Claim("Where was the Kellan Viaduct built?", "Marrow Bay")


@pytest.mark.parametrize(
    ("ask", "claim"),
    [
        (BUILT, "yes"),  # the model repeated the question
        ("Where was the Kellan Viaduct built?", "Dunmore"),  # a claim the question does not write
        ("Which bridge is made of stone?", "the Kellan Viaduct"),  # asks of nothing the question names
        ("Where was the Kellan Viaduct built in Marrow Bay?", "Marrow Bay"),  # the guess still asked
        ("The Kellan Viaduct was built where", "Marrow Bay"),  # no question
    ],
)
def test_a_rewrite_code_cannot_trust_is_none(ask: str, claim: str) -> None:
    assert parse_claim(BUILT, _reply(ask, claim)) is None


def test_the_question_s_only_name_made_the_claim_is_none() -> None:
    """Of "Is Cole Glacier named after a zoologist?" the open question "Who is named after a
    zoologist?" asks of nothing the question is about."""
    question = "Is Cole Glacier named after a zoologist?"
    assert parse_claim(question, _reply("Who is named after a zoologist?", "Cole Glacier")) is None
    assert parse_claim(question, _reply("Who is Cole Glacier named after?", "a zoologist")) is not None


def test_a_question_without_names_keeps_its_rewrite() -> None:
    question = "Does the heart of a sparrow sit in its chest?"
    got = parse_claim(question, _reply("Where does the heart of a sparrow sit?", "its chest"))
    assert got == Claim("Where does the heart of a sparrow sit?", "its chest")


def test_a_reply_that_is_not_the_shape_asked_is_none() -> None:
    assert parse_claim(BUILT, "Marrow Bay") is None
    assert parse_claim(BUILT, json.dumps({"ask": 3, "claim": "Marrow Bay"})) is None


@pytest.mark.parametrize(
    ("claim", "answer", "inside"),
    [
        ("the 1950s", "4 June 1957", True),
        ("the 1950s", "1961", False),
        ("the 19th century", "1888", True),
        ("the 18th century", "1823", False),
        ("1921", "May 1921", True),
        ("1921", "1922", False),
        ("the 1950s", "Marrow Bay", None),
        ("Marrow Bay", "1921", None),
    ],
)
def test_a_date_is_inside_the_period_claimed_or_not(claim: str, answer: str, inside: bool | None) -> None:
    assert in_period(claim, answer) is inside


def test_two_people_joined_by_and_share_the_role_asked_and_two_roles_do_not() -> None:
    assert listed_with("Pia Voss", "Jon Bell", "The song was written by Jon Bell and Pia Voss.")
    assert listed_with("Pia Voss", "Jon Bell", "It was written by Pia Voss, Jon Bell and others.")
    assert not listed_with(
        "Pia Voss", "Ada Roe", "The film was directed by Ada Roe and produced by Pia Voss."
    )
    assert not listed_with("Pia Voss", "Ada Roe", "The film was directed by Ada Roe.")


def _never() -> float:
    raise AssertionError("the model is not asked where code settles it")


def test_another_person_in_the_role_asked_is_no_and_the_claimed_one_is_yes() -> None:
    directed = Claim("Who directed Harbour Lights?", "Pia Voss")
    line = "Harbour Lights is a 1950 film directed by Ada Roe and produced by Pia Voss."
    assert settle(directed, "Ada Roe", line, _never) == ("no", None)
    assert settle(directed, "Pia Voss", "Harbour Lights was directed by Pia Voss.", _never) == ("yes", None)


def test_an_answer_that_shares_a_word_with_the_claim_settles_nothing() -> None:
    """ "Brook Holdings, Inc" for "Did Tallow Brook own it?": a cut of the same name, or a near one."""
    owner = Claim("Who owns Pell Pizza?", "Tallow Brook")
    line = "Pell Pizza is a subsidiary of Tallow Brook Holdings, Inc."
    assert settle(owner, "Brook Holdings, Inc", line, _never) == (None, None)


def test_a_date_outside_the_decade_is_no() -> None:
    born = Claim("When was Ivo Marsh born?", "the 1950s")
    assert settle(born, "3 May 1961", "Ivo Marsh (born 3 May 1961) is a painter.", _never) == ("no", None)


@pytest.mark.parametrize(
    ("p_yes", "verdict"), [(0.97, "yes"), (YES_AT, "yes"), (NO_BELOW - 0.01, "no"), (0.2, "no"), (0.8, None)]
)
def test_a_place_is_weighed_by_the_model_because_a_city_lies_in_a_country(
    p_yes: float, verdict: str | None
) -> None:
    """Dunmore may lie in the country guessed: the model's P over the line decides, and between
    the two bars nothing is said."""
    built = Claim("Where was the Kellan Viaduct built?", "Marrow Bay")
    got = settle(built, "Dunmore", "The Kellan Viaduct was built in Dunmore in 1921.", lambda: p_yes)
    assert got == (verdict, p_yes)


def test_a_model_that_cannot_say_leaves_it_unsettled() -> None:
    built = Claim("Where was the Kellan Viaduct built?", "Marrow Bay")
    assert settle(built, "Dunmore", "The Kellan Viaduct was built in Dunmore.", lambda: None) == (None, None)
