"""The research graph for LangGraph Studio and ``langgraph dev`` (``langgraph.json`` points here).

LangGraph's server invokes a graph with a JSON ``context``; ours needs a model, a search backend and
a page fetcher. :func:`make_graph` returns the graph bound to the settings (environment, ``.env``):
each run builds its own parts from them, closes them when it ends, and reads the run's JSON
context as per-run setting overrides (``{"max_web_research_loops": 1}``). The input may be as
small as ``{"question": "..."}``; the language is filled in as the CLI does, and the round limit
is the settings' ``MAX_WEB_RESEARCH_LOOPS``, which the judge reads.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import ExitStack
from typing import Any

from langgraph.graph.state import CompiledStateGraph

from deepresearch.graph.builder import build_graph
from deepresearch.graph.context import ResearchContext
from deepresearch.graph.state import ResearchState
from deepresearch.llm.base import ChatModel
from deepresearch.search.base import SearchBackend
from deepresearch.settings import Settings
from deepresearch.text import language_of


class SettingsBoundGraph(CompiledStateGraph[ResearchState, ResearchContext, ResearchState, ResearchState]):
    """The compiled research graph that builds each run's :class:`ResearchContext` itself."""

    settings: Settings
    model: ChatModel | None
    search: SearchBackend | None

    def copy(self, update: dict[str, Any] | None = None) -> SettingsBoundGraph:
        """LangGraph copies a graph to reconfigure it (``with_config``); the binding goes along."""
        return _bound(self.__dict__, update, self.settings, self.model, self.search)

    def stream(self, input: Any, config: Any = None, *, context: Any = None, **kwargs: Any) -> Iterator[Any]:
        with ExitStack() as stack:
            bound = self._context(context, stack)
            yield from super().stream(self._input(input), config, context=bound, **kwargs)

    async def astream(
        self, input: Any, config: Any = None, *, context: Any = None, **kwargs: Any
    ) -> AsyncIterator[Any]:
        with ExitStack() as stack:
            bound = await asyncio.to_thread(self._context, context, stack)
            async for chunk in super().astream(self._input(input), config, context=bound, **kwargs):
                yield chunk

    def _context(self, given: Any, stack: ExitStack) -> ResearchContext:
        if isinstance(given, ResearchContext):
            return given
        from deepresearch.agent import _build_context

        overrides = dict(given) if isinstance(given, Mapping) else {}
        settings = self.settings.with_overrides(**overrides) if overrides else self.settings
        setup: list[str] = []
        return _build_context(settings, self.model, self.search, stack, setup)

    @staticmethod
    def _input(given: Any) -> Any:
        if not isinstance(given, Mapping) or "question" not in given:
            return given
        question = str(given["question"])
        return {"language": language_of(question), "notices": [], **given}


def bind_settings(
    settings: Settings, *, model: ChatModel | None = None, search: SearchBackend | None = None
) -> SettingsBoundGraph:
    """The research graph whose runs build their parts from ``settings`` (``model`` and ``search``
    replace the parts the settings would build, as in :func:`deepresearch.research`)."""
    return _bound(build_graph().__dict__, None, settings, model, search)


def make_graph(config: Mapping[str, Any] | None = None) -> SettingsBoundGraph:
    """The graph ``langgraph.json`` names: bound to the settings read now, from the environment."""
    return bind_settings(Settings.load())


_BINDING = ("settings", "model", "search", "__orig_class__")


def _bound(
    attrs: Mapping[str, Any],
    update: Mapping[str, Any] | None,
    settings: Settings,
    model: ChatModel | None,
    search: SearchBackend | None,
) -> SettingsBoundGraph:
    kept = {k: v for k, v in attrs.items() if k not in _BINDING}
    graph = SettingsBoundGraph(**{**kept, **(update or {})})
    graph.settings, graph.model, graph.search = settings, model, search
    return graph
