"""The reader: a model answers from code's best lines, and code keeps only a span of a line shown.

Invented people and passages; the model is a scripted double (``llm/testing.py``) that answers
what a small instruct model was seen to answer: right, the question's own subject, words no line
holds, or not JSON at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest

from deepresearch import research
from deepresearch.answers.evidence import rank_sentences, sentence_pool
from deepresearch.answers.ground import (
    AGREE_BELOW,
    JUDGE_COVERED_YES,
    JUDGE_DISSENT,
    JUDGE_MIN_YES,
    PICK_AT,
    PICKED_CANDIDATES,
    READER_MIN_CONFIDENCE,
    GroundedAnswer,
    ground_answer,
)
from deepresearch.answers.hops import relative_named
from deepresearch.answers.learned import confidence_gate
from deepresearch.answers.question import frame_question
from deepresearch.answers.reader import SHOTS, Reading, check_span, evidence_lines, judge, read, weigh_options
from deepresearch.citations import Source
from deepresearch.errors import ModelError
from deepresearch.llm.base import Message, ModelCall
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.testing import FunctionModel, JudgingModel, ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

from .sources import ISLAND, island_reader, src

SOURCES = [
    src(
        1,
        "Orla Fenn",
        "Orla Fenn (1890–1960) was a novelist. In 1931 he set up Kestrel Works Ltd., a maker of gliders.",
    ),
    src(2, "Cedar Hall", "Cedar Hall is a concert venue in Dunmore. It opened in 1977."),
]
QUESTION = "Which firm did Orla Fenn begin?"


def _reply(answer: str, lines: list[int] | None = None) -> str:
    return json.dumps({"lines": lines or [1], "answer": answer})


def _ranked(question: str):  # type: ignore[no-untyped-def]
    frame = frame_question(question)
    return frame, rank_sentences(frame.terms, sentence_pool(SOURCES), frame.names, frame.text)


def test_a_span_of_a_line_shown_is_the_answer_as_the_line_writes_it() -> None:
    frame, ranked = _ranked(QUESTION)
    reading = read(ScriptedModel({"reader": _reply("kestrel works ltd")}), frame, ranked)
    assert reading is not None
    assert reading.text == "Kestrel Works Ltd"
    assert reading.sentence.source_id == 1


@pytest.mark.parametrize(
    "reply",
    [
        _reply("Orla Fenn"),  # the question's own subject
        _reply("Falcon Aircraft"),  # words no line holds
        _reply("none", []),
        "the answer is Kestrel Works",  # not the JSON asked for
    ],
)
def test_no_answer_unless_the_reply_is_a_checked_span(reply: str) -> None:
    frame, ranked = _ranked(QUESTION)
    assert read(ScriptedModel({"reader": reply}), frame, ranked) is None


BALLOONISTS = [
    src(
        1,
        "Bram Holt (aeronaut)",
        "Bram Holt was a Dutch aeronaut who crossed the Alps with his wife, Tessa Vale.",
    ),
    src(2, "Tessa Vale", "Tessa Vale (1899–1970) was a balloon pilot."),
    src(3, "Alpine Club", "The club's gold medal went to Tessa Vale in 1925."),
]


def _read_over(sources: list[Source], question: str, reply: str) -> str | None:
    frame, ranked = _ranked_over(question, sources)
    reading = read(ScriptedModel({"reader": reply}), frame, ranked)
    return None if reading is None else reading.text


def test_the_questions_own_subject_from_a_line_about_another_page_answers_with_that_pages_title() -> None:
    """ "Who was X married to?" over "(Y) Y … with his wife, X": a small model answers X; the line
    relates X to its page's subject, so the answer is Y."""
    lines = evidence_lines(_ranked_over("Who was Tessa Vale married to?", BALLOONISTS)[1])
    bram = next(i for i, (s, _) in enumerate(lines, 1) if s.source_id == 1)
    said = _reply("Tessa Vale", [bram])
    assert _read_over(BALLOONISTS, "Who was Tessa Vale married to?", said) == "Bram Holt"


