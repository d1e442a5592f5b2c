"""The offline engine on benchmark-style scenario runs: tests/realworld/scenarios/<round>/<set>/.

    .venv/bin/python benchmarks/evaluate_scenarios.py [-v] [--root DIR]

(--root scores the sets under another folder the same way, e.g. tests/realworld/scenarios_pending or a new
round before it joins.)

Each set holds `runs/<name>/` (what a user would hand the tool: TensorBoard events, W&B or MLflow files, a
forum post with pasted log lines and code) and `truth.json` ({name: {truth, symptom, how}}); `gen.py` is the
script that produced the runs by really training small torch models on CPU with one planted fault each (or
none: truth "healthy"). A fault run is right when its first hypothesis is the truth and the status is not
no_issue_found; a healthy run when nothing critical is ranked above 0.5 (evaluate.py's false-alarm rule).
Also counted: the answers given at 0.8 or more, and how many of them are right (on a healthy run, none is).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mltdbg.playbooks.diagnose import diagnose

ROOT = Path(__file__).resolve().parents[1] / "tests" / "realworld" / "scenarios"


def score_set(folder: Path, verbose: bool = False) -> dict:
    truth = json.loads((folder / "truth.json").read_text("utf-8"))
    right = confident = confident_right = 0
    for name in sorted(truth):
        t = truth[name]
        d = diagnose([str(folder / "runs" / name)], [t["symptom"]])
        ranked = [(h.id, h.confidence, h.severity) for h in d.hypotheses]
        if t["truth"] == "healthy":
            ok = not any(sev == "critical" and c > 0.5 for _, c, sev in ranked)
            confident += sum(1 for _, c, _ in ranked if c >= 0.8)      # any confident cause of a healthy run is wrong
        else:
            ok = bool(ranked) and ranked[0][0] == t["truth"] and d.status != "no_issue_found"
            for i, c, _ in ranked:
                if c >= 0.8:
                    confident += 1
                    confident_right += i == t["truth"]
        right += ok
        if verbose:
            got = " | ".join(f"{i} {c:.2f}" for i, c, _ in ranked[:3])
            print(f"  {'ok  ' if ok else 'MISS'} {name:8} want {t['truth']:24} {d.status:18} {got}")
    return {"runs": len(truth), "right": right, "confident": confident, "confident_right": confident_right}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-v", action="store_true", help="one line per run")
    ap.add_argument("--root", type=Path, default=ROOT, help="folder of <round>/<set>/ (default: %(default)s)")
    a = ap.parse_args()
    total = {"runs": 0, "right": 0, "confident": 0, "confident_right": 0}
    for folder in sorted(p.parent for p in a.root.glob("*/*/truth.json")):
        r = score_set(folder, a.v)
        print(f"[{folder.parent.name}/{folder.name}] {r['right']}/{r['runs']} right; answers at >= 0.8: "
              f"{r['confident']}, right {r['confident_right']}")
        for k in total:
            total[k] += r[k]
    print(f"[all] {total['right']}/{total['runs']} right; answers at >= 0.8: {total['confident']}, "
          f"right {total['confident_right']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
