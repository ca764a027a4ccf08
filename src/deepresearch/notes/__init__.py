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

The package: :mod:`~deepresearch.notes.note` (what a note is, and the checks on its values),
:mod:`~deepresearch.notes.frontmatter` (a note's file text and back) and
:mod:`~deepresearch.notes.store` (the workspace: files, index, locks, search).
"""

from deepresearch.notes.note import (
    DEEP_RESEARCH_TAG,
    NOTE_TYPES,
    REPORT_TAG,
    ExtraValue,
    Note,
    NoteType,
    task_tag,
)
from deepresearch.notes.store import INDEX_FILE, NoteStore

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
