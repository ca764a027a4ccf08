"""Fixtures for the search tests: a replay server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.search.replay import ReplayServer


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    server = ReplayServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
