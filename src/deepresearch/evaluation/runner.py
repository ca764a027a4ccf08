"""Running an evaluation: the agent (and optionally the naive baseline) on every question, scored.

A failed question is recorded with its error; it never aborts the evaluation.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress

from deepresearch.agent import research
from deepresearch.citations import cited_ids
from deepresearch.errors import ConfigurationError, DeepResearchError
from deepresearch.evaluation.baseline import naive_answer
from deepresearch.evaluation.dataset import EvalQuestion, Half, group_of, load_questions
from deepresearch.evaluation.scoring import (
    answer_match,
    citation_precision,
    evidence_recall,
    exact_match,
    f1,
)
from deepresearch.index.corpus import ensure_corpus_index
from deepresearch.index.dense import embedder_for
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.base import ChatModel, ChatModelBase
from deepresearch.llm.metered import MeteredModel
from deepresearch.result import ResearchResult
from deepresearch.search.local import LocalSearch
from deepresearch.settings import Settings

METRICS = (
    "answer_match",
    "abstained",
    "em",
    "f1",
    "evidence_recall",
    "citation_validity",
    "citation_precision",
    "rounds",
    "model_calls",
    "prompt_tokens",
    "completion_tokens",
    "seconds",
)


@dataclass(frozen=True)
class EvalOptions:
    questions: Path
    corpus: Path
    limit: int | None = None
    seed: int | None = None
    baseline: str | None = None
    out: Path | None = None
    top_k: int = 5
    drop_gold: bool = False
    half: Half | None = None


@dataclass
class QuestionScore:
    qid: str
    question: str
    gold: list[str]
    answer: str = ""
    error: str | None = None
    answer_match: float = 0.0
    abstained: float = 0.0
    em: float = 0.0
    f1: float = 0.0
    evidence_recall: float = 0.0
    citation_validity: float | None = None
    citation_precision: float | None = None
    rounds: int = 0
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class EvalReport:
    model: str
    corpus: str
    questions: int
    systems: dict[str, list[QuestionScore]] = field(default_factory=dict)

    def summary(self, system: str) -> dict[str, float | int | None]:
        rows = self.systems[system]
        done = [r for r in rows if r.error is None]
        out: dict[str, float | int | None] = {"n": len(rows), "failed": len(rows) - len(done)}
        for metric in METRICS:
            values = [getattr(r, metric) for r in done if getattr(r, metric) is not None]
            out[metric] = round(statistics.fmean(values), 3) if values else None
        answered = [r.answer_match for r in done if not r.abstained]
        out["precision_answering"] = round(statistics.fmean(answered), 3) if answered else None
        return out

    def groups(self, system: str) -> dict[str, dict[str, float | int | None]]:
        """answer_match, precision when answering and evidence recall per dataset and hop count."""
        by_group: dict[str, list[QuestionScore]] = {}
        for row in self.systems[system]:
            if row.error is None:
                by_group.setdefault(group_of(row.qid), []).append(row)
        out: dict[str, dict[str, float | int | None]] = {}
        for group, rows in sorted(by_group.items()):
            answered = [r.answer_match for r in rows if not r.abstained]
            out[group] = {
                "n": len(rows),
                "answer_match": round(statistics.fmean(r.answer_match for r in rows), 3),
                "precision_answering": round(statistics.fmean(answered), 3) if answered else None,
                "evidence_recall": round(statistics.fmean(r.evidence_recall for r in rows), 3),
            }
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "corpus": self.corpus,
            "questions": self.questions,
            "summary": {name: self.summary(name) for name in self.systems},
            "groups": {name: self.groups(name) for name in self.systems},
            "rows": {name: [asdict(r) for r in rows] for name, rows in self.systems.items()},
        }

    def markdown(self) -> str:
        columns = (*METRICS, "precision_answering")
        header = "| system | n | failed | " + " | ".join(columns) + " |"
        rule = "|" + "---|" * (len(columns) + 3)
        lines = [f"Model: {self.model} · corpus: {self.corpus}", "", header, rule]
        for name in self.systems:
            row = self.summary(name)
            cells = [str(row[m]) if row[m] is not None else "–" for m in columns]
            lines.append(f"| {name} | {row['n']} | {row['failed']} | " + " | ".join(cells) + " |")
        lines += [
            "",
            "| system | group | n | answer_match | precision_answering | evidence_recall |",
            "|---|---|---|---|---|---|",
        ]
        for name in self.systems:
            for group, g in self.groups(name).items():
                cells = [
                    str(g[m]) if g[m] is not None else "–"
                    for m in ("n", "answer_match", "precision_answering", "evidence_recall")
                ]
                lines.append(f"| {name} | {group} | " + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n"


def run_evaluation(
    settings: Settings,
    options: EvalOptions,
    *,
    console: Console | None = None,
    model: ChatModel | None = None,
) -> EvalReport:
    questions = load_questions(options.questions, limit=options.limit, seed=options.seed, half=options.half)
    corpus = without_gold(settings, options.corpus, questions) if options.drop_gold else options.corpus
    say = console or Console(stderr=True)
    index_path, _ = ensure_corpus_index(
        settings, corpus, lambda message: say.print(message, style="dim", markup=False)
    )
    settings = settings.with_overrides(index_path=index_path, search_api="local", enable_notes=False)
    with ExitStack() as stack:
        chosen = model if model is not None else own_model(settings, stack)
        report = EvalReport(model=chosen.name, corpus=str(corpus), questions=len(questions))
        index = stack.enter_context(DocumentIndex.open_existing(index_path, embedder_for(settings)))
        search = LocalSearch(index)
        systems: dict[str, Callable[[EvalQuestion], QuestionScore]] = {
            "agent": lambda q: _score_agent(q, settings, chosen, search),
        }
        if options.baseline == "naive":
            systems["naive"] = lambda q: _score_naive(q, chosen, search, options.top_k)
        for name, run_one in systems.items():
            report.systems[name] = _run_all(name, questions, run_one, console)
    if options.out is not None:
        _write(report, options.out)
    return report


def own_model(settings: Settings, stack: ExitStack) -> ChatModel:
    """The model ``settings`` name, built for this evaluation and closed when it ends."""
    from deepresearch.llm.factory import build_model

    model = build_model(settings)
    if isinstance(model, ChatModelBase):
        stack.callback(model.close)
    return model


def without_gold(settings: Settings, corpus: Path, questions: Sequence[EvalQuestion]) -> Path:
    """A copy of the JSONL ``corpus`` without the gold passages of ``questions`` (``--drop-gold``):
    the agent must then say the sources do not answer, not guess."""
    if not corpus.is_file() or corpus.suffix != ".jsonl":
        raise ConfigurationError(f"--drop-gold needs a JSONL corpus file, not {corpus}")
    gold = {d for q in questions for d in q.gold_doc_ids}
    digest = hashlib.sha256("\n".join(sorted(gold)).encode()).hexdigest()[:12]
    target = settings.home / "eval" / f"{corpus.stem}-nogold-{digest}.jsonl"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with corpus.open(encoding="utf-8") as lines:
            kept = [line for line in lines if _doc_id(line) not in gold]
        target.write_text("".join(kept), encoding="utf-8")
    return target


def _doc_id(line: str) -> str | None:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return None
    return str(record.get("doc_id")) if isinstance(record, dict) else None


def _run_all(
    name: str,
    questions: Sequence[EvalQuestion],
    run_one: Callable[[EvalQuestion], QuestionScore],
    console: Console | None,
) -> list[QuestionScore]:
    rows: list[QuestionScore] = []
    with Progress(console=console or Console(stderr=True), transient=False) as progress:
        bar = progress.add_task(name, total=len(questions))
        for question in questions:
            rows.append(_guarded(question, run_one))
            progress.advance(bar)
    return rows


def _guarded(question: EvalQuestion, run_one: Callable[[EvalQuestion], QuestionScore]) -> QuestionScore:
    started = time.perf_counter()
    try:
        return run_one(question)
    except DeepResearchError as exc:
        return QuestionScore(
            question.qid,
            question.question,
            list(question.answers),
            error=str(exc),
            seconds=round(time.perf_counter() - started, 3),
        )


def _score_agent(q: EvalQuestion, settings: Settings, model: ChatModel, search: LocalSearch) -> QuestionScore:
    result = research(q.question, settings=settings, model=model, search=search)
    abstained = result.answer_status == "abstained"
    score = _base(q, "" if abstained else result.answer, [s.doc_id for s in result.sources])
    score.answer, score.abstained = result.answer, float(abstained)
    score.citation_validity, score.citation_precision = _citations(result, q)
    score.rounds = result.rounds
    _usage(score, result.usage)
    score.seconds = result.timings.get("total", 0.0)
    return score


def _score_naive(q: EvalQuestion, model: ChatModel, search: LocalSearch, top_k: int) -> QuestionScore:
    metered, started = MeteredModel(model), time.perf_counter()
    answer, hits = naive_answer(q.question, metered, search, top_k=top_k)
    score = _base(q, answer, [h.doc_id for h in hits])
    score.rounds = 1
    _usage(score, metered.as_dict())
    score.seconds = round(time.perf_counter() - started, 3)
    return score


def _base(q: EvalQuestion, answer: str, read: Sequence[str | None]) -> QuestionScore:
    return QuestionScore(
        q.qid,
        q.question,
        list(q.answers),
        answer=answer,
        answer_match=answer_match(answer, q.answers),
        em=exact_match(answer, q.answers),
        f1=round(f1(answer, q.answers), 4),
        evidence_recall=evidence_recall(read, q.gold_doc_ids),
    )


def _citations(result: ResearchResult, q: EvalQuestion) -> tuple[float | None, float | None]:
    """Validity: share of the body's ``[k]`` that name a source the run read (``[k]`` names
    ``cited_source_ids[k-1]``); precision over those sources."""
    body = result.report_markdown.rsplit("\n## ", 1)[0]
    cited = cited_ids(body)
    if not cited:
        return None, None
    by_id = {s.id: s for s in result.sources}
    named = [result.cited_source_ids[k - 1] if 0 < k <= len(result.cited_source_ids) else None for k in cited]
    read = [by_id[i] for i in named if i in by_id]
    texts = [(s.doc_id, s.content) for s in read]
    return len(read) / len(cited), citation_precision(texts, q.gold_doc_ids, q.answers)


def _usage(score: QuestionScore, usage: dict[str, Any]) -> None:
    score.model_calls = int(usage.get("calls", 0))
    score.prompt_tokens = int(usage.get("prompt_tokens", 0))
    score.completion_tokens = int(usage.get("completion_tokens", 0))


def _write(report: EvalReport, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report.to_json(), indent=2, ensure_ascii=False), encoding="utf-8")
    out.with_suffix(".md").write_text(report.markdown(), encoding="utf-8")
