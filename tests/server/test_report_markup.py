"""The API's ``report_markdown`` and ``GET /tasks/{id}/report`` (``format=md``) hold no live image,
link or HTML from search results, whatever their titles, text and URLs: the real app over HTTP."""

from __future__ import annotations

import httpx

from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch, hit

from ..export.test_inert_markdown import HOST, HOSTILE, IMAGE, QUESTION, live_parts
from .conftest import Serve
from .helpers import wait_job


def hostile_hits(query: str) -> list[SearchHit]:
    return [
        hit("https://example.net/page", f"Zorblatt Tower <img src=http://{HOST}/t.png>", HOSTILE),
        hit(f"https://example.org/z b) {IMAGE} (", "Zorblatt facts", HOSTILE),
    ]


def test_report_markdown_and_format_md_hold_nothing_live(serve: Serve) -> None:
    client: httpx.Client = serve(search=StaticSearch(default=hostile_hits)).client()
    job = client.post("/tasks", json={"topic": QUESTION, "overrides": {"max_web_research_loops": 1}}).json()
    assert wait_job(client, job["id"], ("completed", "failed"))["status"] == "completed"

    markdown = client.get(f"/tasks/{job['id']}/report").text
    result = client.get(f"/tasks/{job['id']}/report", params={"format": "json"}).json()

    assert "Quennel Dapp" in markdown
    assert live_parts(markdown) == []
    assert live_parts(result["report_markdown"]) == []
    references = markdown.split("## References", 1)[1]
    assert "example.org" in references and "Zorblatt facts" in references
