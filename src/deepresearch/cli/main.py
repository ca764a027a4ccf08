"""The ``deepresearch`` command. The only place that prints; errors become messages, not tracebacks."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console
from rich.markup import escape

from deepresearch.cli.backends_cmd import backends_command
from deepresearch.cli.console import err, friendly_errors
from deepresearch.cli.followup_cmd import followup_command
from deepresearch.cli.mcp_cmd import mcp_command
from deepresearch.cli.model_server_cmd import model_server_command
from deepresearch.cli.settings_cmd import settings_command
from deepresearch.cli.worker_cmd import worker_command
from deepresearch.errors import ConfigurationError, ResearchCancelledError
from deepresearch.settings import Settings

if TYPE_CHECKING:
    from deepresearch.cli.interrupt import Interruption
    from deepresearch.cli.output import Output
    from deepresearch.evaluation.dataset import Half

app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, help="Deep research, offline by default.")
out_console = Console(soft_wrap=True)

_GC_THRESHOLDS = (20_000, 20, 10)
"""Collector thresholds for a command's process: the youngest generation is collected after
20,000 allocations instead of 700, so importing LangGraph and the model SDK (~300,000 objects)
triggers no full collection."""


def _print_version(value: bool) -> None:
    if value:
        from deepresearch import __version__

        sys.stdout.write(f"deepresearch {__version__}\n")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Deep research, offline by default."""
    import os

    from deepresearch.settings import misspelled_settings

    for warning in misspelled_settings(os.environ):
        err.print(f"[yellow]warning:[/yellow] {escape(warning)}")


