"""In-process trainers for the runs whose user scripts are not handed over."""
import math, time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from .common import teacher_data, blobs


def mlp(d_in, h, k, depth=2, act=nn.ReLU, drop=0.0):
    layers, d = [], d_in
    for _ in range(depth):
        layers += [nn.Linear(d, h), act()]
        if drop:
            layers.append(nn.Dropout(drop))
        d = h
    layers.append(nn.Linear(d, k))
    return nn.Sequential(*layers)


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    out = model(X)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


# ---------------------------------------------------------------- run04: sorted data, no shuffle
def train_run04(seed=404):
    sample, rng = teacher_data(seed, 0, 20, 6, hidden=16)
    Xtr, ytr = sample(6000, rng)
    Xva, yva = sample(1200, rng)
    order = np.argsort(ytr, kind="stable")          # export from the DB came ordered by label
    Xtr, ytr = Xtr[order], ytr[order]
    torch.manual_seed(seed)
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=50, shuffle=False)
    model = mlp(20, 128, 6)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    steps, epochs_out, step = [], [], 0
    t_start = time.time()
    for ep in range(1, 11):
        model.train()
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step(); step += 1
            if step % 5 == 0:
                steps.append(dict(step=step, epoch=ep, loss=loss.item(), gn=gn.item(), t=time.time() - t_start))
        vl, va = evaluate(model, Xv, yv)
        epochs_out.append(dict(epoch=ep, val_loss=vl, val_acc=va, step=step, t=time.time() - t_start))
    counts = np.bincount(ytr, minlength=6).tolist()
    return dict(steps=steps, epochs=epochs_out, n_train=len(ytr), n_val=len(yva), counts=counts,
                steps_per_epoch=len(dl))


# ---------------------------------------------------------------- run06: training (eval used correctly here)
class Net06(nn.Module):
    def __init__(self, n_in=40, n_hidden=256, n_out=8, p_drop=0.5):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(n_in, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p_drop),
            nn.Linear(n_hidden, n_hidden), nn.BatchNorm1d(n_hidden), nn.ReLU(), nn.Dropout(p_drop),
        )
        self.head = nn.Linear(n_hidden, n_out)

    def forward(self, x):
        return self.head(self.body(x))


def train_run06(workdir, seed=606):
    import os
    sample, rng = teacher_data(seed, 0, 40, 8, hidden=8, w1s=1.0)
    Xtr, ytr = sample(6000, rng)
    Xva, yva = sample(1000, rng)
    os.makedirs(f"{workdir}/data", exist_ok=True)
    os.makedirs(f"{workdir}/checkpoints", exist_ok=True)
    np.savez(f"{workdir}/data/val.npz", X=Xva, y=yva)
    torch.manual_seed(seed)
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=128, shuffle=True)
    model = Net06()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    rows, best = [], -1
    for ep in range(1, 16):
        model.train(); tl, tn, tc = 0.0, 0, 0
        t0 = time.time()
        for xb, yb in dl:
            out = model(xb); loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tn += len(yb); tc += (out.argmax(1) == yb).sum().item()
        vl, va = evaluate(model, Xv, yv)
        saved = va > best
        if saved:
            best = va
            torch.save(model.state_dict(), f"{workdir}/checkpoints/best.pt")
        rows.append(dict(epoch=ep, loss=tl / tn, acc=tc / tn, val_loss=vl, val_acc=va, saved=saved,
                         t=time.time() - t0))
    return dict(rows=rows, best=best, n_train=len(ytr), n_val=len(yva))


