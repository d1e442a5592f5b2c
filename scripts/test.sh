#!/usr/bin/env bash
# Set up a virtual environment (once) and run the whole test suite.
# torch is pinned to 2.13.0 first: that is a CPU build; an unpinned torch downloads gigabytes.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest "$@"
