"""Past research as a source: a search backend over the notes workspace (``SEARCH_API=notes``).

Hits carry the whole note as ``content`` (nothing to fetch), ``note://<note id>`` as their URL
and the note id as ``doc_id``. Only notes that existed when the backend was built are found, so a
run never cites the notes it is writing itself. Note bodies are sanitised like fetched pages:
a note edited by hand is data, not instructions.
"""

from __future__ import annotations

from datetime import datetime, timezone

from deepresearch.errors import DeepResearchError, SearchError
from deepresearch.notes import Note, NoteStore
from deepresearch.search.base import SearchBackend, SearchHit
from deepresearch.search.local import snippet
from deepresearch.search.registry import BackendSpec, register_backend
from deepresearch.settings import Settings
from deepresearch.untrusted import clean_title, sanitize

_CANDIDATES = 50


class NotesSearch(SearchBackend):
    """:class:`~deepresearch.search.base.SearchBackend` over :meth:`NoteStore.search`."""

    name = "notes"

    def __init__(self, store: NoteStore, *, since: datetime | None = None) -> None:
        self.store = store
        self.since = since or datetime.now(timezone.utc)

    @classmethod
    def from_settings(cls, settings: Settings) -> NotesSearch:
        """The backend over ``NOTES_WORKSPACE``."""
        return cls(NoteStore(settings.resolved_notes_workspace))

    def search(self, query: str, *, limit: int = 5) -> list[SearchHit]:
        """At most ``limit`` notes matching ``query``, best first; raises :class:`SearchError`
        when the notes workspace cannot be read."""
        try:
            notes = self.store.search(query, limit=max(limit, _CANDIDATES))
        except (OSError, DeepResearchError) as exc:
            raise SearchError(f"cannot search the notes in {self.store.workspace}: {exc}") from exc
        return [note_hit(note) for note in notes if note.created_at <= self.since][:limit]


def note_url(note_id: str) -> str:
    """The URL a note is cited by."""
    return f"note://{note_id}"


def note_hit(note: Note) -> SearchHit:
    body = sanitize(note.body)
    return SearchHit(
        url=note_url(note.id),
        title=clean_title(note.title) or note.id,
        snippet=snippet(body),
        content=body,
        backend=NotesSearch.name,
        doc_id=note.id,
    )


BACKEND = register_backend(
    BackendSpec(
        "notes",
        "notes of earlier runs",
        lambda settings, notice: NotesSearch.from_settings(settings),
        summary="the notes earlier runs kept (NOTES_WORKSPACE)",
    )
)