# ---------------------------------------------------------------- run07: augmentation copies before split
def train_run07(seed=707):
    rng = np.random.default_rng(seed)
    sample, _ = blobs(seed, 0, 16, 4, sep=0.45)
    X0, y0 = sample(1500, rng)
    # prep.py: 5 jittered copies per row, then random 80/20 split
    reps = 5
    X = np.concatenate([X0 + rng.normal(0, 0.02, size=X0.shape).astype(np.float32) for _ in range(reps)])
    y = np.concatenate([y0] * reps)
    idx = rng.permutation(len(X))
    cut = int(0.8 * len(X))
    tr, va = idx[:cut], idx[cut:]
    Xtr, ytr, Xva, yva = X[tr], y[tr], X[va], y[va]
    Xte, yte = sample(1000, rng)   # new production batch
    torch.manual_seed(seed)
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=64, shuffle=True)
    model = mlp(16, 256, 4, depth=2, drop=0.2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    rows = []
    for ep in range(1, 26):
        model.train(); tl, tn, tc = 0.0, 0, 0
        t0 = time.time()
        for xb, yb in dl:
            out = model(xb); loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tn += len(yb); tc += (out.argmax(1) == yb).sum().item()
        vl, va = evaluate(model, Xv, yv)
        rows.append(dict(epoch=ep, loss=tl / tn, acc=tc / tn, val_loss=vl, val_acc=va, t=time.time() - t0))
    tel, tea = evaluate(model, torch.from_numpy(Xte), torch.from_numpy(yte))
    return dict(rows=rows, n_orig=len(y0), n_total=len(y), n_train=len(ytr), n_val=len(yva),
                n_test=len(yte), test_loss=tel, test_acc=tea)


# ---------------------------------------------------------------- run08: checkpoint saved from DataParallel
class Net08(nn.Module):
    def __init__(self, d_in=32, h=128, k=10):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU())
        self.classifier = nn.Linear(h, k)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def train_run08(workdir, seed=808):
    import os
    sample, rng = teacher_data(seed, 0, 32, 10, hidden=8, w1s=0.8)
    Xtr, ytr = sample(8000, rng)
    Xva, yva = sample(1500, rng)
    Xte, yte = sample(1500, rng)
    torch.manual_seed(seed)
    model = nn.DataParallel(Net08())
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=128, shuffle=True)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    rows = []
    t_start = time.time()
    for ep in range(1, 21):
        model.train(); tl, tn = 0.0, 0
        for xb, yb in dl:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tn += len(yb)
        vl, va = evaluate(model, Xv, yv)
        rows.append(dict(epoch=ep, loss=tl / tn, val_loss=vl, val_acc=va, t=time.time() - t_start))
    os.makedirs(f"{workdir}/runs/exp07", exist_ok=True)
    ck = f"{workdir}/runs/exp07/model_final.pth"
    torch.save(model.state_dict(), ck)
    # evaluate.py
    torch.manual_seed(99)
    m2 = Net08()
    msg = m2.load_state_dict(torch.load(ck, map_location="cpu"), strict=False)
    tel, tea = evaluate(m2, torch.from_numpy(Xte), torch.from_numpy(yte))
    pred = m2(torch.from_numpy(Xte)).argmax(1)
    per_class = [(pred[torch.from_numpy(yte) == c] == c).float().mean().item() for c in range(10)]
    counts = np.bincount(pred.numpy(), minlength=10).tolist()
    vl2, va2 = evaluate(m2, Xv, yv)
    return dict(rows=rows, msg=repr(msg), test_loss=tel, test_acc=tea, per_class=per_class,
                pred_counts=counts, n_test=len(yte), val_acc_reload=va2, n_params=sum(p.numel() for p in m2.parameters()))


# ---------------------------------------------------------------- run10: Adam with huge L2 weight decay
def train_run10(hidden, wd=0.05, seed=1010, epochs=20):
    sample, rng = teacher_data(seed, 0, 24, 6, hidden=6, w1s=1.0)
    Xtr, ytr = sample(6000, rng)
    Xva, yva = sample(1200, rng)
    torch.manual_seed(seed)
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=128, shuffle=True)
    model = mlp(24, hidden, 6, depth=2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=wd)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    rows = []
    for ep in range(1, epochs + 1):
        model.train(); tl, tn, tc = 0.0, 0, 0
        t0 = time.time()
        gns = []
        for xb, yb in dl:
            out = model(xb); loss = F.cross_entropy(out, yb)
            opt.zero_grad(); loss.backward()
            gns.append(torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item())
            opt.step()
            tl += loss.item() * len(yb); tn += len(yb); tc += (out.argmax(1) == yb).sum().item()
        vl, va = evaluate(model, Xv, yv)
        wn = math.sqrt(sum((p.detach() ** 2).sum().item() for p in model.parameters()))
        rows.append(dict(epoch=ep, loss=tl / tn, acc=tc / tn, val_loss=vl, val_acc=va, w_norm=wn,
                         gn=float(np.mean(gns)), t=time.time() - t0))
    return dict(rows=rows, n_params=sum(p.numel() for p in model.parameters()))


# ---------------------------------------------------------------- run12: healthy, short
def train_run12(seed=1212):
    sample, rng = teacher_data(seed, 0, 28, 10, hidden=6, w1s=0.7)
    Xtr, ytr = sample(12000, rng)
    Xva, yva = sample(2000, rng)
    torch.manual_seed(seed)
    dl = DataLoader(TensorDataset(torch.from_numpy(Xtr), torch.from_numpy(ytr)), batch_size=64, shuffle=True)
    model = mlp(28, 128, 10, depth=2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Xv, yv = torch.from_numpy(Xva), torch.from_numpy(yva)
    first_loss = None
    rows = []
    for ep in range(1, 9):
        model.train(); tl, tn, tc = 0.0, 0, 0
        for xb, yb in dl:
            out = model(xb); loss = F.cross_entropy(out, yb)
            if first_loss is None:
                first_loss = loss.item()
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(yb); tn += len(yb); tc += (out.argmax(1) == yb).sum().item()
        vl, va = evaluate(model, Xv, yv)
        rows.append(dict(epoch=ep, loss=tl / tn, acc=tc / tn, val_loss=vl, val_acc=va))
    return dict(rows=rows, first_loss=first_loss, counts=np.bincount(ytr, minlength=10).tolist())
