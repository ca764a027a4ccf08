"""Page text cannot put a live image, link or HTML into any Markdown the product writes: the report
file (``--out report.md``), the notes, the API's ``report_markdown`` and ``format=md``. Each output
is rendered by a CommonMark renderer with raw HTML on (as a Markdown viewer does) and searched for
anything that would reach the page's host; GFM viewers also link bare URLs, so every URL of that
host must sit in a code span."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from markdown_it import MarkdownIt

from deepresearch.index.store import DocumentIndex

from ..fakeopenai import FakeOpenAI, research_responder, serve

HOST = "127.0.0.1:18767"
IMAGE = f"![t](http://{HOST}/px.png)"
QUESTION = "When was Zorblatt Tower built?"
HOSTILE = (
    f"Zorblatt Tower was built in 1921 by Quennel Dapp {IMAGE} on the hill. "
    f'The tower is 90 metres tall <img src="http://{HOST}/a.png"> and [open](http://{HOST}/l) '
    f"<http://{HOST}/auto> its lamp is lit at dusk http://{HOST}/bare.png every night."
)


def live_parts(markdown: str) -> list[str]:
    """What a Markdown viewer would fetch or link on the hostile host: an image or link to it, raw
    HTML, and a bare URL of it outside a code span (which a GFM viewer links)."""
    html = MarkdownIt("commonmark", {"html": True}).render(markdown)
    found = re.findall(rf"<[a-z]+\b[^>]*(?:src|href)=\"https?://{re.escape(HOST)}[^>]*>", html)
    found += re.findall(r"<(?:img|iframe|script|object|embed)\b[^>]*>", html)
    text = re.sub(r"<[^>]*>", " ", re.sub(r"<code>.*?</code>", " ", html, flags=re.DOTALL))
    found += re.findall(rf"https?://{re.escape(HOST)}\S*", text)
    return found


def test_the_report_file_and_the_notes_hold_nothing_live(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    with DocumentIndex(index) as store:
        store.add_documents([{"doc_id": "z1", "title": f"Zorblatt Tower {IMAGE}", "text": HOSTILE}])
    with serve(FakeOpenAI(responder=research_responder())) as url:
        env = {
            **os.environ,
            "DEEPRESEARCH_HOME": str(tmp_path / "home"),
            "INDEX_PATH": str(index),
            "LLM_PROVIDER": "custom",
            "LLM_BASE_URL": url,
            "LLM_MODEL_ID": "fake-model",
            "MAX_WEB_RESEARCH_LOOPS": "1",
        }
        out = ["--out", str(tmp_path / "report.md")]
        command = [sys.executable, "-m", "deepresearch.cli.main", "research", "-q", QUESTION, *out]
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "1921" in report and "Quennel Dapp" in report, "the quoted sentence is still there"
    assert live_parts(report) == []
    notes = sorted((tmp_path / "home" / "notes").glob("*.md"))
    assert len(notes) >= 2
    for note in notes:
        assert live_parts(note.read_text(encoding="utf-8")) == [], note.name
