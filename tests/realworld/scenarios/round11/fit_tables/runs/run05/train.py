import time
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader

torch.set_num_threads(1)
np.random.seed(11)
torch.manual_seed(11)

N_CLASSES, SIZE = 10, 12


def render(n_per_class):
    protos = np.random.rand(N_CLASSES, SIZE, SIZE) > 0.55
    imgs, labels = [], []
    for c in range(N_CLASSES):
        for _ in range(n_per_class):
            img = protos[c].astype(np.float32)
            img = np.roll(img, np.random.randint(-1, 2), axis=np.random.randint(0, 2))
            img = img + np.random.normal(0, 0.5, img.shape)
            imgs.append(img)
            labels.append(c)
    return np.stack(imgs)[:, None].astype(np.float32), np.array(labels)


images, labels = render(400)
images = (images - images.mean()) / images.std()

np.random.shuffle(images)
np.random.shuffle(labels)

n_valid = 800
x_train, y_train = images[n_valid:], labels[n_valid:]
x_valid, y_valid = images[:n_valid], labels[:n_valid]

train_dl = DataLoader(TensorDataset(torch.from_numpy(x_train), torch.from_numpy(y_train)), batch_size=64, shuffle=True)
valid_dl = DataLoader(TensorDataset(torch.from_numpy(x_valid), torch.from_numpy(y_valid)), batch_size=256)

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
    nn.Flatten(), nn.Linear(32 * 3 * 3, 64), nn.ReLU(), nn.Linear(64, N_CLASSES),
)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-2)
loss_func = nn.CrossEntropyLoss()

cols = ["epoch", "train_loss", "valid_loss", "accuracy", "time"]
cols = [c.ljust(8) for c in cols]
print("  ".join(cols))
for epoch in range(10):
    start = time.time()
    model.train()
    run, nb = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        loss = loss_func(model(xb), yb)
        loss.backward()
        opt.step()
        run += loss.item(); nb += 1
    model.eval()
    vloss, vacc, vn = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in valid_dl:
            p = model(xb)
            vloss += loss_func(p, yb).item() * len(yb)
            vacc += (p.argmax(-1) == yb).sum().item()
            vn += len(yb)
    secs = int(time.time() - start)
    out = [f"{epoch}", f"{run / nb:.6f}", f"{vloss / vn:.6f}", f"{vacc / vn:.6f}", f"{secs // 60:02d}:{secs % 60:02d}"]
    print("".join(o.ljust(len(c) + 2) for o, c in zip(out, cols)), flush=True)
