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


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, hidden=64, num_labels=2, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.encoder = nn.GRU(dim, hidden, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, labels=None):
        lengths = (input_ids != 0).sum(1).clamp(min=1)
        out, _ = self.encoder(self.embeddings(input_ids))
        h = out[torch.arange(out.size(0)), lengths - 1]
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    tp = float(((preds == 1) & (y == 1)).sum())
    tn = float(((preds == 0) & (y == 0)).sum())
    fp = float(((preds == 1) & (y == 0)).sum())
    fn = float(((preds == 0) & (y == 1)).sum())
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return {"accuracy": float((preds == y).mean()),
            "matthews_correlation": float((tp * tn - fp * fn) / denom) if denom else 0.0}


train_df = pd.read_csv("data/train.csv")
val_df = pd.read_csv("data/dev.csv")
vocab = build_vocab(train_df["text"])

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed(11)
model = GRUClassifier(len(vocab))
for name, param in model.named_parameters():
    if not name.startswith("classifier"):
        param.requires_grad = False

args = TrainingArguments(
    output_dir="gru-sentiment-v2",
    learning_rate=1e-3,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=10,
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps=25,
    seed=11,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
metrics = trainer.evaluate()
trainer.save_metrics("all", metrics)
trainer.push_to_hub()
