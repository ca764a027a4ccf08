"""Building the configured search backend from :data:`~deepresearch.search.registry.BACKENDS`."""

from __future__ import annotations

from deepresearch.errors import ConfigurationError
from deepresearch.limits import interval_gate
from deepresearch.search.base import SearchBackend
from deepresearch.search.ratelimit import Throttled, pacing_of, search_policy
from deepresearch.search.registry import (
    Notice,
    backend_spec,
    check_search_settings,
    missing_settings,
)
from deepresearch.settings import Settings


def build_search(settings: Settings, notice: Notice | None = None) -> SearchBackend:
    """The backend ``SEARCH_API`` names; its ``close()`` releases what it owns (clients, the index).

    The names in the settings are checked against the registry first, so a misspelt
    ``SEARCH_API``, ``SEARCH_ORDER`` or ``REQUEST_SEARCH_APIS`` fails before anything is built.
    """
    check_search_settings(settings)
    return build_backend(settings.search_api, settings, notice)


def build_backend(name: str, settings: Settings, notice: Notice | None = None) -> SearchBackend:
    """One registered backend; ConfigurationError names a setting it needs that is unset.

    An outside engine (``paced``) comes behind its own rate limiter, paced as the engine asks (see
    :func:`~deepresearch.search.ratelimit.pacing_of`) unless ``SEARCH_MIN_INTERVAL_SECONDS`` is
    set (shared by every process through Redis with ``JOBS_BACKEND=celery``)."""
    spec = backend_spec(name)
    missing = missing_settings(spec, settings)
    if missing:
        raise ConfigurationError(
            f"{spec.name} needs {' and '.join(missing)}: set it (see deepresearch settings)"
        )
    engine = spec.build(settings, notice)
    if not spec.paced:
        return engine
    interval, parallel = pacing_of(engine, settings.search_min_interval_seconds)
    policy = search_policy(settings.search_max_retries)
    gate = interval_gate(f"search:{spec.name}", interval, settings.shared_redis_url)
    return Throttled(engine, gate=gate, policy=policy, max_parallel=parallel)
