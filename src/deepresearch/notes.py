"""Research notes: Markdown files with YAML front matter in a notes workspace, plus an index.

Each note is ``<workspace>/<id>.md``::

    ---
    id: note_20240501_120000_a1b2c3
    title: "Task 1: background"
    type: task_state
    tags: [deep_research, task_1]
    created_at: "2024-05-01T12:00:00.000000+00:00"
    updated_at: "2024-05-01T12:03:10.000000+00:00"
    task_id: 1
    ---

    <body, exactly as written>

The front matter is YAML from PyYAML's safe dumper with one value per line: identifiers plain,
every other string double-quoted with escapes. Untrusted text (a title holding ``---``, newlines,
Unicode line separators) cannot end the front matter early, and reading a note returns exactly
what was written. ``<workspace>/notes_index.json``
maps every id to its title, type, tags, timestamps and file name; the ``.md`` files are the
truth and the index is rebuilt from them when it is missing or unreadable.

Notes are long-lived knowledge kept across runs: nothing here deletes them. Writes are atomic
and serialised per workspace — a thread lock within a process and an exclusive ``flock`` on
the workspace folder across processes — so parallel tasks, stores and CLI runs may share
one folder without losing index entries. Conventions the research loop follows: task
progress is a ``task_state`` note tagged ``deep_research`` and ``task_<n>``; the final report
is a ``conclusion`` note tagged ``deep_research`` and ``report``.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import logging
import os
import re
import secrets
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, TypeAlias, TypeVar, cast, get_args

import yaml

from deepresearch.errors import DeepResearchError, NoteNotFoundError
from deepresearch.files import atomic_write_text
from deepresearch.text import is_cjk_run, is_content_word, words

__all__ = [
    "DEEP_RESEARCH_TAG",
    "INDEX_FILE",
    "NOTE_TYPES",
    "REPORT_TAG",
    "ExtraValue",
    "Note",
    "NoteStore",
    "NoteType",
    "task_tag",
]

logger = logging.getLogger(__name__)

NoteType = Literal["task_state", "conclusion", "general"]
ExtraValue: TypeAlias = str | int | float | bool | None
NOTE_TYPES: tuple[str, ...] = get_args(NoteType)
INDEX_FILE = "notes_index.json"
DEEP_RESEARCH_TAG = "deep_research"
REPORT_TAG = "report"

_INDEX_VERSION = 1
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$")
_EXTRA_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_RESERVED_KEYS = frozenset({"id", "title", "type", "tags", "created_at", "updated_at"})
_FENCE_LINE_RE = re.compile(r"^(?:---|\.\.\.)\s*$", re.MULTILINE)
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
_PLAIN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NEW_ID_ATTEMPTS = 100
_T = TypeVar("_T")

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def task_tag(task_id: int) -> str:
    """The tag that marks notes of research task ``task_id`` (``task_3``)."""
    return f"task_{task_id}"


@dataclass(frozen=True)
class Note:
    """One note as stored. Timestamps are timezone-aware UTC; ``path`` is the ``.md`` file;
    ``extra`` holds the caller's additional front matter keys (e.g. ``task_id``)."""

    id: str
    title: str
    type: NoteType
    tags: tuple[str, ...]
    created_at: datetime
    updated_at: datetime
    body: str
    path: Path
    extra: Mapping[str, ExtraValue] = field(default_factory=dict, hash=False)


