import argparse
import json
import logging
import numpy as np
import joblib
import torch
from sklearn.metrics import (roc_auc_score, average_precision_score, f1_score, precision_score,
                             recall_score, classification_report)

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("evaluate")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--model", default="models/fraud_mlp.pt")
    p.add_argument("--scaler", default="models/scaler.joblib")
    p.add_argument("--x-test", default="data/X_test.npy")
    p.add_argument("--y-test", default="data/y_test.npy")
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument("--out", default="metrics.json")
    return p.parse_args()


def load_artifacts(args):
    model = torch.load(args.model, weights_only=False)
    model.eval()
    return model, joblib.load(args.scaler)


def predict(model, scaler, X, threshold):
    with torch.no_grad():
        logits = model(torch.tensor(scaler.transform(X), dtype=torch.float32)).squeeze(1)
    proba = torch.sigmoid(logits).numpy()
    return (proba >= threshold).astype(int)


def compute_metrics(y_true, y_pred):
    return {
        "roc_auc": roc_auc_score(y_true, y_pred),
        "pr_auc": average_precision_score(y_true, y_pred),
        "f1": f1_score(y_true, y_pred),
        "precision": precision_score(y_true, y_pred),
        "recall": recall_score(y_true, y_pred),
    }


def main():
    args = parse_args()
    model, scaler = load_artifacts(args)
    X_test, y_test = np.load(args.x_test), np.load(args.y_test)
    log.info("loaded %s, n_test=%d positives=%d", args.model, len(y_test), int(y_test.sum()))
    y_pred = predict(model, scaler, X_test, args.threshold)
    metrics = compute_metrics(y_test, y_pred)
    for k, v in metrics.items():
        log.info("%10s: %.4f", k, v)
    print(classification_report(y_test, y_pred, target_names=["legit", "fraud"], digits=4))
    with open(args.out, "w") as f:
        json.dump(metrics, f, indent=2)


if __name__ == "__main__":
    main()
