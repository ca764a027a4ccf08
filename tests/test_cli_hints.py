"""Every fix hint the command prints reads as written: ``pip install 'deepresearch-offline[pdf]'``
keeps its ``[pdf]`` (rich reads ``[...]`` as markup and used to drop it).

Each test runs the real command in a subprocess whose Python lacks one optional package: a
``sitecustomize`` on its path marks the package absent (``sys.modules[name] = None``), so both
``import`` and ``importlib.util.find_spec`` see it missing, as on a machine without the extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

QUESTION = "Which river runs past the old mill at Tessby?"
BLOCKER = """import os, sys
for name in os.environ.get("HIDDEN_MODULES", "").split(","):
    if name:
        sys.modules[name] = None
"""


def run_without(hidden: str, *args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``deepresearch ARGS`` in a process where the modules named in ``hidden`` are missing."""
    site = tmp_path / "site"
    site.mkdir(exist_ok=True)
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    path = os.pathsep.join([str(site), *sys.path])
    full_env = {
        **os.environ,
        "PYTHONPATH": path,
        "HIDDEN_MODULES": hidden,
        "DEEPRESEARCH_HOME": str(tmp_path / "home"),
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "LLM_MODEL_ID": "none",
        **env,
    }
    command = [sys.executable, "-m", "deepresearch.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, env=full_env, cwd=tmp_path, timeout=120)


def a_docx_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "minutes.docx").write_bytes(b"PK\x03\x04 not really a document")
    return folder


def test_pdf_hint_keeps_its_extra(tmp_path: Path) -> None:
    done = run_without("weasyprint", "research", QUESTION, "--out", "r.pdf", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "pip install 'deepresearch-offline[pdf]'" in done.stderr


def test_docx_export_hint_keeps_its_extra(tmp_path: Path) -> None:
    done = run_without("docx", "research", QUESTION, "--out", "r.docx", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "pip install 'deepresearch-offline[docs]'" in done.stderr


def test_docx_indexing_hint_keeps_its_extra(tmp_path: Path) -> None:
    done = run_without("docx", "index", str(a_docx_folder(tmp_path)), tmp_path=tmp_path)
    assert "pip install 'deepresearch-offline[docs]'" in done.stderr


@pytest.mark.parametrize(
    "first_call",
    [{"MODEL_PLANS": "true"}, {"ANSWER_READER": "auto"}],
    ids=["the model plans", "code plans, the reader's model loads at the start"],
)
def test_embedded_runtime_hint_keeps_its_extra(tmp_path: Path, first_call: dict[str, str]) -> None:
    done = run_without(
        "xllamacpp", "research", QUESTION, tmp_path=tmp_path, LLM_PROVIDER="embedded", **first_call
    )
    assert done.returncode != 0
    assert "pip install 'deepresearch-offline[embedded]'" in done.stderr


def test_mcp_hint_keeps_its_extra(tmp_path: Path) -> None:
    done = run_without("mcp", "mcp", tmp_path=tmp_path)
    assert done.returncode == 2
    assert "pip install 'deepresearch-offline[mcp]'" in done.stderr


@pytest.mark.parametrize(("engine", "package"), [("duckduckgo", "ddgs"), ("tavily", "tavily")])
def test_web_search_hints_keep_their_extra(tmp_path: Path, engine: str, package: str) -> None:
    done = run_without(
        package, "research", QUESTION, "--search", engine, tmp_path=tmp_path, TAVILY_API_KEY="tvly-x"
    )
    assert done.returncode != 0
    assert "pip install 'deepresearch-offline[web]'" in done.stderr


def test_team_hint_keeps_its_extra(tmp_path: Path) -> None:
    done = run_without(
        "celery",
        "worker",
        tmp_path=tmp_path,
        JOBS_BACKEND="celery",
        REDIS_URL="redis://127.0.0.1:9/0",
        DATABASE_URL="postgresql://u@127.0.0.1:9/db",
    )
    assert done.returncode != 0
    assert "pip install 'deepresearch-offline[team]'" in done.stderr


def test_dense_hint_keeps_its_extra(tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# Mill\n\nThe mill stands on the Tessa river.\n", encoding="utf-8")
    done = run_without("tokenizers", "index", str(folder), "--embeddings", tmp_path=tmp_path)
    assert done.returncode != 0
    assert "pip install 'deepresearch-offline[dense]'" in done.stderr
