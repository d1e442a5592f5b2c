#!/usr/bin/env python3
"""Generate the 12 incident-postmortem scenario runs (real CPU training) and truth.json.

Usage: python gen.py [run01 run05 ...]   (default: all)
"""
import os, sys, json, time, shutil, importlib
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
import common  # noqa: E402  (sets torch threads to 1)

ALL = [f"run{i:02d}" for i in range(1, 13)]


def main():
    todo = sys.argv[1:] or ALL
    truth_path = os.path.join(HERE, "truth.json")
    truth = json.load(open(truth_path)) if (os.path.exists(truth_path) and sys.argv[1:]) else {}
    t0 = time.time()
    for run in todo:
        d = os.path.join(common.RUNS, run)
        if os.path.isdir(d):
            shutil.rmtree(d)
        ts = time.time()
        mod = importlib.import_module("r" + run[3:])
        truth[run] = mod.build()
        print(f"{run}: {truth[run]['truth']:26s} {time.time() - ts:6.1f}s", flush=True)
    truth = {k: truth[k] for k in sorted(truth)}
    with open(truth_path, "w") as f:
        json.dump(truth, f, indent=2)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
