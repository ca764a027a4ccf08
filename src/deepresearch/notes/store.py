"""The notes of one workspace folder: writing, reading, listing and searching them, with the
index kept beside them (see :mod:`deepresearch.notes`)."""

from __future__ import annotations

import builtins
import contextlib
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import cast

from deepresearch.errors import DeepResearchError, NoteNotFoundError
from deepresearch.files import atomic_write_text
from deepresearch.notes.note import (
    ExtraValue,
    Note,
    NoteType,
    check_note_type,
    clean_extra,
    clean_tags,
    scrub,
)
from deepresearch.text import is_cjk_run, is_content_word, words

logger = logging.getLogger("deepresearch.notes")

INDEX_FILE = "notes_index.json"

_INDEX_VERSION = 1
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_NEW_ID_ATTEMPTS = 100

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class NoteStore:
    """Notes in one workspace folder (created on first write; nothing is read from the
    environment). ``clock`` returns the current time and exists for tests."""

    def __init__(self, workspace: Path, *, clock: Callable[[], datetime] | None = None) -> None:
        self.workspace = Path(workspace)
        self._clock = clock or _utc_now
        self._lock = _lock_for(self.workspace)

    def write(
        self,
        *,
        note_type: NoteType,
        title: str,
        body: str,
        tags: Sequence[str],
        note_id: str | None = None,
        extra: Mapping[str, ExtraValue] | None = None,
    ) -> Note:
        """Create a note (``note_id=None``: a new id ``note_<yyyymmdd_HHMMSS>_<6 hex>``) or
        replace the title, type, tags and body of note ``note_id``, keeping its ``created_at``
        and file and setting ``updated_at`` to now.

        Lone surrogates in any text become U+FFFD; everything else is stored and read back
        exactly. ``tags`` are stripped, empty ones dropped, duplicates removed (order kept).
        ``extra`` adds front matter keys (``[a-z][a-z0-9_]*``, not a built-in key) with scalar
        values; on update, ``extra=None`` keeps the stored ones and a mapping replaces them.

        Raises :class:`~deepresearch.notes.note.InvalidNoteError` (a ``ValueError``) for an
        unknown type, a bad tag or extra key/value;
        ``NoteNotFoundError`` when ``note_id`` names no note; ``DeepResearchError`` when the
        note or index cannot be written or the stored note is unreadable.
        """
        check_note_type(note_type)
        title, body = scrub(title), scrub(body)
        tag_values = clean_tags(tags)
        extra_values = None if extra is None else clean_extra(extra)
        with self._lock():
            if note_id is None:
                note = self._new_note(note_type, title, body, tag_values, extra_values or {})
            else:
                note = self._changed_note(note_id, note_type, title, body, tag_values, extra_values)
            self._store(note)
        return note

    def read(self, note_id: str) -> Note:
        """The note ``note_id``. Raises ``NoteNotFoundError`` when there is none and
        ``DeepResearchError`` when its file cannot be read or parsed."""
        return self._read_file(self._path_for(note_id), note_id)

    def list(self, tag: str | None = None, note_type: str | None = None) -> builtins.list[Note]:
        """Every readable note carrying ``tag`` and of ``note_type`` (``None``: any), most
        recently updated first. Unreadable note files are logged and skipped."""
        notes = [
            note
            for note in self._all_notes()
            if (tag is None or tag in note.tags) and (note_type is None or note.type == note_type)
        ]
        return sorted(notes, key=lambda note: (note.updated_at, note.id), reverse=True)

    def search(self, text: str, limit: int = 5) -> builtins.list[Note]:
        """Up to ``limit`` notes whose title or body contain terms of ``text``.

        Terms are case-insensitive words (runs of CJK characters become overlapping pairs);
        one-letter words and common English stop words are ignored. Notes rank by the number
        of distinct terms they contain, then by terms in the title, then by recency. Notes
        matching no term are left out.
        """
        terms = _search_terms(text)
        if not terms or limit <= 0:
            return []
        scored = [(_score(note, terms), note) for note in self._all_notes()]
        hits = [(score, note) for score, note in scored if score[0] > 0]
        hits.sort(key=lambda hit: (hit[0], hit[1].updated_at, hit[1].id), reverse=True)
        return [note for _, note in hits[:limit]]

    def rebuild_index(self) -> int:
        """Rewrite ``notes_index.json`` from the note files; returns how many notes it lists.
        Raises ``DeepResearchError`` when the index cannot be written."""
        with self._lock():
            entries = self._scan_index()
            try:
                self._save_index(entries)
            except OSError as exc:
                raise DeepResearchError(
                    f"cannot write {self.workspace / INDEX_FILE}: {exc}; "
                    "check that the notes folder is writable"
                ) from exc
        return len(entries)

    def _new_note(
        self,
        note_type: NoteType,
        title: str,
        body: str,
        tags: tuple[str, ...],
        extra: Mapping[str, ExtraValue],
    ) -> Note:
        now = self._now()
        note_id = self._free_id(now)
        return Note(
            id=note_id,
            title=title,
            type=note_type,
            tags=tags,
            created_at=now,
            updated_at=now,
            body=body,
            path=self._path_for(note_id),
            extra=dict(extra),
        )

    def _changed_note(
        self,
        note_id: str,
        note_type: NoteType,
        title: str,
        body: str,
        tags: tuple[str, ...],
        extra: Mapping[str, ExtraValue] | None,
    ) -> Note:
        old = self.read(note_id)
        return Note(
            id=old.id,
            title=title,
            type=note_type,
            tags=tags,
            created_at=old.created_at,
            updated_at=max(self._now(), old.created_at),
            body=body,
            path=old.path,
            extra=dict(old.extra if extra is None else extra),
        )

    def _free_id(self, now: datetime) -> str:
        for _ in range(_NEW_ID_ATTEMPTS):
            note_id = f"note_{now:%Y%m%d_%H%M%S}_{secrets.token_hex(3)}"
            if not self._path_for(note_id).exists():
                return note_id
        raise DeepResearchError(f"no free note id in {self.workspace}; retry in a second")

    def _store(self, note: Note) -> None:
        from deepresearch.notes import frontmatter

        try:
            self.workspace.mkdir(parents=True, exist_ok=True)
            atomic_write_text(note.path, frontmatter.render(note))
            entries = self._load_index()
            entries[note.id] = _index_entry(note)
            self._save_index(entries)
        except OSError as exc:
            raise DeepResearchError(
                f"cannot write note {note.id} in {self.workspace}: {exc}; "
                "check that the notes folder is writable"
            ) from exc

    def _load_index(self) -> dict[str, dict[str, object]]:
        path = self.workspace / INDEX_FILE
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return self._scan_index()
        except (OSError, ValueError) as exc:
            logger.warning("rebuilding unreadable notes index %s: %s", path, exc)
            return self._scan_index()
        notes = raw.get("notes") if isinstance(raw, dict) else None
        if not isinstance(notes, dict):
            logger.warning("rebuilding notes index %s: unexpected layout", path)
            return self._scan_index()
        return cast(dict[str, dict[str, object]], notes)

    def _save_index(self, entries: Mapping[str, Mapping[str, object]]) -> None:
        document = {"version": _INDEX_VERSION, "notes": dict(sorted(entries.items()))}
        text = json.dumps(document, ensure_ascii=False, indent=2) + "\n"
        atomic_write_text(self.workspace / INDEX_FILE, text)

    def _scan_index(self) -> dict[str, dict[str, object]]:
        return {note.id: _index_entry(note) for note in self._all_notes()}

    def _all_notes(self) -> builtins.list[Note]:
        if not self.workspace.is_dir():
            return []
        notes: builtins.list[Note] = []
        for path in sorted(self.workspace.glob("*.md")):
            if _ID_RE.match(path.stem) and path.is_file():
                notes.extend(self._read_quietly(path))
        return notes

    def _read_quietly(self, path: Path) -> builtins.list[Note]:
        try:
            return [self._read_file(path, path.stem)]
        except DeepResearchError as exc:
            logger.warning("skipping note file %s: %s", path, exc)
            return []

    def _read_file(self, path: Path, note_id: str) -> Note:
        from deepresearch.notes import frontmatter

        try:
            with path.open(encoding="utf-8", newline="") as handle:
                text = handle.read()
        except FileNotFoundError as exc:
            raise _not_found(note_id, self.workspace) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise DeepResearchError(f"cannot read note file {path}: {exc}") from exc
        return frontmatter.parse(text, path)

    def _path_for(self, note_id: str) -> Path:
        if not _ID_RE.match(note_id):
            raise _not_found(note_id, self.workspace)
        return self.workspace / f"{note_id}.md"

    def _now(self) -> datetime:
        moment = self._clock()
        if moment.tzinfo is None:
            return moment.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc)


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _lock_for(workspace: Path) -> Callable[[], contextlib.AbstractContextManager[None]]:
    """The workspace's writer lock: this process's thread lock for the folder, then the folder's
    lock file, so stores in other processes wait too."""
    key = workspace.resolve()
    with _LOCKS_GUARD:
        thread_lock = _LOCKS.setdefault(key, threading.Lock())

    @contextlib.contextmanager
    def hold() -> Iterator[None]:
        with thread_lock, _file_lock(workspace):
            yield

    return hold


