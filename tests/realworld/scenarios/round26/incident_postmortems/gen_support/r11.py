"""run11: claims-triage batch scoring worse than validation."""
import hashlib, io
from common import *

RUN = "run11"
CLASSES = ["fast_track", "standard", "needs_docs", "investigate", "escalate"]

SCORE_PY = '''# triage/score.py — nightly batch scoring of new claims (runs in the claims-scoring CronJob)
import argparse, csv, logging, hashlib
import torch

from triage.model import TriageNet            # MLP: Linear-BatchNorm-ReLU-Dropout x2 -> Linear(5)
from triage.features import read_feature_rows  # -> ids, float32 tensor [N, 16]

CLASSES = ["fast_track", "standard", "needs_docs", "investigate", "escalate"]
log = logging.getLogger("triage.score")


def load_model(path):
    blob = open(path, "rb").read()
    log.info("loading %s (sha256 %s)", path, hashlib.sha256(blob).hexdigest()[:12])
    ckpt = torch.load(path, map_location="cpu")
    model = TriageNet(in_dim=16, hidden=128, n_classes=len(CLASSES))
    model.load_state_dict(ckpt["model"])
    log.info("checkpoint epoch=%d val_acc=%.4f", ckpt["epoch"], ckpt["val_acc"])
    return model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="/models/triage/prod/best.pt")
    ap.add_argument("--input", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--chunk", type=int, default=16)
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")

    model = load_model(args.model)
    ids, X = read_feature_rows(args.input)
    log.info("scoring %d claims in chunks of %d", len(ids), args.chunk)

    with open(args.output, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["claim_id", "route", "confidence"])
        with torch.no_grad():
            for i in range(0, len(ids), args.chunk):
                probs = torch.softmax(model(X[i:i + args.chunk]), dim=1)
                conf, pred = probs.max(1)
                for cid, p, c in zip(ids[i:i + args.chunk], pred.tolist(), conf.tolist()):
                    w.writerow([cid, CLASSES[p], f"{c:.4f}"])
    log.info("wrote %s", args.output)


if __name__ == "__main__":
    main()
'''


