#!/usr/bin/env bash
# Set up a virtual environment (once), then the static checks and the whole test suite.
# torch is pinned to 2.13.0 first: that is a CPU build; an unpinned torch downloads gigabytes.
# The package is installed with editable_mode=strict so static tools (mypy, import-linter,
# pyright) resolve the mapped mltdbg.* packages; re-running this script picks up new modules.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q torch==2.13.0
# setuptools' build warnings go to a log; it is shown only when the install fails.
.venv/bin/python -m pip install -q -e '.[test]' --config-settings editable_mode=strict >.venv/pip-install.log 2>&1 \
  || { cat .venv/pip-install.log >&2; exit 1; }
.venv/bin/ruff check --quiet .
.venv/bin/python scripts/mypy_baseline.py
exec .venv/bin/python -m pytest "$@"
