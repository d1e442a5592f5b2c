"""The rows of the cross-rank view and the small parsers they share (times, steps, rank lists).

In:  nothing of a run: dataclasses and pure functions.
Out: `Part`, `Stream` (what one rank wrote), `Loc` (a cited line), `WorkerEvent`, `RankRow` (one row
     of the rank table), `TimelineEvent`, `RankView` (the whole picture) and `build_timeline`;
     `parse_time`, `parse_step`, `fmt_time`, `fmt_gap`, `fmt_ranks`; `strip_prefix` (a line without
     its rank tags). Built by mltdbg.analyzers.crossrank.{layouts,facts,judge}.
"""
from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from mltdbg.analyzers.model import Evidence, TextArtifact
from mltdbg.analyzers.ranks import rank_of_prefix
from mltdbg.analyzers.tracebacks import line_quote

# srun --label: "  3: text" (right-aligned task id, colon, space)
SRUN_LABEL = re.compile(r"^ {0,5}(\d{1,5}): ")


@dataclass
class Part:
    """The lines of one rank inside one artifact: all of it, or the listed line numbers."""

    art: TextArtifact
    lines: np.ndarray | None = None      # 1-based line numbers; None: the whole file
    prefixed: bool = False               # lines start with a rank tag to strip
    tag: int | None = None               # the number in that tag (the text reader's Series.rank)

    @property
    def n_lines(self) -> int:
        return self.art.n_lines if self.lines is None else int(len(self.lines))

    def line_no(self, i: int) -> int:
        """File line number of the i-th line of this part (0-based; negative from the end)."""
        if self.lines is None:
            n = self.art.n_lines
            return (i if i >= 0 else n + i) + 1
        return int(self.lines[i])

    def text(self, line: int) -> str:
        s = self.art.line(line)
        if self.prefixed:
            s = strip_prefix(s)
        return s


def strip_prefix(s: str) -> str:
    for _ in range(3):     # "[default1]:[rank5]: ..." carries two tags
        r, rest = rank_of_prefix(s)
        if r is None:
            m = SRUN_LABEL.match(s)
            if not m:
                break
            rest = s[m.end():]
        s = rest
    return s


@dataclass
class Stream:
    """Everything one rank wrote."""

    key: tuple                           # (node or "", rank or local rank): unique per stream
    rank: int | None                     # global rank, when known
    node: str | None = None
    local_rank: int | None = None
    parts: list[Part] = field(default_factory=list)
    rank_assumed: bool = False           # global rank computed as node index * ranks per node + local

    @property
    def label(self) -> str:
        if self.rank is not None:
            return f"rank {self.rank}"
        return f"{self.node} local {self.local_rank}"

    @property
    def sources(self) -> list[str]:
        return list(dict.fromkeys(p.art.path for p in self.parts))


@dataclass
class Loc:
    """A cited line: where, its time (seconds, corrected for the rank's clock offset) and text."""

    source: str
    line: int
    text: str
    time: float | None = None
    step: int | None = None

    def evidence(self, words: str) -> Evidence:
        return Evidence(text=words, source=self.source, line=self.line, quote=line_quote(self.text.strip()))


@dataclass
class WorkerEvent:
    """A DataLoader worker that died or hung, as one rank's log tells it."""

    rank_label: str
    kind: str                            # killed | exited | timeout | exception
    loc: Loc
    pid: int | None = None
    worker: int | None = None
    signal: str | None = None
    exc_type: str | None = None
    step: int | None = None              # the last step the rank logged before it
    batch: int | None = None             # the batch it held, when a nearby line names one

    def words(self) -> str:
        who = f"DataLoader worker{f' {self.worker}' if self.worker is not None else ''}" \
              f"{f' (pid {self.pid})' if self.pid is not None else ''} of {self.rank_label}"
        what = {"killed": f"was killed by signal {self.signal}" if self.signal else "was killed",
                "exited": "exited unexpectedly",
                "timeout": "timed out (the loader waited for a batch that never came)",
                "exception": f"raised {self.exc_type or 'an exception'}"}[self.kind]
        held = f" while loading batch {self.batch}" if self.batch is not None else ""
        at = f" after step {self.step}" if self.step is not None else ""
        when = f" at {fmt_time(self.loc.time)}" if self.loc.time is not None else ""
        return f"{who} {what}{held}{at}{when}"


