"""Probe the embedded models: load time, prompt and generation speed, JSON validity.

Usage: ``python bench/embedded_probe.py [--models smollm2 qwen0.5b qwen1.5b] [--threads 1 2] [--tries 10]``

Each (model, threads) pair runs in its own process so that peak RSS is that model's alone.
Valid JSON means: parses, and has ``tasks``, a non-empty list of objects whose ``title``,
``intent`` and ``query`` are strings. Timings vary about 20 % run to run on 2 cores: compare
within one run.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from typing import Any

from deepresearch.llm.base import Message
from deepresearch.llm.embedded import EmbeddedModel
from deepresearch.settings import Settings

PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tasks": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "intent": {"type": "string"},
                    "query": {"type": "string"},
                },
                "required": ["title", "intent", "query"],
            },
        }
    },
    "required": ["tasks"],
}
PLANNER = (
    "You are a research planner. Split the question into 3 to 5 complementary research tasks. "
    'Answer with JSON only, shaped like {"tasks": [{"title": "...", "intent": "...", '
    '"query": "..."}]}.'
)
QUESTIONS = [
    "How do heat pumps compare with gas boilers for heating old houses?",
    "What are the main risks of investing in emerging-market bonds?",
    "How does Python's asyncio event loop schedule coroutines?",
    "What should a first-time visitor to Kyoto see in three days?",
    "Why did the 2008 financial crisis spread so fast between countries?",
    "How do mRNA vaccines train the immune system?",
    "What are the trade-offs between SQLite and PostgreSQL for a small web app?",
    "How is climate change affecting coffee farming?",
    "What makes a good onboarding process for remote engineers?",
    "How do lithium-ion batteries degrade over time?",
]
PROMPT_FILLER = "Solar panels convert sunlight into electricity using photovoltaic cells. "
PLAN_MAX_TOKENS = 256


def plan_messages(question: str) -> list[Message]:
    return [Message("system", PLANNER), Message("user", f"Question: {question}")]


def valid_plan(text: str) -> bool:
    """True when ``text`` is JSON matching PLAN_SCHEMA's required shape."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, list) or not tasks:
        return False
    keys = ("title", "intent", "query")
    return all(isinstance(t, dict) and all(isinstance(t.get(k), str) for k in keys) for t in tasks)


def distinct_queries(text: str) -> int:
    if not valid_plan(text):
        return 0
    tasks = json.loads(text)["tasks"]
    return len({t["query"].strip().lower() for t in tasks})


def prompt_speed(model: EmbeddedModel) -> float:
    """Prompt tokens per second over a ~500-token prompt, one generated token."""
    rates = []
    for n in range(2):
        text = f"Note {n}. " + PROMPT_FILLER * 45 + "\nSay OK."
        start = time.perf_counter()
        usage = model.complete([Message("user", text)], max_tokens=1).usage
        rates.append(usage.prompt_tokens / (time.perf_counter() - start))
    return max(rates)


def generation_speed(model: EmbeddedModel) -> float:
    """Generated tokens per second after a short prompt (its time subtracted)."""
    start = time.perf_counter()
    model.complete([Message("user", "Reply OK.")], max_tokens=1)
    prompt_time = time.perf_counter() - start
    start = time.perf_counter()
    usage = model.complete(
        [Message("user", "Write a long story about a lighthouse keeper and the sea.")],
        max_tokens=128,
    ).usage
    return usage.completion_tokens / max(time.perf_counter() - start - prompt_time, 1e-6)


def json_share(model: EmbeddedModel, tries: int, constrained: bool) -> dict[str, Any]:
    schema = PLAN_SCHEMA if constrained else None
    texts = []
    start = time.perf_counter()
    for question in QUESTIONS[:tries]:
        completion = model.complete(plan_messages(question), schema=schema, max_tokens=PLAN_MAX_TOKENS)
        texts.append(completion.text)
    return {
        "valid": sum(valid_plan(t) for t in texts),
        "two_plus_distinct": sum(distinct_queries(t) >= 2 for t in texts),
        "tries": len(texts),
        "seconds": round(time.perf_counter() - start, 1),
        "example": texts[0][:300],
    }


def probe(name: str, threads: int | None, tries: int) -> dict[str, Any]:
    model = EmbeddedModel.from_name(name, n_ctx=4096, n_threads=threads, cache_dir=Settings.load().cache_dir)
    start = time.perf_counter()
    model.load()
    load_s = time.perf_counter() - start
    result = {
        "model": name,
        "threads": threads,
        "load_s": round(load_s, 2),
        "prompt_tok_s": round(prompt_speed(model), 1),
        "gen_tok_s": round(generation_speed(model), 1),
        "json_with_schema": json_share(model, tries, constrained=True),
        "json_prompt_only": json_share(model, tries, constrained=False),
    }
    result["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    model.close()
    return result


def run_children(models: list[str], threads: list[int], tries: int) -> None:
    for name in models:
        for count in threads:
            command = [sys.executable, __file__, "--child", name, str(count), str(tries)]
            output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            print(output.strip(), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["smollm2", "qwen0.5b", "qwen1.5b"])
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--tries", type=int, default=10)
    parser.add_argument("--child", nargs=3, metavar=("MODEL", "THREADS", "TRIES"))
    args = parser.parse_args()
    if args.child:
        name, threads, tries = args.child
        print(json.dumps(probe(name, int(threads), int(tries)), ensure_ascii=False))
        return
    run_children(args.models, args.threads, args.tries)


if __name__ == "__main__":
    main()
