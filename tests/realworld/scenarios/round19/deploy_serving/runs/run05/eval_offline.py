import json
import sys

import torch

from text_utils import encode

torch.set_num_threads(1)
ckpt = torch.load("release/intent_clf-2024.06.pt", map_location="cpu")
vocab = json.load(open("artifacts/vocab.json"))
emb = torch.nn.EmbeddingBag(ckpt["vocab_size"], ckpt["dim"], mode="mean")
fc = torch.nn.Linear(ckpt["dim"], len(ckpt["intents"]))
emb.weight.data = ckpt["state_dict"]["emb.weight"]
fc.weight.data, fc.bias.data = ckpt["state_dict"]["fc.weight"], ckpt["state_dict"]["fc.bias"]
rows = [json.loads(l) for l in open(sys.argv[1])]
correct = 0
preds = []
with torch.no_grad():
    for r in rows:
        ids = torch.tensor(encode(r["text"], vocab))
        k = int(fc(emb(ids, torch.tensor([0]))).argmax())
        preds.append(ckpt["intents"][k])
        correct += ckpt["intents"][k] == r["intent"]
json.dump(preds, open("_nb_preds.json", "w"))
print(f"{sys.argv[1]}: n={len(rows)} accuracy={correct / len(rows):.4f}")
