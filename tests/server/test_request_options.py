"""Per-request options over real HTTP: domain filters (which may only narrow what the server reads)
and the report type."""

from __future__ import annotations

from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch

from .conftest import Serve
from .helpers import TOPIC

HITS = [
    SearchHit(url="https://www.example.org/clock", title="Clock A", content="The clock was built in 1410."),
    SearchHit(url="https://clocks.example.net/b", title="Clock B", content="The Orloj dates from 1410."),
]


def test_a_request_excludes_a_domain_and_cannot_lift_the_servers(serve: Serve) -> None:
    server = serve(
        search=StaticSearch(default=HITS), search_exclude_domains="example.net", fetch_full_page=False
    )
    with server.client() as client:
        both = client.post(
            "/research",
            json={"topic": TOPIC, "max_web_research_loops": 1, "search_exclude_domains": "example.org"},
        )
        lifted = client.post(
            "/research", json={"topic": TOPIC, "max_web_research_loops": 1, "search_exclude_domains": ""}
        )
        widened = client.post(
            "/tasks", json={"topic": TOPIC, "overrides": {"search_include_domains": "nowhere..bad"}}
        )
    assert both.status_code == 502, both.text
    assert "SEARCH_EXCLUDE_DOMAINS leave out" in both.json()["detail"]
    assert lifted.status_code == 200, lifted.text
    assert [s["url"] for s in lifted.json()["sources"]] == ["https://www.example.org/clock"]
    assert widened.status_code == 422 and "not a domain" in widened.json()["detail"]


def test_the_schema_offers_the_domain_lists(serve: Serve) -> None:
    with serve().client() as client:
        schema = client.get("/openapi.json").json()
    text = str(schema)
    assert "search_include_domains" in text and "search_exclude_domains" in text


def test_a_request_chooses_the_report_type(serve: Serve) -> None:
    with serve().client() as client:
        resources = client.post(
            "/research", json={"topic": TOPIC, "max_web_research_loops": 1, "report_type": "resources"}
        )
        queued = client.post("/tasks", json={"topic": TOPIC, "overrides": {"report_type": "brief"}})
        wrong = client.post("/research", json={"topic": TOPIC, "report_type": "long"})
    assert resources.status_code == 200, resources.text
    report = resources.json()["report_markdown"]
    evidence = report.split("## Evidence and data", 1)[1].split("\n## ", 1)[0]
    assert "- **" in evidence and "## References" in report
    assert queued.status_code in (200, 201, 202), queued.text
    assert wrong.status_code == 422 and "report_type" in wrong.text.lower()
