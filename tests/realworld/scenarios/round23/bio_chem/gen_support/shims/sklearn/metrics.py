import numpy as np
from common import auroc as _auroc, auprc as _auprc, mcc as _mcc


def roc_auc_score(y_true, y_score):
    return _auroc(np.ravel(y_true), np.ravel(y_score))


def average_precision_score(y_true, y_score):
    return _auprc(np.ravel(y_true), np.ravel(y_score))


def accuracy_score(y_true, y_pred):
    return float(np.mean(np.ravel(y_true) == np.ravel(y_pred)))


def matthews_corrcoef(y_true, y_pred):
    return _mcc(np.ravel(y_true), np.ravel(y_pred))


def mean_squared_error(y_true, y_pred):
    return float(np.mean((np.ravel(y_true) - np.ravel(y_pred)) ** 2))


def mean_absolute_error(y_true, y_pred):
    return float(np.mean(np.abs(np.ravel(y_true) - np.ravel(y_pred))))


def r2_score(y_true, y_pred):
    y = np.ravel(y_true)
    return float(1 - np.sum((y - np.ravel(y_pred)) ** 2) / np.sum((y - y.mean()) ** 2))


def f1_score(y_true, y_pred):
    y, p = np.ravel(y_true), np.ravel(y_pred)
    tp = np.sum((y == 1) & (p == 1))
    fp = np.sum((y == 0) & (p == 1))
    fn = np.sum((y == 1) & (p == 0))
    return float(2 * tp / max(1, 2 * tp + fp + fn))
