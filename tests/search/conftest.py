"""Fixtures for the search tests: a replay server on 127.0.0.1 and the live-test network gate."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.search.replay import ReplayServer, internet_available


@pytest.fixture
def replay() -> Iterator[ReplayServer]:
    server = ReplayServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def online() -> bool:
    return internet_available()


@pytest.fixture
def require_network(online: bool) -> None:
    if not online:
        pytest.skip("no network: a 2 s TCP connect to 1.1.1.1:443 failed")