def build():
    rng = np.random.default_rng(1111)
    T = Teacher(rng, 16, 5, hidden=8)
    X, Y = T.sample(rng, 10000)
    Xv, Yv = T.sample(rng, 2000)
    Xa, Ya = T.sample(rng, 1200)        # audited claims from the first week of scoring
    X, Y, Xv, Yv, Xa, Ya = map(torch.tensor, (X, Y, Xv, Yv, Xa, Ya))

    torch.manual_seed(11)
    model = mlp(16, 5, 128, dropout=0.3, bn=True)
    opt = torch.optim.Adam(model.parameters(), 1e-3, foreach=True)
    lf = nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(11)
    clock = Clock("2024-10-02 19:15:03", scale=100)
    tlog, best = [], (-1, None, 0)
    for ep in range(1, 15):
        ls = []
        for b in batches(len(X), 128, g):
            loss = lf(model(X[b]), Y[b])
            opt.zero_grad(); loss.backward(); opt.step()
            ls.append(loss.item())
        vl, va = evaluate(model, Xv, Yv)
        tlog.append(f"{clock.now()} triage.train INFO epoch={ep} train_loss={np.mean(ls):.4f} val_loss={vl:.4f} val_acc={va:.4f}")
        if va > best[0]:
            best = (va, {k: v.clone() for k, v in model.state_dict().items()}, ep)
            tlog.append(f"{clock.now()} triage.train INFO new best val_acc={va:.4f} -> /models/triage/runs/2024-10-02/best.pt")
    model.load_state_dict(best[1])
    buf = io.BytesIO()
    torch.save({"model": best[1], "epoch": best[2], "val_acc": best[0]}, buf)
    sha = hashlib.sha256(buf.getvalue()).hexdigest()[:12]
    tlog.append(f"{clock.now()} triage.train INFO copied best.pt (epoch {best[2]}, sha256 {sha}) -> /models/triage/prod/best.pt")

    # eval-mode audit accuracy (what the notebook check computed)
    _, audit_eval = evaluate(model, Xa, Ya)

    # the scoring job as deployed: train mode, chunks of 16
    def score(seed):
        torch.manual_seed(seed)
        model.train()
        preds = []
        with torch.no_grad():
            for i in range(0, len(Xa), 16):
                preds.append(torch.softmax(model(Xa[i:i + 16]), 1).argmax(1))
        return torch.cat(preds)
    p1, p2 = score(1001), score(2002)
    acc1, acc2 = float((p1 == Ya).float().mean()), float((p2 == Ya).float().mean())
    diff = float((p1 != p2).float().mean())
    model.eval()

    slog = []
    for day, acc_seed in (("2024-10-07", 1001), ("2024-10-07 (rerun)", 2002)):
        ts = "2024-10-07 02:00:04" if acc_seed == 1001 else "2024-10-07 14:02:51"
        slog += [f"{ts},112 triage.score INFO loading /models/triage/prod/best.pt (sha256 {sha})",
                 f"{ts},131 triage.score INFO checkpoint epoch={best[2]} val_acc={best[0]:.4f}",
                 f"{ts},158 triage.score INFO scoring {len(Xa)} claims in chunks of 16",
                 f"{ts},402 triage.score INFO wrote /out/claims_2024-10-07{'_rerun' if acc_seed == 2002 else ''}.csv"]
    write(RUN, "attachments/score.py", SCORE_PY)
    write(RUN, "attachments/train_2024-10-02.log", "\n".join(tlog[-8:]))
    write(RUN, "attachments/scoring_job_2024-10-07.log", "\n".join(slog))

    doc = f"""# Postmortem: claims-triage model routes far worse in production than in validation

| Key | Value |
|---|---|
| Status | Investigating |
| Team | Claims Automation |
| Incident commander | R. Alvarez |
| Root cause | TBD — leading theory: wrong checkpoint deployed to `/models/triage/prod/` |

## Summary
The new claims-triage model (5 routes: {", ".join(CLASSES)}) reported val_acc {best[0]:.4f} at training time.
After one week in the nightly scoring job, the claims QA team audited all {len(Xa)} claims scored on 2024-10-07:
only **{acc1*100:.1f} %** were routed correctly. While investigating we re-ran the scoring job on the same input file
and got **different routes** for {diff*100:.1f} % of the claims (accuracy on the audited set {acc2*100:.1f} % for the rerun).

## Impact
* Misrouted claims in week 41: adjusters had to re-triage manually; SLA breaches on the `escalate` queue.
* Auto-routing switched off on 2024-10-08, manual triage since.

## Timeline
| Time (UTC) | Event |
|---|---|
| 2024-10-02 19:15 | Training run; best checkpoint (epoch {best[2]}) copied to `/models/triage/prod/best.pt`. |
| 2024-10-03 02:00 | First nightly scoring with the new model. |
| 2024-10-07 02:00 | Nightly scoring of {len(Xa)} new claims (`claims_2024-10-07.csv`). |
| 2024-10-07 11:00 | QA audit of those {len(Xa)} claims: {acc1*100:.1f} % correct. |
| 2024-10-07 14:02 | Rerun of the 10-07 scoring on the identical input: {diff*100:.1f} % of routes differ. |
| 2024-10-08 09:00 | Auto-routing disabled. This page opened. |

## Graphs / numbers
| Measurement | Value |
|---|---|
| val_acc logged by the trainer (best epoch {best[2]}) | {best[0]:.4f} |
| Audit set, routes from scoring job run 1 | {acc1:.4f} |
| Audit set, routes from scoring job rerun | {acc2:.4f} |
| Routes that differ between run 1 and rerun | {diff:.4f} |
| Audit set scored in a notebook by M. Chen (details not written down) | {audit_eval:.4f} |

## What we tried
* Compared the sha256 printed by `score.py` with the one logged at training time — they look the same, but the
  copy to `prod/` is done by a manual `aws s3 cp`, and we are not 100 % sure the file was not overwritten later.
* Mei's notebook got {audit_eval*100:.1f} % on the audit set — which suggests the model is fine and the prod file is a
  different one, or the features the job reads differ from the ones she used.

## Action items
- [ ] Re-copy `best.pt` to prod and re-score (ETA 10-09) — @r.alvarez
- [ ] Make the checkpoint copy part of the pipeline with checksum verification — @mlops
- [ ] Compare features written by the scoring job with the notebook's — @m.chen

## Attachments
`attachments/score.py`, `attachments/scoring_job_2024-10-07.log`, `attachments/train_2024-10-02.log` (tail)
"""
    write(RUN, "postmortem-claims-triage-prod-accuracy.md", doc)
    return {"truth": "eval_mode_forgotten",
            "symptom": f"Our claims-triage model validated at {best[0]*100:.0f}% but production routing is only ~{acc1*100:.0f}% correct, and scoring the same file twice gives different answers; we think the wrong checkpoint was deployed.",
            "how": f"score.py never calls model.eval(): BatchNorm uses the statistics of each 16-claim chunk and dropout stays active, so the audit accuracy is {acc1:.3f}/{acc2:.3f} and {diff*100:.1f} % of routes change between identical runs, while the same checkpoint in eval mode scores {audit_eval:.3f} (checkpoint sha256 matches)."}
