import math
import numpy as np


def train_test_split(*arrays, test_size=0.25, random_state=None, shuffle=True, stratify=None):
    """sklearn's non-stratified path: ShuffleSplit with RandomState(random_state).permutation."""
    if stratify is not None:
        raise NotImplementedError("stratify not supported in this stand-in")
    n = len(arrays[0])
    n_test = math.ceil(test_size * n) if isinstance(test_size, float) else int(test_size)
    n_train = n - n_test
    perm = np.random.RandomState(random_state).permutation(n)
    te, tr = perm[:n_test], perm[n_test:n_test + n_train]
    out = []
    for a in arrays:
        if isinstance(a, list):
            out += [[a[i] for i in tr], [a[i] for i in te]]
        else:
            out += [a[tr], a[te]]
    return out
