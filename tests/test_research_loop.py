"""The research loop end to end with the scripted model double and a real SQLite index."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from deepresearch import InvalidQuestionError, ResearchResult, research, research_stream
from deepresearch.cli.progress import ReportPrinter
from deepresearch.errors import SearchError
from deepresearch.events import EVENT_TYPES
from deepresearch.llm.testing import ModelCall, ScriptedModel
from deepresearch.search.base import SearchBackend
from deepresearch.search.local import LocalSearch
from deepresearch.search.testing import StaticSearch, hit
from deepresearch.settings import Settings

from .conftest import QUESTION

NEVER_ENOUGH = json.dumps(
    {"tasks": [{"task_id": i, "relevance": 0, "explanation": "weak"} for i in range(1, 6)]}
)


def plan(*queries: str) -> str:
    return json.dumps(
        {"tasks": [{"title": f"T{i}", "intent": f"find {q}", "query": q} for i, q in enumerate(queries, 1)]}
    )


@pytest.mark.parametrize("loops", [1, 2, 3])
def test_rounds_are_exactly_the_cap_when_the_judge_never_says_enough(
    settings: Settings, local_search: LocalSearch, loops: int
) -> None:
    model = ScriptedModel({"judge": NEVER_ENOUGH})
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        max_web_research_loops=loops,
        model_judge=True,
        relevance_threshold=100,
    )
    assert result.rounds == loops
    assert len(result.evaluations) == loops
    assert model.steps() == ["plan", *["judge"] * loops]
    assert [e.round for e in result.evaluations] == list(range(1, loops + 1))


def test_the_graph_takes_its_round_limit_from_the_runs_settings_alone(
    settings: Settings, local_search: LocalSearch
) -> None:
    """Driven as LangGraph's own API drives it (no round cap in the input), the graph runs the
    settings' rounds: the limit has one source, and the judge asks for no round past it."""
    from contextlib import ExitStack

    from deepresearch.agent import _build_context
    from deepresearch.graph.builder import build_graph

    model = ScriptedModel({"judge": NEVER_ENOUGH})
    limited = settings.with_overrides(max_web_research_loops=2, model_judge=True, relevance_threshold=100)
    with ExitStack() as stack:
        context = _build_context(limited, model, local_search, stack, [])
        state = build_graph().invoke({"question": QUESTION, "language": "en", "notices": []}, context=context)
    assert state["round"] == 2 and len(state["evaluations"]) == 2
    assert model.steps() == ["plan", "judge", "judge"]


def test_the_judges_answer_carries_the_next_rounds_queries(settings: Settings) -> None:
    weak = {"task_id": 2, "relevance": 0, "explanation": "weak", "next_query": "Prague Orloj 1410 builders"}
    search = StaticSearch(default=[hit("https://example.org/a", "Clock", "A clock in a city.")])
    model = ScriptedModel({"plan": plan("astronomical clock Prague"), "judge": json.dumps({"tasks": [weak]})})
    research(
        QUESTION,
        settings=settings,
        model=model,
        search=search,
        max_web_research_loops=2,
        relevance_threshold=100,
        model_judge=True,
    )
    assert "Prague Orloj 1410 builders" in search.queries
    assert "queries" not in model.steps()
    judged = [call for call in model.calls if call.step == "judge"]
    assert "Round: 2" in judged[0].prompt and "next_query" in judged[0].messages[0].content
    assert "Round:" not in judged[1].prompt and "next_query" not in judged[1].prompt


