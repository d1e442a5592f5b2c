import os
import sys
import yaml

import numpy as np
import torch
import torch.nn as nn
from PIL import Image

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))

class CRNN(nn.Module):
    def __init__(self, num_class, hidden=64, dropout=0.0):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(True), nn.MaxPool2d((2, 1)),
            nn.Conv2d(32, 48, 3, 1, 1), nn.BatchNorm2d(48), nn.ReLU(True), nn.MaxPool2d((4, 1)))
        self.rnn = nn.GRU(48, hidden, bidirectional=True, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * hidden, num_class)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)
        o, _ = self.rnn(self.drop(f))
        return self.fc(self.drop(o))

charset = open(cfg["charset"], encoding="utf-8").read().strip()


def preprocess(path):
    img = Image.open(path).convert("L").resize((cfg["img_w"], cfg["img_h"]), Image.BILINEAR)
    x = np.asarray(img, dtype=np.float32) / 255.0
    x = (x - 0.5) / 0.5
    return torch.from_numpy(x)[None, None]


model = CRNN(len(charset) + 1, cfg["hidden"], cfg["dropout"])
model.load_state_dict(torch.load(cfg["checkpoint"], map_location="cpu"))
model.eval()

folder = sys.argv[1] if len(sys.argv) > 1 else "samples"
gt = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(folder, "gt.txt"), encoding="utf-8"))
print(f"{'file':22s} | {'Ground Truth':12s} | {'Prediction':12s} | Confidence")
print("-" * 66)
n_ok = 0
for name in sorted(gt):
    with torch.no_grad():
        prob, idx = model(preprocess(os.path.join(folder, name))).softmax(-1).max(-1)
    s, prev = [], 0
    for k in idx[0].tolist():
        if k and k != prev:
            s.append(charset[k - 1])
        prev = k
    pred = "".join(s)
    n_ok += pred == gt[name]
    print(f"{name:22s} | {gt[name]:12s} | {pred:12s} | {prob[0].prod().item():.4f}")
print("-" * 66)
print(f"exact match: {n_ok}/{len(gt)}")
