"""deepresearch — a deep research agent that plans, searches, reads, judges and writes cited reports.

>>> from deepresearch import research
>>> result = research("When was the astronomical clock built in the city where Karel Purkyně died?")
>>> print(result.report_markdown)
"""

from deepresearch.agent import research, research_stream
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
    "research",
    "research_stream",
    "run_deep_research",
]
