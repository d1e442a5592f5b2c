"""Flower's (flwr) server lines for the global model's evaluation, where the values come by position.

`INFO :      fit progress: (3, 0.4121, {'accuracy': 0.87}, 41.2)` (round, centralized loss, metrics, seconds since the
start) and `initial parameters (loss, other metrics): 1.398, {'accuracy': 0.23}` (round 0): the server's evaluation
of the averaged model on its own held-out data, round by round. The byte scanner reads `key: value`, so it takes the
metrics dict's accuracy for a training accuracy and never sees the loss, which has no name; these lines are read
here (the regex only on lines holding the trigger, as darknet.py does), and the scanner's own reading of them is
dropped by the caller (assemble.py).

In:  the bytes of a block of a log, its newline offsets and the lines before it.
Out: `scan_flower(data, nl, line0)` -> rows (round, loss, {metric: value}, 1-based line);
     `flower_series(rows, rel)` -> held-out Series (`val_loss`, `val_accuracy`, ...) stepped by the round.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series
from mltdbg.analyzers.names import as_held_out, normalize

_TRIGGERS = (b"fit progress: (", b"initial parameters (loss, other metrics): ")
# (numpy 2 prints a metric as its repr: np.float64(0.87))
_NUM = (rb"(?:np\.(?:float|int)\d*\()?([-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))\)?")
_PROGRESS = re.compile(rb"fit progress: \((\d+),[ \t]*" + _NUM + rb",[ \t]*\{([^}\n]*)\}")
_INITIAL = re.compile(rb"initial parameters \(loss, other metrics\): " + _NUM + rb",[ \t]*\{([^}\n]*)\}")
_PAIR = re.compile(rb"['\"]([\w./-]+)['\"]:[ \t]*" + _NUM)
# A run needs this many such lines before they count (one quoted in prose is no history).
MIN_ROWS = 2


def scan_flower(data: bytes, nl: np.ndarray, line0: int) -> list[tuple[int, float, dict[str, float], int]]:
    """The global model's evaluation lines of one block: (round, loss, metrics, line)."""
    found: list[tuple[int, float, dict[str, float], int]] = []
    for trig in _TRIGGERS:
        at = data.find(trig)
        while at >= 0:
            ls = data.rfind(b"\n", 0, at) + 1
            le = data.find(b"\n", at)
            le = len(data) if le < 0 else le
            m = _PROGRESS.match(data, at, le) if trig is _TRIGGERS[0] else _INITIAL.match(data, at, le)
            if m is not None:
                rnd, loss, pairs = (int(m.group(1)), m.group(2), m.group(3)) if trig is _TRIGGERS[0] \
                    else (0, m.group(1), m.group(2))
                line = int(np.searchsorted(nl, ls)) + line0 + 1
                found.append((rnd, _num(loss), {k.decode(): _num(v) for k, v in _PAIR.findall(pairs)}, line))
            at = data.find(trig, le)
    found.sort(key=lambda r: r[3])
    return found


def _num(b: bytes) -> float:
    try:
        return float(b)
    except ValueError:
        return float("nan")


def flower_series(rows: list[tuple[int, float, dict[str, float], int]], rel: str) -> list[Series]:
    if len(rows) < MIN_ROWS:
        return []
    steps = np.array([r[0] for r in rows], dtype=np.int64)
    locs = np.array([r[3] for r in rows], dtype=np.int64)
    out = [Series(name="val_loss", raw_name="loss (centralized)", steps=steps,
                  values=np.array([r[1] for r in rows], dtype=np.float64), source=rel, locs=locs, loc_kind=LOC_LINE)]
    for key in dict.fromkeys(k for r in rows for k in r[2]):
        have = [i for i, r in enumerate(rows) if key in r[2]]
        name = as_held_out(normalize(key))
        if len(have) < MIN_ROWS or name == "val_loss":
            continue        # (a 'loss' among the metrics is the loss the tuple already gives)
        out.append(Series(name=name, raw_name=f"{key} (centralized)", steps=steps[have],
                          values=np.array([rows[i][2][key] for i in have], dtype=np.float64), source=rel,
                          locs=locs[have], loc_kind=LOC_LINE))
    return out


def flower_lines(rows: list[tuple[int, float, dict[str, float], int]]) -> set[int]:
    """The lines flower_series reads (the scanner's reading of them is dropped)."""
    return {r[3] for r in rows} if len(rows) >= MIN_ROWS else set()
