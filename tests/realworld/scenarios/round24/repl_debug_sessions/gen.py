#!/usr/bin/env python3
"""Generates the 12 debugging-session runs (runs/run01..run12) and truth.json.
Every number shown in a run comes from the training / REPL code executed here.
Usage: python gen.py [runNN ...]   (default: all)"""
import json
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
import repl  # noqa: E402
import scenarios  # noqa: E402

RUNS = os.path.join(HERE, "runs")


def main():
    t0 = time.time()
    only = sys.argv[1:]
    truth = {}
    tp = os.path.join(HERE, "truth.json")
    if only and os.path.exists(tp):
        truth = json.load(open(tp))
    os.makedirs(RUNS, exist_ok=True)
    cwd = os.getcwd()
    for name, fn in scenarios.ALL:
        if only and name not in only:
            continue
        t = time.time()
        out = os.path.join(RUNS, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        work = tempfile.mkdtemp(prefix="work_")
        os.chdir(work)
        try:
            torch.manual_seed(0)
            np.random.seed(0)
            truth[name] = fn(out, work)
        finally:
            os.chdir(cwd)
            shutil.rmtree(work, ignore_errors=True)
            for m in list(sys.modules):
                if m in scenarios.USER_MODULES:
                    del sys.modules[m]
        print(f"{name}: {truth[name]['truth']:<24} {time.time() - t:5.1f}s", flush=True)
    json.dump(dict(sorted(truth.items())), open(tp, "w"), indent=2)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