class _NoteFormatError(DeepResearchError):
    """A note file exists but is not a valid note (hand-edited or truncated by hand)."""


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

        Raises ``ValueError`` for an unknown type, a bad tag or extra key/value;
        ``NoteNotFoundError`` when ``note_id`` names no note; ``DeepResearchError`` when the
        note or index cannot be written or the stored note is unreadable.
        """
        _check_note_type(note_type)
        title, body = _scrub(title), _scrub(body)
        clean_tags = _clean_tags(tags)
        clean_extra = None if extra is None else _clean_extra(extra)
        with self._lock():
            if note_id is None:
                note = self._new_note(note_type, title, body, clean_tags, clean_extra or {})
            else:
                note = self._changed_note(note_id, note_type, title, body, clean_tags, clean_extra)
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
        try:
            self.workspace.mkdir(parents=True, exist_ok=True)
            atomic_write_text(note.path, _render(note))
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
        try:
            with path.open(encoding="utf-8", newline="") as handle:
                text = handle.read()
        except FileNotFoundError as exc:
            raise _not_found(note_id, self.workspace) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise DeepResearchError(f"cannot read note file {path}: {exc}") from exc
        return _parse(text, path)

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


def _check_note_type(note_type: str) -> None:
    if note_type not in NOTE_TYPES:
        raise ValueError(f"note_type must be one of {', '.join(NOTE_TYPES)}, not {note_type!r}")


def _clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    if isinstance(tags, str):
        raise ValueError("tags must be a sequence of strings, not one string")
    clean: dict[str, None] = {}
    for tag in tags:
        if not isinstance(tag, str):
            raise ValueError(f"tags must be strings, not {tag!r}")
        if tag.strip():
            clean[_scrub(tag.strip())] = None
    return tuple(clean)


def _clean_extra(extra: Mapping[str, ExtraValue]) -> dict[str, ExtraValue]:
    for key, value in extra.items():
        if not isinstance(key, str) or not _EXTRA_KEY_RE.match(key) or key in _RESERVED_KEYS:
            raise ValueError(f"extra key {key!r} must match [a-z][a-z0-9_]* and not be built in")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise ValueError(f"extra value for {key!r} must be a scalar, not {value!r}")
    return {key: _scrub(value) if isinstance(value, str) else value for key, value in extra.items()}


def _scrub(text: str) -> str:
    """``text`` with lone surrogates (UTF-8 cannot store them) replaced by U+FFFD."""
    return _SURROGATE_RE.sub("\ufffd", text)


def _render(note: Note) -> str:
    meta: dict[str, object] = {
        "id": note.id,
        "title": note.title,
        "type": note.type,
        "tags": builtins.list(note.tags),
        "created_at": note.created_at.isoformat(timespec="microseconds"),
        "updated_at": note.updated_at.isoformat(timespec="microseconds"),
        **note.extra,
    }
    front = yaml.dump(
        meta,
        Dumper=_FrontMatterDumper,
        allow_unicode=True,
        sort_keys=False,
        default_flow_style=None,
        width=2**30,
    )
    if _FENCE_LINE_RE.search(front):
        raise DeepResearchError(f"note {note.id}: front matter would contain a fence line")
    return f"---\n{front}---\n\n{note.body}"


class _FrontMatterDumper(yaml.SafeDumper):  # type: ignore[misc,unused-ignore]
    """Safe dumper writing every string on one line: identifiers plain, the rest double-quoted
    with escapes, so no value can contain a line break, a fence line or a lookalike."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = None if _PLAIN_RE.match(value) else '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_FrontMatterDumper.add_representer(str, _represent_str)


def _parse(text: str, path: Path) -> Note:
    end = text.find("\n---\n", 3)
    if not text.startswith("---\n") or end < 0:
        raise _NoteFormatError(f"note file {path} has no '---' front matter block")
    try:
        meta = yaml.safe_load(text[4 : end + 1])
    except yaml.YAMLError as exc:
        raise _NoteFormatError(f"note file {path} has invalid front matter: {exc}") from exc
    if not isinstance(meta, dict):
        raise _NoteFormatError(f"note file {path}: front matter is not a mapping")
    body = text[end + 5 :]
    return _note_from_meta(cast(dict[str, object], meta), body.removeprefix("\n"), path)


def _note_from_meta(meta: dict[str, object], body: str, path: Path) -> Note:
    note_id = _field(meta, "id", str, path)
    if note_id != path.stem:
        raise _NoteFormatError(f"note file {path} holds id {note_id!r}; rename one to match")
    note_type = _field(meta, "type", str, path)
    if note_type not in NOTE_TYPES:
        raise _NoteFormatError(f"note file {path} has unknown type {note_type!r}")
    tags = _field(meta, "tags", builtins.list, path)
    if not all(isinstance(tag, str) for tag in tags):
        raise _NoteFormatError(f"note file {path}: tags must be strings")
    extra = {key: value for key, value in meta.items() if key not in _RESERVED_KEYS}
    try:
        clean_extra = _clean_extra(cast(dict[str, ExtraValue], extra))
    except ValueError as exc:
        raise _NoteFormatError(f"note file {path}: {exc}") from exc
    return Note(
        id=note_id,
        title=_field(meta, "title", str, path),
        type=cast(NoteType, note_type),
        tags=tuple(cast(builtins.list[str], tags)),
        created_at=_timestamp(meta, "created_at", path),
        updated_at=_timestamp(meta, "updated_at", path),
        body=body,
        path=path,
        extra=clean_extra,
    )


def _field(meta: Mapping[str, object], key: str, kind: type[_T], path: Path) -> _T:
    value = meta.get(key)
    if not isinstance(value, kind):
        raise _NoteFormatError(f"note file {path}: {key!r} is missing or not a {kind.__name__}")
    return value


def _timestamp(meta: Mapping[str, object], key: str, path: Path) -> datetime:
    value = meta.get(key)
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise _NoteFormatError(f"note file {path}: {key!r} is not an ISO-8601 time") from exc
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


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
