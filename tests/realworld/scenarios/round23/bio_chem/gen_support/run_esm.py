"""run08: tiny ESM-like transformer for signal-peptide detection, AdamW at lr 2e-2 without warm-up (Lightning-style
logs): loss falls in epoch 0, then rises and oscillates, grad-norm spikes, val AUROC falls."""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import seed_all, write, rand_protein, auroc, auprc, grad_norm, tqdm_bar, AA

SL = 30

CONFIG = """# configs/sp_tinyesm.yaml
seed: 7
data:
  train: data/sp_ntermini_train.fasta
  val: data/sp_ntermini_val.fasta
  max_len: 30          # N-terminal residues incl. <cls>
  batch_size: 32
model:
  name: TinyESM
  num_layers: 2
  embed_dim: 32
  attention_heads: 4
  ffn_embed_dim: 128
  dropout: 0.1
  pooling: mean
optim:
  name: AdamW
  lr: 2.0e-2
  weight_decay: 0.01
  betas: [0.9, 0.999]
  warmup_steps: 0
  scheduler: none
trainer:
  max_epochs: 6
  log_every_n_steps: 1
  gradient_clip_val: null
  accelerator: cpu
"""


class TinyESM(nn.Module):
    def __init__(self, d=32, L=2, h=4, ff=128, p=0.1):
        super().__init__()
        self.embed_tokens = nn.Embedding(25, d, padding_idx=0)
        self.embed_positions = nn.Embedding(64, d)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(d, h, ff, p, batch_first=True, norm_first=False,
                                                                activation="gelu") for _ in range(L)])
        self.emb_layer_norm_after = nn.LayerNorm(d)
        self.head = nn.Linear(d, 1)

    def forward(self, x):
        h = self.embed_tokens(x) + self.embed_positions(torch.arange(x.shape[1]))
        for layer in self.layers:
            h = layer(h)
        return self.head(self.emb_layer_norm_after(h).mean(1)).squeeze(-1)


def _sp(rng):
    n = "".join(rng.choice(list("MKRSTAL"), size=int(rng.integers(1, 5))))
    h = "".join(rng.choice(list("LLAAVIFGST"), size=int(rng.integers(6, 12))))
    c = "".join(rng.choice(list("SGTAQP"), size=int(rng.integers(2, 5)))) + "A" + rng.choice(list("LSGV")) + "A"
    return ("M" + n + h + c + rand_protein(rng, 60))[:SL]


def _neg(rng):
    s = "M" + rand_protein(rng, 60)
    if rng.random() < 0.5:  # N-terminal transmembrane anchors look similar
        p = int(rng.integers(2, 20))
        s = s[:p] + "".join(rng.choice(list("LLAAVIFGST"), size=int(rng.integers(6, 12)))) + s[p:]
    return s[:SL]


