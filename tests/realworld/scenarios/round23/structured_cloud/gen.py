#!/usr/bin/env python3
"""Builds the 12 structured-cloud-log debugging runs (runs/run01..run12) and truth.json.

Every run really trains a small torch model on CPU (synthetic numpy data); all metrics, timings, memory
figures and tracebacks in the run files come from those trainings. Usage: .venv/bin/python gen.py
"""
import importlib
import json
import os
import shutil
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
torch.set_num_threads(1)

RUNS = {
    "run01": "r01_overfit",
    "run02": "r02_bottleneck",
    "run03": "r03_healthy_dropout",
    "run04": "r04_lr_high",
    "run05": "r05_host_oom",
    "run06": "r06_nan_data",
    "run07": "r07_split",
    "run08": "r08_zero_grad",
    "run09": "r09_healthy_plateau",
    "run10": "r10_dtype",
    "run11": "r11_leak",
    "run12": "r12_eval_mode",
}

# words that would name a planted cause inside a user-visible file
FORBIDDEN = ["# bug", "bug:", "leak", "no_shuffle", "zero_grad missing", "forgot", "planted", "oom_child", "overfit",
             "nan_in_data", "eval_mode", "dtype_mismatch", "host_oom", "bottleneck", "lr_too", "seed_or_split"]


def main():
    t_all = time.perf_counter()
    out_root = os.path.join(HERE, "runs")
    if os.path.exists(out_root):
        shutil.rmtree(out_root)
    os.makedirs(out_root)
    truth = {}
    for run, modname in RUNS.items():
        t0 = time.perf_counter()
        mod = importlib.import_module(f"gen_support.{modname}")
        res = mod.make(os.path.join(out_root, run))
        res.pop("_hist", None)
        truth[run] = {"truth": res["truth"], "symptom": res["symptom"], "how": res["how"]}
        print(f"{run} {res['truth']:<24} {time.perf_counter() - t0:6.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    # sanity: no file in runs/ labels its cause
    for root, _, files in os.walk(out_root):
        for fn in files:
            p = os.path.join(root, fn)
            low = open(p).read().lower()
            for w in FORBIDDEN:
                if w in low or w in fn.lower():
                    raise SystemExit(f"forbidden word {w!r} in {p}")
    faults = [v["truth"] for v in truth.values() if v["truth"] != "healthy"]
    assert len(faults) == 10 and len(set(faults)) == 10, faults
    print(f"total wall time {time.perf_counter() - t_all:.1f}s")


if __name__ == "__main__":
    main()
