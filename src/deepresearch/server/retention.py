"""Scheduled cleanup of expired run folders (``RESEARCH_RUN_RETENTION_DAYS``)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from starlette.concurrency import run_in_threadpool

from deepresearch.runs import RunStore
from deepresearch.settings import Settings

logger = logging.getLogger(__name__)


def cleanup_runs(settings: Settings) -> list[Path]:
    """Delete run folders older than the retention period; notes are never touched."""
    removed = RunStore(settings.resolved_runs_workspace).cleanup(settings.research_run_retention_days)
    if removed:
        logger.info("removed %d expired run folder(s)", len(removed))
    return removed


async def retention_loop(settings: Settings, interval: float) -> None:
    """Run :func:`cleanup_runs` now and then every ``interval`` seconds, until cancelled."""
    while True:
        try:
            await run_in_threadpool(cleanup_runs, settings)
        except OSError as exc:
            logger.warning("run retention cleanup failed: %s", exc)
        await asyncio.sleep(interval)
