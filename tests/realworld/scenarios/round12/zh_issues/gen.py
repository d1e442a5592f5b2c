#!/usr/bin/env python
"""Generator for round-12 zh_issues runs: writes each user's scripts + data into a scratch
project folder, really runs them (CPU, 1 thread), captures the console output and writes
runs/<name>/question.md (+ config.yaml / train.py for some runs) and truth.json."""
import json, os, re, shutil, subprocess, sys, textwrap
from pathlib import Path
import numpy as np

OUT = Path(__file__).resolve().parent
WORKROOT = OUT.parent / "zh_issues_work"
PY = "/work/main/.venv/bin/python"
SITE = "/work/main/.venv/lib/python3.11/site-packages"
STDLIB = "/root/.pyenv/versions/3.11.7/lib/python3.11"

RUNS = []
def run(**kw):
    RUNS.append(kw)
    return kw

# ---------------------------------------------------------------- data helpers
def blobs(rs, n, d, k, sep, noise=1.0, centers=None):
    if centers is None:
        centers = rs.randn(k, d) * sep
    y = rs.randint(0, k, n)
    x = centers[y] + rs.randn(n, d) * noise
    return x.astype(np.float32), y.astype(np.int64), centers

def shapes_images(rs, n, size=16, k=4, bg_noise=25):
    """uint8 grayscale images of simple shapes (0 circle, 1 square, 2 triangle, 3 cross)."""
    X = np.zeros((n, size, size), np.float32)
    y = rs.randint(0, k, n)
    yy, xx = np.mgrid[0:size, 0:size]
    for i in range(n):
        cx, cy = rs.uniform(5, size - 5, 2)
        r = rs.uniform(2.5, 4.5)
        c = y[i]
        if c == 0:
            m = (xx - cx) ** 2 + (yy - cy) ** 2 <= r ** 2
        elif c == 1:
            m = (abs(xx - cx) <= r * 0.8) & (abs(yy - cy) <= r * 0.8)
        elif c == 2:
            m = (yy - cy >= -r) & (yy - cy <= r) & (abs(xx - cx) <= (yy - cy + r) / 2)
        else:
            m = ((abs(xx - cx) <= 0.8) & (abs(yy - cy) <= r)) | ((abs(yy - cy) <= 0.8) & (abs(xx - cx) <= r))
        img = rs.uniform(20, 70) + rs.randn(size, size) * bg_noise
        img[m] = rs.uniform(150, 240) + rs.randn(m.sum()) * 15
        X[i] = img
    return np.clip(X, 0, 255).astype(np.uint8), y.astype(np.int64)

# ====================================================================== run: lr
LR_TRAIN = r'''
import argparse
import logging

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(level=logging.INFO, format="%(asctime)s - %(levelname)s - %(message)s")
logger = logging.getLogger("train")


def build_model(cfg):
    h = cfg["model"]["hidden"]
    layers, d = [], cfg["model"]["in_dim"]
    for _ in range(cfg["model"]["depth"]):
        layers += [nn.Linear(d, h), nn.ReLU()]
        d = h
    layers.append(nn.Linear(d, cfg["model"]["num_classes"]))
    return nn.Sequential(*layers)


def evaluate(model, loader, crit):
    model.eval()
    tot, correct, loss_sum = 0, 0, 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss_sum += crit(out, y).item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            tot += len(y)
    model.train()
    return loss_sum / tot, correct / tot


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/config.yaml")
    args = parser.parse_args()
    cfg = yaml.safe_load(open(args.config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    tr = np.load(cfg["data"]["train"])
    va = np.load(cfg["data"]["val"])
    train_ds = TensorDataset(torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"]))
    val_ds = TensorDataset(torch.from_numpy(va["x"]), torch.from_numpy(va["y"]))
    train_loader = DataLoader(train_ds, batch_size=cfg["train"]["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=512)
    logger.info("train samples: %d, val samples: %d", len(train_ds), len(val_ds))

    model = build_model(cfg)
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=cfg["optim"]["lr"],
                          momentum=cfg["optim"]["momentum"], weight_decay=cfg["optim"]["weight_decay"])
    logger.info("optimizer: SGD lr=%s momentum=%s", cfg["optim"]["lr"], cfg["optim"]["momentum"])

    step = 0
    for epoch in range(1, cfg["train"]["epochs"] + 1):
        for x, y in train_loader:
            out = model(x)
            loss = crit(out, y)
            opt.zero_grad()
            loss.backward()
            grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
            opt.step()
            step += 1
            if step % cfg["train"]["log_every"] == 0:
                logger.info("epoch %d step %d | loss %.4f | grad_norm %.3f | lr %.4f",
                            epoch, step, loss.item(), grad_norm.item(), opt.param_groups[0]["lr"])
        val_loss, val_acc = evaluate(model, val_loader, crit)
        logger.info("epoch %d finished | val_loss %.4f | val_acc %.4f", epoch, val_loss, val_acc)


if __name__ == "__main__":
    main()
'''
LR_CFG = '''seed: 42
data:
  train: data/train.npz
  val: data/val.npz
model:
  in_dim: 32
  hidden: 256
  depth: 4
  num_classes: 6
optim:
  lr: 0.26
  momentum: 0.9
  weight_decay: 0.0001
train:
  epochs: 4
  batch_size: 64
  log_every: 10
'''
def prep_lr(w):
    rs = np.random.RandomState(1)
    x, y, c = blobs(rs, 6000, 32, 6, 0.55, 1.0)
    xv, yv, _ = blobs(rs, 1200, 32, 6, 0.55, 1.0, centers=c)
    (w / "data").mkdir()
    np.savez(w / "data/train.npz", x=x, y=y)
    np.savez(w / "data/val.npz", x=xv, y=yv)
run(key="lr", truth="lr_too_high", files={"train.py": LR_TRAIN, "configs/config.yaml": LR_CFG}, prep=prep_lr,
    cmds=["python train.py --config configs/config.yaml"], show={"configs/config.yaml": "config.yaml"},
    how="SGD with momentum 0.9 at lr 0.26 (config.yaml) on a 4-layer 256-wide MLP, no warm-up or clipping; "
        "loss falls to ~0.26 by step 80 (val_acc 0.67 after epoch 1), then climbs through epoch 2 (0.76 -> 2.2 -> 8.2 -> 42.7) "
        "with grad_norm spiking to 22 and 289, NaN from step 180 on (val_acc 0.1533).")

