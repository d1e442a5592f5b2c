# triage/score.py — nightly batch scoring of new claims (runs in the claims-scoring CronJob)
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
