"""What a note is: its fields, its types and tags, and the checks every stored value passes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, TypeAlias, get_args

from deepresearch.errors import DeepResearchError

NoteType = Literal["task_state", "conclusion", "general"]
ExtraValue: TypeAlias = str | int | float | bool | None
NOTE_TYPES: tuple[str, ...] = get_args(NoteType)
DEEP_RESEARCH_TAG = "deep_research"
REPORT_TAG = "report"
RESERVED_KEYS = frozenset({"id", "title", "type", "tags", "created_at", "updated_at"})

_EXTRA_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


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


class NoteFormatError(DeepResearchError):
    """A note file exists but is not a valid note (hand-edited or truncated by hand)."""

    code = "note_format"


class InvalidNoteError(DeepResearchError, ValueError):
    """A value no note may hold (an unknown type, a tag that is no string, a bad extra key or
    value); a ``ValueError`` too, for callers that catch that."""

    code = "invalid_note"


def check_note_type(note_type: str) -> None:
    if note_type not in NOTE_TYPES:
        raise InvalidNoteError(f"note_type must be one of {', '.join(NOTE_TYPES)}, not {note_type!r}")


def clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
    if isinstance(tags, str):
        raise InvalidNoteError("tags must be a sequence of strings, not one string")
    clean: dict[str, None] = {}
    for tag in tags:
        if not isinstance(tag, str):
            raise InvalidNoteError(f"tags must be strings, not {tag!r}")
        if tag.strip():
            clean[scrub(tag.strip())] = None
    return tuple(clean)


def clean_extra(extra: Mapping[str, ExtraValue]) -> dict[str, ExtraValue]:
    for key, value in extra.items():
        if not isinstance(key, str) or not _EXTRA_KEY_RE.match(key) or key in RESERVED_KEYS:
            raise InvalidNoteError(f"extra key {key!r} must match [a-z][a-z0-9_]* and not be built in")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise InvalidNoteError(f"extra value for {key!r} must be a scalar, not {value!r}")
    return {key: scrub(value) if isinstance(value, str) else value for key, value in extra.items()}


def scrub(text: str) -> str:
    """``text`` with lone surrogates (UTF-8 cannot store them) replaced by U+FFFD."""
    return _SURROGATE_RE.sub("\ufffd", text)
