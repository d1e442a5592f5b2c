import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, n_in, n_classes):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 256)
        self.fc2 = nn.Linear(256, 128)
        self.fc3 = nn.Linear(128, n_classes)
        self.softmax = nn.Softmax(dim=1)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.softmax(self.fc3(x))


torch.manual_seed(3)
d = np.load("data/chars.npz")
X, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
Xv, yv = torch.from_numpy(d["xv"]), torch.from_numpy(d["yv"])

net = Classifier(X.shape[1], 10)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

for epoch in range(15):
    net.train()
    perm = torch.randperm(len(X))
    running = 0.0
    for i in range(0, len(X), 100):
        idx = perm[i:i + 100]
        optimizer.zero_grad()
        out = net(X[idx])
        loss = criterion(out, y[idx])
        loss.backward()
        optimizer.step()
        running += loss.item() * len(idx)
    net.eval()
    with torch.no_grad():
        out = net(Xv)
        vloss = criterion(out, yv).item()
        acc = (out.argmax(1) == yv).float().mean().item()
    print("epoch %2d  loss %.4f  val_loss %.4f  val_acc %.2f%%" % (epoch + 1, running / len(X), vloss, 100 * acc))
