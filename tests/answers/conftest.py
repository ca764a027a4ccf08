"""Fixtures of the answer tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from deepresearch.errors import ModelNotAvailableError
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.llm.model_files import installed


@pytest.fixture
def qwen(model_cache: Path) -> EmbeddedModel:
    """The installed reader, Qwen2.5-Coder-1.5B in llama.cpp (skipped where it is not installed,
    unless the embedded models are required)."""
    try:
        return EmbeddedModel.from_name("qwen1.5b", cache_dir=model_cache, n_ctx=4096)
    except ModelNotAvailableError as exc:
        if os.environ.get("DEEPRESEARCH_REQUIRE_EMBEDDED") == "1" and installed("qwen1.5b"):
            raise
        pytest.skip(str(exc))
