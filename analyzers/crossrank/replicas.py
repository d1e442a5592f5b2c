"""Which per-rank logs are replicas of a representative rank's, so ingest may read them as text only.

In:  the files ingest is about to read (absolute paths) and the run root.
Out: `replica_logs(files, root) -> (set of paths, note | None)`: the per-rank logs (file-name layouts of
     crossrank.layouts: `rank3.log`, torchrun `attempt_0/3/stdout.log`, `slurm-<job>_<task>.out`) whose
     metric lines need not be parsed, because the representative rank of their group (the lowest rank)
     logs the same curve. Their text is still read whole: the cross-rank view, tracebacks and the log
     detectors see every line of every rank; only the metric Series of the replicas are not built.

Why: data-parallel replicas print the same loss curve (each its own shard's noise), and parsing the
metrics of 64 x 100k lines was most of `diagnose`'s time (benchmarks/bench_ranks.py). A rank whose
curve differs must still be read: each candidate's tail (TAIL_SAMPLE_BYTES) is scanned for its loss
values and compared with the representative's tail: a non-finite loss only one of them shows, a median
further than LOSS_RATIO apart, a tail without loss values on either side, or a file under
MIN_REPLICA_BYTES (cheap to read whole) -> the log is read in full like any other.
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

from mltdbg.analyzers.crossrank.layouts import may_name_rank, path_rank

# Below this size a rank's log is parsed whole anyway: the saving is small and small fixtures keep every series.
MIN_REPLICA_BYTES = 1024 * 1024
# Bytes read from the end of each rank's log for the loss comparison (~1,000 lines of a typical log).
TAIL_SAMPLE_BYTES = 64 * 1024
# Replicas' losses differ by their shards' noise: medians within this factor of each other are "the same
# curve"; a rank diverging (a bad shard, a desynced update) moves by more than that, or goes non-finite.
LOSS_RATIO = 1.5
# A tail needs this many loss values to be compared at all.
MIN_LOSS_VALUES = 5

_LOSS = re.compile(rb"(?i)(?<![\w.])(?:train[_/])?loss['\"]?\s*[:=]?\s*(-?(?:\d+\.?\d*(?:e[-+]?\d+)?|nan|inf))")


def _tail_losses(p: Path) -> list[float]:
    try:
        with open(p, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - TAIL_SAMPLE_BYTES))
            data = f.read(TAIL_SAMPLE_BYTES)
    except OSError:
        return []
    out = []
    for m in _LOSS.finditer(data):
        try:
            out.append(float(m.group(1)))
        except ValueError:
            continue
    return out


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2]


def _same_curve(rep: list[float], other: list[float]) -> bool:
    if len(rep) < MIN_LOSS_VALUES or len(other) < MIN_LOSS_VALUES:
        return False
    fin_r = [x for x in rep if math.isfinite(x)]
    fin_o = [x for x in other if math.isfinite(x)]
    if len(fin_r) != len(rep) or len(fin_o) != len(other):
        return False                        # NaN/inf on either side: read both whole
    a, b = _median(fin_r), _median(fin_o)
    if a <= 0 or b <= 0:
        return a == b
    return max(a, b) / min(a, b) <= LOSS_RATIO


def replica_logs(files: list[Path], root: Path) -> tuple[set[Path], str | None]:
    """The per-rank logs to read as text only, and one line saying so (None when there are none)."""
    groups: dict[tuple[str, str, str], list[tuple[int, Path]]] = {}
    for f in files:
        if not may_name_rank(str(f)):
            continue         # path_rank would say None: its relative path is part of this one
        try:
            rel = f.relative_to(root).as_posix()
        except ValueError:
            rel = f.as_posix()
        pr = path_rank(rel)
        if pr is None or f.suffix == ".gz":
            continue
        how, n, group = pr
        groups.setdefault((how, group, f.name if how == "local" else ""), []).append((n, f))
    out: set[Path] = set()
    reps: list[str] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort()
        rep = members[0][1]
        rep_loss: list[float] | None = None
        before = len(out)
        for _, f in members[1:]:
            try:
                if f.stat().st_size < MIN_REPLICA_BYTES:
                    continue
            except OSError:
                continue
            if rep_loss is None:
                rep_loss = _tail_losses(rep)
            if _same_curve(rep_loss, _tail_losses(f)):
                out.add(f)
        if len(out) > before:
            reps.append(rep.name)
    if not out:
        return out, None
    return out, (f"(ranks) the metrics of {len(out)} rank logs were not parsed: their loss at the end matches "
                 f"the lowest rank's ({', '.join(reps[:3])}) within x{LOSS_RATIO:g}; their text is read in full")
