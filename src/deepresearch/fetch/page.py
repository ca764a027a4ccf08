"""What reading one URL gives: clean text and what is known about where it came from."""

from __future__ import annotations

from dataclasses import dataclass

from deepresearch.errors import FetchError


@dataclass(frozen=True)
class FetchedPage:
    """Clean text of ``url`` as read from ``final_url`` (after redirects).

    ``text`` is sanitised data (see :mod:`deepresearch.fetch.extract`) and ends with
    ``[truncated]`` when ``truncated``; ``from_cache`` says it came from the on-disk cache.
    """

    url: str
    final_url: str
    text: str
    title: str | None = None
    date: str | None = None
    content_type: str = ""
    truncated: bool = False
    from_cache: bool = False


FetchResult = FetchedPage | FetchError
