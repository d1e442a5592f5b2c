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
    """The zoo's numbers per split, from the one evaluator (benchmarks/evaluate.py), under this
    script's historical names (`given_0.8`, `right_at_0.8`)."""
    import evaluate as ev  # noqa: PLC0415 - evaluate.py imports this module's loaders at its top
    res = ev.evaluate("zoo", split, verbose)
    out = {}
    for part, r in res.items():
        out[part.removeprefix("zoo-")] = {**r, "given_0.8": r["n80"], "right_at_0.8": r["p80"]}
    return out


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
