import time
import yaml
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader, Subset
from tqdm import tqdm

with open("config.yaml") as f:
    cfg = yaml.safe_load(f)
torch.manual_seed(cfg["seed"])
torch.set_num_threads(1)

MEAN = torch.tensor([0.5, 0.5, 0.5]).view(3, 1, 1)
STD = torch.tensor([0.25, 0.25, 0.25]).view(3, 1, 1)


class NpyImageDataset(Dataset):
    def __init__(self, image_path, label_path):
        self.image_path = image_path
        self.labels = np.load(label_path)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        images = np.load(self.image_path)
        img = torch.from_numpy(images[i]).permute(2, 0, 1).float() / 255.0
        img = (img - MEAN) / STD
        return img, int(self.labels[i])


def make_model(ch, n_cls):
    return nn.Sequential(
        nn.Conv2d(3, ch[0], 3, stride=2, padding=1), nn.BatchNorm2d(ch[0]), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(ch[0], ch[1], 3, padding=1), nn.BatchNorm2d(ch[1]), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(ch[1], n_cls))


ds = NpyImageDataset(cfg["data"]["images"], cfg["data"]["labels"])
perm = torch.randperm(len(ds)).tolist()
n_train = int(cfg["data"]["train_split"] * len(ds))
train_ds, val_ds = Subset(ds, perm[:n_train]), Subset(ds, perm[n_train:])
bs, nw = cfg["optim"]["batch_size"], cfg["data"]["num_workers"]
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True, num_workers=nw)
val_dl = DataLoader(val_ds, batch_size=bs, num_workers=nw)
print(f"{cfg['experiment']}: {len(train_ds)} train / {len(val_ds)} val images, batch {bs}, workers {nw}")

model = make_model(cfg["model"]["channels"], cfg["model"]["num_classes"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["optim"]["lr"])
crit = nn.CrossEntropyLoss()

for epoch in range(cfg["optim"]["epochs"]):
    model.train()
    data_t, comp_t, seen, correct, tot_loss = 0.0, 0.0, 0, 0, 0.0
    pbar = tqdm(train_dl, desc=f"Epoch {epoch}")
    end = time.perf_counter()
    for x, y in pbar:
        t_data = time.perf_counter() - end
        t0 = time.perf_counter()
        out = model(x)
        loss = crit(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        t_comp = time.perf_counter() - t0
        data_t += t_data
        comp_t += t_comp
        seen += len(y)
        correct += (out.argmax(1) == y).sum().item()
        tot_loss += loss.item() * len(y)
        pbar.set_postfix({"loss": f"{tot_loss / seen:.3f}", "acc": f"{correct / seen:.3f}",
                          "data": f"{t_data:.3f}s", "fwd/bwd": f"{t_comp:.3f}s"}, refresh=False)
        end = time.perf_counter()
    model.eval()
    vc, vn = 0, 0
    with torch.no_grad():
        for x, y in val_dl:
            vc += (model(x).argmax(1) == y).sum().item()
            vn += len(y)
    nb = len(train_dl)
    print(f"epoch {epoch}: loss {tot_loss / seen:.4f} acc {correct / seen:.3f} val_acc {vc / vn:.3f} | "
          f"avg data {data_t / nb:.3f}s/it  avg fwd/bwd {comp_t / nb:.3f}s/it")
