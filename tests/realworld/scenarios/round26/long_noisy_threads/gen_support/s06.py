"""run06: ~30% of labels (train and val, same vendor) are random -> train acc capped, late memorisation."""
import random, datetime as dt
from common import *
from thread import Discourse, code, details, when
import noise


def train(X, y, Xv, yv, hidden, epochs, seed, depth=2, snap=None):
    torch.manual_seed(seed)
    m = mlp(X.shape[1], hidden, 10, depth=depth)
    opt = torch.optim.Adam(m.parameters(), 1e-3)
    g = torch.Generator().manual_seed(seed)
    rows = []
    snapshot = None
    for ep in range(epochs):
        for xb, yb in batches(X, y, 128, True, g):
            opt.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            opt.step()
        tl, ta = evaluate(m, X, y)
        vl, va = evaluate(m, Xv, yv)
        rows.append((ep + 1, tl, ta, vl, va))
        if snap == ep + 1:
            snapshot = {k: v.clone() for k, v in m.state_dict().items()}
    if snap:
        m.load_state_dict(snapshot)
    return m, rows


def build(out):
    r = random.Random(606)
    task = Mixture(20, 10, 91, blobs=3, sigma=0.8)
    X, y = task.sample(8000, 92, flip=0.3); Xv, yv = task.sample(2000, 93, flip=0.3)
    Xc, yc = task.sample(8000, 92)          # same draw, labels before the vendor's errors (truth only)
    share_wrong = float((y != yc).mean())
    X, y, Xv, yv = map(torch.tensor, (X, y, Xv, yv))
    m, rows = train(X, y, Xv, yv, 192, 30, 0, snap=10)
    _, rows_big = train(X, y, Xv, yv, 320, 8, 0, depth=3)
    n_small = sum(p.numel() for p in mlp(20, 192, 10).parameters())
    ratio = sum(p.numel() for p in mlp(20, 320, 10, depth=3).parameters()) / n_small
    with torch.no_grad():
        per = F.cross_entropy(m(X), y, reduction="none").numpy()
        pred = m(X).argmax(1).numpy()
    edges = [0, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0, np.inf]
    cnt, _ = np.histogram(per, bins=edges)
    hist = ["per-sample training loss, checkpoint of epoch 10 (best val_acc region), model in eval mode, n=%d" % len(per), "",
            "   bin            count    share"]
    for a, b, c in zip(edges[:-1], edges[1:], cnt):
        lab = f"[{a:.2f}, {b:.2f})" if np.isfinite(b) else f"[{a:.2f}, inf)"
        hist.append(f"   {lab:<14} {c:6d}   {c / len(per) * 100:5.1f}%  " + "#" * int(round(c / len(per) * 100 / 1.5)))
    hist += ["", f"mean {per.mean():.4f}  median {np.median(per):.4f}  p90 {np.percentile(per, 90):.4f}  max {per.max():.4f}", "",
             "per-class train accuracy:"]
    yn = y.numpy()
    for k in range(10):
        mk = yn == k
        hist.append(f"   class {k}: n={mk.sum():5d}  acc {(pred[mk] == k).mean():.4f}")
    write(f"{out}/per_sample_loss.txt", "\n".join(hist))
    write(f"{out}/metrics.csv", "epoch,train_loss,train_acc,val_loss,val_acc\n" +
          "\n".join(f"{e},{a:.5f},{b:.5f},{c:.5f},{d:.5f}" for e, a, b, c, d in rows))

    base = dt.datetime(2024, 7, 2, 10, 31)
    t = Discourse("discuss.pytorch.org", "Uncategorized",
                  f"MLP can't even fit the training set — train accuracy stuck at ~{rows[8][2] * 100:.0f}%", tags=["mlp", "underfitting"])
    t.post("r.almeida", base, f"""I'm classifying machine states (10 classes) from 20 aggregated vibration features. 8k training rows, 2k val; labels come from our annotation vendor (one annotator per window).

A 2x192 MLP with Adam 1e-3 plateaus after ~4 epochs, and the weird part is that it's not only val: **the training accuracy itself stops at ~{rows[8][2] * 100:.0f}%** (measured with a separate eval pass over the train set after each epoch). If it can't even fit the train set, the model must be too small / too regularised, right? There's no dropout or weight decay though.

{code(chr(10).join(f"epoch {e:2d}  train_loss {a:.4f}  train_acc {b:.4f}  val_loss {c:.4f}  val_acc {d:.4f}" for e, a, b, c, d in rows[:10]))}

What architecture would you recommend for this kind of data? Full metrics attached.

📎 metrics.csv""")
    t.post("kwon_ds", base + dt.timedelta(hours=1), "Tabular data + MLP = pain. Go with gradient boosting, it will beat this without any tuning.")
    t.post("r.almeida", base + dt.timedelta(hours=2), "We have to deploy on a microcontroller with a tiny NN runtime, so boosting is out unfortunately.")
    t.post("svetlana.m", base + dt.timedelta(hours=4), "Just train longer. Loss is still going down at epoch 10 in your table, "
           "a 2-layer MLP can take 100+ epochs on tabular data.")
    t.post("r.almeida", base + dt.timedelta(hours=6), f"The metrics.csv goes to 30 epochs. Train loss does go down at the end but accuracy barely moves, and val gets worse:\n\n" +
           code(chr(10).join(f"epoch {e:2d}  train_loss {a:.4f}  train_acc {b:.4f}  val_loss {c:.4f}  val_acc {d:.4f}" for e, a, b, c, d in rows[-6:])))
    t.post("dmitri_v", base + dt.timedelta(hours=8), "Then it's capacity. 2x192 is tiny. Try 3x320 at least, and add BatchNorm.")
    t.post("paulo_rs", base + dt.timedelta(hours=9), "+1 on this, I have the same thing with a CNN on spectrograms, train acc "
           "stops way below 100%. Following. My setup in case it helps:\n\n" + details("collect_env", code(noise.collect_env(r))))
    t.post("r.almeida", base + dt.timedelta(days=1, hours=2), f"""3x320, 8 epochs (no BatchNorm yet):

{code(chr(10).join(f"epoch {e:2d}  train_loss {a:.4f}  train_acc {b:.4f}  val_loss {c:.4f}  val_acc {d:.4f}" for e, a, b, c, d in rows_big))}

Train accuracy a bit higher at the end, val lower. ~{ratio:.0f}x the parameters for that feels wrong.""")
    t.post("svetlana.m", base + dt.timedelta(days=1, hours=3), "Is your lr too high for the bigger model? Try 3e-4.")
    t.post("amir.h", base + dt.timedelta(days=1, hours=5), "Can you look at *which* training samples it gets wrong? A histogram of "
           "the per-sample loss on the train set would tell you whether it's uniformly mediocre or something else.", likes=2)
    t.post("r.almeida", base + dt.timedelta(days=1, hours=9), """Here it is for the original 2x192, epoch-10 checkpoint, plus per-class accuracy. Not sure what to make of it, it looks fine per class?

📎 per_sample_loss.txt""")
    t.post("paulo_rs", base + dt.timedelta(days=2), "Have you tried label smoothing? It helped us a bit with the plateau.")
    t.post("kwon_ds", base + dt.timedelta(days=2, hours=2), "Also check your GPU isn't throttling, we had weird plateaus on a "
           "hot card:\n\n" + code(noise.nvidia_smi(r, procs=False, when=dt.datetime(2024, 7, 4, 11, 7, 40))))
    t.post("r.almeida", base + dt.timedelta(days=2, hours=5), "Card is fine, and the same happens on CPU. So: bigger model, label "
           "smoothing, or something else? I'd like to understand why even the train set is stuck before I throw more parameters at it.")
    write(f"{out}/thread.md", t.render())
    hi = float((per > 2.0).mean())
    return {"truth": "label_noise",
            "symptom": f"My MLP plateaus after a few epochs and even the training accuracy stops at ~{rows[8][2] * 100:.0f}%; "
                       "why can't it fit the training set?",
            "how": f"{share_wrong * 100:.0f}% of the labels (train and val alike, one annotator per window) were replaced by a "
                   f"random class: train acc caps at ~{rows[8][2]:.2f} with a high loss floor, then creeps up only by "
                   f"memorisation while val falls; a 3x320 model does not lift the cap; {hi * 100:.0f}% of train samples "
                   f"have loss > 2 in a bimodal histogram with every class capped alike."}
