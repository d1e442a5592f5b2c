"""run04: resume restores model weights only; optimizer + scheduler restart (warm-up replays)."""
import random, math, datetime as dt
from common import *
from thread import Discourse, code, details, when
import noise

E, W, BASE, WD, BS = 16, 2, 8e-3, 0.05, 128
lam = lambda e: (e + 1) / W if e < W else 0.5 * (1 + math.cos(math.pi * (e - W) / (E - W)))

CONFIG = f"""# configs/gesture_mlp.yaml
data:
  train: /mnt/shared/gestures/v2/train.npz
  val: /mnt/shared/gestures/v2/val.npz
model:
  hidden: 96
  depth: 2
train:
  epochs: {E}
  batch_size: {BS}
  lr: {BASE}
  weight_decay: {WD}
  warmup_epochs: {W}
  schedule: cosine
  log_every: 25
  ckpt_dir: /mnt/shared/ckpt/gesture_mlp
  seed: 0
"""

RESUME_SNIPPET = '''model = build_model(cfg.model).to(device)

start_epoch = 0
if args.resume:
    ckpt = torch.load(args.resume, map_location=device)
    print(model.load_state_dict(ckpt["model"]))
    start_epoch = ckpt["epoch"] + 1
    log.info(f"Resumed from {args.resume} (finished epoch {ckpt['epoch'] + 1})")

optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.train.lr, weight_decay=cfg.train.weight_decay)
scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(cfg.train.warmup_epochs, cfg.train.epochs))

for epoch in range(start_epoch, cfg.train.epochs):
    train_loss = train_one_epoch(model, optimizer, scheduler, train_loader, epoch, log)
    val_loss, val_acc = evaluate(model, val_loader)
    log.info(f"epoch {epoch + 1}/{cfg.train.epochs} done | train_loss {train_loss:.4f} | val_loss {val_loss:.4f} "
             f"| val_acc {val_acc:.4f} | lr {scheduler.get_last_lr()[0]:.2e}")
    scheduler.step()
    path = f"{cfg.train.ckpt_dir}/last.pt"
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, path)
    shutil.copy(path, f"{path}.bak_ep{epoch + 1}")
    log.info(f"saved checkpoint {path} (epoch {epoch + 1})")'''


def make_opt(model):
    o = torch.optim.AdamW(model.parameters(), lr=BASE, weight_decay=WD)
    return o, torch.optim.lr_scheduler.LambdaLR(o, lam)


def run_epoch(model, opt, sch, X, y, g, ep, log, stop_at=None, tick=lambda: None):
    nb = (len(X) + BS - 1) // BS
    tot, n = 0.0, 0
    for step, (xb, yb) in enumerate(batches(X, y, BS, True, g), 1):
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        tot += loss.item(); n += 1
        tick()
        if step % 25 == 0:
            log(f"epoch {ep + 1}/{E} [{step:3d}/{nb}] loss {loss.item():.4f} (avg {tot / n:.4f}) lr {sch.get_last_lr()[0]:.2e}")
        if stop_at and step == stop_at:
            return None
    return tot / n


