"""Darknet's training line, where each value comes before its name.

` 1234: 5.612345, 5.701234 avg loss, 0.001000 rate, 2.345678 seconds, 78976 images, 12.3 hours left`
(pjreddie's and AlexeyAB's darknet, YOLOv2-v4): iteration, this batch's loss, the running average
loss, the learning rate. The byte scanner reads `key value` / `key: value` / `key=value`, where the
name comes first, so these lines are read here, a block at a time: the regex is tried only on the
lines that hold " avg" (found with numpy, _trigger_at), one per iteration in a darknet log; everything else in
it is left to the scanner. A Python step per such line: 1.7 s for a 500,000-iteration log (3.5 us a line; vectorizing
it as the scanner does is left for when such logs are met).

In:  the bytes of a block of a log, its newline offsets and the lines before it.
Out: `scan_darknet(data, nl, line0)` -> rows (iteration, loss, avg loss, rate, 1-based line);
     `darknet_series(rows, rel)` -> Series `loss`, `avg_loss`, `lr` stepped by the iteration.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series

_TRIGGER = b" avg"
_NUM = rb"([-+]?(?:nan|-?inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?))"
_LINE = re.compile(rb"(?i)[ \t]*(\d+):[ \t]*" + _NUM + rb",[ \t]*" + _NUM + rb"[ \t]+avg(?:[ \t]+loss)?,[ \t]*"
                   + _NUM + rb"[ \t]+rate\b")
# A run needs this many such lines before they count as darknet's (one matching line in prose is not a curve).
MIN_ROWS = 2


def scan_darknet(data: bytes, nl: np.ndarray, line0: int) -> list[tuple[int, float, float, float, int]]:
    """The darknet training lines of one block: (iteration, loss, avg loss, rate, line)."""
    starts, found = [], []
    match, find, rfind = _LINE.match, data.find, data.rfind
    le = -1
    for at in _trigger_at(data):    # only the lines that hold the trigger are tried (no regex over the whole block)
        if at < le:                 # a second trigger on a line tried already
            continue
        ls = rfind(b"\n", 0, at) + 1
        le = find(b"\n", at)
        le = len(data) if le < 0 else le
        m = match(data, ls, le)
        if m:
            starts.append(ls)
            found.append(m.groups())
    if not found:
        return []
    lines = (np.searchsorted(nl, np.array(starts, dtype=np.int64)) + line0 + 1).tolist()
    return [(int(g[0]), _num(g[1]), _num(g[2]), _num(g[3]), ln) for g, ln in zip(found, lines)]


def _trigger_at(data: bytes) -> list[int]:
    """Offsets of every _TRIGGER (" avg", case as written) in the block, found with numpy on its rarest
    byte 'v': bytes.find of a pattern that starts with a space crawls (about 1 GB/s on logs, where
    spaces are everywhere; this is about 5x faster and sits on every block of a big log)."""
    # a memchr for 'v' first: a block with no val/avg/eval word holds none (the search costs 0.1 ms
    # a 4 MB block where the compare below costs 0.7 ms, and 2 ms on a loaded reader thread)
    if len(data) < 4 or _TRIGGER[2:3] not in data:
        return []
    b = np.frombuffer(data, np.uint8)
    p = np.flatnonzero(b[2:-1] == _TRIGGER[2]) + 2
    if p.size:
        p = p[(b[p - 2] == _TRIGGER[0]) & (b[p - 1] == _TRIGGER[1]) & (b[p + 1] == _TRIGGER[3])]
    return (p - 2).tolist()


def _num(b: bytes) -> float:
    """float() of a darknet number; its NaN prints as `nan` or `-nan`."""
    try:
        return float(b)
    except ValueError:      # "-nan" (float() takes "nan", "inf", "-inf")
        return float("nan")


def darknet_series(rows: list[tuple[int, float, float, float, int]], rel: str) -> list[Series]:
    if len(rows) < MIN_ROWS:
        return []
    steps = np.array([r[0] for r in rows], dtype=np.int64)
    locs = np.array([r[4] for r in rows], dtype=np.int64)
    return [Series(name=name, raw_name=raw, steps=steps, values=np.array([r[j] for r in rows], dtype=np.float64),
                   source=rel, locs=locs, loc_kind=LOC_LINE)
            for j, name, raw in ((1, "loss", "loss"), (2, "avg_loss", "avg loss"), (3, "lr", "rate"))]