@dataclass
class RankRow:
    """One row of the rank table."""

    stream: Stream
    n_lines: int = 0
    last_step: Loc | None = None
    last_line: Loc | None = None         # its own time, or None when the line has no timestamp
    last_time: float | None = None       # the time of its last line that has one
    last_op: str | None = None           # e.g. ALLREDUCE
    last_seq: int | None = None          # SeqNum of the collective it is in (timed out) or last enqueued
    last_done: int | None = None         # last completed SeqNum (watchdog)
    numel: int | None = None
    op_loc: Loc | None = None
    exit_code: int | None = None
    signal: str | None = None
    exit_loc: Loc | None = None
    first_error: Loc | None = None
    error_kind: str | None = None        # timeout | peer | abort | cuda_oom | host_oom | exception | signal
    role: str = "ok"                     # culprit | victim | ok | unknown
    why: str = ""
    clock_offset: float = 0.0            # seconds subtracted from this rank's times
    steps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    times: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.float64))
    out_of_order: bool = False

    @property
    def label(self) -> str:
        return self.stream.label

    @property
    def rank(self) -> int | None:
        return self.stream.rank

    def to_json(self) -> dict:
        """A plain row for views and sessions (times as ISO strings)."""
        def t(loc: Loc | None):
            return fmt_time(loc.time) if loc is not None and loc.time is not None else None
        return {"rank": self.rank, "label": self.label, "node": self.stream.node, "role": self.role, "why": self.why,
                "last_step": self.last_step.step if self.last_step else None, "last_step_time": t(self.last_step),
                "last_line": self.last_line.text.strip()[:200] if self.last_line else None,
                "last_time": fmt_time(self.last_time) if self.last_time is not None else None, "last_op": self.last_op, "last_seq": self.last_seq,
                "exit_code": self.exit_code, "signal": self.signal,
                "first_error": self.first_error.text.strip()[:200] if self.first_error else None,
                "sources": self.stream.sources}


@dataclass
class TimelineEvent:
    time: float | None
    step: int | None
    rank_label: str
    what: str                             # step | error | collective | exit | last | worker
    loc: Loc
    ordered_by: str = "time"              # time | step (estimated place)


@dataclass
class RankView:
    rows: list[RankRow]                   # culprit first, then victims, then the rest by rank
    layout: str                           # files | prefixes | nodes
    world_size: int | None = None
    missing: list[int] = field(default_factory=list)
    culprit: RankRow | None = None
    victims: list[RankRow] = field(default_factory=list)
    reason: str = ""                      # how the culprit was found
    sentence: str = ""                    # the finding in one line, with numbers
    workers: list[WorkerEvent] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ordering_uncertain: bool = False
    desync: list[list["RankRow"]] = field(default_factory=list)   # groups in different collectives at one SeqNum
    clock_skew: dict[str, float] = field(default_factory=dict)   # rank label -> seconds ahead of the reference

    def timeline(self, limit: int = 400) -> list[TimelineEvent]:
        return build_timeline(self, limit)


# ----------------------------------------------------------------------------- times and steps

_ISO = re.compile(r"(\d{4})[-/](\d\d)[-/](\d\d)[ T_](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?")
_GLOG = re.compile(r"(?:^|\[)[IWEF](\d{3,4}) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?")
_HMS = re.compile(r"(?<![\d:.])(\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}))?(?![\d:])")
_EPOCH0 = _dt.date(1970, 1, 1).toordinal()
_TIME_CHARS = 120            # timestamps sit at the start of a line


@lru_cache(maxsize=4096)     # a log's lines share a few dates: one date object per date, not per line
def _day(y: int, m: int, d: int) -> float | None:
    try:
        return float((_dt.date(y, m, d).toordinal() - _EPOCH0) * 86400)
    except ValueError:
        return None


def _frac(s: str | None) -> float:
    return float("0." + s) if s else 0.0


