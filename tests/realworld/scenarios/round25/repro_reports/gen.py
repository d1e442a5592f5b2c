#!/usr/bin/env python3
"""Generate the 12 paper-reproduction debugging scenarios.

Every run really trains a small torch model on CPU (synthetic, seeded data) with one planted fault
(or none) and writes only user-visible files to runs/runNN/; the ground truth goes to truth.json.

usage: python gen.py            # all runs
       python gen.py run03 ...  # selected runs (truth.json is then merged)
"""
import json
import os
import shutil
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
torch.set_num_threads(1)

from gen_support import runs_a, runs_b  # noqa: E402


class Ctx:
    def __init__(self, root):
        self.root = root
        self.work = os.path.join(root, ".work", "gen")

    def run_dir(self, name):
        d = os.path.join(self.root, "runs", name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d

    def work_dir(self, name):
        d = os.path.join(self.work, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        return d


RUNS = {f"run{i:02d}": getattr(runs_a if i <= 6 else runs_b, f"run{i:02d}") for i in range(1, 13)}


def main():
    names = sys.argv[1:] or list(RUNS)
    ctx = Ctx(HERE)
    truth_path = os.path.join(HERE, "truth.json")
    truth = {}
    if sys.argv[1:] and os.path.exists(truth_path):
        with open(truth_path) as f:
            truth = json.load(f)
    t_all = time.time()
    for n in names:
        t0 = time.time()
        truth[n] = RUNS[n](ctx)
        print(f"{n}: {truth[n]['truth']:<26} {time.time() - t0:6.1f}s", flush=True)
    truth = {k: truth[k] for k in sorted(truth)}
    with open(truth_path, "w") as f:
        json.dump(truth, f, indent=2)
    shutil.rmtree(os.path.join(HERE, ".work"), ignore_errors=True)
    print(f"total {time.time() - t_all:.1f}s")


if __name__ == "__main__":
    main()
