"""The web page, with the choices this server offers written into it.

``static/index.html`` holds two placeholders: the search backends a request may choose (the
server's ``SEARCH_API`` and ``REQUEST_SEARCH_APIS``, labelled from the backend registry) and the
export formats (the format registry). So the page offers what the server takes, and a backend or a
format registered by one module shows up here with no edit to the page.
"""

from __future__ import annotations

from functools import cache
from html import escape
from importlib.resources import files

from deepresearch.export import FORMATS
from deepresearch.search.registry import BACKENDS
from deepresearch.settings import Settings

SEARCH_CHOICES = "<!-- search backends -->"
FORMAT_CHOICES = "<!-- export formats -->"
DEFAULT_FORMAT = "md"


def page_html(settings: Settings) -> str:
    """The page with this server's search backends and every export format as ``<option>``s."""
    backends = [(name, _label(name)) for name in settings.request_search_backends()]
    formats = [(fmt.name, fmt.label) for fmt in FORMATS]
    return (
        _template()
        .replace(SEARCH_CHOICES, _options(backends))
        .replace(FORMAT_CHOICES, _options(formats, selected=DEFAULT_FORMAT))
    )


def _label(name: str) -> str:
    spec = BACKENDS.find(name)
    return spec.label if spec is not None else name


def _options(choices: list[tuple[str, str]], selected: str | None = None) -> str:
    return "".join(
        f'<option value="{escape(value)}"{" selected" if value == selected else ""}>{escape(label)}</option>'
        for value, label in choices
    )


@cache
def _template() -> str:
    return files("deepresearch.server").joinpath("static/index.html").read_text(encoding="utf-8")
