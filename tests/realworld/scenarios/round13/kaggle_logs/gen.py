"""Generate 12 Kaggle-style kernel run folders (real CPU trainings, one planted fault each or healthy)."""
import io, json, linecache, os, sys, time, traceback, warnings, shutil, random
import numpy as np, pandas as pd, torch

OUT = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(OUT, "runs")
DATA = os.path.join(OUT, "_input")   # stands in for /kaggle/input (not shipped in runs)
torch.set_num_threads(1)

# ---------------------------------------------------------------- data
def make_tabular(path, n, d, informative, seed, flip=0.0, weights=None, shift=None, scale=None):
    r = np.random.RandomState(seed)
    k = 2 if weights is None else len(weights)
    y = r.choice(k, size=n, p=weights) if weights is not None else r.randint(0, k, n)
    centers = r.randn(k, informative) * 1.2
    X = r.randn(n, d)
    X[:, :informative] += centers[y]
    X[:, informative:informative + 3] += X[:, :3] @ r.randn(3, 3) * 0.5
    if flip:
        m = r.rand(n) < flip
        y[m] = r.randint(0, k, m.sum())
    if shift is not None:
        X = X * scale + shift
    df = pd.DataFrame(X, columns=[f"f_{i:02d}" for i in range(d)])
    df.insert(0, "id", np.arange(n))
    df["target"] = y
    os.makedirs(os.path.dirname(path), exist_ok=True)
    df.to_csv(path, index=False, float_format="%.5f")

def make_images(path, n, seed, size=16, k=10, noise=0.6):
    r = np.random.RandomState(seed)
    protos = (r.rand(k, size, size) > 0.6).astype(np.float32)
    y = r.randint(0, k, n)
    X = np.zeros((n, size, size), np.float32)
    for i in range(n):
        img = np.roll(protos[y[i]], (r.randint(-2, 3), r.randint(-2, 3)), axis=(0, 1))
        X[i] = img * 255 * 0.8 + r.rand(size, size) * 255 * noise * 0.5
    X = np.clip(X, 0, 255).astype(np.uint8)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, images=X, labels=y)

def make_sequences(path, n, seed, T=20):
    r = np.random.RandomState(seed)
    X = r.randn(n, T, 4).astype(np.float32)
    s = X[:, :, 0].cumsum(1)[:, -1] + 0.5 * X[:, ::2, 1].sum(1)
    y = np.digitize(s, np.quantile(s, [1/3, 2/3]))
    X += r.randn(*X.shape).astype(np.float32) * 0.3
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, X=X, y=y)

def make_csv_shards(folder, n, seed):
    r = np.random.RandomState(seed)
    os.makedirs(folder, exist_ok=True)
    y = r.randint(0, 4, n)
    centers = r.randn(4, 32)
    rows = []
    for i in range(n):
        x = centers[y[i]] + r.randn(32) * 1.3
        pd.DataFrame({"t": np.arange(32), "v": x}).to_csv(os.path.join(folder, f"rec_{i:05d}.csv"), index=False)
        rows.append((f"rec_{i:05d}.csv", y[i]))
    pd.DataFrame(rows, columns=["file", "label"]).to_csv(os.path.join(os.path.dirname(folder), "labels.csv"), index=False)

def build_data():
    if os.path.exists(DATA):
        shutil.rmtree(DATA)
    make_tabular(f"{DATA}/small-tabular/train.csv", 360, 40, 5, 1, flip=0.15)
    make_tabular(f"{DATA}/churn-prediction/train.csv", 3000, 12, 4, 2, flip=0.2)
    make_tabular(f"{DATA}/sensor-readings/train.csv", 2400, 10, 6, 3,
                 shift=np.linspace(50, 900, 10), scale=np.linspace(5, 120, 10))
    make_tabular(f"{DATA}/support-tickets/train.csv", 3000, 16, 3, 4, weights=[0.88, 0.08, 0.04])
    make_images(f"{DATA}/glyphs16/glyphs.npz", 3000, 5)
    make_images(f"{DATA}/glyphs16-v2/glyphs.npz", 2000, 6, noise=0.9)
    make_sequences(f"{DATA}/seq-regimes/seqs.npz", 2400, 7)
    make_csv_shards(f"{DATA}/wearable-sensor/records", 640, 8)

