"""Turn files into documents: Markdown, plain text, JSON Lines, HTML, PDF and Word (.docx).

Loaders are pure: they take a path (for naming) and the file's bytes, and return documents plus
the number of records they had to skip. They never raise on bad content; a JSONL line that is
not an object with a non-empty string ``text`` is skipped and counted, and so is an HTML, PDF or
.docx file that cannot be parsed. HTML, PDF and .docx text is sanitised like fetched pages (no
``[TOOL_CALL:…]`` markers or prompt tags). Reading .docx needs the ``docs`` extra; without it
:class:`~deepresearch.errors.ConfigurationError` says how to install it.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any

from deepresearch.errors import ConfigurationError, FetchError
from deepresearch.fetch.extract import Extracted, extract_html, extract_pdf
from deepresearch.untrusted import clean_title, sanitize

SUPPORTED_SUFFIXES = frozenset({".md", ".txt", ".jsonl", ".html", ".htm", ".pdf", ".docx", ".csv", ".tsv"})
ROWS_PER_DOCUMENT = 20
"""A table is indexed in blocks of this many rows, each row written with its header's names."""
TITLE_LINE_CHARS = 120

_ATX_H1 = re.compile(r"^#[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Document:
    """A unit of text before chunking; ``doc_id`` is what evaluation and citations key on."""

    doc_id: str
    title: str
    text: str


@dataclass(frozen=True)
class LoadedFile:
    """What one file yielded: its documents and how many records were skipped as malformed."""

    documents: list[Document] = field(default_factory=list)
    bad_records: int = 0


def demo_corpus_path() -> Path:
    """Path of the demo corpus shipped inside the package (``data/demo_corpus.jsonl``)."""
    return Path(str(files("deepresearch").joinpath("data", "demo_corpus.jsonl")))


@dataclass(frozen=True)
class IndexLimits:
    """What ``deepresearch index`` reads at most: one file's size and an archive's unpacked size."""

    max_file_bytes: int = 64 * 2**20
    max_unpacked_bytes: int = 256 * 2**20


def skip_reason(path: Path, root: Path | None, limits: IndexLimits) -> str | None:
    """Why ``path`` (found under the folder ``root``, or named itself when None) is not read, or
    None: only regular files inside ``root`` (a symlink may point within it) up to
    ``limits.max_file_bytes`` are."""
    try:
        resolved = path.resolve(strict=True)
        info = resolved.stat()
    except (OSError, RuntimeError) as exc:
        return f"unreadable ({exc})"
    if root is not None and not resolved.is_relative_to(root):
        return f"a link to {resolved}, outside {root}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a regular file but {_file_kind(info.st_mode)}: only regular files are read"
    if info.st_size > limits.max_file_bytes:
        return f"{info.st_size:,} bytes, over the {limits.max_file_bytes:,}-byte cap (INDEX_MAX_FILE_MB)"
    return None


_FILE_KINDS: tuple[tuple[Callable[[int], bool], str], ...] = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a folder"),
)


def _file_kind(mode: int) -> str:
    return next((name for test, name in _FILE_KINDS if test(mode)), "a special file")


UNZIP_CHUNK = 64 * 2**10
_UNBOUNDED = 2**62


