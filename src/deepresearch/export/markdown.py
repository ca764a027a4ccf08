"""The report's Markdown as HTML: one CommonMark renderer for the web page and every export.

Code, not the model, decides every link: ``[n]`` citations link to the reference they number
(``#ref-n``), each reference links to the passage that was read (``#src-<source id>``) with its page
beside it when that is a web page, and every other link loses its ``href`` (a URL the run did not
read is never a link). Images are not rendered (``![x](url)`` stays text: an image is a request
when the report is viewed), and raw HTML in the Markdown is shown as text (reports quote untrusted
page text).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.token import Token

from deepresearch.citations import Source
from deepresearch.text import CITATION, cited_numbers

_WEB = re.compile(r"^https?://", re.IGNORECASE)


class _Markdown(MarkdownIt):
    """CommonMark with tables, no raw HTML; every link scheme parses, ``_links`` then vets it."""

    def validateLink(self, url: str) -> bool:  # noqa: N802 - markdown-it's name
        return not url.strip().lower().startswith(("javascript:", "vbscript:", "data:", "file:"))


def render_report_body(markdown: str, cited: Sequence[Source]) -> str:
    """``markdown`` (a report whose ``[k]`` names ``cited[k-1]``) as an HTML fragment."""
    md = _Markdown("commonmark", {"html": False}).enable("table").disable("image")
    tokens = md.parse(markdown)
    for token in tokens:
        if token.type == "inline" and token.children is not None:
            token.children = _cite(token.children, len(cited))
    read = [md.normalizeLink(s.url) for s in cited]
    _mark_references(tokens, cited, read)
    for token in tokens:
        if token.type == "inline" and token.children is not None:
            token.children = _vet_links(token.children, set(read))
    html: str = md.renderer.render(tokens, md.options, {})
    return html


def _cite(children: list[Token], count: int) -> list[Token]:
    out: list[Token] = []
    inside_link = 0
    for child in children:
        inside_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
        if child.type != "text" or inside_link:
            out.append(child)
            continue
        out.extend(_split_citations(child.content, count))
    return out


def _split_citations(text: str, count: int) -> list[Token]:
    out: list[Token] = []
    last = 0
    for match in CITATION.finditer(text):
        numbers = cited_numbers(match.group(1))
        if not all(1 <= n <= count for n in numbers):
            continue
        out.append(_text(text[last : match.start()]))
        out.append(_text("["))
        for i, number in enumerate(numbers):
            out += [_text(", ")] if i else []
            out += _link(f"#ref-{number}", str(number), css="cite")
        out.append(_text("]"))
        last = match.end()
    out.append(_text(text[last:]))
    return [t for t in out if t.type != "text" or t.content]


def _mark_references(tokens: list[Token], cited: Sequence[Source], hrefs: Sequence[str]) -> None:
    """The ordered list whose k-th item links to ``cited[k-1]``'s URL is the references list: its
    items get ``id="ref-k"`` and their links point at the passage read."""
    for start, token in enumerate(tokens):
        if token.type != "ordered_list_open":
            continue
        items = _list_items(tokens, start)
        first = int(str(token.attrGet("start") or 1))
        numbered = [(first + i, item, inline) for i, (item, inline) in enumerate(items)]
        if numbered and all(_links_to(inline, hrefs, n) for n, _, inline in numbered):
            for number, item, inline in numbered:
                item.attrSet("id", f"ref-{number}")
                _point_at_passage(inline, cited[number - 1])


def _list_items(tokens: list[Token], start: int) -> list[tuple[Token, Token]]:
    level, items, i = tokens[start].level, [], start + 1
    while i < len(tokens) and not (tokens[i].type == "ordered_list_close" and tokens[i].level == level):
        if tokens[i].type == "list_item_open" and tokens[i].level == level + 1:
            inline = next((t for t in tokens[i:] if t.type == "inline"), None)
            if inline is not None:
                items.append((tokens[i], inline))
        i += 1
    return items


def _links_to(inline: Token, hrefs: Sequence[str], number: int) -> bool:
    link = next((c for c in inline.children or [] if c.type == "link_open"), None)
    return link is not None and 1 <= number <= len(hrefs) and link.attrGet("href") == hrefs[number - 1]


def _point_at_passage(inline: Token, source: Source) -> None:
    children = inline.children or []
    link = next(c for c in children if c.type == "link_open")
    link.attrSet("href", f"#src-{source.id}")
    link.attrSet("title", "the passage that was read")
    if _WEB.match(source.url):
        close = next(i for i, c in enumerate(children) if c.type == "link_close")
        page = [_text(" "), *_link(source.url, "↗ page", css="page")]
        inline.children = [*children[: close + 1], *page, *children[close + 1 :]]


def _vet_links(children: list[Token], read: set[str]) -> list[Token]:
    """Links keep their ``href`` only to an anchor of the report or to a web page the run read."""
    for child in children:
        href = str(child.attrGet("href") or "") if child.type == "link_open" else ""
        if child.type != "link_open" or href.startswith("#"):
            continue
        if _WEB.match(href) and href in read:
            child.attrSet("rel", "noopener noreferrer")
        else:
            child.attrs.pop("href", None)
    return children


def _text(content: str) -> Token:
    token = Token("text", "", 0)
    token.content = content
    return token


def _link(href: str, label: str, *, css: str) -> list[Token]:
    opening = Token("link_open", "a", 1)
    opening.attrSet("href", href)
    opening.attrSet("class", css)
    return [opening, _text(label), Token("link_close", "a", -1)]
