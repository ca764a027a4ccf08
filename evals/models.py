"""Compare the embedded models on one half of the shared eval set, as a user runs them (the CLI).

usage: python evals/models.py [--models smollm2 qwen0.5b qwen1.5b] [--half test] [--limit 40]
                              [--out evals/out/models] [-- EXTRA=VALUE ...]

Each model runs ``deepresearch eval`` in its own process (peak RSS is that process's, from
``wait4``), on the same questions (seed 0). Prints one Markdown row per model: answer_match,
precision when answering, abstained, evidence recall, citation precision, model calls and prompt
tokens per question, seconds per question and peak RSS. Settings after ``--`` apply to every run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"
COLUMNS = (
    "answer_match",
    "precision_answering",
    "abstained",
    "evidence_recall",
    "citation_precision",
    "model_calls",
    "prompt_tokens",
    "seconds",
)


def run(model: str, args: argparse.Namespace, extra: dict[str, str]) -> dict[str, object]:
    out = Path(args.out) / f"{model}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(Path(sys.executable).with_name("deepresearch")),
        "eval",
        str(EVAL / "questions.jsonl"),
        "--corpus",
        str(EVAL / "corpus.jsonl"),
        "--seed",
        "0",
        "--half",
        args.half,
        "--out",
        str(out),
    ]
    if args.limit:
        command += ["--limit", str(args.limit)]
    env = {**os.environ, "EMBEDDED_MODEL": model, **extra}
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if status != 0:
        raise SystemExit(f"{model}: deepresearch eval exited with status {status}")
    summary = json.loads(out.read_text(encoding="utf-8"))["summary"]["agent"]
    return {**summary, "model": model, "peak_rss_mb": round(usage.ru_maxrss / 1024)}


def main() -> None:
    argv = sys.argv[1:]
    extra_args = argv[argv.index("--") + 1 :] if "--" in argv else []
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2", "qwen0.5b", "qwen1.5b"])
    parser.add_argument("--half", choices=("dev", "test"), default="test")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--out", default=str(ROOT / "evals" / "out" / "models"))
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    extra = dict(item.split("=", 1) for item in extra_args)
    print("| model | n | " + " | ".join(COLUMNS) + " | peak RSS MB |")
    print("|" + "---|" * (len(COLUMNS) + 3))
    for model in args.models:
        row = run(model, args, extra)
        cells = " | ".join(str(row.get(c, "–")) for c in COLUMNS)
        print(f"| {model} | {row['n']} | {cells} | {row['peak_rss_mb']} |", flush=True)


if __name__ == "__main__":
    main()