def test_evidence_enough_in_round_one_is_checked_by_one_more_round_then_the_run_stops(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel(
        {"plan": plan("Karel Purkyně died", "Prague astronomical clock built", "Prague city")}
    )
    result = research(QUESTION, settings=settings, model=model, search=local_search, relevance_threshold=10)
    assert result.rounds == 2 < settings.max_web_research_loops
    assert [e.answered for e in result.evaluations] == [True, True]
    assert "queries" not in model.steps()


def test_one_round_when_evidence_is_enough_and_one_round_is_the_minimum(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel(
        {"plan": plan("Karel Purkyně died", "Prague astronomical clock built", "Prague city")}
    )
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        relevance_threshold=10,
        min_research_rounds=1,
    )
    assert result.rounds == 1


def test_evidence_accumulates_and_queries_never_repeat(settings: Settings, local_search: LocalSearch) -> None:
    repeat = json.dumps(
        {"tasks": [{"task_id": 1, "relevance": 0, "explanation": "weak", "next_query": "Karel Purkyně died"}]}
    )
    model = ScriptedModel({"plan": plan("Karel Purkyně died", "astronomical clock"), "judge": repeat})
    spy = _Spy(local_search)
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=spy,
        max_web_research_loops=3,
        relevance_threshold=100,
        model_judge=True,
    )
    normalized = [" ".join(q.lower().split()) for q in spy.queries]
    assert len(normalized) == len(set(normalized)), spy.queries
    first_round_ids = {s.id for s in result.sources if s.round == 1}
    assert first_round_ids and first_round_ids <= {s.id for s in result.sources}
    assert [s.id for s in result.sources] == list(range(1, len(result.sources) + 1))
    assert result.rounds == 3
    assert set(result.queries_run) == set(spy.queries)


def test_round_two_narrows_with_the_judges_gaps(settings: Settings) -> None:
    search = StaticSearch(default=[hit("https://example.org/a", "Clock", "A clock in a city.")])
    model = ScriptedModel({"plan": plan("astronomical clock Prague"), "judge": NEVER_ENOUGH})
    events = list(
        research_stream(
            QUESTION,
            settings=settings,
            model=model,
            search=search,
            max_web_research_loops=2,
            relevance_threshold=100,
            model_judge=True,
        )
    )
    started = [e for e in events if e.type == "task_status" and e.data["status"] == "in_progress"]
    first = {e.task_id: e.data["query"] for e in started if e.data["round"] == 1}
    second = {e.task_id: e.data["query"] for e in started if e.data["round"] == 2}
    judged = next(e for e in events if e.type == "evaluation").data["tasks"]
    gaps = {j["task_id"]: j["gaps"] for j in judged}
    assert second, "round 2 ran no query"
    assert set(second) == set(first)
    for task_id, query in second.items():
        assert gaps[task_id], "the judge named no gap"
        assert query == " ".join([first[task_id], *gaps[task_id][:3]])


def test_unusable_plan_falls_back_to_tasks_from_the_question(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel({"plan": "I cannot do that."})
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        max_web_research_loops=1,
        llm_provider="custom",
        summary_mode="extractive",
    )
    queries = [t.query for t in result.todo_items]
    assert queries[0] == "astronomical clock built city karel purkyně died"
    assert all(t.is_fallback for t in result.todo_items)
    titles = [t.title for t in result.todo_items]  # the bridge, then the hop: each a question
    assert titles[1:] == [
        "What is the city where Karel Purkyně died?",
        "When was the astronomical clock built in that city?",
    ]
    assert any(f.startswith("plan:") and "from the question's terms and names" in f for f in result.fallbacks)
    assert result.role is not None and result.role.is_fallback and result.role.type == "historian"
    assert any(f.startswith("role:") and "by keywords" in f for f in result.fallbacks)
    assert model.steps()[:2] == ["plan", "plan"] and "role" not in model.steps()


def test_role_and_plan_come_from_one_call(settings: Settings, local_search: LocalSearch) -> None:
    opening = {
        "role": "historian",
        "focus": "dates of building",
        "tasks": json.loads(plan("Karel Purkyně"))["tasks"],
    }
    model = ScriptedModel({"plan": json.dumps(opening)})
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        max_web_research_loops=1,
        llm_provider="custom",
    )
    assert result.role is not None and result.role.type == "historian" and not result.role.is_fallback
    assert "dates of building" in result.role.instructions
    assert "Karel Purkyně" in [t.query for t in result.todo_items]
    assert model.steps()[0] == "plan" and "role" not in model.steps()
    assert "Roles:" in model.calls[0].prompt and model.calls[0].schema is not None
    assert model.calls[0].schema["required"] == ["role", "focus", "tasks"]


