"""Run folders: one directory per research run, holding that run's artefacts, with retention.

A run folder is ``<workspace>/<YYYYmmdd-HHMMSS>-<slug>-<4 hex>/`` (UTC time of creation, an ASCII
slug of the question) and always holds ``run.json`` with ``run_id``, ``question`` and
``created_at``. Run folders are short-lived process artefacts: :meth:`RunStore.cleanup` deletes
the ones older than a retention period. Notes are long-lived and live elsewhere
(:mod:`deepresearch.notes`); cleanup never touches anything that is not a run folder.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import shutil
import stat
import threading
import unicodedata
from datetime import datetime, timedelta, timezone
from pathlib import Path, PurePosixPath

from deepresearch.errors import DeepResearchError, StorageFullError
from deepresearch.files import atomic_write_text, disk_full

__all__ = [
    "RUN_FILE",
    "RunFolder",
    "RunStore",
    "slugify",
]

logger = logging.getLogger(__name__)

RUN_FILE = "run.json"
_SLUG_MAX = 40
_CREATE_ATTEMPTS = 100
_RUN_ID_RE = re.compile(r"^\d{8}-\d{6}-(?:[a-z0-9-]{1,40}-)?[0-9a-f]{4}$")
_APPEND_LOCK = threading.Lock()
_ERRORS = "backslashreplace"


def slugify(text: str, *, max_length: int = _SLUG_MAX) -> str:
    """Lower-case ASCII slug of ``text`` (letters, digits, single dashes), at most
    ``max_length`` characters; empty when nothing ASCII survives (e.g. a Chinese question)."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    return slug[:max_length].strip("-")


