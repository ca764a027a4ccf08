"""Build ``evals/data/hard_questions.jsonl`` and ``hard_corpus.jsonl``: train-split multi-hop
questions of the kind the product is measured on from outside, none of them in ``../shared/eval``.

    python evals/build_hard.py HOTPOTQA_JSON MUSIQUE_JSONL [--musique 2hop=50,3hop=20,4hop=15]

``HOTPOTQA_JSON`` is a list of HotpotQA distractor-setting **train** records in the Hugging Face
column layout (``supporting_facts: {title: [...], sent_id: [...]}``, ``context: {title: [...],
sentences: [[...]]}``), ``MUSIQUE_JSONL`` MuSiQue-Ans v1.0 **train** records (``paragraphs``,
``question_decomposition``, ``answer_aliases``); ``evals/data/README.md`` names the commit each
came from. Taken: every HotpotQA question of level ``hard`` (the level of all of HotpotQA-dev,
where the shared set's HotpotQA half is mostly ``medium``), and the first answerable MuSiQue
questions of each hop count up to ``--musique``'s quota. A question whose id or text is in the
shared set is left out, and so is one that shares a gold passage with a shared test-half
question (that half is only ever looked at once per step).

Written in the shared set's format: ``qid`` (``hotpotqa:<id>`` / ``musique:<id>``), ``dataset``,
``question``, ``answers`` (MuSiQue's aliases included), ``type``, ``level``, ``gold_doc_ids``,
``context_doc_ids``, ``supporting_facts`` (HotpotQA) or ``decomposition`` (MuSiQue). Passages
get ``doc_id`` ``<dataset>-train:`` + 12 hex of the sha256 of title and text.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "eval"


def doc_id(dataset: str, title: str, text: str) -> str:
    return f"{dataset}-train:" + hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:12]


def _add(corpus: dict[str, dict[str, Any]], dataset: str, title: str, sentences: list[str]) -> str:
    text = " ".join(s.strip() for s in sentences if s.strip())
    did = doc_id(dataset, title, text)
    corpus.setdefault(did, {"doc_id": did, "title": title, "text": text, "sentences": sentences})
    return did


def hotpotqa(item: dict[str, Any], corpus: dict[str, dict[str, Any]]) -> dict[str, Any]:
    titles, texts = item["context"]["title"], item["context"]["sentences"]
    ids = {
        title: _add(corpus, "hotpotqa", title, sentences)
        for title, sentences in zip(titles, texts, strict=True)
    }
    sentences_of = dict(zip(titles, texts, strict=True))
    facts = [
        {"doc_id": ids[t], "title": t, "sent_idx": i, "sentence": sentences_of[t][i]}
        for t, i in zip(item["supporting_facts"]["title"], item["supporting_facts"]["sent_id"], strict=True)
        if t in ids and i < len(sentences_of[t])
    ]
    return {
        "qid": f"hotpotqa:{item['id']}",
        "dataset": "hotpotqa",
        "source_split": "train",
        "origin": "HotpotQA distractor train, ZaneLing/Theta-Gamma Data/hotpotqa_500.json",
        "question": item["question"],
        "answers": [item["answer"]],
        "type": item["type"],
        "level": item["level"],
        "gold_doc_ids": list(dict.fromkeys(f["doc_id"] for f in facts)),
        "context_doc_ids": list(dict.fromkeys(ids.values())),
        "supporting_facts": facts,
    }


def musique(item: dict[str, Any], corpus: dict[str, dict[str, Any]]) -> dict[str, Any]:
    ids = {p["idx"]: _add(corpus, "musique", p["title"], [p["paragraph_text"]]) for p in item["paragraphs"]}
    steps = [
        {"question": s["question"], "answer": s["answer"], "doc_id": ids.get(s["paragraph_support_idx"])}
        for s in item["question_decomposition"]
    ]
    return {
        "qid": f"musique:{item['id']}",
        "dataset": "musique",
        "source_split": "train",
        "origin": "MuSiQue-Ans v1.0 train, ZaneLing/Theta-Gamma Data/musique_ans_train_*hop_samples.json",
        "question": item["question"],
        "answers": list(dict.fromkeys([item["answer"], *item.get("answer_aliases", [])])),
        "type": item["id"].split("__")[0],
        "gold_doc_ids": [ids[p["idx"]] for p in item["paragraphs"] if p.get("is_supporting")],
        "context_doc_ids": list(dict.fromkeys(ids.values())),
        "decomposition": steps,
    }


def _shared() -> tuple[set[str], set[str], set[str]]:
    """The shared set's qids and questions, and the texts of its test half's gold passages."""
    from deepresearch.evaluation.dataset import half_of

    questions = [json.loads(line) for line in (SHARED / "questions.jsonl").open(encoding="utf-8")]
    corpus = {d["doc_id"]: d for d in map(json.loads, (SHARED / "corpus.jsonl").open(encoding="utf-8"))}
    test_gold = {
        " ".join(corpus[d]["text"].split())
        for q in questions
        if half_of(q["qid"]) == "test"
        for d in q["gold_doc_ids"]
        if d in corpus
    }
    return {q["qid"] for q in questions}, {q["question"].strip().lower() for q in questions}, test_gold


def _quotas(text: str) -> dict[str, int]:
    return {hops: int(n) for hops, n in (part.split("=") for part in text.split(","))}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("hotpotqa", type=Path)
    parser.add_argument("musique", type=Path)
    parser.add_argument("--musique-quota", "--musique-quotas", default="2hop=50,3hop=20,4hop=15")
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args()
    qids, texts, test_gold = _shared()
    corpus: dict[str, dict[str, Any]] = {}
    picked = [
        hotpotqa(item, corpus)
        for item in json.loads(args.hotpotqa.read_text(encoding="utf-8"))
        if item["level"] == "hard"
    ]
    left = _quotas(args.musique_quota)
    for line in args.musique.open(encoding="utf-8"):
        item = json.loads(line)
        hops = item["id"].split("__")[0][:4]
        if item.get("answerable", True) and left.get(hops, 0) > 0:
            left[hops] -= 1
            picked.append(musique(item, corpus))
    kept = [
        q
        for q in picked
        if q["qid"] not in qids
        and q["question"].strip().lower() not in texts
        and not any(" ".join(corpus[d]["text"].split()) in test_gold for d in q["gold_doc_ids"])
    ]
    used = {d for q in kept for d in q["context_doc_ids"]}
    with (args.out / "hard_questions.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(q, ensure_ascii=False) + "\n" for q in kept)
    with (args.out / "hard_corpus.jsonl").open("w", encoding="utf-8") as out:
        out.writelines(
            json.dumps(d, ensure_ascii=False) + "\n" for d in corpus.values() if d["doc_id"] in used
        )
    print(f"{len(kept)} questions ({len(picked) - len(kept)} left out as shared), {len(used)} passages")


if __name__ == "__main__":
    main()
