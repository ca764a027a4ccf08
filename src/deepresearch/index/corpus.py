"""An index per corpus path, cached under the data folder and updated incrementally."""

from __future__ import annotations

import hashlib
from pathlib import Path

from deepresearch.errors import ConfigurationError
from deepresearch.index.embeddings import embedder_for
from deepresearch.index.store import DocumentIndex, IndexStats
from deepresearch.settings import Settings


def corpus_index_path(settings: Settings, corpus: Path) -> Path:
    digest = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return settings.home / "indexes" / f"{corpus.stem}-{digest}.sqlite"


def ensure_corpus_index(settings: Settings, corpus: Path) -> tuple[Path, IndexStats]:
    """Index ``corpus`` (a file or folder) into its cached index; unchanged files are skipped."""
    if not corpus.exists():
        raise ConfigurationError(f"corpus {corpus}: no such file or folder")
    target = corpus_index_path(settings, corpus)
    with DocumentIndex(target, embedder_for(settings)) as index:
        stats = index.index_paths([corpus])
    return target, stats
