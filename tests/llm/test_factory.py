"""build_model: presets over one client, per-role models, temperature, pacing and the call cache."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.llm.base import Message
from deepresearch.llm.cache import CachedModel
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.factory import build_model
from deepresearch.llm.metered import MeteredModel
from deepresearch.llm.openai_compat import OpenAICompatModel
from deepresearch.llm.pacing import PacedModel
from deepresearch.llm.presets import server_config, server_endpoint
from deepresearch.llm.router import StepRouter
from deepresearch.retry import IntervalGate
from deepresearch.settings import Settings

from ..closing import Models
from ..fakeopenai import FakeOpenAI, serve

HELLO = [Message("user", "Say hello")]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}}


@pytest.fixture
def fake() -> FakeOpenAI:
    return FakeOpenAI(models=["small", "big", "fake-model"])


@pytest.fixture
def base_url(fake: FakeOpenAI) -> Iterator[str]:
    with serve(fake) as url:
        yield url


def _settings(tmp_path: Path, **values: Any) -> Settings:
    return Settings.load({"deepresearch_home": tmp_path / "home", **values})


def _custom(tmp_path: Path, base_url: str, **values: Any) -> Settings:
    preset = {"llm_provider": "custom", "llm_base_url": base_url, "llm_model_id": "fake-model"}
    return _settings(tmp_path, **{**preset, **values})


def test_ollama_gets_v1_its_key_and_an_explicit_context(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    root = base_url.removesuffix("/v1")
    settings = _settings(tmp_path, llm_provider="ollama", ollama_base_url=root, local_llm="small")

    models.build(settings).complete(HELLO, schema=SCHEMA)
    list(models.build(settings).stream(HELLO))

    assert [r["options"] for r in fake.requests] == [{"num_ctx": 8192}] * 2
    assert fake.headers[0]["authorization"] == "Bearer ollama"
    assert fake.requests[0]["model"] == "small"
    assert fake.requests[0]["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize(("provider", "placeholder"), [("ollama", "ollama"), ("lmstudio", "lm-studio")])
def test_the_model_key_never_goes_to_a_preset_address(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, provider: str, placeholder: str, models: Models
) -> None:
    secret = "sk-operator-" + "k" * 30
    addresses = {"ollama_base_url": base_url.removesuffix("/v1"), "lmstudio_base_url": base_url}
    settings = _settings(
        tmp_path, llm_provider=provider, llm_api_key=secret, local_llm="fake-model", **addresses
    )

    models.build(settings).complete(HELLO)

    assert [h["authorization"] for h in fake.headers] == [f"Bearer {placeholder}"]


def test_ollama_base_url_with_v1_is_kept(tmp_path: Path) -> None:
    settings = _settings(tmp_path, llm_provider="ollama", ollama_base_url="http://h:11434/v1/")

    assert server_endpoint(settings) == ("http://h:11434/v1", "ollama")


def test_lmstudio_defaults(tmp_path: Path) -> None:
    settings = _settings(tmp_path, llm_provider="lmstudio", llm_model_id="qwen")

    config = server_config(settings)

    assert (config.base_url, config.api_key, config.json_mode) == (
        "http://localhost:1234/v1",
        "lm-studio",
        "json_schema",
    )
    assert config.extra_body == {}


def test_custom_needs_a_base_url(tmp_path: Path, models: Models) -> None:
    with pytest.raises(ConfigurationError, match="LLM_BASE_URL"):
        models.build(_settings(tmp_path, llm_provider="custom", llm_model_id="m"))


def test_openai_needs_a_key_and_defaults_to_the_api(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="LLM_API_KEY"):
        server_config(_settings(tmp_path, llm_provider="openai", llm_model_id="gpt"))

    keyed = _settings(tmp_path, llm_provider="openai", llm_model_id="gpt", llm_api_key="sk-" + "x" * 40)
    assert server_config(keyed).base_url == "https://api.openai.com/v1"


def test_a_server_needs_a_model(tmp_path: Path, base_url: str, models: Models) -> None:
    with pytest.raises(ConfigurationError, match="LLM_MODEL_ID"):
        models.build(_settings(tmp_path, llm_provider="custom", llm_base_url=base_url))


def test_llm_model_id_wins_over_local_llm(tmp_path: Path, base_url: str) -> None:
    settings = _custom(tmp_path, base_url, local_llm="small")

    assert server_config(settings).model == "fake-model"
    assert server_config(settings.with_overrides(llm_model_id=None)).model == "small"


def test_describe_masks_the_key(tmp_path: Path, base_url: str) -> None:
    secret = "sk-" + "s" * 40 + "WXYZ"

    line = server_config(_custom(tmp_path, base_url, llm_api_key=secret)).describe()

    assert secret not in line and "WXYZ" in line


def test_temperature_is_zero_by_default_and_comes_from_settings(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    models.build(_custom(tmp_path, base_url)).complete(HELLO)
    models.build(_custom(tmp_path, base_url, llm_temperature=0.7)).complete(HELLO)

    assert [r["temperature"] for r in fake.requests] == [0.0, 0.7]


def test_json_mode_setting_picks_the_first_rung(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    models.build(_custom(tmp_path, base_url, llm_json_mode="json_object")).complete(HELLO, schema=SCHEMA)
    models.build(_custom(tmp_path, base_url, llm_json_mode="none")).complete(HELLO, schema=SCHEMA)

    assert fake.requests[0]["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert "response_format" not in fake.requests[1]


def test_a_single_model_is_not_routed(tmp_path: Path, base_url: str, models: Models) -> None:
    assert isinstance(models.build(_custom(tmp_path, base_url)), OpenAICompatModel)


def test_role_models_route_by_step(tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models) -> None:
    settings = _custom(tmp_path, base_url, llm_model_id="small", writer_model="big", judge_model="small")
    model = MeteredModel(models.build(settings))

    for step in ("role", "plan", "queries", "judge", "report", "answer"):
        model.complete(HELLO, step=step)
    list(model.stream(HELLO, step="summarize"))

    assert isinstance(model.inner, StepRouter)
    assert [r["model"] for r in fake.requests] == ["small"] * 4 + ["big"] * 2 + ["small"]
    assert [c.model for c in model.calls] == ["small"] * 4 + ["big"] * 2 + ["small"]


def test_an_unknown_role_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown role"):
        StepRouter(EmbeddedModel(Path("x.gguf")), {"planer": EmbeddedModel(Path("y.gguf"))})


def test_embedded_role_models_are_names_or_gguf_paths(tmp_path: Path, models: Models) -> None:
    gguf = tmp_path / "big.gguf"
    settings = _settings(tmp_path, writer_model=str(gguf), planner_model="smollm2")

    model = models.build(settings)

    assert isinstance(model, StepRouter)
    writer, planner = model.model_for("report"), model.model_for("plan")
    assert isinstance(writer, EmbeddedModel) and writer.model_path == gguf
    assert isinstance(planner, EmbeddedModel) and planner.name == "embedded:smollm2"


def test_cache_readwrite_answers_a_repeat_from_disk(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    settings = _custom(tmp_path, base_url, llm_cache="readwrite")

    first = models.build(settings).complete(HELLO, schema=SCHEMA)
    again = models.build(settings).complete(HELLO, schema=SCHEMA)
    other = models.build(settings).complete(HELLO, schema=SCHEMA, max_tokens=7)

    assert len(fake.requests) == 2
    assert again.text == first.text == other.text
    assert (again.usage.cached, again.usage.prompt_tokens) == (1, 0)
    assert list((settings.cache_dir / "llm").rglob("*.json"))


def test_cache_streams_too(tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models) -> None:
    settings = _custom(tmp_path, base_url, llm_cache="readwrite")

    first = list(models.build(settings).stream(HELLO))
    again = list(models.build(settings).stream(HELLO))

    assert first == again == ["Hello", " from", " fake"]
    assert len(fake.requests) == 1


def test_cache_read_never_writes(tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models) -> None:
    settings = _custom(tmp_path, base_url, llm_cache="read")

    models.build(settings).complete(HELLO)
    models.build(settings).complete(HELLO)

    assert len(fake.requests) == 2
    assert not (settings.cache_dir / "llm").exists()


def test_cache_key_changes_with_the_server_settings(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    models.build(_custom(tmp_path, base_url, llm_cache="readwrite")).complete(HELLO)
    models.build(_custom(tmp_path, base_url, llm_cache="readwrite", llm_temperature=0.5)).complete(HELLO)

    assert len(fake.requests) == 2


def test_an_unreadable_cache_entry_is_a_miss(
    tmp_path: Path, base_url: str, fake: FakeOpenAI, models: Models
) -> None:
    settings = _custom(tmp_path, base_url, llm_cache="readwrite")
    models.build(settings).complete(HELLO)
    for entry in (settings.cache_dir / "llm").rglob("*.json"):
        entry.write_text("{not json", encoding="utf-8")

    assert models.build(settings).complete(HELLO).text == "Hello from fake"
    assert len(fake.requests) == 2


def test_wrappers_are_applied_in_order(tmp_path: Path, base_url: str, models: Models) -> None:
    model = models.build(_custom(tmp_path, base_url, llm_cache="readwrite", llm_min_interval_seconds=0.5))

    assert isinstance(model, CachedModel)
    assert isinstance(model.inner, PacedModel) and model.inner.interval == 0.5
    assert isinstance(model.inner.inner, OpenAICompatModel)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_interval_gate_spaces_calls() -> None:
    clock = FakeClock()
    gate = IntervalGate(clock=clock, sleep=clock.sleep)

    waits = [gate.wait(2.0), gate.wait(2.0)]
    clock.now += 5.0
    waits.append(gate.wait(2.0))

    assert waits == [0.0, 2.0, 0.0]


def test_interval_gate_is_shared_between_threads() -> None:
    """The slots the gate hands four threads are 0.1 s apart and the threads sleep until theirs.
    Slot times are read from the gate's own clock call (when a thread records the time after it
    wakes, a busy machine can deliver two wake-ups closer together than their slots)."""
    local = threading.local()

    def clock() -> float:
        local.now = time.monotonic()
        return float(local.now)

    gate = IntervalGate(clock=clock)
    slots: list[float] = []
    lock = threading.Lock()

    def call() -> None:
        waited = gate.wait(0.1)
        with lock:
            slots.append(local.now + waited)

    started = time.monotonic()
    threads = [threading.Thread(target=call) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    slots.sort()
    assert all(b - a >= 0.1 - 1e-9 for a, b in zip(slots, slots[1:], strict=False))
    assert time.monotonic() - started >= 0.3


def test_a_role_model_equal_to_the_default_is_not_routed(
    tmp_path: Path, base_url: str, models: Models
) -> None:
    model = models.build(_custom(tmp_path, base_url, writer_model="fake-model", judge_model="fake-model"))

    assert isinstance(model, OpenAICompatModel)


def test_closing_the_built_model_closes_the_client_of_every_role(tmp_path: Path, base_url: str) -> None:
    settings = _custom(
        tmp_path, base_url, summarizer_model="small", llm_cache="readwrite", llm_min_interval_seconds=0.01
    )
    model = build_model(settings)
    assert isinstance(model, StepRouter)
    leaves = [model.leaf_for("summarize"), model.leaf_for("report")]
    assert all(isinstance(leaf, OpenAICompatModel) for leaf in leaves) and leaves[0] is not leaves[1]
    model.complete(HELLO, step="summarize")

    model.close()

    for step in ("summarize", "report"):
        with pytest.raises(RuntimeError, match="client has been closed"):
            model.leaf_for(step).complete(HELLO, step=step)
