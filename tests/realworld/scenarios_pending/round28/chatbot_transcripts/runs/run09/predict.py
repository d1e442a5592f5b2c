import csv
import torch

from model import DefectNet
from io_utils import load_images

model = DefectNet(num_classes=4)
state = torch.load("runs/defect_v3/best.pt", map_location="cpu")
model.load_state_dict(state)

paths, images = load_images("holdout/")          # float tensor (N, 1, 8, 8), same normalisation as training
labels = {r["file"]: int(r["label"]) for r in csv.DictReader(open("holdout/labels.csv"))}

preds = []
with torch.no_grad():
    for i in range(0, len(images), 16):
        logits = model(images[i:i + 16])
        preds += logits.argmax(1).tolist()

correct = sum(int(p == labels[f]) for f, p in zip(paths, preds))
print(f"holdout accuracy: {correct / len(paths):.4f} ({correct}/{len(paths)})")
for f, p in list(zip(paths, preds))[:6]:
    print(f"  {f} -> class {p}")
