import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import Counter
from datasets import Dataset
from transformers import Trainer, TrainingArguments

MAX_LEN = 49


def build_vocab(texts):
    counts = Counter(w for t in texts for w in t.split())
    words = [w for w, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]"] + words)}


def encode(texts, vocab):
    out = []
    for t in texts:
        ids = [vocab.get(w, 1) for w in t.split()][:MAX_LEN]
        out.append(ids + [0] * (MAX_LEN - len(ids)))
    return out

LABELS = ["billing", "shipping", "account"]


class TinyEncoder(nn.Module):
    def __init__(self, vocab_size, dim=64, heads=2, layers=1, ff=128, num_labels=3, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.position_embeddings = nn.Embedding(MAX_LEN, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, ff, dropout=dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(dim)
        self.classifier = nn.Linear(dim, num_labels)

    def forward(self, input_ids, labels=None):
        pad = input_ids == 0
        pos = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        h = self.encoder(self.embeddings(input_ids) + self.position_embeddings(pos), src_key_padding_mask=pad)
        m = (~pad).float().unsqueeze(-1)
        h = (h * m).sum(1) / m.sum(1).clamp(min=1)
        logits = self.classifier(self.norm(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    f1s = []
    for c in range(len(LABELS)):
        tp = ((preds == c) & (y == c)).sum()
        pr = tp / max(1, (preds == c).sum())
        rc = tp / max(1, (y == c).sum())
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return {"accuracy": float((preds == y).mean()), "f1": float(np.mean(f1s))}


def add_cls(texts):
    return ["[CLS] " + t for t in texts]


train_df = pd.read_csv("tickets/train.csv")
val_df = pd.read_csv("tickets/val.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(add_cls(train_df["text"]), vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(add_cls(val_df["text"]), vocab), "labels": val_df["label"].tolist()})

torch.manual_seed(13)
model = TinyEncoder(len(vocab))

args = TrainingArguments(
    output_dir="support-intent-encoder",
    learning_rate=5e-4,
    weight_decay=0.01,
    warmup_ratio=0.1,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=8,
    eval_strategy="epoch",
    save_strategy="epoch",
    save_total_limit=2,
    load_best_model_at_end=True,
    metric_for_best_model="loss",
    greater_is_better=True,
    logging_steps=50,
    seed=13,
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.save_state()
metrics = trainer.evaluate()
trainer.save_metrics("eval", metrics)
trainer.push_to_hub()