def parse_time(s: str, year: int | None = None) -> float | None:
    """Seconds (UTC-naive) of a line's timestamp: ISO date-time, glog `E0501 12:31:44.2` (year from
    `year`), or a bare `12:31:44` (day 0). None when the line has none."""
    head = s[:_TIME_CHARS]
    m = _ISO.search(head)
    if m:     # (the common case, ~40k lines per 64-rank job: one groups() call, no helper for the fraction)
        y, mo, dd, hh, mi, ss, fr = m.groups()
        d = _day(int(y), int(mo), int(dd))
        if d is not None:
            return d + int(hh) * 3600 + int(mi) * 60 + int(ss) + (float("0." + fr) if fr else 0.0)
    m = _GLOG.search(head)
    if m:
        md = m.group(1)
        d = _day(year or 1970, int(md[:-2]), int(md[-2:]))
        if d is not None:
            return d + int(m.group(2)) * 3600 + int(m.group(3)) * 60 + int(m.group(4)) + _frac(m.group(5))
    m = _HMS.search(head)
    if m and int(m.group(1)) < 24 and int(m.group(2)) < 60 and int(m.group(3)) < 61:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3)) + _frac(m.group(4))
    return None


def fmt_time(t: float | None) -> str:
    """12:31:44 (with the date when there is one)."""
    if t is None:
        return "?"
    day, sec = divmod(t, 86400)
    hms = f"{int(sec // 3600):02d}:{int(sec // 60 % 60):02d}:{int(sec % 60):02d}"
    if day < 1:
        return hms
    return f"{_dt.date.fromordinal(int(day) + _EPOCH0).isoformat()} {hms}"


def fmt_gap(s: float) -> str:
    s = abs(s)
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


_STEP = re.compile(r"(?i)(?<![\w.])(?:global[_ ]?step|step|iter(?:ation)?|it|update|batch)(?![\w])\s*[:=#]?\s*\[?\s*(\d{1,10})(?![\d.])")


def parse_step(s: str) -> int | None:
    m = _STEP.search(s)
    return int(m.group(1)) if m else None


def fmt_ranks(ranks: list[int]) -> str:
    """[0, 1, 2, 4, 6, 7] -> '0-2, 4, 6-7'."""
    rs = sorted(set(ranks))
    out: list[str] = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        out.append(str(rs[i]) if i == j else f"{rs[i]}-{rs[j]}")
        i = j + 1
    return ", ".join(out)


# ----------------------------------------------------------------------------- the timeline

def build_timeline(view: RankView, limit: int = 400) -> list[TimelineEvent]:
    """The ranks' notable lines in one order: by time where lines have one, by step otherwise
    (an untimed line is placed at the time its step was reached on the ranks that have times)."""
    evs: list[TimelineEvent] = []
    for r in view.rows:
        for what, loc in (("step", r.last_step), ("collective", r.op_loc), ("error", r.first_error),
                          ("exit", r.exit_loc), ("last", r.last_line)):
            if loc is not None:
                evs.append(TimelineEvent(loc.time, loc.step if loc.step is not None else
                                         (r.last_step.step if r.last_step else None), r.label, what, loc))
    for w in view.workers:
        evs.append(TimelineEvent(w.loc.time, w.step, w.rank_label, "worker", w.loc))
    # step -> time from every rank that has both, for the untimed lines
    st = np.concatenate([r.steps[np.isfinite(r.times)] for r in view.rows] or [np.zeros(0, np.int64)])
    tt = np.concatenate([r.times[np.isfinite(r.times)] for r in view.rows] or [np.zeros(0)])
    order = np.argsort(st, kind="stable")
    st, tt = st[order], tt[order]
    last_t = {r.label: r.last_time for r in view.rows}
    keyed = []
    for e in evs:
        key = e.time
        if key is None and e.what == "step" and e.step is not None and len(st):
            e.ordered_by = "step"         # placed where its step was reached on the timed ranks
            key = float(np.interp(e.step, st, tt))
        elif key is None and last_t.get(e.rank_label) is not None:
            e.ordered_by = "after"        # no timestamp: at or after the rank's last timed line
            key = last_t[e.rank_label] + 1e-3
        keyed.append((key, e))
    timed = sorted(((k, e) for k, e in keyed if k is not None), key=lambda t: (t[0], t[1].rank_label))
    untimed = sorted((e for k, e in keyed if k is None),
                     key=lambda e: (e.step if e.step is not None else 10**18, e.rank_label))
    for e in untimed:
        e.ordered_by = "step"
    return ([e for _, e in timed] + untimed)[:limit]
