"""The ``deepresearch`` command, run as a user runs it: a subprocess with its own environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch.index.loaders import demo_corpus_path


def run_cli(*args: str, home: Path, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "DEEPRESEARCH_HOME": str(home), **env}
    return subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.main", *args],
        capture_output=True,
        text=True,
        env=full_env,
        timeout=timeout,
    )


def test_empty_question_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    done = run_cli("research", "   ", home=tmp_path)
    assert done.returncode == 2
    assert "question is empty" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_error_during_a_run_is_printed_once(tmp_path: Path) -> None:
    done = run_cli("research", "What is x?", home=tmp_path, LLM_PROVIDER="ollama")

    assert done.returncode == 2
    assert done.stderr.count("error:") == 1 and "LLM_MODEL_ID" in done.stderr


def test_an_unreachable_ollama_names_its_own_setting(tmp_path: Path) -> None:
    done = run_cli(
        "research",
        "-q",
        "What is x?",
        home=tmp_path,
        LLM_PROVIDER="ollama",
        LLM_MODEL_ID="m",
        OLLAMA_BASE_URL="http://127.0.0.1:9",
        LLM_MAX_RETRIES="0",
    )

    assert done.returncode == 1
    assert "OLLAMA_BASE_URL" in done.stderr and "LLM_BASE_URL" not in done.stderr


def test_a_question_over_the_limit_is_refused_not_cut(tmp_path: Path) -> None:
    done = run_cli("research", "why " * 1500, home=tmp_path)

    assert done.returncode == 2
    assert "the limit is 2,000 (MAX_QUESTION_CHARS)" in done.stderr


def test_bad_setting_names_the_variable(tmp_path: Path) -> None:
    done = run_cli("research", "x", home=tmp_path, MAX_WEB_RESEARCH_LOOPS="many")
    assert done.returncode == 2
    assert "MAX_WEB_RESEARCH_LOOPS" in done.stderr and "Traceback" not in done.stderr


def test_missing_index_names_the_fix(tmp_path: Path) -> None:
    done = run_cli("research", "anything", home=tmp_path, INDEX_PATH=str(tmp_path / "nope.sqlite"))
    assert done.returncode == 1
    assert "deepresearch index" in done.stderr and "Traceback" not in done.stderr


def test_index_then_doctor_reports_the_passages(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Alpha\n\nAlpha is the first letter.\n", encoding="utf-8")
    (docs / "b.txt").write_text("Beta is the second letter.", encoding="utf-8")
    target = tmp_path / "idx.sqlite"
    indexed = run_cli("index", str(docs), "--index", str(target), home=tmp_path)
    assert indexed.returncode == 0, indexed.stderr
    assert "indexed 2 file(s)" in indexed.stderr
    again = run_cli("index", str(docs), "--index", str(target), home=tmp_path)
    assert "1 unchanged" not in again.stderr and "2 unchanged" in again.stderr
    doctor = run_cli("doctor", "--json", home=tmp_path, INDEX_PATH=str(target))
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert checks["search"]["ok"] and "2 passages" in checks["search"]["detail"]


def test_doctor_names_a_missing_server(tmp_path: Path) -> None:
    done = run_cli(
        "doctor",
        "--json",
        home=tmp_path,
        LLM_PROVIDER="custom",
        LLM_BASE_URL="http://127.0.0.1:9/v1",
        LLM_MODEL_ID="m",
        LLM_API_KEY="sk-secret-123456789",
    )
    assert done.returncode == 1
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    assert not checks["model"]["ok"] and "does not answer" in checks["model"]["detail"]
    assert "sk-secret-123456789" not in done.stdout


@pytest.mark.embedded
def test_demo_question_on_the_embedded_model_cites_demo_passages(tmp_path: Path) -> None:
    question = "When was the astronomical clock built in the city where Karel Purkyně died?"
    done = run_cli("research", question, "--json", "--loops", "1", home=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    demo_ids = {json.loads(line)["doc_id"] for line in demo_corpus_path().read_text("utf-8").splitlines()}
    cited = [s for s in result["sources"] if s["id"] in result["cited_source_ids"]]
    assert cited and all(s["doc_id"] in demo_ids for s in cited)
    assert "## References" in result["report_markdown"]
    assert {t["status"] for t in result["todo_items"]} <= {"completed", "skipped"}
    assert result["rounds"] == 1
    assert "task 1" in done.stderr  # progress went to stderr
    calls = result["usage"]["calls"]
    assert f"model: {calls} calls, " in done.stderr and "completion tokens" in done.stderr


def test_a_misspelled_setting_is_warned_about_with_the_name_it_is_near(tmp_path: Path) -> None:
    done = run_cli("settings", home=tmp_path, LLM_PROVIDR="ollama")

    assert "LLM_PROVIDR (in the environment) is no setting: did you mean LLM_PROVIDER?" in done.stderr


def test_doctor_names_a_misspelled_dotenv_key(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("SEARCH_APII=local\n# LLM_PROVIDR=x\n", encoding="utf-8")
    full_env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "deepresearch.cli.main", "doctor", "--json"],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=tmp_path,
        timeout=120,
    )

    checks = [c for c in json.loads(done.stdout) if c["name"] == "environment"]
    assert [c["detail"] for c in checks] == [
        "SEARCH_APII (in the .env) is no setting: did you mean SEARCH_API?"
    ]


def test_format_values_complete_in_the_shell(tmp_path: Path) -> None:
    command = Path(sys.executable).with_name("deepresearch")
    words = {"_DEEPRESEARCH_COMPLETE": "complete_bash", "COMP_WORDS": "deepresearch research q --format "}
    env = {**os.environ, "DEEPRESEARCH_HOME": str(tmp_path), "COMP_CWORD": "4", **words}
    done = subprocess.run([str(command)], capture_output=True, text=True, env=env, timeout=60)

    assert done.stdout.split() == ["docx", "html", "json", "md", "pdf"]  # the registry lists formats by name