@app.command()
def research(
    question: Annotated[str, typer.Argument(help="The research question.")],
    out: Annotated[
        Path | None,
        typer.Option(help="Also write the report to this file, in the format its suffix names."),
    ] = None,
    format_name: Annotated[
        str | None,
        typer.Option(
            "--format",
            help="Export format, as deepresearch backends lists them (default: --out's suffix, else md).",
            autocompletion=_formats,
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result as JSON.")] = False,
    search: Annotated[
        str | None,
        typer.Option(
            help="Search backend (SEARCH_API): deepresearch backends lists them.", autocompletion=_backends
        ),
    ] = None,
    loops: Annotated[int | None, typer.Option(help="Max research rounds (MAX_WEB_RESEARCH_LOOPS).")] = None,
    provider: Annotated[str | None, typer.Option(help="Model provider (LLM_PROVIDER).")] = None,
    corpus: Annotated[Path | None, typer.Option(help="Index this folder/file and research it.")] = None,
    index: Annotated[
        Path | None,
        typer.Option(help="Search this index file (INDEX_PATH), built by: deepresearch index --index FILE."),
    ] = None,
    demo: Annotated[
        bool,
        typer.Option(
            "--demo", help="Search the bundled demo corpus, even after deepresearch index (DEMO_CORPUS)."
        ),
    ] = False,
    report_type: Annotated[
        str | None,
        typer.Option(
            "--report-type",
            help="detailed (every task's evidence), brief (answer and key cited facts) or resources "
            "(annotated sources, by task); REPORT_TYPE.",
            autocompletion=_report_types,
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress on stderr.")] = False,
    review_plan: Annotated[
        bool,
        typer.Option("--review-plan", help="Show the plan first: accept, drop or edit tasks (stdin)."),
    ] = False,
    clarify_question: Annotated[
        bool,
        typer.Option("--clarify", help="For a broad question, ask what to focus on first (stdin)."),
    ] = False,
) -> None:
    """Research QUESTION and print a cited Markdown report."""
    from deepresearch.cli.interrupt import Interruption
    from deepresearch.cli.output import plan_output

    interruption = Interruption(err)
    with friendly_errors(), interruption.installed():
        output = plan_output(format_name, out, as_json)
        overrides = {
            "search_api": search,
            "max_web_research_loops": loops,
            "llm_provider": provider,
            "demo_corpus": demo or None,
            "report_type": report_type,
        }
        settings = _research_settings(overrides, corpus, index, quiet)
        question = _clarified(question) if clarify_question else question
        _run_and_write(question, settings, output, interruption, quiet=quiet, review_plan=review_plan)


def _clarified(question: str) -> str:
    from deepresearch.cli.review import clarify

    return clarify(question, err)


def _run_and_write(
    question: str,
    settings: Settings,
    output: Output,
    interruption: Interruption,
    *,
    quiet: bool,
    review_plan: bool,
) -> None:
    """One run with progress on stderr (unless ``quiet``), the plan reviewed at the terminal
    (with ``review_plan``), the result written as ``output`` says; Ctrl-C ends it cleanly."""
    from deepresearch.agent import research as run_research
    from deepresearch.cli.progress import ProgressPrinter, ReportPrinter
    from deepresearch.cli.review import TerminalReviewer

    progress = None if quiet else ProgressPrinter(err)
    sink = ReportPrinter(progress) if output.streams_markdown else progress
    reviewer = TerminalReviewer(err) if review_plan else None
    try:
        result = run_research(
            question,
            settings=settings,
            on_event=interruption.watching(sink),
            review_plan=reviewer,
            cancel=interruption.cancel,
        )
    except ResearchCancelledError:
        if not interruption.cancel.is_set():  # stopped on purpose (plan review): say why
            raise
        interruption.exit()
    output.write(result, err, streamed=isinstance(sink, ReportPrinter) and sink.printed)
    if not quiet:
        err.print(f"[dim]{usage_line(result.usage)}[/dim]")


def _backends() -> list[str]:
    """``--search``'s values, for shell completion."""
    from deepresearch.search.registry import BACKENDS

    return list(BACKENDS.names())


def _report_types() -> list[str]:
    """``--report-type``'s values, for shell completion."""
    from deepresearch.report_types import REPORT_TYPES

    return list(REPORT_TYPES)


def _formats() -> list[str]:
    """``--format``'s values, for shell completion."""
    from deepresearch.export import FORMATS

    return list(FORMATS.names())


def _research_settings(
    overrides: dict[str, Any], corpus: Path | None, index: Path | None, quiet: bool
) -> Settings:
    """The run's settings: the flags over the environment, and --corpus indexed into its own file."""
    if corpus is not None and index is not None:
        raise ConfigurationError("--corpus researches its own cached index; give --corpus or --index")
    if overrides.get("demo_corpus") and (corpus is not None or index is not None):
        raise ConfigurationError(
            "--demo researches the bundled demo corpus; give --demo, --corpus or --index"
        )
    settings = Settings.load({**overrides, "index_path": index})
    if corpus is not None:
        settings = settings.with_overrides(index_path=_index_corpus(settings, corpus, quiet))
    return settings


def usage_line(usage: dict[str, Any]) -> str:
    """ "model: 4 calls, 1,203 prompt + 388 completion tokens (cost 0.0021)": what the run used, and
    its cost when prices are set (see :func:`deepresearch.agent.priced`)."""
    prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    line = f"model: {usage.get('calls', 0)} calls, {prompt:,} prompt + {completion:,} completion tokens"
    return line + (f" (cost {usage['cost']:.4f})" if "cost" in usage else "")


@app.command("index")
def index_cmd(
    paths: Annotated[
        list[Path], typer.Argument(help="Folders or files (.md .txt .jsonl .html .pdf .docx .csv .tsv).")
    ],
    index: Annotated[Path | None, typer.Option(help="Index file (default: INDEX_PATH).")] = None,
    embeddings: Annotated[
        bool,
        typer.Option(
            "--embeddings",
            help="Also embed passages with MiniLM for hybrid search (INDEX_EMBEDDINGS; ~10-15 passages/s).",
        ),
    ] = False,
) -> None:
    """Build or update the local document index from PATHS (incremental)."""
    from deepresearch.index.corpus import DEMO_AGAIN
    from deepresearch.index.dense import embedder_for
    from deepresearch.index.loaders import IndexLimits
    from deepresearch.index.store import DocumentIndex

    with friendly_errors():
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            raise ConfigurationError(f"no such file or folder: {', '.join(missing)}")
        settings = Settings.load({"index_embeddings": embeddings or None})
        target = index or settings.resolved_index_path
        limits = IndexLimits(settings.index_max_file_mb * 2**20, settings.index_max_unpacked_mb * 2**20)
        with DocumentIndex(target, embedder_for(settings, _dim_line)) as store:
            stats = store.index_paths(paths, progress=_dim_line, limits=limits)
    skipped = f", {stats.files_skipped} skipped (see above)" if stats.files_skipped else ""
    skipped += f", {stats.files_failed} failed (see above)" if stats.files_failed else ""
    err.print(
        f"indexed {stats.files_indexed} file(s), {stats.files_skipped_unchanged} unchanged, "
        f"{stats.files_removed} removed{skipped}; {stats.passages_total} passages in {escape(str(target))} "
        f"({stats.seconds:.2f}s)"
        + (f"; {stats.passages_embedded} passages embedded" if stats.passages_embedded else "")
    )
    if index is None and settings.uses_default_index and not settings.demo_corpus:
        err.print(f"research now searches this index instead of the bundled demo corpus; {DEMO_AGAIN}")


def _dim_line(message: str) -> None:
    err.print(f"[dim]{escape(message)}[/dim]")


def _dim(message: str) -> None:
    err.print(f"[dim]{escape(message)}[/dim]")


@app.command()
def doctor(
    as_json: Annotated[bool, typer.Option("--json", help="Print the checks as JSON.")] = False,
) -> None:
    """Check the provider, model file, index and workspaces, and say how to fix what is missing.

    Exits 0 when all is well, 2 when the provider's configuration is incomplete, 1 otherwise."""
    from deepresearch.doctor import run_checks

    with friendly_errors():
        checks = run_checks(Settings.load())
    if as_json:
        sys.stdout.write(json.dumps([c.as_dict() for c in checks], indent=2) + "\n")
    else:
        for check in checks:
            mark = "[green]ok[/green]" if check.ok else "[red]!![/red]"
            fix = f"\n     fix: {check.fix}" if check.fix and not check.ok else ""
            out_console.print(f"{mark} {check.name}: {escape(check.detail)}{escape(fix)}")
    failed = {c.name for c in checks if not c.ok}
    if failed:
        raise typer.Exit(2 if "provider" in failed else 1)


@app.command("eval")
def eval_cmd(
    questions: Annotated[Path, typer.Argument(help="Questions JSONL (question, answers, gold_doc_ids).")],
    corpus: Annotated[Path, typer.Option(help="Corpus JSONL (doc_id, title, text); indexed and cached.")],
    limit: Annotated[int | None, typer.Option(help="Only the first N questions (after shuffling).")] = None,
    seed: Annotated[int | None, typer.Option(help="Shuffle the questions with this seed.")] = None,
    baseline: Annotated[str | None, typer.Option(help="Also run a baseline: 'naive'.")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Write results JSON here (and a .md table beside it).")
    ] = None,
    loops: Annotated[int | None, typer.Option(help="Max research rounds.")] = None,
    half: Annotated[
        str | None,
        typer.Option(
            help="Only one half of the questions, split by a hash of qid: 'dev' (tune) or 'test' (report)."
        ),
    ] = None,
    drop_gold: Annotated[
        bool,
        typer.Option(
            "--drop-gold",
            help="Remove the questions' gold passages from the corpus: measures how often the agent "
            "says the sources do not answer instead of guessing.",
        ),
    ] = False,
) -> None:
    """Run the agent (and a baseline) on QUESTIONS over CORPUS and score it."""
    from deepresearch.evaluation.runner import EvalOptions, run_evaluation

    with friendly_errors():
        settings = Settings.load({"max_web_research_loops": loops})
        options = EvalOptions(
            questions=questions,
            corpus=corpus,
            limit=limit,
            seed=seed,
            baseline=baseline,
            out=out,
            drop_gold=drop_gold,
            half=_half(half),
        )
        report = run_evaluation(settings, options, console=err)
    sys.stdout.write(report.markdown())


def _half(value: str | None) -> Half | None:
    if value is None or value in ("dev", "test"):
        return cast("Half | None", value)
    raise ConfigurationError(f"--half is 'dev' or 'test', not {value!r}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
) -> None:
    """Serve the HTTP API (/docs) and the web page (/) until interrupted."""
    from deepresearch.server.security import refuse_open_cors
    from deepresearch.server.serve import serve as run_server

    with friendly_errors():
        settings = Settings.load()
        refuse_open_cors(settings)
    jobs = escape(_jobs_home(settings))
    err.print(f"[dim]deepresearch serving on http://{escape(host)}:{port} (jobs: {jobs})[/dim]")
    run_server(settings, host=host, port=port)


def _jobs_home(settings: Settings) -> str:
    """Where this node's jobs live: the SQLite file, or the PostgreSQL database (no password)."""
    if settings.jobs_backend == "celery" and settings.database_url is not None:
        from deepresearch.doctor.cluster import where

        return f"PostgreSQL {where(settings.database_url.get_secret_value())}, Celery workers"
    return str(settings.jobs_db_path)


app.command("settings")(settings_command)
app.command("backends")(backends_command)
app.command("followup")(followup_command)
app.command("mcp")(mcp_command)
app.command("worker")(worker_command)
app.command("model-server")(model_server_command)


def _index_corpus(settings: Settings, corpus: Path, quiet: bool) -> Path:
    from deepresearch.index.corpus import ensure_corpus_index

    target, stats = ensure_corpus_index(settings, corpus)
    if not quiet:
        err.print(
            f"[dim]• corpus {escape(str(corpus))}: {stats.passages_total} passages "
            f"({stats.files_indexed} file(s) re-indexed)[/dim]"
        )
    return target


def main() -> None:
    """The ``deepresearch`` command. A command is a short-lived process, so the cyclic garbage
    collector runs less often while LangGraph and the model SDK are imported (about 0.2 s less
    before the first step), and everything alive at the end is frozen so that the interpreter's
    teardown does not walk it (about 0.4 s less from the last answer to the prompt)."""
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        app()
    finally:
        gc.freeze()


if __name__ == "__main__":
    main()
