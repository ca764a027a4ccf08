"""Page furniture of PDFs: the running headers, footers and page numbers printed on every page.

A PDF printed from a browser carries the print date and the page's title at the top of each page
and its address with a page counter ("file:///…/notes.html 2/3") at the bottom; a report repeats
its title and page number. Read as text, these lines sit between the body's sentences and end up
quoted as evidence. :func:`drop_page_furniture` removes them from the first and last
:data:`EDGE_LINES` lines of each page (text extraction may put a header after the body, so both
edges are searched for both kinds): a line that stands, its page counter aside, on most pages of
a document of two or more pages, and on any page a line that is only a page counter, a
browser's date-time stamp with a title, or an address with a page counter.
"""

from __future__ import annotations

import re
from collections import Counter

EDGE_LINES = 4
"""How many lines at the top and at the bottom of a page may be furniture."""

_COUNTER = r"(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?"
_DATE_TIME = (
    r"(?:\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4},?|\d{4}-\d{2}-\d{2}[T,]?)\s*"
    r"\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp]\.?[Mm]\.?)?"
)
_URL = r"(?:https?|file)://\S+"
_ONLY_COUNTER = re.compile(rf"^[-–—\s]*{_COUNTER}[-–—\s]*$", re.IGNORECASE)
_EDGE_COUNTER = re.compile(rf"^{_COUNTER}\s+|\s+{_COUNTER}$", re.IGNORECASE)
_DATE_TIME_EDGE = re.compile(rf"^{_DATE_TIME}(?:\s|$)|\s{_DATE_TIME}$")
_URL_LINE = re.compile(rf"(?:^|\s){_URL}(?:\s+{_COUNTER})?$", re.IGNORECASE)


def drop_page_furniture(pages: list[str]) -> list[str]:
    """``pages`` (the text of each page, in order) without their headers, footers and page
    numbers; lines inside a page's body are kept whatever they say."""
    split = [page.splitlines() for page in pages]
    repeated = _repeated_edge_lines(split)
    return ["\n".join(_kept(lines, repeated)) for lines in split]


def is_print_furniture(line: str) -> bool:
    """True when ``line`` is a page counter, a print date-time stamp (with the title beside it) or
    an address followed by a page counter: what a browser prints around each page."""
    text = line.strip()
    return bool(_ONLY_COUNTER.match(text) or _DATE_TIME_EDGE.search(text) or _URL_LINE.search(text))


def _repeated_edge_lines(pages: list[list[str]]) -> set[str]:
    if len(pages) < 2:
        return set()
    counts = Counter(key for lines in pages for key in {_key(lines[i]) for i in _edge_indexes(lines)})
    counts.pop("", None)
    return {key for key, count in counts.items() if count >= 2 and count * 2 > len(pages)}


def _kept(lines: list[str], repeated: set[str]) -> list[str]:
    edges = _edge_indexes(lines)
    return [
        line
        for index, line in enumerate(lines)
        if index not in edges or not (_key(line) in repeated or is_print_furniture(line))
    ]


def _edge_indexes(lines: list[str]) -> set[int]:
    filled = [index for index, line in enumerate(lines) if line.strip()]
    return set(filled[:EDGE_LINES] + filled[max(len(filled) - EDGE_LINES, 0) :])


def _key(line: str) -> str:
    """A line as compared across pages: its page counter at either end removed, spaces collapsed,
    case folded (so "Notes 2" on page 2 matches "Notes 3" on page 3)."""
    text = " ".join(line.split())
    return _EDGE_COUNTER.sub("", text).strip().casefold()
