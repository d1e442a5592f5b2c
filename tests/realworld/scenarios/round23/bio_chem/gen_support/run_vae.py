"""run11: SMILES VAE whose KL term is summed over batch and latent dims while the reconstruction term is a per-token
mean: the posterior collapses (KL -> 0) and every decoded / sampled molecule is the same string."""
import os
import shutil

import numpy as np

from common import seed_all, write, make_molecule, smiles_tokens, run_user_script

TRAIN_PY = r'''"""SMILES VAE: conv encoder + GRU decoder (Gomez-Bombarelli style), char-level, teacher forcing."""
import json

import torch
import torch.nn as nn
import torch.nn.functional as F

MAX_LEN = 40
LATENT = 32
EPOCHS = 8
BATCH = 64
LR = 1e-3
BETA = 1.0

torch.manual_seed(0)


def tokenize(s):
    out, i = [], 0
    while i < len(s):
        if s[i:i + 2] in ("Cl", "Br"):
            out.append(s[i:i + 2]); i += 2
        elif s[i] == "[":
            j = s.index("]", i); out.append(s[i:j + 1]); i = j + 1
        else:
            out.append(s[i]); i += 1
    return out


smiles = [l.strip() for l in open("data/kinase_focused_lib.smi") if l.strip()]
toks = [tokenize(s) for s in smiles]
toks = [t for t in toks if len(t) < MAX_LEN]
vocab = ["<pad>", "<eos>", "<sos>"] + sorted({c for t in toks for c in t})
stoi = {c: i for i, c in enumerate(vocab)}
PAD, EOS, SOS, V = 0, 1, 2, len(vocab)
json.dump(vocab, open("vocab.json", "w"))


def encode(t):
    ids = [stoi[c] for c in t] + [EOS]
    return ids + [PAD] * (MAX_LEN - len(ids))


data = torch.tensor([encode(t) for t in toks])
n_val = len(data) // 10
train, val = data[n_val:], data[:n_val]
print(f"{len(data)} SMILES (max {MAX_LEN} tokens), vocab {V}, train {len(train)}, val {len(val)}")


class SmilesVAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 32, padding_idx=PAD)
        self.conv = nn.Sequential(nn.Conv1d(32, 64, 9), nn.ReLU(), nn.Conv1d(64, 64, 9), nn.ReLU(),
                                  nn.Conv1d(64, 64, 11), nn.ReLU())
        self.fc = nn.Linear(64 * (MAX_LEN - 26), 256)
        self.fc_mu = nn.Linear(256, LATENT)
        self.fc_logvar = nn.Linear(256, LATENT)
        self.dec_h0 = nn.Linear(LATENT, 96)
        self.dec_gru = nn.GRU(32, 96, batch_first=True)
        self.dec_out = nn.Linear(96, V)

    def encode(self, x):
        h = self.conv(self.emb(x).transpose(1, 2)).flatten(1)
        h = F.relu(self.fc(h))
        return self.fc_mu(h), self.fc_logvar(h)

    def decode(self, z, x):
        """teacher forcing: input is <sos> + x[:-1]"""
        inp = torch.cat([torch.full((len(x), 1), SOS), x[:, :-1]], 1)
        h0 = torch.tanh(self.dec_h0(z)).unsqueeze(0)
        out, _ = self.dec_gru(self.emb(inp), h0)
        return self.dec_out(out)

    @torch.no_grad()
    def generate(self, z):
        h = torch.tanh(self.dec_h0(z)).unsqueeze(0)
        tok = torch.full((len(z), 1), SOS)
        out = []
        for _ in range(MAX_LEN):
            o, h = self.dec_gru(self.emb(tok), h)
            tok = self.dec_out(o).argmax(-1)
            out.append(tok)
        return torch.cat(out, 1)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decode(z, x), mu, logvar


def vae_loss(logits, x, mu, logvar):
    recon = F.cross_entropy(logits.reshape(-1, V), x.reshape(-1), ignore_index=PAD)
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return recon + BETA * kld, recon, kld


def to_smiles(ids):
    out = []
    for i in ids:
        if i == EOS:
            break
        if i not in (PAD, SOS):
            out.append(vocab[i])
    return "".join(out)


model = SmilesVAE()
opt = torch.optim.Adam(model.parameters(), lr=LR)
for epoch in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(train))
    s_loss = s_rec = s_kl = 0.0
    nb = 0
    for i in range(0, len(train), BATCH):
        x = train[perm[i:i + BATCH]]
        logits, mu, logvar = model(x)
        loss, rec, kl = vae_loss(logits, x, mu, logvar)
        opt.zero_grad()
        loss.backward()
        opt.step()
        s_loss += loss.item(); s_rec += rec.item(); s_kl += kl.item(); nb += 1
    model.eval()
    with torch.no_grad():
        logits, mu, logvar = model(val)
        vl, vr, vk = vae_loss(logits, val, mu, logvar)
        tok_acc = ((logits.argmax(-1) == val) | (val == PAD)).float().mean().item()
    print(f"epoch {epoch:2d} | loss {s_loss / nb:.4f} | recon {s_rec / nb:.4f} | kl {s_kl / nb:.4f} | "
          f"val_recon {vr.item():.4f} | val_kl {vk.item():.4f} | val_tok_acc {tok_acc:.3f}")
torch.save(model.state_dict(), "smiles_vae.pt")

model.eval()
with torch.no_grad():
    print("\nreconstructions (val):")
    mu, logvar = model.encode(val[:6])
    for x, l in zip(val[:6], model.generate(mu)):
        print(f"  in : {to_smiles(x.tolist())}\n  out: {to_smiles(l.tolist())}")
    print("\nsamples from prior:")
    z = torch.randn(1000, LATENT)
    samples = [to_smiles(s.tolist()) for s in model.generate(z)]
    for s in samples[:10]:
        print("  " + s)
    print(f"unique: {len(set(samples))}/{len(samples)}  novel: "
          f"{len(set(samples) - set(smiles))}/{len(set(samples))}")
'''


def run(outdir):
    seed_all(11)
    rng = np.random.default_rng(1111)
    smiles, seen = [], set()
    while len(smiles) < 2200:
        s, _, _ = make_molecule(rng)
        if s in seen or len(smiles_tokens(s)) >= 40:
            continue
        seen.add(s)
        smiles.append(s)
    work = os.path.join(outdir, ".work", "run11")
    os.makedirs(os.path.join(work, "data"), exist_ok=True)
    with open(os.path.join(work, "data", "kinase_focused_lib.smi"), "w") as f:
        f.write("\n".join(smiles) + "\n")
    out, rc, el = run_user_script(TRAIN_PY, work, [], "/home/ofarouk/genchem", "vae")
    shutil.rmtree(work, ignore_errors=True)
    d = f"{outdir}/runs/run11"
    write(f"{d}/train_vae.py", TRAIN_PY)
    write(f"{d}/stdout.txt", "$ python train_vae.py\n" + out)
    uniq = [l for l in out.splitlines() if l.startswith("unique")][0]
    return {
        "truth": "mode_collapse",
        "symptom": ("My SMILES VAE's loss goes down nicely but every molecule I sample from the prior is the same string "
                    f"({uniq.split()[1]} unique). Do I need a bigger latent space or more epochs?"),
        "how": ("vae_loss adds a KL summed over the whole batch and all 32 latent dims to a per-token mean "
                "cross-entropy, so the KL dominates: kl drops to ~0 within the first epochs (posterior collapse), the "
                "decoder ignores z and emits one string for every input and every prior sample."),
        "_stats": {"time": el, "rc": rc, "out": out[-1500:]},
    }
