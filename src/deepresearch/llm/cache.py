"""An on-disk cache of model calls (``LLM_CACHE=read|readwrite``), so re-running costs nothing.

A call's key is the SHA-256 of the full request: the model's identity (provider, base URL, model,
temperature, structured-output mode, ... as the factory describes it), whether it streams, the
messages, the schema and ``max_tokens``. One JSON file per key under ``directory``; writes are
atomic (a temporary file renamed), so parallel runs never read half a file. A file that cannot be
read is a miss; a file that cannot be written is logged and skipped, never a failed run. Empty
answers and streams that did not finish are not kept.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from deepresearch.files import atomic_write_text
from deepresearch.llm.base import ChatModel, Completion, ModelCall, Usage
from deepresearch.llm.wrapper import ModelWrapper

CacheMode = Literal["read", "readwrite"]
_log = logging.getLogger("deepresearch.llm.cache")


def request_key(identity: Mapping[str, Any], kind: str, request: Mapping[str, Any]) -> str:
    """The cache key of one request: stable across runs and processes."""
    payload = json.dumps(
        {"identity": dict(identity), "kind": kind, **request}, sort_keys=True, ensure_ascii=False
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class CachedModel(ModelWrapper):
    """Wraps a model; answers repeated requests from ``directory``. A hit costs no tokens."""

    def __init__(
        self,
        inner: ChatModel,
        directory: Path,
        *,
        mode: CacheMode = "readwrite",
        identity: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(inner)
        self.directory = Path(directory)
        self.mode: CacheMode = mode
        self.identity = dict(identity or {"model": inner.name})

    def on_complete(self, call: ModelCall) -> Completion:
        key = self._key("complete", call)
        stored = self._read(key)
        if stored is not None:
            return Completion(
                text=str(stored["text"]),
                usage=Usage(calls=1, cached=1),
                finish_reason=stored.get("finish_reason"),
                model=str(stored.get("model") or ""),
            )
        completion = call.complete(self.inner)
        if completion.text:
            record = {"text": completion.text, "finish_reason": completion.finish_reason}
            self._write(key, {**record, "model": completion.model or self.inner.name})
        return completion

    def on_stream(self, call: ModelCall) -> Iterator[str]:
        key = self._key("stream", call)
        stored = self._read(key)
        if stored is not None:
            yield from (str(chunk) for chunk in stored["chunks"])
            return
        chunks: list[str] = []
        for chunk in call.stream(self.inner):
            chunks.append(chunk)
            yield chunk
        if chunks:
            self._write(key, {"chunks": chunks, "model": self.inner.name})

    def path_for(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def _key(self, kind: str, call: ModelCall) -> str:
        messages = [m.as_dict() for m in call.messages]
        request = {"messages": messages, "schema": call.schema, "max_tokens": call.max_tokens}
        return request_key(self.identity, kind, request)

    def _read(self, key: str) -> dict[str, Any] | None:
        path = self.path_for(key)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            _log.warning("ignoring unreadable cache entry %s (%s)", path, exc)
            return None
        if not isinstance(data, dict) or ("text" not in data and "chunks" not in data):
            return None
        _log.debug("cache hit %s", key[:12])
        return data

    def _write(self, key: str, record: dict[str, Any]) -> None:
        if self.mode != "readwrite":
            return
        path = self.path_for(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(path, json.dumps(record, ensure_ascii=False))
        except OSError as exc:
            _log.warning("could not write the model cache entry %s (%s)", path, exc)
