#!/usr/bin/env python3
"""Build the 12 'it worked before my change' scenario runs.

Every case in gen_support/cNN.py writes a small user project (before and after the user's change),
really trains it on CPU with synthetic numpy data, and turns the real output into the files a user
would hand a debugger. Only runs/runNN/ is user-visible; truth.json holds the ground truth.
Run with the venv python:  .venv/bin/python gen.py
"""
import json
import os
import random
import shutil
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))

import common  # noqa: E402

torch.set_num_threads(1)
torch.set_num_interop_threads(1)
os.environ.setdefault("OMP_NUM_THREADS", "1")

# final run id -> case module (order shuffled so the healthy runs are not at the end)
ORDER = {
    "run01": "c05", "run02": "c01", "run03": "c11", "run04": "c07",
    "run05": "c04", "run06": "c02", "run07": "c09", "run08": "c12",
    "run09": "c06", "run10": "c10", "run11": "c03", "run12": "c08",
}


def main():
    t_start = time.time()
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    runs_dir = os.path.join(HERE, "runs")
    for d in (runs_dir, common.WORK):
        if os.path.exists(d):
            shutil.rmtree(d)
    os.makedirs(runs_dir)
    truth = {}
    for run_id, case in ORDER.items():
        t0 = time.time()
        mod = __import__(case)
        out = os.path.join(runs_dir, run_id)
        os.makedirs(out)
        torch.manual_seed(0)
        info, _ = mod.build(out)
        truth[run_id] = {"truth": info["truth"], "symptom": info["symptom"], "how": info["how"]}
        print(f"{run_id} ({case}) {info['truth']:<24s} {time.time() - t0:5.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    shutil.rmtree(common.WORK, ignore_errors=True)
    print(f"total {time.time() - t_start:.1f}s")


if __name__ == "__main__":
    main()
