"""run03 (healthy): scVI-like VAE with NB likelihood on synthetic scRNA counts, KL warm-up as scvi-tools does."""
import math
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from common import seed_all, write, tqdm_bar


class FC(nn.Module):
    def __init__(self, i, o, dropout):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(i, o), nn.BatchNorm1d(o, momentum=0.01, eps=0.001), nn.ReLU(),
                                nn.Dropout(dropout))

    def forward(self, x):
        return self.fc(x)


class VAE(nn.Module):
    def __init__(self, n_genes, n_hidden=128, n_latent=10, dropout=0.1):
        super().__init__()
        self.enc = FC(n_genes, n_hidden, dropout)
        self.mean = nn.Linear(n_hidden, n_latent)
        self.var = nn.Linear(n_hidden, n_latent)
        self.dec = FC(n_latent, n_hidden, 0.0)
        self.scale = nn.Linear(n_hidden, n_genes)
        self.px_r = nn.Parameter(torch.randn(n_genes))

    def forward(self, x):
        h = self.enc(torch.log1p(x))
        qm, qv = self.mean(h), torch.exp(self.var(h)) + 1e-4
        z = qm + qv.sqrt() * torch.randn_like(qm)
        lib = x.sum(1, keepdim=True)
        mu = F.softmax(self.scale(self.dec(z)), dim=-1) * lib
        theta = torch.exp(self.px_r)
        eps = 1e-8
        log_theta_mu = torch.log(theta + mu + eps)
        ll = (theta * (torch.log(theta + eps) - log_theta_mu) + x * (torch.log(mu + eps) - log_theta_mu)
              + torch.lgamma(x + theta) - torch.lgamma(theta) - torch.lgamma(x + 1))
        rec = -ll.sum(-1)
        kl = 0.5 * (qv + qm ** 2 - 1 - torch.log(qv)).sum(-1)
        return rec, kl


