import json
import os

import torch
import torch.nn as nn

from text_utils import build_vocab, encode

torch.set_num_threads(1)
torch.manual_seed(0)
INTENTS = ["billing", "shipping", "account", "refund", "technical"]
EPOCHS, LR, BS, DIM = 20, 0.01, 128, 48


def read(path):
    return [json.loads(l) for l in open(path)]


train, val = read("data/tickets_train.jsonl"), read("data/tickets_val.jsonl")
vocab = build_vocab([r["text"] for r in train])
print(f"vocab size {len(vocab)}")
os.makedirs("artifacts", exist_ok=True)
json.dump(vocab, open("artifacts/vocab.json", "w"))


def batchify(rows):
    ids, offsets = [], []
    for r in rows:
        offsets.append(len(ids))
        ids.extend(encode(r["text"], vocab))
    y = torch.tensor([INTENTS.index(r["intent"]) for r in rows])
    return torch.tensor(ids), torch.tensor(offsets), y


class IntentClassifier(nn.Module):
    def __init__(self, vocab_size, dim, n_classes):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.fc = nn.Linear(dim, n_classes)

    def forward(self, ids, offsets):
        return self.fc(self.emb(ids, offsets))


model = IntentClassifier(len(vocab), DIM, len(INTENTS))
opt = torch.optim.Adam(model.parameters(), lr=LR)
lossf = nn.CrossEntropyLoss()
vi, vo, vy = batchify(val)
for epoch in range(1, EPOCHS + 1):
    model.train()
    order = torch.randperm(len(train)).tolist()
    total = 0.0
    for s in range(0, len(train), BS):
        ids, off, y = batchify([train[i] for i in order[s:s + BS]])
        opt.zero_grad()
        loss = lossf(model(ids, off), y)
        loss.backward()
        opt.step()
        total += loss.item() * len(y)
    model.eval()
    with torch.no_grad():
        out = model(vi, vo)
        vl = lossf(out, vy).item()
        pred = out.argmax(1)
    acc = (pred == vy).float().mean().item()
    f1s = []
    for k in range(len(INTENTS)):
        tp = ((pred == k) & (vy == k)).sum().item()
        fp = ((pred == k) & (vy != k)).sum().item()
        fn = ((pred != k) & (vy == k)).sum().item()
        f1s.append(2 * tp / max(2 * tp + fp + fn, 1))
    print(f"epoch={epoch} loss={total / len(train):.4f} val_loss={vl:.4f} val_accuracy={acc:.4f} val_macro_f1={sum(f1s) / len(f1s):.4f}")
torch.save({"state_dict": model.state_dict(), "vocab_size": len(vocab), "dim": DIM, "intents": INTENTS},
           "artifacts/intent_clf.pt")
print("saved artifacts/intent_clf.pt, artifacts/vocab.json")