def test_the_embedded_model_plans_alone_and_the_role_comes_from_keywords(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel({"plan": plan("Karel Purkyně died", "astronomical clock built")})
    result = research(QUESTION, settings=settings, model=model, search=local_search, max_web_research_loops=1)
    assert model.steps() == ["plan"]
    assert model.calls[0].schema is not None and "role" not in model.calls[0].schema["properties"]
    assert "Roles:" not in model.calls[0].prompt
    assert result.role is not None and result.role.type == "historian" and not result.role.is_fallback
    assert not any(f.startswith("role:") for f in result.fallbacks)
    assert "Karel Purkyně died" in [t.query for t in result.todo_items]


def test_the_bundled_embedded_model_does_not_plan_code_does(
    tmp_path: Path, local_search: LocalSearch
) -> None:
    defaults = Settings.load({"deepresearch_home": tmp_path / "home"})
    model = ScriptedModel({"plan": plan("Karel Purkyně died", "astronomical clock built")})
    result = research(QUESTION, settings=defaults, model=model, search=local_search, max_web_research_loops=1)
    asked = [t.query for t in result.todo_items]
    assert "plan" not in model.steps()
    assert "Karel Purkyně died" not in asked  # the scripted plan was never asked for
    assert 3 <= len(asked) <= 5 and any("karel purkyně" in q.lower() for q in asked)
    assert result.role is not None and result.role.type == "historian"
    assert not any(f.startswith("plan:") for f in result.fallbacks)  # planning by code is no fallback


def test_a_question_code_cannot_plan_is_still_planned_by_the_embedded_model(tmp_path: Path) -> None:
    defaults = Settings.load({"deepresearch_home": tmp_path / "home"})
    search = StaticSearch(default=[hit("https://example.org/zh", "量子计算", "量子计算是一种计算方式。")])
    model = ScriptedModel()
    research(
        "量子计算的最新进展是什么？", settings=defaults, model=model, search=search, max_web_research_loops=1
    )
    assert "plan" in model.steps()


def test_chinese_question_gets_chinese_fallback_task(settings: Settings) -> None:
    search = StaticSearch(default=[hit("https://example.org/zh", "量子计算", "量子计算是一种计算方式。")])
    result = research(
        "量子计算的最新进展是什么？",
        settings=settings,
        model=ScriptedModel({"plan": "{}"}),
        search=search,
        max_web_research_loops=1,
    )
    assert result.todo_items[0].query.endswith("最新进展")
    assert "## 核心洞见" in result.report_markdown and "## 参考来源" in result.report_markdown


@pytest.mark.parametrize(
    ("question", "insights", "references"),
    [
        ("Wann wurde die astronomische Uhr in Prag gebaut?", "Wichtigste Erkenntnisse", "Quellen"),
        ("Quand a été construite l'horloge de Prague ?", "Points clés", "Références"),
        ("¿Cuándo se construyó el reloj de Praga?", "Ideas clave", "Referencias"),
    ],
)
def test_a_question_in_german_french_or_spanish_gets_its_own_report_headings(
    settings: Settings, question: str, insights: str, references: str
) -> None:
    page = hit("https://example.org/orloj", "Orloj", "The Prague clock was built in 1410.")
    model = ScriptedModel({"plan": "{}"})
    result = research(
        question,
        settings=settings,
        model=model,
        search=StaticSearch(default=[page]),
        max_web_research_loops=1,
    )
    assert f"## {insights}" in result.report_markdown and f"## {references}" in result.report_markdown


def test_placeholder_and_off_topic_queries_are_rejected(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel({"plan": plan("[specific technology]", "banana bread recipe", "Karel Purkyně")})
    result = research(QUESTION, settings=settings, model=model, search=local_search, max_web_research_loops=1)
    queries = [t.query for t in result.todo_items]
    assert "[specific technology]" not in queries and "banana bread recipe" not in queries
    assert "Karel Purkyně" in queries
    assert 3 <= len(result.todo_items) <= 5


def test_empty_search_skips_the_task_with_its_reason(settings: Settings) -> None:
    search = StaticSearch(
        {"Karel Purkyně": [hit("https://example.org/kp", "Karel Purkyně", "He died in Prague.")]}
    )
    model = ScriptedModel({"plan": plan("Karel Purkyně", "astronomical clock built")})
    result = research(QUESTION, settings=settings, model=model, search=search, max_web_research_loops=1)
    skipped = [t for t in result.todo_items if t.status == "skipped"]
    assert skipped and all("no results" in (t.skip_reason or "") for t in skipped)
    assert any(t.status == "completed" for t in result.todo_items)
    assert "Skipped task" in result.report_markdown


def test_every_citation_resolves_and_unknown_ones_are_removed(
    settings: Settings, local_search: LocalSearch
) -> None:
    draft = json.dumps(
        {
            "answer": "1410 [2]",
            "background": "Karel Purkyně was a Czech painter, as [99] and [1] say.",
            "insights": [
                {"text": "The clock dates from 1410 [2] [42].", "sources": []},
                {"text": "An uncited guess.", "sources": []},
            ],
            "risks": [],
        }
    )
    model = ScriptedModel({"report": draft})
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        max_web_research_loops=1,
        summary_mode="model",
    )
    body, references = result.report_markdown.split("## References")
    numbers = list(dict.fromkeys(int(n) for n in re.findall(r"\[(\d+)\]", body)))
    assert numbers == list(range(1, len(result.cited_source_ids) + 1)), "numbered 1..N by first citation"
    assert result.removed_citations == 2
    assert "[99]" not in result.report_markdown and "[42]" not in result.report_markdown
    for number, source_id in enumerate(result.cited_source_ids, 1):
        source = next(s for s in result.sources if s.id == source_id)
        assert f"{number}. [{source.title}]({source.url})" in references
    assert "An uncited guess." not in result.report_markdown
    assert "1 insight(s) left out" in result.report_markdown


def test_garbage_model_still_ends_with_a_report_that_says_what_failed(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel(default="<think>hmm</think> %%% not json at all")
    result = research(
        QUESTION, settings=settings, model=model, search=local_search, model_judge=True, llm_provider="custom"
    )
    for section in ("Key insights", "Evidence and data", "Risks and open questions", "References"):
        assert f"## {section}" in result.report_markdown  # a Background only from passages not quoted
    failed = " ".join(result.fallbacks)
    assert "role:" in failed and "plan:" in failed and "report:" in failed, "the result says what failed"
    limits = result.report_markdown.split("## Key insights")[0]
    assert "role:" not in limits and "plan:" not in limits, "plan bookkeeping is no limit of the report"
    assert "<think>" not in result.report_markdown


def test_fallback_sources_are_flagged_in_the_report(settings: Settings) -> None:
    search = StaticSearch(
        default=[
            hit(
                "https://en.wikipedia.org/wiki/Prague",
                "Prague",
                "Karel Purkyně died in Prague. Its astronomical clock was built in 1410.",
                is_fallback=True,
            )
        ]
    )
    result = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=search, max_web_research_loops=1
    )
    assert all(s.is_fallback for s in result.sources)
    assert "fallback search engine" in result.report_markdown
    assert "*(fallback source)*" in result.report_markdown


def test_stream_and_blocking_give_the_same_result(settings: Settings, local_search: LocalSearch) -> None:
    events = list(research_stream(QUESTION, settings=settings, model=ScriptedModel(), search=local_search))
    blocking = research(QUESTION, settings=settings, model=ScriptedModel(), search=local_search)
    streamed = events[-1].data["result"]
    assert events[-1].type == "done" and isinstance(streamed, ResearchResult)
    assert (
        streamed.report_markdown.split("## References")[0]
        == blocking.report_markdown.split("## References")[0]
    )
    assert [t.status for t in streamed.todo_items] == [t.status for t in blocking.todo_items]
    assert events[-1].as_dict()["data"]["result"] == streamed.model_dump(mode="json"), "JSON keeps its shape"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    types = {e.type for e in events}
    assert set(EVENT_TYPES) - {"error"} <= types
    chunks = [e for e in events if e.type == "report_chunk"]
    final = next(e for e in events if e.type == "final_report")
    assert len(chunks) > 3 and "".join(e.data["content"] for e in chunks) == final.data["report"]
    assert max(e.seq for e in chunks) < final.seq


def test_the_cli_prints_the_report_as_it_streams(settings: Settings, local_search: LocalSearch) -> None:
    seen: list[str] = []

    class Recording(io.StringIO):
        def write(self, text: str) -> int:
            seen.append(text)
            return super().write(text)

    printer = ReportPrinter(None, Recording())
    result = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, on_event=printer
    )
    assert printer.printed and "".join(seen) == result.report_markdown and len(seen) > 3


