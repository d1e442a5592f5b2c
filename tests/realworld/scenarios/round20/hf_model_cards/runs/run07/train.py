import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import Counter
from datasets import Dataset
from transformers import Trainer, TrainingArguments

MAX_LEN = 48


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

LABELS = ["World", "Sports", "Business", "Sci/Tech"]


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=48, num_labels=4, dropout=0.3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        mask = (input_ids != 0).float().unsqueeze(-1)
        out, _ = self.encoder(self.embeddings(input_ids))
        h = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    precs, recs, f1s = [], [], []
    for c in range(len(LABELS)):
        tp = ((preds == c) & (y == c)).sum()
        pr = tp / max(1, (preds == c).sum())
        rc = tp / max(1, (y == c).sum())
        precs.append(pr)
        recs.append(rc)
        f1s.append(2 * pr * rc / (pr + rc) if pr + rc else 0.0)
    return {"accuracy": float((preds == y).mean()), "f1": float(np.mean(f1s)),
            "precision": float(np.mean(precs)), "recall": float(np.mean(recs))}


train_df = pd.read_csv("news_train.csv")
val_df = pd.read_csv("news_val.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed(7)
model = GRUClassifier(len(vocab))

args = TrainingArguments(
    output_dir="gru-news-topic",
    learning_rate=1e-3,
    per_device_train_batch_size=16,
    per_device_eval_batch_size=64,
    num_train_epochs=6,
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps=25,
    seed=7,
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.save_state()
trainer.evaluate()
trainer.push_to_hub()
