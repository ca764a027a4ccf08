"""Open yes/no questions in other words than their passage: code cannot match "raised" to "grew
up", so the reader's model weighs the best lines and a sure "yes" is stated, cited to its line;
a town the line does not say is answered "no" through the open question the question checks
(``chained.through_claim``)."""

from __future__ import annotations

import json

import pytest

from deepresearch import research
from deepresearch.answers import claims
from deepresearch.answers.ground import YES_AT, GroundedAnswer, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.reader import weigh_yes_no
from deepresearch.chained import through_claim
from deepresearch.llm.base import Message
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.testing import JudgingModel, ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

from .sources import answer_step, src

SOURCES = [
    src(
        1,
        "Tessa Morrow",
        "Tessa Morrow (born 1971) is a Welsh cellist. She grew up in Tenby and studied at the Royal "
        "Northern College of Music.",
    ),
    src(2, "Tenby", "Tenby is a walled seaside town in Pembrokeshire, Wales."),
]
RAISED = "Was Tessa Morrow raised in Tenby?"


def _answered(yes: float, question: str = RAISED) -> tuple[GroundedAnswer, JudgingModel]:
    model = JudgingModel(yes=yes)
    answer = ground_answer(
        question,
        SOURCES,
        weights=confidence_gate(None),
        yes_no=lambda frame, ranked: weigh_yes_no(model, frame, ranked),
    )
    return answer, model


def test_code_alone_cannot_tell_raised_from_grew_up() -> None:
    assert ground_answer(RAISED, SOURCES, weights=confidence_gate(None)).status == "abstained"


def test_a_sure_yes_is_stated_and_cited_to_the_line_it_read() -> None:
    answer, model = _answered(0.93)
    assert (answer.text, answer.status, answer.chosen_by) == ("yes", "grounded", "reader")
    assert answer.source_id == 1 and "grew up in Tenby" in answer.sentence and answer.judged == 0.93
    asked = model.judged[0][-1].content
    assert "(Tessa Morrow) Tessa Morrow (born 1971)" in asked and RAISED in asked


@pytest.mark.parametrize("yes", [YES_AT - 0.05, 0.5, 0.02])
def test_an_unsure_or_low_p_leaves_the_abstention(yes: float) -> None:
    """A low P is no "no": without the passage that answers, the model leans to "no" as well."""
    answer, model = _answered(yes)
    assert answer.status == "abstained" and model.judged


def test_the_model_is_not_asked_where_the_lines_miss_a_name_of_the_question() -> None:
    """Asked about a town no line writes, the model would answer from memory, not the sources."""
    answer, model = _answered(0.99, "Was Tessa Morrow raised in Abersoch?")
    assert answer.status == "abstained" and not model.judged


def test_a_question_code_answers_is_not_weighed() -> None:
    answer, model = _answered(0.01, "Is Tenby a seaside town in Pembrokeshire?")
    assert answer.text == "yes" and answer.chosen_by == "code" and not model.judged


