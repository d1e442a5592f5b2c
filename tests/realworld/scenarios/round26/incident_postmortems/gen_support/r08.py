"""run08: val loss below train loss on the new ticket-routing model (no fault)."""
import hashlib
from common import *

RUN = "run08"


def build():
    rng = np.random.default_rng(808)
    T = Teacher(rng, 16, 10, hidden=8)
    X, Y = T.sample(rng, 10000)
    Xv, Yv = T.sample(rng, 2500)
    # dedup check the team ran: row hashes
    h = lambda a: {hashlib.sha1(r.tobytes()).hexdigest() for r in a}
    overlap = len(h(X) & h(Xv))
    X, Y, Xv, Yv = map(torch.tensor, (X, Y, Xv, Yv))

    torch.manual_seed(8)
    model = mlp(16, 10, 128, dropout=0.3)
    opt = torch.optim.AdamW(model.parameters(), 1e-3, weight_decay=0.01, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(8)
    clock = Clock("2024-03-18 16:22:40", scale=100)
    lines, rows = [], []
    for ep in range(1, 16):
        tl, corr, n = 0.0, 0, 0
        for b in batches(len(X), 128, g):
            out = model(X[b])
            loss = lf(out, Y[b])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(b); corr += int((out.argmax(1) == Y[b]).sum()); n += len(b)
        vl, va = evaluate(model, Xv, Yv)
        rows.append((ep, tl / n, corr / n, vl, va))
        lines.append(f"{clock.now('%H:%M:%S')[:8]}  epoch {ep:2d}  train_loss {tl / n:.4f}  train_acc {corr / n:.4f}  "
                     f"val_loss {vl:.4f}  val_acc {va:.4f}")
    sub = torch.arange(3000)
    tel, tea = evaluate(model, X[sub], Y[sub])
    assert all(r[3] < r[1] for r in rows[1:])

    write(RUN, "attachments/train_stdout_excerpt.txt", "\n".join(lines[:3] + ["..."] + lines[-4:]))
    tab = md_table(["epoch", "train_loss", "val_loss", "train_acc", "val_acc"],
                   [(r[0], f"{r[1]:.4f}", f"{r[3]:.4f}", f"{r[2]:.4f}", f"{r[4]:.4f}") for r in rows if r[0] in (1, 2, 3, 5, 8, 11, 15)])
    doc = f"""# [Near-miss review] ticket-router v2: validation loss lower than training loss

*Status:* open question · *Filed by:* A. Kowalczyk (Support Tooling ML) · *Severity:* none yet, launch review pending
*Root cause:* TBD — we suspect the validation split leaks into training

## Summary
During the launch review of ticket-router v2 (10 queues) a reviewer flagged that the **validation loss is lower than
the training loss in every epoch after the first**. We were told that usually means validation data leaked into
training, so the launch was put on hold until we know.

## Curves (from the trainer stdout, excerpt attached)
{tab}

## What we checked so far
- Row-hash overlap between train ({len(X)} rows) and val ({len(Xv)} rows): **{overlap}** identical rows.
- Split is by ticket creation month (train Jan–Feb, val March), same code as v1.
- Config: MLP 2×128, dropout 0.3, AdamW lr 1e-3 wd 0.01, batch 128, 15 epochs. `train_loss`/`train_acc` are the
  running averages the trainer prints during the epoch; val is computed after each epoch.
- Side note from Ana: loading the final checkpoint and scoring 3,000 training rows with `model.eval()` gives
  loss {tel:.4f} / acc {tea:.4f}.

## Questions for reviewers
1. Is this pattern a sign of leakage, or can we launch?
2. If it is leakage, where could it come from given zero row overlap?

## Action items
- [ ] Decide on launch — @support-tooling-lead
- [ ] Check near-duplicate tickets across the split boundary — @a.kowalczyk
"""
    write(RUN, "ticket-router-v2-val-below-train.md", doc)
    return {"truth": "healthy",
            "symptom": "Our new model's validation loss is lower than its training loss in every epoch — is the validation set leaking into training?",
            "how": f"No fault: the printed train loss is a running average in train mode with dropout 0.3 while val is scored in eval mode; train and val are disjoint (0 overlapping rows), val accuracy is a plausible {rows[-1][4]:.3f}, and the train rows scored in eval mode give loss {tel:.3f}, below val {rows[-1][3]:.3f}."}
