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


class RedisServer:
    """A redis-server on one port with no persistence: :meth:`stop` then :meth:`start` is a restart
    that loses every key (and every broker message)."""

    def __init__(self, data: Path) -> None:
        self.port = free_port()
        self.data = data
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.data)]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _wait_port(self.port, self.process, "redis-server")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


class PostgresServer:
    """A PostgreSQL cluster (trust auth, fsync off) in ``data``: :meth:`stop` is a fast shutdown
    (sessions ended, as in a restart), :meth:`start` brings it back on the same port."""

    def __init__(self, data: Path) -> None:
        bindir = postgres_bin()
        assert bindir is not None, INSTALL
        self.bindir = bindir
        self.port = free_port()
        self.data = data
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self.process: subprocess.Popen[bytes] | None = None
        _as_postgres_owner(data)
        _run_as_postgres(
            [str(bindir / "initdb"), "-D", str(data / "db"), "-A", "trust", "-U", "postgres"]
            + ["--no-sync", "-E", "UTF8"]
        )

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.data} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        command = [str(self.bindir / "postgres"), "-D", str(self.data / "db"), *options.split()]
        self.process = subprocess.Popen(
            _as_postgres(command), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_port(self.port, self.process, "postgres", timeout=60)
        _wait_accepting(self.url, self.process)

    def stop(self) -> None:
        """A fast shutdown: open sessions are ended, as a restart ends pooled connections."""
        if self.process is not None:
            _run_as_postgres([str(self.bindir / "pg_ctl"), "-D", str(self.data / "db"), "-m", "fast", "stop"])
            self.process.wait(20)
            self.process = None


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway redis-server; yields its URL."""
    with running_redis() as server:
        yield server.url


@contextmanager
def running_redis() -> Iterator[RedisServer]:
    with tempfile.TemporaryDirectory(prefix="dr-redis-") as data:
        server = RedisServer(Path(data))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster; yields the URL of its ``postgres`` database."""
    with running_postgres() as server:
        yield server.url


@contextmanager
def running_postgres() -> Iterator[PostgresServer]:
    data = Path(tempfile.mkdtemp(prefix="dr-pg-"))
    try:
        server = PostgresServer(data)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
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
