"""Speed of the static code checks and of the baseline curve comparison. Prints numbers; asserts nothing.

    .venv/bin/python benchmarks/code_checks.py
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from mltdbg.analyzers.baseline import compare
from mltdbg.analyzers.code import code_signals
from mltdbg.analyzers.model import Run, Series, TextArtifact

FIX = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "code"


def code_project(copies: int) -> Run:
    """Every fixture script, `copies` times over (as distinct files): a large training repo."""
    run = Run(root=FIX)
    srcs = [p for p in sorted(FIX.rglob("*.py")) if p.name != "broken_syntax.py"]
    for i in range(copies):
        for p in srcs:
            run.texts.append(TextArtifact(path=f"copy{i}/{p.parent.name}/{p.name}", abspath=p, kind="code",
                                          text=p.read_text()))
    return run


def main() -> None:
    for copies in (1, 10, 40):
        run = code_project(copies)
        size = sum(len(t.text) for t in run.texts)
        t0 = time.perf_counter()
        sigs = code_signals(run)
        dt = time.perf_counter() - t0
        print(f"code_signals: {len(run.texts):5d} files, {size / 1e6:6.2f} MB -> {len(sigs):5d} signals in"
              f" {dt:6.3f} s ({size / 1e6 / dt:5.2f} MB/s)")
    one = code_project(1)
    big = "\n".join(t.text for t in one.texts if "/good/" in t.path)
    big = "\n\n".join([big] * 40)
    run = Run(root=FIX, texts=[TextArtifact(path="big.py", abspath=FIX / "big.py", kind="code", text=big)])
    t0 = time.perf_counter()
    code_signals(run)
    dt = time.perf_counter() - t0
    print(f"code_signals: one file of {big.count(chr(10)) + 1} lines ({len(big) / 1e6:.2f} MB) in {dt:.3f} s")

    n = 1_000_000
    steps = np.arange(n, dtype=np.int64)
    rng = np.random.default_rng(0)
    base_v = np.exp(-steps / 3e5) + rng.normal(0, 0.01, n)
    def s(v):
        return Series("val_loss", "val_loss", steps, v, "m.csv", steps + 2)
    base, cur = Run(root=FIX, series=[s(base_v)]), Run(root=FIX, series=[s(base_v * 1.2)])
    t0 = time.perf_counter()
    sigs = compare(cur, base)
    dt = time.perf_counter() - t0
    print(f"baseline.compare: two val_loss curves of {n:,} points aligned in {dt:.3f} s -> {[x.summary for x in sigs]}")


if __name__ == "__main__":
    main()
