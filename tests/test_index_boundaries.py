"""``deepresearch index`` reads only regular files inside the folder it is given, within its caps,
and names every file it skipped with the reason (run as a user runs it)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

from deepresearch.index.loaders import IndexLimits
from deepresearch.index.store import DocumentIndex

from .test_cli import run_cli


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("Lighthouses guide ships along the rocky coast at night.\n")
    return folder


def test_a_link_out_of_the_folder_is_skipped_and_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:the secret outside the folder\n")
    (folder / "p.txt").symlink_to(secret)
    (folder / "inside.txt").symlink_to(folder / "notes.txt")

    done = run_cli("index", str(folder), home=tmp_path / "home")

    assert done.returncode == 0, done.stderr
    assert f"skipped {folder / 'p.txt'}: a link to {secret}, outside {folder}" in done.stderr
    assert "1 skipped" in done.stderr
    with DocumentIndex(tmp_path / "home" / "index.sqlite") as index:
        assert not index.search("secret outside")
        assert index.search("lighthouses")


def test_a_file_over_the_cap_is_skipped_without_being_read(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    with (folder / "huge.txt").open("wb") as handle:
        handle.truncate(3 * 2**20)

    done = run_cli("index", str(folder), home=tmp_path / "home", INDEX_MAX_FILE_MB="2")

    assert done.returncode == 0, done.stderr
    assert "huge.txt: 3,145,728 bytes, over the 2,097,152-byte cap (INDEX_MAX_FILE_MB)" in done.stderr
    assert "indexed 1 file(s)" in done.stderr


def test_a_fifo_is_no_regular_file_and_does_not_block(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    os.mkfifo(folder / "pipe.txt")

    done = run_cli("index", str(folder), home=tmp_path / "home", timeout=60)

    assert "pipe.txt: not a regular file" in done.stderr


def _zip_bomb(path: Path, unpacked: int) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", b"\0" * unpacked)
    path.write_bytes(buffer.getvalue())


def test_a_docx_that_unpacks_past_the_cap_is_skipped(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    _zip_bomb(folder / "bomb.docx", 8 * 2**20)
    limits = IndexLimits(max_file_bytes=2**20, max_unpacked_bytes=2**20)
    messages: list[str] = []

    with DocumentIndex(tmp_path / "index.sqlite") as index:
        stats = index.index_paths([folder], progress=messages.append, limits=limits)

    assert stats.files_skipped == 1 and stats.files_indexed == 1
    assert any("bomb.docx: unpacks to more than the 1,048,576-byte cap" in m for m in messages)


def _without_root_powers() -> list[str]:
    """A command prefix under which permissions bind: root reads any file, so drop its power to
    override them (setpriv, util-linux) when the tests run as root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("running as root needs setpriv (util-linux) to test permission denied")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]


def test_fifos_devices_and_unreadable_paths_are_named_and_counted_as_skipped(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "locked.txt").write_text("The harbour master keeps the log.\n")
    (folder / "locked.txt").chmod(0)
    (folder / "shut").mkdir()
    (folder / "shut" / "inner.txt").write_text("Buoys mark the channel.\n")
    (folder / "shut").chmod(0)
    fifo = tmp_path / "given.txt"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "deepresearch.cli.main", "index", str(folder), str(fifo), os.devnull]
    env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path / "home")}

    try:
        done = subprocess.run(
            [*_without_root_powers(), *command], env=env, capture_output=True, text=True, timeout=60
        )
    finally:
        (folder / "shut").chmod(0o755)

    assert done.returncode == 0, done.stderr
    err = " ".join(done.stderr.split())
    assert f"skipped {fifo}: not a regular file but a FIFO" in err
    assert f"skipped {os.devnull}: not a regular file but a character device" in err
    assert f"skipped {folder / 'locked.txt'}: unreadable (Permission denied)" in err
    assert f"skipped {folder / 'shut'}: unreadable (Permission denied)" in err
    assert "indexed 1 file(s)" in err and "4 skipped" in err


BOMB_BYTES = 300 * 2**20
PEAK = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stderr.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
sys.exit(done.returncode)
"""


def _lying_docx(path: Path, text: str, hidden: int) -> None:
    """A real .docx whose ``word/document.xml`` holds ``hidden`` more bytes (blank space after the
    document) than its zip directory says, with the CRC of what the directory says: read whole
    and cut at the claimed size, it passes every check."""
    docx = pytest.importorskip("docx", reason="pip install 'deepresearch-offline[docs]'")
    document = docx.Document()
    document.add_paragraph(text)
    original = io.BytesIO()
    document.save(original)
    with zipfile.ZipFile(original) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for member in source.infolist():
            body = source.read(member)
            if member.filename != "word/document.xml":
                out.writestr(member.filename, body)
                continue
            claimed = body
            with out.open(member.filename, "w") as stream:
                stream.write(body)
                for _ in range(hidden // 2**20):
                    stream.write(b" " * 2**20)
    raw = bytearray(path.read_bytes())
    name = b"word/document.xml"
    for signature, crc_at, size_at, name_at in ((b"PK\x03\x04", 14, 22, 30), (b"PK\x01\x02", 16, 24, 46)):
        start = raw.find(signature)
        while raw[start + name_at : start + name_at + len(name)] != name:
            start = raw.find(signature, start + 1)
        raw[start + crc_at : start + crc_at + 4] = zlib.crc32(claimed).to_bytes(4, "little")
        raw[start + size_at : start + size_at + 4] = len(claimed).to_bytes(4, "little")
    path.write_bytes(bytes(raw))


def test_a_docx_whose_zip_directory_lies_is_stopped_at_its_claim(tmp_path: Path) -> None:
    """Measured before: such a file was decompressed whole into memory (the RSS of ``deepresearch
    index`` passed the hidden size) and indexed; now it is skipped, named, after a bounded read."""
    folder = _folder(tmp_path)
    _lying_docx(folder / "bomb.docx", "Zorblatt Tower stands on the hill.", BOMB_BYTES)
    assert (folder / "bomb.docx").stat().st_size < 2 * 2**20
    command = [sys.executable, "-m", "deepresearch.cli.main", "index", str(folder)]
    env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path / "home")}

    done = subprocess.run(
        [sys.executable, "-c", PEAK, *command], env=env, capture_output=True, text=True, timeout=120
    )

    assert done.returncode == 0, done.stderr
    err = " ".join(done.stderr.split())
    assert "bomb.docx: word/document.xml unpacks to more than the" in err
    assert "bytes its zip directory says" in err and "indexed 1 file(s)" in err
    peak = int(done.stdout.split()[-1])
    assert peak < BOMB_BYTES // 2, f"peak RSS {peak:,} bytes"
