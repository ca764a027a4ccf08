"""HTTP search backends close the client they made, never one they were given."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from deepresearch.search.http import ClientOwner
from deepresearch.search.perplexity import PerplexitySearch
from deepresearch.search.searxng import SearxngSearch
from deepresearch.search.wikipedia import WikipediaSearch

Make = Callable[[httpx.Client | None], ClientOwner]


@pytest.mark.parametrize(
    "make",
    [
        lambda client: PerplexitySearch("pplx-test", client=client),
        lambda client: SearxngSearch("http://127.0.0.1:8888", client=client),
        lambda client: WikipediaSearch(client=client),
    ],
    ids=["perplexity", "searxng", "wikipedia"],
)
def test_a_backend_closes_its_own_client_and_leaves_a_given_one_open(make: Make) -> None:
    given = httpx.Client()
    make(given).close()
    assert not given.is_closed
    given.close()

    own = make(None)
    own.close()
    assert own._client.is_closed
