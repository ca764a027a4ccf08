"""Index loaders for HTML, PDF and .docx, and indexing a folder that mixes them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from deepresearch.errors import ConfigurationError
from deepresearch.index.loaders import is_supported, load_file
from deepresearch.index.store import DocumentIndex

from .fetch.documents import ARTICLE_SENTENCE, BOILERPLATE, INJECTION, article_html, text_pdf, write_docx


def test_html_loader_keeps_the_article_and_its_title(tmp_path: Path) -> None:
    loaded = load_file(tmp_path / "orloj.html", article_html(INJECTION).encode())
    [document] = loaded.documents
    assert document.title == "The Prague astronomical clock"
    assert ARTICLE_SENTENCE in document.text
    assert not any(junk in document.text for junk in BOILERPLATE)
    assert "TOOL_CALL" not in document.text
    assert document.doc_id == str(tmp_path / "orloj.html")


def test_htm_and_html_without_title_use_the_stem(tmp_path: Path) -> None:
    loaded = load_file(tmp_path / "Notes.HTM", b"<html><body><p>Only a short line of text.</p></body></html>")
    assert [d.title for d in loaded.documents] == ["Notes"]


def test_pdf_loader_reads_text_and_title(tmp_path: Path) -> None:
    data = text_pdf(["Orloj facts.", "The clock was built in 1410."], title="Orloj facts")
    [document] = load_file(tmp_path / "facts.pdf", data).documents
    assert document.title == "Orloj facts"
    assert "The clock was built in 1410." in document.text


def test_damaged_pdf_and_docx_are_skipped_records(tmp_path: Path) -> None:
    for name in ("broken.pdf", "broken.docx"):
        loaded = load_file(tmp_path / name, b"%PDF-1.4 this is not what it claims")
        assert loaded.documents == [] and loaded.bad_records == 1


def test_docx_loader_reads_paragraphs_and_tables(tmp_path: Path) -> None:
    import docx

    path = write_docx(
        tmp_path / "report.docx", "Clock report", ["The Orloj was built in 1410.", "It still runs."]
    )
    document = docx.Document(str(path))
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text, table.rows[0].cells[1].text = "Built", "1410"
    document.save(str(path))
    [loaded] = load_file(path, path.read_bytes()).documents
    assert loaded.title == "Clock report"
    assert "The Orloj was built in 1410." in loaded.text and "It still runs." in loaded.text
    assert "Built | 1410" in loaded.text


def test_docx_without_a_title_property_uses_its_first_heading(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "untitled.docx", "", ["Body text here."])
    import docx

    document = docx.Document(str(path))
    document.paragraphs[0].insert_paragraph_before("Heading text", style="Heading 1")
    document.save(str(path))
    assert load_file(path, path.read_bytes()).documents[0].title == "Heading text"


def test_docx_without_the_extra_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "docx", None)
    with pytest.raises(ConfigurationError, match=r"deepresearch-offline\[docs\]"):
        load_file(tmp_path / "x.docx", b"PK")


def test_new_suffixes_are_supported() -> None:
    assert all(is_supported(Path(f"a{suffix}")) for suffix in (".html", ".htm", ".pdf", ".docx", ".PDF"))
    assert not is_supported(Path("a.png"))


def test_a_mixed_folder_is_indexed_searchable_and_incremental(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "page.html").write_text(article_html(), encoding="utf-8")
    (folder / "facts.pdf").write_bytes(
        text_pdf(["Mikulas of Kadan built the clock mechanism."], title="Facts")
    )
    write_docx(folder / "memo.docx", "Memo", ["The apostles appear every hour on the clock."])
    with DocumentIndex(tmp_path / "index.sqlite") as index:
        first = index.index_paths([folder])
        assert first.files_indexed == 3 and first.files_failed == 0
        titles = {passage.title for passage, _ in index.search("clock", 10)}
        assert {"The Prague astronomical clock", "Facts", "Memo"} <= titles
        assert index.search("apostles hour", 1)[0][0].title == "Memo"
        again = index.index_paths([folder])
        assert again.files_indexed == 0 and again.files_skipped_unchanged == 3


def test_a_csv_is_indexed_in_blocks_each_row_under_its_header(tmp_path: Path) -> None:
    rows = ["city,founded,river"] + [f"Town{n},{1200 + n},River{n}" for n in range(25)]
    table = tmp_path / "towns.csv"
    table.write_text("\n".join(rows) + "\n", encoding="utf-8")
    (tmp_path / "ports.tsv").write_text("port\tcountry\nHamburg\tGermany\n", encoding="utf-8")

    with DocumentIndex(tmp_path / "index.sqlite") as index:
        stats = index.index_paths([tmp_path])
        hits = [passage for passage, _ in index.search("Town21 founded", limit=3)]
        ports = [passage for passage, _ in index.search("Hamburg", limit=1)]

    assert stats.files_indexed == 2
    assert hits and hits[0].title == "towns (rows 21-25)"
    assert "city: Town21; founded: 1221; river: River21" in hits[0].text
    assert ports and "port: Hamburg; country: Germany" in ports[0].text


def test_a_text_file_is_titled_by_its_first_line_when_that_line_is_a_title(tmp_path: Path) -> None:
    titled = tmp_path / "notes-2024.txt"
    titled.write_text("Lighthouse keeping on the Baltic coast\n\nKeepers lit the lamps at dusk.\n")
    plain = tmp_path / "plain.txt"
    plain.write_text("Keepers lit the lamps at dusk.\nThey slept by day.\nThen they rested.\n")

    with DocumentIndex(tmp_path / "index.sqlite") as index:
        index.index_paths([tmp_path])
        first = [passage for passage, _ in index.search("keepers lamps", limit=5)]

    assert {h.title for h in first} == {"Lighthouse keeping on the Baltic coast", "plain"}
