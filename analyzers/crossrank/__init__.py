"""The cross-process picture of a multi-process job: one row per rank, one merged timeline, the culprit.

In:  a `Run` (tracebacks extracted) whose texts hold the logs of a multi-process job, in the layouts
     launchers write:
       - one file per rank: `rank3.log`, `log_rank_3.txt`, torchrun `--log-dir` folders
         (`.../attempt_0/3/stdout.log` and `stderr.log`), SLURM `slurm-<job>_<task>.out`;
       - one file whose lines carry the rank: `[rank3]:`, `[default3]:` (torchrun --tee),
         `[1,3]<stdout>:` (mpirun), `3: ` (srun --label);
       - one file per node whose lines carry the local rank (`[default3]:` in node1.log).
     Launcher output anywhere in the run (torchrun's `failed (exitcode: ...)` lines and
     ChildFailedError table, srun's `task N: ...` errors, mp.spawn's `process N terminated ...`)
     adds exit codes and signals.
Out: `cross_rank(run) -> RankView | None` (None when fewer than two ranks are found): per rank its
     last step, last line and time, last collective (NCCL watchdog SeqNum/OpType), exit code and
     signal, first error, and its role (culprit, victim, ok); the merged timeline; DataLoader worker
     deaths and hangs; notes (a rank's log missing, clocks that differ, ordering uncertain).
     `rank_signals(run) -> list[Signal]` turns the view into `ranks:*` signals (signals.md) whose
     Evidence cites the culprit's and the victims' lines (file:line + quote).

Speed (64 rank files of 100k lines in well under a second): no Python loop over all lines. The
per-rank series the text reader already built give steps by line; lines are otherwise sampled
(CHART_POINTS per rank plus TAIL_LINES at the end) for steps and times; failure lines are found by
literal searches, over the whole text of a log up to FULL_SCAN_CHARS and over its head and tail
beyond (tracebacks anywhere come from analyzers/tracebacks.py, which reads all of it).
Log text is untrusted: matched, never evaluated; quotes are capped at QUOTE_MAX characters.

Where things live: `layouts.py` (which file or lines are which rank's), `records.py` (the rows, the
view, time/step parsing, the timeline), `facts.py` (per-rank facts from the logs), `judge.py` (clocks,
culprit and victims, the sentence, the signals). This module builds the view once per Run.
"""
from __future__ import annotations

import weakref

from mltdbg.analyzers.crossrank.facts import (Ctx, fill_row, scan_failures, signal_of_exit, worker_batches,
                                              world)
from mltdbg.analyzers.crossrank.judge import UNCERTAIN_GAP_S, clocks, judge, sentence, view_signals
from mltdbg.analyzers.crossrank.layouts import MAX_RANKS, find_streams
from mltdbg.analyzers.crossrank.records import (Loc, Part, RankRow, RankView, Stream, TimelineEvent, WorkerEvent,
                                                build_timeline, fmt_gap, fmt_ranks, fmt_time, parse_step, parse_time)
from mltdbg.analyzers.crossrank.stored import view_from_record, view_record
from mltdbg.analyzers.model import Run, Signal

__all__ = ["MAX_RANKS", "Loc", "Part", "RankRow", "RankView", "Stream", "TimelineEvent", "WorkerEvent",
           "build_timeline", "cross_rank", "find_streams", "fmt_gap", "fmt_ranks", "fmt_time", "parse_step",
           "parse_time", "rank_signals", "signal_of_exit", "view_from_record", "view_record"]

# ----------------------------------------------------------------------------- the view

_CACHE: dict[int, tuple[weakref.ref, RankView | None]] = {}


def cross_rank(run: Run) -> RankView | None:
    """The cross-rank view of `run` (computed once per Run object); None when it is not multi-process."""
    hit = _CACHE.get(id(run))
    if hit is not None and hit[0]() is run:
        return hit[1]
    view = _build(run)
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(run)] = (weakref.ref(run), view)
    return view


def _build(run: Run) -> RankView | None:
    streams, layout, notes = find_streams(run)
    if len(streams) < 2:
        return None
    ctx = Ctx(run, streams)
    rows = {s.key: RankRow(s) for s in streams}
    by_rank = {r.rank: r for r in rows.values() if r.rank is not None}
    by_local = {(r.stream.node or "", r.stream.local_rank): r for r in rows.values() if r.stream.local_rank is not None}
    view = RankView(rows=list(rows.values()), layout=layout, notes=notes)
    for row in rows.values():
        fill_row(ctx, row)
    world(run, view, by_rank)
    scan_failures(ctx, rows, by_rank, by_local, view)
    clocks(view)
    judge(view)
    worker_batches(ctx, view)
    view.sentence = sentence(view)
    oo = [r.label for r in view.rows if r.out_of_order]
    if oo:
        view.notes.append(f"lines are not in time order in the log of {', '.join(oo[:5])}"
                          f"{' and others' if len(oo) > 5 else ''} (buffered output); the timeline sorts them by time")
    if view.culprit is not None and view.clock_skew == {} and _multi_node(view) and not view.ordering_uncertain:
        c = view.culprit
        ct = (c.first_error or c.last_step or c.last_line)
        vt = [v.first_error.time for v in view.victims if v.first_error and v.first_error.time is not None]
        if ct is not None and ct.time is not None and vt and abs(min(vt) - ct.time) < UNCERTAIN_GAP_S \
                and view.reason.startswith(("crashed", "stopped")):
            view.ordering_uncertain = True
            view.sentence += " (ordering uncertain: the ranks are on different nodes and the gap is within clock error)"
    return view


def _multi_node(view: RankView) -> bool:
    return len({r.stream.node for r in view.rows if r.stream.node}) > 1


def rank_signals(run: Run) -> list[Signal]:
    """`ranks:*` signals from the cross-rank view (none for a single-process run); its notes become warnings."""
    view = cross_rank(run)
    if view is None:
        return []
    for n in view.notes:
        run.warnings.append(f"(ranks) {n}")
    return view_signals(view)
