"""``deepresearch serve`` starts the service from settings and stops cleanly on SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.server import create_app
from deepresearch.settings import Settings

from .helpers import wait_for


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_command_serves_and_stops_on_sigterm(tmp_path: Path, home: Path) -> None:
    port = _free_port()
    env = {**os.environ, "DEEPRESEARCH_HOME": str(home), "API_TOKEN": "serve-token-123456"}
    command = [sys.executable, "-m", "deepresearch.cli.main", "serve", "--port", str(port)]
    with subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as process:
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:

                def health() -> httpx.Response | None:
                    try:
                        return client.get("/healthz")
                    except httpx.TransportError:
                        return None

                assert wait_for(health, timeout=60).status_code == 200
                assert client.get("/tasks").status_code == 401
                authed = client.get("/tasks", headers={"Authorization": "Bearer serve-token-123456"})
                assert authed.json() == {"jobs": []}
                assert "<title>deepresearch</title>" in client.get("/").text
            process.send_signal(signal.SIGTERM)
            output = process.communicate(timeout=30)[0].decode()
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode in (0, -signal.SIGTERM), output
    assert "Application shutdown complete" in output
    assert "serve-token-123456" not in output
    assert (home / "jobs.sqlite").is_file()


def test_cors_star_without_a_token_is_refused_at_start(tmp_path: Path, home: Path) -> None:
    """With ``CORS_ORIGINS=*`` and no token any page a user visits could start runs and read
    reports, so the server does not start; listed origins, or a token, are fine."""
    env = {**os.environ, "DEEPRESEARCH_HOME": str(home), "CORS_ORIGINS": "*"}
    env.pop("API_TOKEN", None)
    command = [sys.executable, "-m", "deepresearch.cli.main", "serve", "--port", str(_free_port())]

    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30)

    assert done.returncode == 2, done.stderr
    assert "CORS_ORIGINS=*" in done.stderr and "API_TOKEN" in done.stderr
    assert "Traceback" not in done.stderr and "Application startup" not in done.stderr
    with pytest.raises(ConfigurationError, match="API_TOKEN"):
        create_app(Settings.load({"deepresearch_home": home, "cors_origins": "*"}))
