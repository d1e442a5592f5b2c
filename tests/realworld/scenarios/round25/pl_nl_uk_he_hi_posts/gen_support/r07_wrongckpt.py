"""run07: Hebrew forum post; DataParallel-saved state_dict loaded with strict=False at eval."""
import io, json
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run07"

EVAL_PY = dedent('''
import argparse, json
import numpy as np
import torch
import torch.nn as nn


class GestureNet(nn.Module):
    def __init__(self, in_dim=24, n_cls=10):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(in_dim, 128), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.2),
        )
        self.classifier = nn.Linear(128, n_cls)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", default="checkpoints/best.pt")
    ap.add_argument("--data", default="data/test.npz")
    ap.add_argument("--stats", default="checkpoints/norm_stats.json")
    args = ap.parse_args()

    stats = json.load(open(args.stats))
    mean, std = np.array(stats["mean"], dtype=np.float32), np.array(stats["std"], dtype=np.float32)
    d = np.load(args.data)
    X = torch.from_numpy((d["X"] - mean) / std)
    y = torch.from_numpy(d["y"])

    model = GestureNet()
    state = torch.load(args.ckpt, map_location="cpu")
    model.load_state_dict(state, strict=False)
    model.eval()
    print(f"loaded {args.ckpt}")

    with torch.no_grad():
        logits = model(X)
    pred = logits.argmax(1)
    acc = (pred == y).float().mean().item()
    print(f"test samples: {len(y)}")
    print(f"test accuracy: {acc:.4f}")
    print("pred distribution:", torch.bincount(pred, minlength=10).tolist())


if __name__ == "__main__":
    main()
''')


class GestureNet(nn.Module):
    def __init__(self, in_dim=24, n_cls=10):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(in_dim, 128), nn.ReLU(), nn.Dropout(0.2),
            nn.Linear(128, 128), nn.ReLU(), nn.Dropout(0.2))
        self.classifier = nn.Linear(128, n_cls)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def gen():
    rng = seed_all(707)
    d, k = 24, 10
    Xtr, ytr, cents = make_clf(rng, 4000, d, k, sep=0.8, sub=2)
    Xva, yva = sample_from(rng, cents, 800)
    Xte, yte = sample_from(rng, cents, 1200)
    Xtr = Xtr * 3.0 + 5.0; Xva = Xva * 3.0 + 5.0; Xte = Xte * 3.0 + 5.0  # raw units
    mean, std = Xtr.mean(0), Xtr.std(0)
    nt = lambda a: torch.from_numpy((a - mean) / std)
    Xtr_t, Xva_t, Xte_t = nt(Xtr), nt(Xva), nt(Xte)
    ytr_t, yva_t, yte_t = map(torch.from_numpy, (ytr, yva, yte))
    torch.manual_seed(3)
    net = GestureNet()
    model = nn.DataParallel(net)  # as in the user's train.py (multi-GPU box); on CPU it just calls the module
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    lines, best, best_state, E = [], -1, None, 30
    for ep in range(1, E + 1):
        model.train()
        perm = torch.randperm(len(Xtr_t)); tl = 0.0
        for i in range(0, len(perm), 128):
            b = perm[i:i + 128]
            loss = crit(model(Xtr_t[b]), ytr_t[b])
            opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item() * len(b)
        vl, va = evaluate(model, Xva_t, yva_t)
        msg = f"epoch {ep:02d}/{E} train_loss={tl / len(perm):.4f} val_loss={vl:.4f} val_acc={va:.4f}"
        if va > best:
            best = va
            buf = io.BytesIO(); torch.save(model.state_dict(), buf); best_state = buf.getvalue()
            msg += "  -> saved checkpoints/best.pt"
        lines.append(msg)
    # eval.py, for real: fresh model, strict=False load of the saved state_dict
    state = torch.load(io.BytesIO(best_state), map_location="cpu")
    torch.manual_seed(12345)
    m2 = GestureNet()
    res = m2.load_state_dict(state, strict=False)
    assert len(res.missing_keys) == len(m2.state_dict()) and len(res.unexpected_keys) == len(state)
    m2.eval()
    with torch.no_grad():
        pred = m2(Xte_t).argmax(1)
    acc = (pred == yte_t).float().mean().item()
    dist = torch.bincount(pred, minlength=10).tolist()
    # same checkpoint evaluated properly, to make sure the test split is fine (used only for truth)
    m3 = GestureNet(); m3.load_state_dict({kk[len("module."):]: v for kk, v in state.items()}); m3.eval()
    with torch.no_grad():
        acc_ok = (m3(Xte_t).argmax(1) == yte_t).float().mean().item()
    assert acc < 0.3 and acc_ok > 0.7, (acc, acc_ok)
    write(RUN, "eval.py", EVAL_PY)
    write(RUN, "train_log_tail.txt", "$ tail -n 12 logs/train_2024-05-06.log\n" + "\n".join(lines[-12:]))
    ev = "\n".join(["$ python eval.py --ckpt checkpoints/best.pt",
                    "loaded checkpoints/best.pt",
                    f"test samples: {len(yte)}",
                    f"test accuracy: {acc:.4f}",
                    f"pred distribution: {dist}"])
    write(RUN, "eval_output.txt", ev)
    keys = list(state.keys())
    shapes = "\n".join(f"{kk:<28s} {tuple(state[kk].shape)}" for kk in keys)
    post = "\n".join([
        "# מודל שהגיע ל-val acc גבוה מקבל דיוק של ניחוש אקראי ב-eval",
        "",
        "discuss.pytorch.org › deployment  ·  **yonatan.sh**  ·  May 2024",
        "",
        "שלום לכולם,",
        "",
        f"אימנתי מסווג מחוות (10 מחוות, 24 פיצ'רים מחיישן IMU). באימון ה-val_acc הכי טוב היה {best:.4f} (הלוג מצורף), אבל כשאני",
        f"מריץ את `eval.py` על ה-test set אני מקבל {acc:.4f} – בערך ניחוש. ה-test נאסף באותו יום ובאותו מכשיר כמו ה-val.",
        "",
        "החשד שלי הוא שהנרמול ב-eval לא זהה לזה שבאימון (אולי ה-mean/std ב-norm_stats.json נשמרו לפני ה-augmentation",
        "או משהו כזה). בדקתי שה-checkpoint עצמו תקין – הוא נטען בלי שום שגיאה, ואלה ה-keys שבו:",
        "",
        "```",
        ">>> sd = torch.load('checkpoints/best.pt', map_location='cpu')",
        ">>> for k, v in sd.items(): print(f'{k:<28s} {tuple(v.shape)}')",
        shapes,
        "```",
        "",
        "מה עוד כדאי לבדוק בצד של הנרמול? מצרף את `eval.py`, את סוף הלוג של האימון ואת הפלט של ה-eval.",
    ])
    write(RUN, "post.md", post)
    symptom = ("המודל הגיע ל-val acc גבוה באימון אבל ב-eval.py על ה-test אני מקבל דיוק של ניחוש; אני חושד שהנרמול ב-eval "
               "לא זהה לזה שבאימון.")
    how = ("The checkpoint was saved from an nn.DataParallel wrapper (all keys prefixed 'module.'), and eval.py loads it with "
           f"strict=False, so no weight is loaded and a randomly initialised GestureNet is evaluated: test acc {acc:.3f} "
           f"(the same checkpoint loaded with the prefix stripped gives {acc_ok:.3f}); normalisation is identical.")
    return dict(truth="wrong_checkpoint", symptom=symptom, how=how)
