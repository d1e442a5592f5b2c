import os

import torch
import torch.nn.functional as F
import yaml

from common import TeacherCNN, glyph_prototypes, make_glyphs

torch.set_num_threads(1)
cfg = yaml.safe_load(open("distill.yaml"))
torch.manual_seed(cfg["seed"])
protos = glyph_prototypes()
x_tr, y_tr = make_glyphs(cfg["data"]["n_train"], 1, protos)
x_va, y_va = make_glyphs(cfg["data"]["n_val"], 2, protos)

model = TeacherCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
os.makedirs(os.path.dirname(cfg["teacher"]["checkpoint"]), exist_ok=True)
best = 0.0
for epoch in range(1, cfg["teacher"]["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(x_tr))
    total = 0.0
    for i in range(0, len(x_tr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(idx)
    model.eval()
    with torch.no_grad():
        acc = (model(x_va).argmax(1) == y_va).float().mean().item()
    msg = f"teacher epoch {epoch:02d} train_loss {total / len(x_tr):.4f} val_acc {acc:.4f}"
    if acc > best:
        best = acc
        torch.save({"epoch": epoch, "val_acc": acc, "model": model.state_dict()}, cfg["teacher"]["checkpoint"])
        msg += "  -> saved " + cfg["teacher"]["checkpoint"]
    print(msg)
print(f"best teacher val_acc {best:.4f}")
