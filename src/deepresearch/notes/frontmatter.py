"""A note file's text and back: YAML front matter between ``---`` fences, then the body.

The front matter comes from PyYAML's safe dumper with one value per line: identifiers plain, every
other string double-quoted with escapes, so untrusted text (a title holding ``---``, newlines,
Unicode line separators) cannot end the front matter early, and reading a note returns exactly what
was written. PyYAML is imported only here, when a note is first written or read.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TypeVar, cast

import yaml

from deepresearch.errors import DeepResearchError
from deepresearch.notes.note import (
    NOTE_TYPES,
    RESERVED_KEYS,
    ExtraValue,
    InvalidNoteError,
    Note,
    NoteFormatError,
    NoteType,
    clean_extra,
)

_FENCE_LINE_RE = re.compile(r"^(?:---|\.\.\.)\s*$", re.MULTILINE)
_PLAIN_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_T = TypeVar("_T")


def render(note: Note) -> str:
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


def parse(text: str, path: Path) -> Note:
    end = text.find("\n---\n", 3)
    if not text.startswith("---\n") or end < 0:
        raise NoteFormatError(f"note file {path} has no '---' front matter block")
    try:
        meta = yaml.safe_load(text[4 : end + 1])
    except yaml.YAMLError as exc:
        raise NoteFormatError(f"note file {path} has invalid front matter: {exc}") from exc
    if not isinstance(meta, dict):
        raise NoteFormatError(f"note file {path}: front matter is not a mapping")
    body = text[end + 5 :]
    return _note_from_meta(cast(dict[str, object], meta), body.removeprefix("\n"), path)


def _note_from_meta(meta: dict[str, object], body: str, path: Path) -> Note:
    note_id = _field(meta, "id", str, path)
    if note_id != path.stem:
        raise NoteFormatError(f"note file {path} holds id {note_id!r}; rename one to match")
    note_type = _field(meta, "type", str, path)
    if note_type not in NOTE_TYPES:
        raise NoteFormatError(f"note file {path} has unknown type {note_type!r}")
    tags = _field(meta, "tags", builtins.list, path)
    if not all(isinstance(tag, str) for tag in tags):
        raise NoteFormatError(f"note file {path}: tags must be strings")
    extra = {key: value for key, value in meta.items() if key not in RESERVED_KEYS}
    try:
        extra_values = clean_extra(cast(dict[str, ExtraValue], extra))
    except InvalidNoteError as exc:
        raise NoteFormatError(f"note file {path}: {exc}") from exc
    return Note(
        id=note_id,
        title=_field(meta, "title", str, path),
        type=cast(NoteType, note_type),
        tags=tuple(cast(builtins.list[str], tags)),
        created_at=_timestamp(meta, "created_at", path),
        updated_at=_timestamp(meta, "updated_at", path),
        body=body,
        path=path,
        extra=extra_values,
    )


def _field(meta: Mapping[str, object], key: str, kind: type[_T], path: Path) -> _T:
    value = meta.get(key)
    if not isinstance(value, kind):
        raise NoteFormatError(f"note file {path}: {key!r} is missing or not a {kind.__name__}")
    return value


def _timestamp(meta: Mapping[str, object], key: str, path: Path) -> datetime:
    value = meta.get(key)
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise NoteFormatError(f"note file {path}: {key!r} is not an ISO-8601 time") from exc
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)