def test_the_questions_own_subject_is_no_answer_from_its_own_page_a_club_or_for_a_date() -> None:
    lines = evidence_lines(_ranked_over("Who was Tessa Vale married to?", BALLOONISTS)[1])
    own = next(i for i, (s, _) in enumerate(lines, 1) if s.source_id == 2)
    assert _read_over(BALLOONISTS, "Who was Tessa Vale married to?", _reply("Tessa Vale", [own])) is None
    assert _read_over(BALLOONISTS, "When did Tessa Vale marry?", _reply("Tessa Vale", [1, 2, 3])) is None
    bram = next(i for i, (s, _) in enumerate(lines, 1) if s.source_id == 1)
    assert _read_over(BALLOONISTS, "Who was Tessa Vale married to?", _reply("married", [bram])) is None
    club = next(i for i, (s, _) in enumerate(lines, 1) if s.source_id == 3)
    assert _read_over(BALLOONISTS, "Who was Tessa Vale married to?", _reply("Tessa Vale", [club])) is None


def test_a_bare_year_is_no_answer_to_a_question_that_asks_for_a_firm() -> None:
    frame, ranked = _ranked(QUESTION)
    assert read(ScriptedModel({"reader": _reply("1931")}), frame, ranked) is None
    frame, ranked = _ranked("In what year did Orla Fenn set up his firm?")
    reading = read(ScriptedModel({"reader": _reply("1931")}), frame, ranked)
    assert reading is not None and reading.text == "1931"


DIRECTOR = [
    src(
        1,
        "The Copper Gull",
        "The Copper Gull is a 1923 silent drama film directed by Odell Prane and starring Vera Lusk.",
    ),
    src(
        2,
        "Odell Prane",
        "Odell Prane (March 3, 1889 – June 2, 1961) was an American film director of the silent era. He "
        "directed 30 films between 1915 and 1926. He was born in Harlan County, Kentucky.",
    ),
]


def test_the_director_a_line_names_is_no_answer_to_where_he_was_born() -> None:
    """The person whose page the lines open is the bridge of a "where" question, not the place:
    a small model copies his name when it cannot find his birthplace."""
    frame, ranked = _ranked_over("Where was the man who made The Copper Gull born?", DIRECTOR)
    assert read(ScriptedModel({"reader": _reply("Odell Prane", [1])}), frame, ranked) is None
    reading = read(ScriptedModel({"reader": _reply("Harlan County, Kentucky", [1, 3])}), frame, ranked)
    assert reading is not None and reading.text == "Harlan County, Kentucky"
    frame, ranked = _ranked_over("Who directed The Copper Gull?", DIRECTOR)
    reading = read(ScriptedModel({"reader": _reply("Odell Prane", [1])}), frame, ranked)
    assert reading is not None and reading.text == "Odell Prane"


@pytest.mark.parametrize(
    ("said", "written"),
    [("Kestrel Works", "Kestrel Works"), ("Kestrel Ltd", "Kestrel Works Ltd"), ("gliders maker", None)],
)
def test_an_answer_the_model_shortened_is_taken_in_its_lines_words(said: str, written: str | None) -> None:
    frame, ranked = _ranked(QUESTION)
    reading = read(ScriptedModel({"reader": _reply(said)}), frame, ranked)
    assert (reading.text if reading else None) == written


def test_the_reader_sees_the_lines_after_the_worked_examples_and_is_capped() -> None:
    model = ScriptedModel({"reader": _reply("none", [])})
    frame, ranked = _ranked(QUESTION)
    read(model, frame, ranked)
    call = model.calls[0]
    assert call.step == "reader" and call.max_tokens <= 60 and call.schema is not None
    assert call.messages[-1].content.startswith(f"Question: {QUESTION}")
    assert "(Orla Fenn) Orla Fenn (1890–1960)" in call.messages[-1].content
    assert len(call.messages) == 2 + 2 * len(SHOTS)


