import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import Counter
from datasets import Dataset
from transformers import Trainer, TrainingArguments

MAX_LEN = 56


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


class TextCNN(nn.Module):
    def __init__(self, vocab_size, dim=48, channels=64, num_labels=4, dropout=0.1):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, channels, 3, padding=1)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(channels, num_labels)

    def forward(self, input_ids, labels=None):
        x = self.embeddings(input_ids).transpose(1, 2)
        h = F.relu(self.conv(x)).max(dim=2).values
        logits = self.classifier(self.dropout(h))
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def build_text(row):
    return f"{row['headline']} {row['body']} {row['section']}"


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


df = pd.read_csv("articles_labelled.csv")
df["text"] = df.apply(build_text, axis=1)
df = df.sample(frac=1.0, random_state=0).reset_index(drop=True)
n_val = int(len(df) * 0.1667)
val_df, train_df = df[:n_val], df[n_val:]

vocab = build_vocab(train_df["text"])
train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed(2)
model = TextCNN(len(vocab))

args = TrainingArguments(
    output_dir="textcnn-article-topics",
    learning_rate=3e-3,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=5,
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps=20,
    seed=2,
    push_to_hub=True,
)
trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=val_ds,
                  compute_metrics=compute_metrics)
trainer.train()
trainer.evaluate()
trainer.push_to_hub()
