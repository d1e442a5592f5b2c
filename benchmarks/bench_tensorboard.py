"""Read speed of the TensorBoard reader, merged event files, and a truncated tail.

1. A 1,000,000-point file (cached under /tmp): loss / lr / grad_norm / accuracy every step for
   250,000 steps plus val_loss every 1,000 steps, a NaN planted in loss at step 225,000; times
   ours (mltdbg.analyzers.readers.tensorboard.read), EventAccumulator (size_guidance scalars=0,
   keep all) and a plain per-record protobuf loop, and checks ours found the NaN and every point.
2. --steps N (default 1,000,000): a 1M-step, 3-tag file (train/loss, train/lr, train/grad_norm,
   NaN in loss at 90 %): `mltdbg diagnose --json` end to end (median of --runs) against
   EventAccumulator with all scalars kept, in the same run (target: >= 20x), and the NaN cited.
3. A restarted job: two event files in one folder (steps 0..60,000, then 50,000..100,000), a NaN
   at step 54,321 in the second: one merged series per tag, both sides of the restart kept,
   step_restart reported (evidence for resume_mismatch) and the NaN cited at 54,321.
4. The 1M-step file cut inside its last record: read up to the last whole record, no warning.

Run: .venv/bin/python benchmarks/bench_tensorboard.py [--skip-slow] [--steps N] [--runs 3]
Exit status 1 when a check fails (timings are printed, not asserted).
"""
from __future__ import annotations

import math
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

CACHE = Path("/tmp/mltdbg_bench_tb")
STEPS = 250_000
NAN_STEP = 225_000


def make_file() -> Path:
    done = CACHE / "DONE"
    if done.exists():
        return next(CACHE.glob("events.out.tfevents.*"))
    import shutil
    from torch.utils.tensorboard import SummaryWriter

    shutil.rmtree(CACHE, ignore_errors=True)
    w = SummaryWriter(str(CACHE), max_queue=10000, flush_secs=600)
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.01, STEPS)
    t = time.perf_counter()
    for s in range(STEPS):
        loss = 2.0 * math.exp(-s / 50_000) + 0.1 + noise[s]
        w.add_scalar("train/loss", float("nan") if s == NAN_STEP else loss, s)
        w.add_scalar("train/lr", 3e-4, s)
        w.add_scalar("train/grad_norm", 1.0 + noise[s], s)
        w.add_scalar("train/accuracy", 0.5, s)
        if s % 1000 == 0:
            w.add_scalar("val/loss", loss + 0.05, s)
    w.close()
    done.write_text("ok")
    print(f"wrote {STEPS * 4 + STEPS // 1000} points in {time.perf_counter() - t:.1f} s")
    return next(CACHE.glob("events.out.tfevents.*"))


def time_ours(path: Path):
    from mltdbg.analyzers.model import Run
    from mltdbg.analyzers.readers import tensorboard

    best = float("inf")
    for _ in range(3):
        run = Run(root=path.parent)
        t = time.perf_counter()
        tensorboard.read(path, path.name, run)
        best = min(best, time.perf_counter() - t)
    return best, run


def time_event_accumulator(path: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    t = time.perf_counter()
    ea = EventAccumulator(str(path), size_guidance={"scalars": 0})
    ea.Reload()
    n = sum(len(ea.Scalars(tag)) for tag in ea.Tags()["scalars"])
    return time.perf_counter() - t, n


def time_protobuf_loop(path: Path):
    from tensorboard.compat.proto.event_pb2 import Event

    t = time.perf_counter()
    buf = path.read_bytes()
    p, n = 0, 0
    while p + 12 <= len(buf):
        (length,) = struct.unpack_from("<Q", buf, p)
        ev = Event.FromString(buf[p + 12:p + 12 + length])
        for v in ev.summary.value:
            if v.HasField("simple_value"):
                n += 1
        p += length + 16
    return time.perf_counter() - t, n


CACHE3 = Path("/tmp/mltdbg_bench_tb3")
CACHE_RESTART = Path("/tmp/mltdbg_bench_tb_restart")


def make_three_tags(steps: int) -> tuple[Path, int]:
    """One event file, `steps` steps of train/loss, train/lr, train/grad_norm; NaN in loss at 90 %."""
    folder = CACHE3 / str(steps)
    bad = int(steps * 0.9)
    if (folder / "DONE").exists():
        return folder, bad
    import shutil
    from torch.utils.tensorboard import SummaryWriter

    shutil.rmtree(folder, ignore_errors=True)
    w = SummaryWriter(str(folder), max_queue=100_000, flush_secs=600)
    t = time.perf_counter()
    for s in range(steps):
        w.add_scalar("train/loss", float("nan") if s == bad else 2.0 * math.exp(-s / (steps / 5)) + 0.1, s)
        w.add_scalar("train/lr", 3e-4, s)
        w.add_scalar("train/grad_norm", 1.0 + 0.01 * (s % 7), s)
    w.close()
    (folder / "DONE").write_text("ok")
    print(f"wrote {steps:,} steps x 3 tags in {time.perf_counter() - t:.0f} s", flush=True)
    return folder, bad


def make_restart() -> Path:
    """Two event files in one folder: a job that ran to step 60,000, restarted from 50,000."""
    if (CACHE_RESTART / "DONE").exists():
        return CACHE_RESTART
    import shutil
    from torch.utils.tensorboard import SummaryWriter

    shutil.rmtree(CACHE_RESTART, ignore_errors=True)
    for part, (a, b) in enumerate(((0, 60_000), (50_000, 100_000))):
        w = SummaryWriter(str(CACHE_RESTART), max_queue=100_000, flush_secs=600, filename_suffix=f".{part}")
        for s in range(a, b):
            v = float("nan") if (part, s) == (1, 54_321) else 2.0 * math.exp(-s / 30_000) + 0.1 + 0.02 * part
            w.add_scalar("train/loss", v, s)
        w.close()
        time.sleep(1.1)        # the second file's name and first wall time come later
    (CACHE_RESTART / "DONE").write_text("ok")
    return CACHE_RESTART


def diagnose_json(folder: Path) -> tuple[float, dict]:
    import json
    import subprocess
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(folder), "--json", "--engine", "offline"],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"diagnose failed on {folder}: {r.stderr[-500:]}")
    return dt, json.loads(r.stdout)


