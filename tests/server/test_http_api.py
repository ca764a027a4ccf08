"""The HTTP surface over real HTTP: health, readiness, OpenAPI, auth, CORS, body and input limits."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch import __version__
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.testing import StaticSearch
from deepresearch.server import create_app
from deepresearch.server.openapi import service_openapi
from deepresearch.settings import Settings

from .conftest import Serve
from .helpers import TOPIC, read_events, static_search, wait_job

TOKEN = "tok-0123456789abcdef"


def test_healthz_and_readyz(serve: Serve) -> None:
    with serve().client() as client:
        assert client.get("/healthz").json() == {"status": "ok", "version": __version__}
        ready = client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["ready"] is True
    names = [c["name"] for c in body["checks"]]
    assert names[:2] == ["model", "search"] and "workspaces" in names


def test_readyz_is_503_with_fixes_when_a_check_fails(serve: Serve) -> None:
    server = serve(index_path="/nonexistent/index.sqlite")
    server.app.state.service.search = None
    with server.client() as client:
        response = client.get("/readyz")
    assert response.status_code == 503
    failing = [c for c in response.json()["checks"] if not c["ok"]]
    assert failing and all(c["fix"] for c in failing)


def test_openapi_lists_every_route_with_its_bodies(serve: Serve) -> None:
    with serve().client() as client:
        schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    assert set(paths) >= {
        "/healthz",
        "/readyz",
        "/research",
        "/research/stream",
        "/tasks",
        "/tasks/{job_id}",
        "/tasks/{job_id}/events",
    }
    assert set(paths["/research/stream"]) == {"get", "post"}
    assert set(paths["/tasks/{job_id}"]) == {"get", "delete"}
    streams = [("/research/stream", "get"), ("/research/stream", "post"), ("/tasks/{job_id}/events", "get")]
    for path, method in streams:
        assert "text/event-stream" in paths[path][method]["responses"]["200"]["content"]
    research = paths["/research"]["post"]
    ok = research["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"].endswith("/ResearchResult")
    assert {"413", "422"} <= set(research["responses"])
    job_view = schema["components"]["schemas"]["JobView"]["properties"]
    assert {"status", "progress", "task_counts", "timings", "report_markdown", "error"} <= set(job_view)
    assert "securitySchemes" not in schema.get("components", {})
    assert "401" not in paths["/tasks"]["get"]["responses"]


def test_token_is_required_everywhere_but_healthz(serve: Serve) -> None:
    server = serve(api_token=TOKEN)
    with server.client() as anon, server.client(headers={"Authorization": f"Bearer {TOKEN}"}) as authed:
        assert anon.get("/healthz").status_code == 200
        assert anon.get("/").status_code == 200
        icon = anon.get("/favicon.ico")
        assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
        assert icon.text.startswith("<svg") and icon.text.endswith("</svg>")
        for method, path in [
            ("GET", "/readyz"),
            ("GET", "/tasks"),
            ("GET", "/tasks/x"),
            ("DELETE", "/tasks/x"),
            ("GET", "/tasks/x/events"),
            ("GET", "/openapi.json"),
            ("GET", "/docs"),
            ("GET", f"/research/stream?topic={TOPIC}"),
        ]:
            response = anon.request(method, path)
            assert response.status_code == 401, path
            assert response.headers["www-authenticate"] == "Bearer"
            assert TOKEN not in response.text
        assert anon.post("/research", json={"topic": TOPIC}).status_code == 401
        assert anon.post("/tasks", json={"topic": TOPIC}).status_code == 401
        wrong = anon.get("/tasks", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        assert authed.get("/readyz").status_code == 200
        assert authed.get("/tasks").status_code == 200
        schema = authed.get("/openapi.json").json()
        assert TOKEN not in authed.get("/readyz").text
    assert "HTTPBearer" in schema["components"]["securitySchemes"]
    assert schema["paths"]["/tasks"]["post"]["security"] == [{"HTTPBearer": []}]
    assert "401" in schema["paths"]["/tasks/{job_id}"]["get"]["responses"]
    assert "security" not in schema["paths"]["/healthz"]["get"]


def test_every_routing_error_has_a_code_and_allow_names_every_method(serve: Serve) -> None:
    with serve().client() as client:
        wrong_method = client.put("/tasks")
        no_route = client.get("/no/such/route")
        not_json = client.post("/tasks", content=b"{not json", headers={"content-type": "application/json"})

    assert wrong_method.status_code == 405 and wrong_method.json()["code"] == "method_not_allowed"
    assert {"GET", "POST"} <= set(wrong_method.headers["allow"].split(", "))
    assert no_route.status_code == 404 and no_route.json()["code"] == "not_found"
    assert not_json.status_code in (400, 422) and not_json.json()["code"] == "invalid_request"


def test_no_token_means_open(serve: Serve) -> None:
    with serve().client() as client:
        assert client.get("/tasks").status_code == 200


def test_body_over_the_limit_is_413(serve: Serve) -> None:
    with serve(max_body_bytes=1024).client() as client:
        big = {"topic": TOPIC, "overrides": {"search_api": "x" * 2000}}
        assert client.post("/tasks", json=big).status_code == 413
        too_big = client.post("/research", json={"topic": "y" * 3000})
        assert too_big.status_code == 413 and too_big.json()["code"] == "payload_too_large"

        def chunks() -> Iterator[bytes]:
            yield b'{"topic": "'
            yield b"z" * 4000
            yield b'"}'

        streamed = client.post("/tasks", content=chunks(), headers={"Content-Type": "application/json"})
        assert streamed.status_code == 413
        assert "MAX_BODY_BYTES" in streamed.json()["detail"]
        assert client.post("/tasks", json={"topic": TOPIC}).status_code == 202


@pytest.mark.parametrize(
    ("path", "body", "needle"),
    [
        ("/research", {"topic": TOPIC, "no_such_setting": 1}, "unknown setting"),
        ("/research/stream", {"topic": TOPIC, "no_such_setting": 1}, "unknown setting"),
        ("/tasks", {"topic": TOPIC, "overrides": {"no_such_setting": 1}}, "unknown setting"),
        ("/tasks", {"topic": TOPIC, "surprise": True}, "surprise"),
        ("/research", {"topic": TOPIC, "llm_api_key": "sk-x"}, "only be set on the server"),
        ("/tasks", {"topic": TOPIC, "overrides": {"deepresearch_home": "/"}}, "only be set on the server"),
        ("/research", {"topic": TOPIC, "relevance_threshold": 500}, "RELEVANCE_THRESHOLD"),
        ("/research", {"topic": TOPIC, "max_web_research_loops": 0}, "max_web_research_loops"),
        ("/research", {"topic": "   "}, "topic is empty"),
        ("/tasks", {"topic": ""}, "topic"),
        ("/tasks", {"topic": "q" * 60}, "the limit is 40"),
        ("/tasks", {"topic": "  " + "q" * 39}, "the limit is 40"),
        ("/tasks", {"topic": TOPIC, "dry_run": 0}, "dry_run"),
        ("/tasks", {"topic": TOPIC, "overrides": {"max_results_per_query": "3"}}, "max_results_per_query"),
        ("/research", {"topic": TOPIC, "fetch_full_page": 0}, "fetch_full_page"),
        ("/research", {}, "topic"),
    ],
)
def test_bad_bodies_are_422(serve: Serve, path: str, body: dict[str, object], needle: str) -> None:
    with serve(max_question_chars=40).client() as client:
        response = client.post(path, json=body)
    assert response.status_code == 422, response.text
    assert needle in response.text


def test_unknown_query_override_on_get_stream_is_422(serve: Serve) -> None:
    with serve().client() as client:
        response = client.get("/research/stream", params={"topic": TOPIC, "bogus": "1"})
    assert response.status_code == 422
    assert "bogus" in response.json()["detail"]


def test_overrides_reach_the_run(serve: Serve) -> None:
    with serve().client() as client:
        result = client.post("/research", json={"topic": TOPIC, "max_web_research_loops": 1}).json()
    assert result["rounds"] == 1
    assert result["report_markdown"].startswith("#")
    assert result["todo_items"] and result["sources"]


def test_cors_lists_origins_and_never_pairs_star_with_credentials(serve: Serve) -> None:
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST"}
    with serve(cors_origins="https://app.example").client() as client:
        ok = client.options("/tasks", headers=preflight)
        other = client.options("/tasks", headers={**preflight, "Origin": "https://evil.example"})
    assert ok.headers["access-control-allow-origin"] == "https://app.example"
    assert ok.headers["access-control-allow-credentials"] == "true"
    assert "access-control-allow-origin" not in other.headers


def test_cors_star_without_credentials(serve: Serve) -> None:
    preflight = {"Origin": "https://any.example", "Access-Control-Request-Method": "GET"}
    with serve(cors_origins="*", api_token="cors-token-123456").client() as client:
        response = client.options("/tasks", headers=preflight)
    assert response.headers["access-control-allow-origin"] == "*"
    assert "access-control-allow-credentials" not in response.headers


def test_secrets_never_reach_responses(serve: Serve) -> None:
    secret = "sk-live-SECRET-0123456789"

    def leaky(query: str) -> list[object]:
        raise RuntimeError(f"upstream rejected key {secret} for {query}")

    server = serve(llm_api_key=secret, search=StaticSearch(default=leaky))  # type: ignore[arg-type]
    with server.client() as client:
        with client.stream("POST", "/research/stream", json={"topic": TOPIC}) as response:
            events = read_events(response)
        job = client.post("/tasks", json={"topic": TOPIC}).json()
        texts = [client.get("/readyz").text, client.get("/openapi.json").text]
        finished = wait_job(client, job["id"], ("failed",))
        with client.stream("GET", f"/tasks/{job['id']}/events") as response:
            job_events = read_events(response)
    assert events[-1].event == "error", "a run whose every search failed ends in an error"
    assert "upstream rejected key" in events[-1].data["data"]["message"]
    everything = [m.data_lines[0] for m in events + job_events] + texts + [str(finished)]
    assert [t for t in everything if secret in t] == []


def test_in_team_mode_every_operation_declares_the_503_of_an_outage(home: Path) -> None:
    """Team mode answers 503 ``unavailable`` with Retry-After on any route while PostgreSQL or
    Redis is down (tests/cluster/test_outages.py); the schema says so, and the single-process
    service's does not."""
    local = Settings.load({"deepresearch_home": home})
    app = create_app(local, model=ScriptedModel(), search=static_search())
    team = Settings.load({"deepresearch_home": home, "jobs_backend": "celery"})
    for settings, declared in ((app.state.service.settings, False), (team, True)):
        schema = service_openapi(app, settings, guarded=False)
        tasks = schema["paths"]["/tasks"]["post"]["responses"]
        assert ("503" in tasks) is declared
        if declared:
            assert tasks["503"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
            assert "Retry-After" in tasks["503"]["headers"]
            assert "Readiness" in str(schema["paths"]["/readyz"]["get"]["responses"]["503"])
