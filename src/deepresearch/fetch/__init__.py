"""Reading the pages search hits point at: a guarded HTTP client and a pure text extractor.

``PageFetcher`` (``client.py``) downloads within limits and refuses non-public addresses unless
allowed; ``extract`` (``extract.py``) turns HTML, PDF and text into clean, sanitised text.
Filling search hits with their pages' text is :func:`deepresearch.search.pages.read_hits`.
"""

from __future__ import annotations

from deepresearch.fetch.client import FetchConfig, PageFetcher, fetch_many
from deepresearch.fetch.extract import Extracted, extract
from deepresearch.fetch.guard import HostPolicy
from deepresearch.fetch.page import FetchedPage, FetchResult

__all__ = [
    "Extracted",
    "FetchConfig",
    "FetchResult",
    "FetchedPage",
    "HostPolicy",
    "PageFetcher",
    "extract",
    "fetch_many",
]
