#!/usr/bin/env python3
"""Generate 12 transcribed-speech ML debugging scenarios (run01..run12) by really training
small torch models on CPU. Writes runs/ and truth.json next to this file. Seeded."""
import os, sys, json, time, math, shutil, warnings, traceback, datetime as dt
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from common import teacher_data, gmm_data, mlp, batches, evaluate
from speech import say_int, say_dec, say_pow, say_pct, say_pct_dec, transcript
import scenarios_a, scenarios_b

torch.set_num_threads(1)
OUT = os.path.join(HERE, "runs")


def main():
    t0 = time.time()
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    truth = {}
    gens = scenarios_a.ALL + scenarios_b.ALL
    for name, fn in gens:
        d = os.path.join(OUT, name)
        os.makedirs(d)
        t1 = time.time()
        files, info = fn()
        for fname, text in files.items():
            with open(os.path.join(d, fname), "w") as f:
                f.write(text.rstrip("\n") + "\n")
        truth[name] = info
        print(f"{name}: {info['truth']:<26s} files={sorted(files)} ({time.time() - t1:.1f}s)", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(dict(sorted(truth.items())), f, indent=2)
    print(f"total wall time {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
