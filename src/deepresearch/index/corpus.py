"""Which index file research reads: yours, a corpus's, or the bundled demo corpus's own.

Your documents stay yours: the demo corpus lives in its own index file
(``<home>/demo-index.sqlite``) and is searched only when you have indexed nothing — no
``<home>/index.sqlite`` and no ``INDEX_PATH``. ``deepresearch index ./my-docs`` therefore never
mixes your passages with demo passages, and a question about your documents never cites one.
Older versions built ``<home>/index.sqlite`` from the demo corpus; on first use its demo files
are dropped with a notice (and a file that held nothing else is removed).

``--corpus PATH`` indexes PATH into an index of its own, cached under ``<home>/indexes``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from deepresearch.errors import ConfigurationError
from deepresearch.index.dense import embedder_for
from deepresearch.index.embeddings import Embedder
from deepresearch.index.loaders import demo_corpus_path
from deepresearch.index.store import DocumentIndex, IndexStats
from deepresearch.settings import Settings

Notice = Callable[[str], None]
DEMO_INDEX_NAME = "demo-index.sqlite"


def corpus_index_path(settings: Settings, corpus: Path) -> Path:
    digest = hashlib.sha256(str(corpus.resolve()).encode()).hexdigest()[:12]
    return settings.home / "indexes" / f"{corpus.stem}-{digest}.sqlite"


def ensure_corpus_index(
    settings: Settings, corpus: Path, progress: Notice | None = None
) -> tuple[Path, IndexStats]:
    """Index ``corpus`` (a file or folder) into its cached index; unchanged files are skipped, and
    passages that already have a vector are not embedded again (so only the first run embeds).
    ``progress`` hears what is indexed and how far embedding has got."""
    if not corpus.exists():
        raise ConfigurationError(f"corpus {corpus}: no such file or folder")
    target = corpus_index_path(settings, corpus)
    with DocumentIndex(target, embedder_for(settings, progress)) as index:
        stats = index.index_paths([corpus], progress=progress)
    return target, stats


def demo_index_path(settings: Settings) -> Path:
    """The demo corpus's own index file, apart from the user's."""
    return settings.home / DEMO_INDEX_NAME


def is_demo_corpus_file(path: str | Path) -> bool:
    """Whether an indexed file is the bundled demo corpus, from this install or another one."""
    candidate = Path(path)
    if candidate == demo_corpus_path().resolve():
        return True
    parts = candidate.parts
    return parts[-3:] == ("deepresearch", "data", "demo_corpus.jsonl")


def local_index_path(
    settings: Settings, notice: Notice | None = None, embedder: Embedder | None = None
) -> Path:
    """The index file local search reads, ready to open.

    ``INDEX_PATH`` (or ``research --index``) when set, as it is (it must exist: the caller
    opens it with :meth:`DocumentIndex.open_existing`). Otherwise ``<home>/index.sqlite`` when it
    exists, without the demo passages an older version put there. Otherwise the demo corpus's
    own index, built on first use (its passages embedded by ``embedder``, if given). Every
    switch to the demo corpus is said through ``notice``. ``DEMO_CORPUS`` (``research --demo``)
    picks the demo corpus's index whatever you have indexed.
    """
    path = settings.resolved_index_path
    if settings.demo_corpus:
        return _asked_demo(settings, notice, embedder)
    if not settings.uses_default_index:
        return path
    if path.exists() and not _only_demo_left(settings, path, notice):
        return path
    return ensure_demo_index(settings, notice, embedder)


DEMO_AGAIN = "research --demo or DEMO_CORPUS=true searches the demo corpus again"
"""How to get back to the demo corpus once you have an index: said wherever the demo is mentioned."""


def _asked_demo(settings: Settings, notice: Notice | None, embedder: Embedder | None) -> Path:
    if not settings.uses_default_index:
        raise ConfigurationError(
            f"DEMO_CORPUS (research --demo) searches the bundled demo corpus and INDEX_PATH "
            f"({settings.index_path}) your own index: set one of them"
        )
    said = (
        "DEMO_CORPUS is on (research --demo): this run searches the bundled demo corpus, "
        f"not {settings.resolved_index_path}"
    )
    return ensure_demo_index(settings, notice, embedder, said=said)


def ensure_demo_index(
    settings: Settings, notice: Notice | None = None, embedder: Embedder | None = None, said: str = ""
) -> Path:
    """Build (first use) or refresh the demo corpus's own index; return its path.

    Refreshing is cheap: an unchanged corpus file is skipped by its sha256. Copies of the demo
    corpus from an older install's path are dropped so that passages are not kept twice.
    """
    path = demo_index_path(settings)
    say = notice or _quiet
    say(
        said
        or f"you have indexed nothing (no {settings.resolved_index_path}), so this run searches the "
        f"bundled demo corpus; index your documents with: deepresearch index PATH; after that, {DEMO_AGAIN}"
    )
    with DocumentIndex(path, embedder) as index:
        current = str(demo_corpus_path().resolve())
        index.remove_files([p for p in index.indexed_files() if p != current])
        index.index_paths([demo_corpus_path()])
    return path


def drop_demo_passages(index: DocumentIndex) -> int:
    """Remove the demo corpus's files from ``index``; return the number of passages removed."""
    return index.remove_files([p for p in index.indexed_files() if is_demo_corpus_file(p)])


def _only_demo_left(settings: Settings, path: Path, notice: Notice | None) -> bool:
    """Clean the user's default index of demo passages; True (and the file removed) when the
    demo corpus was all it held."""
    with DocumentIndex(path) as index:
        removed = drop_demo_passages(index)
        empty = removed > 0 and not index.indexed_files() and index.count() == 0
    if removed and notice:
        where = "it held nothing else and was removed" if empty else "your documents are kept"
        notice(
            f"dropped {removed} bundled demo passage(s) from {path}, put there by an older version; "
            f"{where}; the demo corpus now has its own index ({demo_index_path(settings)})"
        )
    if empty:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    return empty


def _quiet(_message: str) -> None:
    return None