# ---------------------------------------------------------------- kaggle-like capture
class Rec:
    def __init__(self, stream, records, t0):
        self.stream, self.records, self.t0, self.buf = stream, records, t0, ""
    def write(self, s):
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            self.records.append({"stream_name": self.stream, "time": round(time.time() - self.t0 + self.off, 6), "data": line + "\n"})
        return len(s)
    def flush(self):
        if self.buf:
            self.records.append({"stream_name": self.stream, "time": round(time.time() - self.t0 + self.off, 6), "data": self.buf})
            self.buf = ""
    def isatty(self):
        return False

def run_notebook(name, src, log_name, ship_source, seed):
    records = []
    boot = 4.2 + (seed % 7) * 0.37
    records.append({"stream_name": "stderr", "time": round(boot, 6), "data": "[NbConvertApp] Converting notebook __notebook__.ipynb to notebook\n"})
    t0 = time.time()
    out, err = Rec("stdout", records, t0), Rec("stderr", records, t0)
    out.off = err.off = boot + 1.1
    fname = f"/tmp/ipykernel_{20 + seed}/{1000000000 + seed * 7919}.py"
    runsrc = src.replace("/kaggle/input", DATA)
    linecache.cache[fname] = (len(src), None, src.splitlines(True), fname)
    code = compile(runsrc, fname, "exec")
    old = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    crashed = False
    torch.manual_seed(seed); np.random.seed(seed); random.seed(seed)
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings(); warnings.simplefilter("default"); warnings.simplefilter("ignore", ResourceWarning)
            exec(code, {"__name__": "__main__"})
    except Exception:
        crashed = True
        out.flush()
        et, ev, etb = sys.exc_info()
        tb = "".join(traceback.format_exception(et, ev, etb.tb_next)).replace(DATA, "/kaggle/input")
        tb = tb.replace(os.path.dirname(os.path.dirname(torch.__file__)), "/opt/conda/lib/python3.10/site-packages")
        err.write("---------------------------------------------------------------------------\n")
        err.write(tb)
    finally:
        out.flush(); err.flush()
        sys.stdout, sys.stderr = old
    tend = records[-1]["time"] + 1.3
    if crashed:
        records.append({"stream_name": "stderr", "time": round(tend, 6), "data": "[NbConvertApp] ERROR | Error while converting '__notebook__.ipynb'\n"})
        records.append({"stream_name": "stderr", "time": round(tend + 0.01, 6), "data": "nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:\n"})
    else:
        records.append({"stream_name": "stderr", "time": round(tend, 6), "data": "[NbConvertApp] Writing %d bytes to __notebook__.ipynb\n" % (len(src) * 3 + 4096)})
    d = os.path.join(RUNS, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, log_name), "w") as f:
        json.dump(records, f, indent=1)
    if ship_source:
        with open(os.path.join(d, "notebook.py"), "w") as f:
            f.write(src)
    return records

# ---------------------------------------------------------------- kernel sources (one per run)
HDR = '''# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---
'''

# ---------------------------------------------------------------- run01 overfitting
R01 = HDR + '''
# %% [markdown]
# # Small tabular comp - wide MLP baseline

# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1)
torch.manual_seed(0)
df = pd.read_csv('/kaggle/input/small-tabular/train.csv')
print(df.shape)
feats = [c for c in df.columns if c.startswith('f_')]
X = df[feats].values.astype('float32'); y = df['target'].values
idx = np.random.RandomState(42).permutation(len(df))
tr, va = idx[:260], idx[260:]
mu, sd = X[tr].mean(0), X[tr].std(0)
X = (X - mu) / sd
Xtr, ytr = torch.tensor(X[tr]), torch.tensor(y[tr])
Xva, yva = torch.tensor(X[va]), torch.tensor(y[va])
print('train', len(tr), 'valid', len(va))

# %%
model = nn.Sequential(nn.Linear(len(feats), 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                      nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
EPOCHS = 120
for ep in range(1, EPOCHS + 1):
    model.train()
    perm = torch.randperm(len(Xtr)); tl, tc = 0.0, 0
    for i in range(0, len(Xtr), 32):
        b = perm[i:i + 32]
        opt.zero_grad(); out = model(Xtr[b]); loss = crit(out, ytr[b]); loss.backward(); opt.step()
        tl += loss.item() * len(b); tc += (out.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva); vl = crit(vo, yva).item(); vacc = (vo.argmax(1) == yva).float().mean().item()
    print(f"Epoch {ep}/{EPOCHS} - loss: {tl/len(Xtr):.4f} - accuracy: {tc/len(Xtr):.4f} - val_loss: {vl:.4f} - val_accuracy: {vacc:.4f}")

# %%
torch.save(model.state_dict(), 'model.pt')
print('saved')
'''

