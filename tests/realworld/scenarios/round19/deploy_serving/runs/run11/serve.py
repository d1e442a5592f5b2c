import logging

import torch
import torch.nn as nn
import yaml
from fastapi import FastAPI
from pydantic import BaseModel

torch.set_num_threads(1)
log = logging.getLogger("txn-risk")
cfg = yaml.safe_load(open("config.yaml"))
FEATURES = [f"v{i:02d}" for i in range(24)]
H = cfg["train"]["hidden"]
model = nn.Sequential(nn.Linear(len(FEATURES), H), nn.ReLU(), nn.Linear(H, H), nn.ReLU(), nn.Linear(H, 2))
model.load_state_dict(torch.load(cfg["artifacts"] + "model.pt", map_location="cpu"))
model.eval()
app = FastAPI(title="txn-risk")


class Txn(BaseModel):
    txn_id: str
    features: dict[str, float]


@app.post("/risk")
def risk(t: Txn):
    x = torch.tensor([[t.features[f] for f in FEATURES]])
    with torch.no_grad():
        p = torch.softmax(model(x), 1)[0, 1].item()
    log.info("txn=%s p_fraud=%.4f", t.txn_id, p)
    return {"txn_id": t.txn_id, "p_fraud": round(p, 4), "flag": p >= 0.5}
