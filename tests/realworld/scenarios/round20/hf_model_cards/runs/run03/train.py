import json
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from collections import Counter
from datasets import Dataset
from transformers import Trainer, TrainingArguments, get_linear_schedule_with_warmup

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


class TextCNN(nn.Module):
    def __init__(self, vocab_size, dim=64, channels=64, num_labels=2, dropout=0.1):
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


def compute_metrics(p):
    preds = p.predictions.argmax(-1)
    y = p.label_ids
    tp = ((preds == 1) & (y == 1)).sum()
    prec = tp / max(1, (preds == 1).sum())
    rec = tp / max(1, (y == 1).sum())
    return {"accuracy": float((preds == y).mean()),
            "f1": float(2 * prec * rec / (prec + rec)) if prec + rec else 0.0}


train_df = pd.read_csv("data/reviews_train.csv")
val_df = pd.read_csv("data/reviews_val.csv")
vocab = build_vocab(train_df["text"])
json.dump(vocab, open("vocab.json", "w"))

train_ds = Dataset.from_dict({"input_ids": encode(train_df["text"], vocab), "labels": train_df["label"].tolist()})
val_ds = Dataset.from_dict({"input_ids": encode(val_df["text"], vocab), "labels": val_df["label"].tolist()})

torch.manual_seed(5)
model = TextCNN(len(vocab))

args = TrainingArguments(
    output_dir="textcnn-review-polarity",
    learning_rate=1e-3,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=64,
    num_train_epochs=8,
    eval_strategy="epoch",
    save_strategy="epoch",
    logging_steps=10,
    seed=5,
    report_to="none",
)

optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
scheduler = get_linear_schedule_with_warmup(optimizer, num_warmup_steps=0,
                                            num_training_steps=args.num_train_epochs)

trainer = Trainer(
    model=model,
    args=args,
    train_dataset=train_ds,
    eval_dataset=val_ds,
    compute_metrics=compute_metrics,
    optimizers=(optimizer, scheduler),
)
trainer.train()
trainer.save_state()
metrics = trainer.evaluate()
trainer.save_metrics("eval", metrics)
trainer.push_to_hub()
