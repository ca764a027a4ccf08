"""The command as a user meets it: version, completion, help, doctor on stdout, exit codes, the
OpenAI key variable, and the settings page that documents every setting."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from deepresearch import __version__
from deepresearch.errors import ConfigurationError
from deepresearch.llm.presets import server_endpoint
from deepresearch.settings import Settings
from deepresearch.settings_docs import settings_markdown, undocumented

ROOT = Path(__file__).resolve().parents[1]
COMMAND = Path(sys.executable).with_name("deepresearch")
OPENAI_KEY = "sk-openai-abcdefghijklmnopqrstuvwxyz0123"


def run(*args: str, home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "OPENAI_"))}
    return subprocess.run(
        [str(COMMAND), *args],
        capture_output=True,
        text=True,
        env={**clean, "DEEPRESEARCH_HOME": str(home), **env},
        timeout=120,
    )


def test_version_prints_the_package_version(tmp_path: Path) -> None:
    done = run("--version", home=tmp_path)
    assert done.returncode == 0
    assert done.stdout.strip() == f"deepresearch {__version__}"


def test_shell_completion_completes_commands_and_flags(tmp_path: Path) -> None:
    words = {"_DEEPRESEARCH_COMPLETE": "complete_bash", "COMP_CWORD": "1"}
    commands = run(home=tmp_path, COMP_WORDS="deepresearch res", **words)
    assert commands.stdout.split() == ["research"]
    flags = run(home=tmp_path, COMP_WORDS="deepresearch research --js", **{**words, "COMP_CWORD": "2"})
    assert flags.stdout.split() == ["--json"]
    assert "--show-completion" in run("--help", home=tmp_path).stdout


def test_flags_are_shown_without_a_value(tmp_path: Path) -> None:
    help_text = run("research", "--help", home=tmp_path).stdout
    assert "--json " in help_text and "-q, --quiet" in help_text
    assert "<bool>" not in help_text


def test_doctor_writes_to_stdout_so_it_can_be_piped(tmp_path: Path) -> None:
    done = run("doctor", home=tmp_path)
    assert "workspaces:" in done.stdout and "search:" in done.stdout
    assert "workspaces:" not in done.stderr


def test_doctor_exits_2_when_the_provider_lacks_its_key(tmp_path: Path) -> None:
    done = run("doctor", home=tmp_path, LLM_PROVIDER="openai", LLM_MODEL_ID="gpt-4o-mini")
    assert done.returncode == 2
    assert "OPENAI_API_KEY" in done.stdout


def test_research_exits_2_when_the_provider_lacks_its_key(tmp_path: Path) -> None:
    done = run("research", "-q", "anything", home=tmp_path, LLM_PROVIDER="openai", LLM_MODEL_ID="m")
    assert done.returncode == 2
    assert "OPENAI_API_KEY" in done.stderr and "Traceback" not in done.stderr


def test_openai_provider_takes_openai_api_key_from_the_environment(tmp_path: Path) -> None:
    done = run(
        "doctor", home=tmp_path, LLM_PROVIDER="openai", LLM_MODEL_ID="gpt-4o-mini", OPENAI_API_KEY=OPENAI_KEY
    )
    assert "ok provider: openai at https://api.openai.com/v1 (key sk-o…0123)" in done.stdout
    assert OPENAI_KEY not in done.stdout + done.stderr


def test_openai_api_key_goes_only_to_openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    openai = Settings.load({"llm_provider": "openai", "deepresearch_home": tmp_path})
    assert server_endpoint(openai) == ("https://api.openai.com/v1", OPENAI_KEY)
    custom = openai.with_overrides(llm_provider="custom", llm_base_url="http://127.0.0.1:9/v1")
    assert server_endpoint(custom) == ("http://127.0.0.1:9/v1", None)
    preferred = openai.with_overrides(llm_api_key="sk-llm-key-0123456789abcdef")
    assert server_endpoint(preferred)[1] == "sk-llm-key-0123456789abcdef"


def test_openai_without_any_key_names_both_variables(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY or LLM_API_KEY"):
        server_endpoint(Settings.load({"llm_provider": "openai", "deepresearch_home": tmp_path}))


def test_every_setting_is_documented() -> None:
    assert undocumented() == []


def test_the_settings_page_is_generated_from_the_model() -> None:
    page = (ROOT / "docs" / "SETTINGS.md").read_text(encoding="utf-8")
    assert page == settings_markdown(), "regenerate: deepresearch settings --markdown > docs/SETTINGS.md"
    for name in Settings.model_fields:
        assert f"| `{name.upper()}` |" in page


def test_settings_command_lists_values_in_force_with_secrets_masked(tmp_path: Path) -> None:
    done = run("settings", home=tmp_path, LLM_API_KEY=OPENAI_KEY, MAX_WEB_RESEARCH_LOOPS="2")
    assert "MAX_WEB_RESEARCH_LOOPS=2" in done.stdout
    assert "LLM_API_KEY=sk-o…0123" in done.stdout and OPENAI_KEY not in done.stdout


def test_serve_names_where_a_team_nodes_jobs_live_without_the_password(tmp_path: Path) -> None:
    from deepresearch.cli.main import _jobs_home
    from deepresearch.settings import Settings

    team = Settings(
        deepresearch_home=tmp_path,
        jobs_backend="celery",
        database_url="postgresql://dr:s3cret@db.internal:5432/research",
        redis_url="redis://127.0.0.1:6379/0",
    )
    shown = _jobs_home(team)
    assert "db.internal:5432/research" in shown and "s3cret" not in shown
    assert _jobs_home(Settings(deepresearch_home=tmp_path)).endswith(".sqlite")


def test_a_run_ends_with_its_token_counts_and_a_cost_when_prices_are_set(tmp_path: Path) -> None:
    from deepresearch.agent import priced
    from deepresearch.cli.main import usage_line
    from deepresearch.settings import Settings

    usage = {"calls": 4, "prompt_tokens": 1203, "completion_tokens": 388}
    plain = Settings(deepresearch_home=tmp_path)
    assert usage_line(priced(usage, plain)) == "model: 4 calls, 1,203 prompt + 388 completion tokens"
    prices = plain.with_overrides(llm_price_prompt_per_mtok=2.0, llm_price_completion_per_mtok=10.0)
    assert priced(usage, prices)["cost"] == 0.006286
    assert usage_line(priced(usage, prices)).endswith("(cost 0.0063)")