def test_the_reader_is_not_asked_where_code_states_without_a_fitted_confidence() -> None:
    model = ScriptedModel({"reader": _reply("1977")})
    stated = ground_answer("When did Cedar Hall open?", SOURCES, reader=lambda f, r: read(model, f, r))
    assert stated.text == "1977" and stated.chosen_by == "code"
    assert model.calls == []


FILMS = [
    src(
        1,
        "Salt Lantern",
        "Salt Lantern is a 1958 drama film directed by Petra Vahl and produced by Imre Sollo.",
    ),
    src(
        2,
        "Noor Aldane",
        "Noor Aldane (born 1931) is an actress best known as the ferry pilot in Salt Lantern.",
    ),
]


def _confirmed(question: str, reply: str, yes: float | None = None) -> tuple[GroundedAnswer, ScriptedModel]:
    model = ScriptedModel({"reader": reply})
    got = ground_answer(
        question,
        FILMS,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: yes,
    )
    return got, model


def test_codes_unsure_answer_stands_where_the_reader_gives_the_same() -> None:
    alone = ground_answer("Who produced Salt Lantern?", FILMS, weights=confidence_gate(None))
    assert alone.text == "Imre Sollo" and alone.confidence is not None and alone.confidence < AGREE_BELOW
    got, model = _confirmed("Who produced Salt Lantern?", _reply("Imre Sollo"))
    assert (got.status, got.text, got.chosen_by) == ("grounded", "Imre Sollo", "code")
    assert len(model.calls) == 1


def test_a_reading_that_contradicts_codes_unsure_answer_must_pass_the_readers_own_gate() -> None:
    """The reader names the film's actress: code's confidence in her is low and the judge unsure,
    so neither answer is stated and the reading is handed over; where the judge is sure of it, the
    reading is the answer line, as it would be had code abstained."""
    question = "Who produced Salt Lantern?"
    got, _ = _confirmed(question, _reply("Noor Aldane", [2]), yes=0.5)
    assert got.status == "abstained" and got.turned_away is not None
    assert got.turned_away.text == "Noor Aldane"
    sure, _ = _confirmed(question, _reply("Noor Aldane", [2]), yes=JUDGE_MIN_YES)
    assert (sure.status, sure.text, sure.chosen_by) == ("grounded", "Noor Aldane", "reader")


def test_codes_unsure_answer_the_reader_cannot_find_is_handed_over_unconfirmed() -> None:
    got, _ = _confirmed("Who produced Salt Lantern?", _reply("none", []))
    assert got.status == "abstained" and got.turned_away is not None
    assert got.turned_away.text == "Imre Sollo" and "produced by Imre Sollo" in got.turned_away.sentence.text


def test_codes_sure_answer_is_stated_without_asking_the_reader() -> None:
    question = "Who directed the film in which Noor Aldane played a ferry pilot?"
    got, model = _confirmed(question, _reply("Imre Sollo"))
    assert got.text == "Petra Vahl" and got.confidence is not None and got.confidence >= AGREE_BELOW
    assert model.calls == []


def test_where_code_abstains_the_checked_span_is_a_grounded_answer_of_the_reader() -> None:
    model = ScriptedModel({"reader": _reply("Kestrel Works Ltd.")})
    without = ground_answer(QUESTION, SOURCES)
    answer = ground_answer(QUESTION, SOURCES, reader=lambda f, r: read(model, f, r))
    assert without.status == "abstained"
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "reader", "Kestrel Works Ltd")
    assert answer.source_id == 1 and "set up Kestrel Works" in answer.sentence


CHAIN = [
    src(3, "Grey Harbour", "Grey Harbour is a 1928 novel by Orla Fenn, set in a fishing town."),
    SOURCES[0],
    SOURCES[1],
]
CHAIN_QUESTION = "Which company was started by the writer of Grey Harbour?"


