import argparse, json, os, random, time, math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--learning_rate", type=float, default=5e-4)
parser.add_argument("--per_device_train_batch_size", type=int, default=32)
parser.add_argument("--num_train_epochs", type=int, default=8)
parser.add_argument("--warmup_ratio", type=float, default=0.06)
parser.add_argument("--weight_decay", type=float, default=0.01)
parser.add_argument("--max_grad_norm", type=float, default=1.0)
parser.add_argument("--logging_steps", type=int, default=25)
parser.add_argument("--output_dir", default="tagger_out")
parser.add_argument("--seed", type=int, default=17)
args = parser.parse_args()
torch.set_num_threads(1)
random.seed(args.seed); np.random.seed(args.seed); torch.manual_seed(args.seed)

PAD_ID = 0
VOCAB = ["<pad>"] + [f"w{i}" for i in range(1, 64)]
TAGS = ["NOUN", "VERB", "ADJ", "DET"]
g = np.random.default_rng(123)
LEXICON = {i: int(g.integers(0, len(TAGS))) for i in range(1, len(VOCAB))}


def make_corpus(n, seed):
    r = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        L = int(r.integers(5, 21))
        toks = r.integers(1, len(VOCAB), L).tolist()
        out.append({"input_ids": toks, "labels": [LEXICON[t] for t in toks]})
    return out


class TagDataset(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(batch):
    max_len = max(len(b["input_ids"]) for b in batch)
    input_ids = torch.full((len(batch), max_len), PAD_ID, dtype=torch.long)
    labels = torch.full((len(batch), max_len), -100, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), max_len), dtype=torch.long)
    for i, b in enumerate(batch):
        n = len(b["input_ids"])
        input_ids[i, :n] = torch.tensor(b["input_ids"])
        attention_mask[i, :n] = 1
        labels[i, max_len - n:] = torch.tensor(b["labels"])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


class Tagger(nn.Module):
    def __init__(self, vocab, n_tags, dim=64):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, padding_idx=PAD_ID)
        self.ff = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, n_tags))

    def forward(self, input_ids, attention_mask=None, labels=None):
        logits = self.ff(self.emb(input_ids))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
        return loss, logits


train_ds = TagDataset(make_corpus(3000, 1))
eval_ds = TagDataset(make_corpus(500, 2))
train_dl = DataLoader(train_ds, batch_size=args.per_device_train_batch_size, shuffle=True, collate_fn=collate)
eval_dl = DataLoader(eval_ds, batch_size=64, collate_fn=collate)
model = Tagger(len(VOCAB), len(TAGS))
opt = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=args.weight_decay)
spe = len(train_dl); total = spe * args.num_train_epochs; warm = int(args.warmup_ratio * total)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / max(1, warm) if s < warm else max(0.0, (total - s) / max(1, total - warm)))
print(f"vocab_size={len(VOCAB)} num_labels={len(TAGS)} id2label={dict(enumerate(TAGS))}")
ex = collate([train_ds[0]])
print("example input_ids:", ex["input_ids"][0].tolist())
print("example labels:   ", ex["labels"][0].tolist())
print("***** Running training *****")
print(f"  Num examples = {len(train_ds):,}")
print(f"  Num Epochs = {args.num_train_epochs}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
print(f"  Total optimization steps = {total:,}")


@torch.no_grad()
def evaluate(epoch):
    model.eval(); t0 = time.time(); tot = 0.0; ntok = 0; hit = 0; nb = 0
    for b in eval_dl:
        loss, logits = model(**b)
        m = b["labels"] != -100
        tot += loss.item() * m.sum().item(); ntok += m.sum().item()
        hit += (logits.argmax(-1)[m] == b["labels"][m]).sum().item(); nb += 1
    dt = time.time() - t0
    model.train()
    return {"eval_loss": tot / ntok, "eval_accuracy": hit / ntok, "eval_runtime": round(dt, 4),
            "eval_samples_per_second": round(len(eval_ds) / dt, 3), "eval_steps_per_second": round(nb / dt, 3), "epoch": round(epoch, 2)}


step = 0; acc = 0.0; k = 0; t_start = time.time(); tot_loss = 0.0
model.train()
for epoch in range(args.num_train_epochs):
    for batch in train_dl:
        loss, _ = model(**batch)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        opt.step(); sched.step(); opt.zero_grad(); step += 1
        acc += loss.item(); k += 1; tot_loss += loss.item()
        if step % args.logging_steps == 0:
            print({"loss": round(acc / k, 4), "grad_norm": gn.item(), "learning_rate": sched.get_last_lr()[0], "epoch": round(step / spe, 2)})
            acc = 0.0; k = 0
    print(evaluate(step / spe))
    ck = os.path.join(args.output_dir, f"checkpoint-{step}")
    print(f"Saving model checkpoint to {ck}")
    os.makedirs(ck, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(ck, "pytorch_model.bin"))
    with open(os.path.join(ck, "config.json"), "w") as f:
        json.dump({"id2label": dict(enumerate(TAGS)), "vocab_size": len(VOCAB)}, f)
rt = time.time() - t_start
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(len(train_ds) * args.num_train_epochs / rt, 3),
       "train_steps_per_second": round(total / rt, 3), "train_loss": tot_loss / total, "epoch": float(args.num_train_epochs)})
