"""The seed project's names, kept working: ``Configuration``, ``DeepResearchAgent``,
``run_deep_research``. They are thin shims over :func:`research` and :func:`research_stream`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from deepresearch.agent import research, research_stream
from deepresearch.result import ResearchResult
from deepresearch.settings import Settings


class Configuration(Settings):
    """The seed's configuration class: ``Configuration.from_env(overrides)``."""

    @classmethod
    def from_env(cls, overrides: Mapping[str, Any] | None = None) -> Settings:
        return Settings.load(overrides)


class DeepResearchAgent:
    """``DeepResearchAgent(config).run(topic)`` / ``.run_stream(topic)`` from the seed."""

    def __init__(self, config: Settings | None = None, **parts: Any) -> None:
        self.config = config or Settings.load()
        self._parts = parts

    def run(self, topic: str) -> ResearchResult:
        return research(topic, settings=self.config, **self._parts)

    def run_stream(self, topic: str) -> Iterator[dict[str, Any]]:
        """Events as plain dicts (``event["type"]``), as the seed yielded them."""
        for item in research_stream(topic, settings=self.config, **self._parts):
            yield item.as_dict()


def run_deep_research(topic: str, config: Settings | None = None) -> ResearchResult:
    return DeepResearchAgent(config).run(topic)
