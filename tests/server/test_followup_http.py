"""Follow-ups over the job API, on a real server: answered from the job's own sources with the
report's numbers, or not; kept across requests; refused for jobs without a report."""

from __future__ import annotations

import re

from deepresearch.search.testing import StaticSearch, hit

from .conftest import Serve
from .helpers import TOPIC, wait_job

CLOCK = hit(
    "https://clocks.example.org/orloj",
    "Prague astronomical clock",
    "The Prague astronomical clock was built in 1410 by the clockmaker Mikuláš of Kadaň.",
)
RIVER = hit("https://rivers.example.org/vltava", "Vltava", "The Vltava is the longest river in Czechia.")


def test_followups_on_a_completed_job(serve: Serve) -> None:
    server = serve(search=StaticSearch(default=[CLOCK, RIVER]), fetch_full_page=False)
    with server.client() as client:
        job = client.post("/tasks", json={"topic": TOPIC, "overrides": {"max_web_research_loops": 1}}).json()
        done = wait_job(client, job["id"], ("completed", "failed"))
        assert done["status"] == "completed", done
        report = client.get(f"/tasks/{job['id']}/report").text
        built = client.post(f"/tasks/{job['id']}/followups", json={"question": "Who built it?"})
        mars = client.post(f"/tasks/{job['id']}/followups", json={"question": "How far away is Mars?"})
        kept = client.get(f"/tasks/{job['id']}/followups")
        empty = client.post(f"/tasks/{job['id']}/followups", json={"question": ""})
        missing = client.post("/tasks/no-such-job/followups", json={"question": "Who built it?"})
    numbers = {int(n) for n in re.findall(r"(?m)^(\d+)\. \[", report.split("## References", 1)[1])}
    assert built.status_code == 200, built.text
    assert built.json()["answer"] == "Mikuláš of Kadaň" and built.json()["source_number"] in numbers
    assert mars.status_code == 200 and mars.json()["answered"] is False
    assert [f["question"] for f in kept.json()] == ["Who built it?", "How far away is Mars?"]
    assert empty.status_code == 422 and missing.status_code == 404


BRIDGE = hit(
    "https://bridges.example.org/charles",
    "Charles Bridge",
    "The Charles Bridge in Prague was designed by the architect Peter Parler.",
)


def _by_query(query: str) -> list:  # type: ignore[type-arg]
    return [BRIDGE] if "charles" in query.lower() else [CLOCK, RIVER]


def test_a_followup_the_job_cannot_answer_is_researched_as_a_new_round(serve: Serve) -> None:
    server = serve(search=StaticSearch(default=_by_query), fetch_full_page=False)
    with server.client() as client:
        job = client.post("/tasks", json={"topic": TOPIC, "overrides": {"max_web_research_loops": 1}}).json()
        assert wait_job(client, job["id"], ("completed", "failed"))["status"] == "completed"
        result = client.get(f"/tasks/{job['id']}/report", params={"format": "json"}).json()
        asked = {"question": "Who designed the Charles Bridge?"}
        only_own = client.post(f"/tasks/{job['id']}/followups", json={**asked, "research": False})
        researched = client.post(f"/tasks/{job['id']}/followups", json=asked)
    last = max(s["number"] for s in result["sources"])  # every source read has a number, cited or not
    assert only_own.status_code == 200 and only_own.json()["answered"] is False
    assert only_own.json()["researched"] is False
    body = researched.json()
    assert researched.status_code == 200 and body["researched"] and body["answer"] == "Peter Parler"
    assert body["source_number"] == last + 1 and [s["url"] for s in body["new_sources"]] == [BRIDGE.url]
