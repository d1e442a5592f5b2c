"""minmax_downsample against a per-bucket reference written with plain loops."""
import numpy as np
import pytest

from mltdbg.analyzers.downsample import minmax_downsample


def reference(steps, values, n_buckets):
    """Slow, obvious version of the documented rule."""
    n = len(values)
    if n <= 2 * n_buckets:
        return set(range(n))
    k = -(-n // n_buckets)
    keep = set()
    for b in range(0, n, k):
        idx = range(b, min(b + k, n))
        fin = [i for i in idx if np.isfinite(values[i])]
        if fin:
            keep.add(min(fin, key=lambda i: (values[i], i)))
            keep.add(max(fin, key=lambda i: (values[i], -i)))
        for kind in (np.isnan, lambda x: x == np.inf, lambda x: x == -np.inf):
            hits = [i for i in idx if kind(values[i])]
            if hits:
                keep |= {hits[0], hits[-1]}
    return keep


@pytest.mark.parametrize("n,buckets", [(1000, 10), (1003, 10), (999, 7), (50, 30), (10_007, 64)])
def test_matches_reference_with_nan_and_inf(n, buckets):
    rng = np.random.default_rng(n)
    v = rng.standard_normal(n).cumsum()
    v[rng.integers(0, n, 6)] = np.nan
    v[rng.integers(0, n, 3)] = np.inf
    v[rng.integers(0, n, 3)] = -np.inf
    v[n // 2: n // 2 + n // 5] = np.nan          # a long NaN run, as after a divergence
    steps = np.arange(n, dtype=np.int64) * 10
    s, out = minmax_downsample(steps, v, buckets)
    keep = sorted(reference(steps, v, buckets))
    np.testing.assert_array_equal(s, steps[keep])
    np.testing.assert_array_equal(out, v[keep])


def test_keeps_global_extremes_and_every_nonfinite_kind():
    n = 100_000
    v = np.sin(np.arange(n) / 500.0)
    v[12_345] = 50.0           # one spike among 100k points
    v[77_777] = -50.0
    v[40_000] = np.nan
    v[40_001] = np.inf         # same bucket as the NaN: both kinds survive
    steps = np.arange(n)
    s, out = minmax_downsample(steps, v, 100)
    assert len(s) <= 2 * 100 + 4
    assert 12_345 in s and 77_777 in s and 40_000 in s and 40_001 in s
    assert np.all(np.diff(s) > 0)                 # step order


def test_all_nan_bucket_and_short_inputs():
    v = np.full(1000, np.nan)
    v[:10] = 1.0
    s, out = minmax_downsample(np.arange(1000), v, 10)
    assert np.isnan(out).sum() >= 9 and len(s) < 40
    s, out = minmax_downsample(np.arange(5), np.arange(5.0), 10)
    np.testing.assert_array_equal(out, np.arange(5.0))
    s, out = minmax_downsample(np.array([], dtype=np.int64), np.array([]), 10)
    assert len(s) == 0
    with pytest.raises(ValueError):
        minmax_downsample(np.arange(3), np.arange(4.0), 1)
