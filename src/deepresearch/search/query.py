"""Query-length guards: engines reject or silently cut long queries, so we cut them first, visibly.

Known limits: Tavily asks for queries under 400 characters; Wikipedia's search (CirrusSearch)
rejects more than 300 ("Search request is longer than the maximum allowed length").
"""

from __future__ import annotations


def fit_query(query: str, max_chars: int) -> str:
    """``query`` on one line, cut on a word boundary to at most ``max_chars`` characters.

    A first word longer than the limit is cut inside the word rather than dropped.
    """
    flat = " ".join(query.split())
    if len(flat) <= max_chars:
        return flat
    head = flat[: max_chars + 1]
    cut = head.rsplit(" ", 1)[0] if " " in head else ""
    return (cut or flat[:max_chars]).rstrip()


def guard_query(query: str, max_chars: int | None, backend: str) -> tuple[str, list[str]]:
    """The query to send and, when it had to be shortened, a notice saying so."""
    if max_chars is None:
        return " ".join(query.split()), []
    fitted = fit_query(query, max_chars)
    if len(fitted) == len(" ".join(query.split())):
        return fitted, []
    note = f"{backend}: query shortened to {len(fitted)} of {len(query)} characters ({backend} limit)"
    return fitted, [note]
