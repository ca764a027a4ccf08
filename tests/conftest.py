"""Shared fixtures: isolated workspaces and a small on-disk index; no network."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from deepresearch.index.store import DocumentIndex
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

from .closing import Models
from .fakeopenai import FakeOpenAI, serve

PASSAGES = [
    {
        "doc_id": "d1",
        "title": "Karel Purkyně",
        "text": "Karel Purkyně (1834–1868) was a Czech painter. He died in Prague in 1868.",
    },
    {
        "doc_id": "d2",
        "title": "Prague astronomical clock",
        "text": (
            "The Prague astronomical clock, or Orloj, was built in 1410 by Mikuláš of Kadaň. "
            "It is mounted on the Old Town Hall in Prague."
        ),
    },
    {
        "doc_id": "d3",
        "title": "Prague",
        "text": "Prague is the capital of the Czech Republic, on the Vltava river.",
    },
    {
        "doc_id": "d4",
        "title": "Brighton Clock Tower",
        "text": "The Clock Tower in Brighton was built in 1888.",
    },
    {"doc_id": "d5", "title": "Vltava", "text": "The Vltava is the longest river in the Czech Republic."},
]
QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, minilm_home: Path) -> None:
    """No test reads the developer's environment, .env or home folder; the reader is off. Every
    home shares the session's MiniLM file (``EMBEDDINGS_CACHE_DIR``): the answer step reads
    sentence meaning by default, and converting MiniLM for each test's fresh home would cost
    seconds a test."""
    for name in (
        "LLM_PROVIDER",
        "SEARCH_API",
        "MAX_WEB_RESEARCH_LOOPS",
        "DEEPRESEARCH_HOME",
        "INDEX_PATH",
        "NOTES_WORKSPACE",
        "RUNS_WORKSPACE",
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "OPENAI_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EMBEDDINGS_CACHE_DIR", str(minilm_home / "cache"))
    # The installed reader (1.5B) would read wherever a test's answer line abstains: tests that
    # are about it turn it on (tests/answers/test_reader.py).
    monkeypatch.setenv("ANSWER_READER", "off")
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def models() -> Iterator[Models]:
    """Models the test builds (``models.build``, ``models.keep``), closed when it ends."""
    with ExitStack() as stack:
        yield Models(stack)


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the joined and verified embedded model files, shared by the whole session."""
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="session")
def minilm_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A DEEPRESEARCH_HOME whose cache holds the MiniLM GGUF, converted and checked once for the
    session, so tests that turn INDEX_EMBEDDINGS on neither convert it again nor write into the
    developer's home. Without the llama.cpp runtime it is an empty folder (MiniLM runs on numpy)."""
    from deepresearch.errors import ConfigurationError
    from deepresearch.index.dense import dense_missing, llama_available
    from deepresearch.index.llama_embeddings import LlamaEmbedder

    folder = tmp_path_factory.mktemp("minilm-home")
    if llama_available() and dense_missing() is None:
        try:
            LlamaEmbedder(folder / "cache").close()
        except ConfigurationError as exc:
            pytest.skip(str(exc))
    return folder


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """The defaults, except that the model writes the plan (``MODEL_PLANS``): tests script it. The
    bundled embedded models' default, code planning, is tested where it is named."""
    return Settings.load({"deepresearch_home": tmp_path / "home", "model_plans": True})


@pytest.fixture
def index(tmp_path: Path) -> Iterator[DocumentIndex]:
    store = DocumentIndex(tmp_path / "index.sqlite")
    store.add_documents(PASSAGES)
    yield store
    store.close()


@pytest.fixture
def local_search(index: DocumentIndex) -> LocalSearch:
    return LocalSearch(index)


@pytest.fixture
def fake() -> FakeOpenAI:
    """A fault-injecting OpenAI-compatible server's script (see tests/fakeopenai.py)."""
    return FakeOpenAI()


@pytest.fixture
def base_url(fake: FakeOpenAI) -> Iterator[str]:
    """The ``/v1`` base URL of that server, running on 127.0.0.1 for the test."""
    with serve(fake) as url:
        yield url
