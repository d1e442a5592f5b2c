#!/usr/bin/env python3
"""Generate 12 bio/chem ML-debugging scenario runs by really training small torch models on CPU.

Writes runs/run01..run12 (only user-visible files) and truth.json next to this script.
Usage: .venv/bin/python gen.py
"""
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
# stand-ins for the handful of scikit-learn functions the users' scripts import (see gen_support/shims)
sys.path.insert(0, os.path.join(HERE, "gen_support", "shims"))

import torch  # noqa: E402

torch.set_num_threads(1)

import run_chemprop  # noqa: E402  run01 overfitting
import run_ec  # noqa: E402        run02 label_out_of_range
import run_scvi  # noqa: E402      run03 healthy
import run_promoter  # noqa: E402  run04 data_leakage
import run_nan  # noqa: E402       run05 nan_in_data
import run_vanish  # noqa: E402    run06 vanishing_gradients
import run_amp  # noqa: E402       run07 metric_changed
import run_esm  # noqa: E402       run08 lr_too_high
import run_tfcnn  # noqa: E402     run09 healthy
import run_esol  # noqa: E402      run10 unnormalized_inputs
import run_vae  # noqa: E402       run11 mode_collapse
import run_herg  # noqa: E402      run12 label_noise

RUNS = [("run01", run_chemprop), ("run02", run_ec), ("run03", run_scvi), ("run04", run_promoter),
        ("run05", run_nan), ("run06", run_vanish), ("run07", run_amp), ("run08", run_esm),
        ("run09", run_tfcnn), ("run10", run_esol), ("run11", run_vae), ("run12", run_herg)]


def main():
    only = set(sys.argv[1:])
    t_all = time.perf_counter()
    if not only:
        shutil.rmtree(os.path.join(HERE, "runs"), ignore_errors=True)
    truth_path = os.path.join(HERE, "truth.json")
    truth = {}
    if only and os.path.exists(truth_path):
        truth = json.load(open(truth_path))
    for name, mod in RUNS:
        if only and name not in only:
            continue
        shutil.rmtree(os.path.join(HERE, "runs", name), ignore_errors=True)
        t0 = time.perf_counter()
        res = mod.run(HERE)
        res.pop("_stats", None)
        truth[name] = res
        print(f"{name}: {res['truth']:<22s} {time.perf_counter() - t0:6.1f}s", flush=True)
    shutil.rmtree(os.path.join(HERE, ".work"), ignore_errors=True)
    truth = {k: truth[k] for k in sorted(truth)}
    with open(truth_path, "w") as f:
        json.dump(truth, f, indent=2)
        f.write("\n")
    print(f"total {time.perf_counter() - t_all:.1f}s")


if __name__ == "__main__":
    main()