def cited(d: dict, step: int) -> bool:
    return any(e.get("step") == step and e.get("value") == "NaN" for h in d["root_causes"] for e in h["evidence"])


def main() -> int:
    import argparse
    import shutil
    import statistics
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-slow", action="store_true", help="no EventAccumulator / protobuf loop timings")
    ap.add_argument("--steps", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ok = True
    # 1. the reader alone on the 1M-point, 5-tag file
    path = make_file()
    size = path.stat().st_size
    t_ours, run = time_ours(path)
    n_ours = sum(len(s) for s in run.series)
    loss = run.metric("loss")
    nan_steps = loss.steps[np.isnan(loss.values)].tolist()
    print(f"file: {path} ({size / 1e6:.1f} MB)")
    print(f"ours:             {t_ours:.3f} s  {n_ours:,} points  ({n_ours / t_ours / 1e6:.1f} M points/s)  NaN in loss at steps {nan_steps}")
    ok &= n_ours == STEPS * 4 + STEPS // 1000 and nan_steps == [NAN_STEP]
    if not a.skip_slow:
        t_pb, n_pb = time_protobuf_loop(path)
        print(f"protobuf loop:    {t_pb:.3f} s  {n_pb:,} points")
        t_ea, n_ea = time_event_accumulator(path)
        print(f"EventAccumulator: {t_ea:.3f} s  {n_ea:,} points")
    # 2. 1M steps x 3 tags, end to end vs EventAccumulator
    folder, bad = make_three_tags(a.steps)
    times = []
    for _ in range(a.runs):
        dt, d = diagnose_json(folder)
        times.append(dt)
    good = cited(d, bad)
    ok &= good
    med = statistics.median(times)
    line = (f"{a.steps:,} steps x 3 tags: mltdbg diagnose {med:.2f} s end to end (median of {a.runs}: "
            f"{', '.join(f'{t:.2f}' for t in times)}), NaN at step {bad:,} cited: {good}")
    if not a.skip_slow:
        t_ea, n_ea = time_event_accumulator(next(folder.glob("events.out.tfevents.*")))
        line += f"; EventAccumulator (all scalars) {t_ea:.1f} s for {n_ea:,} points: {t_ea / med:.0f}x (target >= 20x)"
    print(line, flush=True)
    # 3. a restarted job: two event files, one series
    rs = make_restart()
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    run = ingest([rs])
    losses = [s for s in run.series if s.name == "loss"]
    sigs = {x.kind: x for x in analyze(run)}
    dt, d = diagnose_json(rs)
    merged = len(losses) == 1 and len(losses[0]) == 110_000
    restart = "step_restart" in sigs and sigs["step_restart"].data.get("step") == 50_000
    good = cited(d, 54_321)
    ok &= merged and restart and good
    print(f"restart (2 event files): one merged loss series of {len(losses[0]) if losses else 0:,} points: {merged}; "
          f"step_restart at 50,000: {restart}; NaN at step 54,321 (second file) cited: {good} ({dt:.2f} s)")
    # 4. a truncated tail
    f = next(folder.glob("events.out.tfevents.*"))
    cut = Path(tempfile.mkdtemp(prefix="mltdbg-tb-cut-")) / f.name
    shutil.copyfile(f, cut)
    with open(cut, "r+b") as g:
        g.truncate(cut.stat().st_size - 7)
    from mltdbg.analyzers.model import Run
    from mltdbg.analyzers.readers import tensorboard
    r = Run(root=cut.parent)
    tensorboard.read(cut, cut.name, r)
    n_cut = sum(len(s) for s in r.series)
    good = not r.warnings and n_cut == 3 * a.steps - 1
    ok &= good
    print(f"truncated tail (last 7 bytes cut): {n_cut:,} of {3 * a.steps:,} points read, warnings {r.warnings}: {good}")
    shutil.rmtree(cut.parent, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
