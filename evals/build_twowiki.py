"""Build ``evals/data/twowiki_questions.jsonl`` and ``twowiki_corpus.jsonl`` from 2WikiMultihopQA.

    python evals/build_twowiki.py SAMPLED_DS_JSON [--n 150] [--seed 2029]

``SAMPLED_DS_JSON`` is a 500-record sample of the 2WikiMultihopQA dev split in pandas' column
layout (``{"_1": {"0": id, ...}, "question": {...}, "context": {...}, ...}``), as kept at
``sampled_data/2wikimultihopqa/sampled_ds.json`` of github.com/saptarshi059/TTS-project (see
``evals/data/README.md`` for the commit). Plain lists of 2WikiMultihopQA records (the
dataset's own ``dev.json`` layout) are read too.

Takes ``--n`` questions by ``--seed``, stratified by type (compositional, comparison,
inference, bridge_comparison) in proportion to the sample, and writes them in the format of
the shared eval set: ``qid`` (``twowiki:<_id>``), ``dataset``, ``question``, ``answers``,
``type``, ``gold_doc_ids`` (the supporting-fact passages), ``context_doc_ids`` (the question's
own passages, gold and distractors, once each), ``supporting_facts`` (doc_id, title, sent_idx,
sentence) and ``evidences`` (the dataset's (subject, relation, object) triples). The corpus is
every context passage of the chosen questions, once: ``doc_id`` (``twowiki:`` + 12 hex of the
sha256 of title and text), ``title``, ``text`` (the sentences joined by a space), ``sentences``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
TYPES = ("compositional", "comparison", "inference", "bridge_comparison")


def records(path: Path) -> list[dict[str, Any]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(raw, list):
        return raw
    columns = {("_id" if name == "_1" else name): values for name, values in raw.items()}
    keys = sorted(columns["question"], key=int)
    return [{name: values[k] for name, values in columns.items() if k in values} for k in keys]


def doc_id(title: str, text: str) -> str:
    return "twowiki:" + hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:12]


def quotas(counts: dict[str, int], n: int) -> dict[str, int]:
    """Largest-remainder shares of ``n`` in proportion to ``counts``."""
    total = sum(counts.values())
    exact = {t: n * c / total for t, c in counts.items()}
    out = {t: int(v) for t, v in exact.items()}
    for t in sorted(exact, key=lambda t: exact[t] - out[t], reverse=True)[: n - sum(out.values())]:
        out[t] += 1
    return out


def choose(items: list[dict[str, Any]], n: int, seed: int) -> list[dict[str, Any]]:
    by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_type[item["type"]].append(item)
    rng = random.Random(seed)
    picked: list[dict[str, Any]] = []
    for kind, share in quotas({t: len(by_type[t]) for t in TYPES if by_type[t]}, n).items():
        picked.extend(rng.sample(by_type[kind], share))
    rng.shuffle(picked)
    return picked


def convert(item: dict[str, Any], corpus: dict[str, dict[str, Any]]) -> dict[str, Any]:
    context: list[tuple[str, str]] = []
    sentences_of: dict[str, list[str]] = {}
    for title, sentences in item["context"]:
        text = " ".join(s.strip() for s in sentences if s.strip())
        did = doc_id(title, text)
        corpus.setdefault(did, {"doc_id": did, "title": title, "text": text, "sentences": sentences})
        context.append((title, did))
        sentences_of.setdefault(title, sentences)
    ids = dict(context)
    facts = []
    for title, index in item["supporting_facts"]:
        facts.append(
            {"doc_id": ids[title], "title": title, "sent_idx": index, "sentence": sentences_of[title][index]}
        )
    gold = list(dict.fromkeys(fact["doc_id"] for fact in facts))
    return {
        "qid": f"twowiki:{item['_id']}",
        "dataset": "twowiki",
        "source_split": "dev",
        "origin": "2WikiMultihopQA dev, 500-record sample of saptarshi059/TTS-project",
        "question": item["question"],
        "answers": [item["answer"]],
        "type": item["type"],
        "gold_doc_ids": gold,
        "context_doc_ids": list(dict.fromkeys(did for _, did in context)),
        "supporting_facts": facts,
        "evidences": item.get("evidences", []),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("source", type=Path)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--seed", type=int, default=2029)
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    corpus: dict[str, dict[str, Any]] = {}
    questions = [convert(item, corpus) for item in choose(records(args.source), args.n, args.seed)]
    with (args.out / "twowiki_questions.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in questions)
    with (args.out / "twowiki_corpus.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus.values())
    print(f"{len(questions)} questions, {len(corpus)} passages")


if __name__ == "__main__":
    main()
