"""The reference line: a scholarly source's authors, venue and year follow its title, and a known
kind of source follows them; a page of no known kind keeps the bare line."""

from __future__ import annotations

from deepresearch.citations import Source, publication_line, render_references


def test_web_page_reference_is_title_and_link_only() -> None:
    page = Source(id=1, url="https://example.org/a", title="A page")
    assert render_references([page]) == "1. [A page](https://example.org/a)"


def test_paper_reference_names_authors_venue_and_year() -> None:
    paper = Source(
        id=1,
        url="https://pubmed.ncbi.nlm.nih.gov/1/",
        title="Tidal ice loss",
        authors=["Ana Ruiz", "Bo Lind"],
        venue="Journal of Glaciers",
        year=2019,
    )
    assert render_references([paper]) == (
        "1. [Tidal ice loss](https://pubmed.ncbi.nlm.nih.gov/1/)"
        " — Ana Ruiz, Bo Lind; Journal of Glaciers; 2019 · scholarly"
    )


def test_more_than_three_authors_end_in_et_al_and_a_year_in_the_venue_is_not_repeated() -> None:
    paper = Source(url="u", title="t", authors=["A", "B", "C", "D"], venue="Phys. Rev. B 9 (2001)", year=2001)
    assert publication_line(paper) == "A, B, C et al.; Phys. Rev. B 9 (2001)"


def test_markdown_in_author_names_does_nothing() -> None:
    paper = Source(id=1, url="https://x.org", title="t", authors=["[evil](https://bad.example)"])
    line = render_references([paper])
    assert "](https://bad.example)" not in line


def test_the_kind_of_source_is_shown_beside_its_reference() -> None:
    sources = [
        Source(id=1, url="https://en.wikipedia.org/wiki/Glacier", title="Glacier"),
        Source(id=2, url="https://www.reddit.com/r/ice/comments/1", title="Ice thread"),
        Source(id=3, url="https://apnews.com/article/ice", title="Ice news"),
    ]
    assert [line.rsplit(" · ", 1)[1] for line in render_references(sources).splitlines()] == [
        "reference",
        "forum",
        "news",
    ]
    assert Source(url="doc://p1", title="My notes", backend="local").kind == "unknown"
