"""The job API's report in every format, the offline API docs, and a job whose searches all fail:
the real app over HTTP on 127.0.0.1."""

from __future__ import annotations

import io
import re

import httpx
import pytest

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchHit
from deepresearch.search.testing import StaticSearch

from .conftest import Serve
from .helpers import TOPIC, wait_job


def completed_job(serve: Serve, **settings: object) -> tuple[httpx.Client, str]:
    server = serve(**settings)
    client = server.client()
    job = client.post("/tasks", json={"topic": TOPIC, "overrides": {"max_web_research_loops": 1}}).json()
    assert wait_job(client, job["id"], ("completed", "failed"))["status"] == "completed"
    return client, job["id"]


def test_a_completed_job_downloads_in_every_format(serve: Serve) -> None:
    client, job_id = completed_job(serve)
    markdown = client.get(f"/tasks/{job_id}/report")
    assert markdown.status_code == 200 and markdown.text.startswith("# ")
    assert markdown.headers["content-type"].startswith("text/markdown")
    html = client.get(f"/tasks/{job_id}/report", params={"format": "html"})
    assert html.text.startswith("<!doctype html>") and 'href="#ref-1"' in html.text
    assert 'filename="report.html"' in html.headers["content-disposition"]
    data = client.get(f"/tasks/{job_id}/report", params={"format": "json"}).json()
    assert data["report_markdown"] == markdown.text
    docx = pytest.importorskip("docx")
    word = client.get(f"/tasks/{job_id}/report", params={"format": "docx"})
    assert docx.Document(io.BytesIO(word.content)).paragraphs[0].text == TOPIC
    pytest.importorskip("weasyprint")
    pdf = client.get(f"/tasks/{job_id}/report", params={"format": "pdf"})
    assert pdf.headers["content-type"] == "application/pdf" and pdf.content.startswith(b"%PDF")


def test_the_fragment_is_the_article_the_page_shows(serve: Serve) -> None:
    client, job_id = completed_job(serve)
    fragment = client.get(f"/tasks/{job_id}/report", params={"format": "html", "fragment": "true"}).text
    assert fragment.startswith('<article class="report">') and "<html" not in fragment
    for target in set(re.findall(r'href="#([^"]+)"', fragment)):
        assert f'id="{target}"' in fragment


def test_no_report_for_unknown_running_or_bad_format(serve: Serve) -> None:
    client, job_id = completed_job(serve)
    assert client.get("/tasks/nope/report").status_code == 404
    assert client.get(f"/tasks/{job_id}/report", params={"format": "rtf"}).status_code == 422


def test_the_report_needs_the_token_when_the_server_has_one(serve: Serve) -> None:
    server = serve(api_token="s3cret-token-for-tests")
    assert server.client().get("/tasks/x/report").status_code == 401


def offline(query: str) -> list[SearchHit]:
    raise SearchError("[Errno -3] Temporary failure in name resolution")


def test_a_job_whose_every_search_fails_is_failed_with_the_cause(serve: Serve) -> None:
    client = serve(search=StaticSearch(default=offline)).client()
    job = client.post("/tasks", json={"topic": TOPIC}).json()
    done = wait_job(client, job["id"], ("completed", "failed"))
    assert done["status"] == "failed" and "name resolution" in done["error"]
    conflict = client.get(f"/tasks/{job['id']}/report")
    assert conflict.status_code == 409 and "failed" in conflict.json()["detail"]


def test_api_docs_load_their_assets_from_the_service(serve: Serve) -> None:
    client = serve().client()
    page = client.get("/docs").text
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets and all(a.startswith("/") for a in assets), assets
    for asset in assets:
        if asset.endswith((".js", ".css")):
            got = client.get(asset)
            assert got.status_code == 200 and len(got.content) > 10_000
    bundle = client.get("/docs/assets/swagger-ui-bundle.js").text
    assert "SwaggerUIBundle" in bundle
    assert client.get("/docs/assets/index.html").status_code == 404
