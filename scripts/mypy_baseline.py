"""mypy on the core (analyzers, playbooks, sessions) against a shrinking baseline.

    .venv/bin/python scripts/mypy_baseline.py [--update]

Fails when the core has more mypy errors than `scripts/mypy-baseline.txt` records; when it
has fewer, says so (run with --update to lower the baseline). The packages are resolved
from the installed (editable_mode=strict) tree, as any static tool sees them.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

BASELINE = Path(__file__).with_name("mypy-baseline.txt")
CMD = [sys.executable, "-m", "mypy", "--ignore-missing-imports", "--no-color-output",
       "-p", "mltdbg.analyzers", "-p", "mltdbg.playbooks", "-p", "mltdbg.sessions"]


def main() -> int:
    # The strict editable install puts a link tree on sys.path; mypy reads it as source (MYPYPATH).
    spec = importlib.util.find_spec("mltdbg.analyzers")
    if spec is None or not spec.submodule_search_locations:
        print("mltdbg is not installed: run scripts/test.sh")
        return 2
    root = Path(list(spec.submodule_search_locations)[0]).resolve().parents[1]
    tree = next((Path(p) for p in sys.path if (Path(p) / "mltdbg" / "analyzers").is_dir()), root)
    env = {**os.environ, "MYPYPATH": str(tree)}
    r = subprocess.run(CMD, capture_output=True, text=True, cwd=str(tree), env=env)
    out = r.stdout + r.stderr
    m = re.search(r"Found (\d+) errors? in", out)
    if m is None and "Success" not in out:
        print("mypy did not run: " + out.strip().splitlines()[-1] if out.strip() else "mypy gave no output")
        return 2
    n = int(m.group(1)) if m else 0
    base = int(BASELINE.read_text().split()[0]) if BASELINE.exists() else n
    if "--update" in sys.argv or not BASELINE.exists():
        BASELINE.write_text(f"{n}\n")
        print(f"mypy baseline set to {n} errors")
        return 0
    if n > base:
        print(out)
        print(f"mypy: {n} errors in the core, more than the baseline of {base}: fix the new ones")
        return 1
    print(f"mypy: {n} errors in the core (baseline {base})" + ("; lower the baseline with --update" if n < base else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