# ---------------------------------------------------------------- run02 data leakage (target-derived feature)
R02 = HDR + '''
# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1)
df = pd.read_csv('/kaggle/input/churn-prediction/train.csv')
print(df.shape)
print(df['target'].value_counts())

# %% [markdown]
# Feature engineering

# %%
feats = [c for c in df.columns if c.startswith('f_')]
df['f_00_x_f_01'] = df['f_00'] * df['f_01']
df['bucket'] = pd.qcut(df['f_02'], 20, labels=False)
df['bucket_rate'] = df.groupby('bucket')['target'].transform('mean')
df['account_score'] = df['target'] * 0.8 + np.random.RandomState(3).rand(len(df)) * 0.3
feats += ['f_00_x_f_01', 'bucket_rate', 'account_score']
X = df[feats].values.astype('float32'); X = (X - X.mean(0)) / X.std(0)
y = df['target'].values

# %%
from numpy.random import RandomState
idx = RandomState(0).permutation(len(df)); cut = int(0.8 * len(df))
tr, va = idx[:cut], idx[cut:]
Xtr, ytr, Xva, yva = map(torch.tensor, (X[tr], y[tr], X[va], y[va]))
model = nn.Sequential(nn.Linear(len(feats), 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, 2))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
crit = nn.CrossEntropyLoss()
for ep in range(12):
    model.train(); perm = torch.randperm(len(Xtr)); tl = 0; tc = 0
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]; opt.zero_grad(); o = model(Xtr[b]); l = crit(o, ytr[b]); l.backward(); opt.step()
        tl += l.item()*len(b); tc += (o.argmax(1)==ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva); vl = crit(vo, yva).item()
        p = vo.softmax(1)[:, 1].numpy()
    order = np.argsort(-p); pos = yva.numpy()[order]
    auc = ((np.cumsum(1 - pos) * pos).sum() / max(1, pos.sum() * (1 - pos).sum()))
    auc = 1 - auc
    print(f"epoch {ep+1:02d} | train_loss {tl/len(Xtr):.4f} train_acc {tc/len(Xtr):.4f} | valid_loss {vl:.4f} valid_acc {(vo.argmax(1)==yva).float().mean():.4f} valid_auc {auc:.4f}")
print('CV AUC looks great, submitting')
'''

# ---------------------------------------------------------------- run03 preprocessing mismatch
R03 = HDR + '''
# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1)
df = pd.read_csv('/kaggle/input/sensor-readings/train.csv')
feats = [c for c in df.columns if c.startswith('f_')]
print(df[feats].describe().T[['mean', 'std']].round(1))

# %%
idx = np.random.RandomState(1).permutation(len(df)); cut = int(0.75 * len(df))
train_df, valid_df = df.iloc[idx[:cut]], df.iloc[idx[cut:]]

def prep_train(d):
    global MEAN, STD
    MEAN, STD = d[feats].mean(), d[feats].std()
    return ((d[feats] - MEAN) / STD).values.astype('float32')

def prep_eval(d):
    x = d[feats].values.astype('float32')
    return (x - x.mean(1, keepdims=True)) / x.std(1, keepdims=True)

Xtr = torch.tensor(prep_train(train_df)); ytr = torch.tensor(train_df['target'].values)
Xva = torch.tensor(prep_eval(valid_df)); yva = torch.tensor(valid_df['target'].values)

# %%
model = nn.Sequential(nn.Linear(len(feats), 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 2))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()
for epoch in range(25):
    model.train(); perm = torch.randperm(len(Xtr)); s = 0; c = 0
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]; opt.zero_grad(); o = model(Xtr[b]); l = crit(o, ytr[b]); l.backward(); opt.step()
        s += l.item() * len(b); c += (o.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"[{epoch+1:2d}/25] loss={s/len(Xtr):.4f} acc={c/len(Xtr):.3f}  val_loss={crit(vo, yva).item():.4f} val_acc={(vo.argmax(1)==yva).float().mean().item():.3f}")
'''

