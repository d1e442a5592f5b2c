#!/usr/bin/env bash
# Set up a virtual environment (once) and open the TUI on the bundled failing example run
# (offline engine, no API key needed). The demo works on a copy in a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q torch==2.13.0
# pytest too: the demo's verify step reruns the test the fix adds (`python -m pytest ...`).
# setuptools' build warnings go to a log, as in scripts/test.sh; it is shown only when the install fails.
.venv/bin/python -m pip install -q -e . 'pytest>=8,<9' >.venv/pip-install.log 2>&1 \
  || { cat .venv/pip-install.log >&2; exit 1; }
# The demo's checks and verify run `python`: make it this environment's interpreter (as if activated).
export VIRTUAL_ENV="$PWD/.venv"
export PATH="$VIRTUAL_ENV/bin:$PATH"
if [ -x .venv/bin/mltdbg-tui ]; then
  exec .venv/bin/mltdbg-tui --demo "$@"
fi
exec .venv/bin/mltdbg diagnose app/demo/repo --symptom "training fails: loss explodes" "$@"
