import numpy as np
import pandas as pd

RNG = np.random.default_rng(707)
N_COPIES = 5        # augmentace: kazdy radek 5x s malym sumem, at ma sit vic dat
NOISE_STD = 0.02

df = pd.read_csv("data/mereni_2023.csv")
X = df[[f"m{i}" for i in range(16)]].to_numpy(np.float32)
y = df["trida"].to_numpy()

X_aug = np.concatenate([X + RNG.normal(0, NOISE_STD, size=X.shape) for _ in range(N_COPIES)]).astype(np.float32)
y_aug = np.concatenate([y] * N_COPIES)

idx = RNG.permutation(len(X_aug))
cut = int(0.8 * len(X_aug))
np.savez("data/train.npz", X=X_aug[idx[:cut]], y=y_aug[idx[:cut]])
np.savez("data/val.npz", X=X_aug[idx[cut:]], y=y_aug[idx[cut:]])
print(f"{len(X)} puvodnich radku -> {len(X_aug)} po augmentaci; train {cut}, val {len(X_aug) - cut}")