def _gated(reply: str) -> GroundedAnswer:
    model = ScriptedModel({"reader": reply})
    return ground_answer(
        CHAIN_QUESTION, CHAIN, weights=confidence_gate(None), reader=lambda f, r: read(model, f, r)
    )


def test_with_the_fitted_gate_the_readers_pick_is_stated_when_codes_evidence_for_it_holds() -> None:
    assert ground_answer(CHAIN_QUESTION, CHAIN, weights=confidence_gate(None)).status == "abstained"
    answer = _gated(_reply("Kestrel Works Ltd.", [1, 2]))
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "reader", "Kestrel Works Ltd")
    assert answer.confidence is not None and answer.confidence >= READER_MIN_CONFIDENCE


@pytest.mark.parametrize(("p_yes", "stated"), [(0.3, False), (0.9, True)])
def test_a_pick_codes_evidence_holds_is_still_turned_away_where_the_judge_says_no(
    p_yes: float, stated: bool
) -> None:
    """Code's confidence ties the span to the question; a judge that reads the line and leans
    "no" turns it away all the same, handing it over as the closest reading."""
    model = JudgingModel({"reader": _reply("Kestrel Works Ltd.", [1, 2])}, yes=p_yes)
    answer = ground_answer(
        CHAIN_QUESTION,
        CHAIN,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: judge(model, f, reading),
    )
    assert answer.status == ("grounded" if stated else "abstained")
    assert p_yes >= JUDGE_DISSENT if stated else p_yes < JUDGE_DISSENT
    if not stated:
        assert answer.turned_away is not None and answer.turned_away.text == "Kestrel Works Ltd"


@pytest.mark.parametrize(
    "reply",
    [
        _reply("Cedar Hall", [3]),  # a candidate, but code's evidence does not tie it to the question
        _reply("a maker of gliders", [2]),  # a span of a line, but none of code's candidates
    ],
)
def test_with_the_fitted_gate_a_pick_codes_evidence_does_not_hold_leaves_the_abstention(reply: str) -> None:
    assert _gated(reply).status == "abstained"


def test_a_reader_that_fails_leaves_the_abstention() -> None:
    def broken(call: ModelCall) -> str:
        raise ModelError("the reader model is gone")

    answer = ground_answer(QUESTION, SOURCES, reader=lambda f, r: read(FunctionModel(broken), f, r))
    assert answer.status == "abstained"


def test_a_run_with_the_reader_on_states_its_checked_span_and_cites_its_source(settings: Settings) -> None:
    found = [
        CHAIN[0],
        src(
            2,
            "Orla Fenn",
            "Orla Fenn was a novelist who wrote Grey Harbour. " + SOURCES[0].content.split(". ", 1)[1],
        ),
        CHAIN[2],
    ]  # one round reads what the question names: the novelist's passage names his novel
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in found
    ]
    # Code's own answer line stays below 0.7; code's evidence gives the reader's pick 0.8.
    strict = settings.with_overrides(answer_min_confidence=0.7)
    model = ScriptedModel({"reader": _reply("Kestrel Works Ltd.")})
    result = research(
        CHAIN_QUESTION, settings=strict.with_overrides(answer_reader="on"), model=model,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    quiet = ScriptedModel({"reader": _reply("Kestrel Works Ltd.")})
    research(
        CHAIN_QUESTION,
        settings=strict,
        model=quiet,
        search=StaticSearch(default=hits),
        max_web_research_loops=1,
    )
    assert "reader" in model.steps() and "reader" not in quiet.steps()
    assert result.answer.startswith("Kestrel Works Ltd") and result.answer_status == "grounded"
    assert result.answer_source_number is not None


def test_the_installed_reader_reads_the_second_hop_and_code_states_it(qwen: EmbeddedModel) -> None:
    """The real reader (Qwen2.5-Coder-1.5B in llama.cpp) over the two-hop chain code abstains on."""
    weights = confidence_gate(None)
    answer = ground_answer(CHAIN_QUESTION, CHAIN, weights=weights, reader=lambda f, r: read(qwen, f, r))
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "reader", "Kestrel Works Ltd")


