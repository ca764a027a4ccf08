"""A search backend and an export format are each added by registering one object, here in this
file: the factory builds the backend from SEARCH_API, the settings checks accept its name, the CLI
lists and uses both, the service's OpenAPI schema and web page offer both, and a job's report
downloads in the new format. Nothing outside this file names them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from deepresearch import research
from deepresearch.cli.main import app
from deepresearch.errors import ConfigurationError
from deepresearch.export import ExportFormat, register_format
from deepresearch.export.registry import FORMATS
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.search.base import SearchBackend
from deepresearch.search.registry import BACKENDS, BackendSpec, Notice, parse_order
from deepresearch.search.testing import StaticSearch, hit
from deepresearch.server import ServerOptions, create_app
from deepresearch.settings import Settings

from .server.helpers import TOPIC, LiveServer, static_search, wait_job

CARD = hit(
    "https://cards.example/ferry-7",
    "Ferry timetable card 7",
    "The night ferry to Tollmere leaves the north quay at 23:40 and docks at dawn.",
)


def _card_box(settings: Settings, notice: Notice | None) -> SearchBackend:
    return StaticSearch(default=[CARD])


CARD_BOX = BackendSpec("cardbox", "Card box", _card_box, summary="a box of index cards")


def _headings(result: ResearchResult) -> bytes:
    lines = [line for line in result.report_markdown.splitlines() if line.startswith("#")]
    return "\n".join(lines).encode("utf-8")


HEADINGS = ExportFormat("headings", "Headings only", "text/plain; charset=utf-8", (".heads",), _headings)


@pytest.fixture
def card_box() -> Iterator[BackendSpec]:
    with BACKENDS.registered(CARD_BOX) as spec:
        yield spec


@pytest.fixture
def headings() -> Iterator[ExportFormat]:
    with FORMATS.registered(HEADINGS) as fmt:
        yield fmt


def test_a_registered_backend_is_what_search_api_builds(settings: Settings, card_box: BackendSpec) -> None:
    result = research(
        "When does the night ferry leave?",
        settings=settings,
        model=ScriptedModel(),
        search_api="cardbox",
        max_web_research_loops=1,
    )
    assert [source.url for source in result.sources] == [CARD.url]
    assert parse_order("cardbox, wikipedia") == ["cardbox", "wikipedia"]


def test_a_backend_that_is_not_registered_is_named_with_the_choices(settings: Settings) -> None:
    with pytest.raises(ConfigurationError, match="cardbox") as caught:
        research(
            "When does the night ferry leave?", settings=settings, model=ScriptedModel(), search_api="cardbox"
        )
    assert "local" in str(caught.value) and "wikipedia" in str(caught.value)


def test_registering_a_format_is_enough_for_the_cli(
    settings: Settings, card_box: BackendSpec, headings: ExportFormat, tmp_path: Path
) -> None:
    listing = CliRunner().invoke(app, ["backends"]).stdout
    assert "cardbox" in listing and "a box of index cards" in listing
    assert "headings" in listing and ".heads" in listing
    result = research(
        "When does the night ferry leave?", settings=settings, model=ScriptedModel(), search_api="cardbox"
    )
    assert register_format(HEADINGS) is HEADINGS, "registering the same object again is harmless"
    from deepresearch.export import render, resolve_format

    chosen = resolve_format(None, tmp_path / "ferry.heads")
    assert chosen is HEADINGS
    assert render(result, chosen).decode().splitlines()[0] == "# When does the night ferry leave?"


def test_the_service_offers_a_registered_backend_and_format(
    home: Path, card_box: BackendSpec, headings: ExportFormat
) -> None:
    settings = Settings.load({"deepresearch_home": home, "request_search_apis": "cardbox"})
    built = create_app(settings, model=ScriptedModel(), search=static_search(), options=ServerOptions())
    with LiveServer(built) as server:
        client = server.client()
        page = client.get("/").text
        assert '<option value="cardbox">Card box</option>' in page
        assert '<option value="headings">Headings only</option>' in page
        schema = client.get("/openapi.json").json()
        assert (
            "cardbox"
            in schema["components"]["schemas"]["ResearchRequest"]["properties"]["search_api"]["anyOf"][0][
                "enum"
            ]
        )
        [param] = [
            p for p in schema["paths"]["/tasks/{job_id}/report"]["get"]["parameters"] if p["name"] == "format"
        ]
        assert "headings" in param["schema"]["enum"]
        job_id = _completed_job(client)
        report = client.get(f"/tasks/{job_id}/report", params={"format": "headings"})
        assert report.headers["content-type"].startswith("text/plain")
        assert (
            report.text.startswith(f"# {TOPIC}")
            and 'filename="report.heads"' in report.headers["content-disposition"]
        )


def test_a_service_whose_settings_name_no_backend_stops_at_start(home: Path) -> None:
    settings = Settings.load({"deepresearch_home": home, "request_search_apis": "local,cardbox"})
    with pytest.raises(ConfigurationError, match="REQUEST_SEARCH_APIS"):
        create_app(settings, model=ScriptedModel(), search=static_search())


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _completed_job(client: httpx.Client) -> str:
    job = client.post("/tasks", json={"topic": TOPIC, "overrides": {"max_web_research_loops": 1}}).json()
    assert wait_job(client, job["id"], ("completed", "failed"))["status"] == "completed"
    return str(job["id"])
