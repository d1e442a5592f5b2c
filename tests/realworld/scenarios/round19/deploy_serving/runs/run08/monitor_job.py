"""nightly job: join logged predictions with observed outcomes, push metrics to the dashboard"""
import json
import re
import sys

import numpy as np
import pandas as pd

log_path, outcomes_path = sys.argv[1], sys.argv[2]
pat = re.compile(r"customer_id=(\S+) p_churn=([0-9.]+) pred=(\d)")
rows = [m.groups() for m in map(pat.search, open(log_path)) if m]
preds = pd.DataFrame(rows, columns=["customer_id", "p_churn", "pred"]).astype({"p_churn": float, "pred": int})
df = preds.merge(pd.read_csv(outcomes_path)[["customer_id", "churned"]], on="customer_id")

y, p = df["churned"].values, df["pred"].values
tp = int(((p == 1) & (y == 1)).sum())
fp = int(((p == 1) & (y == 0)).sum())
fn = int(((p == 0) & (y == 1)).sum())
precision = tp / max(tp + fp, 1)
recall = tp / max(tp + fn, 1)
f1 = 2 * precision * recall / max(precision + recall, 1e-12)
out = {"n": len(df), "accuracy": round(float((p == y).mean()), 4), "precision": round(precision, 4),
       "recall": round(recall, 4), "f1": round(f1, 4), "base_rate": round(float(y.mean()), 4)}
print(json.dumps(out))
