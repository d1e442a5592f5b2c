"""Summarise what each generated run's numbers show (sanity check of the planted faults)."""
import json, math, os, csv
import numpy as np
R = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs")
def rows(run):
    return [json.loads(l) for l in open(os.path.join(R, run, "metrics.jsonl"))]
def series(rs, key):
    return [(r.get("it", r.get("step", r.get("iter", r.get("global_step", r.get("iteration"))))), r[key]) for r in rs if key in r]
def fmt(v): return f"{v:.4g}" if isinstance(v, float) else str(v)
def show(run, key, n=8):
    s = series(rows(run), key)
    idx = np.linspace(0, len(s) - 1, min(n, len(s))).astype(int)
    print(f"  {key:18s} " + "  ".join(f"{s[i][0]}:{fmt(s[i][1])}" for i in idx))
truth = json.load(open(os.path.join(os.path.dirname(R), "truth.json")))
keys = {
 "run01": ["loss", "lr", "val_acc"], "run02": ["loss", "lr", "eval_acc"],
 "run03": ["train/mse", "amp/scale", "amp/skipped_total", "eval/mae"],
 "run04": ["train/ce", "grad/total_norm", "eval/acc"], "run05": ["loss", "val_acc"],
 "run06": ["loss", "grad_norm", "val_accuracy"], "run07": ["train/loss", "val/loss", "val/acc"],
 "run08": ["train_loss", "grad_norm", "val_loss", "val_acc"], "run09": ["loss", "val/acc"],
 "run10": ["train/mse", "grad/total_norm", "eval/mse"], "run11": ["train_loss", "batch_size", "val_acc"],
 "run12": ["loss", "val_acc"]}
for run in sorted(keys):
    print(f"{run} [{truth[run]['truth']}]")
    for k in keys[run]:
        show(run, k)
    gp = os.path.join(R, run, "grad_norms.csv")
    if os.path.exists(gp):
        g = list(csv.reader(open(gp)))
        print(f"  grad_norms.csv cols={g[0]}\n    first={g[1]}\n    last={g[-1]}")