# ====================================================================== run: nan
NAN_TRAIN = r'''
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

FEATS = ["area", "rooms", "age", "dist_subway", "floor", "total_floors", "green_rate"]

train_df = pd.read_csv("data/house_train.csv")
val_df = pd.read_csv("data/house_val.csv")
print(f"训练集: {len(train_df)} 条, 验证集: {len(val_df)} 条, 特征数: {len(FEATS)}")

mean, std = train_df[FEATS].mean(), train_df[FEATS].std()
y_mean, y_std = train_df["price"].mean(), train_df["price"].std()


def to_tensor(df):
    x = ((df[FEATS] - mean) / std).values.astype(np.float32)
    y = ((df["price"] - y_mean) / y_std).values.astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y).unsqueeze(1)


xtr, ytr = to_tensor(train_df)
xva, yva = to_tensor(val_df)
train_loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)

model = nn.Sequential(nn.Linear(len(FEATS), 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.MSELoss()

n_batches = len(train_loader)
for epoch in range(1, 6):
    model.train()
    running = 0.0
    for i, (x, y) in enumerate(train_loader, 1):
        pred = model(x)
        loss = criterion(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
        if i % 10 == 0:
            print(f"第{epoch}轮 [{i}/{n_batches}] 损失: {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        val_loss = criterion(model(xva), yva).item()
    print(f"第{epoch}轮 平均训练损失: {running / n_batches:.4f} 验证损失: {val_loss:.4f}")
'''
def prep_nan(w):
    import pandas as pd
    rs = np.random.RandomState(7)
    def make(n):
        area = rs.uniform(35, 180, n).round(1)
        rooms = np.clip((area / 35 + rs.randn(n) * 0.6).round(), 1, 6)
        age = rs.randint(0, 35, n).astype(float)
        dist = rs.gamma(2.0, 600, n).round(0)
        tf = rs.choice([6, 7, 11, 18, 24, 32], n)
        floor = np.array([rs.randint(1, t + 1) for t in tf])
        green = rs.uniform(0.15, 0.45, n).round(2)
        price = (area * (6.5 - 0.04 * age - 0.0006 * dist + 3 * green) + 8 * rooms + rs.randn(n) * 25).round(1)
        return pd.DataFrame(dict(area=area, rooms=rooms, age=age, dist_subway=dist, floor=floor,
                                 total_floors=tf, green_rate=green, price=price))
    tr, va = make(6000), make(1000)
    for r in rs.choice(len(tr), 3, replace=False):
        tr.loc[r, "age"] = np.nan          # empty cells in the csv
    (w / "data").mkdir()
    tr.to_csv(w / "data/house_train.csv", index=False)
    va.to_csv(w / "data/house_val.csv", index=False)
run(key="nan", truth="nan_in_data", files={"train.py": NAN_TRAIN}, prep=prep_nan,
    cmds=["python train.py"], show={},
    how="3 empty 'age' cells in the 6000-row training CSV; pandas mean/std skip NaN so only those rows "
        "become NaN; the loss is finite and falling until the first batch holding one, then NaN for good.")

# ====================================================================== run: overfit
OVF_TRAIN = r'''
import argparse
import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--cfg", default="config.yaml")
args = parser.parse_args()
cfg = yaml.safe_load(open(args.cfg))

torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

d = np.load("data/sensor_cls.npz")
xtr, ytr = torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"])
xva, yva = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])
print(f"训练样本: {len(xtr)}  验证样本: {len(xva)}  类别: {cfg['num_classes']}")

model = nn.Sequential(
    nn.Linear(xtr.shape[1], cfg["hidden"]), nn.ReLU(),
    nn.Linear(cfg["hidden"], cfg["hidden"]), nn.ReLU(),
    nn.Linear(cfg["hidden"], cfg["num_classes"]),
)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
criterion = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(xtr, ytr), batch_size=cfg["batch_size"], shuffle=True)

best_acc = 0.0
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    tl, tc, n = 0.0, 0, 0
    for x, y in loader:
        out = model(x)
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tl += loss.item() * len(y)
        tc += (out.argmax(1) == y).sum().item()
        n += len(y)
    model.eval()
    with torch.no_grad():
        out = model(xva)
        vl = criterion(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    if va > best_acc:
        best_acc = va
        torch.save(model.state_dict(), "best_model.pth")
    print(f"第{epoch}轮 训练损失: {tl / n:.3f} 训练准确率: {tc / n:.3f} 验证损失: {vl:.3f} 验证准确率: {va:.3f}")
print(f"训练结束, 最佳验证准确率: {best_acc:.3f}")
'''
OVF_CFG = '''seed: 2024
num_classes: 8
hidden: 512
lr: 0.001
weight_decay: 0.0
batch_size: 32
epochs: 60
'''
def prep_ovf(w):
    rs = np.random.RandomState(3)
    x, y, c = blobs(rs, 240, 48, 8, 0.32, 1.0)
    xv, yv, _ = blobs(rs, 1600, 48, 8, 0.32, 1.0, centers=c)
    (w / "data").mkdir()
    np.savez(w / "data/sensor_cls.npz", x_train=x, y_train=y, x_val=xv, y_val=yv)
run(key="ovf", truth="overfitting", files={"train.py": OVF_TRAIN, "config.yaml": OVF_CFG}, prep=prep_ovf,
    cmds=["python train.py --cfg config.yaml"], show={"config.yaml": "config.yaml"},
    how="240 training samples of a noisy 8-class 48-d problem, 512-wide 3-layer MLP, Adam, no weight decay, "
        "60 epochs: train loss -> ~0, val loss bottoms early then climbs steadily, val acc drifts down from its peak.")

# ====================================================================== run: noshuffle (train.py shown)
NOSHUF_TRAIN = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
torch.set_num_threads(1)

CLASSES = ["normal", "inner_race", "outer_race"]


def load_split(split):
    xs, ys = [], []
    for label, name in enumerate(CLASSES):
        feat = np.load(f"data/{split}/{name}.npy")
        xs.append(feat)
        ys.append(np.full(len(feat), label))
    x = np.concatenate(xs).astype(np.float32)
    y = np.concatenate(ys).astype(np.int64)
    return torch.from_numpy(x), torch.from_numpy(y)


x_train, y_train = load_split("train")
x_val, y_val = load_split("val")
mu, sigma = x_train.mean(0), x_train.std(0)
x_train = (x_train - mu) / sigma
x_val = (x_val - mu) / sigma
print("train:", tuple(x_train.shape), "val:", tuple(x_val.shape))

train_loader = DataLoader(TensorDataset(x_train, y_train), batch_size=40)

