"""Score the offline engine on the fault zoo and on the real-failure corpus.

    python benchmarks/evaluate.py [--set zoo|corpus|all] [--split NAME] [-v] [--json OUT]

Parts reported: zoo-tune, zoo-holdout (tests/zoo/cases/*/case.yaml) and corpus-tune,
corpus-heldaside (tests/realworld/cases/*/case.json). For each: top-1, top-3, p80 (the
share of right answers among hypotheses given >= 0.8), n80 (how many were given), Brier
score over the returned ranking, the false-alarm rate on healthy runs (a critical cause
above 0.5) and seconds per case.

The corpus is split by source repository (Q&A posts: by question), by a stable hash, so
that no project's style sits on both sides; the held-aside part is never used to fit.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate_zoo import load_cases as load_zoo  # noqa: E402
from evaluate_zoo import run_case as run_zoo_case  # noqa: E402

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "realworld" / "cases"
# Share of split keys (source repositories) held aside; the issue asks for at least 40 % of cases.
HELD_ASIDE_SHARE = 0.42


def split_key(case: dict) -> str:
    """GitHub cases split by repository; Q&A posts (no repository) each by their own URL."""
    repo = (case.get("source_repo") or "").strip().lower()
    if repo.count("/") == 1 and "." not in repo.split("/")[0]:
        return repo
    return (case.get("source") or repo or case.get("id", "")).strip().lower()


def corpus_split(case: dict) -> str:
    h = int(hashlib.sha1(split_key(case).encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "heldaside" if h < HELD_ASIDE_SHARE else "tune"


def _tracked_only(files: list[Path]) -> list[Path]:
    """With MLTDBG_CORPUS_TRACKED=1, only the cases git tracks: engine changes are compared on a fixed
    set while new cases are still being written beside them."""
    if os.environ.get("MLTDBG_CORPUS_TRACKED") != "1":
        return files
    out = subprocess.run(["git", "ls-files", "--", "."], cwd=CORPUS, capture_output=True, text=True,
                         check=True).stdout
    tracked = {(CORPUS / line).resolve() for line in out.splitlines()}
    return [f for f in files if f.resolve() in tracked]


def load_corpus(split: str = "all") -> list[tuple[Path, dict]]:
    out = []
    for f in _tracked_only(sorted(CORPUS.glob("*/case.json"))):
        c = json.loads(f.read_text())
        c["split"] = corpus_split(c)
        if split == "all" or c["split"] == split:
            out.append((f.parent, c))
    return out


def run_corpus_case(folder: Path, case: dict):
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415 - after sys.path setup; keeps --help fast
    sym = case.get("symptom")
    return diagnose([str(folder / "run")], [sym] if sym else [])


def rows_for(which: str, split: str = "all") -> list[dict]:
    rows = []
    if which in ("zoo", "all"):
        for folder, case in load_zoo("all"):
            if split not in ("all", case.get("split")):
                continue
            rows.append(_row(f"zoo-{case.get('split')}", folder.name, case.get("expected"),
                             list(case.get("also_acceptable") or []), bool(case.get("healthy")),
                             lambda f=folder, c=case: run_zoo_case(f, c)))
    if which in ("corpus", "all"):
        for folder, case in load_corpus("all"):
            if split not in ("all", case["split"]):
                continue
            rows.append(_row(f"corpus-{case['split']}", folder.name, case["truth"], list(case.get("acceptable") or []),
                             False, lambda f=folder, c=case: run_corpus_case(f, c)))
    return rows


def _row(part: str, name: str, expected, acceptable: list, healthy: bool, run) -> dict:
    t0 = time.perf_counter()
    try:
        d = run()
        ranked = [(h.id, h.confidence, h.severity) for h in d.hypotheses]
        status = d.status
    except Exception as e:  # noqa: BLE001 - a crash is a miss, reported
        ranked, status = [], f"error: {type(e).__name__}: {e}"
    return {"part": part, "case": name, "healthy": healthy, "expected": expected,
            "ok": [expected, *acceptable], "ranked": ranked, "status": status, "s": time.perf_counter() - t0}


def summarise(rows: list[dict], verbose: bool = False) -> dict:
    res: dict[str, dict] = {}
    for part in sorted({r["part"] for r in rows}):
        rs = [r for r in rows if r["part"] == part]
        faults = [r for r in rs if not r["healthy"]]
        healthy = [r for r in rs if r["healthy"]]
        for r in faults:   # "no issue" on a broken run is a miss, whatever low ranking came with it
            if r["status"] == "no_issue_found":
                r["ranked"] = []
        top1 = sum(1 for r in faults if r["ranked"] and r["ranked"][0][0] in r["ok"])
        top3 = sum(1 for r in faults if any(i in r["ok"] for i, _, _ in r["ranked"][:3]))
        alarms = sum(1 for r in healthy if any(sev == "critical" and c > 0.5 for _, c, sev in r["ranked"]))
        brier, n80, ok80 = 0.0, 0, 0
        for r in faults:
            # the first accepted cause in the ranking is the answer (target 1); every cause not accepted
            # is wrong (target 0); a later accepted alternative is neither (confidences share one unit:
            # two causes cannot both be owed 1); no accepted cause ranked costs 1
            answered = False
            for i, c, _ in r["ranked"]:
                if i not in r["ok"]:
                    brier += c ** 2
                elif not answered:
                    brier += (c - 1.0) ** 2
                    answered = True
            if not answered:
                brier += 1.0
            for i, c, _ in r["ranked"]:
                if c >= 0.8:
                    n80 += 1
                    ok80 += i in r["ok"]
        n = max(1, len(faults))
        res[part] = {"cases": len(rs), "faults": len(faults), "healthy": len(healthy),
                     "top1": top1 / n, "top3": top3 / n, "p80": (ok80 / n80) if n80 else None, "n80": n80,
                     "brier": brier / n, "false_alarm_rate": (alarms / len(healthy)) if healthy else None,
                     "false_alarms": alarms, "s_per_case": sum(r["s"] for r in rs) / max(1, len(rs)),
                     "empty": sum(1 for r in faults if not r["ranked"])}
        x = res[part]
        print(f"[{part}] {len(rs)} cases ({len(faults)} faults, {len(healthy)} healthy): "
              f"top-1 {x['top1']:.3f}, top-3 {x['top3']:.3f}, p80 "
              + (f"{x['p80']:.2f}" if x["p80"] is not None else "-") + f" (n80 {n80}), Brier {x['brier']:.3f}, "
              f"false alarms {alarms}/{len(healthy)}, empty rankings {x['empty']}, {x['s_per_case']:.2f} s/case")
        if verbose:
            for r in rs:
                got = ", ".join(f"{i} {c:.2f}" for i, c, _ in r["ranked"][:3])
                good = (not any(s == "critical" and c > 0.5 for _, c, s in r["ranked"])) if r["healthy"] else \
                    bool(r["ranked"]) and r["ranked"][0][0] in r["ok"]
                print(f"  {'ok  ' if good else 'MISS'} {r['case']:<48} want {('healthy' if r['healthy'] else r['expected']):<24} "
                      f"{r['status'][:18]:<18} {got}")
    return res


def evaluate(which: str = "all", split: str = "all", verbose: bool = False) -> dict:
    return summarise(rows_for(which, split), verbose)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", dest="which", choices=["zoo", "corpus", "all"], default="all")
    ap.add_argument("--split", default="all", help="tune, holdout (zoo) or heldaside (corpus)")
    ap.add_argument("--verbose", "-v", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    res = evaluate(a.which, a.split, a.verbose)
    if a.json:
        Path(a.json).write_text(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
