"""Rendering the report: the grounded answer, five sections, citations checked and numbered by code.

Every ``[n]`` that names no source of the run is removed and counted; the rest are renumbered 1..N
in order of first citation, and the references list exactly those, in that order. Sentences quoted
from sources keep their subject, appear once, and come only from sources about the question.
Whatever code quotes (a source's sentence or title, the answer, task titles, the question, notices
naming a URL) goes in as :func:`~deepresearch.untrusted.markdown_literal`: no Markdown viewer
shows an image, a link or HTML from page text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from deepresearch.answers.evidence import about_question
from deepresearch.answers.ground import GroundedAnswer
from deepresearch.answers.question import frame_question
from deepresearch.citations import Source, cited_ids, number_citations, render_references, resolve_citations
from deepresearch.domain import DROPPED, ReportResult, RoundEvaluation, TaskJudgement, TodoItem
from deepresearch.extractive import with_subject
from deepresearch.lexicon import INNER_NAME_WORD
from deepresearch.model_outputs import Insight, ReportDraft
from deepresearch.report_evidence import (
    TASK_QUOTES,
    Bearing,
    bearing,
    best_quotes,
    openings,
    still_missing,
    task_quotes,
)
from deepresearch.report_text import HEADINGS
from deepresearch.report_types import shape_sections
from deepresearch.text import (
    CITATION,
    CITATION_LIKE,
    cited_sentences,
    key_stems,
    language_of,
    stem,
    stems,
    strip_citations,
)
from deepresearch.untrusted import markdown_literal as literal

ABOUT_FLOOR = 0.5
ESTABLISHED_SUPPORT = 0.6
PARTIAL_SUPPORT = 0.5
_HEADING = re.compile(r"(?m)^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_POINT = re.compile(rf"^-\s+(.*?)\s*((?:{CITATION.pattern}\s*)+)$")
_BOOKKEEPING = re.compile(
    r"^(?:(?:plan|role|judge|report|round \d+):|removed \d+ run folder|task \d+: model summary failed)"
)
"""Notices about how the run went about its work (the plan's drops and top-ups, the role, the
judge's or a summary's fallback, the rounds, old run folders): kept in the result's ``fallbacks``
and ``notices``, but no limit of the report, since none changes how far its answer can be trusted."""
_MODEL_FAILED = re.compile(r"^(plan|role|judge|report|task \d+): (?:model call failed|model summary failed)")
"""A step whose model call failed (the server down or answering errors) and code stood in: a limit
of the report, said once with the steps (a model answering 500 to every call still gives a
report built from the evidence, and exit 0)."""


@dataclass
class ReportInput:
    question: str
    language: str
    tasks: Sequence[TodoItem]
    sources: Sequence[Source]
    evaluations: Sequence[RoundEvaluation]
    threshold: float
    draft: ReportDraft | None
    notices: Sequence[str] = ()
    answer: GroundedAnswer | None = None
    report_type: str = "detailed"


@dataclass
class _Body:
    """What the sections add up to while the report is built."""

    valid: set[int]
    about: set[int]
    found: Bearing
    terms: frozenset[str] = frozenset()
    quoted: set[str] = field(default_factory=set)
    removed: int = 0
    dropped_insights: int = 0
    dropped_prose: int = 0


def render_report(inp: ReportInput) -> ReportResult:
    """The Markdown report (see the module docstring)."""
    h = HEADINGS.get(inp.language, HEADINGS["en"])
    draft = inp.draft or ReportDraft(answer="", background="", insights=[], risks=[])
    found = bearing(inp.question, inp.sources)
    state = _Body(
        valid={s.id for s in inp.sources},
        about=_about(inp, found),
        found=found,
        terms=frozenset(key_stems(inp.question)),
    )
    insights, marks = _insights(inp, draft, state, h)
    detailed = (_background(inp, draft, h, state), insights, _evidence(inp, state, h))
    background, insights, evidence = shape_sections(
        inp.report_type, detailed, inp.tasks, inp.sources, h, inp.language
    )
    parts = [
        f"# {literal(inp.question)}",
        _answer_block(inp.answer, inp.sources, h),
        _section(h["background"], background),
        _section(h["insights"], insights),
        _section(h["evidence"], evidence),
        _section(h["risks"], _risks(inp, draft, h, state)),
    ]
    body, removed = resolve_citations("\n\n".join(p for p in parts if p), state.valid)
    state.removed += removed
    limits = _limits(inp, h, state, cited_ids(body))
    if limits:
        first = body.find("\n## ")
        at = first + 1 if first >= 0 else len(body)
        body = f"{body[:at]}> **{h['limits']}:**\n{limits}\n\n{body[at:]}"
    body, order = number_citations(body)
    others = _not_cited(inp, order, state)
    return ReportResult(
        markdown=f"{body}\n\n{_section(h['references'], _references(inp, order, others, h))}\n",
        answer=_answer_text(inp.answer),
        answer_status=inp.answer.status if inp.answer else "",
        answer_source_id=inp.answer.source_id if inp.answer else None,
        cited=order,
        read_not_cited=others[0],
        off_topic=others[1],
        removed_citations=state.removed,
        insight_marks=marks,
    )


def _about(inp: ReportInput, found: Bearing) -> set[int]:
    """Sources about the question: they hold its names and much of its words, a sentence of
    theirs bears on it (:mod:`deepresearch.report_evidence`: the second hop's passage need not
    name the question's names), or they are the answer's chain."""
    frame = frame_question(inp.question)
    about = about_question(frame.terms, inp.sources, ABOUT_FLOOR, frame.names)
    about |= {s.source_id for s in found.bearing()}
    if inp.answer is not None and inp.answer.source_id is not None:
        about.add(inp.answer.source_id)
    via = _via(inp.answer)
    if via is not None:
        about.add(via[1])
    return about


def _via(answer: GroundedAnswer | None) -> tuple[str, int] | None:
    """The answer's bridge sentence and its source, when it is another passage: another source
    and another sentence than the one that holds the answer (else there is no bridge to show)."""
    if answer is None or not answer.via_sentence or answer.via_source_id is None:
        return None
    same_text = _sentence_key(answer.via_sentence) == _sentence_key(answer.sentence)
    if answer.via_source_id == answer.source_id or same_text:
        return None
    return answer.via_sentence, answer.via_source_id


def _section(title: str, text: str) -> str:
    return f"## {title}\n\n{text.strip()}" if text.strip() else ""


def demote_headings(text: str) -> str:
    """Markdown headings inside model or page text become bold lines: the report keeps one outline."""
    return _HEADING.sub(r"**\1**", text)


def _answer_text(answer: GroundedAnswer | None) -> str:
    return answer.text if answer is not None else ""


def _answer_block(answer: GroundedAnswer | None, sources: Sequence[Source], h: dict[str, str]) -> str:
    if answer is None or not answer.text:
        return ""
    text = literal(answer.text)
    if answer.status == "abstained":
        return (
            f"**{h['answer']}:** {text}"
            + _turned_away(answer, sources, h)
            + _options_read(answer, sources, h)
        )
    if answer.status == "unverified":
        return f"**{h['answer']}:** {text} *({h['unverified_mark']})*"
    line = f"**{h['answer']}:** {text} [{answer.source_id}]"
    if answer.status == "sentence" or not answer.sentence or answer.source_id is None:
        return line
    quote = f"*{h['evidence_for']}:* {_quoted(answer.sentence, answer.source_id, sources)}"
    bridge = _via(answer)
    if bridge is not None:
        quote += f" — {h['via']} {_quoted(bridge[0], bridge[1], sources)}"
    return f"{line}\n\n{quote}"


def _turned_away(answer: GroundedAnswer, sources: Sequence[Source], h: dict[str, str]) -> str:
    """The reader's span the gate turned away, marked unconfirmed, with the lines it stands on
    (those the reader said it used, then the line it is a span of; two at most), each cited."""
    reading = answer.turned_away
    if reading is None:
        return ""
    lines = list(dict.fromkeys([*reading.used, reading.sentence]))[:2]
    said = " ".join(_quoted(s.text, s.source_id, sources) for s in lines)
    return f"\n\n*{h['unconfirmed']}:* {literal(reading.text)} — {said}"


def _options_read(answer: GroundedAnswer, sources: Sequence[Source], h: dict[str, str]) -> str:
    """For a comparison the pages did not decide, each option with its own page's line, cited,
    or the note that no page of its own was read."""
    if not answer.options_read:
        return ""
    said = [
        f"{literal(o.option)} — "
        + (
            _quoted(o.sentence.text, o.sentence.source_id, sources)
            if o.sentence is not None
            else h["no_own_page"]
        )
        for o in answer.options_read
    ]
    return f"\n\n*{h['options_read']}:* " + "; ".join(said)


def _quoted(sentence: str, source_id: int, sources: Sequence[Source]) -> str:
    return f"“{literal(with_subject(sentence, _title(sources, source_id)))}” [{source_id}]"


MIN_PROSE_TERMS = 4
"""Model prose with fewer content words than this is a fragment, not a paragraph or a risk: measured,
SmolLM2 through a server wrote the Background "2023-01-01" and the risk "open questions"."""


def says_something(text: str) -> bool:
    """True when ``text`` holds at least :data:`MIN_PROSE_TERMS` content words (citations aside)."""
    return len(key_stems(strip_citations(text))) >= MIN_PROSE_TERMS


def _background(inp: ReportInput, draft: ReportDraft, h: dict[str, str], state: _Body) -> str:
    """The model's background, only what the sources read state (see :func:`stated_prose`);
    else what the topic is, from the opening sentences of the passages that bear most on the
    question and are not quoted already; else nothing (the section is left out: the question
    restated is no background)."""
    text, dropped = stated_prose(demote_headings(" ".join(draft.background.split())), inp.sources)
    state.dropped_prose += dropped
    if says_something(text):
        return text
    return " ".join(
        _quote(inp.sources, sentence, sid)
        for sentence, sid in openings(state.found, inp.sources, state.quoted)
    )


def _quote(sources: Sequence[Source], sentence: str, source_id: int) -> str:
    """A source's sentence as the report quotes it: with its subject, inert, cited."""
    return f"{literal(with_subject(sentence, _title(sources, source_id)))} [{source_id}]"


def _insights(inp: ReportInput, draft: ReportDraft, state: _Body, h: dict[str, str]) -> tuple[str, list[str]]:
    """The model's checked insights, the answer's sentence, then the sentences that bear most on
    the question, quoted; where the answer line abstains, last, what is still missing."""
    lines: list[tuple[str, str]] = []
    for insight in draft.insights[:5]:
        checked = _checked_insight(insight, inp.sources, state)
        if checked is None:
            state.dropped_insights += 1
        else:
            lines.append(checked)
    lines.extend(_answer_insights(inp))
    state.quoted.update(_sentence_key(text) for text, _ in lines)
    if inp.answer is not None and inp.answer.status != "abstained":
        state.quoted.update(_sentence_key(t) for t in (inp.answer.sentence, inp.answer.via_sentence) if t)
    quotes = best_quotes(state.found, set(state.quoted))
    lines.extend((_quote(inp.sources, q.text, q.source_id), "established") for q in quotes)
    missing = _missing(inp, state, h)
    kept = _dedupe(lines)[: 5 - len(missing)] + missing
    state.quoted.update(_sentence_key(text) for text, _ in kept)
    state.quoted.update(_sentence_key(q.text) for q in quotes)
    return "\n".join(f"- **{h[mark]}** — {text}" for text, mark in kept), [mark for _, mark in kept]


def _missing(inp: ReportInput, state: _Body, h: dict[str, str]) -> list[tuple[str, str]]:
    """The "still missing" line, where the answer line abstains: the bridge not found, the hop
    not stated, or (a question of one part) the answer not stated outright."""
    if inp.answer is None or inp.answer.status != "abstained":
        return []
    missing = still_missing(inp.question, state.found)
    key = f"missing_{missing.part}" + ("" if missing.quoted else "_none")
    return [(h[key].format(what=literal(missing.what)), "unknown")]


def _checked_insight(insight: Insight, sources: Sequence[Source], state: _Body) -> tuple[str, str] | None:
    """A model's insight, marked by code: established when the one passage it cites is about the
    question and supports it, inferred when its support is partial or spread over several
    sources; None (left out) when no passage it cites is about the question or supports it."""
    text = demote_headings(" ".join(insight.text.split()))[:500]
    ids = [i for i in (cited_ids(text) or insight.sources[:3]) if i in state.valid]
    if not text or not ids:
        return None
    if not cited_ids(text):
        text += "".join(f" [{i}]" for i in ids)
    about = [i for i in ids if i in state.about]
    if not about or not on_question(text, state.terms):
        return None
    by_id = {s.id: s for s in sources}
    if not stated_prose(text, [by_id[i] for i in about], words=False)[0]:
        return None
    support = max(support_share(text, by_id[i]) for i in about)
    if support >= ESTABLISHED_SUPPORT and len(ids) == 1:
        return text, "established"
    if support >= PARTIAL_SUPPORT or (len(ids) > 1 and support > 0):
        return text, "inferred"
    return None


def support_share(text: str, source: Source) -> float:
    """Share of the content words of ``text`` (stemmed, citations aside) found in ``source``."""
    wanted = set(key_stems(CITATION_LIKE.sub(" ", text)))
    if not wanted:
        return 0.0
    present = set(key_stems(f"{source.title} {source.content or source.snippet}"))
    return len(wanted & present) / len(wanted)


PROSE_SUPPORT = 0.5
"""Share of a model sentence's content words its source must hold (see :func:`stated_prose`)."""
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_ENDS = re.compile(rf"(?:[.!?。！？…][\"'”’»)]*|\*\*)(?:\s*{CITATION.pattern})*\s*$")
_EMPHASIS = re.compile(r"[*_`]+")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")


@dataclass(frozen=True)
class _Read:
    """One source as the prose check reads it: its stems, its numbers and its language."""

    source: Source
    stems: frozenset[str]
    digits: frozenset[str]
    language: str

    @classmethod
    def of(cls, source: Source) -> _Read:
        body = f"{source.title} {source.content or source.snippet}"
        return cls(source, frozenset(stems(body)), frozenset(_DIGITS.findall(body)), language_of(body))


def stated_prose(text: str, sources: Sequence[Source], *, words: bool = True) -> tuple[str, int]:
    """``text`` (a model's prose, line by line) with only the sentences a source read states, and
    how many were left out. A sentence is stated when one source it cites (any source, when it
    cites none) holds every number and name it writes and — with ``words``, and written in that
    source's language — at least :data:`PROSE_SUPPORT` of its content words; with ``words`` a
    last sentence cut off mid-way (no closing stop) is left out too. Measured on a server model:
    a Background that ended "…clock and a2", a summary that put Prague in "Wrocław, Czech
    Republic", summaries citing [1]–[6] for sources those numbers are not."""
    read = [_Read.of(s) for s in sources]
    lines, dropped = [], 0
    for line in text.splitlines():
        mark = _LIST_MARK.match(line)
        head = mark.group(0) if mark else ""
        parts = cited_sentences(line[len(head) :])
        kept = [
            part
            for i, part in enumerate(parts)
            if (not words or i < len(parts) - 1 or _ENDS.search(part)) and _is_stated(part, read, words)
        ]
        dropped += len(parts) - len(kept)
        if kept:
            lines.append(head + " ".join(kept))
    return "\n".join(lines), dropped


def _is_stated(sentence: str, read: Sequence[_Read], words: bool) -> bool:
    ids = set(cited_ids(sentence))
    pool = [r for r in read if r.source.id in ids] if ids else read
    plain = _EMPHASIS.sub("", strip_citations(CITATION_LIKE.sub(" ", sentence))).strip()
    digits = set(_DIGITS.findall(plain))
    names = {stem(n) for n in INNER_NAME_WORD.findall(plain)}
    language = language_of(plain)
    for r in pool:
        if not (digits <= r.digits and names <= r.stems):
            continue
        if not words or language != r.language or support_share(plain, r.source) >= PROSE_SUPPORT:
            return True
    return False


def _answer_insights(inp: ReportInput) -> list[tuple[str, str]]:
    answer = inp.answer
    if answer is None or answer.status == "abstained" or not answer.sentence or answer.source_id is None:
        return []
    text = _quote(inp.sources, answer.sentence, answer.source_id)
    bridge = _via(answer)
    if bridge is not None:
        return [(f"{_quote(inp.sources, bridge[0], bridge[1])} — {text}", "inferred")]
    return [(text, "established")]


def on_question(text: str, question_terms: frozenset[str]) -> bool:
    """Whether ``text`` shares a key term (or a name) with the question: an insight that shares
    none is about something else, however good its passage (a region's population in a question
    about a town's founder)."""
    return bool(set(key_stems(strip_citations(text))) & question_terms)


def _dedupe(lines: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[str] = set()
    out = []
    for text, mark in lines:
        key = _sentence_key(text)
        if key not in seen:
            seen.add(key)
            out.append((text, mark))
    return out


def _sentence_key(text: str) -> str:
    return " ".join(key_stems(CITATION_LIKE.sub(" ", text)))


def _title(sources: Sequence[Source], source_id: int) -> str:
    return next((s.title for s in sources if s.id == source_id), "")


def _evidence(inp: ReportInput, state: _Body, h: dict[str, str]) -> str:
    best = _best_relevance(inp)
    blocks, seen = [], set[str]()
    for task in inp.tasks:
        if _listed_in_limits(task):
            continue
        judged = best.get(task.id)
        evidence = _task_evidence(task, inp.sources, state, seen)
        score = (
            f" — {h['relevance'].format(relevant=judged[0], total=judged[1])}" if judged and evidence else ""
        )
        summary = evidence or _no_evidence(task, h)
        blocks.append(f"### {h['task'].format(id=task.id, title=literal(task.title))}{score}\n\n{summary}")
    return "\n\n".join(blocks)


def _best_relevance(inp: ReportInput) -> dict[int, tuple[int, int]]:
    """Each task's sources judged relevant and judged, in its best round: the evidence shown is
    what every round read, so a last round that found nothing new must not label it 0 of 0."""
    best: dict[int, TaskJudgement] = {}
    for evaluation in inp.evaluations:
        for j in evaluation.tasks:
            if j.task_id not in best or j.relevance > best[j.task_id].relevance:
                best[j.task_id] = j
    return {tid: (j.relevant, j.total) for tid, j in best.items() if j.total}


def _listed_in_limits(task: TodoItem) -> bool:
    """Skipped and failed tasks (those dropped at plan review among them) are listed once, with
    their reason, in the Limits box, and get no Evidence section of their own."""
    return task.status in ("skipped", "failed")


def _task_evidence(task: TodoItem, sources: Sequence[Source], state: _Body, seen: set[str]) -> str:
    """The task's summary without headings, without points quoting sources not about the question
    and without sentences an earlier task already quoted; then, up to
    :data:`~deepresearch.report_evidence.TASK_QUOTES` points, the task's own sentences that bear
    most on the question (a summary ranked against a task's words may miss them)."""
    kept, points = [], 0
    for line in demote_headings(task.summary).splitlines():
        point = _POINT.match(line.strip())
        if point:
            key = _sentence_key(point.group(1))
            if key in seen or not set(cited_ids(point.group(2))) & state.about:
                continue
            seen.update(
                (key, _sentence_key(point.group(1).split(": ", 1)[-1]))
            )  # with or without its subject
            points += 1
        kept.append(line)
    for quote in task_quotes(task, state.found, seen, TASK_QUOTES - points):
        kept.append(f"- {_quote(sources, quote.text, quote.source_id)}")
    return "\n".join(kept).strip()


def _no_evidence(task: TodoItem, h: dict[str, str]) -> str:
    if task.summary.strip():
        return h["off_topic"]
    return h["no_evidence"].format(title=literal(task.title))


def _risks(inp: ReportInput, draft: ReportDraft, h: dict[str, str], state: _Body) -> str:
    """The model's risks that name nothing no source read holds (a risk is an open question, so
    its words need no source), then the question's terms no source contained."""
    lines = []
    for risk in draft.risks[:5]:
        text = demote_headings(" ".join(risk.split()))[:300]
        kept, dropped = stated_prose(text, inp.sources, words=False)
        state.dropped_prose += dropped
        if says_something(kept):
            lines.append(f"- {kept}")
    if inp.evaluations:
        gaps = _run_gaps(inp)
        if gaps:
            terms = ", ".join(literal(g) for g in list(dict.fromkeys(gaps))[:8])
            lines.append("- " + h["gaps"].format(terms=terms))
    return "\n".join(lines)


def _run_gaps(inp: ReportInput) -> list[str]:
    """The judge's gap terms that no source of the whole run contains (a task's gap may be
    another task's find)."""
    present = set(key_stems(" ".join(f"{s.title} {s.content or s.snippet}" for s in inp.sources)))
    dropped = {t.id for t in inp.tasks if t.skip_reason == DROPPED}
    gaps = dict.fromkeys(g for j in inp.evaluations[-1].tasks if j.task_id not in dropped for g in j.gaps)
    return [g for g in gaps if not set(key_stems(g)) <= present]


def _limits(inp: ReportInput, h: dict[str, str], state: _Body, cited: Sequence[int]) -> str:
    """The lines that change how far the reader should trust the answer (see :func:`_thin`,
    :data:`_BOOKKEEPING`), each a number that says what it counts."""
    lines = [*_evidence_limits(inp, h, cited)]
    for task in inp.tasks:
        if _listed_in_limits(task):
            reason = literal(task.skip_reason or task.status).rstrip(".")
            lines.append(h["skipped"].format(id=task.id, title=literal(task.title), reason=reason))
    fallback = sum(s.is_fallback for s in inp.sources)
    counts = [
        ("fallback_used", fallback),
        ("removed", state.removed),
        ("dropped_insights", state.dropped_insights),
        ("dropped_prose", state.dropped_prose),
    ]
    lines.extend(h[key].format(count=count) for key, count in counts if count)
    failed = [m.group(1) for m in map(_MODEL_FAILED.match, inp.notices) if m]
    if failed:
        steps = ", ".join(dict.fromkeys(failed))
        lines.append(h["model_failed"].format(count=len(failed), steps=steps))
    lines.extend(literal(n) for n in inp.notices if not _BOOKKEEPING.match(n))
    return "\n".join(f"> - {line}" for line in lines)


def _evidence_limits(inp: ReportInput, h: dict[str, str], cited: Sequence[int]) -> list[str]:
    """The answer unverified; relevance as the sources judged relevant of those judged (where
    it is thin); key-term coverage as the share of the question's key terms that the cited
    passage closest to the question holds (where no grounded answer stands)."""
    lines = [h["unverified"]] if inp.answer is not None and inp.answer.status == "unverified" else []
    if _thin(inp):
        last = inp.evaluations[-1]
        lines.append(
            h["thin"].format(
                relevant=last.relevant,
                total=last.total,
                score=last.relevance,
                rounds=len(inp.evaluations),
                threshold=inp.threshold,
            )
        )
    grounded = inp.answer is not None and inp.answer.status not in ("abstained", "unverified")
    held = _best_coverage(inp, cited)
    if not grounded and held is not None:
        lines.append(h["coverage"].format(held=held[0], terms=held[1]))
    return lines


def _best_coverage(inp: ReportInput, cited: Sequence[int]) -> tuple[int, int] | None:
    """(held, all): the most key terms of the question one cited source holds, by stem, and
    how many key terms the question has; None without key terms or cited sources."""
    terms = set(frame_question(inp.question).terms)
    by_id = {s.id: s for s in inp.sources}
    cited_sources = [by_id[i] for i in dict.fromkeys(cited) if i in by_id]
    if not terms or not cited_sources:
        return None
    best = max(len(terms & set(key_stems(f"{s.title} {s.content or s.snippet}"))) for s in cited_sources)
    return best, len(terms)


def _thin(inp: ReportInput) -> bool:
    """Thin evidence is worth a line only where no grounded answer stands (a cited answer is not
    thin evidence, whatever the relevance score) and the score is below the threshold (so never
    against a 0 % threshold, nor when the score passed and only the answer was missing, which
    the answer line already says)."""
    grounded = inp.answer is not None and inp.answer.status not in ("abstained", "unverified")
    return bool(inp.evaluations) and not grounded and inp.evaluations[-1].relevance < inp.threshold


def _not_cited(inp: ReportInput, order: Sequence[int], state: _Body) -> tuple[list[int], list[int]]:
    """The sources read but not cited: (about the question, off it), by id."""
    cited = set(order)
    rest = [s.id for s in inp.sources if s.id not in cited]
    return [i for i in rest if i in state.about], [i for i in rest if i not in state.about]


MAX_OTHER_TITLES = 8


def _references(
    inp: ReportInput, order: Sequence[int], others: tuple[list[int], list[int]], h: dict[str, str]
) -> str:
    """The cited sources, numbered as cited; then one line for the others read: how many, the
    titles of those about the question, and how many were off it (not listed)."""
    by_id = {s.id: s for s in inp.sources}
    if not inp.sources:
        return h["none"]
    head = (
        render_references([by_id[i] for i in order], fallback_label=h["fallback"])
        if order
        else h["none_cited"]
    )
    about, off = others
    if not about and not off:
        return head
    parts = [h["other_read"].format(count=len(about) + len(off))]
    if about:
        titles = "; ".join(_listed_title(by_id[i], h) for i in about[:MAX_OTHER_TITLES])
        more = "; …" if len(about) > MAX_OTHER_TITLES else ""
        parts.append(h["on_question"].format(count=len(about), titles=titles + more))
    if off:
        parts.append(h["off_question"].format(count=len(off)))
    return f"{head}\n\n*{'; '.join(parts)}.*"


def _listed_title(source: Source, h: dict[str, str]) -> str:
    flag = f" *({h['fallback']})*" if source.is_fallback else ""
    return (literal(source.title) or "untitled") + flag


__all__ = ["ReportInput", "demote_headings", "render_report", "support_share"]
