"""Serve the app around a slow scripted model, for the crash test: ``python -m tests.server.launcher``.

Binds 127.0.0.1 on a free port and writes the port to ``--port-file`` once it listens.
"""

from __future__ import annotations

import argparse
import socket
from pathlib import Path

import uvicorn

from deepresearch.llm.testing import ScriptedModel
from deepresearch.server import ServerOptions, create_app
from deepresearch.settings import Settings

from .helpers import static_search


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--delay", type=float, default=0.3)
    args = parser.parse_args()
    settings = Settings.load(
        {
            "deepresearch_home": args.home,
            "summary_mode": "model",
            "model_judge": True,
            "max_web_research_loops": 2,
        }
    )
    app = create_app(
        settings,
        model=ScriptedModel(delay=args.delay),
        search=static_search(),
        options=ServerOptions(heartbeat_seconds=1.0),
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    args.port_file.write_text(str(sock.getsockname()[1]))
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
