"""Reading evaluation questions: ``question``, ``answers`` (aliases), ``gold_doc_ids``, ``qid``."""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from deepresearch.errors import ConfigurationError


@dataclass(frozen=True)
class EvalQuestion:
    qid: str
    question: str
    answers: tuple[str, ...]
    gold_doc_ids: tuple[str, ...]


Half = Literal["dev", "test"]


def half_of(qid: str) -> Half:
    """The fixed half a question belongs to: ``dev`` (look at it, tune on it) or ``test`` (report
    only). Decided once by the first byte of the sha256 of its ``qid``, so every tool agrees."""
    return "dev" if hashlib.sha256(qid.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def group_of(qid: str) -> str:
    """The question's dataset, with MuSiQue's hop count: ``hotpotqa``, ``musique-2hop`` … ``-4hop``."""
    dataset, _, rest = qid.partition(":")
    hops = re.match(r"(\d)hop", rest)
    return f"{dataset}-{hops.group(1)}hop" if dataset == "musique" and hops else dataset


def load_questions(
    path: Path, *, limit: int | None = None, seed: int | None = None, half: Half | None = None
) -> list[EvalQuestion]:
    """Questions in file order (only those of ``half`` when given; shuffled when ``seed`` is
    given), at most ``limit``."""
    if not path.is_file():
        raise ConfigurationError(f"questions file {path} does not exist")
    with path.open(encoding="utf-8") as lines:
        items = [_parse(line, number) for number, line in enumerate(lines, 1) if line.strip()]
    if half is not None:
        items = [item for item in items if half_of(item.qid) == half]
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
