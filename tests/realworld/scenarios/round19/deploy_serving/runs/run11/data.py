import numpy as np
import pandas as pd


def load_frame(cfg):
    df = pd.read_csv(cfg["data"]["path"])
    features = [c for c in df.columns if c.startswith("v")]
    return df, features


def make_split(n, val_frac, seed):
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_val = int(n * val_frac)
    return perm[n_val:], perm[:n_val]
