"""deepresearch — a deep research agent that plans, searches, reads, judges and writes cited reports.

>>> from deepresearch import research
>>> result = research("When was the astronomical clock built in the city where Karel Purkyně died?")
>>> print(result.report_markdown)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from deepresearch.agent import research, research_stream
    from deepresearch.aio import aresearch, aresearch_stream
    from deepresearch.compat import Configuration, DeepResearchAgent, run_deep_research
    from deepresearch.errors import (
        ConfigurationError,
        DeepResearchError,
        InvalidQuestionError,
        ModelError,
        ModelNotAvailableError,
        SearchError,
    )
    from deepresearch.events import Event
    from deepresearch.result import ResearchResult
    from deepresearch.settings import Settings

_HOMES = {
    "research": "deepresearch.agent",
    "research_stream": "deepresearch.agent",
    "aresearch": "deepresearch.aio",
    "aresearch_stream": "deepresearch.aio",
    "Configuration": "deepresearch.compat",
    "DeepResearchAgent": "deepresearch.compat",
    "run_deep_research": "deepresearch.compat",
    "ConfigurationError": "deepresearch.errors",
    "DeepResearchError": "deepresearch.errors",
    "InvalidQuestionError": "deepresearch.errors",
    "ModelError": "deepresearch.errors",
    "ModelNotAvailableError": "deepresearch.errors",
    "SearchError": "deepresearch.errors",
    "Event": "deepresearch.events",
    "ResearchResult": "deepresearch.result",
    "Settings": "deepresearch.settings",
}
"""Where each public name lives: imported on first use, so ``deepresearch --help`` and a run's
first model call do not wait for LangGraph (measured ~0.8 s to import on 2 cores)."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'deepresearch' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*__all__, *(name for name in globals() if name.startswith("__"))})


__version__ = "0.1.0"

__all__ = [
    "ConfigurationError",
    "Configuration",
    "DeepResearchAgent",
    "DeepResearchError",
    "Event",
    "InvalidQuestionError",
    "ModelError",
    "ModelNotAvailableError",
    "ResearchResult",
    "SearchError",
    "Settings",
    "__version__",
    "aresearch",
    "aresearch_stream",
    "research",
    "research_stream",
    "run_deep_research",
]
