import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(12)
rng = np.random.default_rng(12)

hp = dict(hidden=64, layers=1, embedding_size=32, temperature=0.1, lr=0.1, momentum=0.9, weight_decay=1e-4,
          ids_per_batch=16, samples_per_id=2, epochs=80, steps_per_epoch=25, train_ids=500, seqs_per_id=6, test_ids=60,
          test_seqs_per_id=10, seq_len=48)

#<<sequences>>

#<<retrieval>>


class GRUEncoder(nn.Module):
    def __init__(self, c_in, hidden, layers, emb):
        super().__init__()
        self.gru = nn.GRU(c_in, hidden, num_layers=layers, batch_first=True)
        self.proj = nn.Linear(hidden, emb)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.proj(out.mean(1))


def supcon_loss(emb, labels, t):
    z = F.normalize(emb, dim=1)
    sim = z @ z.t() / t
    eye = torch.eye(len(labels), dtype=torch.bool)
    sim = sim.masked_fill(eye, -1e9)
    pos = (labels[:, None] == labels[None, :]) & ~eye
    log_prob = sim - torch.logsumexp(sim, dim=1, keepdim=True)
    return -(log_prob * pos).sum(1).div(pos.sum(1).clamp(min=1)).mean()


x_tr, y_tr = make_sequences(hp["train_ids"], hp["seqs_per_id"], seed=81, T=hp["seq_len"])
x_te, y_te = make_sequences(hp["test_ids"], hp["test_seqs_per_id"], seed=82, T=hp["seq_len"])
X_tr, Y_tr = torch.from_numpy(x_tr), torch.from_numpy(y_tr)
X_te, Y_te = torch.from_numpy(x_te), torch.from_numpy(y_te)

model = GRUEncoder(x_tr.shape[2], hp["hidden"], hp["layers"], hp["embedding_size"])
opt = torch.optim.SGD(model.parameters(), lr=hp["lr"], momentum=hp["momentum"], weight_decay=hp["weight_decay"])
writer = SummaryWriter("tb")
writer.add_text("hparams", json.dumps(hp))
by_id = {c: np.nonzero(y_tr == c)[0] for c in range(hp["train_ids"])}
evlog = open("eval_log.jsonl", "w")
step = 0
for epoch in range(1, hp["epochs"] + 1):
    model.train()
    t0 = time.time()
    ep_loss = []
    for _ in range(hp["steps_per_epoch"]):
        ids = rng.choice(hp["train_ids"], hp["ids_per_batch"], replace=False)
        idx = np.concatenate([rng.choice(by_id[c], hp["samples_per_id"], replace=False) for c in ids])
        loss = supcon_loss(model(X_tr[idx]), Y_tr[idx], hp["temperature"])
        opt.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
        opt.step()
        step += 1
        ep_loss.append(loss.item())
        writer.add_scalar("train/loss", loss.item(), step)
        writer.add_scalar("train/grad_norm", gn, step)
    writer.add_scalar("train/lr", opt.param_groups[0]["lr"], step)
    model.eval()
    with torch.no_grad():
        emb = model(X_te)
    r = recall_at_k(emb, Y_te, ks=(1, 5, 10))
    mapr = map_at_r(emb, Y_te)
    writer.add_scalar("eval/Recall@1", r[1], epoch)
    writer.add_scalar("eval/Recall@5", r[5], epoch)
    writer.add_scalar("eval/Recall@10", r[10], epoch)
    writer.add_scalar("eval/MAP@R", mapr, epoch)
    writer.add_scalar("eval/emb_norm", emb.norm(dim=1).mean().item(), epoch)
    evlog.write(json.dumps({"epoch": epoch, "step": step, "train_loss": round(float(np.mean(ep_loss)), 5),
                            "R@1": round(r[1], 4), "R@5": round(r[5], 4), "R@10": round(r[10], 4),
                            "MAP@R": round(mapr, 4), "sec": round(time.time() - t0, 2)}) + "\n")
    evlog.flush()
writer.close()
