"""The instruct-model reader (``answers/reader.py``) beside code's answer line, on several sets.

    python evals/reader.py read qwen1.5b --set dev=/tmp/ev/dev/runs --set twowiki=/tmp/ev/2wiki/runs \
        --out evals/out/reader-qwen1.5b.json
    python evals/reader.py score evals/out/reader-qwen1.5b.json --set dev=… --set twowiki=…

``read`` shows the model code's evidence lines for each open question (``answers.reader.read``'s
prompt: the first ``--top`` chains, bridge sentence first, titled) and caches the raw replies per
question in ``--out`` (a rerun resumes). ``--set NAME=contexts`` reads a set of
``evals/contexts.py`` over its own passages instead of run folders (no agent run);
``NAME=contexts-nogold`` over them without the gold passages (cache its replies apart: the qids
are the same). ``score``
checks each reply as the product does
(``answers.reader.check_span``: a span of a line shown, not the question's words) and prints, per
set, answer_match / precision when answering / share answered for each policy:

- ``shipped``: the product's answer step with this reader and its judge (code's answer line where
  its confidence is at least ``ground.AGREE_BELOW`` or the reader gives the same answer; else, or
  where code abstains, the reader's answer when code's fitted confidence in it clears the reader's
  floor or, that failing, the judge's cached P(yes) is at least ``ground.judge_bar``; rows read
  with ``--where-code-abstains`` before issue 34's tenth step lack the replies the agreement
  needs: read them again with ``--where-asked``);
- ``shipped_before``: the same without the judge (issue 34's fifth step);
- ``code``: code's answer line (shipped gate) alone;
- ``reader``: the reader's checked answer alone;
- ``rescue``: code's answer, or where code abstains, the reader's;
- ``verify``: code's answer only where the reader agrees;
- ``reader_first``: the reader's answer, or where it has none, code's;
- ``rescue_agree``: code's answer, or where code abstains, the reader's when it is code's best
  candidate below the threshold; ``rescue_listed``: … when it is one of code's candidates.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from answer_dev import answer_dense
from fit_answers import Row, _open, _ranked, auc, gate_from, run_rows

from deepresearch.answers.ground import GroundedAnswer, ground_answer, unsure
from deepresearch.answers.reader import (
    MAX_TOKENS,
    SCHEMA,
    TOP_LINES,
    check_span,
    evidence_lines,
    judge_messages,
    line_text,
    messages,
    parse_reply,
    reading_lines,
)
from deepresearch.evaluation.scoring import answer_match
from deepresearch.llm.embedded import EmbeddedModel


def _lines(row: Row, top: int):  # type: ignore[no-untyped-def]
    frame, ranked = _ranked(row, top)
    return frame, evidence_lines(ranked, top)


def _rows(name: str, folder: str) -> list[Row]:
    """A set's rows: the run folders named, or with ``NAME=contexts`` the dev half of that set of
    ``evals/contexts.py`` over its own passages (``own_words=contexts``, ``twowiki=contexts``)."""
    if folder in ("contexts", "contexts-nogold"):
        from contexts import sets

        return sets("dev")[name][folder == "contexts-nogold"]
    return run_rows([Path(folder)])


def read(args: argparse.Namespace, sets: dict[str, list[Row]]) -> None:
    path = Path(args.out)
    cache: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
    model = EmbeddedModel.from_name(args.model, cache_dir=Path(args.cache), n_threads=2, n_threads_batch=2)
    rows = [r for rows in sets.values() for r in rows if _open(r.frame) and r.qid not in cache]
    if args.where_asked:
        rows = [r for r in rows if _asks_reader(r)]
    started = time.monotonic()
    for done, row in enumerate(rows, 1):
        frame, lines = _lines(row, args.top)
        shown = [line_text(s) for s, _ in lines]
        text, tokens = ("", []) if not lines else _reply(model, messages(frame.text, shown))
        cache[row.qid] = {"reply": text, "shown": shown, "tokens": tokens}
        path.write_text(json.dumps(cache))
        print(f"{done}/{len(rows)} {time.monotonic() - started:.0f}s", flush=True)


def _asks_reader(row: Row) -> bool:
    """The product asks the reader on this row: code's answer line (the shipped gate) abstains, or
    states a candidate below ``ground.AGREE_BELOW`` that the reader must agree with (``read
    --where-asked`` reads no other; their ``reader`` policies then count the other rows as the
    reader's abstentions)."""
    got = ground_answer(row.question, row.sources, weights=gate_from(None), dense=answer_dense())
    return got.status == "abstained" or unsure(got)


def _proposals(
    row: Row, cached: dict[str, Any], top: int, gate: Any, reader_only: bool = False
) -> dict[str, list[str]]:
    """The answers to judge and their evidence lines: the reader's checked span and code's best
    candidate (its answer line with the gate at threshold 0)."""
    frame, lines = _lines(row, top)
    out: dict[str, list[str]] = {}
    reading = check_span(frame, parse_reply(cached["reply"]), lines)
    if reading is not None:
        out[reading.text] = reading_lines(reading)
    if reader_only:
        return out
    loose = ground_answer(
        row.question, row.sources, weights=replace(gate, threshold=0.0), dense=answer_dense()
    )
    if loose.status != "abstained" and loose.text not in out:
        out[loose.text] = [t for t in (loose.via_sentence, loose.sentence) if t]
    return out


def judge(args: argparse.Namespace, sets: dict[str, list[Row]]) -> None:
    """The model's P(yes) that each proposed answer (the reader's, code's best) is the answer,
    cached beside the reply as ``judged``: {answer: P(yes)}."""
    path = Path(args.cache_file)
    cache: dict[str, Any] = json.loads(path.read_text())
    model = EmbeddedModel.from_name(args.model, cache_dir=Path(args.cache), n_threads=2, n_threads_batch=2)
    gate = gate_from(None)
    rows = [r for rows in sets.values() for r in rows if r.qid in cache and _open(r.frame)]
    started = time.monotonic()
    for done, row in enumerate(rows, 1):
        judged = cache[row.qid].setdefault("judged", {})
        for answer, lines in _proposals(row, cache[row.qid], args.top, gate, args.reader_only).items():
            if answer not in judged:
                judged[answer] = model.yes_probability(judge_messages(row.question, answer, lines))
        path.write_text(json.dumps(cache))
        print(f"{done}/{len(rows)} {time.monotonic() - started:.0f}s", flush=True)


def _reply(model: EmbeddedModel, asked: list[Any]) -> tuple[str, list[tuple[str, float]]]:
    """The model's JSON reply and each of its tokens with its log-probability (for a confidence
    read from the model: the answer's tokens, see :func:`answer_logprob`)."""
    request = {**model._request(asked, MAX_TOKENS), "logprobs": True}
    request["response_format"] = {"type": "json_schema", "json_schema": {"name": "reader", "schema": SCHEMA}}
    with model._lock:
        response = model._call(request)
    choice = response["choices"][0]
    content = (choice.get("logprobs") or {}).get("content") or []
    tokens = [(str(t.get("token", "")), float(t.get("logprob", 0.0))) for t in content]
    return choice["message"].get("content") or "", tokens


def answer_logprob(tokens: list[list[Any]], answer: str) -> tuple[float, float] | None:
    """(sum, min) log-probability of the tokens that wrote the reply's answer value, or None."""
    text = "".join(t for t, _ in tokens)
    at = text.find('"answer"')
    start = text.find(answer, at) if at >= 0 and answer else -1
    if start < 0:
        return None
    end, pos, picked = start + len(answer), 0, []
    for token, logprob in tokens:
        if pos < end and pos + len(token) > start:
            picked.append(logprob)
        pos += len(token)
    return (sum(picked), min(picked)) if picked else None


def policies(
    row: Row, cached: dict[str, Any] | None, top: int, gate: Any, floor: float = -1.0, judge_at: float = 0.5
) -> dict[str, str | None]:
    """Each way of combining code's answer line and the reader's: the answer it states or None."""
    got = ground_answer(row.question, row.sources, weights=gate, dense=answer_dense())
    code = got.text if got.status != "abstained" else None
    reader = None
    if cached is not None and _open(row.frame):
        frame, lines = _lines(row, top)
        reading = check_span(frame, parse_reply(cached["reply"]), lines)
        reader = reading.text if reading else None
    agree = _same(code, reader)
    sure = reader is not None and _sure(cached, reader, floor)
    loose = (
        ground_answer(row.question, row.sources, weights=replace(gate, threshold=0.0), dense=answer_dense())
        if gate
        else got
    )
    best = loose.text if loose.status != "abstained" else None
    listed = any(_same(c, reader) for c in loose.candidates[:6]) or _same(best, reader)
    before = ground_answer(
        row.question, row.sources, weights=gate, dense=answer_dense(), reader=_cached_reader(cached, top)
    )
    before_text = before.text if before.status != "abstained" else None
    shipped = replayed(row, gate, cached, top)
    pick = max((a for a in (best, reader) if a), key=lambda a: _p_yes(cached, a), default=None)
    judged: dict[str, str | None] = {}
    for at in sorted({judge_at, 0.5, 0.7, 0.8, 0.9, 0.95}):
        ok = reader if reader is not None and _p_yes(cached, reader) >= at else None
        judged[f"judged@{at}"] = code or ok
        judged[f"gate_judged@{at}"] = before_text or ok
        judged[f"judge_best@{at}"] = (
            code if not _open(row.frame) else (pick if pick and _p_yes(cached, pick) >= at else None)
        )
    return {
        **judged,
        "shipped": shipped.text if shipped.status != "abstained" else None,
        "shipped_before": before_text,
        "code": code,
        "reader": reader,
        "rescue": code or reader,
        "verify": code if agree or (code and not _open(row.frame)) else None,
        "reader_first": reader or code,
        "rescue_agree": code or (reader if _same(best, reader) else None),
        "rescue_listed": code or (reader if listed else None),
        "reader_sure": reader if sure else None,
        "rescue_sure": code or (reader if sure else None),
        "sure_first": (reader if sure else None) or code,
    }


def _p_yes(cached: dict[str, Any] | None, answer: str | None) -> float:
    return float(((cached or {}).get("judged") or {}).get(answer or "", -1.0))


def _sure(cached: dict[str, Any] | None, answer: str, floor: float) -> bool:
    """The model wrote ``answer`` with every token at log-probability ``floor`` or more."""
    got = answer_logprob(cached.get("tokens") or [], answer) if cached else None
    return got is not None and got[1] >= floor


def replayed(row: Row, gate: Any, cached: dict[str, Any] | None, top: int = TOP_LINES) -> GroundedAnswer:
    """The product's answer step on ``row`` with the reader's reply and the judge's P(yes)
    replayed from ``cached`` (none cached: no reader)."""
    return ground_answer(
        row.question,
        row.sources,
        weights=gate,
        dense=answer_dense(),
        reader=_cached_reader(cached, top),
        judge=_cached_judge(cached),
    )


def _cached_reader(cached: dict[str, Any] | None, top: int) -> Any:
    """A reader for :func:`ground_answer` that replays the cached reply over the lines it is given
    (the product's gate on the reader: ``ground.reading_confidence``)."""
    if cached is None:
        return None
    return lambda frame, ranked: check_span(frame, parse_reply(cached["reply"]), evidence_lines(ranked, top))


def _cached_judge(cached: dict[str, Any] | None) -> Any:
    """A judge for :func:`ground_answer` that replays the cached P(yes) of a reading (``judge``'s
    cache), or says nothing where none is cached."""
    judged = (cached or {}).get("judged") or {}
    return lambda frame, reading: judged.get(reading.text)


def _same(a: str | None, b: str | None) -> bool:
    return bool(a and b) and bool(answer_match(a, [b or ""]) or answer_match(b or "", [a or ""]))


def score(args: argparse.Namespace, sets: dict[str, list[Row]]) -> None:
    cache = json.loads(Path(args.cache_file).read_text())
    gate = gate_from(args.weights)
    for name, rows in sets.items():
        table: dict[str, list[int]] = {}
        marks: list[tuple[float, bool]] = []
        for row in rows:
            for answer, p_yes in (cache.get(row.qid) or {}).get("judged", {}).items():
                marks.append((p_yes, bool(answer_match(answer, row.answers))))
            for policy, answer in policies(
                row, cache.get(row.qid), args.top, gate, args.floor, args.judge_at
            ).items():
                counts = table.setdefault(policy, [0, 0, 0])
                counts[0] += 1
                counts[1] += answer is not None
                counts[2] += bool(answer and answer_match(answer, row.answers))
        if marks and 0 < sum(m[1] for m in marks) < len(marks):
            scores, labels = np.array([m[0] for m in marks]), np.array([m[1] for m in marks], dtype=float)
            print(
                f"{name:12} judged answers {len(marks)}, right {int(labels.sum())}, AUC of P(yes) {auc(scores, labels):.3f}"
            )
        for policy, (n, answered, right) in table.items():
            precision = right / answered if answered else 0.0
            print(
                f"{name:12} {policy:19} n={n:3} answer_match={right / n:.3f} "
                f"precision={precision:.3f} answered={answered / n:.3f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    reading = commands.add_parser("read", help="ask the model, cache its replies")
    reading.add_argument("model", help="an embedded model name (qwen0.5b, qwen1.5b, smollm2)")
    reading.add_argument("--out", required=True)
    reading.add_argument("--cache", default="/tmp/deepresearch-models", help="where split models are joined")
    reading.add_argument(
        "--where-asked",
        "--where-code-abstains",
        dest="where_asked",
        action="store_true",
        help="read only where the product asks the reader (code abstains or is unsure)",
    )
    scoring = commands.add_parser("score", help="check the cached replies and compare the policies")
    scoring.add_argument("cache_file")
    scoring.add_argument("--weights", type=Path, help="weights file to gate with (default: shipped)")
    scoring.add_argument(
        "--floor", type=float, default=-1.0, help="the *_sure policies' least token log-probability"
    )
    scoring.add_argument("--judge-at", type=float, default=0.5, help="the judged policies' least P(yes)")
    judging = commands.add_parser("judge", help="the model's P(yes) for each checked reader answer")
    judging.add_argument("model")
    judging.add_argument("cache_file")
    judging.add_argument("--cache", default="/tmp/deepresearch-models", help="where split models are joined")
    judging.add_argument("--reader-only", action="store_true", help="judge only the reader's span")
    for sub in (reading, scoring, judging):
        sub.add_argument("--set", action="append", required=True, help="NAME=RUNS_FOLDER (repeatable)")
        sub.add_argument(
            "--top", type=int, default=TOP_LINES, help="code's chains shown (default %(default)s)"
        )
    args = parser.parse_args()
    sets = {name: _rows(name, folder) for name, folder in (s.split("=", 1) for s in args.set)}
    {"read": read, "score": score, "judge": judge}[args.command](args, sets)


if __name__ == "__main__":
    main()