STARTED = [
    src(
        1,
        "Fenwick Aero",
        "Fenwick Aero Ltd. was a British aircraft maker. It was established in 1929 in Leeds by the engineer "
        "and novelist Ilse Marrow, who sold her share in 1938.",
    ),
    src(2, "Ilse Marrow", "Ilse Marrow (1899–1960) was an English engineer and novelist."),
    src(3, "Leeds Aero Club", "The Leeds Aero Club was a flying club founded in 1909."),
]
STARTED_QUESTION = "Which company did Ilse Marrow start?"


def _judged(yes: float | None, question: str = STARTED_QUESTION) -> GroundedAnswer:
    model = ScriptedModel({"reader": _reply("Fenwick Aero Ltd.")})
    return ground_answer(
        question,
        STARTED,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: yes if reading.text == "Fenwick Aero Ltd" else 0.1,
    )


def test_a_reading_codes_confidence_turns_away_is_stated_where_the_judge_is_sure() -> None:
    """ "start" for "established": code's confidence turns the reader's right pick away (a one-hop
    answer in a sentence naming the subject); the judge, reading the line, states it."""
    assert _judged(None).status == "abstained"
    answer = _judged(JUDGE_COVERED_YES)
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "reader", "Fenwick Aero Ltd")
    assert answer.judged == JUDGE_COVERED_YES and answer.source_id == 1


def test_a_judge_short_of_its_bar_leaves_the_abstention() -> None:
    assert _judged(JUDGE_COVERED_YES - 0.05).status == "abstained"


def test_a_chain_the_judge_cannot_see_whole_needs_it_sure() -> None:
    """The question names a town no line shown to the judge writes: the link from the question
    to the answer is not in front of it, so P 0.9 is not enough, and only a sure judge states."""
    question = "Which company did the novelist from Harrogate start?"
    assert _judged(0.9, question).status == "abstained"
    assert _judged(JUDGE_MIN_YES, question).text == "Fenwick Aero Ltd"


def test_an_answer_that_repeats_a_name_of_the_question_needs_the_judge_sure() -> None:
    """The answer writes a name the question writes ("Fenwick"): where the reader gives the
    question's own subject written out in full, the judge says yes to it, so here, though every
    name of the question stands in the lines, P 0.9 is not enough (right as this one is)."""
    assert _judged(0.9).text == "Fenwick Aero Ltd"
    question = "Which company did Ilse Marrow start with the Fenwick family?"
    assert _judged(0.9, question).status == "abstained"
    assert _judged(JUDGE_MIN_YES, question).text == "Fenwick Aero Ltd"


def test_the_judge_is_shown_the_readings_line_titled_and_asked_the_question() -> None:
    model = JudgingModel({"reader": _reply("Fenwick Aero Ltd.")}, yes=0.97)
    frame, ranked = _ranked_over(STARTED_QUESTION, STARTED)
    reading = read(model, frame, ranked)
    assert reading is not None and judge(model, frame, reading) == 0.97
    asked = model.judged[0][-1].content
    assert "(Fenwick Aero) Fenwick Aero Ltd. was" in asked or "(Fenwick Aero) It was established" in asked
    assert STARTED_QUESTION in asked and "Proposed answer: Fenwick Aero Ltd" in asked


def _ranked_over(question: str, sources: list[Source]):  # type: ignore[no-untyped-def]
    frame = frame_question(question)
    return frame, rank_sentences(frame.terms, sentence_pool(sources), frame.names, frame.text)


def _started_hits() -> list[SearchHit]:
    return [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in STARTED
    ]


