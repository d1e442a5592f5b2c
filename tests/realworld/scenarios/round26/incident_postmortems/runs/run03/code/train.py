# churn/train.py  (trainer used by the nightly churn-propensity job)
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
