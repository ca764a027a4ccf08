"""Building the configured search backend."""

from __future__ import annotations

from collections.abc import Callable

from deepresearch.errors import ConfigurationError
from deepresearch.index.loaders import demo_corpus_path
from deepresearch.index.store import DocumentIndex
from deepresearch.search.base import SearchBackend
from deepresearch.search.local import LocalSearch
from deepresearch.search.notes import NotesSearch
from deepresearch.settings import Settings

AVAILABLE = ("local", "notes")


def build_search(
    settings: Settings, notice: Callable[[str], None] | None = None
) -> tuple[SearchBackend, Callable[[], None]]:
    """The backend and a function that releases it. The default local index is built from the
    bundled demo corpus the first time it is needed; an index path the user set must exist.
    ``notes`` searches the notes of earlier runs."""
    if settings.search_api == "notes":
        return NotesSearch.from_settings(settings)
    if settings.search_api != "local":
        raise ConfigurationError(
            f"SEARCH_API={settings.search_api!r} is not available; choose one of: {', '.join(AVAILABLE)}"
        )
    path = settings.resolved_index_path
    if settings.uses_default_index and not path.exists():
        if notice:
            notice(f"no index at {path}; building it from the bundled demo corpus")
        with DocumentIndex(path) as index:
            index.index_paths([demo_corpus_path()])
    index = DocumentIndex.open_existing(path)
    return LocalSearch(index), index.close