def test_a_run_states_the_judged_reading_and_a_strict_confidence_setting_turns_the_judge_off(
    settings: Settings,
) -> None:
    model = JudgingModel({"reader": _reply("Fenwick Aero Ltd.")}, yes=0.99)
    on = settings.with_overrides(answer_reader="on")
    result = research(
        STARTED_QUESTION, settings=on, model=model, search=StaticSearch(default=_started_hits()),
        max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer.startswith("Fenwick Aero Ltd") and result.answer_status == "grounded"
    assert model.judged
    strict = JudgingModel({"reader": _reply("Fenwick Aero Ltd.")}, yes=0.99)
    held = research(
        STARTED_QUESTION, settings=on.with_overrides(answer_min_confidence=0.6), model=strict,
        search=StaticSearch(default=_started_hits()), max_web_research_loops=1,
    )  # fmt: skip
    assert held.answer_status == "abstained" and not strict.judged


def test_the_installed_judge_says_yes_to_the_right_reading_more_than_to_a_wrong_one(
    qwen: EmbeddedModel,
) -> None:
    """The real 1.5B judge over the lines a reading stands on: "start" read as "established"
    scores above a club that shares the page's words (the bar that states it is chosen on dev
    data, docs/BENCHMARKS.md)."""
    frame, ranked = _ranked_over(STARTED_QUESTION, STARTED)
    lines = evidence_lines(ranked)
    right = check_span(frame, ([1, 2, 3], "Fenwick Aero Ltd."), lines)
    wrong = check_span(frame, ([4], "Leeds Aero Club"), lines)
    assert right is not None and wrong is not None
    p_right, p_wrong = judge(qwen, frame, right), judge(qwen, frame, wrong)
    assert p_right is not None and p_wrong is not None and p_right > 0.8 > p_wrong


def test_an_abstention_hands_over_the_reading_it_turned_away_marked_unconfirmed(settings: Settings) -> None:
    model = JudgingModel({"reader": _reply("Fenwick Aero Ltd.", [1])}, yes=0.5)
    result = research(
        STARTED_QUESTION, settings=settings.with_overrides(answer_reader="on"), model=model,
        search=StaticSearch(default=_started_hits()), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer_status == "abstained" and model.judged
    answer_block = result.report_markdown.split("\n## ", 1)[0]
    assert "*Closest reading, not confirmed by the evidence checks:* Fenwick Aero Ltd — “" in answer_block
    cited = {int(n) for n in re.findall(r"” \[(\d+)\]", answer_block)}
    fenwick = next(s.id for s in result.sources if s.title == "Fenwick Aero")
    assert fenwick in cited and cited <= {s.id for s in result.sources}


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Where was the husband of Ines Marr born?", "Ines Marr"),
        ("When was Ines Marr's husband born?", "Ines Marr"),
        ("Where was the director of the film Grey Lantern born?", "Grey Lantern"),
        ("Who was the husband of Ines Marr?", None),
        ("Who is Ines Marr's husband?", None),
        ("Where was Ines Marr born?", None),
    ],
)
def test_the_one_whose_relative_a_question_asks_about(question: str, named: str | None) -> None:
    assert relative_named(question) == named


PAINTER = [
    src(
        1,
        "Ines Marr",
        "Ines Marr (1901–1980) was a painter. "
        "She was born in Kell and married the surveyor Tomas Brandt in 1925.",
    ),
    src(2, "Tomas Brandt", "Tomas Brandt (1895–1970) was a surveyor. He was born in Orrin."),
]


@pytest.mark.parametrize(("said", "stated"), [("Kell", None), ("Orrin", "Orrin")])
def test_asked_of_her_husband_a_line_of_her_own_page_gives_no_answer(said: str, stated: str | None) -> None:
    """Her own page says where she was born; the question asks where her husband was, and a
    judge that says "yes" to anything would state her birthplace."""
    model = JudgingModel({"reader": _reply(said, [1, 2])}, yes=0.99)
    answer = ground_answer(
        "Where was the husband of Ines Marr born?",
        PAINTER,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: judge(model, f, reading),
    )
    assert (answer.text if answer.status == "grounded" else None) == stated


