"""The usual scores for multi-hop QA: SQuAD-normalised exact match and token F1 (best over
aliases), evidence recall over gold passages, citation validity and precision."""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.IGNORECASE)
_PUNCT = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and articles, collapse white space (SQuAD)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, answers: Sequence[str]) -> float:
    norm = normalize_answer(prediction)
    return float(any(norm == normalize_answer(a) for a in answers)) if answers else 0.0


def answer_match(prediction: str, answers: Sequence[str]) -> float:
    """1.0 when a normalised gold answer appears in the answer, as whole words (best over aliases)."""
    norm = f" {normalize_answer(prediction)} "
    return float(any(f" {a} " in norm for a in map(normalize_answer, answers) if a))


def f1(prediction: str, answers: Sequence[str]) -> float:
    return max((_f1(prediction, a) for a in answers), default=0.0)


def _f1(prediction: str, answer: str) -> float:
    pred, gold = normalize_answer(prediction).split(), normalize_answer(answer).split()
    if not pred or not gold:
        return float(pred == gold)
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def evidence_recall(read_doc_ids: Iterable[str | None], gold_doc_ids: Sequence[str]) -> float:
    read = {d for d in read_doc_ids if d}
    return sum(g in read for g in gold_doc_ids) / len(gold_doc_ids) if gold_doc_ids else 0.0


def citation_precision(
    cited_texts: Sequence[tuple[str | None, str]], gold_doc_ids: Sequence[str], answers: Sequence[str]
) -> float | None:
    """Share of cited passages that are gold or contain an answer; None when nothing is cited."""
    if not cited_texts:
        return None
    gold = set(gold_doc_ids)
    wanted = [normalize_answer(a) for a in answers if normalize_answer(a)]
    good = sum(
        doc_id in gold or any(a in normalize_answer(text) for a in wanted) for doc_id, text in cited_texts
    )
    return good / len(cited_texts)
