import json
import logging

import torch
from fastapi import FastAPI
from pydantic import BaseModel

from net import LeadNet

torch.set_num_threads(1)
logger = logging.getLogger("leadscore")

CFG = json.load(open("export/model_config.json"))
model = LeadNet(CFG["n_in"], CFG["hidden"], CFG["dropout"])
model.load_state_dict(torch.load("export/leadnet_v3.pt", map_location="cpu"))
logger.info("LeadNet loaded from export/leadnet_v3.pt (%d features)", CFG["n_in"])

app = FastAPI(title="lead-scoring")


class Lead(BaseModel):
    lead_id: str
    features: dict[str, float]


class Batch(BaseModel):
    leads: list[Lead]


@app.post("/score")
def score(batch: Batch):
    x = torch.tensor([[l.features[f] for f in CFG["features"]] for l in batch.leads], dtype=torch.float32)
    with torch.no_grad():
        p = torch.sigmoid(model(x)).tolist()
    for l, pi in zip(batch.leads, p):
        logger.info("lead=%s p_convert=%.4f", l.lead_id, pi)
    return {"scores": [{"lead_id": l.lead_id, "p_convert": round(pi, 4), "converted": pi > 0.5}
                       for l, pi in zip(batch.leads, p)]}
