"""The report as a reader sees it: one grounded answer line, numbered references, quotes that keep
their subject, no repeats, no empty sections, and insights marked by code."""

from __future__ import annotations

import re

from deepresearch.answers.ground import GroundedAnswer, abstain, check_answer, ground_answer
from deepresearch.answers.question import frame_question
from deepresearch.citations import Source
from deepresearch.domain import TodoItem
from deepresearch.extractive import with_subject
from deepresearch.model_outputs import Insight, ReportDraft
from deepresearch.report_markdown import ReportInput, render_report

QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"
SOURCES = [
    Source(
        id=1,
        url="doc://p",
        title="Karel Purkyně",
        content="Karel Purkyně was a Czech painter. He died in Prague.",
    ),
    Source(
        id=2,
        url="doc://b",
        title="Brighton Clock Tower",
        content="The Clock Tower in Brighton was built in 1888.",
    ),
    Source(
        id=3,
        url="doc://c",
        title="Prague astronomical clock",
        content="The Prague astronomical clock was first installed in 1410. It is the oldest working one.",
    ),
]


def task(tid: int, summary: str) -> TodoItem:
    return TodoItem(id=tid, title=f"T{tid}", intent="i", query="q", status="completed", summary=summary)


def render(
    tasks: list[TodoItem], answer: GroundedAnswer | None = None, draft: ReportDraft | None = None
) -> str:
    inp = ReportInput(QUESTION, "en", tasks, SOURCES, [], 50.0, draft, answer=answer)
    return render_report(inp).markdown


def test_references_are_numbered_by_first_citation_with_no_gaps() -> None:
    tasks = [
        task(1, "- The Prague astronomical clock was first installed in 1410. [3]\n- He died in Prague. [1]")
    ]
    markdown = render(tasks, ground_answer(QUESTION, SOURCES))
    body, references = markdown.split("## References")
    assert list(dict.fromkeys(re.findall(r"\[(\d+)\]", body))) == ["1", "2"]
    assert references.strip().splitlines()[:2] == [
        "1. [Prague astronomical clock](doc://c)",
        "2. [Karel Purkyně](doc://p)",
    ]


def test_the_answer_line_cites_the_sentence_that_holds_it() -> None:
    markdown = render([task(1, "")], ground_answer(QUESTION, SOURCES))
    assert "**Answer:** 1410 [1]" in markdown
    assert "“Prague astronomical clock: It is" not in markdown
    assert "[1. [Prague astronomical clock]" not in markdown


def test_a_quoted_sentence_keeps_its_subject() -> None:
    assert (
        with_subject("The company was founded in 1961.", "Copper Kettle")
        == "Copper Kettle: The company was founded in 1961."
    )
    assert (
        with_subject("Copper Kettle was founded in 1961.", "Copper Kettle")
        == "Copper Kettle was founded in 1961."
    )


def test_no_sentence_is_repeated_across_tasks_and_unrelated_sources_are_not_evidence() -> None:
    line = "- The Prague astronomical clock was first installed in 1410. [3]"
    tasks = [task(1, line), task(2, f"{line}\n- The Clock Tower in Brighton was built in 1888. [2]")]
    markdown = render(tasks, ground_answer(QUESTION, SOURCES))
    evidence = re.split(r"\n## ", markdown.split("## Evidence and data")[1])[0]
    assert evidence.count("first installed in 1410") == 1
    assert "Brighton" not in markdown.split("## References")[0]


def test_no_empty_section() -> None:
    markdown = render([task(1, "")], abstain(frame_question(QUESTION), 0.0))
    for section in re.split(r"\n## ", markdown)[1:]:
        title, _, body = section.partition("\n")
        assert body.strip() and body.strip() != "-", f"empty section {title}"


def test_abstention_is_said_and_listed_as_unknown() -> None:
    markdown = render([task(1, "")], ground_answer(QUESTION, [SOURCES[1]]))
    assert f"**Answer:** The sources read do not answer: {QUESTION}" in markdown
    hop = "When was the astronomical clock built in Prague?"  # the bridge is read; the hop not stated
    assert (
        f"- **Unknown** — Still missing — the second hop: no sentence read states outright “{hop}”"
        in markdown
    )


def test_headings_inside_model_text_are_demoted() -> None:
    draft = ReportDraft(
        answer="1410",
        background="# The Prague astronomical clock is the oldest working one",
        insights=[],
        risks=["## Dates of the clock's parts differ between sources"],
    )
    markdown = render([task(1, "### Summary heading\nThe clock dates from 1410 [3].")], draft=draft)
    headings = [line for line in markdown.splitlines() if line.startswith("#")]
    assert all(h.startswith(("# When", "## ", "### Task")) for h in headings)
    assert "**Summary heading**" in markdown
    assert "**The Prague astronomical clock is the oldest working one**" in markdown
    assert "**Dates of the clock's parts differ between sources**" in markdown


def test_a_background_or_risk_that_is_a_fragment_is_not_kept() -> None:
    draft = ReportDraft(answer="1410", background="2023-01-01", insights=[], risks=["open questions"])
    markdown = render([task(1, "The clock dates from 1410 [3].")], draft=draft)

    background = markdown.split("## Background", 1)[1].split("##", 1)[0]
    assert "2023-01-01" not in background and len(background.split()) >= 5
    assert "- open questions" not in markdown


def test_model_insights_are_marked_by_code() -> None:
    draft = ReportDraft(
        answer="1410",
        background="",
        insights=[
            Insight(text="The Prague astronomical clock was first installed in 1410 [3].", sources=[]),
            Insight(text="Purkyně died in Prague, whose clock dates from 1410 [1, 3].", sources=[]),
            Insight(text="The clock was built by aliens [3].", sources=[]),
            Insight(text="The Brighton clock tower was built in 1888 [2].", sources=[]),
        ],
        risks=[],
    )
    markdown = render([task(1, "")], check_answer(QUESTION, "1410", SOURCES), draft)
    assert "**Established** — The Prague astronomical clock was first installed in 1410" in markdown
    assert "**Inferred** — Purkyně died in Prague" in markdown
    assert "aliens" not in markdown
    assert "Brighton" not in markdown.split("## References")[0]
    assert "2 insight(s) left out" in markdown


def test_an_unverified_server_answer_is_flagged() -> None:
    answer = GroundedAnswer("1412", "unverified", "date", chosen_by="model")
    markdown = render([task(1, "")], answer)
    assert "**Answer:** 1412 *(unverified)*" in markdown
    assert "The answer is unverified" in markdown


def test_a_pages_own_footnote_markers_never_become_citations() -> None:
    sources = [
        Source(
            id=1,
            url="doc://c",
            title="Prague astronomical clock",
            content="The clock was first installed in 1410.[7]",
        )
    ]
    inp = ReportInput(
        QUESTION, "en", [task(1, "")], sources, [], 50.0, None, answer=ground_answer(QUESTION, sources)
    )
    result = render_report(inp)
    assert "[7]" not in result.markdown and result.removed_citations == 0


def test_a_quoted_pronoun_sentence_names_its_subject() -> None:
    from deepresearch.extractive import with_subject

    said = with_subject("She was the second wife of Ned Orr.", "Mae Orr")
    assert said == "Mae Orr: She was the second wife of Ned Orr."
    assert with_subject("Mae Orr was a pianist.", "Mae Orr") == "Mae Orr was a pianist."
