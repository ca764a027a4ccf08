"""The research loop reads pages of hits without content; page text is data, never instructions."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from deepresearch import Event, research
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch
from deepresearch.settings import Settings

from .documents import ARTICLE_SENTENCE
from .server import FixtureServer

QUESTION = "When was the Prague astronomical clock built?"


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    values = {
        "deepresearch_home": tmp_path / "home",
        "fetch_allow_hosts": "127.0.0.1",
        "max_web_research_loops": 1,
        **overrides,
    }
    return Settings.load(values)


def _search(url: str) -> StaticSearch:
    snippet = "A page about the astronomical clock in Prague."
    return StaticSearch(default=[SearchHit(url=url, title="Orloj", snippet=snippet, backend="static")])


def _run(tmp_path: Path, url: str, **overrides: object) -> tuple[ScriptedModel, list[Event], str]:
    model, events = ScriptedModel(), list[Event]()
    result = research(
        QUESTION,
        settings=_settings(tmp_path, **overrides),
        model=model,
        search=_search(url),
        on_event=events.append,
    )
    written = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "home").rglob("*") if p.is_file())
    everything = result.model_dump_json() + json.dumps([e.as_dict() for e in events]) + written
    return model, events, everything


@pytest.mark.parametrize("summary_mode", ["extractive", "model"])
def test_injected_instructions_trigger_nothing(
    site: FixtureServer, tmp_path: Path, summary_mode: str
) -> None:
    clean_model, _, clean_output = _run(
        tmp_path / "clean", site.url("/article.html"), summary_mode=summary_mode
    )
    model, events, output = _run(tmp_path / "injected", site.url("/injected.html"), summary_mode=summary_mode)
    assert ARTICLE_SENTENCE in output and ARTICLE_SENTENCE in clean_output
    assert "TOOL_CALL" not in output.upper()
    assert '"action":"delete"' not in output
    assert all("TOOL_CALL" not in call.prompt for call in model.calls)
    shown = any("Ignore previous instructions" in call.prompt for call in model.calls)
    assert shown == (summary_mode == "model")
    assert all(call.prompt.count("<source ") == call.prompt.count("</source>") for call in model.calls)
    assert model.steps() == clean_model.steps()
    assert [e.type for e in events][-1] == "done"


def test_page_that_cannot_be_read_keeps_its_snippet_and_becomes_a_notice(
    site: FixtureServer, tmp_path: Path
) -> None:
    result = research(
        QUESTION,
        settings=_settings(tmp_path),
        model=ScriptedModel(),
        search=_search(site.url("/missing.html")),
    )
    assert result.sources and result.sources[0].content == "A page about the astronomical clock in Prague."
    assert any("could not read" in n and "/missing.html" in n and "HTTP 404" in n for n in result.notices)


def test_private_address_hit_is_refused_and_reported(tmp_path: Path) -> None:
    result = research(
        QUESTION,
        settings=_settings(tmp_path),
        model=ScriptedModel(),
        search=_search("http://169.254.169.254/x"),
    )
    assert any("link-local" in n for n in result.notices)


def test_no_request_when_full_pages_are_off(site: FixtureServer, tmp_path: Path) -> None:
    site.routes["/unread.html"] = site.routes["/article.html"]
    result = research(
        QUESTION,
        settings=_settings(tmp_path, fetch_full_page=False),
        model=ScriptedModel(),
        search=_search(site.url("/unread.html")),
    )
    assert "/unread.html" not in site.hits
    assert result.sources[0].content == "A page about the astronomical clock in Prague."


@pytest.mark.parametrize("path", ["/to-data", "/to-javascript", "/to-mailto", "/to-bad-host"])
def test_a_hit_that_redirects_somewhere_unreadable_is_a_notice_and_the_run_goes_on(
    site: FixtureServer, tmp_path: Path, path: str
) -> None:
    hostile = SearchHit(url=site.url(path), title="Trap", snippet="A trap page.", backend="static")
    good = SearchHit(url=site.url("/article.html"), title="Orloj", snippet="The clock.", backend="static")
    result = research(
        QUESTION,
        settings=_settings(tmp_path),
        model=ScriptedModel(),
        search=StaticSearch(default=[hostile, good]),
    )
    assert any("could not read" in n and path in n for n in result.notices)
    assert any(ARTICLE_SENTENCE in (s.content or "") for s in result.sources)
    assert result.report_markdown


def test_every_task_reads_through_one_fetcher_that_closes_with_the_run(
    site: FixtureServer, tmp_path: Path
) -> None:
    def loops() -> int:
        return sum(t.name == "deepresearch-fetch" for t in threading.enumerate())

    before, seen = loops(), []
    site.routes["/shared-run.html"] = site.routes["/article.html"]

    def during(event: Event) -> None:
        if event.type == "sources":
            seen.append(loops())

    result = research(
        QUESTION,
        settings=_settings(tmp_path),
        model=ScriptedModel(),
        search=_search(site.url("/shared-run.html")),
        on_event=during,
    )
    assert len(result.todo_items) >= 2 and len(seen) >= 2
    assert set(seen) == {before + 1}
    assert loops() == before
