import json
import sys

import numpy as np
import pandas as pd
import torch

from net import LeadNet

torch.set_num_threads(1)
CFG = json.load(open("export/model_config.json"))
model = LeadNet(CFG["n_in"], CFG["hidden"], CFG["dropout"])
model.load_state_dict(torch.load("export/leadnet_v3.pt", map_location="cpu"))
model.eval()
df = pd.read_csv(sys.argv[1])
with torch.no_grad():
    p = torch.sigmoid(model(torch.tensor(df[CFG["features"]].values, dtype=torch.float32))).numpy()
np.save("nb_scores.npy", p)
y = df["converted"].values
print(f"rows={len(df)} acc={((p > 0.5) == y).mean():.4f} positives_predicted={(p > 0.5).mean():.3f}")
last = [json.loads(l) for l in open("train_metrics.jsonl")][-1]
print(f"training (epoch {last['epoch']}): val_acc={last['val_acc']:.4f} val_auc={last['val_auc']:.4f}")
