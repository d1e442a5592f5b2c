"""run02: healthy. Val loss below train loss because train loss is measured with dropout on."""
import random, datetime as dt
from common import *
from thread import Discourse, code, details, when
import noise


def train(X, y, Xv, yv, hidden, drop, epochs, bs, lr, seed):
    torch.manual_seed(seed)
    model = mlp(X.shape[1], hidden, int(y.max()) + 1, depth=3, dropout=drop)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    g = torch.Generator().manual_seed(seed)
    rows = []
    for ep in range(epochs):
        model.train()
        tot, cor, n = 0.0, 0, 0
        for xb, yb in batches(X, y, bs, True, g):
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            opt.step()
            tot += loss.item() * len(xb); cor += (out.argmax(1) == yb).sum().item(); n += len(xb)
        vl, va = evaluate(model, Xv, yv)
        rows.append((ep + 1, tot / n, cor / n, vl, va))
    return model, rows


def build(out):
    r = random.Random(202)
    task = Mixture(20, 5, 31, blobs=4, sigma=1.05)
    Xall, yall = task.sample(6250, 32)
    perm = np.random.default_rng(0).permutation(len(Xall))
    tr, va = perm[:5000], perm[5000:]
    # reporter's duplicate check: exact rows shared between splits
    trs = {Xall[i].tobytes() for i in tr}
    dup = sum(Xall[i].tobytes() in trs for i in va)
    X, y, Xv, yv = map(torch.tensor, (Xall[tr], yall[tr], Xall[va], yall[va]))
    model, rows = train(X, y, Xv, yv, 256, 0.5, 14, 64, 1e-3, 0)
    tl_eval, ta_eval = evaluate(model, X, y)
    vl_fin, va_fin = evaluate(model, Xv, yv)
    # second poster: own data, lighter dropout
    task2 = Mixture(12, 3, 41, blobs=3, sigma=1.0)
    X2, y2 = task2.sample(3000, 42); Xv2, yv2 = task2.sample(800, 43)
    _, rows2 = train(*map(torch.tensor, (X2, y2, Xv2, yv2)), 128, 0.3, 10, 64, 1e-3, 1)

    csv = ["epoch,train_loss,train_acc,val_loss,val_acc"] + [f"{e},{a:.5f},{b:.5f},{c:.5f},{d:.5f}" for e, a, b, c, d in rows]
    write(f"{out}/metrics.csv", "\n".join(csv))

    base = dt.datetime(2024, 2, 12, 9, 14)
    t = Discourse("PyTorch Forums", "vision", "Validation loss lower than training loss from epoch 1 — is my split leaking?",
                  tags=["loss", "validation"])
    first = "\n".join(f"Epoch {e:2d} | train loss {a:.4f} acc {b:.3f} | val loss {c:.4f} acc {d:.3f}"
                      for e, a, b, c, d in rows[:6])
    t.post("jdelacroix", base, f"""Hi all,

I'm training a small MLP classifier (3 hidden layers of 256, dropout 0.5, Adam 1e-3, batch 64) on tabular features extracted from our inspection camera, 5 classes, 6250 samples split 80/20.

From the very first epoch the **validation loss is lower than the training loss**, and val accuracy is slightly higher than train accuracy. Everything I read says that should not happen unless the validation set leaks into training. My worry is that my split is broken somewhere. First epochs:

{code(first)}

Is this a sign of leakage, or is it OK? I need to report these numbers to my team and I don't want to present something that's wrong.""")
    t.post("marco_b", when(base, hours=1), "That pattern is almost always leakage in my experience. Check whether you have "
           "duplicated images (e.g. the same part photographed twice) that end up on both sides of the split.")
    t.post("jdelacroix", when(base, hours=2), f"""Good point. The split is done once on row indices:

{code('''rng = np.random.default_rng(0)
perm = rng.permutation(len(X))
train_idx, val_idx = perm[:5000], perm[5000:]
np.save("splits/train_idx.npy", train_idx); np.save("splits/val_idx.npy", val_idx)''', 'python')}

and I checked exact duplicate feature rows between the two sides:

{code(f'''>>> train_rows = {{X[i].tobytes() for i in train_idx}}
>>> sum(X[i].tobytes() in train_rows for i in val_idx)
{dup}''', 'python')}

The features are continuous floats so exact duplicates would be weird anyway.""")
    t.post("sunny_k", when(base, hours=3), "+1, seeing the same in my own project. 3 classes, dropout 0.3:\n\n" + code(
        "\n".join(f"ep {e}: loss={a:.4f} acc={b:.4f}  val_loss={c:.4f} val_acc={d:.4f}" for e, a, b, c, d in rows2)) +
        "\n\nwould also like to know if this is a problem")
    t.post("hwang.li", when(base, hours=5), "Which torch/CUDA are you on? There were reports of wrong results with some cuDNN "
           "versions. Could you paste `python -m torch.utils.collect_env`?")
    t.post("jdelacroix", when(base, hours=6), details("collect_env", code(noise.collect_env(r))))
    t.post("hwang.li", when(base, hours=7), "Hmm, that looks fine. Maybe try pinning cudnn.deterministic=True and see if it changes.")
    t.post("ktran_ml", when(base, days=1, hours=1), "How is your `train loss` computed? Is it the average over the batches of "
           "the epoch while the model is in `train()` mode, or a separate pass over the training set at the end of the epoch?",
           likes=3)
    t.post("jdelacroix", when(base, days=1, hours=3), f"""It's the running average over the batches during the epoch (standard loop, `model.train()`, loss.item() weighted by batch size). Val is computed after the epoch with `model.eval()` and `torch.no_grad()`.

I also ran one extra pass over the **training** set with the final model in eval mode after the last epoch:

{code(f'''final model, eval mode:
  train set: loss {tl_eval:.4f}  acc {ta_eval:.4f}
  val set:   loss {vl_fin:.4f}  acc {va_fin:.4f}''')}

Full per-epoch metrics attached (metrics.csv).

📎 metrics.csv""")
    t.post("marco_b", when(base, days=1, hours=5), "I'd still be suspicious. Can you also shuffle the labels of the train "
           "set and retrain? If val accuracy stays high, it's leakage.")
    t.post("sunny_k", when(base, days=1, hours=8), "for what it's worth here's my env, different GPU, same behaviour:\n\n"
           + details("nvidia-smi", code(noise.nvidia_smi(r, when=dt.datetime(2024, 2, 13, 16, 48, 51)))))
    t.post("p.ostrowski", when(base, days=2), "Unrelated, but with 6k rows I wouldn't bother with a 3x256 MLP; "
           "try LightGBM first, it'll probably beat it.")
    t.post("jdelacroix", when(base, days=2, hours=4), f"I'll try the label-shuffle test tomorrow. In the meantime: can I "
           f"report {va_fin * 100:.1f}% val accuracy or is there something wrong with this run?")
    write(f"{out}/thread.md", t.render())
    below = sum(1 for e, a, b, c, d in rows if c < a)
    return {"truth": "healthy",
            "symptom": "My validation loss is lower than my training loss from the first epoch (and val acc a bit higher); "
                       "is my split leaking, or is this OK?",
            "how": f"No fault: a 3x256 MLP with dropout 0.5; train loss is the running average in train mode (dropout on), "
                   f"so val loss is below it in {below}/{len(rows)} epochs, while an eval-mode pass gives train {tl_eval:.3f} vs val "
                   f"{vl_fin:.3f}, {dup} duplicate rows across the split, and val acc ({va_fin:.3f}) is far from perfect."}
