"""Your documents stay yours: the demo corpus has its own index and is searched only when you
have indexed nothing. Real SQLite indexes, the scripted model, the real CLI."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from deepresearch import research
from deepresearch.cli.main import app
from deepresearch.doctor import run_checks
from deepresearch.index.corpus import demo_index_path, is_demo_corpus_file
from deepresearch.index.loaders import demo_corpus_path
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ScriptedModel
from deepresearch.result import ResearchResult
from deepresearch.settings import Settings

from .fakeopenai import FakeOpenAI, research_responder, serve

QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"
DEMO_IDS = frozenset(
    json.loads(line)["doc_id"] for line in demo_corpus_path().read_text("utf-8").splitlines()
)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A user's folder whose words overlap the demo corpus's Prague clock passages."""
    folder = tmp_path / "my-docs"
    folder.mkdir()
    (folder / "clock.md").write_text(
        "# Workshop clock\n\nOur astronomical clock replica was built in 2021 in Brno, the city "
        "where the workshop stands. Karel Purkyně never saw it.\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text("The replica's dial was painted in Brno in 2022.", encoding="utf-8")
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


def _settings(home: Path, **extra: object) -> Settings:
    return Settings.load({"deepresearch_home": home, "max_web_research_loops": 1, **extra})


def _index(home: Path, *paths: Path) -> None:
    with DocumentIndex(_settings(home).resolved_index_path) as index:
        index.index_paths(list(paths))


def _demo_sources(result: ResearchResult) -> list[str]:
    return [s.url for s in result.sources if s.doc_id in DEMO_IDS]


def _cited(result: ResearchResult) -> list[str]:
    return [s.doc_id or "" for s in result.sources if s.id in result.cited_source_ids]


def test_a_question_about_your_documents_never_reads_a_demo_passage(home: Path, docs: Path) -> None:
    _index(home, docs)
    result = research(QUESTION, settings=_settings(home), model=ScriptedModel())
    assert result.sources, "the user's documents answer the question"
    assert _demo_sources(result) == []
    assert all(doc_id not in DEMO_IDS for doc_id in _cited(result))
    assert not demo_index_path(_settings(home)).exists()
    assert not any("demo corpus" in n for n in result.notices)


def test_the_demo_corpus_is_searched_only_while_nothing_is_indexed(home: Path, docs: Path) -> None:
    settings = _settings(home)
    first = research(QUESTION, settings=settings, model=ScriptedModel())
    assert _demo_sources(first), "with nothing indexed, the demo corpus answers"
    assert any("indexed nothing" in n and "research --demo" in n for n in first.notices)
    assert demo_index_path(settings).exists() and not settings.resolved_index_path.exists()

    _index(home, docs)
    second = research(QUESTION, settings=settings, model=ScriptedModel())
    assert second.sources and _demo_sources(second) == []
    with DocumentIndex.open_existing(settings.resolved_index_path) as index:
        assert not any(is_demo_corpus_file(p) for p in index.indexed_files())


def test_an_old_mixed_index_loses_its_demo_passages_on_first_use(home: Path, docs: Path) -> None:
    """What older versions left: the demo corpus built into the default index, then your docs."""
    _index(home, demo_corpus_path(), docs)
    settings = _settings(home)
    result = research(QUESTION, settings=settings, model=ScriptedModel())
    assert _demo_sources(result) == []
    assert any("dropped" in n and "demo passage" in n for n in result.notices)
    with DocumentIndex.open_existing(settings.resolved_index_path) as index:
        files = index.indexed_files()
    assert files and not any(is_demo_corpus_file(p) for p in files)
    again = research(QUESTION, settings=settings, model=ScriptedModel())
    assert not any("dropped" in n for n in again.notices)


def test_an_old_demo_only_index_makes_way_for_the_demo_index(home: Path) -> None:
    _index(home, demo_corpus_path())
    settings = _settings(home)
    result = research(QUESTION, settings=settings, model=ScriptedModel())
    assert _demo_sources(result), "nothing of the user's: the demo corpus, from its own index"
    assert not settings.resolved_index_path.exists()
    assert demo_index_path(settings).exists()
    assert any("held nothing else" in n for n in result.notices)


@pytest.mark.parametrize(
    ("path", "demo"),
    [
        (str(demo_corpus_path().resolve()), True),
        ("/old/venv/lib/python3.11/site-packages/deepresearch/data/demo_corpus.jsonl", True),
        ("/home/me/my-docs/demo_corpus.jsonl", False),
        ("/home/me/my-docs/deepresearch/notes.md", False),
    ],
)
def test_demo_corpus_files_are_recognised_from_any_install(path: str, demo: bool) -> None:
    assert is_demo_corpus_file(path) is demo


def test_doctor_says_which_index_research_searches(home: Path, docs: Path) -> None:
    settings = _settings(home)
    [before] = [c for c in run_checks(settings, probe=False) if c.name == "search"]
    assert before.ok and "indexed nothing" in before.detail and "demo corpus" in before.detail
    _index(home, demo_corpus_path(), docs)
    [after] = [c for c in run_checks(settings, probe=False) if c.name == "search"]
    assert after.ok and "your local index" in after.detail
    assert "1 demo-corpus file(s)" in after.detail


@pytest.fixture
def fake_server() -> Iterator[str]:
    with serve(FakeOpenAI(responder=research_responder())) as url:
        yield url


def test_research_index_option_searches_that_file(
    tmp_path: Path, home: Path, docs: Path, fake_server: str
) -> None:
    target = tmp_path / "elsewhere.sqlite"
    with DocumentIndex(target) as index:
        index.index_paths([docs])
    env = {
        "DEEPRESEARCH_HOME": str(home),
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": fake_server,
        "LLM_MODEL_ID": "fake-model",
        "MAX_WEB_RESEARCH_LOOPS": "1",
    }
    done = CliRunner().invoke(app, ["research", QUESTION, "--index", str(target), "--json", "-q"], env=env)
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["sources"] and all(s["doc_id"] not in DEMO_IDS for s in result["sources"])
    assert not demo_index_path(_settings(home)).exists()
    nowhere = str(tmp_path / "none.sqlite")
    missing = CliRunner().invoke(app, ["research", QUESTION, "--index", nowhere], env=env)
    assert missing.exit_code == 1 and "deepresearch index" in missing.output
    twice = ["research", QUESTION, "--index", str(target), "--corpus", str(docs)]
    both = CliRunner().invoke(app, twice, env=env)
    assert both.exit_code == 2 and "--corpus or --index" in both.output


def test_after_indexing_your_documents_demo_brings_the_demo_corpus_back(
    home: Path, docs: Path, fake_server: str
) -> None:
    """``deepresearch index`` says how to get back to the demo corpus, and ``--demo`` (or
    ``DEMO_CORPUS``) does, without touching your index; with ``--index`` it is refused."""
    env = {
        "DEEPRESEARCH_HOME": str(home),
        "LLM_PROVIDER": "custom",
        "LLM_BASE_URL": fake_server,
        "LLM_MODEL_ID": "fake-model",
        "MAX_WEB_RESEARCH_LOOPS": "1",
    }
    indexed = CliRunner().invoke(app, ["index", str(docs)], env=env)
    assert indexed.exit_code == 0 and "research --demo" in indexed.stderr
    ours = CliRunner().invoke(app, ["research", QUESTION, "--json", "-q"], env=env)
    assert ours.exit_code == 0 and not any(
        s["doc_id"] in DEMO_IDS for s in json.loads(ours.stdout)["sources"]
    )

    back = CliRunner().invoke(app, ["research", QUESTION, "--demo", "--json"], env=env)
    assert back.exit_code == 0, back.output
    result = json.loads(back.stdout)
    assert result["sources"] and all(s["doc_id"] in DEMO_IDS for s in result["sources"])
    assert "DEMO_CORPUS is on" in back.stderr
    by_setting = research(QUESTION, settings=_settings(home, demo_corpus=True), model=ScriptedModel())
    assert _demo_sources(by_setting) and len(_demo_sources(by_setting)) == len(by_setting.sources)
    with DocumentIndex.open_existing(_settings(home).resolved_index_path) as index:
        assert not any(is_demo_corpus_file(p) for p in index.indexed_files())
    mixed = CliRunner().invoke(app, ["research", QUESTION, "--demo", "--index", "x.sqlite"], env=env)
    assert mixed.exit_code == 2 and "--demo" in mixed.output
