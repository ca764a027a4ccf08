"""A PDF printed from a browser is indexed without its print header, footer and page counters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from deepresearch.fetch.pdfpages import drop_page_furniture, is_print_furniture
from deepresearch.index.store import DocumentIndex

STAMP = "3/14/26, 9:05 PM"
TITLE = "Keeping a lighthouse"
ADDRESS = "file:///home/reader/saved/lighthouse-keeping.html"
BODIES = [
    "Keepers trimmed the wick at dusk and logged the wind in a ledger.",
    "Fog signals were sounded every thirty seconds while visibility stayed poor.",
    "Relief boats brought oil, bread and letters once a fortnight in summer.",
]
PRINT_CSS = f"""
@page {{ size: A5; margin: 2cm 1.5cm;
  @top-left {{ content: "{STAMP}"; font-size: 8pt }}
  @top-center {{ content: "{TITLE}"; font-size: 8pt }}
  @bottom-left {{ content: "{ADDRESS}"; font-size: 8pt }}
  @bottom-right {{ content: counter(page) "/" counter(pages); font-size: 8pt }}
}}
section {{ break-after: page }}
"""


def _browser_printed_pdf(weasyprint: Any) -> bytes:
    """Three pages, each with the header and footer a browser prints around a saved page."""
    sections = "".join(f"<section><p>{body}</p></section>" for body in BODIES)
    html = (
        f"<html><head><title>{TITLE}</title><style>{PRINT_CSS}</style></head><body>{sections}</body></html>"
    )
    pdf: bytes = weasyprint.HTML(string=html).write_pdf()
    return pdf


def test_indexed_passages_hold_the_body_and_no_print_header_or_footer(tmp_path: Path) -> None:
    weasyprint = pytest.importorskip("weasyprint", reason="pip install 'deepresearch-offline[pdf]'")
    (tmp_path / "keeping.pdf").write_bytes(_browser_printed_pdf(weasyprint))

    with DocumentIndex(tmp_path / "index.sqlite") as index:
        index.index_paths([tmp_path])
        passages = {p.id: p for word in ("keepers", "fog", "relief") for p, _ in index.search(word, 10)}
        total = index.count()

    assert len(passages) == total
    text = "\n".join(passage.text for passage in passages.values())
    assert all(" ".join(body.split()) in " ".join(text.split()) for body in BODIES)
    for furniture in (STAMP, "9:05", ADDRESS, "file://", "1/3", "2/3", "3/3"):
        assert furniture not in text
    assert all(passage.title == TITLE for passage in passages.values())
    assert TITLE not in text


def test_a_line_repeated_at_the_edge_of_most_pages_is_dropped_and_a_body_line_is_kept() -> None:
    pages = [
        f"Harbour Board annual report {n}\nThe pier was extended by {n * 10} metres.\nPage {n} of 3"
        for n in range(1, 4)
    ]
    pages[1] = pages[1].replace("Harbour Board annual report 2", "Harbour  board annual report")

    kept = drop_page_furniture(pages)

    assert kept == [f"The pier was extended by {n * 10} metres." for n in range(1, 4)]


def test_a_single_printed_page_loses_its_browser_stamp_and_counter_only() -> None:
    page = f"{STAMP} {TITLE}\nThe lamp burned paraffin from 1870.\n42\n{ADDRESS} 1/1"

    assert drop_page_furniture([page]) == ["The lamp burned paraffin from 1870."]
    assert drop_page_furniture(["Two pages only.\nIt ends at 12:30."]) == [
        "Two pages only.\nIt ends at 12:30."
    ]


def test_body_lines_that_mention_dates_addresses_or_numbers_are_not_furniture() -> None:
    assert not is_print_furniture("The keeper wrote on 3/14/26 that the glass had cracked.")
    assert not is_print_furniture("See https://example.org/lights for the list of towers.")
    assert not is_print_furniture("1870 was the year the lamp changed.")
    assert is_print_furniture("Page 2 of 9")
    assert is_print_furniture("— 7 —")
    assert is_print_furniture(f"{TITLE} {STAMP}")
