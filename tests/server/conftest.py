"""Fixtures for the service tests: an app factory bound to an isolated home, served over real HTTP."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from deepresearch.llm.base import ChatModel
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.base import SearchBackend
from deepresearch.server import ServerOptions, create_app
from deepresearch.settings import Settings

from .helpers import LiveServer, static_search

Serve = Callable[..., LiveServer]


@pytest.fixture(autouse=True)
def _no_service_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("API_TOKEN", "CORS_ORIGINS", "MAX_CONCURRENT_JOBS", "MAX_BODY_BYTES", "MAX_QUESTION_CHARS"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def serve(home: Path) -> Iterator[Serve]:
    """``serve(model=..., search=..., options=..., **settings)`` → a started :class:`LiveServer`."""
    with ExitStack() as stack:

        def start(
            *,
            model: ChatModel | None = None,
            search: SearchBackend | None = None,
            options: ServerOptions | None = None,
            **overrides: Any,
        ) -> LiveServer:
            # the scripted model stands in for one that plans (MODEL_PLANS), as in tests/conftest.py
            settings = Settings.load({"deepresearch_home": home, "model_plans": True, **overrides})
            app = create_app(
                settings,
                model=model or ScriptedModel(),
                search=search or static_search(),
                options=options or ServerOptions(heartbeat_seconds=0.2),
            )
            return stack.enter_context(LiveServer(app))

        yield start
