"""``deepresearch research --out/--format``: the file is in the format asked for, checked before the
research starts; against a real OpenAI-compatible server on loopback and a real index file."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepresearch.cli.main import app
from deepresearch.index.store import DocumentIndex

from ..conftest import PASSAGES, QUESTION
from ..fakeopenai import FakeOpenAI, research_responder, serve


@pytest.fixture
def env(tmp_path: Path) -> Iterator[dict[str, str]]:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents(PASSAGES)
    with serve(FakeOpenAI(responder=research_responder())) as url:
        yield {
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": url,
            "LLM_MODEL_ID": "fake-model",
            "MAX_WEB_RESEARCH_LOOPS": "1",
        }


def invoke(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    done = CliRunner().invoke(app, ["research", QUESTION, "-q", *args], env=env)
    return done.exit_code, done.stdout, done.stderr


def test_out_html_writes_html_not_markdown(env: dict[str, str], tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    code, stdout, _ = invoke(env, "--out", str(target))
    assert code == 0
    html = target.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and 'href="#ref-1"' in html and 'id="ref-1"' in html
    assert stdout.startswith("# "), "stdout still gets the Markdown report"


def test_out_docx_and_pdf_are_documents(env: dict[str, str], tmp_path: Path) -> None:
    docx = pytest.importorskip("docx", reason="pip install 'deepresearch-offline[docs]'")
    code, _, _ = invoke(env, "--out", str(tmp_path / "r.docx"))
    assert code == 0
    assert docx.Document(str(tmp_path / "r.docx")).paragraphs[0].text == QUESTION
    pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    from pypdf import PdfReader

    code, _, _ = invoke(env, "--format", "pdf", "--out", str(tmp_path / "report.bin"))
    assert code == 0
    text = PdfReader(io.BytesIO((tmp_path / "report.bin").read_bytes())).pages[0].extract_text()
    assert QUESTION[:30] in text


def test_format_without_out_prints_that_format(env: dict[str, str]) -> None:
    code, stdout, _ = invoke(env, "--format", "json")
    assert code == 0 and json.loads(stdout)["question"] == QUESTION
    code, stdout, _ = invoke(env, "--format", "html")
    assert code == 0 and stdout.startswith("<!doctype html>")


def test_bad_formats_fail_before_any_research(env: dict[str, str], tmp_path: Path) -> None:
    dead = {**env, "LLM_BASE_URL": "http://127.0.0.1:9/v1"}
    code, _, stderr = invoke(dead, "--out", str(tmp_path / "report.odt"))
    assert code == 2 and "--format" in stderr
    code, _, stderr = invoke(dead, "--format", "pdf")
    assert code == 2 and "--out report.pdf" in stderr
    assert not (tmp_path / "report.odt").exists()
