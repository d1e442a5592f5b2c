"""`code:missing_unhandled`: a table read from a file (pandas' read_csv and kin, numpy's genfromtxt) by code that
trains on it and never drops, fills or tests its missing cells.

An empty cell of a CSV becomes NaN, and pandas' own statistics skip NaN (`(df - df.mean()) / df.std()` keeps it),
so one incomplete row reaches the model untouched; the batch that holds it turns the loss NaN at once, usually in
the first epoch. A hint only (many tables are complete): it counts toward nan_in_data where the run also went
non-finite, which that playbook requires.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_missing_unhandled(f)` -> Findings.
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.index import FIT_CALLS, WEAK, Finding, PyFile, const, fname, kwarg, last

# Readers whose result keeps a file's empty cells as NaN (np.loadtxt refuses them, so it is not here)
_READERS = ("read_csv", "read_table", "read_excel", "read_parquet", "read_feather", "read_json", "genfromtxt")
# Any of these in the file handles (or at least looks at) the missing cells
_HANDLERS = frozenset({"dropna", "fillna", "isna", "isnull", "notna", "notnull", "interpolate", "nan_to_num",
                       "ffill", "bfill", "SimpleImputer", "KNNImputer", "IterativeImputer", "isnan", "isfinite",
                       "nanmean", "nanstd", "nan_to_num_", "missing_values", "hasnans"})


def _fits_a_model(f: PyFile) -> bool:
    """A training loop (backward) or a fit on inputs and targets (`model.fit(X, y)`, `fit(x=..., y=...)`); a scaler's
    `fit(df)` trains nothing."""
    return f.has_training() or any(len(c.args) >= 2 or kwarg(c, "y") is not None for c in f.calls_named(*(FIT_CALLS - {"backward"})))


def check_missing_unhandled(f: PyFile) -> list[Finding]:
    reads = [c for c in f.calls_named(*_READERS)
             if not any(const(kwarg(c, k)) is False for k in ("na_filter", "keep_default_na"))]   # no NaN made
    if not reads or not _fits_a_model(f):
        return []
    for n in f.of_type(ast.Call, ast.Attribute, ast.Name):
        name = last(n) if isinstance(n, ast.Call) else n.attr if isinstance(n, ast.Attribute) else n.id  # type: ignore[attr-defined]
        if name in _HANDLERS:
            return []
    c = reads[0]
    return [Finding("code:missing_unhandled", WEAK, c.lineno,
                    f"`{fname(c)}(...)` reads a table whose empty cells become NaN, and nothing in the code drops, fills "
                    f"or tests them (no dropna, fillna, isna or imputer): one incomplete row makes its batch's loss NaN")]
