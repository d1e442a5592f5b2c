"""run09: healthy. Two unseeded runs of the same config differ by under a point of accuracy."""
import random, math, datetime as dt
from common import *
from thread import Discourse, code, details, when
import noise


def run(X, y, Xv, yv, seed, t0, epochs=12, log_every=5):
    torch.manual_seed(seed)
    m = mlp(X.shape[1], 128, 7, depth=2, dropout=0.1)
    opt = torch.optim.AdamW(m.parameters(), lr=2e-3, weight_decay=1e-2)
    nb = (len(X) + 127) // 128
    sch = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=epochs * nb, pct_start=0.15)
    g = torch.Generator().manual_seed(seed)
    clk = Clock(t0, 0.0)
    rr = random.Random(seed)
    L = [f"[{clk.stamp()}] wandb: Currently logged in as: lab-ts (tsig-lab). Use `wandb login --relogin` to force relogin",
         f"[{clk.stamp()}] wandb: Tracking run with wandb version 0.17.0",
         f"[{clk.stamp()}] cfg: model=mlp2x128 dropout=0.1 opt=adamw lr=2e-3 wd=1e-2 sched=onecycle bs=128 epochs={epochs} seed=None",
         f"[{clk.stamp()}] data: train={len(X)} val={len(Xv)} classes=7"]
    rows, step = [], 0
    for ep in range(1, epochs + 1):
        m.train()
        tot, n = 0.0, 0
        for xb, yb in batches(X, y, 128, True, g):
            opt.zero_grad()
            loss = F.cross_entropy(m(xb), yb)
            loss.backward()
            gn = grad_norm(m)
            opt.step(); sch.step()
            step += 1; tot += loss.item(); n += 1
            clk.advance(rr.uniform(0.030, 0.045))
            if step % log_every == 0:
                L.append(f"[{clk.stamp()}] ep {ep:2d} it {step:4d} loss {loss.item():.4f} gnorm {gn:.3f} lr {sch.get_last_lr()[0]:.2e}")
        vl, va = evaluate(m, Xv, yv)
        clk.advance(rr.uniform(0.6, 0.9))
        rows.append((ep, tot / n, vl, va))
        L.append(f"[{clk.stamp()}] ** epoch {ep:2d} train_loss {tot / n:.4f} val_loss {vl:.4f} val_acc {va:.4f}")
    L.append(f"[{clk.stamp()}] wandb: Run summary: val_acc {rows[-1][3]:.4f}")
    return L, rows


