"""The search backends there are: each module of a backend registers one :class:`BackendSpec`.

A backend is added by one module (``search/<name>.py``, or a third party's module once imported)
that ends with ``register_backend(BackendSpec(...))``: its name (the value of ``SEARCH_API``), the
label people see, how it is built from the settings, the settings it needs, and what it can do.
The factory (:func:`deepresearch.search.factory.build_search`), the settings checks, the service's
OpenAPI schema, the CLI's ``backends`` listing and the web page read :data:`BACKENDS`; no other
list of backend names exists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pydantic import SecretStr

from deepresearch.errors import ConfigurationError
from deepresearch.registry import Registry
from deepresearch.search.base import SearchBackend
from deepresearch.settings import Settings

Notice = Callable[[str], None]
Build = Callable[[Settings, "Notice | None"], SearchBackend]


@dataclass(frozen=True)
class BackendSpec:
    """One search backend, as the rest of the program knows it.

    ``build`` makes the bare backend from the settings (it may raise ConfigurationError, e.g. for a
    missing package); ``needs`` are the :class:`~deepresearch.settings.Settings` fields that must
    be set before it is built (checked for it, and named in the error as their environment
    variable). Capabilities: ``web``, its hits are web pages, which the fetcher reads; ``paced``,
    it is an outside engine, built behind its own rate limiter with retries; ``chain``, it may
    stand in ``SEARCH_ORDER`` (the ``hybrid`` chain).
    """

    name: str
    label: str
    build: Build
    summary: str = ""
    needs: tuple[str, ...] = ()
    web: bool = False
    paced: bool = False
    chain: bool = True


BACKENDS: Registry[BackendSpec] = Registry("search backend", "deepresearch.search", lambda spec: spec.name)
"""Every search backend; the built-ins are the modules of :mod:`deepresearch.search`."""


def register_backend(spec: BackendSpec, *, replace: bool = False) -> BackendSpec:
    """Make ``spec`` a choice of ``SEARCH_API`` (and of ``SEARCH_ORDER`` when it may chain)."""
    return BACKENDS.register(spec, replace=replace)


def register_engine(
    name: str,
    label: str,
    make: Callable[..., SearchBackend],
    *,
    summary: str,
    needs: tuple[str, ...] = (),
) -> BackendSpec:
    """Register an outside web engine (``web`` and ``paced``): built by calling ``make`` with the
    text of each setting it ``needs``, in order (an API key, an instance's URL)."""

    def build(settings: Settings, notice: Notice | None) -> SearchBackend:
        return make(*(setting_text(settings, field) for field in needs))

    return register_backend(
        BackendSpec(name, label, build, summary=summary, needs=needs, web=True, paced=True)
    )


def backend_spec(name: str) -> BackendSpec:
    """The backend ``SEARCH_API=name`` chooses; ConfigurationError lists the choices."""
    return BACKENDS.get(name.strip().lower())


def missing_settings(spec: BackendSpec, settings: Settings) -> list[str]:
    """The environment variables of ``spec.needs`` that ``settings`` leaves empty."""
    return [field.upper() for field in spec.needs if not setting_text(settings, field)]


def setting_text(settings: Settings, field: str) -> str:
    """A setting's value as text, a secret's revealed, ``""`` when unset or blank."""
    value = getattr(settings, field)
    if isinstance(value, SecretStr):
        value = value.get_secret_value()
    return "" if value is None else str(value).strip()


def fetches_pages(name: str) -> bool:
    """Whether the backend ``name`` returns web hits whose pages are read (unknown: assume so)."""
    spec = BACKENDS.find(name)
    return spec is None or spec.web


def check_search_settings(settings: Settings) -> None:
    """The settings' backend names are registered ones: ``SEARCH_API``, ``SEARCH_ORDER`` when the
    chain is chosen, and ``REQUEST_SEARCH_APIS``; ConfigurationError names the setting and the
    choices."""
    _known("SEARCH_API", [settings.search_api], BACKENDS.names())
    if settings.search_api == "hybrid":
        parse_order(settings.search_order)
    _known("REQUEST_SEARCH_APIS", settings.request_search_backends(), BACKENDS.names())


def parse_order(order: str) -> list[str]:
    """``SEARCH_ORDER`` as a list of engine names, duplicates dropped; unknown names are an error."""
    names = list(dict.fromkeys(part.strip().lower() for part in order.split(",") if part.strip()))
    chainable = tuple(spec.name for spec in BACKENDS if spec.chain)
    _known("SEARCH_ORDER", names or [""], chainable, shown=order)
    return names


def _known(setting: str, names: list[str], choices: tuple[str, ...], shown: str | None = None) -> None:
    unknown = [name or "(none given)" for name in names if name not in choices]
    if unknown:
        raise ConfigurationError(
            f"{setting}={shown if shown is not None else ','.join(names)!r}: unknown backend(s) "
            f"{', '.join(unknown)}; choose from: {', '.join(choices)}"
        )
