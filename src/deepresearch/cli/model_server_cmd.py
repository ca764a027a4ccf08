"""``deepresearch model-server``: serve an embedded model over an OpenAI-compatible HTTP API."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from deepresearch.cli.console import err, friendly_errors
from deepresearch.errors import ConfigurationError


def model_server_command(
    model: Annotated[
        str | None, typer.Option(help="A bundled model (smollm2, qwen0.5b, qwen1.5b) or a .gguf path.")
    ] = None,
    host: Annotated[
        str, typer.Option(help="Interface to listen on; any but loopback needs MODEL_SERVER_API_KEY.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8081,
    api_key: Annotated[
        str | None,
        typer.Option(
            envvar="MODEL_SERVER_API_KEY",
            show_envvar=True,
            help="Require this bearer key. Set it in the environment: a key given as --api-key shows in ps.",
        ),
    ] = None,
    n_ctx: Annotated[int, typer.Option(min=512, help="Context window, in tokens.")] = 8192,
    max_tokens: Annotated[
        int,
        typer.Option(
            min=1, max=1_000_000, help="Most tokens one request may generate (larger asks are cut)."
        ),
    ] = 2048,
    max_body_kb: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Largest request body, in KiB (larger ones get 413).")
    ] = 1024,
    request_timeout: Annotated[
        float,
        typer.Option(
            min=1, max=86_400, help="Seconds one request may hold the model before it is cut off (504)."
        ),
    ] = 300.0,
) -> None:
    """Serve MODEL (default: EMBEDDED_MODEL) at http://HOST:PORT/v1 until interrupted.

    The model answers one request at a time, in order of arrival; no client can hold it for long:
    each request generates at most --max-tokens, sends at most --max-body-kb and holds the model
    at most --request-timeout seconds. Use it with LLM_PROVIDER=custom
    LLM_BASE_URL=http://HOST:PORT/v1 LLM_MODEL_ID=<model> (and LLM_API_KEY=<the key>)."""
    from deepresearch.llm.factory import default_batch_threads, default_threads
    from deepresearch.llm.model_server import GateLimits, RuntimeOptions, is_loopback, resolve, serve_model
    from deepresearch.settings import Settings

    with friendly_errors():
        if not api_key and not is_loopback(host):
            raise ConfigurationError(
                f"model-server --host {host} without a key would serve the model to anyone who can "
                "reach it: set MODEL_SERVER_API_KEY, or listen on 127.0.0.1"
            )
        if any(arg == "--api-key" or arg.startswith("--api-key=") for arg in sys.argv):
            err.print("[yellow]warning:[/yellow] --api-key shows in ps; set MODEL_SERVER_API_KEY instead")
        settings = Settings.load()
        served = resolve(
            model or str(settings.embedded_model_path or settings.embedded_model), settings.cache_dir
        )
        threads = settings.embedded_threads or default_threads()
        batch = settings.embedded_threads or default_batch_threads()
        keys = (api_key,) if api_key else ()
        options = RuntimeOptions(n_ctx, threads, batch, api_keys=keys, host=host, port=port)
        limits = GateLimits(max_tokens, max_body_kb * 1024, request_timeout)

        def ready(url: str) -> None:
            named = escape(f"{served.model_id} at {url} (model id {served.model_id!r})")
            err.print(f"[dim]serving {named}[/dim]")

        serve_model(served, options, limits, ready=ready)
