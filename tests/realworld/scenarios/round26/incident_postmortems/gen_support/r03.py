"""run03: spot preemption + auto-resume of the churn-propensity model."""
import copy, time
from common import *

RUN = "run03"

TRAIN_PY = '''# churn/train.py  (trainer used by the nightly churn-propensity job)
import argparse, glob, os, time
import torch
import torch.nn as nn

from churn.data import load_features          # -> X float32 [N, 16], y int64 [N] (10 propensity buckets)
from churn.utils import get_logger, install_sigterm_handler

log = get_logger("churn.train")


def build_model():
    return nn.Sequential(nn.Linear(16, 128), nn.ReLU(),
                         nn.Linear(128, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def save_checkpoint(path, model, opt, sched, epoch):
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(), "epoch": epoch}, path)


@torch.no_grad()
def evaluate(model, X, y):
    model.eval()
    out = model(X)
    model.train()
    return nn.functional.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt-dir", required=True)
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--lr", type=float, default=0.2)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    install_sigterm_handler()          # spot reclaim -> SIGTERM -> exit 143, orchestrator restarts the job

    torch.manual_seed(args.seed)
    Xtr, ytr = load_features("train")
    Xva, yva = load_features("val")
    model = build_model()

    start_epoch = 1
    ckpts = sorted(glob.glob(os.path.join(args.ckpt_dir, "ckpt_epoch*.pt")))
    if ckpts:
        ckpt = torch.load(ckpts[-1], map_location="cpu")
        model.load_state_dict(ckpt["model"])
        start_epoch = ckpt["epoch"] + 1
        log.info(f"resuming from {ckpts[-1]} (epoch {ckpt['epoch']})")

    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[12, 18], gamma=0.1)
    loss_fn = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(args.seed)
    steps_per_epoch = (len(Xtr) + args.batch_size - 1) // args.batch_size

    for epoch in range(start_epoch, args.epochs + 1):
        perm = torch.randperm(len(Xtr), generator=g)
        running = 0.0
        for i in range(steps_per_epoch):
            idx = perm[i * args.batch_size:(i + 1) * args.batch_size]
            loss = loss_fn(model(Xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
            if (i + 1) % 10 == 0:
                gstep = (epoch - 1) * steps_per_epoch + i + 1
                log.info(f"epoch={epoch} step={gstep} loss={running / 10:.4f} lr={opt.param_groups[0]['lr']:.4g}")
                running = 0.0
        sched.step()
        vl, va = evaluate(model, Xva, yva)
        log.info(f"epoch={epoch} done val_loss={vl:.4f} val_acc={va:.4f}")
        save_checkpoint(os.path.join(args.ckpt_dir, f"ckpt_epoch{epoch:03d}.pt"), model, opt, sched, epoch)

    torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "final.pt"))
    log.info("training complete")


if __name__ == "__main__":
    main()
'''

E, BS = 24, 128


def mk(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9, weight_decay=5e-4)
    return opt, torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[12, 18], gamma=0.1)


