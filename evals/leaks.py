"""Find eval text copied into code, tests, docstrings and docs (tuning to the test; issues 22, 37).

    python evals/leaks.py [--eval DIR] [--window N] [--if-present] [PATH ...]   # default: src tests docs

Collects every string literal (``ast``) and every docstring and comment line under the given paths
(``*.py`` only: shipped data such as the demo corpus is data, not code), normalises whitespace and
case, and prints each of at least ``MIN_CHARS`` characters that stands inside a question, a
supporting sentence or a passage of the shared eval set (``questions.jsonl``, ``corpus.jsonl``),
with ``file:line``; a literal of at least ``MIN_WORDS`` words that is a whole eval question is
flagged however short. Quoted spans inside docstrings and comments, and the parts of a text cut at
an ellipsis, are checked on their own, so an example quoted in prose is found too.

The shipped demo is the one exception: a text that is exactly one of the demo questions listed in
``src/deepresearch/data/DEMO_CORPUS.md`` (the README's demo, itself an eval question, as that file
says) or the title of a demo-corpus passage is listed apart as a reference to shipped data, and
does not count; tests of the demo must be able to name it.

Near-copies: a question-shaped text (one that ends in "?") whose content words (the words left
once :data:`deepresearch.text.STOPWORDS` are taken out) are at least half, and at least
``NEAR_MIN_SHARED``, shared with one eval question is a near-copy: an eval question with the names
swapped ("Which club was founded first, X or Y?"). Tests and docstrings should invent examples of
a new shape instead; at most ``MAX_NEAR`` may stand. Markdown files (``*.md``) are read too, line by
line, with their quoted and backticked spans.

``--window N`` also flags any run of N words (and ``MIN_CHARS`` characters) of a text that stands
in the eval text: a looser check for near-copies, with some ordinary phrases among its hits.
Prints the totals; exits 1 if a copy is found or more than ``MAX_NEAR`` near-copies, 2 if the eval
set is missing (0 with ``--if-present``, for a checkout without the shared set).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from deepresearch.text import STOPWORDS  # noqa: E402 - the package of this checkout, found above

EVAL = ROOT.parent / "shared" / "eval"
DEMO_DATA = ROOT / "src" / "deepresearch" / "data"
MIN_CHARS = 25
MIN_WORDS = 4
NEAR_MIN_SHARED = 2
MAX_NEAR = 5
SEPARATOR = "\x00"
_QUOTED = re.compile(r'"([^"\n]+)"|“([^”]+)”|``([^`]+)``')
_ELLIPSIS = re.compile(r"…|\.\.\.")
_DEMO_ROW = re.compile(r"^\|\s*\d+\s*\|([^|]+)\|", re.MULTILINE)
_EDGES = " \"'“”`.,;:()[]"
_MD_QUOTED = re.compile(r'"([^"\n]+)"|“([^”]+)”|`([^`\n]+)`')
_WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


@dataclass(frozen=True)
class Text:
    """One literal, docstring or comment: where it starts, what kind it is and what it says."""

    path: Path
    line: int
    kind: str  # "literal", "docstring" or "comment"
    text: str


@dataclass(frozen=True)
class Haystack:
    """The eval text and the shipped demo, normalised."""

    joined: str  # every question, supporting sentence and passage, separated
    questions: frozenset[str]
    demo: frozenset[str]  # the demo questions and the demo corpus's titles
    question_words: tuple[tuple[str, frozenset[str]], ...] = ()  # each question and its content words


@dataclass(frozen=True)
class Hit:
    path: Path
    line: int
    kind: str
    text: str
    demo: bool
    near: str | None = None  # for a near-copy: the eval question it follows


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def load_haystack(eval_dir: Path, demo_dir: Path = DEMO_DATA) -> Haystack:
    pieces: list[str] = []
    questions: set[str] = set()
    for row in _jsonl(eval_dir / "questions.jsonl"):
        question = normalise(str(row["question"]))
        questions.add(question)
        pieces.append(question)
        pieces.extend(normalise(str(fact["sentence"])) for fact in row.get("supporting_facts") or [])
    for row in _jsonl(eval_dir / "corpus.jsonl"):
        pieces.append(normalise(f"{row.get('title', '')}: {row.get('text', '')}"))
        pieces.extend(normalise(str(sentence)) for sentence in row.get("sentences") or [])
    words = tuple((question, content_words(question)) for question in sorted(questions))
    return Haystack(SEPARATOR.join(pieces), frozenset(questions), frozenset(_demo_texts(demo_dir)), words)


def content_words(text: str) -> frozenset[str]:
    """The words of ``text`` that carry its content: lower-cased, stopwords and single letters out."""
    found = (word.casefold() for word in _WORD.findall(text))
    return frozenset(word for word in found if word not in STOPWORDS and (len(word) > 1 or word.isdigit()))


def _jsonl(path: Path) -> Iterator[dict[str, list[dict[str, str]]]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            yield json.loads(line)


def _demo_texts(demo_dir: Path) -> Iterator[str]:
    listing = demo_dir / "DEMO_CORPUS.md"
    if listing.is_file():
        yield from (normalise(m.group(1)) for m in _DEMO_ROW.finditer(listing.read_text(encoding="utf-8")))
    corpus = demo_dir / "demo_corpus.jsonl"
    if corpus.is_file():
        yield from (normalise(str(row["title"])) for row in _jsonl(corpus))


def texts(path: Path) -> Iterator[Text]:
    if path.suffix == ".md":
        lines = path.read_text(encoding="utf-8").splitlines()
        yield from (Text(path, number, "doc", line) for number, line in enumerate(lines, 1))
        return
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    docstrings = _docstring_ids(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            kind = "docstring" if id(node) in docstrings else "literal"
            yield Text(path, node.lineno, kind, node.value)
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield Text(path, token.start[0], "comment", token.string.lstrip("#"))


def _docstring_ids(tree: ast.Module) -> set[int]:
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    owners: list[ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef] = [tree]
    owners += [node for node in ast.walk(tree) if isinstance(node, scopes)]
    found: set[int] = set()
    for owner in owners:
        first = owner.body[0] if owner.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            found.add(id(first.value))
    return found


def pieces(item: Text) -> Iterator[tuple[int, str]]:
    """The (line, text) parts of one item that are checked on their own."""
    if item.kind == "literal":
        yield from _with_parts(item.line, item.text)
        return
    for offset, line in enumerate(item.text.splitlines()):
        yield from _with_parts(item.line + offset, line)
    for match in (_MD_QUOTED if item.kind == "doc" else _QUOTED).finditer(item.text):
        quoted = next(group for group in match.groups() if group)
        yield from _with_parts(item.line + item.text.count("\n", 0, match.start()), quoted)


def _with_parts(line: int, text: str) -> Iterator[tuple[int, str]]:
    yield line, text
    parts = _ELLIPSIS.split(text)
    if len(parts) > 1:
        yield from ((line, part) for part in parts)


def hits(item: Text, haystack: Haystack, window: int) -> Iterator[Hit]:
    seen: set[str] = set()
    for line, raw in pieces(item):
        text = normalise(raw).strip(_EDGES)
        if text in seen:
            continue
        seen.add(text)
        found = _copied(text, haystack, window)
        if found is not None:
            yield Hit(item.path, line, item.kind, found, text in haystack.demo)
            continue
        near = near_question(text, haystack)
        if near is not None:
            yield Hit(item.path, line, item.kind, text, near in haystack.demo, near=near)


def near_question(text: str, haystack: Haystack) -> str | None:
    """The eval question a question-shaped ``text`` shares half or more of its content words with
    (and at least ``NEAR_MIN_SHARED``), the one that shares most; ``None`` when there is none."""
    if not text.endswith("?"):
        return None
    words = content_words(text)
    shared, question = max(((len(words & own), q) for q, own in haystack.question_words), default=(0, ""))
    if shared >= NEAR_MIN_SHARED and 2 * shared >= len(words):
        return question
    return None


def _copied(text: str, haystack: Haystack, window: int) -> str | None:
    """The part of ``text`` that copies the eval text (``text`` itself, or a run of words), if any."""
    if len(text) >= MIN_CHARS and text in haystack.joined:
        return text
    if len(text.split()) >= MIN_WORDS and text in haystack.questions:
        return text
    if window:
        return next((run for run in _runs(text, window) if run in haystack.joined), None)
    return None


def _runs(text: str, window: int) -> Iterator[str]:
    words = text.split()
    for start in range(len(words) - window + 1):
        run = " ".join(words[start : start + window])
        if len(run) >= MIN_CHARS:
            yield run


def scan(paths: list[Path], haystack: Haystack, window: int = 0) -> list[Hit]:
    found: list[Hit] = []
    for root in (path.resolve() for path in paths):
        found_files = sorted([*root.rglob("*.py"), *root.rglob("*.md")]) if root.is_dir() else [root]
        for path in found_files:
            for item in texts(path):
                found.extend(dict.fromkeys(hits(item, haystack, window)))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Find eval text copied into code, tests and docstrings.")
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        default=[ROOT / "src", ROOT / "tests", ROOT / "docs", ROOT / "README.md"],
    )
    parser.add_argument("--eval", type=Path, default=EVAL, help="folder of questions.jsonl and corpus.jsonl")
    parser.add_argument("--window", type=int, default=0, help="also flag a run of N words found in the eval")
    parser.add_argument("--if-present", action="store_true", help="exit 0 when there is no eval set")
    args = parser.parse_args(argv)
    if not (args.eval / "questions.jsonl").is_file() or not (args.eval / "corpus.jsonl").is_file():
        print(f"leaks: no eval set at {args.eval}", file=sys.stderr)
        return 0 if args.if_present else 2
    found = scan(args.paths, load_haystack(args.eval), args.window)
    for hit in sorted(found, key=lambda h: (h.demo, h.near is not None, str(h.path), h.line)):
        where = hit.path.relative_to(ROOT) if hit.path.is_relative_to(ROOT) else hit.path
        kind = f"{hit.kind}, near-copy" if hit.near is not None else hit.kind
        label = f"{kind}, shipped demo" if hit.demo else kind
        print(f"{where}:{hit.line}: {label}: {hit.text}" + (f"\n    ~ {hit.near}" if hit.near else ""))
    copies = [hit for hit in found if not hit.demo and hit.near is None]
    near = [hit for hit in found if not hit.demo and hit.near is not None]
    print(f"{sum(hit.demo for hit in found)} reference(s) to the shipped demo (not counted)")
    print(f"{len(copies)} eval cop{'y' if len(copies) == 1 else 'ies'} found")
    print(f"{len(near)} near-cop{'y' if len(near) == 1 else 'ies'} of eval questions (at most {MAX_NEAR})")
    return 1 if copies or len(near) > MAX_NEAR else 0


if __name__ == "__main__":
    sys.exit(main())
