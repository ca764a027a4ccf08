"""Error kinds survive the event stream: each class has its own code, an ``error`` event carries it,
and ``research()`` raises that class again."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from deepresearch import research, research_stream
from deepresearch.errors import (
    ConfigurationError,
    DeepResearchError,
    ModelNotAvailableError,
    error_classes,
    error_from_code,
)
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .conftest import QUESTION


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_every_error_class_has_its_own_code() -> None:
    classes = error_classes()
    assert len(classes) == len({cls.code for cls in classes.values()}) >= 15
    for code, cls in classes.items():
        assert type(error_from_code(code, "x")) is cls
    assert type(error_from_code("no-such-code", "x")) is DeepResearchError


def test_research_raises_the_configuration_error_itself(tmp_path: Path, local_search: LocalSearch) -> None:
    settings = Settings.load(
        {"deepresearch_home": tmp_path / "home", "llm_provider": "custom", "llm_model_id": "m"}
    )
    events = list(research_stream(QUESTION, settings=settings, search=local_search))
    with pytest.raises(ConfigurationError, match="LLM_BASE_URL") as caught:
        research(QUESTION, settings=settings, search=local_search)
    assert events[-1].type == "error" and events[-1].data["code"] == "configuration"
    assert type(caught.value) is ConfigurationError
    assert caught.value.run_id and (tmp_path / "home" / "runs" / caught.value.run_id).is_dir()


def test_research_raises_model_not_available_for_an_unreachable_server(
    tmp_path: Path, local_search: LocalSearch
) -> None:
    settings = Settings.load(
        {
            "deepresearch_home": tmp_path / "home",
            "llm_provider": "custom",
            "llm_base_url": f"http://127.0.0.1:{_closed_port()}/v1",
            "llm_model_id": "m",
            "llm_max_retries": 0,
        }
    )
    with pytest.raises(ModelNotAvailableError, match="Cannot reach the model server"):
        research(QUESTION, settings=settings, search=local_search)
