"""Closing what a test builds: the ``models`` fixture (tests/conftest.py) hands out a
:class:`Models`, and every model it keeps is closed when the test ends."""

from __future__ import annotations

from contextlib import ExitStack
from typing import TypeVar

from deepresearch.llm.base import ChatModel, ChatModelBase
from deepresearch.llm.factory import build_model
from deepresearch.settings import Settings

M = TypeVar("M", bound=ChatModel)


class Models:
    """The models a test builds, each closed when the test ends: a server model holds an HTTP
    client whose sockets would otherwise be left to the garbage collector."""

    def __init__(self, stack: ExitStack) -> None:
        self._stack = stack

    def keep(self, model: M) -> M:
        """``model``, closed when the test ends."""
        if isinstance(model, ChatModelBase):
            self._stack.callback(model.close)
        return model

    def build(self, settings: Settings) -> ChatModel:
        """``build_model(settings)``, closed when the test ends."""
        return self.keep(build_model(settings))
