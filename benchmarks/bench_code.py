"""Static code checks on one big Python file: parse once, every check and codemod shares it.

    .venv/bin/python benchmarks/bench_code.py [--lines 2500,20000,40000] [--runs 3]

Builds (deterministically) one file of about N lines from the test fixtures' training scripts
(tests/fixtures/code, bad and good ones, in order), then, per size, medians of --runs runs of:
  * ast.parse of the file alone (the floor: every check needs the tree);
  * code_signals(run) from a fresh start (parse + index + every check; target < 1 s at 20,000
    lines);
  * code_signals asked again for the same text (what each codemod does): served from the parse
    and the findings already made;
  * `mltdbg diagnose` end to end on a folder holding the file (checks, config facts, probe
    targets and the codemods that propose patches all read one parse).
Exit status 1 when a fresh run and a repeated one disagree (timings are printed, not asserted).
"""
from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FIX = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "code"


def build(lines: int) -> str:
    srcs = [p for p in sorted(FIX.rglob("*.py")) if p.name != "broken_syntax.py"]
    parts, n, i = [], 0, 0
    while n < lines:
        t = srcs[i % len(srcs)].read_text()
        parts.append(t)
        n += t.count("\n") + 1
        i += 1
    return "\n".join(parts)


def fresh():
    """Forget every parse and finding kept from earlier runs."""
    from mltdbg.analyzers import code as C  # noqa: PLC0415 - after sys.argv is read
    from mltdbg.analyzers.code import index, training_setup  # noqa: PLC0415
    index._TREES.clear()
    index._PYFILES.clear()
    C._FOUND.clear()
    training_setup._CODE_ONLY.clear()


def main() -> int:
    from mltdbg.analyzers.code import code_signals  # noqa: PLC0415 - keeps --help fast
    from mltdbg.analyzers.model import Run, TextArtifact  # noqa: PLC0415

    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", default="2500,20000,40000")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ok = True
    for n in (int(x) for x in a.lines.split(",")):
        text = build(n)
        d = Path(tempfile.mkdtemp(prefix="mltdbg-bench-code-"))
        (d / "train.py").write_text(text)

        def run_of():
            return Run(root=d, texts=[TextArtifact(path="train.py", abspath=d / "train.py", kind="code", text=text)])

        t_parse = statistics.median(_t(lambda: ast.parse(text)) for _ in range(a.runs))
        firsts, agains = [], []
        for _ in range(a.runs):
            fresh()
            t0 = time.perf_counter()
            s1 = code_signals(run_of())
            firsts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            s2 = code_signals(run_of())
            agains.append(time.perf_counter() - t0)
        same = [(s.kind, s.data["line"]) for s in s1] == [(s.kind, s.data["line"]) for s in s2]
        ok &= same
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(d), "--json", "--engine", "offline"],
                           capture_output=True, text=True)
        t_diag = time.perf_counter() - t0
        ok &= r.returncode == 0
        print(f"{text.count(chr(10)) + 1:>6,} lines ({len(text) / 1e6:.2f} MB): ast.parse alone {t_parse:.3f} s | "
              f"code_signals fresh {statistics.median(firsts):.3f} s (target < 1 s at 20,000 lines), asked again "
              f"{statistics.median(agains):.3f} s, {len(s1):,} signals, same both times: {same} | mltdbg diagnose "
              f"{t_diag:.2f} s end to end (exit {r.returncode})", flush=True)
    return 0 if ok else 1


def _t(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    sys.exit(main())