model = nn.Sequential(nn.Linear(24, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
criterion = nn.CrossEntropyLoss()

step = 0
for epoch in range(8):
    model.train()
    for x, y in train_loader:
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        if step % 2 == 0:
            print(f"step {step:4d}  loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        pred = model(x_val).argmax(1)
        acc = (pred == y_val).float().mean().item()
    print(f"==> epoch {epoch + 1} val_acc {acc:.4f}")

torch.save(model.state_dict(), "mlp_bearing.pt")
'''
def prep_noshuf(w):
    rs = np.random.RandomState(11)
    centers = rs.randn(3, 24) * 0.4
    for split, n in [("train", 400), ("val", 150)]:
        (w / "data" / split).mkdir(parents=True)
        for k, name in enumerate(["normal", "inner_race", "outer_race"]):
            x = centers[k] + rs.randn(n, 24) * 1.0 + 5.0
            np.save(w / "data" / split / f"{name}.npy", x.astype(np.float32))
run(key="noshuf", truth="data_not_shuffled", files={"train.py": NOSHUF_TRAIN}, prep=prep_noshuf,
    cmds=["python train.py"], show={"train.py": "train.py"},
    how="Training set is the three class files concatenated in class order and the DataLoader has no shuffle=True: "
        "each 30-step epoch is 10 batches of class 0, then 10 of class 1, then 10 of class 2; the per-step loss drops "
        "inside each block and jumps to ~2-4.7 at every class boundary (saw-tooth with a 10-step period aligned to the "
        "epoch), val acc bounces between 0.33 and 0.57 for 8 epochs.")

# ====================================================================== run: label range (crash)
LOR_TRAIN = r'''
import yaml
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

cfg = yaml.safe_load(open("configs/rating.yaml"))
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)


class RatingDataset(Dataset):
    def __init__(self, path):
        df = pd.read_csv(path)
        self.x = df[[c for c in df.columns if c.startswith("f")]].values.astype(np.float32)
        self.y = df["rating"].values.astype(np.int64)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.tensor(self.y[i])


class Net(nn.Module):
    def __init__(self, in_dim, num_classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, 128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 64), nn.ReLU())
        self.cls = nn.Linear(64, num_classes)

    def forward(self, x):
        return self.cls(self.body(x))


def train_one_epoch(model, loader, optimizer, criterion, epoch):
    model.train()
    for step, (x, y) in enumerate(loader):
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(f"[epoch {epoch}] step {step} loss={loss.item():.4f}")


def main():
    train_set = RatingDataset(cfg["train_csv"])
    print(f"训练样本数: {len(train_set)}, 特征维度: {train_set.x.shape[1]}, 类别数: {cfg['num_classes']}")
    loader = DataLoader(train_set, batch_size=cfg["batch_size"], shuffle=True)
    model = Net(train_set.x.shape[1], cfg["num_classes"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    criterion = nn.CrossEntropyLoss()
    print("开始训练...")
    for epoch in range(1, cfg["epochs"] + 1):
        train_one_epoch(model, loader, optimizer, criterion, epoch)


if __name__ == "__main__":
    main()
'''
LOR_CFG = '''seed: 0
train_csv: data/reviews_train.csv
num_classes: 5
batch_size: 128
lr: 0.002
epochs: 10
'''
def prep_lor(w):
    import pandas as pd
    rs = np.random.RandomState(5)
    x, y, _ = blobs(rs, 4000, 16, 5, 0.5)
    df = pd.DataFrame(x.round(4), columns=[f"f{i}" for i in range(16)])
    df["rating"] = y + 1                      # 1..5 stars as exported
    (w / "data").mkdir()
    df.to_csv(w / "data/reviews_train.csv", index=False)
run(key="lor", truth="label_out_of_range", files={"train.py": LOR_TRAIN, "configs/rating.yaml": LOR_CFG}, prep=prep_lor,
    cmds=["python train.py"], show={},
    how="CSV ratings are 1..5 stars, num_classes 5, used directly as CrossEntropyLoss targets; the first batch holds a 5 "
        "and the run dies with 'IndexError: Target 5 is out of bounds.' before any loss is printed.")

# ====================================================================== run: shape (crash mid-epoch)
SHP_TRAIN = r'''
import json
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
torch.set_num_threads(1)
MAX_LEN = 64
PAD = 0


class NewsDataset(Dataset):
    def __init__(self, path):
        self.samples = [json.loads(l) for l in open(path, encoding="utf-8")]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, idx):
        s = self.samples[idx]
        ids = s["input_ids"]
        ids = ids + [PAD] * (MAX_LEN - len(ids))
        return torch.tensor(ids, dtype=torch.long), torch.tensor(s["label"], dtype=torch.long)


class TextCNN(nn.Module):
    def __init__(self, vocab_size, num_classes, emb=64):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb, padding_idx=PAD)
        self.convs = nn.ModuleList([nn.Conv1d(emb, 64, k) for k in (3, 4, 5)])
        self.fc = nn.Linear(64 * 3, num_classes)

    def forward(self, x):
        h = self.emb(x).transpose(1, 2)
        h = torch.cat([torch.relu(c(h)).max(dim=2).values for c in self.convs], dim=1)
        return self.fc(h)


train_set = NewsDataset("data/news_train.jsonl")
vocab = json.load(open("data/vocab.json", encoding="utf-8"))
print(f"词表大小: {len(vocab)}  训练样本: {len(train_set)}")
loader = DataLoader(train_set, batch_size=32, shuffle=True)
model = TextCNN(len(vocab), 6)
print(f"模型参数量: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, 4):
    model.train()
    for step, (ids, labels) in enumerate(loader, 1):
        loss = criterion(model(ids), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 20 == 0:
            print(f"Epoch {epoch} | step {step}/{len(loader)} | loss {loss.item():.4f}")
'''
def prep_shp(w):
    rs = np.random.RandomState(21)
    V, K = 6000, 6
    (w / "data").mkdir()
    json.dump({f"tok{i}": i for i in range(V)}, open(w / "data/vocab.json", "w"))
    topic_words = [rs.choice(np.arange(10, V), 150, replace=False) for _ in range(K)]
    n = 9000
    long_idx = set(rs.choice(n, 4, replace=False).tolist())
    with open(w / "data/news_train.jsonl", "w", encoding="utf-8") as f:
        for i in range(n):
            lab = int(rs.randint(K))
            L = int(rs.randint(66, 90)) if i in long_idx else int(np.clip(rs.normal(38, 10), 8, 64))
            ids = [int(t) if rs.rand() < 0.4 else int(rs.randint(10, V)) for t in rs.choice(topic_words[lab], L)]
            f.write(json.dumps({"input_ids": ids, "label": lab}) + "\n")
run(key="shp", truth="shape_mismatch", files={"train.py": SHP_TRAIN}, prep=prep_shp,
    cmds=["python train.py"], show={},
    how="Dataset pads every sample to MAX_LEN=64 but never truncates; 4 of 9000 samples are longer than 64, so the "
        "default collate's torch.stack crashes ('stack expects each tensor to be equal size') at the first batch that "
        "holds one, after some normal logged steps.")

# ====================================================================== run: eval mode (train.py shown)
EVM_TRAIN = r'''import argparse
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)


class MLP(nn.Module):
    def __init__(self, in_dim=20, num_classes=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_dim, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.5),
            nn.Linear(256, num_classes),
        )

    def forward(self, x):
        return self.net(x)


def get_loader(split, batch_size, shuffle=False):
    d = np.load(f"data/{split}.npz")
    ds = TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"]))
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle)


def validate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return correct / total


