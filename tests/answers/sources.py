"""Invented passages for the answer tests, as the search step hands them over."""

from __future__ import annotations

from deepresearch.citations import Source


def src(sid: int, title: str, text: str) -> Source:
    """Source ``sid`` titled ``title`` whose text is ``text``."""
    return Source(id=sid, url=f"doc://{sid}", title=title, content=text)
