"""Text logs at scale: `mltdbg diagnose` end to end against a naive per-line parse, per style.

    .venv/bin/python benchmarks/bench_textlog.py [--lines 1000000] [--styles default,logging,...]
                                                [--runs 3] [--keep DIR] [--big 10000000]

For each print style (the generator default `step=N loss=...`, Python logging + key=value,
HF Trainer dict lines after tqdm bars, tqdm bars with a postfix (`\\r` redraws), Keras epochs
with `\\r` progress bars, and a mixed file of logging, HF dicts and tqdm) it writes a log of
--lines lines (deterministic; a NaN loss planted at 90 %), then times, in the same run:
  * `mltdbg diagnose DIR --json` as a subprocess (interpreter start included), under
    /usr/bin/time -v for its peak RSS (its largest process), and the peak of all its processes
    together (the scan's forked workers too), sampled every 50 ms from /proc;
  * a naive reader: `for line in f:` (universal newlines, so tqdm's `\\r` redraws are lines too)
    with one `re.search` per field per line and float() of each value, the file in the page cache.
Medians of --runs runs; ratio = diagnose / naive (the target is <= 0.75). Each diagnosis must
cite the planted NaN (its step, value "NaN", the right line) or the style FAILS; for the mixed
file it must also cite the last finite loss of the same print style (not another epoch's), and
no metric named "training" may come out of tqdm's description.

--big N also times the default and mixed styles at N lines (target: < 10 s, < 1.5 GB RSS).
Exit status 1 when any check fails (the timing targets are printed, not asserted: the
machine may be shared).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path


STYLES = ("default", "logging", "hf", "tqdm", "keras", "mixed")
NAN_AT = 0.9          # where the NaN is planted (share of the file)


# ---------------------------------------------------------------- writers
# Each writer returns {"nan_line": 1-based line of the planted NaN, "nan_step": its step}.

def _loss(i: int, n: int) -> float:
    return 2.5 * math.exp(-i / (n / 5)) + 0.3 + 0.02 * math.sin(i * 0.7)


def write_default(path: Path, n: int) -> dict:
    """bench_diagnose's generator: `step=N loss=X grad_norm=Y lr=Z`, a noise line every 10th."""
    bad = int(n * NAN_AT)
    meta = {}
    with open(path, "w") as f:
        for i in range(n):
            if i % 10 == 9:
                f.write(f"2024-05-01 12:00:{i % 60:02d},123 INFO data: prefetching shard {i // 10}\n")
                continue
            loss = "nan" if i >= bad and "nan_line" not in meta else f"{_loss(i, n):.4f}"
            if loss == "nan":
                meta = {"nan_line": i + 1, "nan_step": i + 1}
            f.write(f"step={i + 1} loss={loss} grad_norm={1 + 0.05 * math.cos(i):.3f} lr=0.0003\n")
    return meta


def write_logging(path: Path, n: int) -> dict:
    """Python logging prefixes + key=value (70 % train lines, 10 % eval dicts, 20 % noise)."""
    bad = int(n * NAN_AT)
    meta = {}
    noise = ["{ts} - INFO - data - loaded shard /data/shard_{i}.bin from 10.0.0.7 (pid 4242, torch 2.1.0)",
             "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 97)"]
    step = 0
    with open(path, "w") as f:
        for i in range(1, n + 1):
            r = i % 10
            ts = f"2024-05-01 12:{step // 60000 % 60:02d}:{step // 1000 % 60:02d},{step % 1000:03d}"
            if r < 7:
                if i >= bad and not meta:
                    loss, meta = "nan", {"nan_line": i, "nan_step": step}
                else:
                    loss = f"{_loss(step, n):.4f}"
                f.write(f"{ts} - INFO - trainer - step {step} | loss={loss} | lr=1.0e-04 | grad_norm={1 + (i % 7) * 0.1:.3f}\n")
                step += 1
            elif r == 7:
                f.write(f"{ts} - INFO - trainer - {{'eval_loss': {2.1 / (1 + step * 1e-5):.4f}, 'eval_accuracy': 0.5, "
                        f"'epoch': {step / 1e5:.2f}}}\n")
            else:
                f.write(noise[r - 8].format(ts=ts, i=i) + "\n")
    return meta


def _bar(k: int, total: int, width: int = 10) -> str:
    filled = k * width // total
    return "\u2588" * filled + " " * (width - filled)


