"""Score the offline engine on the fault zoo (tests/zoo/cases/*/case.yaml).

    python benchmarks/evaluate_zoo.py [--split tune|holdout|all] [--verbose] [--json OUT]

Reports per split: top-1, top-3, false alarms on healthy runs (a critical cause
above 0.5), Brier score over the returned ranking, and how often a cause given
>= 0.8 is right. The holdout split is never used for tuning.
"""
from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ZOO = Path(__file__).resolve().parents[1] / "tests" / "zoo" / "cases"


def load_cases(split: str = "all") -> list[tuple[Path, dict]]:
    out = []
    for f in sorted(ZOO.glob("*/case.yaml")):
        c = yaml.safe_load(f.read_text())
        if split == "all" or c.get("split") == split:
            out.append((f.parent, c))
    return out


def run_case(folder: Path, case: dict, fn=None):
    """Diagnose one case the way a user would (paths + symptom + args); `fn` replaces
    `diagnose` with another function of the same arguments (the weight fit builds contexts)."""
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415 - keeps --help fast
    fn = fn or diagnose
    tmp = None
    args = list(case.get("args") or [])
    paths = [str(folder)]
    repo_root = None
    try:
        if case.get("repo_bundle"):
            tmp = Path(tempfile.mkdtemp(prefix="zoo-"))
            repo = tmp / "repo"
            subprocess.run(["git", "clone", "-q", str(folder / case["repo_bundle"]), str(repo)], check=True,
                           capture_output=True)
            # Artifacts (the bad run) are copied into the clone so paths resolve inside the repo.
            for p in folder.iterdir():
                if p.name not in ("case.yaml", case["repo_bundle"]) and not (repo / p.name).exists():
                    (shutil.copytree if p.is_dir() else shutil.copy2)(p, repo / p.name)
            folder = repo
            paths = [str(repo)]
            repo_root = repo
        baseline = []
        rest = []
        i = 0
        while i < len(args):
            if args[i] == "--baseline":
                baseline.append(str(folder / args[i + 1]))
                i += 2
            else:
                rest.append(args[i])
                i += 1
        if rest:
            paths = [str(folder / a) for a in rest]
        sym = case.get("symptom")
        return fn(paths, [sym] if sym else [], baseline or None, repo_root=repo_root)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def evaluate(split: str = "all", verbose: bool = False) -> dict:
    rows = []
    for folder, case in load_cases(split):
        t0 = time.perf_counter()
        try:
            d = run_case(folder, case)
            ranked = [(h.id, h.confidence, h.severity) for h in d.hypotheses]
            status = d.status
        except Exception as e:  # noqa: BLE001 - a crash is a miss, reported
            ranked, status = [], f"error: {type(e).__name__}: {e}"
        rows.append({"case": folder.name, "split": case.get("split"), "healthy": bool(case.get("healthy")),
                     "expected": case.get("expected"), "ok": [case.get("expected")] + list(case.get("also_acceptable") or []),
                     "ranked": ranked, "status": status, "s": time.perf_counter() - t0})
    return summarise(rows, verbose)


def summarise(rows: list[dict], verbose: bool) -> dict:
    res = {}
    for split in sorted({r["split"] for r in rows}):
        rs = [r for r in rows if r["split"] == split]
        faults = [r for r in rs if not r["healthy"]]
        for r in faults:   # "no issue" on a broken run is a miss, whatever low ranking came with it
            if r["status"] == "no_issue_found":
                r["ranked"] = []
        healthy = [r for r in rs if r["healthy"]]
        top1 = sum(1 for r in faults if r["ranked"] and r["ranked"][0][0] in r["ok"])
        top3 = sum(1 for r in faults if any(i in r["ok"] for i, _, _ in r["ranked"][:3]))
        alarms = sum(1 for r in healthy if any(sev == "critical" and c > 0.5 for _, c, sev in r["ranked"]))
        brier, hi, hi_ok = 0.0, 0, 0
        for r in faults:
            ps = {i: c for i, c, _ in r["ranked"]}
            truth = r["ok"]
            brier += sum((c - (1.0 if i in truth else 0.0)) ** 2 for i, c in ps.items())
            if not any(i in truth for i in ps):
                brier += 1.0
            for i, c, _ in r["ranked"]:
                if c >= 0.8:
                    hi += 1
                    hi_ok += i in truth
        n = max(1, len(faults))
        res[split] = {"cases": len(rs), "faults": len(faults), "healthy": len(healthy),
                      "top1": top1 / n, "top3": top3 / n, "false_alarms": alarms, "brier": brier / n,
                      "given_0.8": hi, "right_at_0.8": (hi_ok / hi) if hi else None,
                      "complete": sum(1 for r in faults if r["status"] == "diagnosis_complete")}
        print(f"[{split}] {len(rs)} cases ({len(faults)} faults, {len(healthy)} healthy): "
              f"top-1 {top1}/{len(faults)} = {top1/n:.3f}, top-3 {top3}/{len(faults)} = {top3/n:.3f}, "
              f"false alarms {alarms}/{len(healthy)}, Brier {brier/n:.3f}, "
              f">=0.8 given {hi}, right {hi_ok}" + (f" ({hi_ok/hi:.2f})" if hi else ""))
        if verbose:
            for r in rs:
                got = ", ".join(f"{i} {c:.2f}" for i, c, _ in r["ranked"][:3])
                mark = "ok " if (r["healthy"] and not any(s == "critical" and c > 0.5 for _, c, s in r["ranked"])) or \
                    (not r["healthy"] and r["status"] != "no_issue_found" and r["ranked"] and r["ranked"][0][0] in r["ok"]) else "MISS"
                print(f"  {mark} {r['case']:<40} want {('healthy' if r['healthy'] else r['expected']):<24} "
                      f"{r['status']:<18} {got}  ({r['s']:.2f}s)")
    return res


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="all")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    res = evaluate(a.split, a.verbose)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
