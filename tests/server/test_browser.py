"""The web page in headless Chromium: ask, watch the TODO list complete, read the rendered report.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and the ``playwright`` package; skipped without
them. Screenshots (390 and 1280 px wide, before, during and after a run) are left in
``tests/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from deepresearch.errors import SearchError
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch, hit

from .conftest import Serve
from .helpers import TOPIC, read_events

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


SOURCES_JS = "els => els.map(e => [e.querySelector('.sid').textContent, e.querySelector('a').textContent])"
REFERENCES_JS = "els => els.map(e => [e.id.slice(4), e.querySelector('a[href^=\"#src-\"]').innerText])"
SUMMARIES_JS = "els => els.map(e => [e.querySelector('h3').innerText, e.querySelector('div').innerText])"


def assert_one_number_per_source(page, server) -> None:  # type: ignore[no-untyped-def]
    """The source titled X is [n] in the report, the Sources panel and the Summaries alike."""
    listed = page.eval_on_selector_all("#sources li, #other-list li", SOURCES_JS)
    panel = {title: int(sid.strip("[]")) for sid, title in listed}
    references = page.eval_on_selector_all("#report li[id^='ref-']", REFERENCES_JS)
    assert references and all(panel[title] == int(k) for k, title in references), (references, panel)
    client = server.client()
    job_id = client.get("/tasks").json()["jobs"][0]["id"]
    result = client.get(f"/tasks/{job_id}/report", params={"format": "json"}).json()
    cited = result["cited_source_ids"]
    assert any(k != sid for k, sid in enumerate(cited, 1)), (
        "the report renumbers: its [k] is not the registry id"
    )
    off_topic = set(result.get("off_topic_source_ids") or [])
    kept = [s for s in result["sources"] if s["id"] not in off_topic]
    assert kept and all(panel[s["title"]] == s["number"] for s in kept), "the JSON's numbers"
    assert not any(s["title"] in panel for s in result["sources"] if s["id"] in off_topic), (
        "off-topic sources are counted, not listed"
    )
    shown = dict(page.eval_on_selector_all("#summaries .summary", SUMMARIES_JS))
    for task in result["todo_items"]:
        assert shown[f"Task {task['id']}: {task['title']}"].strip() == task["summary"].strip()


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
    assert_one_number_per_source(page, server)
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


LONG_QUESTION = (
    "When was the Prague astronomical clock built, who is said to have made its astronomical dial, "
    "and which later repairs changed the calendar plate that sits below it?"
)
LONG_WORD = "Orlojastronomicaldialcalendarplateandwalkoftheapostles" * 2
PLAN = {
    "role": "general_researcher",
    "focus": "Dates and makers, each from a source.",
    "tasks": [
        {
            "title": "Year it was built",
            "intent": "Find when the clock was built",
            "query": "Prague Orloj built year",
        },
        {
            "title": "Maker of the dial",
            "intent": "Find who made the dial",
            "query": "Orloj astronomical dial maker",
        },
        {
            "title": "Calendar plate repairs",
            "intent": "Find later repairs",
            "query": "Orloj calendar plate repair",
        },
    ],
}

OVERFLOW_JS = """() => {
  const out = [];
  for (const el of document.body.querySelectorAll("*")) {
    if (!el.checkVisibility({ visibilityProperty: true })) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    let right = box.right;
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const clips = getComputedStyle(up).overflowX !== "visible";
      if (clips) right = Math.min(right, up.getBoundingClientRect().right);
    }
    const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + "." + el.className;
    if (right > innerWidth + 0.5) out.push(name + " right=" + Math.round(right));
  }
  return out;
}"""
ROW_LINES_JS = "row => new Set([...row.children].map(c => Math.round(c.getBoundingClientRect().top))).size"


def gated_search(gate: threading.Event) -> StaticSearch:
    """Hits with a long URL and an unbroken title, and no answer before ``gate`` is set: the run
    waits with its plan made, so the page can be looked at mid-run."""

    def search(query: str) -> list[SearchHit]:
        gate.wait(60)
        slug = "-".join(query.lower().split())[:40]
        return [
            hit(
                f"https://example.org/{slug}/{'a' * 150}",
                f"{LONG_WORD} {query}",
                f"{query} is told here. Built in 1410.",
            ),
            hit(
                f"https://example.org/{slug}/b",
                f"More on {query}",
                f"Another page on {query}. It is in Prague.",
            ),
        ]

    return StaticSearch(default=search)


def assert_fits(page, width: int, stage: str) -> None:  # type: ignore[no-untyped-def]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"page-{width}-{stage}.png"), full_page=True)
    assert page.evaluate("innerWidth") == width
    scroll = page.evaluate("document.documentElement.scrollWidth")
    assert scroll <= width, f"{stage}: the page is {scroll} px wide on a {width} px screen"
    assert page.evaluate(OVERFLOW_JS) == [], f"{stage}: elements past the right edge"
    if width < 500:
        lines = page.eval_on_selector("#ask .row", ROW_LINES_JS)
        assert lines > 1, f"{stage}: the Search / Rounds / review row does not wrap"


def planned_tasks(server, job_id: str) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    client = server.client()
    with client.stream("GET", f"/tasks/{job_id}/events") as response:
        messages = read_events(response, until=lambda m: m.event == "todo_list")
    assert messages[-1].event == "todo_list", [m.event for m in messages]
    return list(messages[-1].data["data"]["tasks"])


@pytest.mark.parametrize("width", [390, 1280])
def test_page_fits_the_screen_and_shows_the_plan_first(serve: Serve, browser_page, width: int) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    errors: list[str] = []
    page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_viewport_size({"width": width, "height": 844})
    gate = threading.Event()
    server = serve(
        model=ScriptedModel({"plan": json.dumps(PLAN)}), search=gated_search(gate), relevance_threshold=100
    )
    try:
        page.goto(server.url + "/")
        page.wait_for_selector("#history li")
        assert_fits(page, width, "before")
        page.fill("#question", LONG_QUESTION)
        page.select_option("#backend", "local")
        page.click("#submit")
        page.wait_for_selector("#todo li[data-status]", timeout=30_000)
        assert_fits(page, width, "during")
        job_id = server.client().get("/tasks").json()["jobs"][0]["id"]
        plan = planned_tasks(server, job_id)
        assert any(task["query"] not in task["title"] for task in plan), "queries differ from titles"
        shown = page.eval_on_selector_all("#todo li", "els => els.map(e => e.innerText)")
        assert len(shown) == len(plan) and all(
            task["title"] in row and task["query"] in row for task, row in zip(plan, shown, strict=True)
        ), (plan, shown)
        assert page.query_selector("#report article.report") is None, "the plan shows before the report"
    finally:
        gate.set()
    page.wait_for_selector("#report article.report h2", timeout=60_000)
    page.wait_for_selector("#history li .badge.completed", timeout=10_000)
    assert_fits(page, width, "after")
    assert errors == [], "the page logs no console errors"


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


def test_the_page_sends_report_type_and_excluded_domains_and_asks_followups(  # type: ignore[no-untyped-def]
    serve: Serve, browser_page
) -> None:
    """Issue 36 on the page: the report type and the domains never to read go with the request;
    under the finished report a follow-up is answered with the number the report gives its source."""
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    clock = hit(
        "https://clocks.example.org/orloj",
        "Prague astronomical clock",
        "The Prague astronomical clock was built in 1410 by the clockmaker Mikuláš of Kadaň.",
    )
    server = serve(model=ScriptedModel(), search=StaticSearch(default=[clock]), fetch_full_page=False)
    page.goto(server.url + "/")
    page.fill("#question", TOPIC)
    page.select_option("#report-type", "brief")
    page.fill("#exclude", "example.net, ads.example.com")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/tasks")) as sent:
        page.click("#submit")
    overrides = json.loads(sent.value.post_data or "{}")["overrides"]
    assert overrides["report_type"] == "brief"
    assert overrides["search_exclude_domains"] == "example.net,ads.example.com"
    page.wait_for_selector("#report article.report h2", timeout=60_000)
    client = server.client()
    job = client.get("/tasks").json()["jobs"][0]
    assert job["status"] == "completed", job
    page.wait_for_selector("#followup-box:not([hidden])", timeout=10_000)
    page.fill("#followup-question", "Who built it?")
    page.click("#followup-ask")
    page.wait_for_selector("#followups li.followup .answer", timeout=30_000)
    answer = page.inner_text("#followups li.followup .answer")
    numbers = page.eval_on_selector_all("#report li[id^='ref-']", "els => els.map(e => e.id.slice(4))")
    assert answer.startswith("Mikuláš of Kadaň [") and answer.rstrip("]").rsplit("[", 1)[1] in numbers
    assert [f["question"] for f in client.get(f"/tasks/{job['id']}/followups").json()] == ["Who built it?"]
    assert errors == []