def write_hf(path: Path, n: int) -> dict:
    """HF Trainer: a tqdm bar redrawn with \\r, the dict printed after it every logging step."""
    bad = int(n * NAN_AT)
    total = n
    meta = {}
    with open(path, "w") as f:
        for i in range(1, n + 1):
            pct = i * 100 // total
            bar = f"\r{pct:3d}%|{_bar(i, total)}| {i}/{total} [00:{i % 60:02d}<01:10, 12.31it/s]"
            if i >= bad and not meta:
                loss, meta = "nan", {"nan_line": i, "nan_step": i}
            else:
                loss = f"{_loss(i, n):.4f}"
            f.write(bar + f"{{'loss': {loss}, 'grad_norm': {1 + (i % 5) * 0.1:.4f}, "
                          f"'learning_rate': {5e-5 * (1 - i / n):.4e}, 'epoch': {i / (n / 3):.2f}}}\n")
    return meta


def write_tqdm(path: Path, n: int, per_epoch: int = 1000) -> dict:
    """tqdm bars with a postfix, one \\r redraw per batch, a newline at each epoch's end; the
    counter restarts every epoch (the reader maps it to global steps)."""
    bad = int(n * NAN_AT)
    meta = {}
    line = 1
    with open(path, "w") as f:
        for i in range(n):
            ep, k = divmod(i, per_epoch)
            if i >= bad and not meta:
                loss, meta = "nan", {"nan_line": line, "nan_step": ep * per_epoch + k + 1}
            else:
                loss = f"{_loss(i, n):.3f}"
            f.write(f"\rEpoch {ep}: {(k + 1) * 100 // per_epoch:3d}%|{_bar(k + 1, per_epoch)}| {k + 1}/{per_epoch} "
                    f"[00:{k % 60:02d}<00:12, 45.0it/s, loss={loss}, acc=0.{(i * 7) % 100:02d}]")
            if k == per_epoch - 1:
                f.write("\n")
                line += 1
    return meta


