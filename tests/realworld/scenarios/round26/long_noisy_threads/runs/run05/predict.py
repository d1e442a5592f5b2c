import argparse, joblib
import numpy as np
import pandas as pd
import torch

from model import Net

p = argparse.ArgumentParser()
p.add_argument("csv")
p.add_argument("--ckpt", default="artifacts/best.pt")
p.add_argument("--bs", type=int, default=16)
p.add_argument("--out", default="preds.csv")
args = p.parse_args()

FEATS = [f"ch{i}" for i in range(16)]
df = pd.read_csv(args.csv)
scaler = joblib.load("artifacts/scaler.joblib")
X = torch.tensor(scaler.transform(df[FEATS].values), dtype=torch.float32)

model = Net(16, 6)
print(model.load_state_dict(torch.load(args.ckpt, map_location="cpu")))

preds = []
with torch.no_grad():
    for i in range(0, len(X), args.bs):
        preds.append(model(X[i:i + args.bs]).argmax(1))
preds = torch.cat(preds).numpy()
df["pred"] = preds
df[["id", "pred"]].to_csv(args.out, index=False)
if "activity" in df:
    print(f"accuracy: {(preds == df['activity'].values).mean():.4f}  (n={len(df)})")