def run(outdir):
    seed_all(8)
    rng = np.random.default_rng(808)
    N = 2500
    y = (rng.random(N) < 0.4).astype(np.float32)
    seqs = [_sp(rng) if yy else _neg(rng) for yy in y]
    flip = rng.random(N) < 0.06  # annotation errors in the source database
    y = np.where(flip, 1 - y, y).astype(np.float32)
    tok = {a: i + 4 for i, a in enumerate(AA)}
    X = torch.tensor([[1] + [tok[c] for c in s] for s in seqs])
    Y = torch.tensor(y)
    tr, va = torch.arange(2000), torch.arange(2000, 2500)

    torch.manual_seed(7)
    model = TinyESM()
    nparams = sum(p.numel() for p in model.parameters())
    lr = 2e-2
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    E, BS = 6, 32
    nb = math.ceil(len(tr) / BS)
    rows = []
    console = []
    gstep = 0
    hist = []
    g = torch.Generator().manual_seed(7)
    for ep in range(E):
        t0 = time.perf_counter()
        model.train()
        perm = tr[torch.randperm(len(tr), generator=g)]
        tot, n = 0.0, 0
        gmax = 0.0
        for b in range(nb):
            bi = perm[b * BS:(b + 1) * BS]
            opt.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(X[bi]), Y[bi])
            loss.backward()
            gn = grad_norm(model)
            gmax = max(gmax, gn)
            opt.step()
            tot += loss.item() * len(bi)
            n += len(bi)
            gstep += 1
            if gstep % 1 == 0:
                rows.append({"epoch": ep, "step": gstep - 1, "train_loss_step": loss.item(),
                             "grad_2.0_norm_total": gn, "lr-AdamW": lr})
        last_step_loss = loss.item()
        model.eval()
        with torch.no_grad():
            o = model(X[va])
        vl = F.binary_cross_entropy_with_logits(o, Y[va]).item()
        pv = o.numpy()
        va_auc, va_prc = auroc(y[2000:], pv), auprc(y[2000:], pv)
        el = time.perf_counter() - t0
        rows.append({"epoch": ep, "step": gstep - 1, "val_loss": vl, "val_auroc": va_auc, "val_auprc": va_prc})
        rows.append({"epoch": ep, "step": gstep - 1, "train_loss_epoch": tot / n})
        console.append(f"Epoch {ep}: " + tqdm_bar(nb, nb, el, nb / el, postfix=(
            f"v_num=7, train_loss_step={last_step_loss:.3f}, val_loss={vl:.3f}, val_auroc={va_auc:.3f}, "
            f"val_auprc={va_prc:.3f}, train_loss_epoch={tot / n:.3f}")))
        hist.append((tot / n, vl, va_auc, gmax))

    header = ["epoch", "step", "train_loss_step", "grad_2.0_norm_total", "lr-AdamW", "val_loss", "val_auroc",
              "val_auprc", "train_loss_epoch"]

    def f(v):
        return "" if v is None else repr(float(np.float32(v)))
    csv = ",".join(header) + "\n" + "".join(
        ",".join(str(r[h]) if h in ("epoch", "step") else f(r.get(h)) for h in header) + "\n" for r in rows)
    d = f"{outdir}/runs/run08"
    write(f"{d}/configs/sp_tinyesm.yaml", CONFIG)
    write(f"{d}/lightning_logs/version_7/metrics.csv", csv)
    kb = nparams / 1000
    summ = [
        "(esm) kbauer@lab-ws:~/sp_detect$ python train_sp.py --config configs/sp_tinyesm.yaml",
        "Seed set to 7",
        "GPU available: False, used: False",
        "TPU available: False, using: 0 TPU cores",
        "HPU available: False, using: 0 HPUs",
        "",
        "  | Name    | Type              | Params | Mode ",
        "------------------------------------------------------",
        f"0 | model   | TinyESM           | {kb:.1f} K | train",
        "1 | loss_fn | BCEWithLogitsLoss | 0      | train",
        "------------------------------------------------------",
        f"{kb:.1f} K    Trainable params",
        "0         Non-trainable params",
        f"{kb:.1f} K    Total params",
        f"{nparams * 4 / 1e6:.3f}     Total estimated model params size (MB)",
        f"{len(list(model.modules())) + 2:<10}Modules in train mode",
        "0         Modules in eval mode",
    ]
    write(f"{d}/console.txt", "\n".join(summ + console + ["`Trainer.fit` stopped: `max_epochs=6` reached."]) + "\n")
    best = max(range(E), key=lambda i: hist[i][2])
    post = f"""Tiny ESM-style transformer for signal peptides: val AUROC best after epoch {best} ({hist[best][2]:.3f}) and then it gets
worse (last epoch {hist[-1][2]:.3f}); train loss also doesn't really go down after the first epoch. Is this overfitting
already? Should I increase dropout / weight decay? Config, console and metrics.csv attached.
"""
    write(f"{d}/notes.md", post)
    return {
        "truth": "lr_too_high",
        "symptom": (f"Val AUROC peaks at {hist[best][2]:.2f} early and then drops; I think my small transformer is already "
                    "overfitting - should I add more dropout / weight decay?"),
        "how": ("AdamW at lr 2e-2 with no warm-up on a post-LN transformer: loss falls in epoch 0, then rises and "
                f"oscillates around {hist[-1][0]:.2f}, per-step grad norm spikes up to {max(h[3] for h in hist):.0f}, and val loss "
                "rises together with the train loss (not a train/val divergence)."),
        "_stats": {"hist": hist, "nparams": nparams},
    }
