import logging

import torch
from fastapi import FastAPI
from pydantic import BaseModel

torch.set_num_threads(1)
log = logging.getLogger("har")
CLASSES = ["still", "walk", "run", "stairs"]
model = torch.jit.load("harnet_traced.pt")
model.eval()
app = FastAPI(title="har-service")


class Window(BaseModel):
    device_id: str
    firmware: str
    sample_rate_hz: float
    samples: list[float]


@app.post("/activity")
def activity(w: Window):
    x = torch.tensor(w.samples, dtype=torch.float32).view(1, 1, -1)
    with torch.no_grad():
        p = torch.softmax(model(x), dim=1)[0]
    k = int(p.argmax())
    log.info("device=%s fw=%s n=%d -> %s (%.3f)", w.device_id, w.firmware, len(w.samples), CLASSES[k], p[k])
    return {"device_id": w.device_id, "activity": CLASSES[k], "confidence": round(float(p[k]), 4)}
