#!/usr/bin/env python3
"""Generate the 12 chat-transcript debugging scenarios (runs/run01..run12) and truth.json.

Every number in the run folders comes from a real CPU training run performed here; the user scripts
shown in the folders (train.py / predict.py) are executed verbatim with the data source injected.
Usage: .venv/bin/python gen.py
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
sys.path.insert(0, HERE)
from gen_support import runs_a, runs_b  # noqa: E402

RUNS = [
    ("run01", runs_a.run01), ("run02", runs_a.run02), ("run03", runs_a.run03), ("run04", runs_a.run04),
    ("run05", runs_a.run05), ("run06", runs_a.run06), ("run07", runs_b.run07), ("run08", runs_b.run08),
    ("run09", runs_b.run09), ("run10", runs_b.run10), ("run11", runs_b.run11), ("run12", runs_b.run12),
]


def main():
    torch.set_num_threads(1)
    t0 = time.time()
    runs_dir, work = os.path.join(HERE, "runs"), os.path.join(HERE, ".work")
    shutil.rmtree(runs_dir, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    truth = {}
    for name, fn in RUNS:
        random.seed(0); np.random.seed(0); torch.manual_seed(0)
        t = time.time()
        truth[name] = fn(os.path.join(runs_dir, name), os.path.join(work, name))
        print(f"{name}: {truth[name]['truth']:<24s} {time.time() - t:5.1f}s", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
