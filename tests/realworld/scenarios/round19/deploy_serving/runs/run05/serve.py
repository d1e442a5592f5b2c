import json
import logging

import torch
import torch.nn as nn
import yaml
from fastapi import FastAPI
from pydantic import BaseModel

from text_utils import build_vocab, encode, tokenize

torch.set_num_threads(1)
log = logging.getLogger("router")
cfg = yaml.safe_load(open("serve_config.yaml"))


class IntentClassifier(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.fc = nn.Linear(dim, n_classes)

    def forward(self, ids, offsets):
        return self.fc(self.emb(ids, offsets))


ckpt = torch.load(cfg["model_path"], map_location="cpu")
INTENTS = ckpt["intents"]
model = IntentClassifier(ckpt["vocab_size"], ckpt["dim"], len(INTENTS))
model.load_state_dict(ckpt["state_dict"])
model.eval()

texts = [json.loads(l)["text"] for l in open(cfg["corpus_path"])]
vocab = build_vocab(texts, max_size=ckpt["vocab_size"])
log.info("model %s loaded; vocab %d tokens built from %s (%d docs)",
         cfg["model_path"], len(vocab), cfg["corpus_path"], len(texts))

app = FastAPI(title="helpdesk-router")


class Ticket(BaseModel):
    ticket_id: str
    text: str


@app.post("/route")
def route(t: Ticket):
    ids = encode(t.text, vocab)
    with torch.no_grad():
        p = torch.softmax(model(torch.tensor(ids), torch.tensor([0])), 1)[0]
    k = int(p.argmax())
    log.info("ticket=%s tokens=%d ids=%s intent=%s p=%.3f", t.ticket_id, len(ids), ids[:6], INTENTS[k], p[k])
    return {"ticket_id": t.ticket_id, "intent": INTENTS[k], "confidence": round(float(p[k]), 4)}