def write_keras(path: Path, n: int, per_epoch: int = 1875) -> dict:
    """Keras fit(verbose=1) captured from a terminal: `Epoch e/E`, \\r progress bars, the epoch's
    last bar with val_ metrics and a newline."""
    bad = int(n * NAN_AT)
    epochs = max(1, n // per_epoch)
    meta = {}
    line = 1
    i = 0
    with open(path, "w") as f:
        for e in range(1, epochs + 1):
            f.write(f"Epoch {e}/{epochs}\n")
            line += 1
            for k in range(1, per_epoch + 1):
                if i >= bad and not meta:
                    loss, meta = "nan", {"nan_line": line, "nan_step": (e - 1) * per_epoch + k}
                else:
                    loss = f"{_loss(i, n):.4f}"
                bar = "=" * (k * 30 // per_epoch)
                if k < per_epoch:
                    f.write(f"\r{k:4d}/{per_epoch} [{bar:<30}] - ETA: 5s - loss: {loss} - accuracy: 0.{(i * 7) % 10000:04d}")
                else:
                    f.write(f"\r{k:4d}/{per_epoch} [{bar}] - 5s 3ms/step - loss: {loss} - accuracy: 0.9139"
                            f" - val_loss: {_loss(i, n) + 0.05:.4f} - val_accuracy: 0.9567\n")
                    line += 1
                i += 1
    return meta


def write_mixed(path: Path, n: int, per_epoch: int = 1000) -> dict:
    """tqdm bars ("Training:", a per-epoch counter, postfix loss) with logging + key=value lines
    every 10 steps and HF-style dicts every 50, each printed the way tqdm.write does (the bar
    cleared with \r first). One NaN is planted at the same step in all three styles; each
    style's citation (NaN step, line, the last finite value before it in that style) is in meta."""
    bad = (int(n * NAN_AT) // 50) * 50 + 49       # step bad + 1 is a multiple of 50: all three print it
    line = 1
    meta = {"styles": []}
    last = {}
    with open(path, "w") as f:
        for i in range(n):
            ep, k = divmod(i, per_epoch)
            step = i + 1
            nan = i == bad
            v = "nan" if nan else f"{_loss(i, n) + 0.01:.3f}"
            if nan:
                meta["styles"].append({"style": "tqdm", "nan_step": step, "nan_line": line,
                                       "prev_step": step - 1, "prev_value": last["tqdm"]})
            last["tqdm"] = None if nan else float(v)
            f.write(f"\rTraining: {(k + 1) * 100 // per_epoch:3d}%|{_bar(k + 1, per_epoch)}| {k + 1}/{per_epoch} "
                    f"[00:{k % 60:02d}<00:12, 45.0it/s, loss={v}]")
            if step % 10 == 0:
                v = "nan" if nan else f"{_loss(i, n):.4f}"
                if nan:
                    meta["styles"].append({"style": "logging", "nan_step": step, "nan_line": line,
                                           "prev_step": step - 10, "prev_value": last["logging"]})
                last["logging"] = None if nan else float(v)
                f.write(f"\r2024-05-01 12:00:{step % 60:02d},123 - INFO - trainer - step {step} | loss={v} | "
                        f"lr=1.0e-04 | grad_norm={1 + (i % 7) * 0.1:.3f}\n")
                line += 1
            if step % 50 == 0:
                v = "nan" if nan else f"{_loss(i, n) - 0.01:.4f}"
                if nan:
                    meta["styles"].append({"style": "hf", "nan_step": step, "nan_line": line,
                                           "prev_step": step - 50, "prev_value": last["hf"]})
                last["hf"] = None if nan else float(v)
                f.write(f"\r{{'loss': {v}, 'grad_norm': 1.1, 'learning_rate': 5e-05, "
                        f"'epoch': {step / per_epoch:.2f}}}\n")
                line += 1
            if k == per_epoch - 1:
                f.write("\n")
                line += 1
    return meta


WRITERS = {"default": write_default, "logging": write_logging, "hf": write_hf, "tqdm": write_tqdm,
           "keras": write_keras, "mixed": write_mixed}
# The fields each style prints (what the naive reader searches for, one regex each).
FIELDS = {"default": ("loss", "grad_norm", "lr"), "logging": ("loss", "lr", "grad_norm", "eval_loss"),
          "hf": ("loss", "grad_norm", "learning_rate", "epoch"), "tqdm": ("loss", "acc"),
          "keras": ("loss", "accuracy", "val_loss", "val_accuracy"), "mixed": ("loss", "lr", "grad_norm")}
_STEP = re.compile(r"\b[Ss]tep[ =](\d+)|(\d+)/(\d+)")


def naive(path: Path, fields: tuple[str, ...]) -> int:
    """One re.search per field per line (and one for the step), float() of each value."""
    pats = [re.compile(r"['\"]?\b" + k + r"['\"]?\s*[:=]\s*([-+0-9.eEnaNinf]+)") for k in fields]
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = _STEP.search(line)
            step = int(m.group(1) or m.group(2)) if m else None  # noqa: F841 - parsed like a reader would
            for p in pats:
                m = p.search(line)
                if m:
                    try:
                        float(m.group(1))
                        n += 1
                    except ValueError:
                        pass
    return n


# ---------------------------------------------------------------- timing

def _tree_rss_kb(root: int) -> int:
    """Resident KB of process `root` and all its descendants now (Linux /proc; 0 elsewhere)."""
    parent, rss = {}, {}
    for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/status") as f:
                st = f.read()
        except OSError:
            continue
        pp = re.search(r"^PPid:\s+(\d+)", st, re.M)
        kb = re.search(r"^VmRSS:\s+(\d+) kB", st, re.M)
        parent[int(d)] = int(pp.group(1)) if pp else 0
        rss[int(d)] = int(kb.group(1)) if kb else 0
    tree, grew = {root}, True
    while grew:
        new = {p for p, pp in parent.items() if pp in tree} - tree
        tree |= new
        grew = bool(new)
    return sum(rss.get(p, 0) for p in tree)


def diagnose_timed(folder: Path) -> tuple[float, int, dict, int]:
    """(wall seconds, peak RSS in KB of the largest process, the diagnosis, peak KB of all its
    processes together: the scan's forked workers too, sampled every 50 ms) of `mltdbg diagnose
    folder --json`."""
    cmd = ["/usr/bin/time", "-v", sys.executable, "-m", "mltdbg.app.cli", "diagnose", str(folder), "--json",
           "--engine", "offline"]
    t0 = time.perf_counter()
    peak = 0
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        out: list = []
        reader = threading.Thread(target=lambda: out.append(p.communicate()))
        reader.start()
        while reader.is_alive():
            peak = max(peak, _tree_rss_kb(p.pid))
            reader.join(0.05)
    dt = time.perf_counter() - t0
    stdout, stderr = out[0]
    if p.returncode != 0:
        raise SystemExit(f"diagnose failed on {folder}: {stderr[-800:]}")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return dt, int(m.group(1)) if m else -1, json.loads(stdout), peak


def evidence(d: dict) -> list[dict]:
    return [e for h in d["root_causes"] for e in h["evidence"]]


def check(style: str, d: dict, meta: dict) -> list[str]:
    """What the diagnosis got wrong about the planted NaN (empty: nothing)."""
    ev = evidence(d)
    nan = [e for e in ev if e.get("value") == "NaN" and e.get("metric") == "loss"]
    bad = []
    if style != "mixed":
        if not any(e.get("step") == meta["nan_step"] and e.get("line") == meta["nan_line"] for e in nan):
            bad.append(f"NaN at step {meta['nan_step']} line {meta['nan_line']} not cited "
                       f"(cited: {[(e.get('step'), e.get('line')) for e in nan][:3]})")
        return bad
    # mixed: the citation of one style, and the last finite value before it from the same style
    prev = [e for e in ev if e.get("text", "").startswith("last finite loss")]
    hit = [m for m in meta["styles"] if any(e.get("step") == m["nan_step"] and e.get("line") == m["nan_line"]
                                            for e in nan)]
    if not hit:
        bad.append(f"NaN not cited at any style's step/line {[(m['nan_step'], m['nan_line']) for m in meta['styles']]} "
                   f"(cited: {[(e.get('step'), e.get('line')) for e in nan][:3]})")
    elif not any(e.get("step") == m["prev_step"] and isinstance(e.get("value"), (int, float))
                 and abs(e["value"] - m["prev_value"]) < 1e-3 for m in hit for e in prev):
        bad.append(f"the last finite loss before the NaN is not the same style's (want "
                   f"{[(m['prev_step'], m['prev_value']) for m in hit]}, cited {[(e.get('step'), e.get('value')) for e in prev][:3]})")
    if any(e.get("metric") == "training" for e in ev):
        bad.append("tqdm's description read as a metric 'training'")
    return bad


def median_of(fn, runs: int):
    out = [fn() for _ in range(runs)]
    return statistics.median(x[0] for x in out), out


def bench_style(style: str, n: int, base: Path, runs: int, naive_runs: int | None = None) -> bool:
    folder = base / f"{style}_{n}"
    log = folder / "train.log"
    meta_f = folder / "meta.json"
    if not meta_f.exists():
        folder.mkdir(parents=True, exist_ok=True)
        t = time.perf_counter()
        meta = WRITERS[style](log, n)
        meta_f.write_text(json.dumps(meta))
        print(f"  (wrote {style} {n:,} lines, {log.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - t:.0f} s)",
              flush=True)
    meta = json.loads(meta_f.read_text())
    log.read_bytes() if log.stat().st_size < 2e9 else None   # page cache, for both contenders
    d_med, d_runs = median_of(lambda: diagnose_timed(folder), runs)
    rss = max(r[1] for r in d_runs)
    rss_all = max(r[3] for r in d_runs)
    fields = FIELDS[style]

    def one_naive():
        t = time.perf_counter()
        k = naive(log, fields)
        return time.perf_counter() - t, k
    n_med, n_runs = median_of(one_naive, naive_runs or runs)
    problems = check(style, d_runs[0][2], meta)
    print(f"{style:8s} {n:>11,} lines {log.stat().st_size / 1e6:7.0f} MB  diagnose {d_med:6.2f} s "
          f"(runs {', '.join(f'{r[0]:.2f}' for r in d_runs)}), peak RSS {rss / 1024:6.0f} MB (all processes {rss_all / 1024:.0f} MB) | naive parse "
          f"{n_med:6.2f} s ({n_runs[0][1]:,} values) | ratio {d_med / n_med:5.2f} | NaN cited: "
          f"{'yes' if not problems else 'NO: ' + '; '.join(problems)}", flush=True)
    return not problems


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=1_000_000)
    ap.add_argument("--styles", default=",".join(STYLES))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--keep", help="folder for the generated logs (reused when present)")
    ap.add_argument("--big", type=int, default=0, help="also time the default and mixed styles at this many lines")
    a = ap.parse_args()
    base = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="mltdbg-bench-text-"))
    print(f"logs in {base}; {os.cpu_count()} CPUs; medians of {a.runs} runs; ratio target <= 0.75", flush=True)
    ok = True
    for style in filter(None, a.styles.split(",")):
        ok &= bench_style(style, a.lines, base, a.runs)
    if a.big:
        print("big logs (targets: < 10 s end to end, < 1.5 GB peak RSS):", flush=True)
        for style in ("default", "mixed"):
            ok &= bench_style(style, a.big, base, a.runs, naive_runs=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
