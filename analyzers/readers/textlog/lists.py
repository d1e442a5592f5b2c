"""A metric's whole history printed as one list: Keras' `history.history` dict, a `print(losses)`.

In:  a small log's text (`{'loss': [0.6931, 0.6930, ...], 'val_accuracy': [0.5, ...]}`,
     `loss = [2.30 1.91 1.52]` as numpy prints it, over several lines).
Out: `list_series(art)` -> one `Series` per such list of >= MIN_POINTS numbers under a loss,
     accuracy or perplexity name; steps are the list positions (`step_is_index`), each point's
     line is the line its number is on.

The block scanner reads the first number after a key, so these histories came out as one point
each. Only metric names are read this way: a config echo's lists (`milestones: [30, 60, 90]`,
`betas: [0.9, 0.999]`, an lr per group) are settings, not histories.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series, TextArtifact
from mltdbg.analyzers.names import LOSS_ACC_PPL, normalize

# Logs up to this many characters are searched (a post's paste; a long run prints per step), and
# only when a list of numbers follows a ':' or '=' somewhere (_ANY, ~10x quicker than _LIST).
MAX_CHARS = 1024 * 1024
# Fewer numbers than this in a list are not a history.
MIN_POINTS = 3

# (one way to match each number: a list that never closes fails in linear time)
_NUM = r"[-+]?(?:nan|inf|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
_LIST = re.compile(
    r"""(?P<key>(?<![\w.])['"]?[A-Za-z_][\w./-]{0,40}?['"]?)[ \t]*[:=][ \t]*"""
    r"(?:array\(|np\.array\(|tensor\()?\[\s*(?P<nums>" + _NUM + r"(?:(?:[ \t]*,\s*|\s+)" + _NUM + r")+)\s*,?\s*\]",
    re.IGNORECASE)
_EACH = re.compile(_NUM, re.IGNORECASE)
_ANY = re.compile(r"[:=][ \t]*(?:array\(|np\.array\(|tensor\()?\[\s*[-+.\dni]", re.IGNORECASE)
def _is_metric(name: str) -> bool:
    """Names whose lists are read: the loss, accuracy and perplexity families and any other loss term."""
    return name in LOSS_ACC_PPL or name.endswith("loss") or name.endswith(("_acc", "_accuracy"))


def list_series(art: TextArtifact) -> list[Series]:
    """The histories printed as lists in a small log (see the module docstring)."""
    text = art.text
    if len(text) > MAX_CHARS or "[" not in text or not _ANY.search(text):
        return []
    out = []
    for m in _LIST.finditer(text):
        raw = m.group("key").strip("'\"")
        name = normalize(raw)
        if not _is_metric(name):
            continue
        nums = list(_EACH.finditer(m.group("nums")))
        if len(nums) < MIN_POINTS:
            continue
        base = m.start("nums")
        values = np.array([float(x.group()) for x in nums], np.float64)
        lines = np.array([art.line_of(base + x.start()) for x in nums], np.int64)
        out.append(Series(name=name, raw_name=raw, steps=np.arange(len(values)), values=values, source=art.path,
                          locs=lines, loc_kind=LOC_LINE, step_is_index=True))
    return out


def with_lists(art: TextArtifact, series: list[Series]) -> list[Series]:
    """`series` (the block scanner's) with each printed history in place of the one point the
    scanner took from the start of its list."""
    lists = list_series(art)
    if not lists:
        return series
    taken = {(s.raw_name, int(s.locs[0])) for s in lists}
    kept = [s for s in series if not (len(s) == 1 and (s.raw_name.strip("'\""), int(s.locs[0])) in taken)]
    return kept + lists
