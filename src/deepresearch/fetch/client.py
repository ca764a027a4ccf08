"""Reading pages over HTTP safely: httpx, bounded in time, size, type, concurrency and reach.

Contract of one read (:meth:`PageFetcher.fetch_all`, or :meth:`PageFetcher.fetch_many` from a
worker thread):

- only http and https; every hop's host is resolved and checked by :mod:`deepresearch.fetch.guard`
  and the connection goes to the checked address (redirects are followed here, at most
  ``max_redirects``, each hop checked the same way);
- the whole download (DNS, connect, redirects, body) must finish within ``timeout`` seconds;
- the body is streamed and reading stops at ``max_bytes``: HTML and text keep what arrived and are
  marked truncated, a PDF that large is refused;
- only HTML, PDF and plain text are read: a declared type outside those, or an undeclared body that
  looks binary, is refused before it is downloaded further;
- every failure is a :class:`~deepresearch.errors.FetchError` in the result list, never raised:
  a redirect to ``data:``/``javascript:``/``mailto:``, a malformed Location or host name included.

Proxies from the environment are not used: a proxy would resolve host names itself and defeat the
address check. Concurrency limits hold per call of ``fetch_all``; :meth:`PageFetcher.fetch_many`
shares one client (its connections) and one set of per-host limits across every call from every
thread, on the fetcher's own event loop, until :meth:`PageFetcher.close`.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from deepresearch.errors import FetchError
from deepresearch.fetch.cache import PageCache
from deepresearch.fetch.extract import (
    PDF_TYPES,
    SUPPORTED_TYPES,
    extract,
    media_type,
    sniff_type,
)
from deepresearch.fetch.guard import HostPolicy, check_scheme, safe_address
from deepresearch.fetch.page import FetchedPage, FetchResult
from deepresearch.settings import Settings
from deepresearch.text import TRUNCATION_MARKER

USER_AGENT = "Mozilla/5.0 (compatible; deepresearch/0.1; research agent)"
ACCEPT = "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.1"
REDIRECT_CODES = frozenset({301, 302, 303, 307, 308})
WEEK_SECONDS = 7 * 24 * 3600.0
# What httpx raises besides HTTPError for a hostile URL or Location: a malformed URL, a host name
# IDNA cannot encode, a stream read twice.
URL_ERRORS: tuple[type[Exception], ...] = (httpx.InvalidURL, httpx.StreamError, UnicodeError, ValueError)
_T = TypeVar("_T")
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FetchConfig:
    """Limits of the fetcher. ``max_chars`` caps the clean text of one page; ``verify`` is the
    TLS certificate check (``True``: the default CA bundle; an ``SSLContext`` for a private CA)."""

    timeout: float = 15.0
    max_bytes: int = 5_000_000
    max_chars: int = 8_000
    allow: HostPolicy = field(default_factory=HostPolicy)
    cache_dir: Path | None = None
    cache_max_age: float = WEEK_SECONDS
    max_connections: int = 10
    per_host: int = 2
    max_redirects: int = 5
    user_agent: str = USER_AGENT
    verify: ssl.SSLContext | bool = True

    @classmethod
    def from_settings(cls, settings: Settings) -> FetchConfig:
        """``FETCH_TIMEOUT``, ``FETCH_MAX_BYTES``, ``FETCH_ALLOW_HOSTS``, ``FETCH_CACHE`` (under
        ``cache_dir/pages``) and ``MAX_TOKENS_PER_SOURCE`` × 4 characters of text per page."""
        return cls(
            timeout=settings.fetch_timeout,
            max_bytes=settings.fetch_max_bytes,
            max_chars=settings.max_tokens_per_source * 4,
            allow=HostPolicy.parse(settings.fetch_allow_hosts),
            cache_dir=settings.cache_dir / "pages" if settings.fetch_cache else None,
        )


@dataclass
class _Session:
    client: httpx.AsyncClient
    slots: dict[str, asyncio.Semaphore] = field(default_factory=dict)


@dataclass(frozen=True)
class _Body:
    url: httpx.URL
    data: bytes
    content_type: str
    cut_short: bool


class _SharedLoop:
    """An event loop in a daemon thread holding one client and its per-host slots, so that every
    blocking caller of a fetcher shares connections and limits."""

    def __init__(self, make_client: Callable[[], httpx.AsyncClient]) -> None:
        self._make_client = make_client
        self._session: _Session | None = None
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="deepresearch-fetch", daemon=True)
        self.thread.start()

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    async def session(self) -> _Session:
        if self._session is None:
            self._session = _Session(self._make_client())
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self.run(self._session.client.aclose())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class PageFetcher:
    """Reads pages under a :class:`FetchConfig`; see the module contract. One fetcher serves a
    whole run (its tasks' threads share its connections and per-host limits); close it at the end."""

    def __init__(self, config: FetchConfig | None = None) -> None:
        self.config = config or FetchConfig()
        folder = self.config.cache_dir
        self.cache = PageCache(folder, max_age=self.config.cache_max_age) if folder else None
        self._shared: _SharedLoop | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> PageFetcher:
        return cls(FetchConfig.from_settings(settings))

    def __enter__(self) -> PageFetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def preload(self) -> None:
        """Import the HTML extractor (trafilatura, ~0.15-0.3 s) from a background thread now, so
        the first page read does not wait for it; a run calls this while its first model call is
        in flight, once LangGraph is imported (both import ``xml.sax``: importing the two from two
        threads at once can fail with Python's import deadlock error)."""
        threading.Thread(target=_import_extractor, name="deepresearch-preload", daemon=True).start()

    def fetch_many(self, urls: Sequence[str]) -> list[FetchResult]:
        """Blocking reads for worker threads, on the fetcher's own loop with its shared client."""
        return self._loop().run(self._fetch_shared(urls))

    def close(self) -> None:
        """Close the shared client and stop its loop; a later :meth:`fetch_many` starts anew."""
        with self._lock:
            shared, self._shared = self._shared, None
        if shared is not None:
            shared.close()

    def _loop(self) -> _SharedLoop:
        with self._lock:
            if self._shared is None:
                self._shared = _SharedLoop(self._client)
            return self._shared

    async def _fetch_shared(self, urls: Sequence[str]) -> list[FetchResult]:
        session = await self._loop().session()
        return list(await asyncio.gather(*(self._fetch(session, url) for url in urls)))

    async def fetch_all(self, urls: Sequence[str]) -> list[FetchResult]:
        """One result per URL, in order: a :class:`FetchedPage` or the :class:`FetchError`."""
        async with self._client() as client:
            session = _Session(client)
            return list(await asyncio.gather(*(self._fetch(session, url) for url in urls)))

    async def fetch(self, url: str) -> FetchedPage:
        """One page; raises :class:`FetchError` when it cannot be read."""
        result = (await self.fetch_all([url]))[0]
        if isinstance(result, FetchError):
            raise result
        return result

    def _client(self) -> httpx.AsyncClient:
        limits = httpx.Limits(
            max_connections=self.config.max_connections, max_keepalive_connections=self.config.max_connections
        )
        return httpx.AsyncClient(
            headers={"User-Agent": self.config.user_agent, "Accept": ACCEPT},
            timeout=httpx.Timeout(self.config.timeout),
            limits=limits,
            follow_redirects=False,
            trust_env=False,
            verify=self.config.verify,
        )

    async def _fetch(self, session: _Session, url: str) -> FetchResult:
        try:
            start = _parse_url(url)
            check_scheme(start)
            cached = self.cache.get(url, self.config.max_chars) if self.cache else None
            if cached is not None:
                return cached
            body = await self._download(session, start)
            page = await asyncio.to_thread(self._page, url, body)
        except FetchError as exc:
            return exc
        except Exception as exc:  # noqa: BLE001 - one page's surprise must not end the other reads
            _log.warning("reading %s failed unexpectedly", url, exc_info=True)
            return FetchError(f"unexpected {type(exc).__name__}: {exc}")
        if self.cache:
            self.cache.put(page, self.config.max_chars)
        return page

    async def _download(self, session: _Session, start: httpx.URL) -> _Body:
        timeout = self.config.timeout
        try:
            return await asyncio.wait_for(self._follow(session, start), timeout)
        except asyncio.TimeoutError as exc:
            raise FetchError(f"no complete answer within {timeout:g} s (FETCH_TIMEOUT)") from exc
        except httpx.HTTPError as exc:
            raise FetchError(f"{type(exc).__name__}: {exc}") from exc
        except URL_ERRORS as exc:
            raise FetchError(f"refused an unusable URL or redirect ({type(exc).__name__}: {exc})") from exc

    async def _follow(self, session: _Session, start: httpx.URL) -> _Body:
        current = start
        for _ in range(self.config.max_redirects + 1):
            check_scheme(current)
            async with self._slot(session, current):
                response = await session.client.send(await self._request(session, current), stream=True)
                try:
                    target = _redirect_target(response, current)
                    if target is None:
                        return await self._read_body(response, current)
                finally:
                    await response.aclose()
            current = target
        raise FetchError(f"more than {self.config.max_redirects} redirects")

    def _slot(self, session: _Session, url: httpx.URL) -> asyncio.Semaphore:
        host = url.raw_host.decode("ascii")
        return session.slots.setdefault(host, asyncio.Semaphore(self.config.per_host))

    async def _request(self, session: _Session, url: httpx.URL) -> httpx.Request:
        address = await safe_address(url, self.config.allow)
        host = url.raw_host.decode("ascii")
        extensions = {"sni_hostname": host} if url.scheme == "https" else {}
        return session.client.build_request(
            "GET",
            url.copy_with(host=address, userinfo=b""),
            headers={"Host": url.netloc.decode("ascii")},
            extensions=extensions,
        )

    async def _read_body(self, response: httpx.Response, url: httpx.URL) -> _Body:
        if response.status_code >= 400:
            raise FetchError(f"HTTP {response.status_code} {response.reason_phrase}".rstrip())
        declared = media_type(response.headers.get("content-type"))
        if declared and declared not in SUPPORTED_TYPES:
            raise FetchError(f"refused content type {declared!r}: only HTML, PDF and text pages are read")
        _check_length(response, declared, self.config.max_bytes)
        data, cut_short = await _read_capped(response, self.config.max_bytes)
        kind = declared or sniff_type(data)
        if kind is None:
            raise FetchError("refused a binary body without a content type")
        if cut_short and kind in PDF_TYPES:
            raise FetchError(f"refused a PDF larger than {self.config.max_bytes} bytes (FETCH_MAX_BYTES)")
        return _Body(url, data, response.headers.get("content-type") or kind, cut_short)

    def _page(self, url: str, body: _Body) -> FetchedPage:
        found = extract(
            body.data,
            body.content_type,
            max_chars=self.config.max_chars,
            url=str(body.url),
            cut_short=body.cut_short,
        )
        if not found.text.removesuffix(TRUNCATION_MARKER).strip():
            raise FetchError("the page has no readable text")
        return FetchedPage(
            url=url,
            final_url=str(body.url),
            text=found.text,
            title=found.title,
            date=found.date,
            content_type=media_type(body.content_type),
            truncated=found.truncated,
        )


def fetch_many(urls: Sequence[str], settings: Settings) -> list[FetchResult]:
    """Read ``urls`` under ``settings`` (blocking); one page or error per URL, in order."""
    with PageFetcher.from_settings(settings) as fetcher:
        return fetcher.fetch_many(urls)


def _import_extractor() -> None:
    import trafilatura  # noqa: F401


def _parse_url(url: str) -> httpx.URL:
    try:
        return httpx.URL(url)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"not a valid URL: {exc}") from exc


def _redirect_target(response: httpx.Response, current: httpx.URL) -> httpx.URL | None:
    if response.status_code not in REDIRECT_CODES:
        return None
    location = response.headers.get("location")
    if not location:
        raise FetchError(f"HTTP {response.status_code} redirect without a Location")
    try:
        return current.join(location)
    except (httpx.InvalidURL, ValueError) as exc:
        raise FetchError(f"redirect to an invalid URL {location!r}: {exc}") from exc


def _check_length(response: httpx.Response, kind: str, max_bytes: int) -> None:
    declared = response.headers.get("content-length", "")
    if kind in PDF_TYPES and declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"refused a PDF of {declared} bytes: over FETCH_MAX_BYTES={max_bytes}")


async def _read_capped(response: httpx.Response, max_bytes: int) -> tuple[bytes, bool]:
    """At most ``max_bytes`` of the (decoded) body, and whether more was left unread."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        room = max_bytes - size
        if len(chunk) > room:
            chunks.append(chunk[:room])
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False
