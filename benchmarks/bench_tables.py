"""Metric tables at scale: the tabular reader against pandas, pyarrow and polars, in one run.

    .venv/bin/python benchmarks/bench_tables.py [--rows 1000000] [--json-rows 200000] [--runs 5]
                                               [--keep DIR]

Writes (deterministically) a CSV and a JSONL of --rows rows (step, loss, lr, grad_norm, and a
val_loss every 1,000 rows, blank elsewhere) and an HF trainer_state.json of --json-rows
log_history entries (indent=2, as the Trainer writes it), a NaN loss planted at 90 % of each.
Then, per file, the median of --runs runs of each contender below, after one untimed run of
each (imports, first page faults), the contenders' runs interleaved (one of each per round) so
that a load change on a shared machine falls on all of them alike:
  * mltdbg: `ingest([file])` (sniff + read: every Series, line numbers included);
  * pandas (read_csv / read_json(lines=True) / DataFrame(json.load(f)["log_history"])),
    pyarrow (csv.read_csv / json.read_json / json.read_json + flatten),
    polars (read_csv / read_ndjson / read_json + explode + unnest), when installed (polars
    cannot read a NaN in JSON: it says so instead of a time);
and prints the ratio to the fastest (target <= 1.5). The planted NaN must come back at its
step and line, and `mltdbg diagnose --json` on each file must cite it, or the file FAILS
(exit status 1). Timing targets are printed, not asserted (the machine may be shared).
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

NAN_AT = 0.9


def _loss(n: int) -> np.ndarray:
    i = np.arange(n)
    return 2.5 * np.exp(-i / (n / 5)) + 0.3 + 0.02 * np.sin(i * 0.7)


def write_csv(path: Path, n: int) -> dict:
    loss, bad = _loss(n), int(n * NAN_AT)
    with open(path, "w") as f:
        f.write("step,loss,lr,grad_norm,val_loss\n")
        for i in range(n):
            lv = "nan" if i == bad else f"{loss[i]:.5f}"
            vv = f"{loss[i] + 0.05:.5f}" if i % 1000 == 999 else ""
            f.write(f"{i},{lv},0.0003,{1 + 0.01 * (i % 7):.4f},{vv}\n")
    return {"step": bad, "line": bad + 2}


def write_jsonl(path: Path, n: int) -> dict:
    loss, bad = _loss(n), int(n * NAN_AT)
    with open(path, "w") as f:
        for i in range(n):
            d = {"step": i, "loss": float("nan") if i == bad else round(float(loss[i]), 5), "lr": 0.0003,
                 "grad_norm": round(1 + 0.01 * (i % 7), 4)}
            if i % 1000 == 999:
                d["val_loss"] = round(float(loss[i]) + 0.05, 5)
            f.write(json.dumps(d) + "\n")
    return {"step": bad, "line": bad + 1}


def write_trainer_state(path: Path, n: int) -> dict:
    loss, bad = _loss(n), int(n * NAN_AT)
    hist = []
    for i in range(n):
        hist.append({"epoch": round(i / (n / 3), 4), "grad_norm": round(1 + 0.01 * (i % 7), 4),
                     "learning_rate": 5e-05, "loss": float("nan") if i == bad else round(float(loss[i]), 4),
                     "step": i + 1})
        if i % 10000 == 9999:
            hist.append({"epoch": round(i / (n / 3), 4), "eval_loss": round(float(loss[i]) + 0.05, 4),
                         "eval_runtime": 1.2, "step": i + 1})
    hist.append({"epoch": 3.0, "step": n, "total_flos": 1e15, "train_loss": 0.5, "train_runtime": 100.0})
    with open(path, "w") as f:
        json.dump({"best_metric": None, "epoch": 3.0, "global_step": n, "log_history": hist, "max_steps": n},
                  f, indent=2)
    # the list's first element starts on line 6; a train entry spans 7 lines (indent=2, 5 keys), an eval one 6
    line = 6 + 7 * bad + 6 * (bad // 10000)
    return {"step": bad + 1, "line": line}


def baselines(kind: str, path: Path) -> dict:
    """name -> zero-argument reader of the same file (those whose library is installed)."""
    out = {}
    try:
        import pandas as pd  # noqa: PLC0415 - each library is optional here
        if kind == "csv":
            out["pandas"] = lambda: pd.read_csv(path)
        elif kind == "jsonl":
            out["pandas"] = lambda: pd.read_json(path, lines=True)
        else:
            out["pandas"] = lambda: pd.DataFrame(json.loads(path.read_bytes())["log_history"])
    except ImportError:
        pass
    try:
        import pyarrow.csv as pc  # noqa: PLC0415
        import pyarrow.json as pj  # noqa: PLC0415
        if kind == "csv":
            out["pyarrow"] = lambda: pc.read_csv(path)
        elif kind == "jsonl":
            out["pyarrow"] = lambda: pj.read_json(path)
        else:
            out["pyarrow"] = lambda: pj.read_json(path, read_options=pj.ReadOptions(block_size=1 << 28)) \
                .column("log_history").combine_chunks().flatten().flatten()
    except ImportError:
        pass
    try:
        import polars as pl  # noqa: PLC0415
        if kind == "csv":
            out["polars"] = lambda: pl.read_csv(path)
        elif kind == "jsonl":
            out["polars"] = lambda: pl.read_ndjson(path)
        else:
            out["polars"] = lambda: pl.read_json(path).select("log_history").explode("log_history") \
                .unnest("log_history")
    except ImportError:
        pass
    return out


def timed_together(fns: dict, runs: int) -> tuple[dict, dict]:
    """name -> median seconds of `runs` timed calls, and name -> the last result (or the exception
    that stopped it). Round 0 calls each once untimed; then round after round, one call of each."""
    times: dict = {k: [] for k in fns}
    last: dict = {}
    live = list(fns)
    for r in range(runs + 1):
        for k in list(live):
            t = time.perf_counter()
            try:
                last[k] = fns[k]()
            except Exception as e:  # noqa: BLE001 - a contender that cannot read the file is reported, not timed
                last[k] = e
                live.remove(k)
                times[k] = []
                continue
            if r:
                times[k].append(time.perf_counter() - t)
    return {k: statistics.median(v) for k, v in times.items() if v}, last


def diagnose_cites(folder: Path, meta: dict) -> tuple[float, bool]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(folder), "--json", "--engine", "offline"],
                       capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        return dt, False
    d = json.loads(r.stdout)
    return dt, any(e.get("step") == meta["step"] and e.get("value") == "NaN"
                   for h in d["root_causes"] for e in h["evidence"])


def main() -> int:
    from mltdbg.analyzers.ingest import ingest  # noqa: PLC0415 - after argparse: --help stays fast

    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--json-rows", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--keep", help="folder for the generated files (reused when present)")
    a = ap.parse_args()
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="mltdbg-bench-tables-"))
    files = [("csv", f"csv_{a.rows}", "metrics.csv", write_csv, a.rows),
             ("jsonl", f"jsonl_{a.rows}", "metrics.jsonl", write_jsonl, a.rows),
             ("trainer_state", f"hf_{a.json_rows}", "trainer_state.json", write_trainer_state, a.json_rows)]
    ok = True
    print(f"files in {base}; medians of {a.runs} runs; ratio target <= 1.5", flush=True)
    for kind, folder, name, writer, n in files:
        d = base / folder
        d.mkdir(parents=True, exist_ok=True)
        path, meta_f = d / name, d / "meta.json"
        if not meta_f.exists():
            meta_f.write_text(json.dumps(writer(path, n)))
        meta = json.loads(meta_f.read_text())
        path.read_bytes()      # page cache, for everyone
        fns = {"mltdbg": lambda: ingest([path]), **baselines(kind, path)}
        med, last = timed_together(fns, a.runs)
        if "mltdbg" not in med:
            raise SystemExit(f"{kind}: mltdbg's ingest failed: {type(last['mltdbg']).__name__}: {last['mltdbg']}")
        ours, run = med["mltdbg"], last["mltdbg"]
        res = {lib: med[lib] if lib in med else f"cannot read it ({type(last[lib]).__name__})"
               for lib in fns if lib != "mltdbg"}
        nums = {k: v for k, v in res.items() if isinstance(v, float)}
        best = min(nums, key=nums.get) if nums else None
        loss = next((s for s in run.series if s.name == "loss"), None)
        found = loss is not None and any(int(s) == meta["step"] and int(ln) == meta["line"]
                                         for s, ln in zip(loss.steps[np.isnan(loss.values)],
                                                          loss.locs[np.isnan(loss.values)]))
        dt, cited = diagnose_cites(d, meta)
        ok &= found and cited
        libs = ", ".join(f"{k} {v:.3f} s" if isinstance(v, float) else f"{k} {v}" for k, v in res.items())
        ratio = f"{ours / nums[best]:.2f}x the fastest ({best})" if best else "no library to compare"
        print(f"{kind:13s} {n:>9,} rows {path.stat().st_size / 1e6:6.0f} MB | mltdbg ingest {ours:.3f} s | {libs} | "
              f"{ratio} | NaN at step {meta['step']} line {meta['line']}: read {found}, cited by diagnose {cited} "
              f"(diagnose end to end {dt:.2f} s)", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
