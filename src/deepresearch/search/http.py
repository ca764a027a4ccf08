"""The one place where HTTP search APIs are called and their failures mapped to our errors.

429 (and 503 with ``Retry-After``) becomes :class:`RateLimitedError`; any other failure —
connection, timeout, non-2xx status, a body that is not a JSON object — becomes
:class:`SearchError` with the engine's name, the status and the start of the body.
"""

from __future__ import annotations

from typing import Any

import httpx

from deepresearch.errors import SearchError
from deepresearch.retry import parse_retry_after
from deepresearch.search.base import SearchHit
from deepresearch.search.ratelimit import RateLimitedError

USER_AGENT = "deepresearch/0.1 (open-source research agent; python-httpx)"
DEFAULT_TIMEOUT = 20.0
BODY_PREVIEW_CHARS = 200


class SearchHTTPError(SearchError):
    """An engine answered with a non-2xx status other than a rate limit."""

    def __init__(self, message: str, *, status_code: int) -> None:
        super().__init__(message)
        self.status_code = status_code


def new_client(timeout: float = DEFAULT_TIMEOUT, headers: dict[str, str] | None = None) -> httpx.Client:
    """An httpx client with our User-Agent (Wikipedia requires one) and ``timeout``."""
    return httpx.Client(timeout=timeout, headers={"User-Agent": USER_AGENT, **(headers or {})})


class ClientOwner:
    """The httpx client of an HTTP search backend: the one it was given (whoever gave it closes
    it) or one of its own, made by :meth:`_use_client` and closed by :meth:`close`."""

    _client: httpx.Client
    _owns_client: bool

    def _use_client(
        self, client: httpx.Client | None, timeout: float, headers: dict[str, str] | None = None
    ) -> None:
        self._client = client or new_client(timeout, headers)
        self._owns_client = client is None

    def close(self) -> None:
        if self._owns_client:
            self._client.close()


def request_json(client: httpx.Client, engine: str, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
    """Send one request and return its JSON object; raise SearchError/RateLimitedError on failure."""
    try:
        response = client.request(method, url, **kwargs)
    except httpx.TimeoutException as exc:
        raise SearchError(f"{engine}: no answer from {url} in time ({exc})") from exc
    except httpx.HTTPError as exc:
        raise SearchError(f"{engine}: request to {url} failed: {exc}") from exc
    check_status(response, engine)
    return json_object(response, engine)


def check_status(response: httpx.Response, engine: str) -> None:
    """Raise for a non-2xx answer; rate-limit answers raise :class:`RateLimitedError`."""
    if response.is_success:
        return
    retry_after = parse_retry_after(response.headers.get("Retry-After"))
    detail = f"{engine}: HTTP {response.status_code} from {response.url}: {preview(response.text)}"
    if response.status_code == 429 or (response.status_code == 503 and retry_after is not None):
        raise RateLimitedError(detail, retry_after=retry_after)
    raise SearchHTTPError(detail, status_code=response.status_code)


def json_object(response: httpx.Response, engine: str) -> dict[str, Any]:
    """The body as a JSON object, or SearchError saying what came instead."""
    try:
        data = response.json()
    except ValueError as exc:
        raise SearchError(f"{engine}: answer is not JSON: {preview(response.text)}") from exc
    if not isinstance(data, dict):
        raise SearchError(f"{engine}: expected a JSON object, got {type(data).__name__}")
    return data


def preview(text: str) -> str:
    """The start of a body on one line, for error messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= BODY_PREVIEW_CHARS else flat[:BODY_PREVIEW_CHARS] + "…"


def text_field(item: dict[str, Any], key: str) -> str:
    """``item[key]`` as a stripped string; missing or non-string values become ``""``."""
    value = item.get(key)
    return value.strip() if isinstance(value, str) else ""


def result_hit(item: dict[str, Any], backend: str) -> SearchHit:
    """A hit from one JSON result of the shape SearXNG and Tavily share: ``url``, ``title``,
    ``content`` (the snippet), ``score`` and, with Tavily, ``raw_content`` (the page's text)."""
    url = text_field(item, "url")
    score = item.get("score")
    return SearchHit(
        url=url,
        title=text_field(item, "title") or url,
        snippet=" ".join(text_field(item, "content").split()),
        content=text_field(item, "raw_content") or None,
        backend=backend,
        score=float(score) if isinstance(score, int | float) else None,
    )
