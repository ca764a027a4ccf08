"""What a reader gets from a report, counted over finished runs or over plans (issue 35).

    python evals/report_quality.py RUNS_DIR [RUNS_DIR ...] [--eval EVAL_JSON]
    python evals/report_quality.py --plan QUESTIONS.jsonl [--half dev] [--limit 30] [--seed 0]

Over run folders (``runs/*/result.json`` and ``report.md``, as ``deepresearch eval`` leaves them
under ``DEEPRESEARCH_HOME``), one row per folder given:

* **fragment tasks**: the share of tasks whose title is a fragment: fewer than
  :data:`MIN_WORDS` words, or neither a question word nor a verb (:func:`is_fragment_task`);
  the title is what a reader sees of a task;
* **repeated tasks**: the share of tasks (other than the single fallback task) whose title holds
  every key word of the question: the question again, not a part of it;
* **no cited sentence**: the share of reports whose body cites no source at all;
* **Limits contradict citations**: the share of reports whose Limits box gives the question's
  key terms a share (``N%``) or a count (``k of its n``) that a source the report cites beats;
* **references listed / cited**: per report, the entries under References (numbered or bulleted)
  and the distinct sources the body cites, averaged;
* **restated Background**: the share of reports whose Background holds every key word of the
  question;
* with ``--eval``, the ``answer_match`` of that ``deepresearch eval --out`` file beside them.

With ``--plan``, the questions are planned by code alone (``build_plan`` with no proposal from a
model, the path the embedded model's plans fall back to) and only the task columns are filled.
Run it with ``PYTHONPATH`` at the checkout to measure (main before, a branch after): the measure
itself imports nothing from the package but ``key_stems`` and, for ``--plan``, ``build_plan``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepresearch.text import key_stems

MIN_WORDS = 4
QUESTION_WORDS = frozenset(["who", "whom", "whose", "what", "when", "where", "which", "why", "how"])
VERBS = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "being",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "say",
        "says",
        "said",
        "find",
        "finds",
        "found",
        "make",
        "makes",
        "made",
        "become",
        "became",
        "play",
        "plays",
        "played",
        "write",
        "wrote",
        "written",
        "win",
        "won",
        "lead",
        "led",
        "hold",
        "holds",
        "held",
        "know",
        "known",
        "give",
        "gave",
        "given",
        "lie",
        "lies",
        "lay",
        "run",
        "runs",
        "ran",
        "live",
        "lived",
        "die",
        "died",
        "born",
    ]
)
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_CITE = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
_SHARE = re.compile(r"(\d+)% of the question's key terms")
_COUNT = re.compile(r"holds (\d+) of its (\d+) key terms")
_REFERENCE = re.compile(r"^(?:\d+\.|-)\s+\[")


def is_fragment_task(title: str) -> bool:
    """A task title a reader cannot act on: fewer than :data:`MIN_WORDS` words, or no question
    word and no verb (a listed verb, or a word ending in -ed)."""
    words = [w.lower() for w in _WORD.findall(title)]
    if len(words) < MIN_WORDS:
        return True
    return not any(w in QUESTION_WORDS or w in VERBS or (w.endswith("ed") and len(w) > 4) for w in words)


def repeats_question(title: str, question: str) -> bool:
    asked = set(key_stems(question))
    return bool(asked) and asked <= set(key_stems(title))


@dataclass
class Row:
    name: str
    tasks: int = 0
    fragments: int = 0
    repeats: int = 0
    reports: int = 0
    uncited: int = 0
    contradicted: int = 0
    restated: int = 0
    listed: int = 0
    cited: int = 0
    answer_match: float | None = None

    def add_tasks(self, question: str, tasks: Sequence[dict[str, Any]]) -> None:
        for task in tasks:
            self.tasks += 1
            self.fragments += is_fragment_task(task["title"])
            lone = len(tasks) == 1 and task.get("is_fallback")
            self.repeats += bool(not lone and repeats_question(task["title"], question))

    def cells(self) -> list[str]:
        def share(n: int, of: int) -> str:
            return f"{n / of:.2f} ({n}/{of})" if of else "–"

        def mean(n: int) -> str:
            return f"{n / self.reports:.1f}" if self.reports else "–"

        match = "–" if self.answer_match is None else f"{self.answer_match:.3f}"
        return [
            self.name,
            share(self.fragments, self.tasks),
            share(self.repeats, self.tasks),
            share(self.uncited, self.reports),
            share(self.contradicted, self.reports),
            share(self.restated, self.reports),
            f"{mean(self.listed)} / {mean(self.cited)}",
            match,
        ]


HEADER = [
    "runs",
    "fragment tasks",
    "tasks repeating the question",
    "reports with no cited sentence",
    "Limits contradicting citations",
    "restated Background",
    "references listed / cited",
    "answer_match",
]


def sections(markdown: str) -> dict[str, str]:
    """The report's ``## `` sections by heading, and ``""`` for what comes before the first."""
    parts = re.split(r"(?m)^## (.+)$", markdown)
    out = {"": parts[0]}
    for i in range(1, len(parts) - 1, 2):
        out[parts[i].strip()] = parts[i + 1]
    return out


