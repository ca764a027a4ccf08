"""Renderers load nothing: a report whose quoted page text holds images and links to a listener on
127.0.0.1 is rendered as HTML, as PDF by WeasyPrint and in headless Chromium, and the listener hears
no request. Links keep an ``href`` only to the report's anchors and the pages the run read."""

from __future__ import annotations

import http.server
import json
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch import research
from deepresearch.export import render
from deepresearch.export.html import report_html
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.testing import StaticSearch, hit
from deepresearch.settings import Settings

CHROMIUM = Path("/usr/bin/chromium")


class _Ear(http.server.BaseHTTPRequestHandler):
    heard: list[str] = []

    def do_GET(self) -> None:
        self.heard.append(self.path)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def listener() -> Iterator[tuple[str, list[str]]]:
    heard: list[str] = []
    handler = type("Ear", (_Ear,), {"heard": heard})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", heard
    finally:
        server.shutdown()
        server.server_close()


def _hostile(settings: Settings, origin: str) -> ResearchResult:
    text = (
        f"The Orloj was built in 1410. ![x]({origin}/x.png) ![y](/research/stream?topic=spam) "
        f"See [more]({origin}/more) and <img src='{origin}/raw.png'>."
    )
    search = StaticSearch(default=[hit("https://example.org/orloj", "Orloj", text)])
    draft = json.dumps(
        {
            "answer": "1410",
            "background": f"Built in 1410 ![b]({origin}/bg.png) [1].",
            "insights": [{"text": "Built in 1410 [1].", "sources": [1]}],
            "risks": [],
        }
    )
    return research(
        "When was the Orloj built?",
        settings=settings,
        model=ScriptedModel({"report": draft}),
        search=search,
        max_web_research_loops=1,
        summary_mode="model",
        llm_provider="custom",
    )


def test_html_has_no_image_and_links_only_to_what_was_read(
    settings: Settings, listener: tuple[str, list[str]]
) -> None:
    origin, _ = listener
    html = report_html(_hostile(settings, origin))

    assert "<img" not in html
    assert f'href="{origin}' not in html and 'href="/research' not in html
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert 'href="https://example.org/orloj"' in html


def test_weasyprint_fetches_nothing(settings: Settings, listener: tuple[str, list[str]]) -> None:
    pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    origin, heard = listener
    result = _hostile(settings, origin)
    result.report_markdown += f"\n\n![late]({origin}/late.png)\n<img src='{origin}/late2.png'>\n"

    pdf = render(result, "pdf")

    assert pdf.startswith(b"%PDF")
    assert heard == []


@pytest.mark.browser
def test_chromium_showing_the_export_requests_nothing(
    settings: Settings, listener: tuple[str, list[str]], tmp_path: Path
) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
    if not CHROMIUM.exists() and not shutil.which("chromium"):
        pytest.skip("no Chromium: apt-get install -y chromium")
    origin, heard = listener
    page_file = tmp_path / "report.html"
    page_file.write_text(report_html(_hostile(settings, origin)), encoding="utf-8")
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
        try:
            page = browser.new_page()
            page.goto(page_file.as_uri())
            page.wait_for_load_state("networkidle")
        finally:
            browser.close()

    assert heard == []


def test_the_pdf_fetcher_refuses_even_html_that_asks_for_an_image(listener: tuple[str, list[str]]) -> None:
    weasyprint = pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    from deepresearch.export.pdf import _refusing_fetcher

    origin, heard = listener
    html = f"<p>x</p><img src='{origin}/direct.png'><link rel=stylesheet href='{origin}/s.css'>"

    weasyprint.HTML(string=html, url_fetcher=_refusing_fetcher(weasyprint)).write_pdf()

    assert heard == []
