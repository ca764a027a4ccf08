"""``python -m deepresearch.doctor.embedded_probe MODEL.gguf [THREADS]``: load, generate one token.

Run by ``deepresearch doctor`` in a child process, so that a runtime that dies on this CPU takes
only the child with it. Prints ``{"text": ..., "seconds": ...}``; exits 1 with the reason on stderr
when the model cannot be loaded.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from deepresearch.errors import DeepResearchError
from deepresearch.llm.base import Message
from deepresearch.llm.embedded import EmbeddedModel


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m deepresearch.doctor.embedded_probe MODEL.gguf [THREADS]", file=sys.stderr)
        return 2
    threads = int(argv[1]) if len(argv) > 1 else None
    started = time.monotonic()
    model = EmbeddedModel(Path(argv[0]), n_ctx=1024, n_threads=threads)
    try:
        text = model.complete([Message("user", "Say yes.")], max_tokens=1).text
    except DeepResearchError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        model.close()
    print(json.dumps({"text": text, "seconds": round(time.monotonic() - started, 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
