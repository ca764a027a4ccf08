"""``deepresearch model-server``: serve an embedded model over an OpenAI-compatible HTTP API."""

from __future__ import annotations

import signal
import threading
from typing import Annotated

import typer
from rich.markup import escape

from deepresearch.cli.console import err, friendly_errors


def model_server_command(
    model: Annotated[
        str | None, typer.Option(help="A bundled model (smollm2, qwen0.5b, qwen1.5b) or a .gguf path.")
    ] = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8081,
    api_key: Annotated[
        str | None, typer.Option(envvar="MODEL_SERVER_API_KEY", help="Require this bearer key.")
    ] = None,
    n_ctx: Annotated[int, typer.Option(min=512, help="Context window, in tokens.")] = 8192,
) -> None:
    """Serve MODEL (default: EMBEDDED_MODEL) at http://HOST:PORT/v1 until interrupted.

    Use it with LLM_PROVIDER=custom LLM_BASE_URL=http://HOST:PORT/v1 LLM_MODEL_ID=<model>."""
    from deepresearch.llm.factory import default_batch_threads, default_threads
    from deepresearch.llm.model_server import RuntimeOptions, resolve, serve_model
    from deepresearch.settings import Settings

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    with friendly_errors():
        settings = Settings.load()
        served = resolve(
            model or str(settings.embedded_model_path or settings.embedded_model), settings.cache_dir
        )
        threads = settings.embedded_threads or default_threads()
        batch = settings.embedded_threads or default_batch_threads()
        keys = (api_key,) if api_key else ()
        options = RuntimeOptions(n_ctx, threads, batch, api_keys=keys, host=host, port=port)

        def ready(url: str) -> None:
            named = escape(f"{served.model_id} at {url} (model id {served.model_id!r})")
            err.print(f"[dim]serving {named}[/dim]")

        serve_model(served, options, stop=stop, ready=ready)