def unpacked_problem(data: bytes, limit: int) -> str | None:
    """Why the zip archive ``data`` (a .docx) is not read, or None.

    Its directory must claim at most ``limit`` bytes unpacked (checked before anything is
    decompressed), and each member must hold no more than its directory claims: every member is
    decompressed in chunks of :data:`UNZIP_CHUNK` with a running count, stopped the moment it
    passes the claim. A directory that lies would otherwise have python-docx decompress the whole
    member into memory (measured: a 510 KB file claiming 1 MB and holding 500 MB peaked at 1.08 GB).
    An archive that does not open is left to the loader (one skipped record)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if sum(member.file_size for member in members) > limit:
                return f"unpacks to more than the {limit:,}-byte cap (INDEX_MAX_UNPACKED_MB)"
            return next(filter(None, (_member_problem(archive, m) for m in members)), None)
    except zipfile.BadZipFile:
        return None


def _member_problem(archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> str | None:
    counted = copy.copy(member)
    counted.file_size = _UNBOUNDED  # zipfile stops at the claimed size; count what is really there
    unpacked = 0
    try:
        with archive.open(counted) as stream:
            while chunk := stream.read(UNZIP_CHUNK):
                unpacked += len(chunk)
                if unpacked > member.file_size:
                    return (
                        f"{member.filename} unpacks to more than the {member.file_size:,} bytes its zip "
                        "directory says (a zip bomb?); stopped there"
                    )
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError) as exc:
        return f"{member.filename} cannot be unpacked ({exc})"
    return None


def is_supported(path: Path) -> bool:
    """True when ``path`` has a suffix a loader handles (case-insensitive)."""
    return path.suffix.lower() in SUPPORTED_SUFFIXES


def iter_supported_files(
    root: Path, on_error: Callable[[Path, OSError], None] | None = None
) -> Iterator[Path]:
    """Supported files under ``root``, recursively, in sorted order, skipping hidden entries;
    ``on_error`` hears of each folder that cannot be listed (permission denied …)."""

    def unlistable(exc: OSError) -> None:
        if on_error is not None:
            on_error(Path(exc.filename), exc)

    for dirpath, dirnames, filenames in os.walk(root, onerror=unlistable):
        dirnames[:] = sorted(name for name in dirnames if not name.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath, name)
            if not name.startswith(".") and is_supported(path):
                yield path


def load_file(path: Path, data: bytes) -> LoadedFile:
    """Load ``data`` (the content of ``path``) with the loader its suffix selects."""
    suffix = path.suffix.lower()
    binary = _BINARY_LOADERS.get(suffix)
    if binary is not None:
        return binary(path, data)
    loader = _LOADERS.get(suffix)
    if loader is None:
        supported = ", ".join(sorted(SUPPORTED_SUFFIXES))
        raise ValueError(f"unsupported file type {path.suffix!r}; supported: {supported}")
    return loader(path, _decode(data))


def load_markdown(path: Path, text: str) -> LoadedFile:
    """One document; its title is the first ``# heading`` outside code fences, else the stem."""
    title = markdown_title(text) or path.stem
    return _single(path, title, text)


def load_text(path: Path, text: str) -> LoadedFile:
    """One document, titled by its first line when that line is a title (short, no full stop at
    its end, followed by a blank line; a ``#`` line is no Markdown heading here), else by the file
    stem."""
    return _single(path, text_title(text) or path.stem, text)


def text_title(text: str) -> str | None:
    """The first line of ``text`` when it reads as a title, else None."""
    lines = text.lstrip().splitlines()
    if len(lines) < 3 or lines[1].strip():
        return None
    first = lines[0].strip()
    if (
        not first
        or first.startswith("#")
        or len(first) > TITLE_LINE_CHARS
        or first.endswith((".", ",", ";", ":"))
    ):
        return None
    return clean_title(first)


def load_table(path: Path, text: str) -> LoadedFile:
    """A .csv or .tsv file: blocks of :data:`ROWS_PER_DOCUMENT` rows, each row as ``name: value``
    pairs under the header's names (so a passage cut from the middle still says what each value
    is), titled ``<stem> (rows a-b)``; a file with no header row is one skipped record."""
    rows = list(csv.reader(io.StringIO(text), delimiter="\t" if path.suffix.lower() == ".tsv" else ","))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    if not header or not body:
        return LoadedFile(bad_records=1 if text.strip() else 0)
    documents = []
    for start in range(0, len(body), ROWS_PER_DOCUMENT):
        block = body[start : start + ROWS_PER_DOCUMENT]
        lines = [_row_text(header, row) for row in block]
        first, last = start + 1, start + len(block)
        documents.append(
            Document(
                doc_id=f"{path}#rows-{first}-{last}",
                title=f"{path.stem} (rows {first}-{last})",
                text="\n".join(lines),
            )
        )
    return LoadedFile(documents)


def load_jsonl(path: Path, text: str) -> LoadedFile:
    """One document per line; ids come from ``doc_id``, else ``id``, else ``<path>:<line>``."""
    documents: list[Document] = []
    bad = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        document = parse_record(line, f"{path}:{number}")
        if document is None:
            bad += 1
        else:
            documents.append(document)
    return LoadedFile(documents, bad)


