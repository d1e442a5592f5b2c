import json
import logging

import numpy as np
import torch
import yaml
from fastapi import FastAPI
from pydantic import BaseModel

torch.set_num_threads(1)
log = logging.getLogger("segment_clf")
cfg = yaml.safe_load(open("serve_config.yaml"))

model = torch.jit.load(cfg["model_path"], map_location="cpu")
model.eval()
scaler = json.load(open(cfg["scaler_path"]))
MEAN = np.array(scaler["mean"], dtype=np.float32)
STD = np.array(scaler["std"], dtype=np.float32)
CLASSES = cfg["classes"]
log.info("model %s loaded, %d features, classes=%s", cfg["model_path"], len(MEAN), CLASSES)

app = FastAPI(title="segment-clf", version="1.3.0")


class PredictRequest(BaseModel):
    instances: list[list[float]]


@app.get("/health")
def health():
    return {"status": "ok"}


@app.post("/predict")
def predict(req: PredictRequest):
    x = (np.asarray(req.instances, dtype=np.float32) - MEAN) / STD
    with torch.no_grad():
        probs = torch.softmax(model(torch.from_numpy(x)), dim=1).numpy()
    pred = probs.argmax(1)
    log.info("predict n=%d classes=%s", len(x), [CLASSES[p] for p in pred])
    return {"predictions": [{"label": CLASSES[p], "class_id": int(p),
                             "probs": [round(float(v), 5) for v in pr]} for p, pr in zip(pred, probs)]}