def build(out):
    r = random.Random(404)
    task = Mixture(24, 10, 71, blobs=4, sigma=1.25)
    X, y = task.sample(16000, 72); Xv, yv = task.sample(2000, 73)
    X, y, Xv, yv = map(torch.tensor, (X, y, Xv, yv))
    res = {}
    rt = random.Random(4040)

    def session(t0, name):
        clk = Clock(t0, 0.0)
        lines = []
        def log(m):
            lines.append(f"[{clk.stamp()}] INFO {m}")
        return clk, lines, log

    def tick():
        clk_holder[0].advance(rt.uniform(1.05, 1.35))
    clk_holder = [None]

    # --- original (preempted) run -----------------------------------------
    clk, L1, log = session(dt.datetime(2024, 5, 15, 4, 38, 40), "a")
    clk_holder[0] = clk
    log("config: configs/gesture_mlp.yaml")
    log(f"train samples: {len(X)} | val samples: {len(Xv)} | classes: 10")
    torch.manual_seed(0)
    model = mlp(24, 96, 10, depth=2)
    clk.advance(rt.uniform(20, 40))
    log(f"model params: {sum(p.numel() for p in model.parameters())}")
    opt, sch = make_opt(model)
    g = torch.Generator().manual_seed(0)
    hist = []
    ckpt = None
    for ep in range(E):
        if ep == 11:
            run_epoch(model, opt, sch, X, y, g, ep, log, stop_at=100, tick=tick)
            break
        tl = run_epoch(model, opt, sch, X, y, g, ep, log, tick=tick)
        vl, va = evaluate(model, Xv, yv)
        clk.advance(rt.uniform(18, 26))
        lr_ep = sch.get_last_lr()[0]
        log(f"epoch {ep + 1}/{E} done | train_loss {tl:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {lr_ep:.2e}")
        hist.append((ep + 1, tl, vl, va, lr_ep))
        sch.step()
        ckpt = {k: v.clone() for k, v in model.state_dict().items()}
        log(f"saved checkpoint /mnt/shared/ckpt/gesture_mlp/last.pt (epoch {ep + 1})")
        clk.advance(4.0)
    kill_gap = 0
    for l in L1[::-1]:
        if "saved checkpoint" in l:
            t_save = dt.datetime.strptime(l[1:20], "%Y-%m-%d %H:%M:%S")
            kill_gap = int(round((clk.now() - t_save).total_seconds() / 60))
            break
    L1.append("Received SIGTERM (spot instance reclaimed), exiting.")
    L1.append("srun: error: node gpu-spot-017: task 0: Terminated")

    # --- resumed run ---------------------------------------------------------
    clk, L2, log = session(dt.datetime(2024, 5, 15, 9, 47, 3), "b")
    clk_holder[0] = clk
    log("config: configs/gesture_mlp.yaml")
    log(f"train samples: {len(X)} | val samples: {len(Xv)} | classes: 10")
    torch.manual_seed(0)
    model = mlp(24, 96, 10, depth=2)
    clk.advance(rt.uniform(20, 40))
    log(f"model params: {sum(p.numel() for p in model.parameters())}")
    model.load_state_dict(ckpt)
    L2.append("<All keys matched successfully>")
    log("Resumed from /mnt/shared/ckpt/gesture_mlp/last.pt (finished epoch 11)")
    vl_chk, va_chk = evaluate(model, Xv, yv)
    opt, sch = make_opt(model)
    g = torch.Generator().manual_seed(0)
    hist2 = []
    for ep in range(11, E):
        tl = run_epoch(model, opt, sch, X, y, g, ep, log, tick=tick)
        vl, va = evaluate(model, Xv, yv)
        clk.advance(rt.uniform(18, 26))
        lr_ep = sch.get_last_lr()[0]
        log(f"epoch {ep + 1}/{E} done | train_loss {tl:.4f} | val_loss {vl:.4f} | val_acc {va:.4f} | lr {lr_ep:.2e}")
        hist2.append((ep + 1, tl, vl, va, lr_ep))
        sch.step()
        log(f"saved checkpoint /mnt/shared/ckpt/gesture_mlp/last.pt (epoch {ep + 1})")
        clk.advance(4.0)
    log("training finished")

    # --- the reporter's earlier, uninterrupted run (on-demand node, different seed) ---
    torch.manual_seed(1)
    m3 = mlp(24, 96, 10, depth=2)
    o3, s3 = make_opt(m3)
    g3 = torch.Generator().manual_seed(1)
    hist3 = []
    for ep in range(E):
        tl = run_epoch(m3, o3, s3, X, y, g3, ep, lambda m: None)
        vl, va = evaluate(m3, Xv, yv)
        hist3.append((ep + 1, tl, vl, va, s3.get_last_lr()[0]))
        s3.step()

    write(f"{out}/train_2024-05-15_0438.log", "\n".join(L1))
    write(f"{out}/train_2024-05-15_0947_resume.log", "\n".join(L2))
    write(f"{out}/gesture_mlp.yaml", CONFIG)

    pre = hist[-1]; post = hist2[0]; fin = hist2[-1]
    base = dt.datetime(2024, 5, 15, 13, 5)
    t = Discourse("PyTorch Forums", "distributed / checkpointing",
                  "Loss goes up and accuracy drops after resuming from checkpoint — corrupted checkpoint on NFS?",
                  tags=["checkpoint", "resume"])
    t.post("oyelaran", base, f"""Hi,

our training jobs run on spot GPU nodes, so they get killed every now and then and resume from `last.pt` (saved at the end of every epoch to an NFS share). Last night's job was killed in epoch 12 and resumed from the epoch-11 checkpoint. After the resume the model got **worse**: train loss went up and val accuracy dropped, and it never really got back to where it was:

{code(chr(10).join(f"epoch {e:2d}  train_loss {a:.4f}  val_acc {d:.4f}" for e, a, b, d, _ in (hist[-2:] + hist2)))}

My suspicion is that the checkpoint got partially written / corrupted on NFS when the node was reclaimed (the save and the SIGTERM were close in time). Is there a way to verify a checkpoint file is intact? Both logs and the config are attached.

📎 train_2024-05-15_0438.log
📎 train_2024-05-15_0947_resume.log
📎 gesture_mlp.yaml""")
    t.post("wzhang_dev", base + dt.timedelta(minutes=50), "+1, we see a bump after every spot resume as well, assumed it was just noise. "
           "We save with `torch.save(state, path)` directly on EFS.")
    t.post("h.lindqvist", base + dt.timedelta(hours=2), "Never write checkpoints in place on network storage. Write to "
           "`last.pt.tmp`, fsync, then `os.replace` it. If the node dies mid-write you get a truncated zip and "
           "`torch.load` may or may not complain. That's very likely your problem.", likes=4)
    t.post("oyelaran", base + dt.timedelta(hours=3), f"""Good tip, I'll change the saving. But I'm not sure it's truncated: the resume log says `<All keys matched successfully>` and I just loaded `last.pt` in a notebook and evaluated it on the val set:

{code(f'''>>> sd = torch.load("/mnt/shared/ckpt/gesture_mlp/last.pt.bak_ep11", map_location="cpu")
>>> model.load_state_dict(sd["model"])
<All keys matched successfully>
>>> evaluate(model, val_loader)
(val_loss={vl_chk:.4f}, val_acc={va_chk:.4f})''', 'python')}

which is exactly what epoch 11 reported before the kill ({pre[3]:.4f}). So the weights at least look right.""")
    t.post("rpatel", base + dt.timedelta(hours=5), "Could be cuDNN non-determinism + different GPU type after the resume "
           "(the spot pool mixes A10G and L4). Check `nvidia-smi` on both nodes.")
    t.post("oyelaran", base + dt.timedelta(hours=6), "Same instance type both times as far as I can tell:\n\n" + code(noise.nvidia_smi(r, gpu_name="A10G", when=dt.datetime(2024, 5, 15, 19, 21, 5))))
    t.post("wzhang_dev", base + dt.timedelta(hours=9), f"here's ours for comparison, happens on A100 too:\n\n" + details("collect_env", code(noise.collect_env(r, gpu_name="A100"))))
    t.post("mariana.c", base + dt.timedelta(days=1, hours=1), "What does the resume code look like? Can you paste the part "
           "of the script that loads the checkpoint and builds the optimizer?", likes=2)
    t.post("oyelaran", base + dt.timedelta(days=1, hours=2), f"""Sure, this is the relevant part of `train.py` (`build_model`, `train_one_epoch`, `evaluate` are boring, the loaders use `shuffle=True`):

{code(RESUME_SNIPPET, 'python')}

For reference, the run from last week that was on an on-demand node and never got interrupted (same config, seed 1) ended like this:

{code(chr(10).join(f"epoch {e:2d}  train_loss {a:.4f}  val_acc {d:.4f}" for e, a, b, d, _ in hist3[-5:]))}""")
    t.post("h.lindqvist", base + dt.timedelta(days=1, hours=4), "Still think it's the NFS write. `last.pt.bak_ep11` was "
           "copied when? If it was copied from the half-written file you'd be testing a different file than the one the job loaded.")
    t.post("tb_rossi", base + dt.timedelta(days=1, hours=7), "Unrelated to the checkpoint but your val loss is basically flat "
           "from epoch 6 while train loss keeps going down, you're overfitting anyway. I'd add dropout and stop worrying "
           "about the resume.")
    t.post("oyelaran", base + dt.timedelta(days=2), "The .bak is copied by the job itself right after each save (see the snippet), and "
           "the epoch-11 save finished ~{} minutes before the kill according to the log. I can rerun the whole thing on an on-demand "
           "node to rule it out, but our on-demand quota for this month is gone. Any other idea what to look at in the logs?".format(kill_gap))
    write(f"{out}/thread.md", t.render())
    return {"truth": "resume_mismatch",
            "symptom": "After our spot job resumed from the epoch-11 checkpoint, train loss went up and val accuracy "
                       "dropped and never recovered; I think the checkpoint got corrupted on NFS.",
            "how": f"The resume code loads only ckpt['model'] and rebuilds AdamW + the warm-up/cosine LambdaLR from scratch "
                   f"(optimizer/scheduler states are saved but never loaded), so the schedule restarts: lr goes "
                   f"{pre[4]:.2e} -> {post[4]:.2e} -> {hist2[1][4]:.2e} at the resume, train loss rises "
                   f"{pre[1]:.3f} -> {hist2[1][1]:.3f} and val acc falls {pre[3]:.3f} -> {hist2[1][3]:.3f}; the loaded "
                   f"weights themselves evaluate to the pre-kill {va_chk:.3f}."}
