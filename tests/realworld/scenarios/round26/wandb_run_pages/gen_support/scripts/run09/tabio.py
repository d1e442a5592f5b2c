import numpy as np


def load_table(path):
    d = np.load(path)
    y = d["churned_90d"].astype(np.int64)
    cols = {k: d[k].astype(np.float64) for k in d.files if k != "churned_90d"}
    return cols, y
