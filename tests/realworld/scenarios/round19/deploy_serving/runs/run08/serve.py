import json
import logging

import torch
from fastapi import FastAPI
from pydantic import BaseModel

torch.set_num_threads(1)
log = logging.getLogger("churn-api")
NORM = json.load(open("norm.json"))
FEATURES = list(NORM["mean"])
model = torch.jit.load("churn_mlp.ts")
model.eval()
app = FastAPI(title="churn")


class Customer(BaseModel):
    customer_id: str
    features: dict[str, float]


@app.post("/predict")
def predict(c: Customer):
    x = torch.tensor([[(c.features[f] - NORM["mean"][f]) / NORM["std"][f] for f in FEATURES]])
    with torch.no_grad():
        p = torch.softmax(model(x), 1)[0, 1].item()
    pred = int(p >= 0.5)
    log.info("prediction customer_id=%s p_churn=%.4f pred=%d", c.customer_id, p, pred)
    return {"customer_id": c.customer_id, "p_churn": round(p, 4), "churn": pred}