BUREAU = [
    src(
        1,
        "Harbor cash report",
        "A Harbor cash report is a form that lenders in Velmora must file with the Tolland Finance Bureau "
        "for each cash deposit of more than 5,000 crowns. It was introduced in 1997.",
    ),
    src(2, "Velmora", "Velmora is a small island state whose currency is the crown."),
]
BUREAU_QUESTION = "Which agency must a Velmora lender tell when a customer pays in over 5,000 crowns in cash?"


def _picked(shares: dict[str, float], reply: str = "none") -> tuple[GroundedAnswer, list[list[str]]]:
    """The reader misreads (``reply``); the model choosing among code's candidates gives each the
    share in ``shares`` (0 where not named); the options it was shown are returned too."""
    model = ScriptedModel({"reader": _reply(reply)})
    shown: list[list[str]] = []

    def pick(frame: object, readings: Sequence[Reading]) -> list[float]:
        shown.append([r.text for r in readings])
        return [shares.get(r.text, 0.0) for r in readings]

    answer = ground_answer(
        BUREAU_QUESTION,
        BUREAU,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: 0.1,
        pick=pick,
    )
    return answer, shown


def test_where_the_reader_misreads_the_model_chooses_among_codes_candidates() -> None:
    """ "tell" for "file with": the small reader gives no answer, but shown code's candidates
    side by side with the lines they stand on, the model puts most of its choice on the agency."""
    answer, shown = _picked({"Tolland Finance Bureau": 0.7})
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "model", "Tolland Finance Bureau")
    assert answer.judged == 0.7 and answer.source_id == 1
    assert "Tolland Finance Bureau" in shown[0] and len(shown[0]) <= PICKED_CANDIDATES


def test_a_pick_whose_lines_do_not_write_the_questions_names_leaves_the_abstention() -> None:
    """Asked of another state's lenders, Velmora's agency is no answer, however sure the pick."""
    model = ScriptedModel({"reader": _reply("none")})
    answer = ground_answer(
        BUREAU_QUESTION.replace("Velmora", "Korsby"),
        BUREAU,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: 0.1,
        pick=lambda frame, readings: [0.9 if "Tolland" in r.text else 0.0 for r in readings],
    )
    assert answer.status == "abstained"


def test_a_pick_short_of_half_the_choice_leaves_the_abstention() -> None:
    assert _picked({"Tolland Finance Bureau": PICK_AT - 0.05})[0].status == "abstained"


def test_a_reading_turned_away_is_weighed_again_beside_the_other_candidates() -> None:
    answer, shown = _picked({"Tolland Finance Bureau": 0.8}, reply="Tolland Finance Bureau")
    assert answer.text == "Tolland Finance Bureau" and "Tolland Finance Bureau" in shown[0]


def test_a_reading_turned_away_that_code_does_not_offer_is_weighed_too() -> None:
    """ "a form" is no name code would offer; turned away by the judge, it is still put
    before the model beside code's candidates, and stated where the model chooses it."""
    model = ScriptedModel({"reader": _reply("a form")})
    shown: list[list[str]] = []

    def pick(frame: object, readings: Sequence[Reading]) -> list[float]:
        shown.append([r.text for r in readings])
        return [0.8 if r.text == "a form" else 0.05 for r in readings]

    answer = ground_answer(
        "What must lenders in Velmora file for each large cash deposit?",
        BUREAU,
        weights=confidence_gate(None),
        reader=lambda f, r: read(model, f, r),
        judge=lambda f, reading: 0.1,
        pick=pick,
    )
    assert shown and shown[0][0] == "a form" and len(shown[0]) <= PICKED_CANDIDATES
    assert (answer.status, answer.chosen_by, answer.text) == ("grounded", "model", "a form")
    assert answer.source_id == 1


