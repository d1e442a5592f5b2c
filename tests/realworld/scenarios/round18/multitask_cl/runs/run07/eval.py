"""Evaluate the most recent SplitDigits checkpoint on every task's test split."""
import argparse
import glob
import json
import os

import numpy as np
import torch

from train import CFG, MultiHeadMLP, make_tasks, task_accuracy

torch.set_num_threads(1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--ckpt-dir", default=CFG["ckpt_dir"])
    p.add_argument("--ckpt", default=None)
    p.add_argument("--out", default="eval_results.json")
    args = p.parse_args()

    path = args.ckpt or sorted(glob.glob(os.path.join(args.ckpt_dir, "ckpt_step*.pt")))[-1]
    print(f"Loading checkpoint {path}")
    state = torch.load(path)
    tasks = make_tasks(CFG)
    model = MultiHeadMLP(tasks[0]["test"][0].shape[1], CFG["hidden"], CFG["n_tasks"], CFG["classes_per_task"])
    model.load_state_dict(state["model"])
    print(f"global_step={state['step']}")

    res = {}
    for t, task in enumerate(tasks):
        a = task_accuracy(model, *task["test"], t)
        res[f"task{t}/acc"] = round(a, 4)
        print(f"task {t}: test acc = {a:.4f} (n={len(task['test'][1])})")
    res["avg_acc"] = round(float(np.mean([res[f"task{t}/acc"] for t in range(len(tasks))])), 4)
    print(f"average test accuracy: {res['avg_acc']:.4f}")
    with open(args.out, "w") as f:
        json.dump({"checkpoint": path, **res}, f, indent=2)


if __name__ == "__main__":
    main()
