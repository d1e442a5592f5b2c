"""Build the processed train/test arrays for the Sensors-32 experiments (Sec. 4.2)."""
import argparse
import os

import numpy as np


def jitter_copies(x, y, n_copies, sigma, rng):
    xs = [x + sigma * rng.standard_normal(x.shape).astype(np.float32) for _ in range(n_copies)]
    return np.concatenate(xs), np.tile(y, n_copies)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--raw', default='data/raw/sensors32.npz')
    p.add_argument('--out', default='data/processed')
    p.add_argument('--copies', type=int, default=4)
    p.add_argument('--sigma', type=float, default=0.05)
    p.add_argument('--test_frac', type=float, default=0.2)
    p.add_argument('--seed', type=int, default=0)
    args = p.parse_args()

    rng = np.random.default_rng(args.seed)
    raw = np.load(args.raw)
    x, y = raw['x'], raw['y']
    print(f'raw: {len(x)} samples, {x.shape[1]} features, {len(np.unique(y))} classes')

    x, y = jitter_copies(x, y, args.copies, args.sigma, rng)
    print(f'after augmentation: {len(x)} samples')

    perm = rng.permutation(len(x))
    n_test = int(args.test_frac * len(x))
    test_idx, train_idx = perm[:n_test], perm[n_test:]

    os.makedirs(args.out, exist_ok=True)
    np.savez(os.path.join(args.out, 'train.npz'), x=x[train_idx], y=y[train_idx])
    np.savez(os.path.join(args.out, 'test.npz'), x=x[test_idx], y=y[test_idx])
    print(f'train: {len(train_idx)}  test: {len(test_idx)}  -> {args.out}')


if __name__ == '__main__':
    main()
