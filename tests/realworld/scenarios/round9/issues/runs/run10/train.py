import argparse
import torch
import torch.nn.functional as F
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from model import EncoderClassifier

torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--ckpt", default="digits_encoder.pt")
p.add_argument("--epochs", type=int, default=15)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--seed", type=int, default=1)
args = p.parse_args()
torch.manual_seed(args.seed)

# new task: group digits into 3 buckets
CLASS_NAMES = ["low", "mid", "high"]
d = load_digits()
X = torch.tensor(d.images / 16.0, dtype=torch.float32)[:, None]
y = torch.tensor(d.target // 4).clamp(max=2)
idx_tr, idx_va = train_test_split(range(len(X)), test_size=0.25, random_state=args.seed, stratify=y)
Xtr, ytr, Xva, yva = X[idx_tr], y[idx_tr], X[idx_va], y[idx_va]

model = EncoderClassifier(num_classes=10)
model.load_state_dict(torch.load(args.ckpt))
model.freeze_encoder()
optimizer = torch.optim.Adam([q for q in model.parameters() if q.requires_grad], lr=args.lr)
n_trainable = sum(q.numel() for g in optimizer.param_groups for q in g["params"])
print(f"loaded {args.ckpt}; trainable params: {n_trainable}")

model.reset_classifier(len(CLASS_NAMES))

for epoch in range(args.epochs):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc, gsum, nb = 0.0, 0, 0.0, 0
    for b in range(0, len(perm), args.batch_size):
        i = perm[b:b + args.batch_size]
        out = model(Xtr[i])
        loss = F.cross_entropy(out, ytr[i])
        optimizer.zero_grad()
        loss.backward()
        gsq = sum(q.grad.pow(2).sum().item() for g in optimizer.param_groups for q in g["params"]
                  if q.grad is not None)
        optimizer.step()
        tl += loss.item() * len(i)
        tc += (out.argmax(1) == ytr[i]).sum().item()
        gsum += gsq ** 0.5
        nb += 1
    model.eval()
    with torch.no_grad():
        o = model(Xva)
        vl = F.cross_entropy(o, yva).item()
        va = (o.argmax(1) == yva).float().mean().item()
    print(f"ep {epoch:02d}  loss {tl / len(Xtr):.4f}  acc {tc / len(Xtr):.3f}  "
          f"grad_norm {gsum / nb:.4f}  val_loss {vl:.4f}  val_acc {va:.3f}")
