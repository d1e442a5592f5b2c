#!/usr/bin/env python3
"""Generate 12 debugging-benchmark runs in the style of long GitHub-issue / Discourse threads.

Every number in the runs comes from a small torch model trained here on CPU (seeded, single thread).
Usage:  OUTDIR/.venv/bin/python gen.py      (writes runs/runNN/ and truth.json next to this file)
"""
import json, os, shutil, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))

import torch  # noqa: E402
torch.set_num_threads(1)

import s01, s02, s03, s04, s05, s06, s07, s08, s09, s10, s11, s12  # noqa: E402

PLAN = [("run01", s01), ("run02", s02), ("run03", s03), ("run04", s04), ("run05", s05), ("run06", s06),
        ("run07", s07), ("run08", s08), ("run09", s09), ("run10", s10), ("run11", s11), ("run12", s12)]


def main():
    t0 = time.time()
    runs_dir = os.path.join(HERE, "runs")
    if os.path.isdir(runs_dir):
        shutil.rmtree(runs_dir)
    truth = {}
    for name, mod in PLAN:
        t = time.time()
        torch.manual_seed(0)
        truth[name] = mod.build(os.path.join(runs_dir, name))
        print(f"{name}: {truth[name]['truth']:<26} {time.time() - t:6.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2, ensure_ascii=False)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