def run(outdir):
    seed_all(3)
    rng = np.random.default_rng(303)
    n_cells, n_genes, n_types = 800, 200, 6
    types = rng.choice(n_types, size=n_cells, p=[0.3, 0.22, 0.18, 0.14, 0.1, 0.06])
    base = rng.normal(0, 1.0, n_genes)
    prog = rng.normal(0, 1.0, (n_types, n_genes)) * (rng.random((n_types, n_genes)) < 0.15) * 2.0
    cont = rng.normal(0, 0.35, (n_cells, 3)) @ rng.normal(0, 1, (3, n_genes))
    logits = base + prog[types] + cont
    p = np.exp(logits - logits.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    lib = np.exp(rng.normal(np.log(2500), 0.45, n_cells))
    mu = p * lib[:, None]
    theta = 6.0
    lam = rng.gamma(theta, mu / theta)
    X = rng.poisson(lam).astype(np.float32)

    perm = np.random.default_rng(0).permutation(n_cells)
    ntr = int(0.9 * n_cells)
    tr, va = perm[:ntr], perm[ntr:]
    Xt = torch.tensor(X)
    torch.manual_seed(0)
    model = VAE(n_genes)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=0.01, weight_decay=1e-6)
    E, BS, warm = 120, 128, 400
    steps_per_epoch = math.ceil(ntr / BS)
    rows = []
    header = ["epoch", "step", "train_loss_step", "validation_loss", "elbo_validation",
              "reconstruction_loss_validation", "kl_local_validation", "kl_global_validation",
              "train_loss_epoch", "elbo_train", "reconstruction_loss_train", "kl_local_train", "kl_global_train"]
    gstep = 0
    t0 = time.perf_counter()
    hist = []
    for ep in range(E):
        klw = min(1.0, ep / warm)
        model.train()
        order = np.random.default_rng(1000 + ep).permutation(tr)
        s_rec = s_kl = s_loss = 0.0
        for b in range(steps_per_epoch):
            bi = torch.tensor(order[b * BS:(b + 1) * BS])
            rec, kl = model(Xt[bi])
            loss = (rec + klw * kl).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            gstep += 1
            s_rec += rec.sum().item()
            s_kl += kl.sum().item()
            s_loss += loss.item() * len(bi)
            if gstep % 50 == 0:
                rows.append({"epoch": ep, "step": gstep - 1, "train_loss_step": loss.item()})
        model.eval()
        with torch.no_grad():
            rec_v, kl_v = model(Xt[torch.tensor(va)])
        rv, kv = rec_v.mean().item(), kl_v.mean().item()
        rows.append({"epoch": ep, "step": gstep - 1, "validation_loss": rv + klw * kv, "elbo_validation": rv + kv,
                     "reconstruction_loss_validation": rv, "kl_local_validation": kv, "kl_global_validation": 0.0})
        rt, kt = s_rec / ntr, s_kl / ntr
        rows.append({"epoch": ep, "step": gstep - 1, "train_loss_epoch": s_loss / ntr, "elbo_train": rt + kt,
                     "reconstruction_loss_train": rt, "kl_local_train": kt, "kl_global_train": 0.0})
        hist.append((rt + kt, rv + kv, kt, s_loss / ntr, loss.item()))
    el = time.perf_counter() - t0

    def f(v):
        if v is None:
            return ""
        return repr(float(np.float32(v)))
    csv = ",".join(header) + "\n" + "".join(",".join(f(r.get(h)) if h not in ("epoch", "step") else str(r[h])
                                                     for h in header) + "\n" for r in rows)
    d = f"{outdir}/runs/run03"
    write(f"{d}/logs/scvi/version_1/metrics.csv", csv)
    write(f"{d}/logs/scvi/version_1/hparams.yaml",
          "n_hidden: 128\nn_latent: 10\nn_layers: 1\ndropout_rate: 0.1\ndispersion: gene\n"
          "gene_likelihood: nb\nlatent_distribution: normal\nlr: 0.001\nweight_decay: 1.0e-06\neps: 0.01\n"
          "n_epochs_kl_warmup: 400\nn_steps_kl_warmup: null\nreduce_lr_on_plateau: false\n"
          "optimizer: Adam\nmax_kl_weight: 1.0\nmin_kl_weight: 0.0\n")
    rate = E / max(el, 1e-6)
    last = hist[-1]
    nb = (f"In [3]: adata\nOut[3]:\nAnnData object with n_obs × n_vars = {n_cells} × {n_genes}\n"
          "    obs: 'sample', 'n_genes_by_counts', 'total_counts', 'pct_counts_mt', 'leiden_prelim'\n"
          "    var: 'gene_ids', 'highly_variable', 'means', 'variances', 'variances_norm'\n"
          "    uns: 'hvg', 'log1p'\n    layers: 'counts'\n\n"
          "In [4]: scvi.model.SCVI.setup_anndata(adata, layer=\"counts\")\n"
          "   ...: model = scvi.model.SCVI(adata, n_latent=10)\n"
          "   ...: logger = CSVLogger(\"logs\", name=\"scvi\", version=1)\n"
          "   ...: model.train(max_epochs=120, check_val_every_n_epoch=1, logger=logger)\n"
          "GPU available: False, used: False\nTPU available: False, using: 0 TPU cores\n"
          "HPU available: False, using: 0 HPUs\n"
          f"Epoch {E}/{E}: " + tqdm_bar(E, E, el, rate,
                                        postfix=f"v_num=1, train_loss_step={last[4]:.0f}, train_loss_epoch={last[3]:.0f}")
          + "\n`Trainer.fit` stopped: `max_epochs=120` reached.\n")
    write(f"{d}/notebook_output.txt", nb)
    ev0, ev1 = hist[0][1], hist[-1][1]
    post = f"""**scVI training curves look weird? elbo_validation above elbo_train, KL increasing**

Tags: scvi-tools, single-cell, scanpy

First time using scvi-tools on my own 10x data (one sample, {n_cells} cells after QC, {n_genes} HVGs). I plotted the
`metrics.csv` from the CSVLogger and two things confuse me:

1. `elbo_validation` ends up a bit higher than `elbo_train` ({hist[-1][1]:.1f} vs {hist[-1][0]:.1f}).
2. `kl_local_train` goes UP during training ({hist[0][2]:.2f} in epoch 0 -> {max(h[2] for h in hist):.1f} at its peak, {hist[-1][2]:.1f}
   at the end). I thought the KL term is supposed to go down as the model trains?

Is this model OK to use for the UMAP/clustering, or did something go wrong? metrics.csv + notebook output attached.
"""
    write(f"{d}/post.md", post)
    return {
        "truth": "healthy",
        "symptom": ("Is my scVI training OK? elbo_validation ends slightly above elbo_train and kl_local_train keeps "
                    "going up instead of down."),
        "how": (f"No fault: a standard NB VAE (scVI defaults, KL warm-up over 400 epochs) on 800 x 200 counts; ELBO falls "
                f"from {hist[0][0]:.0f} and flattens near {hist[-1][0]:.0f}, validation ELBO tracks it with a small gap; "
                "the KL rises only because the KL weight ramps up (warm-up), which is expected."),
        "_stats": {"time": el, "hist0": hist[0], "hist_last": hist[-1], "hist50": hist[50]},
    }
