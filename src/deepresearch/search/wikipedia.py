"""Wikipedia through the MediaWiki search API (``action=query&list=search&format=json``).

Free, keyless and stable: the generic fallback engine. Each hit is the article
``https://<lang>.wikipedia.org/wiki/<Title>``; the snippet is MediaWiki's highlighted excerpt with
its markup removed. The wiki's language follows the query's script (Cyrillic → ru, kana → ja,
Hangul → ko, Han → zh, …) unless one is given. Queries are cut to CirrusSearch's 300 characters.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from typing import Any
from urllib.parse import quote

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import DEFAULT_TIMEOUT, ClientOwner, request_json, text_field
from deepresearch.search.query import guard_query
from deepresearch.search.registry import register_engine

API_URL = "https://{lang}.wikipedia.org/w/api.php"
PAGE_URL = "https://{lang}.wikipedia.org/wiki/{title}"
MAX_QUERY_CHARS = 300
SCRIPT_SHARE = 0.3

_TAG = re.compile(r"<[^>]+>")
_SCRIPTS: tuple[tuple[str, str], ...] = (
    ("ja", "\u3040-\u30ff"),
    ("ko", "\uac00-\ud7af\u1100-\u11ff"),
    ("zh", "\u4e00-\u9fff\u3400-\u4dbf"),
    ("ru", "\u0400-\u04ff"),
    ("el", "\u0370-\u03ff"),
    ("he", "\u0590-\u05ff"),
    ("ar", "\u0600-\u06ff"),
    ("hi", "\u0900-\u097f"),
    ("th", "\u0e00-\u0e7f"),
)
_SCRIPT_RE = tuple((lang, re.compile(f"[{chars}]")) for lang, chars in _SCRIPTS)


class WikipediaSearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over Wikipedia's search API.

    ``api_url`` and ``page_url`` are templates with ``{lang}`` (and ``{title}``); tests point
    ``api_url`` at a local server while hits keep their real Wikipedia URLs.
    """

    name = "wikipedia"
    max_query_chars: int | None = MAX_QUERY_CHARS
    min_interval = 0.0
    max_parallel = 1
    """MediaWiki's API etiquette asks for requests in series, not in parallel; it sets no interval."""

    def __init__(
        self,
        *,
        language: str | None = None,
        api_url: str = API_URL,
        page_url: str = PAGE_URL,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.Client | None = None,
    ) -> None:
        self.language = language
        self.api_url = api_url
        self.page_url = page_url
        self._use_client(client, timeout)

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """Hits plus a notice when the query had to be shortened."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        lang = self.language or language_for(sent)
        url = self.api_url.format(lang=lang)
        data = request_json(self._client, self.name, "GET", url, params=_params(sent, limit))
        return SearchOutcome(hits=parse_search(data, lang, self.page_url)[:limit], notices=notices)


def language_for(text: str) -> str:
    """The Wikipedia language code for the main non-Latin script of ``text``; ``en`` otherwise."""
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return "en"
    counts = Counter(lang for c in letters for lang, pattern in _SCRIPT_RE if pattern.match(c))
    if not counts:
        return "en"
    if counts["ja"] and counts["zh"]:
        counts["ja"] += counts.pop("zh")
    lang, count = counts.most_common(1)[0]
    return lang if count / len(letters) >= SCRIPT_SHARE else "en"


def article_url(title: str, lang: str, template: str = PAGE_URL) -> str:
    """The article URL for ``title``: spaces become underscores, the rest is percent-encoded."""
    return template.format(lang=lang, title=quote(title.replace(" ", "_"), safe="()_,:'!-.~"))


def clean_snippet(snippet: str) -> str:
    """MediaWiki's snippet without its ``<span class="searchmatch">`` markup and entities."""
    return " ".join(html.unescape(_TAG.sub("", snippet)).split())


def parse_search(data: dict[str, Any], lang: str, page_url: str = PAGE_URL) -> list[SearchHit]:
    """Hits from an ``action=query&list=search`` answer; an ``error`` object raises SearchError."""
    if isinstance(data.get("error"), dict):
        error = data["error"]
        raise SearchError(f"wikipedia: {error.get('code', 'error')}: {error.get('info', '')}".rstrip(": "))
    query = data.get("query")
    items = query.get("search") if isinstance(query, dict) else None
    if not isinstance(items, list):
        raise SearchError("wikipedia: answer has no query.search list")
    found = [item for item in items if isinstance(item, dict) and text_field(item, "title")]
    return [_hit(item, lang, page_url) for item in found]


def _params(query: str, limit: int) -> dict[str, str | int]:
    return {"action": "query", "list": "search", "srsearch": query, "srlimit": limit, "format": "json"}


def _hit(item: dict[str, Any], lang: str, page_url: str) -> SearchHit:
    title = text_field(item, "title")
    return SearchHit(
        url=article_url(title, lang, page_url),
        title=title,
        snippet=clean_snippet(text_field(item, "snippet")),
        backend=WikipediaSearch.name,
    )


BACKEND = register_engine(
    "wikipedia", "Wikipedia", WikipediaSearch, summary="Wikipedia's own search, in the question's language"
)
