"""The web page in headless Chromium: ask, watch the TODO list complete, read the rendered report.

Needs Debian's ``chromium`` (``/usr/bin/chromium``) and the ``playwright`` package; skipped without
them. The screenshot is left in ``tests/artifacts/`` (git-ignored).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from deepresearch.llm.testing import ScriptedModel

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


def test_page_runs_a_research_and_renders_the_report(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    server = serve(model=ScriptedModel(delay=0.1), summary_mode="model")
    page.goto(server.url + "/")
    page.fill("#question", TOPIC)
    page.select_option("#backend", "local")
    page.click("#submit")

    page.wait_for_selector("#todo li[data-status]", timeout=30_000)
    page.wait_for_selector("#report h2", timeout=60_000)
    statuses = page.eval_on_selector_all("#todo li", "els => els.map(e => e.dataset.status)")
    assert statuses and all(s in ("completed", "skipped") for s in statuses), statuses
    assert page.inner_text("#report h1") == TOPIC
    assert "References" in page.inner_text("#report")
    cite = page.query_selector("#report a.cite")
    assert cite is not None and (cite.get_attribute("href") or "").startswith("#ref-")
    reference_link = page.query_selector("#report li[id^='ref-'] a")
    assert reference_link is not None
    assert (reference_link.get_attribute("href") or "").startswith("https://example.org/")
    assert page.eval_on_selector_all("#sources li", "els => els.length") > 0
    assert page.inner_text("#summaries").strip()
    assert page.is_enabled("#download")
    page.wait_for_selector("#history li .badge.completed", timeout=10_000)

    with page.expect_download() as download:
        page.click("#download")
    assert download.value.suggested_filename == "report.md"

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "server-page.png"), full_page=True)
    assert errors == []


def test_page_never_renders_html_from_the_report(serve: Serve, browser_page) -> None:  # type: ignore[no-untyped-def]
    page = browser_page
    server = serve()
    page.goto(server.url + "/")
    rendered = page.evaluate(
        "renderMarkdown('# T <img src=x onerror=alert(1)>\\n\\n[x](javascript:alert(1)) [1] **b**')"
    )
    assert "<img" not in rendered and "&lt;img" in rendered
    assert 'href="javascript' not in rendered
    assert '<a class="cite" href="#ref-1"' in rendered and "<strong>b</strong>" in rendered