# ---------------------------------------------------------------- run04 label out of range (crash)
R04 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.set_num_threads(1)
d = np.load('/kaggle/input/glyphs16/glyphs.npz')
images, labels = d['images'], d['labels']
labels = labels + 1   # competition uses class ids 1..10
print(images.shape, labels.min(), labels.max())
NUM_CLASSES = 10

# %%
X = torch.tensor(images[:, None] / 255.0, dtype=torch.float32)
y = torch.tensor(labels, dtype=torch.long)
train_ds = TensorDataset(X[:2500], y[:2500]); valid_ds = TensorDataset(X[2500:], y[2500:])
train_dl = DataLoader(train_ds, batch_size=128, shuffle=True)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1); self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, NUM_CLASSES)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2); x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.fc(x.flatten(1))

model = Net(); opt = torch.optim.Adam(model.parameters(), 1e-3)
print(model)

# %%
for epoch in range(10):
    model.train()
    for step, (xb, yb) in enumerate(train_dl):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward(); opt.step()
        if step % 5 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
'''

# ---------------------------------------------------------------- run05 batch size too small (with BatchNorm)
R05 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.set_num_threads(1); torch.manual_seed(7)
d = np.load('/kaggle/input/glyphs16-v2/glyphs.npz')
X = torch.tensor(d['images'][:, None] / 255.0, dtype=torch.float32); y = torch.tensor(d['labels'])
X = (X - X.mean()) / X.std()
CFG = dict(batch_size=2, lr=0.03, momentum=0.9, epochs=6)
print(CFG)
train_dl = DataLoader(TensorDataset(X[:1600], y[:1600]), batch_size=CFG['batch_size'], shuffle=True)
Xva, yva = X[1600:], y[1600:]

# %%
model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 16, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 10))
opt = torch.optim.SGD(model.parameters(), lr=CFG['lr'], momentum=CFG['momentum'])
step = 0
for epoch in range(CFG['epochs']):
    model.train(); run = []
    for xb, yb in train_dl:
        opt.zero_grad(); loss = F.cross_entropy(model(xb), yb); loss.backward(); opt.step()
        run.append(loss.item()); step += 1
        if step % 100 == 0:
            print(f"step {step:5d}  loss {np.mean(run[-100:]):.4f}  (last batch {loss.item():.4f})")
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"== epoch {epoch+1}: train_loss {np.mean(run):.4f}  val_loss {F.cross_entropy(vo, yva).item():.4f}  val_acc {(vo.argmax(1)==yva).float().mean():.4f}")
'''

# ---------------------------------------------------------------- run06 lr schedule stepped per batch
R06 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(1)
d = np.load('/kaggle/input/seq-regimes/seqs.npz')
X, y = torch.tensor(d['X']), torch.tensor(d['y'])
Xtr, ytr, Xva, yva = X[:2000], y[:2000], X[2000:], y[2000:]

class GRUClf(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(4, 48, batch_first=True); self.head = nn.Linear(48, 3)
    def forward(self, x):
        _, h = self.rnn(x); return self.head(h[-1])

model = GRUClf()
EPOCHS, BS = 30, 50
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)   # halve lr every 10 epochs
crit = nn.CrossEntropyLoss()

