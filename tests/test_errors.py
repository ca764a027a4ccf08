"""Error kinds survive the event stream: each class has its own code, an ``error`` event carries it,
and ``research()`` raises that class again."""

from __future__ import annotations

import importlib
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


OUTSIDE_ERRORS_PY = ("deepresearch.notes", "deepresearch.search.http", "deepresearch.search.ratelimit")
"""Modules that define error classes of their own, beside deepresearch.errors."""


def _ours(cls: type[DeepResearchError]) -> list[type[DeepResearchError]]:
    below = [c for sub in cls.__subclasses__() for c in _ours(sub)]
    return [cls, *below] if cls.__module__.startswith("deepresearch.") else below


def test_every_error_class_has_its_own_code() -> None:
    for module in OUTSIDE_ERRORS_PY:
        importlib.import_module(module)
    ours = _ours(DeepResearchError)
    assert [c.__name__ for c in ours[1:] if c.code == DeepResearchError.code] == [], "no code but 'internal'"
    declared = [c.code for c in ours if "code" in vars(c)]
    assert len(declared) == len(set(declared)) >= 17
    classes = error_classes()
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
