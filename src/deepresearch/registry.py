"""Named extension points: the search backends and the export formats are each one registry.

A registry maps a name to one declaration (a frozen dataclass that says what the thing is called,
what it reads and what it can do). A module adds its declaration by calling :meth:`Registry.register`
when it is imported; the built-ins are the modules of the registry's package, imported the first
time anybody reads the registry, so a new built-in is one new module and nothing else. A third
party's module registers the same way, once it is imported. Every reader (factories, settings
checks, the OpenAPI schema, the CLI's help and the web page) asks the registry, never a list of
its own.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from deepresearch.errors import ConfigurationError

T = TypeVar("T")


class Registry(Generic[T]):
    """Declarations of one kind (``kind`` names it in errors), keyed by ``name_of(item)`` and read
    in the order of their names; the built-ins are the modules of ``package``, loaded on the first
    read."""

    def __init__(self, kind: str, package: str, name_of: Callable[[T], str]) -> None:
        self.kind = kind
        self.package = package
        self._name_of = name_of
        self._items: dict[str, T] = {}
        self._started = self._loaded = False
        self._lock = threading.Lock()
        self._load_lock = threading.RLock()

    def register(self, item: T, *, replace: bool = False) -> T:
        """Add ``item`` under its name; a name taken by another item is an error unless ``replace``."""
        name = self._name_of(item)
        with self._lock:
            if not replace and name in self._items and self._items[name] != item:
                raise ConfigurationError(f"{self.kind} {name!r} is registered already")
            self._items[name] = item
        return item

    def unregister(self, name: str) -> None:
        with self._lock:
            self._items.pop(name, None)

    @contextmanager
    def registered(self, item: T) -> Iterator[T]:
        """``item`` registered for the ``with`` block only (what a test adds, it takes away)."""
        self.register(item)
        try:
            yield item
        finally:
            self.unregister(self._name_of(item))

    def get(self, name: str) -> T:
        """The declaration named ``name``; :class:`ConfigurationError` lists the names there are."""
        found = self.find(name)
        if found is None:
            raise ConfigurationError(f"unknown {self.kind} {name!r}: choose one of {', '.join(self.names())}")
        return found

    def find(self, name: str) -> T | None:
        return self._all().get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(self._all())

    def __iter__(self) -> Iterator[T]:
        return iter(list(self._all().values()))

    def _all(self) -> dict[str, T]:
        if not self._loaded:
            with self._load_lock:  # a module that reads the registry while it loads sees it so far
                if not self._started:
                    self._started = True
                    try:
                        self._load_builtins()
                    except BaseException:
                        self._started = False
                        raise
                    self._loaded = True
        with self._lock:
            return dict(sorted(self._items.items()))

    def _load_builtins(self) -> None:
        package = importlib.import_module(self.package)
        for module in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
            importlib.import_module(f"{self.package}.{module.name}")
