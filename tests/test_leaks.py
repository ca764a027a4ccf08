"""evals/leaks.py, the check CI runs: eval text copied into the code, and eval questions copied
with their names swapped, are found; an example of a new shape is not."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
ASKED = "Which lighthouse keeper rowed farther, Ansel Brigg or Tova Lune?"


def _leaks() -> ModuleType:
    spec = importlib.util.spec_from_file_location("leaks", ROOT / "evals" / "leaks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("leaks", module)  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _eval_set(folder: Path) -> Path:
    folder.mkdir()
    (folder / "questions.jsonl").write_text(json.dumps({"qid": "q1", "question": ASKED}) + "\n")
    (folder / "corpus.jsonl").write_text(
        json.dumps({"doc_id": "d1", "title": "Brigg", "text": "A keeper."}) + "\n"
    )
    return folder


def test_a_question_with_its_names_swapped_is_a_near_copy_and_fails_the_check(tmp_path: Path) -> None:
    leaks = _leaks()
    code = tmp_path / "code"
    code.mkdir()
    (code / "test_rowing.py").write_text(
        'SWAPPED = "Which lighthouse keeper rowed farther, Ida Marr or Per Holt?"\n'
        'FRESH = "How many oars hang in the boathouse at Skerrow?"\n'
    )
    found = leaks.scan([code], leaks.load_haystack(_eval_set(tmp_path / "eval"), tmp_path))
    assert [(hit.line, hit.near is not None) for hit in found] == [(1, True)]
    assert leaks.main([str(code), "--eval", str(tmp_path / "eval")]) == 0  # one is within MAX_NEAR


def test_more_near_copies_than_allowed_or_one_verbatim_copy_fails(tmp_path: Path) -> None:
    leaks = _leaks()
    eval_dir = _eval_set(tmp_path / "eval")
    docs = tmp_path / "docs"
    docs.mkdir()
    lines = [f'- "Which lighthouse keeper rowed farther, Name{i} or Other{i}?"' for i in range(6)]
    (docs / "notes.md").write_text("\n".join(lines) + "\n")
    assert leaks.main([str(docs), "--eval", str(eval_dir)]) == 1
    (docs / "notes.md").write_text(f"We tried `{ASKED}` by hand.\n")
    assert leaks.main([str(docs), "--eval", str(eval_dir)]) == 1
    assert leaks.main([str(docs), "--eval", str(tmp_path / "missing"), "--if-present"]) == 0