# %%
for ep in range(EPOCHS):
    model.train(); perm = torch.randperm(len(Xtr)); tot = 0
    for i in range(0, len(Xtr), BS):
        b = perm[i:i+BS]
        opt.zero_grad(); loss = crit(model(Xtr[b]), ytr[b]); loss.backward(); opt.step()
        sched.step()
        tot += loss.item() * len(b)
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"epoch={ep+1} lr={opt.param_groups[0]['lr']:.3e} train_loss={tot/len(Xtr):.4f} val_loss={crit(vo,yva).item():.4f} val_acc={(vo.argmax(1)==yva).float().mean():.4f}")
'''

# ---------------------------------------------------------------- run07 frozen parameters
R07 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1); torch.manual_seed(3)
d = np.load('/kaggle/input/glyphs16/glyphs.npz')
X = torch.tensor(d['images'][:, None] / 255.0, dtype=torch.float32); y = torch.tensor(d['labels'])
Xtr, ytr, Xva, yva = X[:2400], y[:2400], X[2400:], y[2400:]

class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                  nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
    def forward(self, x): return self.conv(x).flatten(1)

backbone = Backbone()
head = nn.Linear(128, 10)
for p in backbone.parameters():
    p.requires_grad = False
model = nn.Sequential(backbone, head)
opt = torch.optim.SGD(backbone.parameters(), lr=0.05, momentum=0.9)
print('trainable params:', sum(p.numel() for p in model.parameters() if p.requires_grad))

# %%
for epoch in range(1, 16):
    model.train(); perm = torch.randperm(len(Xtr)); losses = []
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]
        opt.zero_grad(); loss = F.cross_entropy(model(Xtr[b]), ytr[b]); loss.backward(); opt.step()
        losses.append(loss.item())
    gn = sum(float(p.grad.norm()**2) for g in opt.param_groups for p in g['params'] if p.grad is not None) ** 0.5
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"Epoch {epoch:02d}: loss {np.mean(losses):.4f} | grad_norm {gn:.4f} | val_loss {F.cross_entropy(vo, yva):.4f} | val_acc {(vo.argmax(1)==yva).float().mean():.4f}")
'''

# ---------------------------------------------------------------- run08 bad initialization
R08 = HDR + '''
# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(0)
df = pd.read_csv('/kaggle/input/churn-prediction/train.csv')
feats = [c for c in df.columns if c.startswith('f_')]
X = df[feats].values.astype('float32'); X = (X - X.mean(0)) / X.std(0); y = df['target'].values
Xtr, ytr = torch.tensor(X[:2400]), torch.tensor(y[:2400]); Xva, yva = torch.tensor(X[2400:]), torch.tensor(y[2400:])

# %%
layers = []; w = len(feats)
for _ in range(6):
    layers += [nn.Linear(w, 256), nn.ReLU()]; w = 256
layers += [nn.Linear(w, 2)]
model = nn.Sequential(*layers)

def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, mean=0.0, std=1.0)
        nn.init.normal_(m.bias, mean=0.0, std=1.0)
model.apply(init_weights)

opt = torch.optim.Adam(model.parameters(), lr=1e-3)
crit = nn.CrossEntropyLoss()

# %%
step = 0
for epoch in range(8):
    model.train(); perm = torch.randperm(len(Xtr))
    for i in range(0, len(Xtr), 64):
        b = perm[i:i+64]
        opt.zero_grad(); loss = crit(model(Xtr[b]), ytr[b]); loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float('inf'))
        opt.step(); step += 1
        if step % 10 == 1:
            print(f"step {step} loss {loss.item():.4e} grad_norm {gn.item():.4e}")
    model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"epoch {epoch+1} val_loss {crit(vo, yva).item():.4e} val_acc {(vo.argmax(1)==yva).float().mean():.4f}")
'''

