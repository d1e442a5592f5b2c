"""Numpy data files in a run folder (`.npy`, `.npz`): float arrays scanned for NaN/inf rows.

In:  a file whose name ends .npy/.npz and whose bytes start as numpy (b"\\x93NUMPY") or a zip.
Out: one `ArrayScan` per float array that holds a non-finite value (run.arrays): how many rows
     (entries of the first axis) hold one, the first such row and what it holds. The analyzer
     `data_tables` turns these into `data:nonfinite`; `row_nonfinite` re-reads one row for the
     evidence verifier.

Safe and bounded: never unpickles (allow_pickle=False: an object array is reported, not loaded);
a .npy is memory-mapped and scanned CHUNK_BYTES at a time; an .npz member is read only when it
is at most MAX_MEMBER_BYTES uncompressed; at most MAX_SCAN_BYTES of one file are scanned.
"""
from __future__ import annotations

import re
import zipfile
from pathlib import Path

import numpy as np

from mltdbg.analyzers.model import ArrayScan, Run

CHUNK_BYTES = 64 * 1024 * 1024
MAX_MEMBER_BYTES = 512 * 1024 * 1024
MAX_SCAN_BYTES = 4 * 1024 * 1024 * 1024
ARRAY_SUFFIXES = (".npy", ".npz")
# How evidence names a row of an array (Evidence.metric): "row 7" (.npy), "x: row 7" (.npz member x).
_ROW_LABEL = re.compile(r"^(?:(.+): )?row (\d+)$")


def sniff(path: Path, head: bytes) -> bool:
    name = path.name.lower()
    return (name.endswith(ARRAY_SUFFIXES[0]) and head.startswith(b"\x93NUMPY")) or \
        (name.endswith(ARRAY_SUFFIXES[1]) and head.startswith(b"PK"))


def read(path: Path, rel: str, run: Run) -> None:
    try:
        if path.name.lower().endswith(".npy"):
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            _scan(run, rel, "", arr)
            return
        with zipfile.ZipFile(path) as z:
            sizes = {i.filename: i.file_size for i in z.infolist()}
        with np.load(path, allow_pickle=False) as npz:
            for key in npz.files:
                if sizes.get(key + ".npy", 0) > MAX_MEMBER_BYTES:
                    run.warnings.append(f"{rel}: array {key} larger than {MAX_MEMBER_BYTES // 2**20} MB "
                                        f"uncompressed, not scanned for NaN/inf")
                    continue
                _scan(run, rel, key, npz[key])
    except ValueError as e:       # object arrays (pickles), a broken header
        run.warnings.append(f"{rel}: not read as numpy data ({e})")
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        run.warnings.append(f"{rel}: cannot read as numpy data ({type(e).__name__}: {e})")


def _scan(run: Run, rel: str, key: str, arr: np.ndarray) -> None:
    if arr.dtype.kind not in "fc" or arr.size == 0:
        return
    a = arr.reshape(arr.shape[0], -1) if arr.ndim >= 1 else arr.reshape(1, 1)
    rows_total = a.shape[0]
    per = max(1, CHUNK_BYTES // max(1, a.shape[1] * a.itemsize))
    limit = max(1, MAX_SCAN_BYTES // max(1, a.shape[1] * a.itemsize))
    bad_rows, first, what = 0, None, ""
    scanned = min(rows_total, limit)
    for r0 in range(0, scanned, per):
        block = np.asarray(a[r0:min(r0 + per, scanned)])
        bad = ~np.isfinite(block).all(axis=1)
        n = int(bad.sum())
        if n and first is None:
            first = r0 + int(np.flatnonzero(bad)[0])
            row = block[first - r0]
            v = row[~np.isfinite(row)][0]
            what = "NaN" if np.isnan(v) else ("inf" if v.real > 0 else "-inf")
        bad_rows += n
    if scanned < rows_total:
        run.warnings.append(f"{rel}{':' + key if key else ''}: scanned the first {scanned:,} of {rows_total:,} rows "
                            f"for NaN/inf")
    if first is not None:
        run.arrays.append(ArrayScan(source=rel, key=key, shape=tuple(int(x) for x in arr.shape), dtype=str(arr.dtype),
                                    bad_rows=bad_rows, rows=scanned, first_row=first, first_value=what))


def row_label(key: str, row: int) -> str:
    """How evidence names row `row` of an array (`key` in an .npz, "" for a .npy)."""
    return f"{key}: row {row}" if key else f"row {row}"


def cited_row_nonfinite(path: Path, label: str) -> bool:
    """Whether the row a citation names (row_label) holds a NaN/inf, read again from disk."""
    m = _ROW_LABEL.match(label)
    if m is None:
        return False
    key, row = m.group(1) or "", int(m.group(2))
    try:
        if not key:
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            r = np.asarray(arr[row])
        else:
            with np.load(path, allow_pickle=False) as npz:
                r = np.asarray(npz[key][row])
    except (ValueError, OSError, KeyError, IndexError, zipfile.BadZipFile, EOFError):
        return False
    return r.dtype.kind in "fc" and not bool(np.isfinite(r).all())
