"""Reading evaluation questions: ``question``, ``answers`` (aliases), ``gold_doc_ids``, ``qid``."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

from deepresearch.errors import ConfigurationError


@dataclass(frozen=True)
class EvalQuestion:
    qid: str
    question: str
    answers: tuple[str, ...]
    gold_doc_ids: tuple[str, ...]


def load_questions(path: Path, *, limit: int | None = None, seed: int | None = None) -> list[EvalQuestion]:
    """Questions in file order (shuffled when ``seed`` is given), at most ``limit``."""
    if not path.is_file():
        raise ConfigurationError(f"questions file {path} does not exist")
    with path.open(encoding="utf-8") as lines:
        items = [_parse(line, number) for number, line in enumerate(lines, 1) if line.strip()]
    if seed is not None:
        random.Random(seed).shuffle(items)
    return items[:limit] if limit else items


def _parse(line: str, number: int) -> EvalQuestion:
    try:
        record = json.loads(line)
        return EvalQuestion(
            qid=str(record.get("qid") or record.get("id") or f"line-{number}"),
            question=str(record["question"]),
            answers=tuple(str(a) for a in record.get("answers", [])),
            gold_doc_ids=tuple(str(d) for d in record.get("gold_doc_ids", [])),
        )
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ConfigurationError(f"questions line {number} is not a question record ({exc})") from None
