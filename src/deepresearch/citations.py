"""The source registry and citations built by code.

Sources get integer ids in the order the run first read them; a URL seen again (normalised) keeps
its id and gains the new task/query. The writer cites ``[n]`` from the list it is given; code
removes any ``[n]`` that names no source of the run and renders the references from the registry.
No URL is ever typed by a model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

from pydantic import BaseModel, Field, computed_field

from deepresearch.sourcekind import SourceKind, source_kind
from deepresearch.text import CITATION, cited_numbers
from deepresearch.untrusted import markdown_literal

_TRACKING = re.compile(r"^(utm_|fbclid|gclid)")
_T = TypeVar("_T")


class Source(BaseModel):
    """A passage or page the run read. ``id`` is 0 until the registry assigns it.

    ``authors``, ``venue`` and ``year`` are the publication's, where a scholarly engine gave them
    (empty for web pages and your own documents); the reference line shows them after the title,
    and the source's :attr:`kind` after them.
    """

    id: int = 0
    url: str
    title: str
    content: str = ""
    snippet: str = ""
    doc_id: str | None = None
    backend: str = ""
    is_fallback: bool = False
    round: int = 1
    task_ids: list[int] = Field(default_factory=list)
    queries: list[str] = Field(default_factory=list)
    authors: list[str] = Field(default_factory=list)
    venue: str = ""
    year: int | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def kind(self) -> SourceKind:
        """Scholarly, reference, news, forum or unknown: from the URL, the backend and the
        publication metadata alone (the rules: :mod:`deepresearch.sourcekind`)."""
        return source_kind(self.url, self.backend, authors=self.authors, year=self.year)


def normalize_url(url: str) -> str:
    """Lower-case scheme and host, drop fragments, tracking parameters and a trailing slash."""
    parts = urlsplit(url.strip())
    query = "&".join(p for p in parts.query.split("&") if p and not _TRACKING.match(p.split("=", 1)[0]))
    path = parts.path.rstrip("/") if parts.scheme in ("http", "https") else parts.path
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), path, query, ""))


def register_sources(current: list[Source], new: Sequence[Source]) -> list[Source]:
    """Reducer of the run's registry: append-only, ids assigned here, duplicates merged."""
    merged = list(current)
    position = {normalize_url(s.url): i for i, s in enumerate(merged)}
    for source in new:
        key = normalize_url(source.url)
        if key in position:
            index = position[key]
            merged[index] = _merge(merged[index], source)
            continue
        position[key] = len(merged)
        merged.append(source.model_copy(update={"id": len(merged) + 1}))
    return merged


def _merge(old: Source, new: Source) -> Source:
    return old.model_copy(
        update={
            "task_ids": _union(old.task_ids, new.task_ids),
            "queries": _union(old.queries, new.queries),
        }
    )


def _union(first: Iterable[_T], second: Iterable[_T]) -> list[_T]:
    return list(dict.fromkeys([*first, *second]))


def cited_ids(text: str) -> list[int]:
    """Every id cited as ``[n]`` or ``[n, m]``, in order of first appearance."""
    ids: dict[int, None] = {}
    for match in CITATION.finditer(text):
        for sid in cited_numbers(match.group(1)):
            ids.setdefault(sid, None)
    return list(ids)


def resolve_citations(text: str, valid: set[int]) -> tuple[str, int]:
    """Drop ids not in ``valid`` from every ``[…]``; return the text and how many were removed."""
    removed = 0

    def keep(match: re.Match[str]) -> str:
        nonlocal removed
        parts = cited_numbers(match.group(1))
        good = [p for p in parts if p in valid]
        removed += len(parts) - len(good)
        return "[" + ", ".join(map(str, good)) + "]" if good else ""

    cleaned = CITATION.sub(keep, text)
    return re.sub(r"[ \t]+([.,;:])", r"\1", cleaned), removed


def number_citations(text: str) -> tuple[str, list[int]]:
    """Renumber every ``[n]`` of ``text`` 1..N in order of first citation; return the text and
    the cited ids in that order (number ``k`` names ``order[k-1]``). Markdown renderers number an
    ordered list 1, 2, 3 whatever its source says, so references must be numbered this way."""
    order = cited_ids(text)
    number = {sid: n for n, sid in enumerate(order, 1)}

    def renumber(match: re.Match[str]) -> str:
        parts = [number[sid] for sid in cited_numbers(match.group(1))]
        return "[" + ", ".join(map(str, dict.fromkeys(parts))) + "]"

    return CITATION.sub(renumber, text), order


def report_numbers(cited: Sequence[int], ids: Iterable[int]) -> dict[int, int]:
    """The number users see for each source id: the report's ``[k]`` for the sources it cites
    (``cited`` in report order), then ``N+1, N+2, …`` for the others in registry order. The web
    page numbers its Sources panel the same way."""
    numbers: dict[int, int] = {}
    for sid in [*cited, *sorted(ids)]:
        numbers.setdefault(sid, len(numbers) + 1)
    return numbers


def renumber_citations(text: str, numbers: dict[int, int]) -> str:
    """``text`` with each ``[id]`` written as its number in ``numbers``; an id it lacks is dropped
    (with its brackets when none is left), so no marker can name another source."""

    def renumber(match: re.Match[str]) -> str:
        parts = [numbers.get(sid) for sid in cited_numbers(match.group(1))]
        kept = dict.fromkeys(str(n) for n in parts if n is not None)
        return "[" + ", ".join(kept) + "]" if kept else ""

    return CITATION.sub(renumber, text)


def render_references(sources: Sequence[Source], *, fallback_label: str = "fallback") -> str:
    """Markdown list of ``sources`` numbered 1..N in the given order, fallback sources marked.

    Titles and document ids come from pages and corpora, so they are written as Markdown that does
    nothing (:func:`~deepresearch.untrusted.markdown_literal`), and a URL that could end its link
    early (a space, an angle bracket, a parenthesis) is written as a ``<…>`` destination."""
    lines = []
    for number, source in enumerate(sources, 1):
        flag = f" *({fallback_label})*" if source.is_fallback else ""
        doc = f" — {code_span(source.doc_id)}" if source.doc_id else ""
        title = markdown_literal(source.title) or "untitled"
        meta = publication_line(source)
        meta = f" — {markdown_literal(meta)}" if meta else ""
        kind = f" · {source.kind}" if source.kind != "unknown" else ""
        lines.append(f"{number}. [{title}]({link_destination(source.url)}){meta}{kind}{doc}{flag}")
    return "\n".join(lines)


MAX_AUTHORS_SHOWN = 3


def publication_line(source: Source) -> str:
    """``Authors; venue; year`` of a scholarly source (at most three authors, then "et al."), or
    ``""`` when the source carries none of them. Plain text: the caller makes it Markdown."""
    names = source.authors[:MAX_AUTHORS_SHOWN]
    authors = ", ".join(names) + (" et al." if len(source.authors) > MAX_AUTHORS_SHOWN else "")
    venue = source.venue.strip()
    year = str(source.year) if source.year and str(source.year) not in venue else ""
    return "; ".join(part for part in (authors, venue, year) if part)


_PLAIN_URL = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]*")
_URL_BREAKERS = re.compile(r"[\s<>\\]")


def link_destination(url: str) -> str:
    """``url`` as a Markdown link destination that ends where the URL does."""
    if _PLAIN_URL.fullmatch(url):
        return url
    return "<" + _URL_BREAKERS.sub(lambda m: quote(m.group(), safe=""), url) + ">"


def code_span(text: str) -> str:
    """``text`` on one line as a Markdown code span, fenced by more backticks than it holds."""
    flat = " ".join(text.split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"
