"""Perplexity through its chat-completions API (``POST {base_url}/chat/completions``, Sonar models).

Perplexity answers in prose and lists the pages it used. The prose is kept apart as the engine's
answer (shown, never cited); the pages become the hits: ``search_results`` (title, URL, snippet,
date) when the API sends them, otherwise the bare ``citations`` URLs with the URL as title. Only
URLs Perplexity returned are used; nothing is inferred from the prose.
"""

from __future__ import annotations

from typing import Any

import httpx

from deepresearch.errors import SearchError
from deepresearch.search.base import SearchBackend, SearchHit, SearchOutcome
from deepresearch.search.http import ClientOwner, request_json, text_field
from deepresearch.search.query import guard_query
from deepresearch.search.registry import register_engine

BASE_URL = "https://api.perplexity.ai"
DEFAULT_MODEL = "sonar"
DEFAULT_TIMEOUT = 60.0
MAX_QUERY_CHARS = 2000
SYSTEM_PROMPT = "Be precise and concise. Cite the web pages you rely on."


class PerplexitySearch(ClientOwner, SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over Perplexity's Sonar models."""

    name = "perplexity"
    max_query_chars: int | None = MAX_QUERY_CHARS

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = BASE_URL,
        model: str = DEFAULT_MODEL,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self._use_client(client, timeout, {"Authorization": f"Bearer {api_key}"})

    def search_detailed(self, query: str, *, limit: int = 5) -> SearchOutcome:
        """The cited pages as hits and Perplexity's reply as the engine's answer."""
        sent, notices = guard_query(query, self.max_query_chars, self.name)
        body = {"model": self.model, "messages": _messages(sent)}
        url = f"{self.base_url}/chat/completions"
        data = request_json(self._client, self.name, "POST", url, json=body)
        return SearchOutcome(
            hits=parse_citations(data)[:limit],
            notices=notices,
            answer=parse_answer(data),
            answer_backend=self.name,
        )


def parse_answer(data: dict[str, Any]) -> str | None:
    """The assistant's reply from the first choice, or None."""
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    return (text_field(message, "content") or None) if isinstance(message, dict) else None


def parse_citations(data: dict[str, Any]) -> list[SearchHit]:
    """The pages Perplexity cited, de-duplicated by URL, in its order."""
    if "choices" not in data:
        raise SearchError("perplexity: answer has no 'choices'; is the base URL a chat-completions API?")
    results = [r for r in data.get("search_results") or [] if isinstance(r, dict)]
    hits = [_result_hit(r) for r in results if _is_web_url(text_field(r, "url"))]
    known = {hit.url for hit in hits}
    for url in data.get("citations") or []:
        if isinstance(url, str) and _is_web_url(url.strip()) and url.strip() not in known:
            known.add(url.strip())
            hits.append(SearchHit(url=url.strip(), title=url.strip(), backend=PerplexitySearch.name))
    return hits


def _messages(query: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": query}]


def _is_web_url(url: str) -> bool:
    return url.startswith(("http://", "https://"))


def _result_hit(item: dict[str, Any]) -> SearchHit:
    url = text_field(item, "url")
    return SearchHit(
        url=url,
        title=text_field(item, "title") or url,
        snippet=" ".join(text_field(item, "snippet").split()),
        backend=PerplexitySearch.name,
    )


BACKEND = register_engine(
    "perplexity",
    "Perplexity",
    PerplexitySearch,
    summary="Perplexity's Sonar models: the pages they cite",
    needs=("perplexity_api_key",),
)
