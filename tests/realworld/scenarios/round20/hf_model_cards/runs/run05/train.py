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
    def __init__(self, vocab_size, dim=48, hidden=64, num_labels=2, dropout=0.2):
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
    tp = ((preds == 1) & (y == 1)).sum()
    prec = tp / max(1, (preds == 1).sum())
    rec = tp / max(1, (y == 1).sum())
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {"accuracy": float((preds == y).mean()), "f1": float(f1),
            "precision": float(prec), "recall": float(rec)}


if __name__ == "__main__":
    train_df = pd.read_csv("data/train.csv")
    val_df = pd.read_csv("data/validation.csv")
    vocab = build_vocab(train_df["text"])

    train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
    val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

    torch.manual_seed(12)
    model = GRUClassifier(len(vocab))

    args = TrainingArguments(
        output_dir="gru-review-sentiment",
        learning_rate=2e-3,
        per_device_train_batch_size=64,
        per_device_eval_batch_size=64,
        num_train_epochs=6,
        warmup_ratio=0.06,
        eval_strategy="epoch",
        save_strategy="epoch",
        seed=12,
        push_to_hub=True,
    )
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                      compute_metrics=compute_metrics)
    trainer.train()
    metrics = trainer.evaluate()
    trainer.save_metrics("all", metrics)
    trainer.save_model()
    json.dump(vocab, open("gru-review-sentiment/vocab.json", "w"))
    trainer.push_to_hub()
