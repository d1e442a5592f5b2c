"""run12: Hebrew Telegram; healthy run whose val loss sits below train loss (dropout)."""
import numpy as np, torch, torch.nn as nn
from .common import *

RUN = "run12"


def gen():
    rng = seed_all(1212)
    d, k = 24, 5
    Xtr, ytr, cents = make_clf(rng, 5000, d, k, sep=0.55, sub=2)
    Xv, yv = sample_from(rng, cents, 1200)
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Xtr, Xv = torch.from_numpy((Xtr - mu) / sd), torch.from_numpy((Xv - mu) / sd)
    ytr, yv = torch.from_numpy(ytr), torch.from_numpy(yv)
    torch.manual_seed(5)
    model = mlp([d, 128, 128, k], dropout=0.4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-4)
    crit = nn.CrossEntropyLoss()
    out, hist = [], []
    for ep in range(1, 13):
        model.train(); perm = torch.randperm(len(Xtr)); tl, tc = 0.0, 0
        for i in range(0, len(perm), 64):
            b = perm[i:i + 64]
            o = model(Xtr[b]); loss = crit(o, ytr[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); tc += (o.argmax(1) == ytr[b]).sum().item()
        vl, va = evaluate(model, Xv, yv)
        hist.append((tl / len(perm), tc / len(perm), vl, va))
        out.append(f"ep {ep:2d}  train_loss {tl / len(perm):.4f}  train_acc {tc / len(perm):.3f}  val_loss {vl:.4f}  val_acc {va:.3f}")
    assert all(h[2] < h[0] for h in hist) and hist[0][3] < 0.9, hist
    chat = "\n".join([
        "קבוצת טלגרם: Machine Learning Israel 🇮🇱",
        "",
        "Dana Cohen, [03.09.24 14:02]",
        "שאלה קטנה 🙋‍♀️ אני מאמנת MLP פשוט לסיווג (5 קטגוריות של תקלות במכונות, 24 פיצ'רים מנורמלים, dropout 0.4),",
        "וה-val loss יוצא כל הזמן נמוך מה-train loss, מהאפוק הראשון ועד הסוף:",
        "```",
        *out,
        "```",
        "קראתי שזה יכול להיות סימן לדליפה בין train ל-val. הספליט הוא רנדומלי לפי מכונה. זה תקין או שאני צריכה לחפש באג?",
        "",
        "Itai G, [03.09.24 14:06]",
        "איזה גודל יש לכל סט?",
        "",
        "Dana Cohen, [03.09.24 14:07]",
        f"{len(Xtr)} train, {len(Xv)} val. ה-train_loss זה ממוצע על כל הבאצ'ים של האפוק, ה-val מחושב בסוף האפוק עם model.eval()",
    ])
    write(RUN, "telegram.txt", chat)
    symptom = "ה-val loss יוצא כל הזמן נמוך מה-train loss מהאפוק הראשון; קראתי שזה יכול להיות סימן לדליפה – זה תקין?"
    how = ("Nothing planted: a healthy run. Train loss is averaged over the epoch with dropout 0.4 active while val loss is measured "
           f"in eval mode at the end of the epoch, so val sits below train; both improve gradually (val_acc {hist[0][3]:.3f} -> {hist[-1][3]:.3f}) without a gap opening.")
    return dict(truth="healthy", symptom=symptom, how=how)