def train(args):
    torch.manual_seed(args.seed)
    train_loader = get_loader("train", 128, shuffle=True)
    val_loader = get_loader("val", 256)
    model = MLP()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()
    best = 0.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        total_loss = 0.0
        for x, y in train_loader:
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total_loss += loss.item()
        acc = validate(model, val_loader)
        if acc > best:
            best = acc
            torch.save(model.state_dict(), "checkpoints/best.pt")
        print(f"Epoch {epoch:02d}  loss: {total_loss / len(train_loader):.4f}  val_acc: {acc:.4f}  best: {best:.4f}")


def test(args):
    torch.manual_seed(args.seed)
    model = MLP()
    model.load_state_dict(torch.load("checkpoints/best.pt"))
    test_loader = get_loader("test", 50)
    correct = total = 0
    with torch.no_grad():
        for x, y in test_loader:
            pred = model(x).argmax(1)
            correct += (pred == y).sum().item()
            total += len(y)
    print(f"test samples: {total}  test_acc: {correct / total:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["train", "test"], default="train")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is None:
        args.seed = np.random.randint(0, 10000)
    if args.mode == "train":
        train(args)
    else:
        test(args)
'''
def prep_evm(w):
    rs = np.random.RandomState(8)
    x, y, c = blobs(rs, 4000, 20, 8, 0.62, 1.0)
    (w / "data").mkdir(); (w / "checkpoints").mkdir(exist_ok=True)
    np.savez(w / "data/train.npz", x=x, y=y)
    for split, n in [("val", 1000), ("test", 2000)]:
        xs, ys, _ = blobs(rs, n, 20, 8, 0.62, 1.0, centers=c)
        if split == "test":
            o = np.argsort(ys, kind="stable")
            xs, ys = xs[o], ys[o]
        np.savez(w / f"data/{split}.npz", x=xs, y=ys)
run(key="evm", truth="eval_mode_forgotten", files={"train.py": EVM_TRAIN}, prep=prep_evm,
    cmds=[("python train.py --mode train", "python train.py --mode train --seed 0"),
          ("python train.py --mode test", "python train.py --mode test --seed 101"),
          ("python train.py --mode test", "python train.py --mode test --seed 202")],
    show={"train.py": "train.py"},
    how="test() loads the best checkpoint but never calls model.eval(): Dropout(0.5) and BatchNorm stay in training "
        "mode, so test accuracy is well below the val accuracy printed during training and changes between two runs.")

# ====================================================================== run: wrong checkpoint
WCK_COMMON = r'''import numpy as np
import torch
import torch.nn as nn


class WaveNet1D(nn.Module):
    def __init__(self, num_classes=5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 16, 7, padding=3), nn.BatchNorm1d(16), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(16, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def load_split(path):
    d = np.load(path)
    return torch.from_numpy(d["x"]).unsqueeze(1), torch.from_numpy(d["y"])
'''
WCK_TRAIN = r'''import argparse
import os
import time

import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

from common import WaveNet1D, load_split


def increment_path(base):
    if not os.path.exists(base):
        return base
    n = 2
    while os.path.exists(f"{base}{n}"):
        n += 1
    return f"{base}{n}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.yaml")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--max-steps", type=int, default=None)
    args = ap.parse_args()
    cfg = yaml.safe_load(open(args.config))
    epochs = args.epochs or cfg["train"]["epochs"]
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    save_dir = increment_path(os.path.join(cfg["project"], cfg["name"]))
    os.makedirs(save_dir)
    xtr, ytr = load_split(cfg["data"]["train"])
    xva, yva = load_split(cfg["data"]["val"])
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=cfg["train"]["batch_size"], shuffle=True)
    model = WaveNet1D(cfg["num_classes"])
    opt = torch.optim.SGD(model.parameters(), lr=cfg["train"]["lr"], momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    crit = nn.CrossEntropyLoss()
    print(f"Logging results to {save_dir}")
    best, step = 0.0, 0
    for epoch in range(epochs):
        t0 = time.time()
        model.train()
        tl = 0.0
        for x, y in loader:
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tl += loss.item()
            step += 1
            if args.max_steps and step >= args.max_steps:
                break
        sched.step()
        model.eval()
        with torch.no_grad():
            acc = (model(xva).argmax(1) == yva).float().mean().item()
        torch.save({"epoch": epoch, "model": model.state_dict(), "val_acc": acc}, os.path.join(save_dir, "last.pt"))
        if acc >= best:
            best = acc
            torch.save({"epoch": epoch, "model": model.state_dict(), "val_acc": acc}, os.path.join(save_dir, "best.pt"))
        print(f"{epoch:>5}/{epochs - 1:<5} train_loss {tl / len(loader):.4f}  val_acc {acc:.4f}  lr {sched.get_last_lr()[0]:.5f}")
        if args.max_steps and step >= args.max_steps:
            break
    print(f"{epoch + 1} epochs completed. best val_acc {best:.4f}")
    print(f"Results saved to {save_dir}")


if __name__ == "__main__":
    main()
'''
WCK_EVAL = r'''import argparse

import torch
import yaml

from common import WaveNet1D, load_split

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="config.yaml")
args = ap.parse_args()
cfg = yaml.safe_load(open(args.config))
torch.set_num_threads(1)

ckpt = torch.load(cfg["eval"]["weights"], map_location="cpu")
model = WaveNet1D(cfg["num_classes"])
model.load_state_dict(ckpt["model"])
model.eval()
print(f"Loaded weights: {cfg['eval']['weights']}")

x, y = load_split(cfg["data"]["test"])
with torch.no_grad():
    pred = model(x).argmax(1)
names = cfg["class_names"]
print(f"{'class':<10}{'n':>6}{'acc':>8}")
for k, name in enumerate(names):
    m = y == k
    print(f"{name:<10}{int(m.sum()):>6}{(pred[m] == k).float().mean().item():>8.3f}")
print(f"{'all':<10}{len(y):>6}{(pred == y).float().mean().item():>8.3f}")
'''
WCK_CFG = '''seed: 0
project: runs/train
name: exp
num_classes: 5
class_names: [sine, square, sawtooth, triangle, noise]
data:
  train: data/wave_train.npz
  val: data/wave_val.npz
  test: data/wave_test.npz
train:
  epochs: 12
  batch_size: 64
  lr: 0.02
eval:
  weights: runs/train/exp/best.pt
