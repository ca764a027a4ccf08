"""Orchestration overhead: wall time of a 4-task x 2-round run (the plan has 3 tasks; the planner
adds the question-as-asked task) whose model answers after a fixed delay, against the critical
path (the delays along the longest chain of dependent calls).

usage: python bench/overhead.py [--delay 1.0] [--repeat 3]
Target: ratio <= 1.2. Prints one line per repeat and the median.

Out of process, as a user runs it (see bench/outside.py): the CLI as a subprocess against a model
server with a fixed delay, for a local-index run and a SearXNG run, loops 1-3:

usage: python bench/overhead.py --process [--delay 1.0] [--loops 1 2 3] [--search local searxng]
       [--repeat 1] [--pythonpath OTHER/src]   (another checkout's sources, e.g. the code before)
Targets: wall <= 1.10 x the critical path, critical path <= 2 + 2 x rounds calls.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from deepresearch import ResearchResult, Settings, research_stream
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


def one_run(search: LocalSearch, home: Path, delay: float) -> tuple[float, float, int, float]:
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
    start, first = time.perf_counter(), 0.0
    for item in research_stream(QUESTION, settings=settings, model=model, search=search):
        first = first or time.perf_counter() - start
        if item.type == "done":
            result = ResearchResult.model_validate(item.data["result"])
    wall = time.perf_counter() - start
    assert result.rounds == 2 and len(result.todo_items) == 4
    return wall, stages(model.steps()) * delay, len(model.calls), first


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--process", action="store_true", help="run the CLI as a subprocess")
    parser.add_argument("--loops", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--search", nargs="+", default=["local", "searxng"])
    parser.add_argument("--pythonpath", default=None, help="sources to run instead of this checkout's")
    args = parser.parse_args()
    if args.process:
        from outside import measure

        measure(args.delay, args.loops, args.search, args.repeat, args.pythonpath)
        return
    home = Path(tempfile.mkdtemp(prefix="dr-bench-"))
    index = DocumentIndex(home / "index.sqlite")
    index.index_paths([demo_corpus_path()])
    ratios = []
    for n in range(args.repeat):
        wall, critical, calls, first = one_run(LocalSearch(index), home, args.delay)
        ratios.append(wall / critical)
        print(
            f"run {n + 1}: wall {wall:.2f}s, critical path {critical:.2f}s, "
            f"ratio {wall / critical:.3f}, model calls {calls}, first event {first:.3f}s"
        )
    print(f"median ratio {statistics.median(ratios):.3f} (delay {args.delay}s per call, 4 tasks x 2 rounds)")


if __name__ == "__main__":
    main()