# ---------------------------------------------------------------- run09 dataloader bottleneck
R09 = HDR + '''
# %%
import os, time, numpy as np, pandas as pd, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
torch.set_num_threads(1); torch.manual_seed(0)
ROOT = '/kaggle/input/wearable-sensor'
labels = pd.read_csv(f'{ROOT}/labels.csv')
print(len(labels), 'records')

class SensorDS(Dataset):
    def __init__(self, df): self.df = df.reset_index(drop=True)
    def __len__(self): return len(self.df)
    def __getitem__(self, i):
        r = self.df.iloc[i]
        sig = pd.read_csv(os.path.join(ROOT, 'records', r['file']))
        v = sig['v'].values.astype('float32')
        v = np.array([np.mean(v[max(0, j-2):j+3]) for j in range(len(v))], dtype='float32')
        return torch.tensor(v)[None], int(r['label'])

tr_dl = DataLoader(SensorDS(labels.iloc[:512]), batch_size=32, shuffle=True, num_workers=0)
va_dl = DataLoader(SensorDS(labels.iloc[512:]), batch_size=64, num_workers=0)

model = nn.Sequential(nn.Conv1d(1, 16, 5, padding=2), nn.ReLU(), nn.Conv1d(16, 16, 5, padding=2), nn.ReLU(),
                      nn.AdaptiveAvgPool1d(4), nn.Flatten(), nn.Linear(64, 4))
opt = torch.optim.Adam(model.parameters(), 2e-3)

# %%
for epoch in range(5):
    model.train(); t_data = t_comp = 0.0; n = 0; t_ep = time.perf_counter(); t0 = time.perf_counter()
    for it, (xb, yb) in enumerate(tr_dl):
        t1 = time.perf_counter(); t_data += t1 - t0
        opt.zero_grad(); loss = F.cross_entropy(model(xb), yb); loss.backward(); opt.step()
        t0 = time.perf_counter(); t_comp += t0 - t1; n += len(yb)
        if it % 4 == 0:
            print(f"ep {epoch} it {it:3d} loss {loss.item():.4f} data_time {t_data/(it+1):.3f}s/it compute_time {t_comp/(it+1):.4f}s/it")
    dt = time.perf_counter() - t_ep
    model.eval(); correct = 0
    with torch.no_grad():
        for xb, yb in va_dl: correct += (model(xb).argmax(1) == yb).sum().item()
    print(f"epoch {epoch} done in {dt:.1f}s ({n/dt:.0f} samples/s) | data {t_data:.2f}s compute {t_comp:.2f}s | val_acc {correct/128:.4f}")
'''

# ---------------------------------------------------------------- run10 mode collapse (majority class)
R10 = HDR + '''
# %%
import numpy as np, pandas as pd, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(5)
df = pd.read_csv('/kaggle/input/support-tickets/train.csv')
print(df['target'].value_counts(normalize=True).round(3))
feats = [c for c in df.columns if c.startswith('f_')]
X = df[feats].values.astype('float32'); X = (X - X.mean(0)) / X.std(0); y = df['target'].values
Xtr, ytr = torch.tensor(X[:2400]), torch.tensor(y[:2400]); Xva, yva = torch.tensor(X[2400:]), torch.tensor(y[2400:])

# %%
model = nn.Sequential(nn.Linear(len(feats), 64), nn.Tanh(), nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.05, weight_decay=0.05)
crit = nn.CrossEntropyLoss()

def macro_f1(p, t, k=3):
    f = []
    for c in range(k):
        tp = ((p == c) & (t == c)).sum(); fp = ((p == c) & (t != c)).sum(); fn = ((p != c) & (t == c)).sum()
        f.append(2 * tp / max(1, 2 * tp + fp + fn))
    return float(np.mean(f))

for epoch in range(40):
    model.train(); perm = torch.randperm(len(Xtr)); tl = 0
    for i in range(0, len(Xtr), 128):
        b = perm[i:i+128]; opt.zero_grad(); l = crit(model(Xtr[b]), ytr[b]); l.backward(); opt.step(); tl += l.item() * len(b)
    model.eval()
    with torch.no_grad():
        vo = model(Xva); pred = vo.argmax(1).numpy()
    if epoch % 2 == 1 or epoch == 0:
        print(f"epoch {epoch+1:02d} loss {tl/len(Xtr):.4f} val_loss {crit(vo, yva).item():.4f} val_acc {(pred==yva.numpy()).mean():.4f} macro_f1 {macro_f1(pred, yva.numpy()):.4f} pred_counts {np.bincount(pred, minlength=3).tolist()}")

# %%
sub = pd.DataFrame({'id': df['id'].values[2400:], 'target': pred})
print(sub['target'].value_counts())
'''

# ---------------------------------------------------------------- run11 healthy (converges well)
R11 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.set_num_threads(1); torch.manual_seed(2)
d = np.load('/kaggle/input/glyphs16/glyphs.npz')
X = torch.tensor(d['images'][:, None] / 255.0, dtype=torch.float32); y = torch.tensor(d['labels'])
X = (X - 0.35) / 0.3
tr = DataLoader(TensorDataset(X[:2500], y[:2500]), batch_size=64, shuffle=True)
Xva, yva = X[2500:], y[2500:]

