"""End-to-end speed of `mltdbg diagnose` on big artifacts, and proof the read was complete.

    python benchmarks/bench_diagnose.py [--points 1000000] [--keep DIR]

1. A 1,000,000-line text log (metric lines with noise lines between), a NaN planted
   at 90 % of the file: time `mltdbg diagnose --json` as a subprocess (end to end,
   interpreter start included), and a naive `for line in f: re.search(...)` parse of
   the same fields.
2. A 1,000,000-point TensorBoard file written by torch's SummaryWriter, NaN planted
   at 90 %: time `mltdbg diagnose --json`, and TensorBoard's EventAccumulator with
   all scalars kept (size_guidance 0).
3. --many N (default 5,000): a folder of N small logs (20 lines each), one of them with a NaN:
   `mltdbg diagnose` end to end (target < 5 s) must return a hypothesis citing that file.
Each diagnosis must cite the planted NaN's step, or the benchmark fails.
(bench_textlog.py times the text styles against a naive parse; bench_tensorboard.py the event
reader against EventAccumulator; bench_tables.py CSV/JSONL/trainer_state.json.)
"""
from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_text_log(path: Path, n: int) -> int:
    rng = np.random.default_rng(0)
    steps = np.arange(1, n + 1)
    loss = 2.5 * np.exp(-steps / (n / 5)) + 0.3 + rng.normal(0, 0.02, n)
    gn = 1.0 + rng.normal(0, 0.05, n)
    bad = int(n * 0.9)
    loss[bad:] = np.nan
    lines = []
    for i in range(n):
        if i % 10 == 9:
            lines.append(f"2024-05-01 12:00:{i % 60:02d},123 INFO data: prefetching shard {i // 10}")
        else:
            lines.append(f"step={steps[i]} loss={loss[i]:.4f} grad_norm={gn[i]:.3f} lr=0.0003")
    path.write_text("\n".join(lines) + "\n")
    return int(steps[bad])


def write_tb(folder: Path, n: int) -> int:
    from torch.utils.tensorboard import SummaryWriter
    rng = np.random.default_rng(1)
    steps = np.arange(n)
    loss = 2.5 * np.exp(-steps / (n / 5)) + 0.3 + rng.normal(0, 0.02, n)
    bad = int(n * 0.9)
    loss[bad] = np.nan
    w = SummaryWriter(str(folder))
    for i in range(n):
        w.add_scalar("train/loss", float(loss[i]), int(steps[i]))
    w.close()
    return int(steps[bad])


def diagnose_cli(path: Path) -> tuple[float, dict]:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(path), "--json", "--engine", "offline"],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"diagnose failed: {r.stderr[-500:]}")
    return dt, json.loads(r.stdout)


def cites_step(d: dict, step: int) -> bool:
    return any(e.get("step") == step and e.get("value") in ("NaN", "nan") for h in d["root_causes"] for e in h["evidence"])


def naive_parse(path: Path) -> tuple[float, int]:
    rx = re.compile(r"step=(\d+) loss=(\S+) grad_norm=(\S+) lr=(\S+)")
    t0 = time.perf_counter()
    n = 0
    first_nan = None
    with open(path) as f:
        for line in f:
            m = rx.search(line)
            if m:
                n += 1
                if first_nan is None and math.isnan(float(m.group(2))):
                    first_nan = int(m.group(1))
    return time.perf_counter() - t0, n


def event_accumulator(folder: Path) -> tuple[float, int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    t0 = time.perf_counter()
    ea = EventAccumulator(str(folder), size_guidance={"scalars": 0})
    ea.Reload()
    n = sum(len(ea.Scalars(t)) for t in ea.Tags()["scalars"])
    return time.perf_counter() - t0, n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--keep", help="folder to keep the generated files in (reused when present)")
    ap.add_argument("--many", type=int, default=5000, help="small logs in the many-files folder")
    a = ap.parse_args()
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="mltdbg-bench-"))
    base.mkdir(parents=True, exist_ok=True)
    log = base / "text" / "train.log"
    tb = base / "tb"
    log.parent.mkdir(exist_ok=True)
    meta = base / "meta.json"
    m = json.loads(meta.read_text()) if meta.exists() else {}
    if m.get("points") != a.points:
        print(f"writing {a.points:,}-line text log and {a.points:,}-point TensorBoard file in {base} ...", flush=True)
        m = {"points": a.points, "text_nan": write_text_log(log, a.points)}
        for f in tb.glob("*"):
            f.unlink()
        m["tb_nan"] = write_tb(tb, a.points)
        meta.write_text(json.dumps(m))
    ok = True
    # Warm the OS cache so both contenders read from memory.
    log.read_bytes()
    dt, d = diagnose_cli(log.parent)
    good = cites_step(d, m["text_nan"])
    ok &= good
    nt, nn = naive_parse(log)
    print(f"text log  {log.stat().st_size/1e6:.0f} MB, {a.points:,} lines: mltdbg diagnose {dt:.2f} s end to end "
          f"(status {d['status']}, top {d['root_causes'][0]['id'] if d['root_causes'] else '-'}, "
          f"NaN at step {m['text_nan']} cited: {good}); naive per-line regex parse alone {nt:.2f} s ({nn:,} matches)")
    dt, d = diagnose_cli(tb)
    good = cites_step(d, m["tb_nan"])
    ok &= good
    et, en = event_accumulator(tb)
    size = sum(f.stat().st_size for f in tb.glob("*"))
    print(f"tensorboard {size/1e6:.0f} MB, {a.points:,} points: mltdbg diagnose {dt:.2f} s end to end "
          f"(status {d['status']}, NaN at step {m['tb_nan']} cited: {good}); EventAccumulator (all scalars) {et:.2f} s ({en:,} points)")
    many = base / f"many_{a.many}"
    bad_file = f"run_{(a.many * 7) // 8:05d}.log"
    if not (many / "DONE").exists():
        many.mkdir(exist_ok=True)
        for k in range(a.many):
            with open(many / f"run_{k:05d}.log", "w") as f:
                for s in range(20):
                    loss = "nan" if (f"run_{k:05d}.log", s) == (bad_file, 15) else f"{2.0 / (1 + s * 0.1):.4f}"
                    f.write(f"2024-05-01 12:00:{s:02d} INFO step={s} loss={loss} lr=0.001\n")
        (many / "DONE").write_text("ok")
    dt, d = diagnose_cli(many)
    good = any(e.get("source") == bad_file and e.get("step") == 15 and e.get("value") == "NaN"
               for h in d["root_causes"] for e in h["evidence"])
    ok &= good
    print(f"{a.many:,} small logs: mltdbg diagnose {dt:.2f} s end to end (target < 5 s), status {d['status']}, "
          f"top {d['root_causes'][0]['id'] if d['root_causes'] else '-'}; the NaN in {bad_file} cited: {good}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