def load_html(path: Path, data: bytes) -> LoadedFile:
    """One document: the page's main text (navigation and footers left out), titled by its
    ``<title>`` or the file stem."""
    return _extracted(path, extract_html(data))


def load_pdf(path: Path, data: bytes) -> LoadedFile:
    """One document: the text of every page, titled by the PDF's title or the file stem; a
    damaged or encrypted PDF is one skipped record."""
    try:
        found = extract_pdf(data)
    except FetchError:
        return LoadedFile(bad_records=1)
    return _extracted(path, found)


def load_docx(path: Path, data: bytes) -> LoadedFile:
    """One document: paragraphs and table cells in order, titled by the core ``title`` property,
    else the first heading, else the file stem; an unreadable file is one skipped record."""
    try:
        import docx
        from docx.opc.exceptions import OpcError
        from lxml.etree import LxmlError
    except ImportError as exc:
        raise ConfigurationError(
            "reading .docx files needs python-docx: pip install 'deepresearch-offline[docs]'"
        ) from exc
    try:
        document = docx.Document(io.BytesIO(data))
    except (OpcError, zipfile.BadZipFile, LxmlError, KeyError, ValueError):
        return LoadedFile(bad_records=1)
    return _extracted(path, Extracted(text=_docx_text(document), title=_docx_title(document)))


def parse_record(line: str, fallback_id: str) -> Document | None:
    """Parse one JSONL line; ``None`` when it is not valid JSON or not a usable record."""
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return document_from_mapping(record, fallback_id) if isinstance(record, dict) else None


def document_from_mapping(record: Mapping[str, object], fallback_id: str) -> Document | None:
    """Build a document from ``title``/``text``/``doc_id``|``id``; ``None`` if unusable."""
    text = record.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    doc_id = _record_id(record.get("doc_id", record.get("id")), fallback_id)
    title = record.get("title", doc_id)
    if doc_id is None or not isinstance(title, str):
        return None
    return Document(doc_id=doc_id, title=title.strip() or doc_id, text=text)


def markdown_title(text: str) -> str | None:
    """The first level-one ATX heading outside fenced code, or ``None``."""
    in_fence = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        match = None if in_fence else _ATX_H1.match(line)
        if match:
            return match.group(1).strip()
    return None


def _record_id(raw: object, fallback_id: str) -> str | None:
    if raw is None:
        return fallback_id
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    return str(raw).strip() or None


def _row_text(header: list[str], row: list[str]) -> str:
    pairs = zip(header, row, strict=False)
    return "; ".join(f"{name.strip()}: {value.strip()}" for name, value in pairs if value.strip())


def _single(path: Path, title: str, text: str) -> LoadedFile:
    if not text.strip():
        return LoadedFile()
    return LoadedFile([Document(doc_id=str(path), title=title, text=text)])


def _extracted(path: Path, found: Extracted) -> LoadedFile:
    return _single(path, clean_title(found.title) or path.stem, sanitize(found.text))


def _docx_text(document: Any) -> str:
    parts = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            parts.append(" | ".join(cell.text for cell in row.cells))
    return "\n\n".join(part for part in parts if part.strip())


def _docx_title(document: Any) -> str | None:
    title = document.core_properties.title
    if isinstance(title, str) and title.strip():
        return title
    for paragraph in document.paragraphs:
        style = (paragraph.style.name if paragraph.style is not None else "") or ""
        if paragraph.text.strip() and style.startswith(("Title", "Heading")):
            return str(paragraph.text)
    return None


def _decode(data: bytes) -> str:
    return data.decode("utf-8-sig", errors="replace")


_LOADERS: dict[str, Callable[[Path, str], LoadedFile]] = {
    ".md": load_markdown,
    ".txt": load_text,
    ".jsonl": load_jsonl,
    ".csv": load_table,
    ".tsv": load_table,
}
_BINARY_LOADERS: dict[str, Callable[[Path, bytes], LoadedFile]] = {
    ".html": load_html,
    ".htm": load_html,
    ".pdf": load_pdf,
    ".docx": load_docx,
}