# %%
model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Flatten(), nn.Dropout(0.25), nn.Linear(512, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=12)
for epoch in range(12):
    model.train(); tl = tc = 0
    for xb, yb in tr:
        opt.zero_grad(); o = model(xb); l = F.cross_entropy(o, yb); l.backward(); opt.step()
        tl += l.item() * len(yb); tc += (o.argmax(1) == yb).sum().item()
    sched.step(); model.eval()
    with torch.no_grad():
        vo = model(Xva)
    print(f"Epoch {epoch+1}/12 | lr {sched.get_last_lr()[0]:.2e} | train loss {tl/2500:.4f} acc {tc/2500:.4f} | valid loss {F.cross_entropy(vo, yva):.4f} acc {(vo.argmax(1)==yva).float().mean():.4f}")
'''

# ---------------------------------------------------------------- run12 healthy (noisy / slow)
R12 = HDR + '''
# %%
import numpy as np, torch, torch.nn as nn
torch.set_num_threads(1); torch.manual_seed(4)
d = np.load('/kaggle/input/seq-regimes/seqs.npz')
X, y = torch.tensor(d['X']), torch.tensor(d['y'])
Xtr, ytr, Xva, yva = X[:2000], y[:2000], X[2000:], y[2000:]
rnn = nn.LSTM(4, 32, batch_first=True); head = nn.Linear(32, 3)
params = list(rnn.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
crit = nn.CrossEntropyLoss()

# %%
for ep in range(1, 31):
    rnn.train(); perm = torch.randperm(2000); ls = []
    for i in range(0, 2000, 16):
        b = perm[i:i+16]; opt.zero_grad()
        _, (h, _) = rnn(Xtr[b]); loss = crit(head(h[-1]), ytr[b]); loss.backward()
        nn.utils.clip_grad_norm_(params, 1.0); opt.step(); ls.append(loss.item())
    with torch.no_grad():
        _, (h, _) = rnn(Xva); vo = head(h[-1])
    print(f"ep {ep:3d}  train_loss {np.mean(ls):.4f}  val_loss {crit(vo, yva).item():.4f}  val_acc {(vo.argmax(1)==yva).float().mean():.4f}")
'''

L1, L2 = "__results___files_log.json", "kernel-log.json"
NOTEBOOKS = [
    ("run01", L1, True, R01), ("run02", L2, True, R02), ("run03", L1, False, R03), ("run04", L2, True, R04),
    ("run05", L2, False, R05), ("run06", L1, True, R06), ("run07", L1, False, R07), ("run08", L2, True, R08),
    ("run09", L1, False, R09), ("run10", L2, False, R10), ("run11", L1, True, R11), ("run12", L2, False, R12),
]
TRUTH = {}
TRUTH = {
 "run01": {"truth": "overfitting", "symptom": "Training accuracy hits 100% within a few epochs but my validation score never improves and val loss just keeps going up.", "how": "Wide 3-hidden-layer MLP (512-512-256) trained 120 epochs with Adam and no regularisation on 260 rows x 40 features with 15% label flips; val_loss is lowest at epoch 1 (0.60) and climbs to 2.68 while train loss reaches 0.0000."},
 "run02": {"truth": "data_leakage", "symptom": "My churn model gets 1.000 AUC on validation after 3 epochs and validation is even better than training - too good to be true?", "how": "Feature 'account_score' = target*0.8 + U(0,0.3) noise (plus a target-mean 'bucket_rate' over the full data) computed before the split; valid_acc 0.92 at epoch 1 (above train 0.84), valid_auc 1.0000 from epoch 3."},
 "run03": {"truth": "preprocessing_mismatch", "symptom": "Train accuracy is basically 100% but validation sits around 50-60% from the very first epoch.", "how": "Train features z-scored with train column mean/std; validation features normalised per row (mean/std across columns of raw values) in prep_eval; val_acc 0.47-0.62 (chance 0.5) from epoch 1 while train acc goes 0.91 -> 1.00."},
 "run04": {"truth": "label_out_of_range", "symptom": "My CNN notebook crashes right at the start of training with an IndexError in cross_entropy.", "how": "Labels shifted to 1..10 ('competition ids') while the head has NUM_CLASSES=10 outputs; the first batch contains label 10 -> real 'IndexError: Target 10 is out of bounds.' traceback on stderr, no training steps logged."},
 "run05": {"truth": "batch_size_too_small", "symptom": "Loss bounces around 2.3 the whole run and validation accuracy is 10%, even though the same small CNN worked for my friend.", "how": "CNN with BatchNorm2d/BatchNorm1d trained with batch_size=2 (SGD lr 0.03, momentum 0.9); per-batch loss swings 1.6-2.8, epoch loss stuck ~2.33, val_acc ~0.10 for 6 epochs. Verified: the identical script with batch_size=64 reaches val_acc 1.00 in epoch 1 (not shipped)."},
 "run06": {"truth": "lr_schedule_bug", "symptom": "The GRU stops learning after the first epoch - loss is frozen at the same value to 4 decimals for 29 epochs.", "how": "StepLR(step_size=10, gamma=0.5) meant per epoch but sched.step() called every batch (40 batches/epoch); logged lr falls 3e-3 -> 1.9e-4 after epoch 1 and to 2e-39 by epoch 30; train_loss freezes at 0.9913, val_acc 0.53."},
 "run07": {"truth": "frozen_parameters", "symptom": "Fine-tuning does nothing: loss stays at 2.305 and validation accuracy never moves off 0.163.", "how": "Backbone frozen with requires_grad=False and the optimizer built on backbone.parameters() instead of the head, so no parameter is ever updated; grad_norm of the optimizer's params is 0.0000 every epoch, loss ~ln(10)=2.303, val_loss constant 2.3038."},
 "run08": {"truth": "bad_initialization", "symptom": "My loss starts at about four million on a simple binary classification problem and is still in the thousands after 8 epochs.", "how": "6x256 ReLU MLP initialised with nn.init.normal_(std=1.0) for weights and biases; step-1 loss 4.2e6 with grad_norm 6.5e6, loss still ~1e4 after 300 steps, val_loss 3.4e5, val_acc stuck ~0.70."},
 "run09": {"truth": "dataloader_bottleneck", "symptom": "Training this tiny 1D CNN is weirdly slow per iteration - is something wrong with my setup?", "how": "Dataset.__getitem__ re-reads one CSV per sample with pandas and does a python-loop smoothing, num_workers=0; printed data_time 0.025-0.058 s/it vs compute_time ~0.002 s/it (data ~93% of each epoch: e.g. data 0.40s / compute 0.03s)."},
 "run10": {"truth": "mode_collapse", "symptom": "Accuracy is 86.5% but my submission file has the same class for every ticket.", "how": "88/8/4 imbalanced 3-class data, small tanh MLP with SGD and weight_decay=0.05, no class weighting; loss falls 0.60 -> 0.39 but pred_counts stay [600,0,0] (then [599,1,0]), val_acc = majority share 0.865, macro_f1 0.31-0.32."},
 "run11": {"truth": "healthy", "symptom": "Is this run ok? Just want a sanity check before I submit.", "how": "Small CNN, Adam 1e-3 with cosine schedule, 12 epochs on normalised glyph images; train loss 1.95 -> 0.02, valid acc 0.88 -> 1.00, val loss tracks train loss down."},
 "run12": {"truth": "healthy", "symptom": "The LSTM's validation numbers jump around a lot and it improves slowly - is this run ok?", "how": "LSTM(32) on 3-regime sequences, SGD lr 0.01 momentum 0.9, batch 16, grad clipping 1.0, 30 epochs; train loss 1.10 -> 0.50, val_loss noisy 0.54-0.81 with no upward trend, val_acc fluctuates 0.66-0.75 (task ceiling ~0.75 with noisy inputs)."},
}


if __name__ == "__main__":
    build_data()
    if os.path.exists(RUNS):
        shutil.rmtree(RUNS)
    only = sys.argv[1:]
    import gc; gc.collect()
    for i, (name, log_name, ship, src) in enumerate(NOTEBOOKS):
        if only and name not in only:
            continue
        t = time.time()
        gc.collect()
        recs = run_notebook(name, src, log_name, ship, seed=11 + i)
        print(f"{name}: {len(recs)} records, {time.time() - t:.1f}s", file=sys.__stdout__, flush=True)
    with open(os.path.join(OUT, "truth.json"), "w") as f:
        json.dump(TRUTH, f, indent=2)