def test_a_run_with_the_reader_on_answers_yes_and_cites_the_source(settings: Settings) -> None:
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in SOURCES
    ]
    model = JudgingModel(yes=_sure_when_asked_yes_no)
    result = research(
        RAISED, settings=settings.with_overrides(answer_reader="on"), model=model,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer.startswith("yes") and result.answer_status == "grounded"
    morrow = next(s.id for s in result.sources if s.title == "Tessa Morrow")
    assert result.answer_source_number == morrow
    strict = JudgingModel(yes=_sure_when_asked_yes_no)
    held = research(
        RAISED, settings=settings.with_overrides(answer_reader="on", answer_min_confidence=0.6), model=strict,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert held.answer_status == "abstained" and not strict.judged


def _sure_when_asked_yes_no(messages: list[Message]) -> float:
    return 0.95 if "Reply yes or no." in messages[-1].content and "Lines:" in messages[-1].content else 0.5


def test_the_installed_model_says_yes_over_the_line_and_not_over_a_line_that_says_otherwise(
    qwen: EmbeddedModel,
) -> None:
    """The real 1.5B model: "raised" read as "grew up" clears the bar; the same question of a
    town the line does not say stays below it (the bar is chosen on dev data, docs/BENCHMARKS.md)."""
    yes = ground_answer(
        RAISED, SOURCES, weights=confidence_gate(None), yes_no=lambda f, r: weigh_yes_no(qwen, f, r)
    )
    assert yes.text == "yes"
    other = [*SOURCES, src(3, "Abersoch", "Abersoch is a village on the Llŷn Peninsula in Gwynedd, Wales.")]
    no = ground_answer(
        "Was Tessa Morrow raised in Abersoch?",
        other,
        weights=confidence_gate(None),
        yes_no=lambda f, r: weigh_yes_no(qwen, f, r),
    )
    assert no.status == "abstained"


def test_the_yes_is_cited_to_the_line_naming_the_question_not_the_line_best_by_words() -> None:
    question = "Was Tessa Morrow raised in a seaside town?"
    sources = [
        *SOURCES,
        src(3, "Seaside resort", "A seaside town raised on tourism is called a seaside resort town."),
    ]
    model = JudgingModel(yes=0.9)
    answer = ground_answer(
        question, sources, weights=confidence_gate(None), yes_no=lambda f, r: weigh_yes_no(model, f, r)
    )
    assert answer.text == "yes" and answer.source_id == 1


def _no_over_another_town(messages: list[Message]) -> float:
    """Sure when it judges the reader's town; unsure of Abersoch over the line that says Tenby."""
    return 0.99 if "Proposed answer:" in messages[-1].content else 0.1


def test_a_run_answers_no_where_the_line_states_another_town(settings: Settings) -> None:
    """Asked of a town the passage does not say, the run asks where she grew up, reads Tenby
    and answers no, cited to her page: before, it abstained (a low P alone is never a "no")."""
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in SOURCES
    ]
    claim = json.dumps({"ask": "Where was Tessa Morrow raised?", "claim": "Abersoch"})
    model = JudgingModel(
        {"claim": claim, "reader": json.dumps({"lines": [1], "answer": "Tenby"})}, yes=_no_over_another_town
    )
    result = research(
        "Was Tessa Morrow raised in Abersoch?", settings=settings.with_overrides(answer_reader="on"),
        model=model, search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer.startswith("no") and result.answer_status == "grounded"
    morrow = next(s.id for s in result.sources if s.title == "Tessa Morrow")
    assert result.answer_source_number == morrow
    assert "grew up in Tenby" in result.report_markdown


def test_the_installed_model_turns_the_question_into_where_she_grew_up_and_answers_no(
    qwen: EmbeddedModel,
) -> None:
    """The real 1.5B model writes the open question and its claim, and the answer step with the
    real reader and judge answers it from her page: Tenby, not Abersoch."""
    question = "Was Tessa Morrow raised in Abersoch?"
    claim = claims.rewrite(qwen, question)
    assert claim is not None and claim.claim == "Abersoch" and "Tessa Morrow" in claim.asks

    ask = answer_step(qwen, SOURCES)
    got = through_claim(question, SOURCES, ask(question), ask, claims.claim_check(qwen, qwen))
    assert (got.text, got.source_id) == ("no", 1)


def test_a_model_server_without_p_settles_a_date_by_code(settings: Settings) -> None:
    """A server model gives no P("yes"); its rewrite still lets code compare the year read with
    the decade asked: born 1971 is no to "in the 1980s"."""
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in SOURCES
    ]
    claim = json.dumps({"ask": "When was Tessa Morrow born?", "claim": "the 1980s"})
    model = ScriptedModel({"claim": claim, "reader": json.dumps({"lines": [1], "answer": "1971"})})
    result = research(
        "Was Tessa Morrow born in the 1980s?", settings=settings.with_overrides(answer_reader="on"),
        model=model, search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer.startswith("no") and result.answer_status == "grounded"
    assert "(born 1971)" in result.report_markdown
