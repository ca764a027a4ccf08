"""Orchestration overhead: wall time of a 4-task x 2-round run (the plan has 3 tasks; the planner
adds the question-as-asked task) whose model answers after a fixed delay, against the critical
path (the delays along the longest chain of dependent calls).

usage: python bench/overhead.py [--delay 1.0] [--repeat 3]
Target: ratio <= 1.2. Prints one line per repeat and the median.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from deepresearch import Settings, research
from deepresearch.index.loaders import demo_corpus_path
from deepresearch.index.store import DocumentIndex
from deepresearch.llm.testing import ScriptedModel
from deepresearch.search.local import LocalSearch

QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"
PLAN = json.dumps(
    {
        "tasks": [
            {"title": "Painter", "intent": "Where did Karel Purkyně die?", "query": "Karel Purkyně died"},
            {
                "title": "Clock",
                "intent": "Which astronomical clocks exist?",
                "query": "astronomical clock built",
            },
            {
                "title": "City",
                "intent": "Which city has the clock?",
                "query": "city astronomical clock Prague",
            },
            ]
    }
)
NEVER_ENOUGH = json.dumps(
    {"tasks": [{"task_id": i, "relevance": 0, "explanation": "thin"} for i in range(1, 5)]}
)


def stages(steps: list[str]) -> int:
    """Sequential model-call stages: parallel summaries of one round count once."""
    collapsed = [
        s for i, s in enumerate(steps) if not (s == "summarize" and i and steps[i - 1] == "summarize")
    ]
    return len(collapsed)


def one_run(search: LocalSearch, home: Path, delay: float) -> tuple[float, float, int]:
    model = ScriptedModel({"plan": PLAN, "judge": NEVER_ENOUGH}, delay=delay)
    settings = Settings.load(
        {
            "deepresearch_home": home,
            "max_web_research_loops": 2,
            "summary_mode": "model",
            "model_judge": True,
            "relevance_threshold": 100,
            "task_concurrency": 4,
        }
    )
    start = time.perf_counter()
    result = research(QUESTION, settings=settings, model=model, search=search)
    wall = time.perf_counter() - start
    assert result.rounds == 2 and len(result.todo_items) == 4
    return wall, stages(model.steps()) * delay, len(model.calls)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="dr-bench-"))
    index = DocumentIndex(home / "index.sqlite")
    index.index_paths([demo_corpus_path()])
    ratios = []
    for n in range(args.repeat):
        wall, critical, calls = one_run(LocalSearch(index), home, args.delay)
        ratios.append(wall / critical)
        print(
            f"run {n + 1}: wall {wall:.2f}s, critical path {critical:.2f}s, "
            f"ratio {wall / critical:.3f}, model calls {calls}"
        )
    print(f"median ratio {statistics.median(ratios):.3f} (delay {args.delay}s per call, 4 tasks x 2 rounds)")


if __name__ == "__main__":
    main()
