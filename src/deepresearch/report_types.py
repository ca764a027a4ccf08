"""Report types (``REPORT_TYPE``, ``--report-type``, the request's ``report_type``): what the five
sections hold. Each type keeps the same contract — the answer line, Background, Key insights,
Evidence and data, Risks and open questions, References — and the same code-built citations.

- ``detailed`` (the default): every task's evidence, as :mod:`deepresearch.report_markdown` writes it;
- ``brief``: the answer and the key cited facts — Background cut to its first paragraph, and the
  Evidence section to each task's best cited point (one line per task, none repeating an insight);
- ``resources``: an annotated list of the sources read, grouped by the task that read them — each
  source once, cited, with its kind, its publication line and its first sentence.

:func:`shape_sections` takes the detailed sections and returns those of the type asked for.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import get_args

from deepresearch.citations import Source, publication_line
from deepresearch.domain import TodoItem
from deepresearch.settings import ReportType
from deepresearch.text import sentences
from deepresearch.untrusted import markdown_literal as literal

REPORT_TYPES: tuple[str, ...] = get_args(ReportType)
ANNOTATION_CHARS = 240
_CITED_POINT = re.compile(r"^-\s+.*\[\d+(?:,\s*\d+)*\]\s*$")
_WORDS = {
    "en": {
        "read_above": "The sources this task read are listed above.",
        "none": "No source was read.",
        "in_insights": "The key cited facts are the insights above.",
    }
}
"""The few words only these types write; a language without its own entry gets English."""


def shape_sections(
    report_type: str,
    sections: tuple[str, str, str],
    tasks: Sequence[TodoItem],
    sources: Sequence[Source],
    h: dict[str, str],
    language: str = "en",
) -> tuple[str, str, str]:
    """``(background, insights, evidence)`` of the detailed report, shaped for ``report_type``."""
    background, insights, evidence = sections
    words = _WORDS.get(language, _WORDS["en"])
    if report_type == "brief":
        points = _key_points(evidence, insights) or (words["in_insights"] if insights.strip() else "")
        return _first_paragraph(background), insights, points
    if report_type == "resources":
        return background, insights, resource_list(tasks, sources, h, language)
    return sections


def resource_list(
    tasks: Sequence[TodoItem], sources: Sequence[Source], h: dict[str, str], language: str
) -> str:
    """The sources read, under the first task that read each, annotated and cited ``[id]``."""
    words = _WORDS.get(language, _WORDS["en"])
    by_id = {source.id: source for source in sources}
    listed: set[int] = set()
    blocks = []
    for task in tasks:
        fresh = [by_id[i] for i in task.source_ids if i in by_id and i not in listed]
        listed.update(source.id for source in fresh)
        lines = "\n".join(_annotated(source) for source in fresh)
        if not lines and not task.source_ids:
            continue
        heading = h["task"].format(id=task.id, title=literal(task.title))
        blocks.append(f"### {heading}\n\n{lines or words['read_above']}")
    unlisted = [source for source in sources if source.id not in listed]
    if unlisted:
        blocks.append("\n".join(_annotated(source) for source in unlisted))
    return "\n\n".join(blocks) or words["none"]


def _annotated(source: Source) -> str:
    about = [
        part for part in (source.kind if source.kind != "unknown" else "", publication_line(source)) if part
    ]
    meta = f" ({literal(' · '.join(about))})" if about else ""
    first = next(iter(sentences(source.snippet or source.content)), "")
    note = first if len(first) <= ANNOTATION_CHARS else first[:ANNOTATION_CHARS].rsplit(" ", 1)[0] + "…"
    annotation = f": {literal(note)}" if note else ""
    return f"- **{literal(source.title) or 'untitled'}**{meta}{annotation} [{source.id}]"


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n", 1)[0]


def _key_points(evidence: str, insights: str) -> str:
    """The first cited point under each task heading of ``evidence`` that no insight repeats."""
    points, taken = [], False
    for line in evidence.splitlines():
        if line.startswith("### "):
            taken = False
            continue
        stripped = line.strip()
        if not taken and _CITED_POINT.match(stripped) and stripped[2:] not in insights:
            points.append(stripped)
            taken = True
    return "\n".join(points)
