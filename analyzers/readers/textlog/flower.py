"""Flower's (flwr) server lines for the global model's evaluation, where the values come by position.

`INFO :      fit progress: (3, 0.4121, {'accuracy': 0.87}, 41.2)` (round, centralized loss, metrics, seconds since the
start) and `initial parameters (loss, other metrics): 1.398, {'accuracy': 0.23}` (round 0): the server's evaluation
of the averaged model on its own held-out data, round by round. The byte scanner reads `key: value`, so it takes the
metrics dict's accuracy for a training accuracy and never sees the loss, which has no name; these lines are read
here (the regex only on lines holding the trigger, as darknet.py does), and the scanner's own reading of them is
dropped by the caller (assemble.py).

At the end of a run Flower prints its History, a section per kind (each line behind the logger's prefix, or bare in
older versions; the metrics as a dict of (round, value) lists, pretty-printed over several lines or on one):

    History (loss, distributed):              the clients' evaluation of the global model, averaged   -> val_loss
    \tround 1: 0.83
    History (loss, centralized):              the server's evaluation (what `fit progress` gives)      -> val_loss
    History (metrics, distributed, fit):      the clients' TRAINING metrics, averaged                  -> accuracy, ...
    {'accuracy': [(1, 0.65), (2, 0.76)]}
    History (metrics, distributed, evaluate): the clients' evaluation metrics                          -> val_accuracy
    History (metrics, centralized):           the server's evaluation metrics                          -> val_accuracy

A centralized and a distributed series of one name both held-out: the centralized one (the global model on the
server's held-out set, the one `fit progress` prints) keeps the name and the distributed one takes `_distributed`
(`val_loss_distributed`, `val_accuracy_distributed`); a fit metric whose name an evaluation already has takes `_fit`.
A centralized section whose rounds and values the `fit progress` lines already gave is left to those (they have each
round's own line). The sections are read line by line from their header (found with bytes.find) to their last
entry, and the scanner's reading of those lines is dropped by the caller as for the lines above.

In:  the bytes of a block of a log, its newline offsets and the lines before it.
Out: `scan_flower(data, nl, line0)` -> rows (round, loss, {metric: value}, 1-based line);
     `scan_history(data, nl, line0, open_)` -> (History points (section, key, round, value, line), the section
     still open at the block's end);
     `flower_series(rows, rel, history)` -> held-out Series (`val_loss`, `val_accuracy`, ...) and the History's
     series, stepped by the round; `flower_lines(rows, history)` -> the lines they read.
"""
from __future__ import annotations

import math
import re
from typing import NamedTuple

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series
from mltdbg.analyzers.names import as_held_out, normalize

_TRIGGERS = (b"fit progress: (", b"initial parameters (loss, other metrics): ")
# (numpy 2 prints a metric as its repr: np.float64(0.87))
_NUM = (rb"(?:np\.(?:float|int)\d*\()?([-+]?(?:nan|inf|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))\)?")
_PROGRESS = re.compile(rb"fit progress: \((\d+),[ \t]*" + _NUM + rb",[ \t]*\{([^}\n]*)\}")
_INITIAL = re.compile(rb"initial parameters \(loss, other metrics\): " + _NUM + rb",[ \t]*\{([^}\n]*)\}")
_PAIR = re.compile(rb"['\"]([\w./-]+)['\"]:[ \t]*" + _NUM)
# A run needs this many such lines before they count (one quoted in prose is no history); a History series as many
# points.
MIN_ROWS = 2

_HISTORY = b"History ("
_SECTION = re.compile(rb"History \((loss|metrics), (distributed|centralized)(?:, (fit|evaluate))?\):")
_ROUND = re.compile(rb"round (\d+):[ \t]*" + _NUM)
# in a metrics section: a key opening its list, a (round, value) pair, the end of the dict
_TOKEN = re.compile(rb"['\"](?P<key>[^'\"\n]+)['\"]:[ \t]*\[|\((?P<rnd>\d+),[ \t]*"
                    + _NUM.replace(b"([-+]", b"(?P<v>[-+]", 1) + rb"[ \t]*\)|(?P<end>\][ \t]*\})")
# The sections, as their headers name them (History's attributes: losses_distributed, losses_centralized,
# metrics_distributed_fit, metrics_distributed, metrics_centralized).
LOSS_DISTRIBUTED, LOSS_CENTRALIZED = "loss, distributed", "loss, centralized"
FIT, EVALUATE, CENTRALIZED = "metrics, distributed, fit", "metrics, distributed, evaluate", "metrics, centralized"


class HistoryPoint(NamedTuple):
    """One entry of a History section (round -1: a line of the section with no entry, its header's say)."""
    section: str
    key: str
    round: int
    value: float
    line: int                # 1-based


# a section open at a block's end: (section, the metric key whose list is open, whether its dict has begun)
HistoryOpen = tuple[str, str, bool]


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


def scan_history(data: bytes, nl: np.ndarray, line0: int,
                 open_: HistoryOpen | None) -> tuple[list[HistoryPoint], HistoryOpen | None]:
    """The History sections of one block. `open_`: the section an earlier block ended inside (its lines go on at
    this block's start), None when none; returned for the next block."""
    out: list[HistoryPoint] = []
    pos, state = (_section(data, nl, line0, 0, open_, out, False) if open_ is not None else (0, None))
    at = data.find(_HISTORY, pos)
    while at >= 0:
        m = _SECTION.match(data, at)
        if m is None:
            at = data.find(_HISTORY, at + 1)
            continue
        section = ", ".join(g.decode() for g in m.groups() if g is not None)
        out.append(HistoryPoint(section, "", -1, math.nan, int(np.searchsorted(nl, at)) + line0 + 1))
        pos, state = _section(data, nl, line0, m.end(), (section, "loss" if section.startswith("loss") else "", False),
                              out, True)
        at = data.find(_HISTORY, pos)
    return out, state


