"""An instruct model as a quote-then-answer reader beside code's answer line (measured, not shipped).

    python evals/reader.py read qwen1.5b --runs /tmp/dev/runs /tmp/test/runs --out evals/out/reader.json
    python evals/reader.py score evals/out/reader.json --runs /tmp/dev/runs /tmp/test/runs

``read`` shows the model code's evidence lines for each open question (the first ``--top`` ranked
sentences, each after the bridge sentence it borrowed coverage from, titled by its passage) with
three invented few-shot examples — a two-hop chain, a number, and lines that do not say — and asks,
under a JSON grammar, for the numbers of the lines it used, then the shortest answer copied from
them. Replies are cached per question in ``--out`` (a rerun resumes). ``score`` grounds each reply
by code (an answer that is not a span of a line shown counts as no answer) and prints, per half,
answer_match / precision when answering on those questions for code's answer line (shipped gate),
the model's grounded answer alone, and the ways of combining them:

- ``verify``: code's answer only where the model's agrees;
- ``rescue``: code's answer, or where code abstains, the model's when it is one of code's
  candidates (``rescue_any``: whatever the model grounded);
- ``switch``: where both answer, the model's pick among code's candidates.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fit_answers import Row, _open, _ranked, context_rows, run_rows

from deepresearch.answers.features import score_candidates
from deepresearch.answers.ground import MAX_CANDIDATES, TOP_SENTENCES, ground_answer
from deepresearch.answers.learned import confidence_gate
from deepresearch.evaluation.scoring import answer_match
from deepresearch.llm.base import Message
from deepresearch.llm.embedded import EmbeddedModel

SYSTEM = (
    "You answer a question from numbered evidence lines. Each line starts with the title of its "
    "page in parentheses; the line is about that title. Some questions need two lines: one names "
    "a bridge (a person, a place, a work), another line states the answer about that bridge. "
    "First give the numbers of the lines you used, then the shortest answer, copied word for "
    "word from the last line you used. If the lines do not state the answer, give no lines and "
    'the answer "none".'
)
SHOTS: list[tuple[str, list[str], dict[str, Any]]] = [
    (
        "Who directed the film in which Mara Ellison played a lighthouse keeper?",
        [
            "(Mara Ellison) Mara Ellison (born 1930) is an actress best known as the lighthouse keeper in "
            "Tide Keeper.",
            "(Grey Harbour) Grey Harbour is a novel set in a fishing town.",
            "(Tide Keeper) Tide Keeper is a 1961 drama film directed by Oskar Lindqvist and produced by "
            "Ruth Amble.",
        ],
        {"lines": [1, 3], "answer": "Oskar Lindqvist"},
    ),
    (
        "How many islands does the archipelago east of Port Venn have?",
        [
            "(Port Venn) Port Venn is a harbour town facing the Selka archipelago to its east.",
            "(Selka archipelago) The Selka archipelago consists of 41 islands, 6 of them inhabited.",
            "(Port Venn) Its population was 3,200 in 2010.",
        ],
        {"lines": [1, 2], "answer": "41"},
    ),
    (
        "In what year was the founder of Harlow Mills born?",
        [
            "(Harlow Mills) Harlow Mills is a textile company founded by Edwin Carr.",
            "(Harlow) Harlow is a town in Essex.",
            "(Harlow Mills) The company employed 900 people in 1950.",
        ],
        {"lines": [], "answer": "none"},
    ),
]
SCHEMA = {
    "type": "object",
    "properties": {
        "lines": {"type": "array", "items": {"type": "integer"}, "maxItems": 3},
        "answer": {"type": "string", "maxLength": 60},
    },
    "required": ["lines", "answer"],
}


def _user_text(question: str, lines: Sequence[str]) -> str:
    body = "\n".join(f"[{i}] {line}" for i, line in enumerate(lines, 1))
    return f"Question: {question}\nLines:\n{body}"


def prompt(question: str, lines: Sequence[str]) -> list[Message]:
    """The system text, the few-shot turns (shared, so the runtime's prompt cache keeps them), the
    question."""
    turns = [Message("system", SYSTEM)]
    for shot_question, shot_lines, reply in SHOTS:
        turns += [
            Message("user", _user_text(shot_question, shot_lines)),
            Message("assistant", json.dumps(reply)),
        ]
    return [*turns, Message("user", _user_text(question, lines))]


def evidence_lines(row: Row, top: int) -> list[str]:
    """Code's first ``top`` sentences, each after its bridge sentence, titled; no line twice; at
    most ``top`` + 4 lines."""
    _, ranked = _ranked(row, top)
    lines: list[str] = []
    for r in ranked:
        for sentence in ([r.via] if r.via is not None else []) + [r.sentence]:
            line = f"({sentence.title}) {sentence.text}"
            if line not in lines:
                lines.append(line)
    return lines[: top + 4]


def read(args: argparse.Namespace) -> None:
    rows = [r for r in _rows(args) if _open(r.frame)]
    path = Path(args.out)
    cache: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    model = EmbeddedModel.from_name(args.model, cache_dir=Path(args.cache), n_threads=2, n_threads_batch=2)
    started = time.monotonic()
    for done, row in enumerate(rows, 1):
        if row.qid in cache:
            continue
        lines = evidence_lines(row, args.top)
        reply: dict[str, Any] = {"lines": [], "answer": "none"}
        if lines:
            text = model.complete(
                prompt(row.question, lines), step="reader", schema=SCHEMA, max_tokens=60
            ).text
            try:
                reply = json.loads(text)
            except ValueError:
                reply["raw"] = text
        cache[row.qid] = {**reply, "shown": lines}
        path.write_text(json.dumps(cache))
        print(f"{done}/{len(rows)} {time.monotonic() - started:.0f}s", flush=True)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def _same(a: str | None, b: str | None) -> bool:
    return bool(a and b) and (answer_match(a, [b or ""]) or answer_match(b or "", [a or ""]))


def policies(row: Row, reply: dict[str, Any]) -> dict[str, str | None]:
    """Each way of combining code's answer line and the model's reply: the answer it states or None."""
    gate = confidence_gate(None)
    got = ground_answer(row.question, row.sources, weights=gate)
    code = got.text if got.status != "abstained" else None
    frame, ranked = _ranked(row, gate.top_sentences if gate else TOP_SENTENCES)
    scored = score_candidates(frame, ranked, gate.candidate if gate else None) if ranked else []
    names = [c for c, _, _ in scored[:MAX_CANDIDATES]]
    said = str(reply.get("answer", "")).strip()
    shown = _norm(" ".join(reply.get("shown", [])))
    model = said if said and _norm(said) not in ("", "none") and _norm(said) in shown else None
    pick = next((c for c in names if _same(model, c)), None) if model else None
    return {
        "code": code,
        "model": model,
        "verify": code if _same(code, model) else None,
        "rescue": code or pick,
        "rescue_any": code or model,
        "switch": (pick or code) if code else None,
    }


def score(args: argparse.Namespace) -> None:
    cache = json.loads(Path(args.cache_file).read_text())
    table: dict[tuple[str, str], list[int]] = {}
    for row in _rows(args):
        if row.qid not in cache:
            continue
        for name, answer in policies(row, cache[row.qid]).items():
            counts = table.setdefault((row.half, name), [0, 0, 0])
            counts[0] += 1
            counts[1] += answer is not None
            counts[2] += bool(answer and answer_match(answer, row.answers))
    for (half, name), (n, answered, right) in sorted(table.items()):
        precision = right / answered if answered else 0.0
        rates = f"answer_match={right / n:.3f} precision={precision:.3f}"
        print(f"{half:5} {name:11} n={n:3} {rates} answered={answered}")


def _rows(args: argparse.Namespace) -> list[Row]:
    rows = context_rows() if args.context else run_rows([Path(p) for p in args.runs])
    return [r for r in rows if args.half is None or r.half == args.half]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    reading = commands.add_parser("read", help="ask the model, cache its replies")
    reading.add_argument("model", help="an embedded model name (qwen0.5b, qwen1.5b, smollm2)")
    reading.add_argument("--out", required=True)
    reading.add_argument("--top", type=int, default=6, help="code's sentences shown (default 6)")
    reading.add_argument("--cache", default="/tmp/deepresearch-models", help="where split models are joined")
    scoring = commands.add_parser("score", help="ground the cached replies and compare the policies")
    scoring.add_argument("cache_file")
    for sub in (reading, scoring):
        sub.add_argument("--runs", nargs="*", default=[], help="run folders of `deepresearch eval`")
        sub.add_argument("--context", action="store_true", help="each question's context passages instead")
        sub.add_argument("--half", choices=("dev", "test"))
    args = parser.parse_args()
    read(args) if args.command == "read" else score(args)


if __name__ == "__main__":
    main()
