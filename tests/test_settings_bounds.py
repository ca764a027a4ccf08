"""Every number a setting takes is bounded and finite, from the environment as from overrides."""

from __future__ import annotations

import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.settings import Settings


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("LLM_TIMEOUT", "inf"),
        ("LLM_TIMEOUT", "1e9"),
        ("FETCH_TIMEOUT", "nan"),
        ("FETCH_MAX_BYTES", "1000000000000"),
        ("MAX_TOKENS_PER_SOURCE", "1000000000"),
        ("MAX_QUESTION_CHARS", "100000000"),
        ("RELEVANCE_THRESHOLD", "NaN"),
        ("SEARCH_MIN_INTERVAL_SECONDS", "Infinity"),
        ("MAX_QUEUED_JOBS", "0"),
    ],
)
def test_out_of_range_or_non_finite_values_name_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=name):
        Settings.load()


def test_every_numeric_setting_has_an_upper_bound() -> None:
    numeric = {
        name: field
        for name, field in Settings.model_fields.items()
        if field.annotation in (int, float, int | None, float | None)
    }
    unbounded = [name for name, field in numeric.items() if not any(hasattr(m, "le") for m in field.metadata)]
    assert len(numeric) >= 20 and unbounded == []


def test_an_unknown_override_suggests_the_setting_it_is_near() -> None:
    with pytest.raises(ConfigurationError, match="did you mean max_web_research_loops"):
        Settings.load({"max_web_research_loop": 2})
