#!/usr/bin/env python3
"""Generate the 12 benchmark runs (runs/run01..run12) and truth.json.

Every run really trains a small torch model on CPU with synthetic data; each run's
module in gen_support/ is seeded. Usage: .venv/bin/python gen.py
"""
import os, sys, json, time, shutil, importlib
import torch

torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

MODULES = {
    "run01": "r01_resume",
    "run02": "r02_healthy_step",
    "run03": "r03_label_range",
    "run04": "r04_zero_var",
    "run05": "r05_noshuffle",
    "run06": "r06_numinst",
    "run07": "r07_wrongckpt",
    "run08": "r08_dblsoftmax",
    "run09": "r09_adam_eps",
    "run10": "r10_leak",
    "run11": "r11_loader",
    "run12": "r12_healthy_dropout",
}


def main():
    t0 = time.time()
    runs_dir = os.path.join(HERE, "runs")
    shutil.rmtree(runs_dir, ignore_errors=True)
    os.makedirs(runs_dir)
    truth = {}
    for run, mod in MODULES.items():
        t = time.time()
        m = importlib.import_module("gen_support." + mod)
        assert m.RUN == run
        truth[run] = m.gen()
        print(f"{run}: {truth[run]['truth']:<26s} {time.time() - t:5.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, ensure_ascii=False, indent=2)
    print(f"total {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()
