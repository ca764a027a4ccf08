"""A report as one self-contained HTML file: the rendered report, then every cited passage.

No script, no outside stylesheet, no font or image to fetch: the file opens the same offline, in
a mail attachment, or as the input of the PDF export.
"""

from __future__ import annotations

from html import escape

from deepresearch.citations import Source
from deepresearch.export.markdown import render_report_body
from deepresearch.export.registry import ExportFormat, register_format
from deepresearch.result import ResearchResult
from deepresearch.text import language_of

PASSAGE_CHARS = 6000
"""At most this much of a source's text is quoted (web pages are kept up to ~8,000 characters)."""

STYLE = """
body { margin: 0 auto; max-width: 46rem; padding: 1.5rem 1rem 3rem; color: #1d232a;
       font: 16px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 1.6rem; line-height: 1.25; } h2 { font-size: 1.25rem; margin-top: 1.8rem; }
h3 { font-size: 1.05rem; }
a { color: #1f5fbf; } a.cite { text-decoration: none; font-size: .85em; vertical-align: super; }
a.page { font-size: .85em; }
blockquote { margin: 1rem 0; padding: .4rem 1rem; border-left: 4px solid #d9dee3; background: #f6f7f9; }
code { background: #f6f7f9; padding: 0 .25rem; border-radius: 4px; }
pre { background: #f6f7f9; padding: .6rem; overflow: auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #d9dee3; padding: .2rem .5rem; }
li:target, section:target { background: #fff7d6; }
.sources { margin-top: 2.5rem; border-top: 1px solid #d9dee3; }
.source .where { color: #66707a; font-size: .9rem; overflow-wrap: anywhere; }
.source blockquote { white-space: pre-wrap; font-size: .92rem; }
"""


def cited_sources(result: ResearchResult) -> list[Source]:
    """The sources in reference order: the report's ``[k]`` is the k-th."""
    by_id = {source.id: source for source in result.sources}
    return [by_id[sid] for sid in result.cited_source_ids if sid in by_id]


def report_fragment(result: ResearchResult) -> str:
    """The report and the passages it cites, as an ``<article>`` (what the web page shows)."""
    cited = cited_sources(result)
    body = render_report_body(result.report_markdown, cited)
    return f'<article class="report">\n{body}{sources_section(cited)}</article>\n'


EXPORT_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
)
"""The exported page loads nothing from anywhere: no script, no remote image, font or style."""


def report_html(result: ResearchResult) -> str:
    """The whole self-contained HTML document (its Content-Security-Policy forbids every load)."""
    language = language_of(result.question)
    return (
        f'<!doctype html>\n<html lang="{language}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{EXPORT_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(result.question)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f"<body>\n{report_fragment(result)}</body>\n</html>\n"
    )


def sources_section(cited: list[Source]) -> str:
    """Each cited source with the passage that was read, anchored ``src-<id>``."""
    if not cited:
        return ""
    parts = [_source(number, source) for number, source in enumerate(cited, 1)]
    return '<section class="sources">\n<h2>Passages read</h2>\n' + "".join(parts) + "</section>\n"


def _source(number: int, source: Source) -> str:
    text = source.content or source.snippet or "(no text was kept for this source)"
    if len(text) > PASSAGE_CHARS:
        text = text[:PASSAGE_CHARS].rstrip() + " …"
    fallback = " (fallback search)" if source.is_fallback else ""
    return (
        f'<section class="source" id="src-{source.id}">\n'
        f'<h3><a href="#ref-{number}">[{number}]</a> {escape(source.title or source.url)}</h3>\n'
        f'<p class="where">{_where(source)}{escape(fallback)}</p>\n'
        f"<blockquote>{escape(text)}</blockquote>\n</section>\n"
    )


def _where(source: Source) -> str:
    url = escape(source.url)
    if source.url.lower().startswith(("http://", "https://")):
        return f'<a href="{url}" rel="noopener noreferrer">{url}</a>'
    return f"{url}" + (f" (document <code>{escape(source.doc_id)}</code>)" if source.doc_id else "")


FORMAT = register_format(
    ExportFormat(
        "html",
        "HTML (one file)",
        "text/html; charset=utf-8",
        (".html", ".htm"),
        lambda result: report_html(result).encode("utf-8"),
    )
)