def _section(data: bytes, nl: np.ndarray, line0: int, pos: int, state: HistoryOpen, out: list[HistoryPoint],
             first: bool) -> tuple[int, HistoryOpen | None]:
    """Read one section's lines from `pos` (in its header's line when `first`, else a line's start) into `out`: (where
    reading stopped, the section's state when the block ended inside it, else None)."""
    section, key, begun = state
    loss = section.startswith("loss")
    k = int(np.searchsorted(nl, pos))
    while pos < len(data):
        le = int(nl[k]) if k < len(nl) else len(data)
        cut = data.find(_HISTORY, pos, le)     # (older versions print the next header right after a dict's end)
        end = le if cut < 0 else cut
        line = k + line0 + 1
        n0 = len(out)
        if loss:
            for m in _ROUND.finditer(data, pos, end):
                out.append(HistoryPoint(section, key, int(m.group(1)), _num(m.group(2)), line))
        else:
            for m in _TOKEN.finditer(data, pos, end):
                if m.group("key") is not None:
                    key, begun = m.group("key").decode(errors="replace"), True
                elif m.group("end") is not None:
                    out.append(HistoryPoint(section, key, -1, math.nan, line))
                    return m.end(), None
                elif key:
                    out.append(HistoryPoint(section, key, int(m.group("rnd")), _num(m.group("v")), line))
            if len(out) == n0 and (begun and data.find(b"(", pos, end) >= 0 or not begun and data.find(b"{", pos, end) >= 0):
                out.append(HistoryPoint(section, key, -1, math.nan, line))   # (a pair of no number; the dict's opening)
        if len(out) == n0 and not first:
            return pos, None        # a line that is none of the section's: it ended on the line before
        if cut >= 0:
            return cut, None
        first = False
        pos, k = le + 1, k + 1
    return len(data), (section, key, begun)


def _num(b: bytes) -> float:
    try:
        return float(b)
    except ValueError:
        return float("nan")


def flower_series(rows: list[tuple[int, float, dict[str, float], int]], rel: str,
                  history: list[HistoryPoint] | None = None) -> list[Series]:
    """The `fit progress` lines' series, then the History's (`history`: scan_history's points)."""
    out = _progress_series(rows, rel)
    return out + _history_series(history, out, rel) if history else out


def _progress_series(rows: list[tuple[int, float, dict[str, float], int]], rel: str) -> list[Series]:
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


# the order names are given in: the server's evaluation keeps a name, the clients' evaluation, then their training
# metrics, take a suffix where it is taken
_ORDER = (LOSS_CENTRALIZED, CENTRALIZED, LOSS_DISTRIBUTED, EVALUATE, FIT)
_SUFFIX = {LOSS_DISTRIBUTED: "_distributed", EVALUATE: "_distributed", FIT: "_fit"}


def _history_series(points: list[HistoryPoint], progress: list[Series], rel: str) -> list[Series]:
    """The History's series beside the `fit progress` lines' (`progress`)."""
    groups: dict[tuple[str, str], list[HistoryPoint]] = {}
    seen: set[tuple[str, str, int, str]] = set()
    for p in points:
        if p.round >= 0 and (p.section, p.key, p.round, repr(p.value)) not in seen:    # (a History printed twice)
            seen.add((p.section, p.key, p.round, repr(p.value)))
            groups.setdefault((p.section, p.key), []).append(p)
    taken = {s.name: s for s in progress}
    has_loss = bool(progress) or any(sec.startswith("loss") for sec, _ in groups)
    out: list[Series] = []
    for section in _ORDER:
        for (sec, key), g in groups.items():
            if sec != section or len(g) < MIN_ROWS:
                continue
            name = normalize(key) if section == FIT else "val_loss" if section.startswith("loss") \
                else as_held_out(normalize(key))
            if section in (CENTRALIZED, EVALUATE) and name == "val_loss" and has_loss:
                continue        # (a 'loss' among the metrics: the loss section's, or the fit progress lines')
            if section in (LOSS_CENTRALIZED, CENTRALIZED) and name in taken and _covers(taken[name], g):
                continue        # the fit progress lines gave these rounds, each on its own line
            if name in taken and section in _SUFFIX:
                name += _SUFFIX[section]
            s = Series(name=name, raw_name=f"{key} ({section.partition(', ')[2]})",
                       steps=np.array([p.round for p in g], dtype=np.int64),
                       values=np.array([p.value for p in g], dtype=np.float64), source=rel,
                       locs=np.array([p.line for p in g], dtype=np.int64), loc_kind=LOC_LINE)
            taken.setdefault(name, s)
            out.append(s)
    return out


def _covers(s: Series, g: list[HistoryPoint]) -> bool:
    """Whether every (round, value) of `g` is a point of `s`."""
    at = {int(st): float(v) for st, v in zip(s.steps, s.values)}
    return all(p.round in at and np.array_equal(at[p.round], p.value, equal_nan=True) for p in g)


def flower_lines(rows: list[tuple[int, float, dict[str, float], int]],
                 history: list[HistoryPoint] | None = None) -> set[int]:
    """The lines flower_series reads, and every line of the History's sections where they hold an entry (the
    scanner's reading of them is dropped)."""
    lines = {r[3] for r in rows} if len(rows) >= MIN_ROWS else set()
    if history and any(p.round >= 0 for p in history):
        lines |= {p.line for p in history}
    return lines
