"""Per-request domain filters over real HTTP: a request may narrow what is read, never widen it."""

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
