"""Reading pages from a real HTTP server on 127.0.0.1: content, limits, refusals, cache."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from deepresearch.errors import FetchError, SearchError
from deepresearch.fetch import FetchedPage, PageFetcher, fetch_many
from deepresearch.fetch.client import USER_AGENT
from deepresearch.settings import Settings

from .conftest import HUGE_TOTAL, make_fetcher
from .documents import ARTICLE_SENTENCE, BOILERPLATE
from .server import FixtureServer, Route


def read(fetcher: PageFetcher, url: str) -> FetchedPage | FetchError:
    return fetcher.fetch_many([url])[0]


def page(fetcher: PageFetcher, url: str) -> FetchedPage:
    result = read(fetcher, url)
    assert isinstance(result, FetchedPage), result
    return result


def refusal(fetcher: PageFetcher, url: str) -> str:
    result = read(fetcher, url)
    assert isinstance(result, FetchError), result
    return str(result)


def test_html_keeps_the_article_and_drops_the_boilerplate(site: FixtureServer) -> None:
    got = page(make_fetcher(), site.url("/article.html"))
    assert ARTICLE_SENTENCE in got.text
    assert "Walk of the Apostles" in got.text
    for junk in BOILERPLATE:
        assert junk not in got.text
    assert got.title == "The Prague astronomical clock"
    assert got.date == "2024-03-01"
    assert got.content_type == "text/html"
    assert not got.truncated and not got.from_cache


def test_pdf_text_and_title(site: FixtureServer) -> None:
    got = page(make_fetcher(), site.url("/doc.pdf"))
    assert "The clock was built in 1410." in got.text
    assert got.title == "Orloj facts"
    assert got.content_type == "application/pdf"


def test_plain_text_and_declared_charset(site: FixtureServer) -> None:
    fetcher = make_fetcher()
    assert page(fetcher, site.url("/notes.txt")).text == "Plain notes: the clock has twelve apostles."
    assert page(fetcher, site.url("/latin1.html")).title == "Café horloge"


def test_huge_page_is_cut_at_the_byte_cap_and_marked(site: FixtureServer) -> None:
    got = page(make_fetcher(max_bytes=64 * 1024, max_chars=100_000), site.url("/huge.html"))
    assert got.truncated and got.text.endswith("[truncated]")
    assert len(got.text.encode()) <= 64 * 1024
    assert site.bytes_sent.get("/huge.html", 0) < HUGE_TOTAL // 10


def test_text_is_cut_to_max_chars_with_the_marker(site: FixtureServer) -> None:
    got = page(make_fetcher(max_chars=200), site.url("/article.html"))
    assert got.truncated
    assert len(got.text) <= 200
    assert got.text.endswith(" [truncated]")


def test_pdf_over_the_byte_cap_is_refused(site: FixtureServer) -> None:
    message = refusal(make_fetcher(max_bytes=100_000), site.url("/huge.pdf"))
    assert "FETCH_MAX_BYTES" in message


def test_slow_page_times_out_instead_of_hanging(site: FixtureServer) -> None:
    started = time.perf_counter()
    message = refusal(make_fetcher(timeout=0.5), site.url("/slow.html"))
    assert time.perf_counter() - started < 5
    assert "FETCH_TIMEOUT" in message or "Timeout" in message


def test_a_page_that_drips_forever_is_bounded_by_the_total_timeout(site: FixtureServer) -> None:
    started = time.perf_counter()
    message = refusal(make_fetcher(timeout=0.6), site.url("/drip.html"))
    assert time.perf_counter() - started < 5
    assert "within 0.6 s" in message


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/binary.bin", "application/octet-stream"),
        ("/image.png", "image/png"),
        ("/untyped.bin", "binary"),
    ],
)
def test_binary_content_is_refused(site: FixtureServer, path: str, expected: str) -> None:
    assert expected in refusal(make_fetcher(), site.url(path))


def test_http_errors_and_empty_pages_are_errors(site: FixtureServer) -> None:
    fetcher = make_fetcher()
    assert "HTTP 404" in refusal(fetcher, site.url("/missing.html"))
    assert "no readable text" in refusal(fetcher, site.url("/empty.html"))


@pytest.mark.parametrize(
    ("path", "reason"),
    [("/to-private", "10.0.0.1 is a private"), ("/to-metadata", "169.254.169.254 is a link-local")],
)
def test_redirect_to_a_private_address_is_refused_without_connecting(
    site: FixtureServer, path: str, reason: str
) -> None:
    started = time.perf_counter()
    message = refusal(make_fetcher(timeout=10), site.url(path))
    assert reason in message and "FETCH_ALLOW_HOSTS" in message
    assert time.perf_counter() - started < 2


def test_redirect_to_file_is_refused(site: FixtureServer) -> None:
    assert "only http and https" in refusal(make_fetcher(), site.url("/to-file"))


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/to-data", "unusable URL"),
        ("/to-javascript", "unusable URL"),
        ("/to-mailto", "unusable URL"),
        ("/to-bad-host", "unusable URL"),
        ("/to-empty-label", "unusable URL"),
    ],
)
def test_a_redirect_to_a_non_web_or_malformed_url_is_a_fetch_error(
    site: FixtureServer, path: str, expected: str
) -> None:
    results = make_fetcher().fetch_many([site.url(path), site.url("/article.html")])
    assert isinstance(results[0], FetchError) and expected in str(results[0])
    assert isinstance(results[1], FetchedPage)


def test_redirects_are_followed_and_checked_at_every_hop(site: FixtureServer) -> None:
    fetcher = make_fetcher()
    assert page(fetcher, site.url("/to-relative")).final_url == site.url("/article.html")
    assert ARTICLE_SENTENCE in page(fetcher, site.url("/to-localhost")).text
    assert "redirects" in refusal(fetcher, site.url("/loop"))


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1:70/", "not a url"]
)
def test_non_http_urls_are_refused(url: str) -> None:
    assert refusal(make_fetcher(), url)


def test_loopback_is_refused_unless_allowed(site: FixtureServer) -> None:
    strict = make_fetcher(allow="")
    assert "127.0.0.1 is a loopback address" in refusal(strict, site.url("/article.html"))
    by_name = f"http://localhost:{site.port}/article.html"
    assert "loopback" in refusal(strict, by_name)
    assert page(make_fetcher(allow="localhost"), by_name).text
    assert page(make_fetcher(allow="127.0.0.0/8"), site.url("/article.html")).text


def test_numeric_host_forms_are_checked_after_resolution(site: FixtureServer) -> None:
    message = refusal(make_fetcher(allow=""), f"http://2130706433:{site.port}/article.html")
    assert "loopback" in message


def test_real_user_agent_is_sent(site: FixtureServer) -> None:
    seen: list[str] = []

    def record(handler) -> None:  # type: ignore[no-untyped-def]
        seen.append(handler.headers.get("User-Agent", ""))
        handler.wfile.write(b"<html><body><p>hello from the agent check</p></body></html>")

    site.routes["/agent.html"] = Route(record, headers={"Content-Type": "text/html"})
    page(make_fetcher(), site.url("/agent.html"))
    assert seen == [USER_AGENT] and "deepresearch" in USER_AGENT


def test_per_host_concurrency_is_bounded(site: FixtureServer) -> None:
    def slowish(handler) -> None:  # type: ignore[no-untyped-def]
        site.wait_overlap("/slowish.html", 2)
        handler.wfile.write(b"<html><body><p>one of many pages with some text</p></body></html>")

    site.routes["/slowish.html"] = Route(slowish, headers={"Content-Type": "text/html"})
    urls = [site.url(f"/slowish.html?n={n}") for n in range(6)]
    results = make_fetcher(per_host=2).fetch_many(urls)
    assert all(isinstance(r, FetchedPage) for r in results)
    assert site.max_in_flight["/slowish.html"] == 2


def test_results_keep_order_and_failures_do_not_spoil_the_rest(site: FixtureServer) -> None:
    urls = [site.url("/article.html"), "file:///etc/hosts", site.url("/doc.pdf")]
    results = make_fetcher().fetch_many(urls)
    assert [type(r) for r in results] == [FetchedPage, FetchError, FetchedPage]
    assert isinstance(results[1], SearchError)


def test_cache_serves_a_second_read_from_disk(site: FixtureServer, tmp_path: Path) -> None:
    site.routes["/cached.html"] = site.routes["/article.html"]
    fetcher = make_fetcher(cache_dir=tmp_path / "pages")
    first = page(fetcher, site.url("/cached.html"))
    second = page(make_fetcher(cache_dir=tmp_path / "pages"), site.url("/cached.html"))
    assert not first.from_cache and second.from_cache
    assert second.text == first.text
    assert site.hits["/cached.html"] == 1
    assert page(make_fetcher(cache_dir=tmp_path / "pages", max_chars=100), site.url("/cached.html")).truncated


def test_failures_are_not_cached(site: FixtureServer, tmp_path: Path) -> None:
    fetcher = make_fetcher(cache_dir=tmp_path / "pages")
    refusal(fetcher, site.url("/missing.html"))
    refusal(fetcher, site.url("/missing.html"))
    assert site.hits["/missing.html"] >= 2


def test_fetch_many_from_settings_and_inside_a_running_loop(site: FixtureServer, tmp_path: Path) -> None:
    settings = Settings.load(
        {"deepresearch_home": tmp_path, "fetch_allow_hosts": "127.0.0.1", "max_tokens_per_source": 60}
    )
    [got] = fetch_many([site.url("/article.html")], settings)
    assert isinstance(got, FetchedPage) and len(got.text) <= 240
    assert any((tmp_path / "cache" / "pages").rglob("*.json"))

    async def inside_loop() -> list[FetchedPage | FetchError]:
        return make_fetcher().fetch_many([site.url("/notes.txt")])

    assert isinstance(asyncio.run(inside_loop())[0], FetchedPage)


def test_async_fetch_raises_fetch_error(site: FixtureServer) -> None:
    fetcher = make_fetcher()
    assert asyncio.run(fetcher.fetch(site.url("/notes.txt"))).text.startswith("Plain notes")
    with pytest.raises(FetchError):
        asyncio.run(fetcher.fetch("file:///etc/passwd"))


def test_one_fetcher_holds_its_per_host_limit_across_threads(site: FixtureServer) -> None:
    def slowish(handler) -> None:  # type: ignore[no-untyped-def]
        site.wait_overlap("/shared.html", 2)
        handler.wfile.write(b"<html><body><p>one of many pages read by two tasks</p></body></html>")

    site.routes["/shared.html"] = Route(slowish, headers={"Content-Type": "text/html"})
    results: list[list[FetchedPage | FetchError]] = []
    with make_fetcher(per_host=2) as fetcher:
        tasks = [
            threading.Thread(
                target=lambda t=t: results.append(
                    fetcher.fetch_many([site.url(f"/shared.html?t={t}&n={n}") for n in range(3)])
                )
            )
            for t in range(3)
        ]
        for task in tasks:
            task.start()
        for task in tasks:
            task.join()
    assert len(results) == 3 and all(isinstance(r, FetchedPage) for rs in results for r in rs)
    assert site.max_in_flight["/shared.html"] == 2


def test_close_stops_the_fetchers_loop_and_a_later_read_starts_anew(site: FixtureServer) -> None:
    def loops() -> int:
        return sum(t.name == "deepresearch-fetch" for t in threading.enumerate())

    fetcher, before = make_fetcher(), loops()
    assert isinstance(read(fetcher, site.url("/notes.txt")), FetchedPage)
    assert loops() == before + 1
    fetcher.close()
    assert loops() == before
    assert isinstance(read(fetcher, site.url("/notes.txt")), FetchedPage)
    fetcher.close()
    fetcher.close()