'''
def prep_wck(w):
    rs = np.random.RandomState(13)
    t = np.linspace(0, 1, 128, endpoint=False)
    def make(n):
        y = rs.randint(0, 5, n)
        X = np.zeros((n, 128), np.float32)
        for i in range(n):
            f = rs.uniform(2, 9); ph = rs.uniform(0, 1); a = rs.uniform(0.5, 1.5)
            u = (f * t + ph) % 1.0
            s = [np.sin(2 * np.pi * u), np.sign(np.sin(2 * np.pi * u)), 2 * u - 1,
                 2 * np.abs(2 * u - 1) - 1, rs.randn(128) * 0.6][y[i]]
            X[i] = a * s + rs.randn(128) * 0.35
        return X, y.astype(np.int64)
    (w / "data").mkdir()
    for split, n in [("train", 3000), ("val", 600), ("test", 1000)]:
        x, y = make(n)
        np.savez(w / f"data/wave_{split}.npz", x=x, y=y)
run(key="wck", truth="wrong_checkpoint",
    files={"common.py": WCK_COMMON, "train.py": WCK_TRAIN, "eval.py": WCK_EVAL, "config.yaml": WCK_CFG}, prep=prep_wck,
    hidden_cmds=["python train.py --config config.yaml --epochs 1 --max-steps 2"],
    cmds=["python train.py --config config.yaml", "python eval.py --config config.yaml"],
    show={"config.yaml": "config.yaml"},
    how="An earlier smoke run (2 steps) created runs/train/exp; the real 12-epoch run saved to runs/train/exp2 "
        "(printed), but config eval.weights still points at runs/train/exp/best.pt, so eval loads the barely trained "
        "weights: val_acc 0.93 during training, test acc 0.20 (chance) with one class dominating.")

# ====================================================================== run: preprocessing (train.py shown)
PRE_TRAIN = r'''import argparse
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
torch.set_num_threads(1)

CLASSES = ["circle", "square", "triangle", "cross"]
MEAN, STD = 0.25, 0.22


class SmallCNN(nn.Module):
    def __init__(self, n_cls=4):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, n_cls)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


def preprocess(imgs):
    x = imgs.astype(np.float32) / 255.0
    x = (x - MEAN) / STD
    return torch.from_numpy(x).unsqueeze(1)


def train():
    d = np.load("data/shapes_train.npz")
    x, y = preprocess(d["images"]), torch.from_numpy(d["labels"])
    n_val = 500
    xtr, ytr, xva, yva = x[n_val:], y[n_val:], x[:n_val], y[:n_val]
    loader = DataLoader(TensorDataset(xtr, ytr), batch_size=64, shuffle=True)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(1, 9):
        model.train()
        losses = []
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            acc = (model(xva).argmax(1) == yva).float().mean().item()
        print(f"epoch {epoch} train_loss={np.mean(losses):.4f} val_acc={acc:.4f}")
    torch.save(model.state_dict(), "shape_cnn.pth")


def load_images(path):
    imgs = np.load(path)["images"].astype(np.float32)
    imgs = (imgs - imgs.mean()) / 255.0
    return torch.from_numpy(imgs).unsqueeze(1)


def predict(path):
    model = SmallCNN()
    model.load_state_dict(torch.load("shape_cnn.pth"))
    model.eval()
    x = load_images(path)
    labels = np.load(path)["labels"]
    with torch.no_grad():
        pred = model(x).argmax(1).numpy()
    print(f"{len(pred)} images, acc={(pred == labels).mean():.4f}")
    print("pred distribution:", {c: int((pred == i).sum()) for i, c in enumerate(CLASSES)})


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["train", "predict"])
    ap.add_argument("--data", default="data/shapes_test.npz")
    args = ap.parse_args()
    if args.mode == "train":
        train()
    else:
        predict(args.data)
'''
def prep_pre(w):
    rs = np.random.RandomState(17)
    (w / "data").mkdir()
    x, y = shapes_images(rs, 3500)
    np.savez(w / "data/shapes_train.npz", images=x, labels=y)
    x, y = shapes_images(rs, 800)
    np.savez(w / "data/shapes_test.npz", images=x, labels=y)
run(key="pre", truth="preprocessing_mismatch", files={"train.py": PRE_TRAIN}, prep=prep_pre,
    cmds=["python train.py train", "python train.py predict --data data/shapes_test.npz"], show={"train.py": "train.py"},
    how="Training normalises images as (x/255 - 0.25)/0.22; predict() uses a separate load_images() that does "
        "(x - x.mean())/255, so test inputs are on a different scale/offset: val_acc ~0.99 in training, "
        "predict accuracy far lower with predictions piled on a few classes, on same-distribution test images.")

# ====================================================================== run: frozen
FRZ_TRAIN = r'''import argparse
import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, in_dim, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, dim), nn.GELU(), nn.LayerNorm(dim), nn.Linear(dim, dim), nn.GELU())

    def forward(self, x):
        return self.net(x)


class Classifier(nn.Module):
    def __init__(self, in_dim, dim, num_classes):
        super().__init__()
        self.encoder = Encoder(in_dim, dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def run_epoch(model, loader, crit, opt=None):
    train = opt is not None
    model.train(train)
    tot_loss, correct, n = 0.0, 0, 0
    with torch.set_grad_enabled(train):
        for x, y in loader:
            out = model(x)
            loss = crit(out, y)
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            tot_loss += loss.item() * len(y)
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    return tot_loss / n, correct / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    cfg = yaml.safe_load(open(ap.parse_args().config))
    torch.manual_seed(cfg["seed"])
    torch.set_num_threads(1)

    d = np.load(cfg["data"])
    tr = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    va = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    train_loader = DataLoader(tr, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(va, batch_size=256)

    model = Classifier(cfg["in_dim"], cfg["dim"], cfg["pretrain_classes"])
    model.load_state_dict(torch.load(cfg["pretrained"]))
    print(f"Loaded pretrained weights from {cfg['pretrained']}")
    if cfg["freeze_backbone"]:
        for p in model.encoder.parameters():
            p.requires_grad = False
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad],
                                  lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    model.head = nn.Linear(cfg["dim"], cfg["num_classes"])
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Trainable params: {n_train} / {sum(p.numel() for p in model.parameters())}")

    crit = nn.CrossEntropyLoss()
    for epoch in range(1, cfg["epochs"] + 1):
        lr = optimizer.param_groups[0]["lr"]
        tl, ta = run_epoch(model, train_loader, crit, optimizer)
        vl, vacc = run_epoch(model, val_loader, crit)
        scheduler.step()
        print(f"Epoch [{epoch}/{cfg['epochs']}] lr: {lr:.2e} train_loss: {tl:.4f} train_acc: {ta:.4f} "
              f"val_loss: {vl:.4f} val_acc: {vacc:.4f}")


if __name__ == "__main__":
    main()
'''
FRZ_CFG = '''seed: 7
data: data/finetune_5cls.npz
pretrained: pretrained/encoder_cls10.pth
in_dim: 64
dim: 256
pretrain_classes: 10
num_classes: 5
freeze_backbone: true
batch_size: 64
lr: 0.001
weight_decay: 0.01
epochs: 15
'''
def prep_frz(w):
    import torch, torch.nn as nn
    torch.manual_seed(0); torch.set_num_threads(1)
    rs = np.random.RandomState(23)
    ns = {}
    exec(compile(FRZ_TRAIN.split("def run_epoch")[0], "m", "exec"), ns)
    # pretrain encoder+head on a related 10-class task (same input space)
    x, y, c = blobs(rs, 4000, 64, 10, 0.5)
    m = ns["Classifier"](64, 256, 10)
    opt = torch.optim.Adam(m.parameters(), 1e-3)
    X, Y = torch.from_numpy(x), torch.from_numpy(y)
    for ep in range(4):
        perm = torch.randperm(len(X))
        for i in range(0, len(X), 64):
            idx = perm[i:i + 64]
            loss = nn.functional.cross_entropy(m(X[idx]), Y[idx])
            opt.zero_grad(); loss.backward(); opt.step()
    (w / "pretrained").mkdir(); (w / "data").mkdir()
    torch.save(m.state_dict(), w / "pretrained/encoder_cls10.pth")
    # downstream 5-class task in the same space
    c5 = c[:5] * 0.8 + rs.randn(5, 64) * 0.3
    xt, yt, _ = blobs(rs, 2500, 64, 5, 0, 1.0, centers=c5)
    xv, yv, _ = blobs(rs, 800, 64, 5, 0, 1.0, centers=c5)
    np.savez(w / "data/finetune_5cls.npz", x_train=xt, y_train=yt, x_val=xv, y_val=yv)
run(key="frz", truth="frozen_parameters", files={"train.py": FRZ_TRAIN, "config.yaml": FRZ_CFG}, prep=prep_frz,
    cmds=["python train.py --config config.yaml"], show={"config.yaml": "config.yaml"},
    how="Encoder frozen as intended, but the optimizer is built from the requires_grad params (the old 10-class head) "
        "BEFORE model.head is replaced by a new 5-class head; the new head is never in the optimizer, so no weight that "
        "affects the output ever changes: train/val loss identical to 4 decimals (1.7597/1.7142) all 15 epochs, acc frozen at 0.274/0.320 (5 classes).")

# ====================================================================== run: healthy converge
OK1_TRAIN = r'''import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(3407)
torch.set_num_threads(1)

d = np.load("data/shapes.npz")
x = torch.from_numpy(d["images"]).float().div(255.0).unsqueeze(1)
x = (x - x[:3000].mean()) / x[:3000].std()
y = torch.from_numpy(d["labels"])
train_ds, val_ds = TensorDataset(x[:3000], y[:3000]), TensorDataset(x[3000:], y[3000:])
train_loader = DataLoader(train_ds, batch_size=64, shuffle=True)
val_loader = DataLoader(val_ds, batch_size=256)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 16, 64), nn.ReLU(), nn.Linear(64, 4),
)
EPOCHS = 12
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, EPOCHS)
criterion = nn.CrossEntropyLoss()

