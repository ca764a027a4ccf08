"""An on-disk cache of read pages: one JSON file per URL and text limit, replaced atomically.

Only successful reads are kept, as clean text (never the raw bytes). Entries older than
``max_age`` seconds, unreadable or of another layout count as misses. A cache that cannot be
written is logged and otherwise ignored: caching never fails a read.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from deepresearch.fetch.page import FetchedPage
from deepresearch.files import atomic_write_text

logger = logging.getLogger(__name__)

_LAYOUT = 1
_FIELDS = ("url", "final_url", "text", "title", "date", "content_type", "truncated")


class PageCache:
    """Pages under ``folder``, keyed by URL and the text limit they were cut to."""

    def __init__(self, folder: Path, *, max_age: float, clock: Callable[[], float] = time.time) -> None:
        self.folder = folder
        self.max_age = max_age
        self._clock = clock

    def get(self, url: str, max_chars: int) -> FetchedPage | None:
        """The cached page for ``url`` at ``max_chars``, marked ``from_cache``; ``None`` on a miss."""
        try:
            record = json.loads(self._path(url, max_chars).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not _fresh(record, self._clock() - self.max_age):
            return None
        return FetchedPage(**{name: record[name] for name in _FIELDS}, from_cache=True)

    def put(self, page: FetchedPage, max_chars: int) -> None:
        """Keep ``page`` (read from the network) for later runs."""
        record = {**asdict(replace(page, from_cache=False)), "layout": _LAYOUT, "stored_at": self._clock()}
        path = self._path(page.url, max_chars)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(record, ensure_ascii=False))
        except OSError as exc:
            logger.warning("cannot write page cache %s: %s", path, exc)

    def _path(self, url: str, max_chars: int) -> Path:
        key = hashlib.sha256(f"{max_chars}\n{url}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.json"


def _fresh(record: object, oldest: float) -> bool:
    if not isinstance(record, dict) or record.get("layout") != _LAYOUT:
        return False
    stored = record.get("stored_at")
    if not isinstance(stored, int | float) or stored < oldest:
        return False
    return all(name in record for name in _FIELDS) and isinstance(record["text"], str)
