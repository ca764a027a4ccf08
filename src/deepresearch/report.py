"""Rendering the report: five sections, citations checked and references built by code."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from deepresearch.citations import Source, cited_ids, render_references, resolve_citations
from deepresearch.graph.schemas import ReportDraft
from deepresearch.graph.state import ReportResult, RoundEvaluation, TodoItem

HEADINGS = {
    "en": {
        "answer": "Answer",
        "background": "Background",
        "insights": "Key insights",
        "evidence": "Evidence and data",
        "risks": "Risks and open questions",
        "references": "References",
        "limits": "Limits of this report",
        "established": "Established",
        "inferred": "Inferred",
        "unknown": "Unknown",
        "fallback": "fallback source",
        "none": "No sources were read.",
        "thin": (
            "Evidence stayed thin: overall key-term relevance {score:.0f}% after {rounds} round(s), "
            "below the {threshold:.0f}% threshold."
        ),
        "skipped": "Skipped task {id} ({title}): {reason}.",
        "fallback_used": "{count} source(s) came from a fallback search engine and are marked as such.",
        "no_evidence": "{title}: no evidence was found for this task.",
        "removed": "{count} citation(s) naming no source read by this run were removed.",
        "gaps": "Terms of the question no source contained: {terms}.",
        "task": "Task {id}: {title}",
        "relevance": "key-term relevance {score:.0f}%",
        "background_fallback": "This report researches: {question}",
    },
    "zh": {
        "answer": "答案",
        "background": "背景概览",
        "insights": "核心洞见",
        "evidence": "证据与数据",
        "risks": "风险与挑战",
        "references": "参考来源",
        "limits": "本报告的局限",
        "established": "已证实",
        "inferred": "推断",
        "unknown": "未知",
        "fallback": "备用来源",
        "none": "本次运行没有读取任何来源。",
        "thin": "证据不足：经过 {rounds} 轮后整体关键词相关度为 {score:.0f}%，低于阈值 {threshold:.0f}%。",
        "skipped": "已跳过任务 {id}（{title}）：{reason}。",
        "fallback_used": "{count} 个来源来自备用搜索引擎，已标注。",
        "no_evidence": "{title}：此任务未找到证据。",
        "removed": "已移除 {count} 个不对应任何已读来源的引用。",
        "gaps": "来源中未出现的问题关键词：{terms}。",
        "task": "任务 {id}：{title}",
        "relevance": "关键词相关度 {score:.0f}%",
        "background_fallback": "本报告研究的问题：{question}",
    },
}


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


def render_report(inp: ReportInput) -> ReportResult:
    """The Markdown report. Every ``[n]`` that names no source of the run is removed and counted."""
    h = HEADINGS.get(inp.language, HEADINGS["en"])
    valid = {s.id for s in inp.sources}
    draft = inp.draft or ReportDraft(answer="", background="", insights=[], risks=[])
    answer, removed_a = resolve_citations(" ".join(draft.answer.split())[:400], valid)
    insights, marks, removed_i = _insights(inp, draft, valid, h)
    body = "\n\n".join(
        p
        for p in [
            f"# {inp.question}",
            f"**{h['answer']}:** {answer}" if answer else "",
            _section(h["background"], _background(inp, draft, h)),
            _section(h["insights"], insights),
            _section(h["evidence"], _evidence(inp, h)),
            _section(h["risks"], _risks(inp, draft, h)),
        ]
        if p
    )
    body, removed_b = resolve_citations(body, valid)
    removed = removed_a + removed_i + removed_b
    limits = _limits(inp, h, removed)
    if limits:
        background = f"## {h['background']}"
        body = body.replace(background, f"> **{h['limits']}:**\n{limits}\n\n{background}", 1)
    cited = [i for i in cited_ids(body) if i in valid]
    refs = [s for s in inp.sources if s.id in set(cited)] or list(inp.sources)
    references = render_references(refs, fallback_label=h["fallback"]) if refs else h["none"]
    markdown = f"{body}\n\n{_section(h['references'], references)}\n"
    return ReportResult(
        markdown=markdown, answer=answer, cited=cited, removed_citations=removed, insight_marks=marks
    )


def _section(title: str, text: str) -> str:
    return f"## {title}\n\n{text.strip()}"


def _background(inp: ReportInput, draft: ReportDraft, h: dict[str, str]) -> str:
    text = " ".join(draft.background.split())
    return text or h["background_fallback"].format(question=inp.question)


def _insights(
    inp: ReportInput, draft: ReportDraft, valid: set[int], h: dict[str, str]
) -> tuple[str, list[str], int]:
    lines, marks, removed = [], [], 0
    for insight in draft.insights[:5]:
        text = " ".join(insight.text.split())[:500]
        if not text:
            continue
        if not cited_ids(text):
            text += "".join(f" [{i}]" for i in insight.sources[:3] if i in valid)
        text, dropped = resolve_citations(text, valid)
        removed += dropped
        mark = "established" if cited_ids(text) else "inferred"
        lines.append(f"- **{h[mark]}** — {text}")
        marks.append(mark)
    for line, mark in _code_insights(inp, h):
        if len(lines) >= 5 or (len(lines) >= 3 and mark == "established"):
            break
        if line in lines:
            continue
        lines.append(line)
        marks.append(mark)
    return "\n".join(lines), marks, removed


def _code_insights(inp: ReportInput, h: dict[str, str]) -> list[tuple[str, str]]:
    out, used = [], set[str]()
    for task in inp.tasks:
        fresh = [ln for ln in task.summary.splitlines() if ln.strip() and ln not in used]
        first = fresh[0] if fresh else ""
        used.add(first)
        if task.status == "completed" and first:
            out.append((f"- **{h['established']}** — {first.lstrip('- ').strip()}", "established"))
        elif task.status in ("skipped", "failed"):
            text = h["no_evidence"].format(title=task.title)
            out.append((f"- **{h['unknown']}** — {text}", "unknown"))
    return out


def _evidence(inp: ReportInput, h: dict[str, str]) -> str:
    latest = {j.task_id: j for j in inp.evaluations[-1].tasks} if inp.evaluations else {}
    blocks = []
    for task in inp.tasks:
        judgement = latest.get(task.id)
        score = f" — {h['relevance'].format(score=judgement.relevance)}" if judgement else ""
        summary = task.summary.strip() or h["no_evidence"].format(title=task.title)
        blocks.append(f"### {h['task'].format(id=task.id, title=task.title)}{score}\n\n{summary}")
    return "\n\n".join(blocks)


def _risks(inp: ReportInput, draft: ReportDraft, h: dict[str, str]) -> str:
    lines = [f"- {' '.join(r.split())[:300]}" for r in draft.risks[:5] if r.strip()]
    if inp.evaluations:
        gaps = [g for j in inp.evaluations[-1].tasks for g in j.gaps]
        if gaps:
            terms = ", ".join(list(dict.fromkeys(gaps))[:8])
            lines.append("- " + h["gaps"].format(terms=terms))
    return "\n".join(lines) or "-"


def _limits(inp: ReportInput, h: dict[str, str], removed: int) -> str:
    lines = []
    if inp.evaluations and not inp.evaluations[-1].enough:
        last = inp.evaluations[-1]
        lines.append(
            h["thin"].format(score=last.relevance, rounds=len(inp.evaluations), threshold=inp.threshold)
        )
    for task in inp.tasks:
        if task.status in ("skipped", "failed"):
            reason = task.skip_reason or task.status
            lines.append(h["skipped"].format(id=task.id, title=task.title, reason=reason.rstrip(".")))
    fallback = sum(s.is_fallback for s in inp.sources)
    if fallback:
        lines.append(h["fallback_used"].format(count=fallback))
    if removed:
        lines.append(h["removed"].format(count=removed))
    lines.extend(inp.notices)
    return "\n".join(f"> - {line}" for line in lines)
