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

    k = -(-n // n_buckets)                  # points per bucket (ceil)
    full = n // k                           # whole buckets; a short last bucket is handled apart
    cut = full * k                          # so the big arrays are reshaped as views, never padded
    finite = np.isfinite(values)
    all_finite = bool(finite.all())
    nonfinite = None if all_finite else ~finite

    # Non-finite points must not win the min/max search: +inf for argmin, then -inf for argmax.
    buf = values if all_finite else np.where(finite, values, np.inf)
    lo_idx = _bucket_arg(buf, k, full, cut, np.argmin)
    if not all_finite:
        buf = buf.copy() if buf is values else buf
        np.copyto(buf, -np.inf, where=nonfinite)
    hi_idx = _bucket_arg(buf, k, full, cut, np.argmax)
    parts = [lo_idx, hi_idx]
    # The global finite extremes are each the min/max of their own bucket: already kept.

    if not all_finite:
        # A bucket of only non-finite points returned one of them as its "min"/"max": drop it.
        parts = [lo_idx[finite[lo_idx]], hi_idx[finite[hi_idx]]]
        nan = np.isnan(values)
        masks = [nan]
        if not nan[nonfinite].all():
            masks += [values == np.inf, values == -np.inf]
        for mask in masks:
            parts += _bucket_first_last(mask, k, full, cut)

    idx = np.unique(np.concatenate(parts))
    return steps[idx], values[idx]


def _bucket_arg(a: np.ndarray, k: int, full: int, cut: int, arg) -> np.ndarray:
    """Global index of arg (np.argmin/np.argmax) within each bucket of k points."""
    out = np.arange(full, dtype=np.int64) * k + arg(a[:cut].reshape(full, k), axis=1)
    if cut < a.shape[0]:
        out = np.append(out, cut + int(arg(a[cut:])))
    return out


def _bucket_first_last(mask: np.ndarray, k: int, full: int, cut: int) -> list[np.ndarray]:
    """Global indices of the first and last True of every bucket that has one."""
    if not mask.any():
        return []
    m = mask[:cut].reshape(full, k)
    base = np.arange(full, dtype=np.int64) * k
    has = m.any(axis=1)
    first = base + m.argmax(axis=1)
    # Last hit: argmax over a contiguous reversed copy (a strided reversed view is ~10x slower).
    back = np.ascontiguousarray(mask[cut - 1::-1]).reshape(full, k).argmax(axis=1)[::-1]
    last = base + (k - 1) - back
    out = [first[has], last[has]]
    tail = np.flatnonzero(mask[cut:])
    if tail.size:
        out.append(cut + tail[[0, -1]])
    return out