def _as_utc(moment: datetime | None) -> datetime:
    """``moment`` in UTC; ``None`` means now, a naive datetime is taken to be UTC."""
    if moment is None:
        return datetime.now(timezone.utc)
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _dump_json(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"


class RunFolder:
    """One run's directory. Every write stays inside it; names are relative POSIX paths
    (``"report.md"``, ``"tasks/task_1.json"``), parent folders are created as needed."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.run_id = path.name

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    def file(self, name: str) -> Path:
        """The path of ``name`` inside this folder.

        Raises ``ValueError`` for an empty, absolute or ``..`` name, or one that resolves outside
        the folder (through a symlink).
        """
        relative = PurePosixPath(name)
        if not name or relative.is_absolute() or ".." in relative.parts or "\\" in name:
            raise ValueError(f"run file name must be a relative path inside the run: {name!r}")
        target = self.path.joinpath(*relative.parts)
        if not target.resolve().is_relative_to(self.path.resolve()):
            raise ValueError(f"run file name escapes the run folder: {name!r}")
        return target

    def write_json(self, name: str, data: object) -> Path:
        """Atomically write ``data`` as JSON (UTF-8, ``ensure_ascii=False``, indent 2, unknown
        objects through ``str``); returns the file's path."""
        return self.write_text(name, _dump_json(data))

    def write_text(self, name: str, text: str) -> Path:
        """Atomically write ``text``; returns the file's path."""
        target = self.file(name)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(target, text)
        except OSError as exc:
            raise _write_error(f"cannot write {target}", exc) from exc
        return target

    def append_jsonl(self, name: str, record: object) -> Path:
        """Append ``record`` as one JSON line (safe from parallel threads); returns the path."""
        target = self.file(name)
        line = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with (
                _APPEND_LOCK,
                target.open("a", encoding="utf-8", errors=_ERRORS, newline="") as handle,
            ):
                handle.write(line)
        except OSError as exc:
            raise _write_error(f"cannot append to {target}", exc) from exc
        return target


def _write_error(what: str, exc: OSError) -> DeepResearchError:
    """A full disk (or a file-size or quota limit) is :class:`StorageFullError`; the rest is a
    folder that is not writable."""
    if disk_full(exc):
        return StorageFullError(f"{what}: {exc}: free space on that disk (or raise its file-size limit)")
    return DeepResearchError(f"{what}: {exc}; check that the runs folder is writable")


class RunStore:
    """The runs workspace: creates run folders and deletes expired ones.

    The workspace is created on first use; nothing is read from the environment.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = Path(workspace)

    def create(self, question: str, *, now: datetime | None = None) -> RunFolder:
        """Create a new, empty run folder for ``question`` and write its ``run.json``.

        ``now`` (default: the current time; naive means UTC) sets the folder's timestamp and
        ``created_at``. Never reuses an existing folder: a name clash draws new random hex.
        """
        created = _as_utc(now)
        folder = RunFolder(self._make_dir(self._name_stem(question, created)))
        folder.write_json(
            RUN_FILE,
            {"run_id": folder.run_id, "question": question, "created_at": created.isoformat()},
        )
        return folder

    def get(self, run_id: str) -> RunFolder:
        """The existing run folder ``run_id``. Raises ``DeepResearchError`` if there is none."""
        path = self.workspace / run_id
        if not _RUN_ID_RE.match(run_id) or not _is_run_dir(path):
            raise DeepResearchError(
                f"no run {run_id!r} in {self.workspace}; list that folder for the runs it holds"
            )
        return RunFolder(path)

    def cleanup(self, retention_days: int, *, now: datetime | None = None) -> list[Path]:
        """Delete run folders created more than ``retention_days`` days before ``now``.

        Only direct children of the workspace are considered, and only real directories (not
        symlinks) with a run folder's name that hold a regular ``run.json``. The creation time is
        ``created_at`` from ``run.json``, or the folder's mtime when that is missing or invalid.
        ``retention_days <= 0`` keeps everything. Returns the deleted paths; a folder that cannot
        be deleted is logged and skipped.
        """
        if retention_days <= 0 or not self.workspace.is_dir():
            return []
        cutoff = _as_utc(now) - timedelta(days=retention_days)
        try:
            entries = sorted(self.workspace.iterdir())
        except OSError as exc:
            logger.warning("could not list run folders in %s: %s", self.workspace, exc)
            return []
        deleted: list[Path] = []
        for entry in entries:
            if _is_run_dir(entry) and _created_at(entry) < cutoff and _remove_tree(entry):
                deleted.append(entry)
        return deleted

    def _name_stem(self, question: str, created: datetime) -> str:
        slug = slugify(question)
        stamp = created.strftime("%Y%m%d-%H%M%S")
        return f"{stamp}-{slug}" if slug else stamp

    def _make_dir(self, stem: str) -> Path:
        try:
            self.workspace.mkdir(parents=True, exist_ok=True)
            for _ in range(_CREATE_ATTEMPTS):
                path = self.workspace / f"{stem}-{secrets.token_hex(2)}"
                try:
                    path.mkdir()
                except FileExistsError:
                    continue
                return path
        except OSError as exc:
            raise DeepResearchError(
                f"cannot create a run folder in {self.workspace}: {exc}; "
                "check that the runs folder is writable"
            ) from exc
        raise DeepResearchError(
            f"no free run folder name for {stem!r} in {self.workspace}; "
            "remove old run folders or retry in a second"
        )


def _is_run_dir(path: Path) -> bool:
    """A real directory (not a symlink) named like a run folder that holds a regular run.json."""
    if not _RUN_ID_RE.match(path.name):
        return False
    try:
        if not stat.S_ISDIR(path.lstat().st_mode):
            return False
        return stat.S_ISREG((path / RUN_FILE).lstat().st_mode)
    except OSError:
        return False


def _created_at(path: Path) -> datetime:
    """``created_at`` from the folder's run.json, else the folder's mtime, in UTC."""
    try:
        data = json.loads((path / RUN_FILE).read_text(encoding="utf-8"))
        return _as_utc(datetime.fromisoformat(data["created_at"]))
    except (OSError, ValueError, KeyError, TypeError):
        return datetime.fromtimestamp(path.lstat().st_mtime, tz=timezone.utc)


def _remove_tree(path: Path) -> bool:
    """Delete ``path`` without following symlinks inside it; False (logged) when it fails."""
    try:
        shutil.rmtree(path)
    except OSError as exc:
        logger.warning("could not delete expired run folder %s: %s", path, exc)
        return False
    return True