def test_the_choice_shows_each_candidates_lines_once_and_none_of_these_last() -> None:
    asked: list[tuple[list[Message], str]] = []

    class Chooser:
        def option_probabilities(self, messages: list[Message], letters: Sequence[str]) -> list[float]:
            asked.append((messages, "".join(letters)))
            return [0.0, 0.9, 0.1][: len(letters)]

    frame, ranked = _ranked_over(BUREAU_QUESTION, BUREAU)
    readings = [
        Reading("Velmora", ranked[0].sentence, ranked[0]),
        Reading("Tolland Finance Bureau", ranked[0].sentence, ranked[0]),
    ]
    assert weigh_options(Chooser(), frame, readings) == [0.0, 0.9]
    messages, letters = asked[0]
    text = messages[-1].content
    assert letters == "ABC" and "A) Velmora\nB) Tolland Finance Bureau\nC) none of these" in text
    assert text.count("lenders in Velmora must file") == 1 and BUREAU_QUESTION in text


def test_the_installed_model_chooses_the_candidate_its_line_states(qwen: EmbeddedModel) -> None:
    """The real model (Qwen2.5-Coder-1.5B in llama.cpp), shown the agency's line and three other
    candidates of it, puts most of its choice on the agency."""
    frame, ranked = _ranked_over(BUREAU_QUESTION, BUREAU)
    line = next(r for r in ranked if "Tolland" in r.sentence.text)
    names = ["Velmora", "Tolland Finance Bureau", "1997", "5,000 crowns"]
    shares = weigh_options(qwen, frame, [Reading(n, line.sentence, line) for n in names])
    assert shares is not None and max(shares) == shares[1] and shares[1] >= PICK_AT


def _choose_bureau(messages: list[Message], letters: Sequence[str]) -> list[float]:
    """Most of the choice on the option that names the agency, wherever it is lettered."""
    text = messages[-1].content
    named = [f"{letter}) Tolland Finance Bureau" in text for letter in letters]
    return [0.8 if hit else 0.2 / len(letters) for hit in named]


def test_a_run_with_the_reader_on_states_the_models_pick_where_it_misreads(settings: Settings) -> None:
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in BUREAU
    ]
    model = JudgingModel({"reader": _reply("none")}, yes=0.1, options=_choose_bureau)
    result = research(
        BUREAU_QUESTION, settings=settings.with_overrides(answer_reader="on"), model=model,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer.startswith("Tolland Finance Bureau") and result.answer_status == "grounded"
    assert result.answer_source_number is not None
    quiet = JudgingModel({"reader": _reply("none")}, yes=0.1)  # its choice: none of these
    result = research(
        BUREAU_QUESTION, settings=settings.with_overrides(answer_reader="on"), model=quiet,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer_status == "abstained"


def _choose_varnland(messages: list[Message], letters: Sequence[str]) -> list[float]:
    text = messages[-1].content
    return [0.8 if f"{letter}) Varnland" in text else 0.2 / len(letters) for letter in letters]


def test_a_bridges_own_question_is_weighed_by_the_models_pick_too(settings: Settings) -> None:
    """The reader misses the country of Eskerby; the model's pick among code's candidates names
    it, and the hop asked of it is answered, cited with the village's line as the way."""
    hits = [
        SearchHit(url=f"https://example.org/{s.id}", title=s.title, snippet=s.content or "") for s in ISLAND
    ]
    model = JudgingModel({"reader": island_reader(reads_bridge=False)}, yes=0.99, options=_choose_varnland)
    result = research(
        "Who led the government in Eskerby's country at first?",
        settings=settings.with_overrides(answer_reader="on"), model=model,
        search=StaticSearch(default=hits), max_web_research_loops=1,
    )  # fmt: skip
    assert result.answer_status == "grounded" and result.answer.startswith("Ada Holm")