@contextlib.contextmanager
def _file_lock(workspace: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: the thread lock is all there is
        yield
        return
    try:
        workspace.mkdir(parents=True, exist_ok=True)
        folder = os.open(workspace, os.O_RDONLY)
    except OSError as exc:
        raise DeepResearchError(
            f"cannot lock the notes folder {workspace}: {exc}; check that it is writable"
        ) from exc
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)


def _not_found(note_id: str, workspace: Path) -> NoteNotFoundError:
    return NoteNotFoundError(
        f"no note {note_id!r} in {workspace}; list the notes (NoteStore.list) for valid ids"
    )


def _index_entry(note: Note) -> dict[str, object]:
    return {
        "title": note.title,
        "type": note.type,
        "tags": builtins.list(note.tags),
        "created_at": note.created_at.isoformat(timespec="microseconds"),
        "updated_at": note.updated_at.isoformat(timespec="microseconds"),
        "path": note.path.name,
    }


def _search_terms(text: str) -> builtins.list[str]:
    found = (w for w in words(text) if is_content_word(w) and (len(w) > 1 or is_cjk_run(w)))
    return builtins.list(dict.fromkeys(found))


def _score(note: Note, terms: Sequence[str]) -> tuple[int, int]:
    title = note.title.casefold()
    body = note.body.casefold()
    in_title = sum(1 for term in terms if term in title)
    matched = sum(1 for term in terms if term in title or term in body)
    return matched, in_title
