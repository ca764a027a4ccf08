"""Writing files so that readers never see half of one (run folders, notes, the fetch and model caches)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

_ERRORS = "backslashreplace"
_DISK_FULL = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT})


def disk_full(exc: OSError) -> bool:
    """Whether ``exc`` says the disk takes no more: no space, a file-size limit, a quota."""
    return exc.errno in _DISK_FULL


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8, newlines kept as given) so readers never see a
    partial file: write a temporary file in the same directory, fsync it, ``os.replace`` it.

    Lone surrogates, which UTF-8 cannot encode (``json.loads`` of model output can make them),
    are written as ``\\udXXX`` escapes, which JSON readers decode back. The temporary file is
    removed if anything fails; the error propagates.
    """
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors=_ERRORS, newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
