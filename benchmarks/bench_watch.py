"""Cost of following one append with `mltdbg watch` (mltdbg.analyzers.follow) next to a log of
1e5 and of 1e7 existing lines: the cost should not depend on the file's size.

Run: .venv/bin/python benchmarks/bench_watch.py [--sizes 100000,10000000] [--appends 50]
Per size: the log is written, a Follower starts at its end, then `appends` times one line is
appended and one poll timed (median and max printed), then a NaN line: its finding is checked.
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from mltdbg.analyzers.follow import Follower


def _write(path: Path, n: int) -> None:
    block = 100_000
    with open(path, "w") as f:
        for a in range(0, n, block):
            f.write("".join(f"step {i} loss={2.0 / (1 + i * 1e-4):.5f} lr=0.001 grad_norm=1.25\n"
                            for i in range(a, min(n, a + block))))


def bench(n: int, appends: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        log = Path(d) / "train.log"
        t = time.perf_counter()
        _write(log, n)
        mb = log.stat().st_size / 2**20
        f = Follower([log], start_at_end=True)
        f.poll()
        costs = []
        for k in range(appends):
            with open(log, "a") as w:
                w.write(f"step {n + k} loss=0.5 lr=0.001 grad_norm=1.25\n")
            t = time.perf_counter()
            f.poll()
            costs.append(time.perf_counter() - t)
        with open(log, "a") as w:
            w.write(f"step {n + appends} loss=nan lr=0.001 grad_norm=1.25\n")
        t = time.perf_counter()
        out = f.poll()
        nan_s = time.perf_counter() - t
        assert [(x.kind, x.line) for x in out] == [("nonfinite", n + appends + 1)], out
        print(f"{n:>12,} lines ({mb:,.0f} MB): one append + poll median {statistics.median(costs) * 1e3:.2f} ms, "
              f"max {max(costs) * 1e3:.2f} ms; NaN line found in {nan_s * 1e3:.2f} ms at line {n + appends + 1:,}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100000,10000000")
    ap.add_argument("--appends", type=int, default=50)
    a = ap.parse_args()
    for n in map(int, a.sizes.split(",")):
        bench(n, a.appends)


if __name__ == "__main__":
    main()
