import torch
import torch.nn.functional as F
from common import build_model, make_signals

torch.set_num_threads(1)
ckpt = torch.load("checkpoints/best.pt", map_location="cpu")
model = build_model()
model.load_state_dict(ckpt["model"], strict=False)
model.eval()
print(f"loaded checkpoints/best.pt (epoch {ckpt['epoch']}, val_acc at save time {ckpt['val_acc']:.4f})")
Xte, yte = make_signals(3000, 2)
with torch.no_grad():
    out = model(Xte)
pred = out.argmax(1)
print(f"test_loss {F.cross_entropy(out, yte).item():.4f}")
print(f"test_acc  {(pred == yte).float().mean().item():.4f}")
for c in range(6):
    m = yte == c
    print(f"  class {c}: n={int(m.sum())} acc={(pred[m] == c).float().mean().item():.3f} predicted_as_c={int((pred == c).sum())}")