def build(out):
    r = random.Random(909)
    task = Mixture(18, 7, 121, blobs=3, sigma=0.95)
    X, y = task.sample(6000, 122); Xv, yv = task.sample(1500, 123)
    X, y, Xv, yv = map(torch.tensor, (X, y, Xv, yv))
    La, ra = run(X, y, Xv, yv, 52817, dt.datetime(2024, 10, 7, 21, 3, 11))
    Lb, rb = run(X, y, Xv, yv, 90413, dt.datetime(2024, 10, 8, 9, 40, 52))
    _, rc = run(X, y, Xv, yv, 1, dt.datetime(2024, 10, 9, 10, 0, 0))
    _, rd = run(X, y, Xv, yv, 2, dt.datetime(2024, 10, 9, 10, 30, 0))
    write(f"{out}/run_a_oct07.log", "\n".join(La))
    write(f"{out}/run_b_oct08.log", "\n".join(Lb))
    accs = [rr_[-1][3] for rr_ in (ra, rb, rc, rd)]
    # another poster's tiny dataset, two seeds
    task2 = Mixture(10, 4, 131, blobs=2, sigma=1.1)
    X2, y2 = task2.sample(900, 132); Xv2, yv2 = task2.sample(300, 133)
    X2, y2, Xv2, yv2 = map(torch.tensor, (X2, y2, Xv2, yv2))
    o1 = run(X2, y2, Xv2, yv2, 11, dt.datetime(2024, 10, 8, 1, 0), epochs=8)[1][-1][3]
    o2 = run(X2, y2, Xv2, yv2, 12, dt.datetime(2024, 10, 8, 2, 0), epochs=8)[1][-1][3]

    base = dt.datetime(2024, 10, 8, 11, 20)
    t = Discourse("discuss.pytorch.org", "reproducibility", "Same config, two runs, different accuracy — is my training broken?",
                  tags=["determinism", "seed"])
    t.post("tsigaras", base, f"""I'm writing up results for a thesis chapter and noticed that two runs of the **same** config on the same machine give different final numbers:

{code(f'''run_a (Oct 7):  val_acc {ra[-1][3]:.4f}  val_loss {ra[-1][2]:.4f}
run_b (Oct 8):  val_acc {rb[-1][3]:.4f}  val_loss {rb[-1][2]:.4f}''')}

Nothing changed in code or data between them (same git commit, same `data/v3/` files). Is something wrong with my setup (GPU nondeterminism?), and which number am I supposed to report? Both logs attached.

📎 run_a_oct07.log 📎 run_b_oct08.log""")
    t.post("hugo.f", base + dt.timedelta(minutes=40), "cuDNN is nondeterministic by default. Set `torch.backends.cudnn.deterministic = True` "
           "and `torch.backends.cudnn.benchmark = False` and the runs will match.")
    t.post("tsigaras", base + dt.timedelta(hours=1), "It's an MLP, no convolutions, so I don't think cuDNN is even used? But I'll try.")
    t.post("mei_lin", base + dt.timedelta(hours=2), f"+1 I get this too with a small dataset, except my difference is larger "
           f"(same script twice: {o1:.4f} vs {o2:.4f}). I thought PyTorch was deterministic on the same hardware.")
    t.post("abdul.r", base + dt.timedelta(hours=3), "Your log says `seed=None`. Without a fixed seed you get different init and "
           "different shuffling every run, that's expected. What matters is whether the spread is reasonable.", likes=3)
    t.post("hugo.f", base + dt.timedelta(hours=4), "Also `torch.use_deterministic_algorithms(True)` + `CUBLAS_WORKSPACE_CONFIG=:4096:8`, "
           "otherwise matmuls on GPU can differ between runs even with the same seed.")
    t.post("tsigaras", base + dt.timedelta(days=1), f"""Ran two more (this time with `seed=1` and `seed=2`, nothing else changed):

{code(f'''seed=1:  val_acc {rc[-1][3]:.4f}  val_loss {rc[-1][2]:.4f}
seed=2:  val_acc {rd[-1][3]:.4f}  val_loss {rd[-1][2]:.4f}''')}

So 4 runs: mean {np.mean(accs):.4f}, min {min(accs):.4f}, max {max(accs):.4f}. Is a spread like that normal, or does it mean the training is unstable? The curves look similar to me but I'm not experienced enough to judge.""")
    t.post("jonas_w", base + dt.timedelta(days=1, hours=2), "Check the environment is the same between runs, e.g. a silent pip upgrade "
           "between Oct 7 and Oct 8 could change things. Post `collect_env`?")
    t.post("tsigaras", base + dt.timedelta(days=1, hours=3), details("collect_env", code(noise.collect_env(r, gpu_name="4090"))) +
           "\n\nNo upgrades in between as far as I know (it's a conda env nobody else touches).")
    t.post("mei_lin", base + dt.timedelta(days=1, hours=5), "my env for comparison, also a 4090:\n\n" + details("nvidia-smi", code(noise.nvidia_smi(r, gpu_name="4090", when=dt.datetime(2024, 10, 9, 16, 3, 29)))))
    t.post("hugo.f", base + dt.timedelta(days=1, hours=7), "I'd still turn on full determinism before reporting anything, "
           "otherwise reviewers will complain.")
    t.post("tsigaras", base + dt.timedelta(days=2), "Thanks all. My supervisor asked me to confirm there's nothing wrong with the "
           "training itself before I report a number, so: is this run healthy, and what should I report?")
    write(f"{out}/thread.md", t.render())
    return {"truth": "healthy",
            "symptom": f"Two runs of the identical config gave {ra[-1][3] * 100:.1f}% and {rb[-1][3] * 100:.1f}% val accuracy; "
                       "is my training broken or nondeterministic, and which number do I report?",
            "how": f"No fault: the config has seed=None, so init and shuffling differ per run; four runs end at "
                   f"{', '.join(f'{a:.3f}' for a in accs)} with matching smooth curves and OneCycle schedules - ordinary "
                   f"seed variance (report mean/std over seeds)."}
