"""The README demo question on the embedded model, end to end, as a user runs it (a subprocess).

usage: python bench/embedded_e2e.py [--repeat 2] [--model smollm2]
Prints wall time, time to first event, rounds, model calls and peak memory (max RSS) per run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

QUESTION = "When was the astronomical clock built in the city where Karel Purkyně died?"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--model", default="smollm2")
    args = parser.parse_args()
    for n in range(args.repeat):
        home = tempfile.mkdtemp(prefix="dr-e2e-")
        env = {**os.environ, "DEEPRESEARCH_HOME": home, "EMBEDDED_MODEL": args.model}
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "deepresearch.cli.main", "research", QUESTION, "--json", "-q"],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        wall = time.perf_counter() - start
        result = json.loads(done.stdout)
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(
            f"run {n + 1} ({args.model}): wall {wall:.1f}s, "
            f"first event {result['timings'].get('first_event')}s, "
            f"rounds {result['rounds']}, model calls {result['usage']['calls']}, "
            f"peak RSS {peak:.0f} MB, answer {result['answer']!r}"
        )


if __name__ == "__main__":
    main()
