"""Read speed of the TensorBoard reader on a 1,000,000-point event file.

Writes (once, cached under /tmp) an event file with torch's SummaryWriter:
loss / lr / grad_norm / accuracy every step for 250,000 steps plus val_loss
every 1,000 steps (which breaks the record pattern 250 times), a NaN planted in
loss at step 225,000. Then times:
  ours            mltdbg.analyzers.readers.tensorboard.read
  EventAccumulator tensorboard's loader, size_guidance scalars=0 (keep all)
  protobuf loop   plain per-record Event.FromString over the TFRecord framing
and checks that ours found the NaN and every point.

Run: .venv/bin/python benchmarks/bench_tensorboard.py [--skip-slow]
"""
from __future__ import annotations

import math
import struct
import sys
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


def main() -> None:
    path = make_file()
    size = path.stat().st_size
    t_ours, run = time_ours(path)
    n_ours = sum(len(s) for s in run.series)
    loss = run.metric("loss")
    nan_steps = loss.steps[np.isnan(loss.values)].tolist()
    print(f"file: {path} ({size / 1e6:.1f} MB)")
    print(f"ours:             {t_ours:.3f} s  {n_ours:,} points  ({n_ours / t_ours / 1e6:.1f} M points/s)  NaN in loss at steps {nan_steps}")
    assert n_ours == STEPS * 4 + STEPS // 1000, n_ours
    assert nan_steps == [NAN_STEP], nan_steps
    if "--skip-slow" in sys.argv:
        return
    t_pb, n_pb = time_protobuf_loop(path)
    print(f"protobuf loop:    {t_pb:.3f} s  {n_pb:,} points")
    t_ea, n_ea = time_event_accumulator(path)
    print(f"EventAccumulator: {t_ea:.3f} s  {n_ea:,} points")


if __name__ == "__main__":
    main()