def limits_block(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if line.startswith("> "))


def contradicts(limits: str, question: str, cited: Sequence[dict[str, Any]]) -> bool:
    """Whether the Limits give the question's key terms a share or count that a cited source beats."""
    terms = set(key_stems(question))
    if not terms or not cited:
        return False
    best = max(
        len(terms & set(key_stems(f"{s['title']} {s.get('content') or s.get('snippet', '')}"))) for s in cited
    )
    shares = [int(m) for m in _SHARE.findall(limits)]
    counts = [int(k) for k, _ in _COUNT.findall(limits)]
    return any(100 * best / len(terms) > s + 0.5 for s in shares) or any(best > k for k in counts)


def add_report(row: Row, result: dict[str, Any], markdown: str) -> None:
    row.reports += 1
    parts = sections(markdown)
    references = next((v for k, v in parts.items() if k.startswith("Refer")), "")
    body = markdown.split("## References")[0]
    numbers = {int(n) for group in _CITE.findall(body) for n in re.split(r"\s*,\s*", group)}
    row.uncited += not numbers
    row.cited += len(numbers)
    row.listed += sum(bool(_REFERENCE.match(line.strip())) for line in references.splitlines())
    by_number = {s.get("number"): s for s in result.get("sources", [])}
    cited = [by_number[n] for n in numbers if n in by_number]
    row.contradicted += contradicts(limits_block(body), result["question"], cited)
    background = parts.get("Background", "")
    row.restated += bool(background.strip()) and repeats_question(background, result["question"])


def from_runs(folder: Path, eval_json: Path | None) -> Row:
    row = Row(folder.name if folder.name != "runs" else folder.parent.name)
    for run in sorted(p for p in folder.iterdir() if (p / "result.json").exists()):
        result = json.loads((run / "result.json").read_text(encoding="utf-8"))
        report = run / "report.md"
        markdown = report.read_text(encoding="utf-8") if report.exists() else result["report_markdown"]
        row.add_tasks(result["question"], result.get("todo_items", []))
        add_report(row, result, markdown)
    if eval_json is not None:
        row.answer_match = json.loads(eval_json.read_text())["summary"]["agent"]["answer_match"]
    return row


def from_plans(questions: Iterable[str], name: str) -> Row:
    from deepresearch.graph.planning import build_plan
    from deepresearch.text import language_of

    row = Row(name)
    for question in questions:
        tasks, _ = build_plan(question, language_of(question), [])
        row.add_tasks(question, [t.model_dump() for t in tasks])
    return row


def eval_questions(path: Path, half: str | None, limit: int | None, seed: int | None) -> list[str]:
    """The questions ``deepresearch eval`` would run with the same options."""
    from deepresearch.evaluation.dataset import load_questions

    chosen = load_questions(path, limit=limit, seed=seed, half=half)  # type: ignore[arg-type]
    return [q.question for q in chosen]


def table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="*", type=Path, help="folders holding run folders")
    parser.add_argument("--eval", type=Path, action="append", default=[], help="eval --out JSON, per folder")
    parser.add_argument("--plan", type=Path, help="plan these questions (JSONL) by code instead")
    parser.add_argument("--half", choices=("dev", "test"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--seed", type=int)
    args = parser.parse_args(argv)
    evals: list[Path | None] = [*args.eval, *[None] * len(args.runs)]
    rows = [from_runs(folder, ev) for folder, ev in zip(args.runs, evals, strict=False)]
    if args.plan is not None:
        name = f"plans: {args.plan.name}" + (f" ({args.half})" if args.half else "")
        rows.append(from_plans(eval_questions(args.plan, args.half, args.limit, args.seed), name))
    if not rows:
        parser.error("give run folders or --plan")
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
