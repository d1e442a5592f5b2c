"""Min-max downsampling of a metric series for plots and session records.

A terminal plot is ~100-200 columns wide, so a 10M-point series is reduced to
what can be drawn without hiding what matters: each bucket keeps its lowest
and highest finite point, the global extremes are always kept (a spike never
disappears), and NaN/inf positions are kept so a plot can mark them.
"""
from __future__ import annotations

import numpy as np


def minmax_downsample(steps: np.ndarray, values: np.ndarray, n_buckets: int) -> tuple[np.ndarray, np.ndarray]:
    """Reduce (steps, values), given in step order, to at most ~2 points per bucket.

    In: parallel arrays of equal length (steps ascending, as every `Series`
    holds them), and the number of equal-count buckets (about the plot width).
    Out: (steps, values) copies in the original order, holding per bucket the
    min and max finite point, the global finite min and max, and for each
    kind of non-finite value (NaN, +inf, -inf) the first and last such point
    of every bucket that has one; an isolated NaN is thus always kept, and a
    long run of NaNs stays marked in every column it covers without keeping
    millions of points. Series of at most 2 * n_buckets points come back whole.
    Vectorised: no Python loop per point or per bucket.
    """
    steps = np.asarray(steps)
    values = np.asarray(values, dtype=np.float64)
    n = values.shape[0]
    if steps.shape[0] != n:
        raise ValueError(f"steps ({steps.shape[0]}) and values ({n}) differ in length")
    n_buckets = max(int(n_buckets), 1)
    if n <= 2 * n_buckets:
        return steps.copy(), values.copy()

    k = -(-n // n_buckets)                  # points per bucket (ceil); the last one may be short
    full = n // k                           # whole buckets
    cut = full * k
    # Work through blocks of whole buckets (~1M points) so the temporaries stay small and
    # are reused: allocating full-size copies of a 10M array costs more than the arithmetic.
    rows = max(1, BLOCK_POINTS // k)
    buf = np.empty(min(rows, full) * k)
    parts: list[np.ndarray] = []
    for r0 in range(0, full, rows):
        r1 = min(r0 + rows, full)
        parts += _bucket_points(values[r0 * k:r1 * k], k, r0 * k, buf)
    if cut < n:
        parts += _bucket_points(values[cut:], n - cut, cut, np.empty(n - cut))
    # The global finite extremes are each the min/max of their own bucket: already kept.
    idx = np.unique(np.concatenate(parts))
    return steps[idx], values[idx]


BLOCK_POINTS = 1 << 20


def _bucket_points(seg: np.ndarray, k: int, offset: int, buf: np.ndarray) -> list[np.ndarray]:
    """Indices (global: + offset) to keep from seg, made of whole buckets of k points."""
    rows = seg.shape[0] // k
    base = offset + np.arange(rows, dtype=np.int64) * k
    finite = np.isfinite(seg)
    if finite.all():
        m = seg.reshape(rows, k)
        return [base + m.argmin(axis=1), base + m.argmax(axis=1)]
    nonfinite = ~finite
    b = buf[:seg.shape[0]]
    m = b.reshape(rows, k)
    r = np.arange(rows)
    out = []
    # Non-finite points must not win: +inf for the min search, then -inf for the max search.
    # A bucket with no finite point at all yields a non-finite "extreme": dropped.
    for fill, arg in ((np.inf, np.argmin), (-np.inf, np.argmax)):
        np.copyto(b, seg)
        np.copyto(b, fill, where=nonfinite)
        i = arg(m, axis=1)
        out.append((base + i)[finite.reshape(rows, k)[r, i]])
    nan = np.isnan(seg)
    masks = [nan]
    if not nan[nonfinite].all():
        masks += [seg == np.inf, seg == -np.inf]
    for mask in masks:
        if not mask.any():
            continue
        mm = mask.reshape(rows, k)
        has = mm.any(axis=1)
        first = mm.argmax(axis=1)
        # Last hit: argmax over a contiguous reversed copy (a strided reversed view is ~10x slower).
        last = (k - 1) - np.ascontiguousarray(mask[::-1]).reshape(rows, k).argmax(axis=1)[::-1]
        out += [(base + first)[has], (base + last)[has]]
    return out
