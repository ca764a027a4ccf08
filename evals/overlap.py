"""How many of a question's words does its gold evidence already use? Originals vs rewordings.

    python evals/overlap.py [--rewordings evals/data/rewordings_dev.jsonl] [--show]

A question written by someone who has just read the passage tends to reuse its words; a person
asking cold does not. This measures that gap. For each row of the rewordings file (``qid`` of the
shared eval set's dev half, with ``paraphrases``), the original question is read from
``../shared/eval/questions.jsonl`` by ``qid`` and the gold sentences from its corpus:

- HotpotQA: the ``supporting_facts`` sentences;
- MuSiQue: for each hop of the ``decomposition``, the sentences of the hop's passage that hold
  the hop's answer (compared by stem), or the whole passage when no sentence does.

Overlap of one question = the share of its content words (:func:`deepresearch.text.key_terms`:
stopwords out, one per Porter stem) whose stem occurs in the gold sentences. ``names`` are the
words written with a capital letter (not counting the first word) or a digit; ``other`` is the
overlap of the remaining content words alone, the ones a rewording is meant to change.

Prints the mean overlap (all content words, and the ``other`` words alone) of the originals and
of the rewordings, overall and per dataset, as JSON. Only dev-half rows are read; a row of the
test half stops the run.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from deepresearch.evaluation.dataset import half_of
from deepresearch.text import contains_term, key_terms, sentences, stem, stems, words

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"
REWORDINGS = Path(__file__).resolve().parent / "data" / "rewordings_dev.jsonl"


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def gold_sentences(question: dict[str, Any], corpus: dict[str, dict[str, Any]]) -> list[str]:
    """The sentences that carry the question's evidence (see the module doc)."""
    if question.get("supporting_facts"):
        return [fact["sentence"] for fact in question["supporting_facts"]]
    out: list[str] = []
    for hop in question.get("decomposition", []):
        passage = corpus.get(hop.get("doc_id", ""))
        if passage is None:
            continue
        parts = passage.get("sentences") or sentences(passage["text"]) or [passage["text"]]
        answer = str(hop.get("answer", ""))
        holding = [s for s in parts if answer and contains_term(answer, set(stems(s)))]
        out.extend(holding or [passage["text"]])
    return out


def name_stems(text: str) -> set[str]:
    """Stems of the words written with a capital or a digit, the first word not counted."""
    raw = text.split()
    out: set[str] = set()
    for position, token in enumerate(raw):
        if position and (token[:1].isupper() or any(c.isdigit() for c in token)):
            out.update(stem(w) for w in words(token))
    return out


def overlap(question: str, gold: Iterable[str]) -> tuple[float, float | None]:
    """(share of all content words in ``gold``, share of the non-name content words)."""
    present = {s for sentence in gold for s in stems(sentence)}
    terms = key_terms(question)
    names = name_stems(question)
    other = [t for t in terms if stem(t) not in names]
    share = _share(terms, present)
    return (share if share is not None else 0.0), _share(other, present)


def _share(terms: Sequence[str], present: set[str]) -> float | None:
    if not terms:
        return None
    return sum(stem(t) in present for t in terms) / len(terms)


def _mean(values: Iterable[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return round(statistics.fmean(kept), 3) if kept else None


def measure(rows: Sequence[dict[str, Any]], questions: Path, corpus_path: Path, show: bool) -> dict[str, Any]:
    by_qid = {q["qid"]: q for q in read_jsonl(questions)}
    wanted = {row["qid"] for row in rows}
    test_rows = sorted(q for q in wanted if half_of(q) != "dev")
    if test_rows:
        raise SystemExit(f"{len(test_rows)} row(s) are not of the dev half: {test_rows[:3]}")
    missing = sorted(wanted - by_qid.keys())
    if missing:
        raise SystemExit(f"{len(missing)} qid(s) are not in {questions}: {missing[:3]}")
    needed = {d for q in wanted for d in by_qid[q].get("gold_doc_ids", [])}
    corpus = {d["doc_id"]: d for d in read_jsonl(corpus_path) if d["doc_id"] in needed}
    scores: dict[str, dict[str, list[float | None]]] = {}
    for row in rows:
        question = by_qid[row["qid"]]
        gold = gold_sentences(question, corpus)
        texts = [("original", question["question"])] + [("reworded", p) for p in row["paraphrases"]]
        for group in ("all", question["dataset"]):
            for kind, text in texts:
                every, other = overlap(text, gold)
                bucket = scores.setdefault(group, {})
                bucket.setdefault(f"{kind}_all", []).append(every)
                bucket.setdefault(f"{kind}_other", []).append(other)
        if show:
            for kind, text in texts:
                every, other = overlap(text, gold)
                print(f"{row['qid']} {kind:8} all={every:.2f} other={_fmt(other)}  {text}")
    return {
        group: {"questions": len(values["original_all"])} | {k: _mean(v) for k, v in values.items()}
        for group, values in scores.items()
    }


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rewordings", type=Path, default=REWORDINGS)
    parser.add_argument("--questions", type=Path, default=EVAL / "questions.jsonl")
    parser.add_argument("--corpus", type=Path, default=EVAL / "corpus.jsonl")
    parser.add_argument("--show", action="store_true", help="print each question's overlap")
    args = parser.parse_args()
    result = measure(read_jsonl(args.rewordings), args.questions, args.corpus, args.show)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