def test_notes_and_run_folder_are_written(settings: Settings, local_search: LocalSearch) -> None:
    result = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
    )
    run = Path(result.run_dir or "")
    for name in (
        "plan.json",
        "sources.json",
        "summaries.json",
        "judgements.json",
        "report.md",
        "timings.json",
        "events.jsonl",
    ):
        assert (run / name).is_file(), name
    kinds = {n.type for n in result.notes}
    assert kinds == {"task_state", "conclusion"}
    task_note = Path(next(n.path for n in result.notes if n.type == "task_state")).read_text()
    assert "deep_research" in task_note and "task_1" in task_note and "type: task_state" in task_note
    conclusion = Path(next(n.path for n in result.notes if n.type == "conclusion")).read_text()
    assert "## References" in conclusion


def test_bad_questions(settings: Settings, local_search: LocalSearch) -> None:
    with pytest.raises(InvalidQuestionError):
        research("   \n ", settings=settings, model=ScriptedModel(), search=local_search)
    huge = "Karel Purkyně " * 5000
    with pytest.raises(
        InvalidQuestionError, match=r"69,999 characters; the limit is 2,000 \(MAX_QUESTION_CHARS\)"
    ):
        research(huge, settings=settings, model=ScriptedModel(), search=local_search)


def test_a_run_whose_only_search_fails_ends_with_that_error_not_a_crash(settings: Settings) -> None:
    search = StaticSearch(fail_on=["astronomical clock built city karel purkyně died"])
    with pytest.raises(SearchError, match="search failed for 'astronomical clock built city karel"):
        research(
            QUESTION,
            settings=settings,
            model=ScriptedModel({"plan": "{}"}),
            search=search,
            max_web_research_loops=1,
        )