for epoch in range(1, EPOCHS + 1):
    model.train()
    tl, tc, n = 0.0, 0, 0
    for xb, yb in train_loader:
        out = model(xb)
        loss = criterion(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        tl += loss.item() * len(yb); tc += (out.argmax(1) == yb).sum().item(); n += len(yb)
    scheduler.step()
    model.eval()
    vl, vc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in val_loader:
            out = model(xb)
            vl += criterion(out, yb).item() * len(yb); vc += (out.argmax(1) == yb).sum().item(); vn += len(yb)
    print(f"Epoch {epoch}/{EPOCHS}: 训练损失={tl / n:.4f} 训练准确率={tc / n:.4f} 验证损失={vl / vn:.4f} 验证准确率={vc / vn:.4f}")
torch.save(model.state_dict(), "cnn_shapes.pt")
print("模型已保存到 cnn_shapes.pt")
'''
def prep_ok1(w):
    rs = np.random.RandomState(31)
    (w / "data").mkdir()
    x, y = shapes_images(rs, 3800, bg_noise=35)
    np.savez(w / "data/shapes.npz", images=x, labels=y)
run(key="ok1", truth="healthy", files={"train.py": OK1_TRAIN}, prep=prep_ok1,
    cmds=["python train.py"], show={},
    how="Healthy: small BN CNN on 16x16 shape images, SGD+momentum with cosine schedule, 12 epochs; "
        "train and val loss fall together, val acc reaches ~0.99.")

# ====================================================================== run: healthy noisy (train.py shown)
OK2_TRAIN = r'''import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(42)
np.random.seed(42)
torch.set_num_threads(1)

SEQ_LEN = 40
BATCH = 8
STEPS = 1000


def make_batch(n):
    """3 类: 上升趋势 / 下降趋势 / 无趋势, 加较大噪声"""
    y = np.random.randint(0, 3, n)
    t = np.linspace(0, 1, SEQ_LEN)
    slope = np.where(y == 0, 1.0, np.where(y == 1, -1.0, 0.0)) * np.random.uniform(0.3, 0.9, n)
    x = slope[:, None] * t[None, :] + np.random.randn(n, SEQ_LEN) * 0.6
    x = x + np.random.uniform(-1, 1, (n, 1))
    return torch.tensor(x, dtype=torch.float32).unsqueeze(-1), torch.tensor(y)


class GRUClassifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.gru = nn.GRU(1, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, 3)

    def forward(self, x):
        _, h = self.gru(x)
        return self.fc(h[-1])


model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
x_val, y_val = make_batch(1000)

for step in range(1, STEPS + 1):
    model.train()
    x, y = make_batch(BATCH)
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 5 == 0:
        print(f"step {step} loss {loss.item():.4f}")
    if step % 100 == 0:
        model.eval()
        with torch.no_grad():
            out = model(x_val)
            print(f"[eval] step {step} val_loss {criterion(out, y_val).item():.4f} "
                  f"val_acc {(out.argmax(1) == y_val).float().mean().item():.4f}")
'''
run(key="ok2", truth="healthy", files={"train.py": OK2_TRAIN}, prep=None,
    cmds=["python train.py"], show={"train.py": "train.py"},
    how="Healthy but noisy: GRU(32) on noisy 3-class trend sequences, batch 8, Adam 1e-3, 1000 steps "
        "(200 logged lines); per-batch loss jumps around 0.3-1.4 while the val loss/acc printed every 100 steps improve "
        "steadily (val acc 0.53 -> 0.75).")


# ====================================================================== execution
def execute(spec):
    w = WORKROOT / spec["key"]
    if w.exists():
        shutil.rmtree(w)
    w.mkdir(parents=True)
    for name, text in spec["files"].items():
        p = w / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text.lstrip("\n"), encoding="utf-8")
    if spec.get("prep"):
        spec["prep"](w)
    env = dict(os.environ, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PATH"] = str(Path(PY).parent) + ":" + env["PATH"]
    for c in spec.get("hidden_cmds", []):
        subprocess.run(c, shell=True, cwd=w, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    chunks = []
    for c in spec["cmds"]:
        shown, actual = c if isinstance(c, tuple) else (c, c)
        r = subprocess.run(actual, shell=True, cwd=w, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        chunks.append((shown, r.stdout, r.returncode))
    (w / "_console.txt").write_text("\n".join(f"$ {s}  [rc={rc}]\n{o}" for s, o, rc in chunks), encoding="utf-8")
    return w, chunks


def sanitize(text, w, home, envname="torch"):
    text = text.replace(str(w), home)
    text = text.replace(SITE, f"/home/{home.split('/')[2]}/miniconda3/envs/{envname}/lib/python3.11/site-packages")
    text = text.replace(STDLIB, f"/home/{home.split('/')[2]}/miniconda3/envs/{envname}/lib/python3.11")
    assert "/work/" not in text and "/tmp/" not in text and ".venv" not in text, text[:2000]
    return text

ENVS = {}

# ====================================================================== issue texts
ORDER = {"frz": "run01", "nan": "run02", "ok2": "run03", "wck": "run04", "lr": "run05", "noshuf": "run06",
         "lor": "run07", "ovf": "run08", "ok1": "run09", "pre": "run10", "shp": "run11", "evm": "run12"}

Q = {}
Q["frz"] = dict(
    home="/home/liyang/work/finetune", env="ft", tpl=2, os="Ubuntu 22.04", extra=["numpy 2.4.6", "PyYAML 6.0.4"],
    title="微调时loss完全不动，每个epoch的数值一模一样",
    prose="""加载了在10类数据上预训练好的模型做5分类的微调，config 里开了 freeze_backbone，只想训练新的分类头。
跑了15个epoch，train_loss 和 val_loss 每一轮都是一模一样的数字（1.7597 / 1.7142），准确率也一直是 0.2740 / 0.3200，
小数点后四位都没变过。lr 是在按 cosine 正常往下走的，Trainable params 也显示 1285（就是分类头那 256*5+5 个参数）。
把 lr 改成 1e-2 再跑也是完全一样的输出。配置文件见附件 config.yaml，请问这是什么原因？""",
    symptom="微调的时候 train_loss 和 val_loss 每个 epoch 都一模一样，准确率也不变，lr 调大了也没用。")
Q["nan"] = dict(
    home="/home/chenhao/code/house_price", env="py311", tpl=1, os="Ubuntu 20.04", extra=["pandas 3.1.1"],
    title="训练时loss变成nan",
    prose="""用一个很小的 MLP 做房价回归（7个特征，已经做了标准化），Adam，lr=1e-3，batch_size=64。
第一轮前 70 个 batch loss 下降得很正常（0.53 → 0.05），然后在第 80 个 batch 打印的时候突然变成 nan，
之后所有 batch、所有轮次都是 nan，验证损失也是 nan。把 lr 降到 1e-4 还是会变 nan。
没有用混合精度，就是 CPU 上跑的。想问下一般是什么情况会这样？""",
    symptom="房价回归训练到第一轮中间 loss 突然变成 nan，之后一直是 nan，降低学习率也没用。")
Q["ok2"] = dict(
    home="/home/wangxin/seq_demo", env="torch", tpl=3, os="WSL2 Ubuntu 22.04", extra=["numpy 2.4.6"],
    title="GRU 训练时 loss 抖动很大，是正常的吗？",
    prose="""用 GRU 做一个序列三分类（上升 / 下降 / 平稳的带噪声序列），batch_size=8，一共训练 1000 步，每 5 步打印一次 loss。
loss 一直在 0.3 到 1.4 之间来回跳，画出来像锯齿一样，看着完全没有收敛的样子。
每 100 步在验证集上评估一次，val_acc 是从 0.53 慢慢涨到了 0.75。
想问一下这个 loss 曲线正常吗，是不是代码哪里写错了？train.py 在附件里。""",
    symptom="GRU 训练 loss 抖得很厉害看不出收敛，验证准确率倒是在慢慢涨，这样正常吗？")
Q["wck"] = dict(
    home="/home/zhaolei/projects/wave_cls", env="wave", tpl=1, os="CentOS 7.9", extra=["PyYAML 6.0.4"],
    title="训练时验证集准确率0.93，单独跑eval.py测试集只有0.2",
    prose="""1D CNN 做波形分类（sine / square / sawtooth / triangle / noise 五类）。训练日志里 val_acc 最后到了 0.9283，
但是训练完用 eval.py 在测试集上评估，整体准确率只有 0.200，而且除了 noise 类以外其他类全是 0。
测试集和训练集、验证集是同一个数据生成脚本生成的，分布应该是一样的。训练和评估用的是同一个 config.yaml（附件）。
是不是 BatchNorm 的问题？""",
    symptom="训练时验证集准确率有 0.93，但用 eval.py 在测试集上评估只有 0.2，几乎全被预测成 noise 一类。")
Q["lr"] = dict(
    home="/home/sunjie/mlp_cls", env="torch", tpl=2, os="Ubuntu 22.04", extra=["numpy 2.4.6", "PyYAML 6.0.4"],
    title="loss先下降然后越来越大，最后变成nan",
    prose="""4层 MLP 做 6 分类，SGD + momentum，配置见附件 config.yaml。
第一个 epoch loss 从 1.6 左右降到了 0.26，val_acc 也有 0.67，看起来挺正常；第二个 epoch 开始 loss 又慢慢往上涨，
grad_norm 也越来越大，到 step 180 左右变成 nan，之后全是 nan，val_acc 掉到 0.1533 不动了。
数据我检查过，np.isnan(x).any() 和 np.isinf(x).any() 都是 False。请问这是什么问题？""",
    symptom="loss 第一个 epoch 先降下去，第二个 epoch 又越涨越大，grad_norm 也变大，最后变成 nan。")
Q["noshuf"] = dict(
    home="/home/huangmin/bearing", env="base", tpl=3, os="Windows 11 + WSL2 (Ubuntu 20.04)", extra=["numpy 2.4.6"],
    title="loss周期性地暴涨，验证集准确率一直上不去",
    prose="""轴承故障三分类（normal / inner_race / outer_race），每个类别 400 个训练样本、150 个验证样本，特征是 24 维，已经做了标准化。
训练 loss 很奇怪：降到很低之后突然跳到 2~4，然后又慢慢降下来，再跳，一直这样反复；
验证集准确率在 0.33 到 0.57 之间来回跳，跑了 8 个 epoch 也没有提升的趋势。
代码在附件 train.py，求大佬帮忙看看。""",
    symptom="三分类训练 loss 一会降到很低一会又暴涨，反复循环，验证准确率一直在 0.33~0.57 之间跳。")
Q["lor"] = dict(
    home="/home/xuqing/review_rating", env="nlp", tpl=1, os="Ubuntu 20.04", extra=["pandas 3.1.1", "PyYAML 6.0.4"],
    title="训练一开始就报错 IndexError: Target 5 is out of bounds",
    prose="""做用户评论的评分预测，一共 5 个类别，configs/rating.yaml 里 num_classes 写的是 5。
数据读取正常（4000 条，16 维特征），但是一进训练循环第一个 batch 就报错，一个 step 都没跑完。
数据是从业务系统导出的 csv。""",
    symptom="一开始训练第一个 batch 就报 IndexError: Target 5 is out of bounds，num_classes 明明是 5。")
Q["ovf"] = dict(
    home="/home/liuyu/sensor", env="torch2", tpl=2, os="Ubuntu 22.04", extra=["numpy 2.4.6", "PyYAML 6.0.4"],
    title="验证集准确率一直不变，验证损失还越来越大",
    prose="""传感器数据 8 分类，训练集准确率很快就到了 1.000，训练损失一直降到 0.001，
但是验证准确率从第 4 轮开始就卡在 0.64~0.66 左右不动了，验证损失从第 5 轮的 0.962 一路涨到 1.535。
config.yaml 在附件。是不是验证集的数据有问题？""",
    symptom="训练准确率到了 100%，验证准确率一直卡在 0.64 左右不动，验证损失反而越来越大。")
Q["ok1"] = dict(
    home="/home/gaofei/learn_cnn", env="torch", tpl=3, os="macOS 14 (M1, CPU)", extra=[],
    title="第一次训练CNN，想确认一下这个训练结果正常吗",
    prose="""自己写的一个小 CNN 做 4 类形状图片分类（16x16 灰度图，3000 张训练，800 张验证），跑了 12 个 epoch，
验证准确率到了 0.9888。第 2 轮的验证损失比第 1 轮还高（0.60 → 0.71），后面也有一点小的起伏。
想确认一下这个训练过程有没有问题，还需不需要调参？""",
    symptom="这个 CNN 的训练结果正常吗？第 2 轮验证损失比第 1 轮还高。")
Q["pre"] = dict(
    home="/home/dengyi/shape_cls", env="cv", tpl=1, os="Ubuntu 20.04", extra=["numpy 2.4.6"],
    title="训练时验证集准确率98%，用predict预测测试集只有55%",
    prose="""训练的时候 val_acc 到了 0.988，但是用保存下来的 shape_cnn.pth 跑 predict，在测试集上只有 0.5575，
而且大部分图片都被预测成了 square（547/800）。测试集是和训练集用同一个流程生成的，分布应该一样。
训练和预测都在 train.py 里（附件），predict 里也调用了 model.eval()。""",
    symptom="训练时验证集准确率 98%，保存模型后用 predict 跑测试集只有 55%，大部分被预测成同一类。")
Q["shp"] = dict(
    home="/home/yangfan/news_textcnn", env="nlp", tpl=2, os="Ubuntu 22.04", extra=[],
    title="训练跑了80多步后报错 RuntimeError: stack expects each tensor to be equal size",
    prose="""TextCNN 做新闻 6 分类，前面 80 步都正常，loss 也在降，到第一个 epoch 中间突然报错退出。
Dataset 里已经把每条数据 pad 到 MAX_LEN=64 了，不知道为什么还会出现长度不一样的 tensor。""",
    symptom="TextCNN 训练了 80 多步之后报 RuntimeError: stack expects each tensor to be equal size。")
Q["evm"] = dict(
    home="/home/zhoutao/tabular_mlp", env="torch", tpl=3, os="Ubuntu 20.04", extra=["numpy 2.4.6"],
    title="测试集准确率远低于验证集，而且每次测试结果都不一样",
    prose="""8 分类的 MLP，训练时 val_acc 能到 0.90 左右，用保存的 checkpoints/best.pt 在测试集上测只有 0.15，跟瞎猜差不多。
而且同一个 checkpoint 连续跑两次 test，结果还不一样（0.1520 和 0.1465）。
测试集和验证集是从同一批数据里划出来的。代码在附件 train.py。""",
    symptom="训练时验证准确率 0.90，用 best.pt 测试只有 0.15，而且同一个模型跑两次测试结果不一样。")


def env_block(q, tpl):
    items = [("系统", q["os"]), ("Python", "3.11.7"), ("torch 版本", "2.13.0+cpu")]
    if tpl == 1:
        return "**环境**\n" + "\n".join(f"- {k}: {v}" for k, v in items) + "".join(f"\n- {e}" for e in q["extra"])
    if tpl == 2:
        lines = [f"系统: {q['os']}", "Python 3.11.7", "torch==2.13.0+cpu"] + [e.replace(" ", "==") for e in q["extra"]]
        return "### 环境信息\n```\n" + "\n".join(lines) + "\n```"
    return "环境：\n" + "\n".join(f"* {k}：{v}" for k, v in items) + "".join(f"\n* {e}" for e in q["extra"])


def render(spec, chunks, w):
    q = Q[spec["key"]]
    tpl = q["tpl"]
    cmds = [c[0] if isinstance(c, tuple) else c for c in spec["cmds"]]
    if len(chunks) == 1:
        log = chunks[0][1].rstrip("\n")
    else:
        log = "\n\n".join(f"$ {s}\n{o.rstrip()}" for s, o, _ in chunks)
    log = sanitize(log, w, q["home"], q["env"])
    prose = q["prose"].strip().replace("\n", "")
    prose = prose.replace("。", "。\n").replace("？", "？\n").strip() if tpl != 3 else prose
    cmd_block = "```bash\n" + "\n".join(cmds) + "\n```"
    attach = [v for v in spec["show"].values()]
    att_line = ("\n\n附件：" + "、".join(attach)) if attach else ""
    if tpl == 1:
        md = (f"# {q['title']}\n\n**问题描述**\n\n{prose}\n\n{env_block(q, 1)}\n\n**运行命令**\n\n{cmd_block}\n\n"
              f"**输出**\n\n```\n{log}\n```{att_line}\n")
    elif tpl == 2:
        md = (f"## {q['title']}\n\n{prose}\n\n{env_block(q, 2)}\n\n### 复现步骤\n\n{cmd_block}\n\n"
              f"### 日志\n\n```text\n{log}\n```{att_line}\n")
    else:
        md = (f"# {q['title']}\n\n{prose}\n\n{env_block(q, 3)}\n\n运行命令：\n\n{cmd_block}\n\n"
              f"完整输出如下：\n\n```\n{log}\n```{att_line}\n\n谢谢！\n")
    return md


if __name__ == "__main__":
    only = set(sys.argv[1:])
    runs_dir = OUT / "runs"
    truth = json.loads((OUT / "truth.json").read_text()) if (OUT / "truth.json").exists() and only else {}
    for spec in RUNS:
        if only and spec["key"] not in only:
            continue
        w, chunks = execute(spec)
        name = ORDER[spec["key"]]
        d = runs_dir / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        (d / "question.md").write_text(render(spec, chunks, w), encoding="utf-8")
        for src, dst in spec["show"].items():
            shutil.copy(w / src, d / dst)
        truth[name] = {"truth": spec["truth"], "symptom": Q[spec["key"]]["symptom"], "how": spec["how"]}
        print(f"== {spec['key']} -> {name}: rc={[rc for _, _, rc in chunks]}")
    truth = dict(sorted(truth.items()))
    (OUT / "truth.json").write_text(json.dumps(truth, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
