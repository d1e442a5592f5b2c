"""Check that a change leaves every diagnosis as it was (speed work, refactors).

    .venv/bin/python scripts/same_diagnoses.py save FILE     # before the change
    .venv/bin/python scripts/same_diagnoses.py check FILE    # after it: exit 1 when any differs

Diagnoses every fault-zoo case, every corpus case (tests/realworld, git-tracked ones) and every
fixture run folder (tests/fixtures/*/) with the offline engine, as `mltdbg diagnose --json` would
print them less their timings, and saves or compares them. A difference is reported per part
with the case names, except for the corpus's held-aside part, which is only counted (it is
never looked at case by case). ~20 s on 2 cores.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("MLTDBG_CORPUS_TRACKED", "1")
import evaluate  # noqa: E402  (benchmarks/evaluate.py: the case loaders)

_TIMINGS = {"elapsed_s"}     # (Diagnosis.to_json's only timing)


def _clean(o):
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items() if k not in _TIMINGS}
    if isinstance(o, list):
        return [_clean(v) for v in o]
    return o


def diagnoses() -> dict[str, dict]:
    """part/name -> the diagnosis as JSON (or its error), for every case and fixture run."""
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415 - after sys.path and the env are set
    out: dict[str, dict] = {}
    for folder, case in evaluate.load_zoo("all"):
        out[f"zoo-{case.get('split')}/{folder.name}"] = _clean(evaluate.run_zoo_case(folder, case).to_json())
    for folder, case in evaluate.load_corpus("all"):
        out[f"corpus-{case['split']}/{folder.name}"] = _clean(evaluate.run_corpus_case(folder, case).to_json())
    for d in sorted((ROOT / "tests" / "fixtures").glob("*/")):
        try:
            out[f"fixtures/{d.name}"] = _clean(diagnose([str(d)], []).to_json())
        except Exception as e:  # noqa: BLE001 - an input error is a result too
            out[f"fixtures/{d.name}"] = {"error": f"{type(e).__name__}: {e}"}
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("save", "check"))
    ap.add_argument("file")
    a = ap.parse_args()
    now = diagnoses()
    if a.what == "save":
        Path(a.file).write_text(json.dumps(now, sort_keys=True))
        print(f"{len(now)} diagnoses saved to {a.file}")
        return 0
    before = json.loads(Path(a.file).read_text())
    differ: dict[str, list[str]] = {}
    for key in sorted(set(before) | set(now)):
        if before.get(key) != now.get(key):
            part, name = key.split("/", 1)
            differ.setdefault(part, []).append(name)
    if not differ:
        print(f"all {len(now)} diagnoses the same")
        return 0
    for part, names in differ.items():
        shown = "" if part == "corpus-heldaside" else ": " + ", ".join(names[:20]) + (" ..." if len(names) > 20 else "")
        print(f"{part}: {len(names)} differ{shown}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
