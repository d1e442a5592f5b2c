import argparse, os, torch, torch.nn as nn
torch.set_num_threads(1)
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--model-dir", default=os.environ.get("SM_MODEL_DIR", "/opt/ml/model"))
args = p.parse_args()
torch.manual_seed(0)

def glyphs(n, seed):
    g = torch.Generator().manual_seed(seed)
    protos = torch.Generator().manual_seed(123)
    P = (torch.rand(6, 1, 12, 12, generator=protos) > 0.6).float()
    y = torch.randint(0, 6, (n,), generator=g)
    return P[y] + 0.5 * torch.randn(n, 1, 12, 12, generator=g), y

def build():
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                         nn.Flatten(), nn.Linear(128, 6))

if __name__ == "__main__":
    xtr, ytr = glyphs(3000, 0); xva, yva = glyphs(600, 1)
    model = nn.DataParallel(build())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        perm = torch.randperm(3000)
        for i in range(0, 3000, 50):
            idx = perm[i:i + 50]
            opt.zero_grad(); loss = nn.functional.cross_entropy(model(xtr[idx]), ytr[idx]); loss.backward(); opt.step()
        with torch.no_grad():
            acc = (model(xva).argmax(1) == yva).float().mean().item()
        print(f"Epoch {epoch}: loss={loss.item():.4f} val_acc={acc:.4f}")
    os.makedirs(args.model_dir, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(args.model_dir, "model.pth"))
    print("Model saved:", os.path.join(args.model_dir, "model.pth"))