def test_model_call_in_every_step_is_named(settings: Settings, local_search: LocalSearch) -> None:
    seen: list[str] = []

    def answer(call: ModelCall) -> str:
        seen.append(call.step)
        assert call.max_tokens > 0
        return "{}"

    model = ScriptedModel(default=answer)
    research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        model_judge=True,
        max_web_research_loops=2,
        relevance_threshold=100,
    )
    assert {"plan", "judge"} <= set(seen)
    seen.clear()
    research(QUESTION, settings=settings, model=model, search=local_search, answer_chooser="model")
    assert "answer" in seen
    seen.clear()
    research(
        QUESTION,
        settings=settings,
        model=model,
        search=local_search,
        summary_mode="model",
        max_web_research_loops=1,
    )
    assert {"summarize", "report"} <= set(seen)


def test_tiny_model_answer_is_grounded_in_a_cited_sentence(
    settings: Settings, local_search: LocalSearch
) -> None:
    model = ScriptedModel()
    result = research(QUESTION, settings=settings, model=model, search=local_search, max_web_research_loops=1)
    assert "report" not in model.steps() and "summarize" not in model.steps()
    assert result.answer == "1410" and result.answer_status == "grounded"
    answer_line = result.report_markdown.splitlines()[2]
    assert result.answer_source_id is not None
    number = result.cited_source_ids.index(result.answer_source_id) + 1
    assert answer_line == f"**Answer:** 1410 [{number}]"
    clock = next(s for s in result.sources if s.id == result.answer_source_id)
    assert clock.title == "Prague astronomical clock"


