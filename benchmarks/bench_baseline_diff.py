"""A baseline whose code diff deletes a large text file (the case that ran past 120 s at 1.6 GB):
time and peak RSS of analyzers.baseline.compare on it, in a child process so RSS is its own.

Run: .venv/bin/python benchmarks/bench_baseline_diff.py [MB]   (default 190; the repo goes to a temp dir
and is deleted after). Measured 2026-12 on the 2-core dev box, 190 MB: see the report of the change
that added the diff bounds (MAX_DIFF_FILE_LINES, MAX_DIFF_BYTES in analyzers/baseline.py).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import resource, sys, time
from pathlib import Path
from mltdbg.analyzers.baseline import compare
from mltdbg.analyzers.model import Run
root = Path(sys.argv[1])
t = time.perf_counter()
run = Run(root=root)
sigs = compare(run, Run(root=root), repo_root=root)
dt = time.perf_counter() - t
print(f"compare: {dt:.2f} s, peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB, "
      f"signals {[s.kind for s in sigs]}, warnings {run.warnings}")
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def main(mb: int) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    try:
        repo = tmp / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        git(repo, "config", "user.email", "b@example.invalid")
        git(repo, "config", "user.name", "b")
        (repo / "train.py").write_text("import torch\nlr = 1e-3\nseed = 0\n")
        line = "0.123456,0.654321,1,some text label for the row\n"
        with open(repo / "data.txt", "w") as f:
            for _ in range(mb * 2**20 // len(line)):
                f.write(line)
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "good")
        (repo / "data.txt").unlink()
        (repo / "train.py").write_text("import torch\nlr = 1e-3\nseed = 1234\n")
        git(repo, "commit", "-qam", "bad: drop the data, change the seed")
        t = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", CHILD, str(repo)], capture_output=True, text=True, timeout=600)
        print(f"{mb} MB deleted: {p.stdout.strip() or p.stderr.strip()[-500:]} (wall {time.perf_counter() - t:.1f} s)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 190)