def run_epochs(model, opt, sched, g, X, Y, Xv, Yv, e0, e1, clock=None, lines=None, stop_at=None, summary=None):
    lf = nn.CrossEntropyLoss()
    spe = (len(X) + BS - 1) // BS
    for ep in range(e0, e1 + 1):
        perm = torch.randperm(len(X), generator=g)
        t0, running, losses = time.perf_counter(), 0.0, []
        for i in range(spe):
            idx = perm[i * BS:(i + 1) * BS]
            loss = lf(model(X[idx]), Y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
            losses.append(loss.item())
            if (i + 1) % 10 == 0:
                if lines is not None:
                    lines.append(f"{clock.now()} INFO churn.train: epoch={ep} step={(ep - 1) * spe + i + 1} "
                                 f"loss={running / 10:.4f} lr={opt.param_groups[0]['lr']:.4g}")
                running = 0.0
            if stop_at and ep == stop_at[0] and i + 1 == stop_at[1]:
                return
        sched.step()
        vl, va = evaluate(model, Xv, Yv)
        if lines is not None:
            lines.append(f"{clock.now()} INFO churn.train: epoch={ep} done val_loss={vl:.4f} val_acc={va:.4f}")
            lines.append(f"{clock.now()} INFO churn.ckpt: saved /ckpt/churn-nightly/2024-05-21/ckpt_epoch{ep:03d}.pt")
        if summary is not None:
            summary.append((ep, float(np.mean(losses)), vl, va))


def build():
    rng = np.random.default_rng(303)
    T = Teacher(rng, 16, 10, hidden=12)
    Xo, Yo = T.sample(rng, 12000)       # last week's snapshot
    Xov, Yov = T.sample(rng, 3000)
    X, Y = T.sample(rng, 12000)
    Xv, Yv = T.sample(rng, 3000)
    Xo, Yo, Xov, Yov, X, Y, Xv, Yv = map(torch.tensor, (Xo, Yo, Xov, Yov, X, Y, Xv, Yv))

    # last week's uninterrupted run
    torch.manual_seed(5)
    m = mlp(16, 10, 128)
    o, s = mk(m)
    ref = []
    run_epochs(m, o, s, torch.Generator().manual_seed(5), Xo, Yo, Xov, Yov, 1, E, summary=ref)

    # this week: attempt 1, preempted during epoch 15
    c1 = Clock("2024-05-21 01:30:04", scale=150)
    L1 = [f"{c1.now()} INFO orchestrator: job churn-nightly-2024-05-21 attempt=1 node=ip-10-4-7-19 (spot)",
          f"{c1.now()} INFO churn.data: loaded train=12000 val=3000 features=16 buckets=10"]
    torch.manual_seed(5)
    m = mlp(16, 10, 128)
    o, s = mk(m)
    g = torch.Generator().manual_seed(5)
    summ = []
    run_epochs(m, o, s, g, X, Y, Xv, Yv, 1, 14, c1, L1, summary=summ)
    ck_state = copy.deepcopy(m.state_dict())
    run_epochs(m, o, s, g, X, Y, Xv, Yv, 15, 15, c1, L1, stop_at=(15, 63))
    t_pre = c1.now("%H:%M:%S")[:8]
    L1 += [f"{c1.now()} WARNING churn.utils: received SIGTERM (spot interruption notice), exiting",
           f"{c1.now()} INFO orchestrator: attempt=1 exited with code 143; rescheduling"]

    # attempt 2 on a new node
    t_restart = (datetime.datetime.strptime(c1.now()[:19], "%Y-%m-%d %H:%M:%S")
                 + datetime.timedelta(seconds=313)).strftime("%Y-%m-%d %H:%M:%S")
    c2 = Clock(t_restart, scale=150)
    L2 = [f"{c2.now()} INFO orchestrator: job churn-nightly-2024-05-21 attempt=2 node=ip-10-4-9-202 (spot)",
          f"{c2.now()} INFO churn.data: loaded train=12000 val=3000 features=16 buckets=10"]
    torch.manual_seed(5)
    m = mlp(16, 10, 128)
    m.load_state_dict(ck_state)
    L2.append(f"{c2.now()} INFO churn.train: resuming from /ckpt/churn-nightly/2024-05-21/ckpt_epoch014.pt (epoch 14)")
    o, s = mk(m)
    g = torch.Generator().manual_seed(5)
    run_epochs(m, o, s, g, X, Y, Xv, Yv, 15, E, c2, L2, summary=summ)
    t_fin = c2.now("%H:%M:%S")[:8]
    L2 += [f"{c2.now()} INFO churn.train: training complete",
           f"{c2.now()} INFO orchestrator: attempt=2 exited with code 0"]
    fin = summ[-1]
    reff = ref[-1]
    write(RUN, "logs/churn-nightly-2024-05-21.attempt1.log", "\n".join(L1))
    write(RUN, "logs/churn-nightly-2024-05-21.attempt2.log", "\n".join(L2))
    write(RUN, "code/train.py", TRAIN_PY)

    tab = md_table(["epoch", "train loss (mean)", "val_loss", "val_acc", "last week val_acc"],
                   [(e, f"{tl:.4f}", f"{vl:.4f}", f"{va:.4f}", f"{ref[e - 1][3]:.4f}") for (e, tl, vl, va) in summ if e >= 9])
    doc = f"""# Postmortem: churn-propensity nightly 2024-05-21 — degraded model after spot preemption

> **Status:** Draft — root cause not confirmed · **Owner:** growth-ml · **Last updated:** 2024-05-22

## Summary

The nightly churn-propensity training job was preempted (spot interruption) during epoch 15 on node
`ip-10-4-7-19`. The orchestrator restarted it on `ip-10-4-9-202`, the trainer resumed from the epoch-14
checkpoint and finished normally (exit 0). The resulting model's validation accuracy is
**{fin[3]:.4f}** vs **{reff[3]:.4f}** for last week's run; the automated promotion gate (val_acc ≥ 0.88) blocked it.
The training loss jumps up right after the restart and never gets back to where it was before the preemption.

## Impact

* No new churn model for 2024-05-21; the 2024-05-14 model kept serving (scores one week stale).
* Marketing's retention campaign list for 05-22 built from the stale model.

## Timeline (UTC)

| Time | Event |
|---|---|
| 01:30:04 | `churn-nightly-2024-05-21` attempt 1 starts on spot node `ip-10-4-7-19`. |
| {t_pre} | Spot interruption notice, SIGTERM during epoch 15; last checkpoint `ckpt_epoch014.pt`. |
| {t_restart[11:]} | Attempt 2 starts on `ip-10-4-9-202`, resumes from `ckpt_epoch014.pt`. |
| {t_fin} | Attempt 2 finishes, exit 0. Promotion gate fails (val_acc {fin[3]:.4f}). |
| 08:15 | On-call (R. Mensah) acknowledges, starts this doc. |
| 11:00 | Checkpoint file checksum verified against the object store copy — matches. |

## Graphs

Per-epoch values (attempt 1 up to epoch 14, attempt 2 from epoch 15), next to last week's uninterrupted run:

{tab}

## What we tried

1. Verified the checkpoint's sha256 against the object store — identical, so not a truncated copy.
2. Loaded `ckpt_epoch014.pt` in a notebook and evaluated it: val_acc {summ[13][3]:.4f}, same as the attempt-1 log,
   so the weights themselves are fine.
3. Checked `ip-10-4-9-202`: different instance generation than `ip-10-4-7-19` (newer CPU). Nothing in dmesg.

## Root cause (suspected)

Unclear. Leading theory: the replacement node (different CPU generation / MKL build) produces numerically
different results so training "diverged" after the restart. Second theory: something in the checkpoint copy
between nodes. Neither is confirmed.

## Action items

| Action | Owner | Status |
|---|---|---|
| Pin the nightly job to on-demand nodes until this is understood | @infra-growth | Done |
| Rerun 2024-05-21 end-to-end without preemption and compare | @r.mensah | Open |
| Add node instance type to the run metadata | @infra-growth | Open |

## Attachments

* `logs/churn-nightly-2024-05-21.attempt1.log`, `logs/churn-nightly-2024-05-21.attempt2.log`
* `code/train.py` (trainer at the deployed commit `9f3c1e2`)
"""
    write(RUN, "postmortem_churn-nightly-2024-05-21.md", doc)
    return {"truth": "resume_mismatch",
            "symptom": "Our nightly job got preempted during epoch 15 and auto-resumed on another node; right after the restart the loss jumped and the final model is ~" + f"{round(100 * (reff[3] - fin[3]))}" + " points worse. We think the new node or the checkpoint copy is bad.",
            "how": f"The trainer's resume path restores only the model weights and epoch; the SGD optimizer and MultiStepLR scheduler are rebuilt fresh, so the lr goes from 0.02 back to 0.2 at epoch 15 and never decays again: the loss jumps at the resume step and final val_acc is {fin[3]:.3f} vs {reff[3]:.3f} last week (lr column in the attempt-2 log)."}