def test_the_model_can_only_choose_among_the_candidates(
    settings: Settings, local_search: LocalSearch
) -> None:
    offered: list[list[str]] = []

    def choose(pick: str) -> Callable[[ModelCall], str]:
        def answer(call: ModelCall) -> str:
            assert call.schema is not None
            offered.append(call.schema["properties"]["answer"]["enum"])
            return json.dumps({"answer": pick})

        return answer

    def run(pick: str) -> str:
        model = ScriptedModel({"answer": choose(pick)})
        return research(
            QUESTION, settings=settings, model=model, search=local_search, answer_chooser="model"
        ).answer

    assert run("1410") == "1410"
    assert {"1410", "1888"} <= set(offered[0])
    assert run("1888") == "1410", "a pick its evidence does not support gives way to code's"
    assert run("1999") == "1410", "an answer outside the candidates is ignored"


class _Spy(SearchBackend):
    name = "spy"

    def __init__(self, inner: LocalSearch) -> None:
        self.inner, self.queries = inner, []  # type: ignore[var-annotated]

    def search(self, query: str, *, limit: int = 5):  # type: ignore[no-untyped-def]
        self.queries.append(query)
        return self.inner.search(query, limit=limit)


def test_round_two_follows_a_bridge_entity_from_the_first_hop(settings: Settings) -> None:
    first_hop = hit("doc://kp", "Karel Purkyně", "Karel Purkyně (1834 – 1868, Prague) was a painter.")
    second_hop = hit("doc://orloj", "Prague astronomical clock", "The Orloj was built in 1410.")
    search = StaticSearch(default=lambda q: [second_hop] if "Prague" in q else [first_hop])
    model = ScriptedModel({"plan": plan("Karel Purkyně died"), "judge": NEVER_ENOUGH})
    result = research(
        QUESTION,
        settings=settings,
        model=model,
        search=search,
        max_web_research_loops=2,
        relevance_threshold=100,
        model_judge=True,
    )
    round_two = [q for q in search.queries if "Prague" in q]
    assert round_two and "astronomical" in round_two[0] and "clock" in round_two[0]
    assert {s.title for s in result.sources} == {"Karel Purkyně", "Prague astronomical clock"}


def test_relevant_sources_that_do_not_answer_send_the_run_to_another_round(
    settings: Settings, local_search: LocalSearch
) -> None:
    unanswered = research(
        "When did Jan Novák die in Prague?",
        settings=settings,
        model=ScriptedModel(),
        search=local_search,
        relevance_threshold=0,
    )
    assert unanswered.rounds > 1 and not unanswered.evaluations[0].answered
    assert unanswered.answer_status == "abstained"
    answered = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, relevance_threshold=0
    )
    assert answered.rounds == 2 and all(e.answered for e in answered.evaluations)


def test_the_planning_status_shows_once_when_the_opening_call_is_sent(
    settings: Settings, local_search: LocalSearch
) -> None:
    events = list(
        research_stream(
            QUESTION, settings=settings, model=ScriptedModel(), search=local_search, max_web_research_loops=1
        )
    )
    planning = [i for i, e in enumerate(events) if e.type == "status" and e.step == "plan"]
    assert len(planning) == 1
    assert planning[0] < [e.type for e in events].index("todo_list")
    result = events[-1].data["result"]
    logged = (Path(result.run_dir) / "events.jsonl").read_text(encoding="utf-8")
    assert '"step":"plan"' in logged.replace(" ", "")


def test_answer_min_confidence_turns_the_fitted_gate_on_for_the_whole_run(
    settings: Settings, local_search: LocalSearch
) -> None:
    """ANSWER_MIN_CONFIDENCE=1 refuses every answer (no P(right) reaches 1) in the report and the
    judge alike, so the run looks further; unset, the same run states its grounded answer."""
    default = research(QUESTION, settings=settings, model=ScriptedModel(), search=local_search)
    strict = research(
        QUESTION, settings=settings, model=ScriptedModel(), search=local_search, answer_min_confidence=1.0
    )
    assert default.answer_status == "grounded" and default.answer.startswith("1410")
    assert strict.answer_status == "abstained" and "do not answer" in strict.answer
    assert not any(e.answered for e in strict.evaluations)
    assert strict.rounds == settings.max_web_research_loops
