"""Time the log analyzers (tracebacks.py, log_findings.py, ranks.py) on a 1,000,000-line
training log with a few failures in it.

Prints seconds for extract_tracebacks + text_signals (and rank_lines on a
rank-tagged log), for two line styles. Run: .venv/bin/python benchmarks/bench_text.py
"""
from __future__ import annotations

import random
import time
from pathlib import Path

from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.config import extract_facts
from mltdbg.analyzers.log_findings import text_signals
from mltdbg.analyzers.ranks import rank_lines
from mltdbg.analyzers.tracebacks import extract_tracebacks

TAIL = """Traceback (most recent call last):
  File "train.py", line 88, in <module>
    loss.backward()
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.78 GiB total capacity; 13.1 GiB already allocated)
"""


def make(style: str, n: int = 1_000_000, nan_from: int | None = None) -> str:
    rnd = random.Random(0)
    if style == "kv":
        lines = [f"step {i} loss {rnd.random() * 3:.4f} lr 3.0e-04 grad_norm {rnd.random():.3f}" for i in range(n)]
    else:
        lines = [f"2024-03-01 12:{i % 60:02d}:{i % 60:02d},123 | INFO | trainer | {{'loss': {rnd.random() * 3:.4f}, "
                 f"'grad_norm': {rnd.random():.4f}, 'learning_rate': 2.9e-05, 'epoch': {i / 1e4:.2f}}}" for i in range(n)]
    if nan_from is not None:
        lines[nan_from - 1] = f"WARNING NaN detected in batch {nan_from}"
        for i in range(nan_from, n):
            lines[i] = f"step {i} loss nan lr 3.0e-04 grad_norm nan"
    lines[n // 2] = "/x/train.py:40: UserWarning: var(): degrees of freedom is <= 0. (Triggered internally)"
    return "\n".join(lines) + "\n" + TAIL


def bench(label: str, text: str) -> None:
    run = Run(root=Path("."))
    run.texts.append(TextArtifact("train.log", Path("train.log"), "log", text))
    t0, c0 = time.perf_counter(), time.process_time()
    extract_tracebacks(run)
    sigs = text_signals(run)
    dt, dc = time.perf_counter() - t0, time.process_time() - c0
    t1, c1 = time.perf_counter(), time.process_time()
    extract_facts(run)
    df, dfc = time.perf_counter() - t1, time.process_time() - c1
    # CPU seconds are printed too: on a shared machine wall time includes waiting for a core
    print(f"{label:36s} {len(text) / 1e6:6.1f} MB  text {dt:.3f} s (cpu {dc:.3f})  "
          f"facts {df:.3f} s (cpu {dfc:.3f})  signals={sorted(s.kind for s in sigs)}")


def main() -> None:
    bench("1M lines, short kv style", make("kv"))
    bench("1M lines, timestamped HF dict style", make("hf"))
    bench("1M lines, NaN from line 400k on", make("kv", nan_from=400_000))
    text = "\n".join(f"[rank{i % 4}]: step {i} loss 1.0" for i in range(1_000_000))
    art = TextArtifact("r.log", Path("r.log"), "log", text)
    art.line_starts
    t0, c0 = time.perf_counter(), time.process_time()
    r = rank_lines(art)
    print(f"{'rank_lines, 1M tagged lines':36s} {len(text) / 1e6:6.1f} MB  {time.perf_counter() - t0:.3f} s "
          f"(cpu {time.process_time() - c0:.3f})  ranks={sorted(r)}")


if __name__ == "__main__":
    main()
