"""Real ``redis-server`` and PostgreSQL on 127.0.0.1 with temporary data directories.

Both come from Debian packages (``apt-get install redis-server postgresql``); :func:`missing` says
which binary is absent so the tests can skip with that reason. PostgreSQL refuses to run as root,
so under root the server runs as the ``postgres`` system user the package creates.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

INSTALL = "install them with: apt-get install redis-server postgresql (CI's .ci/run does)"


def postgres_bin() -> Path | None:
    """The directory holding ``initdb`` and ``postgres`` (the newest installed major), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_major)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def missing() -> str | None:
    """Why the cluster tests cannot run here, or None when they can."""
    import importlib.util

    if any(importlib.util.find_spec(name) is None for name in ("celery", "redis", "psycopg")):
        return "the team extra is not installed: pip install -e '.[team]' (make test installs it)"
    absent = [
        name
        for name, ok in (("redis-server", shutil.which("redis-server")), ("PostgreSQL", postgres_bin()))
        if not ok
    ]
    if absent:
        return f"{' and '.join(absent)} not installed; {INSTALL}"
    if os.geteuid() == 0 and not _has_user("postgres"):
        return "running as root with no 'postgres' user to run PostgreSQL as; " + INSTALL
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server; yields its URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="dr-redis-") as data:
        command = [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            data,
        ]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            _wait_port(port, process, "redis-server")
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait(10)


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster (trust auth, fsync off); yields the URL of its ``postgres`` db."""
    bindir = postgres_bin()
    assert bindir is not None, INSTALL
    port = free_port()
    data = Path(tempfile.mkdtemp(prefix="dr-pg-"))
    _as_postgres_owner(data)
    _run_as_postgres(
        [
            str(bindir / "initdb"),
            "-D",
            str(data / "db"),
            "-A",
            "trust",
            "-U",
            "postgres",
            "--no-sync",
            "-E",
            "UTF8",
        ]
    )
    options = (
        f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories={data} "
        "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    process = subprocess.Popen(
        _as_postgres([str(bindir / "postgres"), "-D", str(data / "db"), *options.split()]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port, process, "postgres", timeout=60)
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        _wait_accepting(url, process)
        yield url
    finally:
        process.terminate()
        process.wait(20)
        shutil.rmtree(data, ignore_errors=True)


def create_database(admin_url: str, name: str) -> str:
    """A fresh database ``name`` on the server of ``admin_url``; returns its URL."""
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


def _major(path: str) -> float:
    try:
        return float(Path(path).parents[1].name)
    except ValueError:
        return 0.0


def _has_user(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


def _as_postgres_owner(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def _run_as_postgres(command: list[str]) -> None:
    done = subprocess.run(_as_postgres(command), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {done.stderr.strip()[-2000:]}")


def _wait_accepting(url: str, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    """PostgreSQL listens before it accepts ("the database system is starting up")."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            psycopg.connect(url, connect_timeout=2).close()
            return
        except psycopg.OperationalError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.1)


def _wait_port(port: int, process: subprocess.Popen[bytes], name: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with status {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} did not listen on port {port} within {timeout:.0f} s")
