"""The web page in headless Chromium: ask, watch the TODO list complete, read the rendered report.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and the ``playwright`` package; skipped without
them. The screenshot is left in ``tests/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deepresearch.errors import SearchError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch

from .conftest import Serve
from .helpers import TOPIC

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.browser


@pytest.fixture
def browser_page():  # type: ignore[no-untyped-def]
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.skip("no Chromium: apt-get install -y chromium")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        try:
            yield page
        finally:
            browser.close()


def run_research(page, server) -> None:  # type: ignore[no-untyped-def]
    page.goto(server.url + "/")
    page.fill("#question", TOPIC)
    page.select_option("#backend", "local")
    page.click("#submit")
    page.wait_for_selector("#todo li[data-status]", timeout=30_000)
    page.wait_for_selector("#report article.report h2", timeout=60_000)


def test_page_runs_a_research_and_renders_the_report(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server = serve(
        model=ScriptedModel(delay=0.1),
        summary_mode="model",
        relevance_threshold=100,
        llm_price_prompt_per_mtok=1.0,
        llm_price_completion_per_mtok=2.0,
    )
    run_research(page, server)
    statuses = page.eval_on_selector_all("#todo li", "els => els.map(e => e.dataset.status)")
    assert statuses and all(s in ("completed", "skipped") for s in statuses), statuses
    assert page.inner_text("#report h1") == TOPIC
    report = page.inner_text("#report")
    assert "References" in report and "](" not in report, "no raw Markdown link text"
    assert "Limits of this report" in page.inner_text("#report blockquote")
    assert not [line for line in report.splitlines() if line.startswith(">")], "no literal blockquote marker"
    cite = page.query_selector("#report a.cite")
    assert cite is not None and (cite.get_attribute("href") or "").startswith("#ref-")
    numbers = page.eval_on_selector_all("#report li[id^='ref-']", "els => els.map(e => e.id)")
    assert numbers == [f"ref-{n}" for n in range(1, len(numbers) + 1)], "references keep the report's numbers"
    page.click("#report li#ref-1 a[href^='#src-']")
    passage = page.inner_text(page.evaluate("location.hash") + " blockquote")
    assert "Built in 1410" in passage, "the reference shows the passage that was read"
    assert (page.get_attribute("#report li#ref-1 a.page", "href") or "").startswith("https://example.org/")
    assert page.eval_on_selector_all("#sources li", "els => els.length") > 0
    assert page.inner_text("#summaries").strip()
    status = page.inner_text("#status")
    assert "completion tokens, cost 0.0" in status, f"the run's token counts and cost are shown: {status}"
    page.wait_for_selector("#history li .badge.completed", timeout=10_000)
    page.select_option("#format", "html")
    with page.expect_download() as download:
        page.click("#download")
    assert download.value.suggested_filename == "report.html"
    assert Path(download.value.path()).read_text(encoding="utf-8").startswith("<!doctype html>")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "server-page.png"), full_page=True)
    assert errors == []


def test_page_fits_a_phone_screen(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    run_research(page, serve(relevance_threshold=100))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    header = page.eval_on_selector("header", "e => e.getBoundingClientRect().right")
    assert header <= 390
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "server-page-phone.png"), full_page=True)


def offline(query: str) -> list[SearchHit]:
    raise SearchError("[Errno -3] Temporary failure in name resolution")


def test_failed_searches_show_as_an_error_not_a_report(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    page.goto(serve(search=StaticSearch(default=offline)).url + "/")
    page.fill("#question", TOPIC)
    page.click("#submit")
    page.wait_for_selector("#report .failed", timeout=60_000)
    assert "name resolution" in page.inner_text("#report .failed")
    assert page.get_attribute("#status", "class") == "error"
    assert page.is_disabled("#download")


def test_api_docs_render_with_no_outside_network(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    server = serve()
    outside: list[str] = []

    def only_local(route) -> None:  # type: ignore[no-untyped-def]
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_local)
    page.goto(server.url + "/docs")
    page.wait_for_selector(".swagger-ui .info .title", timeout=30_000)
    assert page.inner_text(".swagger-ui .info .title").startswith("deepresearch")
    assert page.query_selector(".swagger-ui .opblock") is not None
    assert outside == []


def test_page_reviews_the_plan_before_the_research(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    from deepresearch.graph.review import DROPPED

    from .helpers import corpus_search

    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    search = StaticSearch(default=corpus_search)
    page.goto(serve(search=search, relevance_threshold=100).url + "/")
    page.fill("#question", TOPIC)
    page.check("#review")
    page.click("#submit")
    page.wait_for_selector("#plan-review li input.query", timeout=30_000)
    assert search.queries == [], "the page shows the plan before any search"
    rows = page.query_selector_all("#plan-review li")
    assert len(rows) >= 2
    rows[0].query_selector("input.query").fill("Prague Orloj construction year")
    rows[1].query_selector("input.drop").check()
    page.click("#continue")
    page.wait_for_selector("#report article.report h2", timeout=60_000)
    assert page.is_hidden("#plan-box")
    statuses = page.eval_on_selector_all("#todo li", "els => els.map(e => e.dataset.status)")
    assert "skipped" in statuses and search.queries[0] == "Prague Orloj construction year"
    assert DROPPED in page.inner_text("#report")
    assert errors == []
