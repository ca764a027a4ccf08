"""Plan review through the job API over real HTTP: a job asked to ``review_plan`` stops at
``awaiting_review`` with its plan (before any search), and ``POST /tasks/{id}/plan`` accepts,
edits or drops tasks; the wait survives a server restart (the checkpoint holds the interrupt)."""

from __future__ import annotations

from typing import Any

import httpx

from deepresearch.graph.review import DROPPED
from deepresearch.search.testing import StaticSearch

from .conftest import Serve
from .helpers import TOPIC, corpus_search, read_events, wait_job

EDITED = "Prague Orloj construction year"
ONE_ROUND = {"max_web_research_loops": 1}


def submit(client: httpx.Client) -> dict[str, Any]:
    created = client.post("/tasks", json={"topic": TOPIC, "review_plan": True, "overrides": ONE_ROUND})
    assert created.status_code == 202, created.text
    return wait_job(client, created.json()["id"], ("awaiting_review", "completed", "failed"))


def finished(client: httpx.Client, job_id: str) -> dict[str, Any]:
    done = wait_job(client, job_id, ("completed", "failed", "cancelled"))
    assert done["status"] == "completed", done["error"]
    return done


def test_a_job_waits_with_its_plan_then_accepting_it_researches_every_task(serve: Serve) -> None:
    search = StaticSearch(default=corpus_search)
    with serve(search=search).client() as client:
        waiting = submit(client)
        assert waiting["status"] == "awaiting_review"
        assert search.queries == [], "nothing is searched before the plan is reviewed"
        plan = waiting["plan"]
        assert len(plan) >= 2 and all(t["title"] and t["query"] for t in plan)
        with client.stream("GET", waiting["events_url"]) as response:
            shown = read_events(response, until=lambda m: m.data.get("step") == "awaiting_review")[-1]
        assert shown.event == "status" and shown.data["data"]["tasks"] == plan
        accepted = client.post(f"/tasks/{waiting['id']}/plan", json={"accept": True})
        assert accepted.status_code == 200 and accepted.json()["status"] == "queued"
        done = finished(client, waiting["id"])
    assert done["plan"] is None
    assert all(t["skip_reason"] != DROPPED for t in done["result"]["todo_items"])
    assert {t["query"] for t in plan} <= set(done["result"]["queries_run"])


def test_edited_and_dropped_tasks_shape_the_job(serve: Serve) -> None:
    with serve().client() as client:
        waiting = submit(client)
        first, *others = waiting["plan"]
        body = {"tasks": [{"id": first["id"], "query": EDITED, "title": "Construction"}]}
        assert client.post(f"/tasks/{waiting['id']}/plan", json=body).status_code == 200
        done = finished(client, waiting["id"])
    tasks = {t["id"]: t for t in done["result"]["todo_items"]}
    assert tasks[first["id"]]["title"] == "Construction" and EDITED in done["result"]["queries_run"]
    assert all(tasks[t["id"]]["skip_reason"] == DROPPED for t in others)
    assert not {t["query"] for t in others} & set(done["result"]["queries_run"])
    assert DROPPED in done["report_markdown"]


def test_a_bad_plan_is_422_and_a_job_not_waiting_is_409(serve: Serve) -> None:
    with serve().client() as client:
        waiting = submit(client)
        url = f"/tasks/{waiting['id']}/plan"
        bads: list[dict[str, object]] = [
            {"tasks": [{"id": 99}]},
            {"tasks": []},
            {},
            {"accept": True, "extra": 1},
        ]
        for bad in bads:
            answer = client.post(url, json=bad)
            assert answer.status_code == 422, (bad, answer.text)
        assert client.get(f"/tasks/{waiting['id']}").json()["status"] == "awaiting_review"
        client.post(url, json={"accept": True})
        finished(client, waiting["id"])
        again = client.post(url, json={"accept": True})
        plain = client.post("/tasks", json={"topic": TOPIC, "overrides": ONE_ROUND}).json()
        finished(client, plain["id"])
        never = client.post(f"/tasks/{plain['id']}/plan", json={"accept": True})
        missing = client.post("/tasks/nope/plan", json={"accept": True})
    assert again.status_code == 409 and "not awaiting plan review" in again.json()["detail"]
    assert never.status_code == 409 and missing.status_code == 404


def test_a_job_awaiting_review_can_be_cancelled(serve: Serve) -> None:
    with serve().client() as client:
        waiting = submit(client)
        cancelled = client.delete(f"/tasks/{waiting['id']}").json()
    assert cancelled["status"] == "cancelled"


def test_the_wait_survives_a_restart_and_the_job_resumes_from_its_checkpoint(serve: Serve) -> None:
    first_search = StaticSearch(default=corpus_search)
    first = serve(search=first_search)
    with first.client() as client:
        waiting = submit(client)
    first.__exit__(None, None, None)
    search = StaticSearch(default=corpus_search)
    with serve(search=search).client() as client:
        again = client.get(f"/tasks/{waiting['id']}").json()
        assert again["status"] == "awaiting_review" and again["plan"] == waiting["plan"]
        keep = waiting["plan"][0]
        body = {"tasks": [{"id": keep["id"], "query": EDITED}]}
        assert client.post(f"/tasks/{waiting['id']}/plan", json=body).status_code == 200
        done = finished(client, waiting["id"])
    assert first_search.queries == [] and search.queries[0] == EDITED
    assert done["result"]["run_dir"] and done["result"]["question"] == TOPIC
    kept = [t for t in done["result"]["todo_items"] if t["skip_reason"] != DROPPED]
    assert [t["id"] for t in kept] == [keep["id"]]
