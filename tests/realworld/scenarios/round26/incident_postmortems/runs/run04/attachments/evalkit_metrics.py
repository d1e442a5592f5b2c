# evalkit/metrics.py  (evalkit 0.3.1, shared eval package, added as a dependency in c07b2f5)
import numpy as np


def f1(labels, preds, num_classes):
    """F1 score for single-label classification."""
    labels, preds = np.asarray(labels), np.asarray(preds)
    scores = []
    for c in range(num_classes):
        tp = np.sum((preds == c) & (labels == c))
        fp = np.sum((preds == c) & (labels != c))
        fn = np.sum((preds != c) & (labels == c))
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        scores.append(2 * p * r / (p + r) if p + r else 0.0)
    return float(np.mean(scores))
