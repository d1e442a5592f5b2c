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
"""
from __future__ import annotations

import datetime as _dt
import re
import weakref
from dataclasses import dataclass, field
from itertools import islice
from pathlib import PurePosixPath

import numpy as np

from mltdbg.analyzers.common.textfind import TextFinder
from mltdbg.analyzers.log_findings import CUDA_OOM
from mltdbg.analyzers.model import Evidence, Run, Signal, TextArtifact
from mltdbg.analyzers.ranks import rank_lines, rank_of_prefix
from mltdbg.analyzers.tracebacks import LOG_KINDS, line_quote, lines_of_offsets

# Beyond this many ranks we read the lowest-numbered ones and say so (a 1,000-rank job is fine;
# a folder of 100,000 numbered files is not a job we can show).
MAX_RANKS = 4096
# Points per rank kept for the step-versus-time chart and the clock comparison.
CHART_POINTS = 200
# Lines read backwards from the end of a rank's stream for its last step, line and time.
TAIL_LINES = 400
# Logs up to this size are searched whole for failure lines; bigger ones in their head and tail (the
# crash, the watchdog and the launcher's report are at the end: 512 KB of tail holds the last ~6k lines
# of a typical log; every traceback anywhere still comes from tracebacks.py). Each literal costs one
# pass over what is searched, so 64 logs of 6 MB searched whole would take ~2 s, head and tail ~0.3 s.
FULL_SCAN_CHARS = 2_000_000
HEAD_CHARS = 128_000
TAIL_CHARS = 512_000
# Hits kept per literal per log (the first ones: causes come first).
HITS_PER_LITERAL = 2000
# A rank whose last line is this much older than the others' failure is "stopped" (seconds);
# below it, the stop and the failure are too close to tell apart.
STALL_GAP_S = 2.0
# Clocks: two ranks are taken to log the same step within a step of each other (collectives keep
# them together); a median offset above this, consistent across steps, is a clock difference.
CLOCK_SKEW_S = 2.0
# Ordering by time across clocks we could not compare is uncertain below this gap (seconds).
UNCERTAIN_GAP_S = 5.0

# ----------------------------------------------------------------------------- layouts

# torchrun --log-dir: <dir>/<run id>/attempt_<n>/<local rank>/{stdout,stderr}.log
_TORCHRUN_DIR = re.compile(r"(?:^|/)attempt_(\d+)/(\d+)/(stdout|stderr|error)\.(?:log|json)$")
# SLURM --output=slurm-%j_%t.out (job, task id = global rank); also %j.%t
_SLURM_TASK = re.compile(r"(?:^|/)slurm-(\d+)[_.](\d+)\.(?:out|err|log|txt)$")
# rank3.log, log_rank_3.txt, train.rank-05.out, rank3/stdout.log, RANK_3.log
_RANK_NAME = re.compile(r"(?:^|[/_.\-])rank[_\-]?(\d{1,5})(?=[/_.\-]|$)", re.I)
# node-local rank in a name: local_rank3.log, lrank_3.log
_LOCAL_NAME = re.compile(r"(?:^|[/_.\-])l(?:ocal_?)?rank[_\-]?(\d{1,5})(?=[/_.\-]|$)", re.I)
# srun --label: "  3: text" (right-aligned task id, colon, space)
_SRUN_LABEL = re.compile(r"^ {0,5}(\d{1,5}): ")
# torch >= 2.2 nests the global rank in torchrun's tee prefix: "[default1]:[rank5]: ..."
_NESTED_RANK = re.compile(r"\[default(\d+)\]:\[rank(\d+)\]:")
_NODE_INDEX = re.compile(r"(\d+)(?!.*\d)")


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
            s = _strip_prefix(s)
        return s


def _strip_prefix(s: str) -> str:
    for _ in range(3):     # "[default1]:[rank5]: ..." carries two tags
        r, rest = rank_of_prefix(s)
        if r is None:
            m = _SRUN_LABEL.match(s)
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
    if m:
        d = _day(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        if d is not None:
            return d + int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6)) + _frac(m.group(7))
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


# ----------------------------------------------------------------------------- finding the ranks

def _path_rank(rel: str) -> tuple[str, int, str] | None:
    """(how, number, group) from a file's path: ("rank", global, group) or ("local", local, group)."""
    p = rel.replace("\\", "/")
    m = _TORCHRUN_DIR.search(p)
    if m:
        group = p[: m.start()] or "."
        return "local", int(m.group(2)), f"{group}#attempt{int(m.group(1)):06d}"
    m = _SLURM_TASK.search(p)
    if m:
        return "rank", int(m.group(2)), f"slurm-{m.group(1)}"
    name = PurePosixPath(p)
    tail = "/".join(name.parts[-2:])
    m = _LOCAL_NAME.search(tail)
    if m:
        return "local", int(m.group(1)), str(name.parent)
    m = _RANK_NAME.search(tail)
    if m:
        return "rank", int(m.group(1)), str(name.parent) if "/" not in tail[m.start():].strip("/") else str(name.parent.parent)
    return None


def _srun_lines(art: TextArtifact) -> dict[int, np.ndarray]:
    """Line numbers per task for `srun --label` output ("  3: text"), when most lines carry one."""
    text = art.text
    sample = text[:20000].split("\n")[:200]
    hits = [_SRUN_LABEL.match(s) for s in sample if s.strip()]
    if len(hits) < 4 or sum(h is not None for h in hits) < 0.6 * len(hits):
        return {}
    if len({h.group(1) for h in hits if h}) < 2:
        return {}
    ranks: list[int] = []
    offs: list[int] = []
    for m in re.finditer(r"(?m)^ {0,5}(\d{1,5}): ", text):
        offs.append(m.start())
        ranks.append(int(m.group(1)))
    if not offs:
        return {}
    lines = art.lines_of(np.asarray(offs, dtype=np.int64))
    r = np.asarray(ranks, dtype=np.int64)
    return {int(k): lines[r == k] for k in np.unique(r)}


def find_streams(run: Run) -> tuple[list[Stream], str, list[str]]:
    """The ranks' streams, the layout, and notes (dropped attempts, too many ranks)."""
    notes: list[str] = []
    by_file: dict[str, list[tuple[str, int, TextArtifact]]] = {}
    prefixed: list[tuple[TextArtifact, dict[int, np.ndarray], str]] = []
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        pr = _path_rank(art.path)
        if pr is not None:
            how, n, group = pr
            by_file.setdefault(group, []).append((how, n, art))
            continue
        rl = rank_lines(art)
        tag = "rank"
        if rl and (art.text.startswith("[default") or "\n[default" in art.text[:2_000_000]):
            tag = "local"   # torchrun --tee: [defaultN] is the local rank (the global one may be nested after it)
        if not rl:
            rl = _srun_lines(art)
            tag = "rank"
        if len(rl) >= 1:
            prefixed.append((art, rl, tag))
    streams: dict[tuple, Stream] = {}
    layout = "files"
    # one file (or two: stdout/stderr) per rank; keep the latest torchrun attempt of each log dir
    groups = sorted(by_file)
    latest: dict[str, str] = {}
    for g in groups:
        base, _, att = g.partition("#attempt")
        if att and (base not in latest or g > latest[base]):
            latest[base] = g
    for g in groups:
        base, _, att = g.partition("#attempt")
        if att and latest.get(base) != g:
            notes.append(f"{base}: an earlier torchrun attempt (attempt_{int(att)}) was left out; the latest is shown")
            continue
        for how, n, art in by_file[g]:
            key = ("", n) if how == "rank" else (base if base != "." else "", n)
            s = streams.get(key)
            if s is None:
                s = streams[key] = Stream(key=key, rank=n if how == "rank" else None,
                                          local_rank=n if how == "local" else None)
            s.parts.append(Part(art))
    # local-rank files of one torchrun log dir on a single node: local == global
    nodes_f = {k[0] for k in streams if streams[k].rank is None}
    if len(nodes_f) == 1:
        for s in streams.values():
            if s.rank is None:
                s.rank = s.local_rank
    elif len(nodes_f) > 1:
        for s in streams.values():
            if s.rank is None:
                s.node = s.key[0]
        _assign_global(list(streams.values()), notes)
    # prefixed files
    local_files = [(a, rl) for a, rl, t in prefixed if t == "local"]
    multi_node = len(local_files) > 1
    for art, rl, tag in prefixed:
        nested = dict((int(a), int(b)) for a, b in _NESTED_RANK.findall(art.text[:2_000_000]))
        node = PurePosixPath(art.path).stem if (tag == "local" and multi_node) else None
        for r, lines in rl.items():
            glob = nested.get(r) if tag == "local" else r
            if tag == "local" and not multi_node and glob is None:
                glob = r
            key = ("", glob) if glob is not None else (node or art.path, r)
            s = streams.get(key)
            if s is None:
                s = streams[key] = Stream(key=key, rank=glob, node=node, local_rank=r if tag == "local" else None)
            s.parts.append(Part(art, lines, prefixed=True, tag=r))
        layout = "nodes" if multi_node else "prefixes"
    if multi_node:
        _assign_global([s for s in streams.values() if s.rank is None], notes)
    out = sorted(streams.values(), key=lambda s: (s.rank is None, s.rank if s.rank is not None else 0, s.key))
    if len(out) < 2:
        named = _watchdog_ranks(run)
        if len(named) >= 2:   # one log whose lines do not carry the rank, but whose watchdog lines name it
            have = {s.rank for s in out}
            out += [Stream(key=("", r), rank=r) for r in sorted(named) if r not in have]
            layout = "watchdog"
    if len(out) > MAX_RANKS:
        notes.append(f"{len(out)} rank streams found; the first {MAX_RANKS} are analysed")
        out = out[:MAX_RANKS]
    return out, layout, notes


def _watchdog_ranks(run: Run) -> set[int]:
    """Ranks named by NCCL watchdog lines (`[Rank 3] Watchdog caught ... SeqNum=...`)."""
    out: set[int] = set()
    for art in run.texts:
        if art.kind not in LOG_KINDS or "SeqNum=" not in art.text:
            continue
        for m in islice(re.finditer(r"\[(?:PG[^\]]*?)?Rank (\d+)\][^\n]*SeqNum=", art.text), MAX_RANKS * 4):
            out.add(int(m.group(1)))
    return out


def _assign_global(streams: list[Stream], notes: list[str]) -> None:
    """Per-node local ranks -> global ranks as node index * ranks per node + local (torchrun's static
    assignment), when every node's name holds an index and all nodes hold the same ranks."""
    by_node: dict[str, list[Stream]] = {}
    for s in streams:
        if s.node is not None:
            by_node.setdefault(s.node, []).append(s)
    if len(by_node) < 2:
        return
    idx = {}
    for n in by_node:
        m = _NODE_INDEX.search(n)
        if not m:
            return
        idx[n] = int(m.group(1))
    per = {len(v) for v in by_node.values()}
    if len(per) != 1 or len(set(idx.values())) != len(idx):
        return
    k = per.pop()
    order = sorted(idx, key=idx.get)
    for i, n in enumerate(order):
        for s in by_node[n]:
            if s.local_rank is not None:
                s.rank = i * k + s.local_rank
                s.rank_assumed = True
    notes.append(f"global ranks assumed as node index x {k} + local rank (nodes {', '.join(order)}); "
                 "the logs do not print them")


# ----------------------------------------------------------------------------- failure lines

_SEQ = re.compile(r"SeqNum=(\d+),\s*OpType=(\w+)(?:,\s*NumelIn=(\d+))?")
_NCCL_WORK = re.compile(r"(?:Timeout at NCCL work|detected by watchdog at work):\s*(\d+),\s*last enqueued NCCL work:\s*(-?\d+),"
                        r"\s*last completed NCCL work:\s*(-?\d+)")
_RANK_IN_LINE = re.compile(r"\[(?:PG[^\]]*?)?Rank (\d+)\]")
_LAUNCH_FAIL = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_SRUN_ERR = re.compile(r"srun: error: (\S+): tasks? ([\d,\-\s]+): (.+)$")
_SPAWN = re.compile(r"process (\d+) terminated with (?:exit code (-?\d+)|signal (\w+))")
_CF_ENTRY = re.compile(r"^\s*\[\d+\]:\s*$", re.M)
_CF_FIELD = re.compile(r"^\s*(time|host|rank|exitcode|traceback)\s*:\s*(.*?)\s*$", re.M)
_MONITORED = re.compile(r"Ranks? ([\d, ]+) failed to pass monitoredBarrier")
_WORKER_KILLED = re.compile(r"DataLoader worker \(pid (\d+)\) is killed by signal: ([\w ]+)")
_WORKER_EXITED = re.compile(r"DataLoader worker \(pid\(s\) ([\d, ]+)\) exited unexpectedly")
_WORKER_TIMEOUT = re.compile(r"DataLoader timed out after (\d+) seconds")
_WORKER_EXC = re.compile(r"Caught (\w+) in DataLoader worker process (\d+)")
_BATCH = re.compile(r"(?i)\b(?:batch|batch_idx|idx|index|sample)\s*[:=#]?\s*(\d+)")
_EXIT_CODE = re.compile(r"\bexit(?:ed with)? (?:code|status)\s*[:=]?\s*(-?\d+)")
_KILLED_LINE = re.compile(r"(?:^|\s)Killed(?:\s|$)")
_ERROR_LINE = re.compile(r"\b(?:ERROR|CRITICAL|FATAL)\b|\b[A-Z]\w*(?:Error|Exception)\b:|Segmentation fault|core dumped"
                         r"|Fatal Python error")

# What a first error says about the rank: waiting on others (a victim) or failing itself.
_TIMEOUT_TEXT = re.compile(r"Watchdog caught collective operation timeout|Timed out waiting \d+ms|[Tt]imed? ?out"
                           r"|Timeout at NCCL work|DistStoreError|failed to pass monitoredBarrier")
_PEER_TEXT = re.compile(r"Connection closed by peer|Connection reset by peer|Broken pipe|NCCL communicator was aborted"
                        r"|ncclRemoteError|remote process exited|DistNetworkError|recvValue failed|Socket Timeout")
_MISMATCH = re.compile(r"collective mismatch|doesn't match expected size|[Mm]ismatch between collectives"
                       r"|Detected mismatch between collectives")
# The process's own report of a failed host allocation. Narrower than log_findings' host_oom on purpose:
# SIGKILL / exit 137 is the launcher's evidence and is judged from the rank's exit, not its text.
_HOST_OOM = re.compile(r"Out Of Memory|oom[-_ ]kill|Cannot allocate memory|DefaultCPUAllocator: can't allocate|MemoryError"
                       r"|std::bad_alloc")

_LITERALS = ("SeqNum=", "NCCL work:", "failed (exitcode:", "srun: error:", "terminated with", "monitoredBarrier",
             "DataLoader worker", "DataLoader timed out", "exit code", "exit status", "Killed", "ERROR", "Error",
             "Exception", "FATAL", "CRITICAL", "Segmentation fault", "core dumped", "Fatal Python error", "what():")

_SIGNALS = {1: "SIGHUP", 2: "SIGINT", 4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL",
            11: "SIGSEGV", 13: "SIGPIPE", 15: "SIGTERM"}


def signal_of_exit(code: int | None) -> str | None:
    """-9 (Python's way) and 137 (the shell's, 128 + 9) are both SIGKILL."""
    if code is None:
        return None
    if code < 0:
        return _SIGNALS.get(-code, f"signal {-code}")
    if 128 < code < 160:
        return _SIGNALS.get(code - 128, f"signal {code - 128}")
    return None


def _line_at(text: str, off: int) -> tuple[int, str]:
    a = text.rfind("\n", 0, off) + 1
    b = text.find("\n", off)
    return a, text[a: b if b >= 0 else len(text)].rstrip("\r")


def _spans(n: int) -> list[tuple[int, int]]:
    if n <= FULL_SCAN_CHARS:
        return [(0, n)]
    return [(0, HEAD_CHARS), (max(HEAD_CHARS, n - TAIL_CHARS), n)]


def _hits(art: TextArtifact) -> list[tuple[int, str]]:
    """(line number, line) of every line holding a failure literal, in line order (bounded)."""
    text = art.text
    starts: dict[int, str] = {}
    finder = TextFinder(text)
    for a, b in _spans(len(text)):
        for lit in _LITERALS:
            i = finder.find(lit, a, b)
            if i < 0:
                continue
            k = 0
            while i >= 0 and k < HITS_PER_LITERAL:
                ls, s = _line_at(text, i)
                starts.setdefault(ls, s)
                k += 1
                nxt = text.find("\n", i)
                if nxt < 0:
                    break
                i = finder.find(lit, nxt, b)
    if not starts:
        return []
    offs = sorted(starts)
    nums = lines_of_offsets(art, offs)
    return [(n, starts[o]) for n, o in zip(nums, offs)]


# ----------------------------------------------------------------------------- per-rank facts

class _Ctx:
    """What the per-rank pass needs from the whole run."""

    def __init__(self, run: Run, streams: list[Stream]):
        self.run = run
        self.year = _year_of(run)
        self.by_art: dict[str, list[tuple[Stream, Part]]] = {}
        for s in streams:
            for p in s.parts:
                self.by_art.setdefault(p.art.path, []).append((s, p))
        self.series: dict[tuple[str, int | None], tuple[np.ndarray, np.ndarray]] = {}
        for se in run.series:
            if se.loc_kind != "line" or se.step_is_index or not len(se):
                continue
            k = (se.source, se.rank)
            if k not in self.series or len(se) > len(self.series[k][0]):
                self.series[k] = (se.locs, se.steps)

    def time(self, s: str) -> float | None:
        return parse_time(s, self.year)


def _year_of(run: Run) -> int | None:
    for art in run.texts[:50]:
        m = _ISO.search(art.text[:4000])
        if m:
            return int(m.group(1))
    return None


def _stream_of(ctx: _Ctx, art: TextArtifact, line: int, s: str) -> tuple[Stream, Part] | None:
    """The rank stream a line of `art` belongs to (None: a launcher line or an untagged one)."""
    cands = ctx.by_art.get(art.path)
    if not cands:
        return None
    if len(cands) == 1 and cands[0][1].lines is None:
        return cands[0]
    for st, p in cands:
        if p.lines is None:
            return st, p
        i = int(np.searchsorted(p.lines, line))
        if i < len(p.lines) and p.lines[i] == line:
            return st, p
    return None


def _fill_row(ctx: _Ctx, row: RankRow) -> None:
    """Lines, last line and time, last step, step/time samples of one rank."""
    st = row.stream
    row.n_lines = sum(p.n_lines for p in st.parts)
    best_last: Loc | None = None
    samples: list[tuple[int, float]] = []
    last_step: Loc | None = None
    for p in st.parts:
        n = p.n_lines
        if n == 0:
            continue
        # the last line, its time and the last step: the latest by time among the last TAIL_LINES lines
        # (lines flushed out of order), else the last in the file
        lt: float | None = None
        last: Loc | None = None
        step_loc: Loc | None = None
        for i in range(1, min(n, TAIL_LINES) + 1):
            ln = p.line_no(-i)
            s = p.text(ln)
            if not s.strip():
                continue
            t = ctx.time(s)
            if last is None or (t is not None and last.time is not None and t > last.time):
                last = Loc(p.art.path, ln, p.art.line(ln), t)
            if t is not None and (lt is None or t > lt):
                lt = t
            k = parse_step(s)
            if k is not None and (step_loc is None or (t is not None and step_loc.time is not None and t > step_loc.time)
                                  or (step_loc.time is None and t is None and k > (step_loc.step or 0) and i <= 50)):
                step_loc = Loc(p.art.path, ln, p.art.line(ln), t, k)
        # the reader's series give the last step by line when the tail had none
        ser = ctx.series.get((p.art.path, p.tag if p.prefixed else None))
        if ser is not None:
            locs, steps = ser
            j = int(np.argmax(locs))
            ln = int(locs[j])
            if step_loc is None:
                step_loc = Loc(p.art.path, ln, p.art.line(ln), ctx.time(p.text(ln)), int(steps[j]))
        if last is not None and (best_last is None or _later(last, best_last)):
            best_last = last
        if lt is not None and (row.last_time is None or lt > row.last_time):
            row.last_time = lt
        if step_loc is not None and (last_step is None or (step_loc.step or 0) > (last_step.step or 0)):
            last_step = step_loc
        got = _samples(ctx, p, ser)
        t = np.asarray([x[1] for x in got], dtype=np.float64)
        t = t[np.isfinite(t)]
        # one writer's timestamps only go forward: a step back in file order is a late flush
        row.out_of_order = row.out_of_order or bool(len(t) > 2 and np.any(np.diff(t) < 0))
        samples += got
    row.last_line = best_last
    row.last_step = last_step
    if samples:
        samples.sort()
        arr = np.asarray(samples, dtype=np.float64)
        row.steps = arr[:, 0].astype(np.int64)
        row.times = arr[:, 1]


def _later(a: Loc, b: Loc) -> bool:
    if a.time is not None and b.time is not None:
        return a.time > b.time
    return a.time is not None and b.time is None


def _samples(ctx: _Ctx, p: Part, ser) -> list[tuple[int, float]]:
    """(step, time) at up to CHART_POINTS lines spread over the part (NaN time when the line has none)."""
    out: list[tuple[int, float]] = []
    if ser is not None:
        locs, steps = ser
        order = np.argsort(locs, kind="stable")
        idx = np.unique(np.linspace(0, len(order) - 1, min(CHART_POINTS, len(order))).astype(np.int64))
        for j in order[idx]:
            t = ctx.time(p.text(int(locs[j])))
            out.append((int(steps[j]), t if t is not None else np.nan))
        return out
    n = p.n_lines
    if n == 0:
        return out
    idx = np.unique(np.linspace(0, n - 1, min(CHART_POINTS * 3, n)).astype(np.int64))
    for i in idx:
        s = p.text(p.line_no(int(i)))
        k = parse_step(s)
        if k is None:
            continue
        t = ctx.time(s)
        out.append((k, t if t is not None else np.nan))
    return out


def _classify(msg: str) -> str:
    if _MISMATCH.search(msg):
        return "mismatch"
    if CUDA_OOM.search(msg):
        return "cuda_oom"
    if _HOST_OOM.search(msg):
        return "host_oom"
    if _TIMEOUT_TEXT.search(msg):
        return "timeout"
    if _PEER_TEXT.search(msg):
        return "peer"
    return "exception"


_VICTIM_KINDS = ("timeout", "peer", "abort")


def _scan_failures(ctx: _Ctx, rows: dict[tuple, RankRow], by_rank: dict[int, RankRow],
                   by_local: dict[tuple, RankRow], view: RankView) -> None:
    """Watchdog lines, errors, exits and worker deaths, attributed to their rank."""
    run = ctx.run
    explicit: list[tuple[int, Loc]] = []
    aborts: list[tuple[Loc, str]] = []      # C++ exceptions no rank tag claims ("terminate called ... what(): ...")
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        for ln, s in _hits(art):
            owner = _stream_of(ctx, art, ln, s)
            row = rows.get(owner[0].key) if owner else None
            body = owner[1].text(ln) if owner else s
            t = ctx.time(body) if owner else ctx.time(s)
            loc = Loc(art.path, ln, s, t)
            # --- collectives (NCCL watchdog): the rank is the line's own, or the one it names
            m = _SEQ.search(body)
            w = _NCCL_WORK.search(body)
            if m or w:
                tgt = row
                if tgt is None:
                    rm = _RANK_IN_LINE.search(body)
                    tgt = by_rank.get(int(rm.group(1))) if rm else None
                if tgt is not None:
                    if m:
                        seq = int(m.group(1))
                        if tgt.last_seq is None or seq >= tgt.last_seq:
                            tgt.last_seq, tgt.last_op, tgt.op_loc = seq, m.group(2), loc
                            tgt.numel = int(m.group(3)) if m.group(3) else tgt.numel
                    if w:
                        tgt.last_done = int(w.group(3))
                        if tgt.last_seq is None:
                            tgt.last_seq, tgt.op_loc = int(w.group(1)), loc
                    if tgt.first_error is None or (t is not None and tgt.first_error.time is not None
                                                   and t < tgt.first_error.time):
                        tgt.first_error, tgt.error_kind = loc, "timeout"
                continue
            mb = _MONITORED.search(body)
            if mb:
                for r in re.findall(r"\d+", mb.group(1)):
                    explicit.append((int(r), loc))
                continue
            # --- launchers
            lf = _LAUNCH_FAIL.search(s)
            if lf:
                code, local = int(lf.group(1)), int(lf.group(2))
                tgt = by_local.get((_node_of(art, ctx), local)) or by_local.get(("", local))
                if tgt is None and len({r.stream.node for r in rows.values()}) <= 1:
                    tgt = by_rank.get(local)
                if tgt is not None and tgt.exit_code is None:
                    tgt.exit_code, tgt.signal, tgt.exit_loc = code, signal_of_exit(code), loc
                    _signal_error(tgt)
                continue
            se = _SRUN_ERR.search(s)
            if se:
                what = se.group(3)
                for r in _expand(se.group(2)):
                    tgt = by_rank.get(r)
                    if tgt is None:
                        continue
                    code = None
                    mc = re.search(r"exit code (-?\d+)", what)
                    if mc:
                        code = int(mc.group(1))
                    sig = "SIGKILL" if re.search(r"Killed|Out Of Memory", what) else ("SIGSEGV" if "Segmentation" in what else None)
                    if tgt.exit_loc is None:
                        tgt.exit_code, tgt.signal, tgt.exit_loc = code, sig or signal_of_exit(code), loc
                        if "Out Of Memory" in what:
                            _set_error(tgt, loc, "host_oom")
                        else:
                            _signal_error(tgt)
                continue
            sp = _SPAWN.search(s)
            if sp and owner is None:
                tgt = by_rank.get(int(sp.group(1)))
                if tgt is not None and tgt.exit_loc is None:
                    code = int(sp.group(2)) if sp.group(2) else None
                    tgt.exit_code, tgt.signal, tgt.exit_loc = code, sp.group(3) or signal_of_exit(code), loc
                    _signal_error(tgt)
                continue
            if owner is None and "what():" in s:
                aborts.append((loc, _classify(s)))
                continue
            # --- DataLoader workers
            wk = _worker_event(body, loc, row)
            if wk is not None:
                view.workers.append(wk)
                if row is not None and wk.kind in ("killed", "exited", "timeout"):
                    _set_error(row, loc, "host_oom" if wk.signal == "Killed" else "exception")
                continue
            if row is None:
                continue
            # --- the rank's own exit and errors
            ec = _EXIT_CODE.search(body)
            if ec and row.exit_loc is None:
                code = int(ec.group(1))
                row.exit_code, row.signal, row.exit_loc = code, signal_of_exit(code), loc
                if code in (137, -9):
                    _set_error(row, loc, "host_oom")
                continue
            if _KILLED_LINE.search(body) and "signal" not in body:
                if row.exit_loc is None:
                    row.exit_code, row.signal, row.exit_loc = None, "SIGKILL", loc
                _set_error(row, loc, "host_oom")
                continue
            if _ERROR_LINE.search(body):
                kind = _classify(body)
                if kind == "exception" and not re.search(r"\b[A-Z]\w*(?:Error|Exception)\b:|Segmentation fault|core dumped"
                                                         r"|Fatal Python error", body):
                    kind = "log_error"      # only a level word (log.exception's line): the traceback after it says more
                _set_error(row, loc, kind)
    _torchrun_tables(ctx, by_rank, rows)
    _tracebacks(ctx, rows)
    # a C++ exception printed without a rank tag belongs to the one rank that ended with SIGABRT
    aborted = [r for r in rows.values() if r.signal == "SIGABRT"]
    if aborts and len(aborted) == 1:
        loc, kind = aborts[0]
        _set_error(aborted[0], loc, kind if kind != "timeout" else "timeout")
    for r in rows.values():
        if r.error_kind == "log_error":
            r.error_kind = "exception"
    for r, loc in explicit:
        tgt = by_rank.get(r)
        if tgt is not None:
            tgt.role, tgt.why = "culprit", f"named by monitoredBarrier ({loc.source}:{loc.line})"


def _node_of(art: TextArtifact, ctx: _Ctx) -> str:
    c = ctx.by_art.get(art.path)
    return (c[0][0].node or "") if c else ""


def _expand(s: str) -> list[int]:
    out: list[int] = []
    for part in s.replace(" ", "").split(","):
        if "-" in part:
            a, _, b = part.partition("-")
            if a.isdigit() and b.isdigit() and int(b) - int(a) < MAX_RANKS:
                out += range(int(a), int(b) + 1)
        elif part.isdigit():
            out.append(int(part))
    return out


def _set_error(row: RankRow, loc: Loc, kind: str) -> None:
    """Keep the first error (by time when both have one, else by order seen); a crash of the rank's
    own outranks a later timeout line in the same place."""
    fe = row.first_error
    if fe is None:
        row.first_error, row.error_kind = loc, kind
        return
    if row.error_kind == "log_error" and fe.source == loc.source and 0 < loc.line - fe.line <= 80:
        row.first_error, row.error_kind = loc, kind    # the traceback a log.exception line announced
        if loc.time is None:
            loc.time = fe.time
        return
    if loc.time is not None and fe.time is not None:
        if loc.time < fe.time or (loc.time == fe.time and row.error_kind in _VICTIM_KINDS and kind not in _VICTIM_KINDS):
            row.first_error, row.error_kind = loc, kind
    elif row.error_kind == "exception" and kind in ("cuda_oom", "host_oom") and loc.source == fe.source:
        row.error_kind = kind


def _worker_event(body: str, loc: Loc, row: RankRow | None) -> WorkerEvent | None:
    label = row.label if row is not None else "the main process"
    step = row.last_step.step if row is not None and row.last_step is not None else None
    m = _WORKER_KILLED.search(body)
    if m:
        return WorkerEvent(label, "killed", loc, pid=int(m.group(1)), signal=m.group(2).strip(), step=step)
    m = _WORKER_EXITED.search(body)
    if m:
        pids = [int(x) for x in re.findall(r"\d+", m.group(1))]
        return WorkerEvent(label, "exited", loc, pid=pids[0] if pids else None, step=step)
    m = _WORKER_TIMEOUT.search(body)
    if m:
        return WorkerEvent(label, "timeout", loc, step=step)
    m = _WORKER_EXC.search(body)
    if m:
        return WorkerEvent(label, "exception", loc, worker=int(m.group(2)), exc_type=m.group(1), step=step)
    return None


def _torchrun_tables(ctx: _Ctx, by_rank: dict[int, RankRow], rows: dict[tuple, RankRow]) -> None:
    """Exit codes and signals from torchrun's ChildFailedError table (every entry, not just the root cause)."""
    for tb in ctx.run.tracebacks:
        if not tb.exc_type.endswith("ChildFailedError"):
            continue
        art = ctx.run.text(tb.source)
        if art is None:
            continue
        if tb.line >= len(art.line_starts):
            continue
        a = int(art.line_starts[tb.line])          # the line after the exception line
        block = art.text[a: a + 200_000]
        end = block.find("\n" + "=" * 20, 100)
        block = block[: end if end > 0 else len(block)]
        for chunk in _CF_ENTRY.split(block)[1:]:
            f = dict(_CF_FIELD.findall(chunk))
            mr = re.match(r"(-?\d+)", f.get("rank", ""))
            me = re.match(r"(-?\d+)", f.get("exitcode", ""))
            if not mr or not me:
                continue
            tgt = by_rank.get(int(mr.group(1)))
            if tgt is None or tgt.exit_loc is not None:
                continue
            code = int(me.group(1))
            off = block.find(chunk)
            ln = tb.line + 1 + block.count("\n", 0, off + chunk.find("exitcode"))
            sig = re.search(r"Signal \d+ \((\w+)\)", f.get("traceback", ""))
            tgt.exit_code = code
            tgt.signal = sig.group(1) if sig else signal_of_exit(code)
            tgt.exit_loc = Loc(art.path, ln, art.line(ln), ctx.time(f.get("time", "").replace("_", " ")))
            _signal_error(tgt)


def _signal_error(row: RankRow) -> None:
    """A rank ended by a signal of its own (not the launcher's SIGTERM or the watchdog's SIGABRT) failed
    itself: SIGKILL is the OOM killer's, usually; SIGSEGV/SIGBUS/SIGFPE/SIGILL are crashes."""
    if row.exit_loc is None or row.signal in (None, "SIGTERM", "SIGABRT", "SIGINT", "SIGHUP", "SIGPIPE"):
        return
    _set_error(row, row.exit_loc, "host_oom" if row.signal == "SIGKILL" else "exception")


def _tracebacks(ctx: _Ctx, rows: dict[tuple, RankRow]) -> None:
    """Each rank's first traceback (by the rank tag on its lines, or by the file it is in)."""
    for tb in ctx.run.tracebacks:
        if tb.exc_type.endswith("ChildFailedError"):
            continue
        art = ctx.run.text(tb.source)
        if art is None:
            continue
        owner = None
        for st, p in ctx.by_art.get(tb.source, []):
            if p.lines is None:
                owner = st
                break
            i = int(np.searchsorted(p.lines, tb.line))
            if i < len(p.lines) and p.lines[i] == tb.line:
                owner = st
                break
        if owner is None and tb.rank is not None and tb.source not in ctx.by_art:
            # a launcher's copy (mp.spawn's "Process 2 terminated with the following error")
            owner = next((st.stream for st in rows.values() if st.rank == tb.rank), None)
        if owner is None:
            continue
        row = rows[owner.key]
        msg = f"{tb.exc_type}: {tb.message}"
        kind = _classify(msg)
        # the time of a traceback: its own line's, else the rank's last timed line before it
        text = art.line(tb.line)
        t = ctx.time(_strip_prefix(text))
        if t is None:
            t = _time_before(ctx, art, tb.start_line, row)
        _set_error(row, Loc(art.path, tb.line, text, t), kind)


def _time_before(ctx: _Ctx, art: TextArtifact, line: int, row: RankRow) -> float | None:
    """The time of the nearest timed line before `line` in this rank's part of `art`."""
    for p in row.stream.parts:
        if p.art is not art:
            continue
        if p.lines is None:
            cands = range(line - 1, max(0, line - 60), -1)
        else:
            i = int(np.searchsorted(p.lines, line))
            cands = [int(x) for x in p.lines[max(0, i - 60): i][::-1]]
        for ln in cands:
            t = ctx.time(p.text(ln))
            if t is not None:
                return t
    return None


# ----------------------------------------------------------------------------- clocks

def _clocks(view: RankView) -> None:
    """Per-rank clock offsets from the times at which ranks logged the same steps.

    Ranks of one job pass every step within a collective of each other, so the same step logged at
    times that differ by a steady offset means their clocks differ. Offsets are measured against the
    lowest rank with times; a rank whose offset is above CLOCK_SKEW_S and steady (its spread is small
    next to it) is corrected, and the notes say by how much.
    """
    timed = [r for r in view.rows if len(r.times) and np.isfinite(r.times).sum() >= 3]
    if len(timed) < 2:
        return
    ref = min(timed, key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0))
    ref_steps, ref_times = _step_time(ref)
    for r in timed:
        if r is ref:
            continue
        steps, times = _step_time(r)
        common, ia, ib = np.intersect1d(ref_steps, steps, return_indices=True)
        if len(common) < 3:
            continue
        d = times[ib] - ref_times[ia]
        off = float(np.median(d))
        spread = float(np.median(np.abs(d - off)))
        if abs(off) > CLOCK_SKEW_S and spread < 0.25 * abs(off):
            r.clock_offset = off
            view.clock_skew[r.label] = off
    if view.clock_skew:
        groups: dict[float, list[RankRow]] = {}
        for r in view.rows:
            if r.label in view.clock_skew:
                groups.setdefault(round(r.clock_offset), []).append(r)
        parts = []
        for off, rs in sorted(groups.items()):
            ranks = [x.rank for x in rs if x.rank is not None]
            who = f"ranks {fmt_ranks(ranks)}" if len(ranks) > 1 else rs[0].label
            parts.append(f"{who} {'ahead' if off > 0 else 'behind'} by {fmt_gap(off)}")
        view.notes.append(f"clocks differ between ranks ({'; '.join(parts)} of {ref.label}, from the times the same "
                          "steps were logged); times are compared after correcting for it")
        for r in view.rows:
            if r.clock_offset:
                for loc in (r.last_step, r.last_line, r.first_error, r.exit_loc, r.op_loc):
                    if loc is not None and loc.time is not None:
                        loc.time -= r.clock_offset
                if r.last_time is not None:
                    r.last_time -= r.clock_offset
                r.times = r.times - r.clock_offset


def _step_time(r: RankRow) -> tuple[np.ndarray, np.ndarray]:
    fin = np.isfinite(r.times)
    steps, times = r.steps[fin], r.times[fin]
    u, idx = np.unique(steps, return_index=True)
    return u, times[idx]


# ----------------------------------------------------------------------------- culprit and victims

def _judge(view: RankView) -> None:
    rows = view.rows
    named = [r for r in rows if r.role == "culprit"]
    for r in rows:
        if r.role != "culprit":
            # a launcher's SIGTERM (or the watchdog's SIGABRT) alone says nothing: every rank gets one
            r.role = "victim" if r.error_kind in _VICTIM_KINDS else ("unknown" if r.error_kind is None else "failed")
    culprit: RankRow | None = named[0] if named else None
    reason = "named by monitoredBarrier" if culprit else ""
    failed = [r for r in rows if r.role == "failed" and r is not culprit]
    if culprit is None and failed:
        timed = [r for r in failed if r.first_error is not None and r.first_error.time is not None]
        culprit = min(timed, key=lambda r: r.first_error.time) if timed else failed[0]
        reason = "crashed first" if len(failed) > 1 else "crashed"
        if len(failed) > 1 and len(timed) > 1:
            ts = sorted(r.first_error.time for r in timed)
            if ts[1] - ts[0] < UNCERTAIN_GAP_S and not view.clock_skew and len({r.stream.node for r in timed}) > 1:
                view.ordering_uncertain = True
    if culprit is None:
        culprit, reason = _seq_lag(view, rows)
    if culprit is None:
        culprit, reason = _progress_lag(view, rows)
    if culprit is None and view.missing and any(r.role == "victim" for r in rows):
        view.notes.append(f"no rank's own log shows the first failure; the missing log of rank(s) "
                          f"{fmt_ranks(view.missing)} may hold it")
    if culprit is not None:
        culprit.role = "culprit"
        culprit.why = culprit.why or reason
    for r in rows:
        if r.role == "failed":
            r.role = "victim" if culprit is not None and r is not culprit and _after(r, culprit) else "failed"
        if r.role == "unknown" and culprit is not None and r is not culprit and (r.exit_loc is not None or r.signal):
            r.role = "victim"
    view.culprit = culprit
    view.reason = reason
    view.victims = [r for r in rows if r.role == "victim"]
    view.rows = sorted(rows, key=lambda r: ({"culprit": 0, "failed": 1, "victim": 2}.get(r.role, 3),
                                            r.rank if r.rank is not None else 10**9, r.stream.key))


def _after(r: RankRow, c: RankRow) -> bool:
    a, b = r.first_error, c.first_error
    if a is None or b is None or a.time is None or b.time is None:
        return r.error_kind in _VICTIM_KINDS
    return a.time >= b.time


def _seq_lag(view: RankView, rows: list[RankRow]) -> tuple[RankRow | None, str]:
    """The rank the others wait for, from the NCCL watchdog's SeqNums: the one whose collective lags,
    the one no watchdog fired on while it fired on all the others, or the odd one out of a collective
    whose sizes differ."""
    with_seq = [r for r in rows if r.last_seq is not None]
    if len(with_seq) < 2 and not (with_seq and len(rows) >= 2):
        return None, ""
    if not with_seq:
        return None, ""
    top = max(r.last_seq for r in with_seq)
    low = [r for r in with_seq if r.last_seq < top]
    if low and len(low) < len(with_seq):
        c = min(low, key=lambda r: (r.last_seq, r.rank or 0))
        return c, f"its collective lags: {c.last_op or 'op'} SeqNum {c.last_seq} vs {top} on the others"
    silent = [r for r in rows if r.last_seq is None and r.error_kind not in _VICTIM_KINDS]
    if len(with_seq) >= 2 and len(silent) == 1:
        c = silent[0]
        return c, f"no watchdog line: it never entered collective SeqNum {top} that the others timed out in"
    same = [r for r in with_seq if r.last_seq == top and r.numel is not None]
    sizes: dict[tuple, list[RankRow]] = {}
    for r in same:
        sizes.setdefault((r.last_op, r.numel), []).append(r)
    if len(sizes) >= 2:
        odd = min(sizes.values(), key=len)
        if len(odd) == 1 and len(same) >= 3:
            c = odd[0]
            major = max(sizes, key=lambda k: len(sizes[k]))
            return c, (f"a different collective at the same SeqNum {top}: {c.last_op} of {c.numel} elements vs "
                       f"{major[0]} of {major[1]} on the others")
        view.desync = sorted(sizes.values(), key=lambda g: min(r.rank or 0 for r in g))
    return None, ""


def _progress_lag(view: RankView, rows: list[RankRow]) -> tuple[RankRow | None, str]:
    """A rank that stopped before the others: a lower last step, or its last line long before theirs."""
    stepped = [r for r in rows if r.last_step is not None and r.last_step.step is not None]
    waiting = [r for r in rows if r.role == "victim"]
    if len(stepped) >= 2:
        top = max(r.last_step.step for r in stepped)
        low = [r for r in stepped if r.last_step.step < top]
        if low and len(low) <= max(1, len(stepped) // 2):
            c = min(low, key=lambda r: (r.last_step.step, r.rank or 0))
            if waiting or len(low) == 1:
                return c, f"stopped at step {c.last_step.step} while others reached {top}"
    if waiting:
        quiet = [r for r in rows if r.role in ("unknown", "ok") and r.first_error is None]
        if len(quiet) == 1 and not view.missing:     # with a log missing, the missing rank may be the quiet one
            c = quiet[0]
            return c, "the only rank with no timeout or error: the others waited for it"
        # several ranks without an error (the launcher stopped some before their timeout): the one whose
        # last step is not where the waiting ranks stopped never joined their collective
        vsteps = [r.last_step.step for r in waiting if r.last_step is not None]
        if len(quiet) > 1 and vsteps:
            where = max(set(vsteps), key=vsteps.count)
            odd = [r for r in quiet if r.last_step is not None and r.last_step.step != where]
            if len(odd) == 1:
                c = odd[0]
                return c, (f"its last step ({c.last_step.step}) is not where the waiting ranks stopped ({where}): "
                           "they waited in a collective it never joined")
        # every rank errored, but one only found its peers gone after they had timed out waiting for it
        peers = [r for r in waiting if r.error_kind == "peer"]
        timeouts = [r for r in waiting if r.error_kind == "timeout" and r.first_error.time is not None]
        if len(peers) == 1 and timeouts and len(peers) + len(timeouts) == len(waiting) and \
                peers[0].first_error.time is not None and peers[0].first_error.time > max(t.first_error.time for t in timeouts):
            return peers[0], "the others timed out waiting for it; it found them gone only afterwards"
    return None, ""


def _sentence(view: RankView) -> str:
    """'rank 5 stopped at step 1200 at 10:41:07, 9 min before the watchdog fired on ranks 0-4 and 6-7,
    last op ALLREDUCE SeqNum 8812 vs 8813'."""
    c = view.culprit
    if c is None:
        if view.desync:
            top = view.desync[0][0].last_seq
            groups = [f"ranks {fmt_ranks([r.rank for r in g if r.rank is not None])} in {g[0].last_op} of {g[0].numel} "
                      f"element{'s' if g[0].numel != 1 else ''}" for g in view.desync]
            return f"the ranks ran different collectives at the same SeqNum {top}: {'; '.join(groups)}"
        return ""
    parts = []
    if c.error_kind in ("cuda_oom", "host_oom", "exception", "mismatch") and c.first_error is not None:
        what = {"cuda_oom": "ran out of GPU memory", "host_oom": "ran out of host memory",
                "exception": "crashed", "mismatch": "aborted on a collective mismatch (its peers sent a different "
                                                    "collective)"}[c.error_kind]
        if c.error_kind == "host_oom" and c.signal == "SIGKILL" and not _HOST_OOM.search(c.first_error.text):
            what = f"was killed (SIGKILL{f', exit {c.exit_code}' if c.exit_code is not None else ''})"
        at = c.first_error
        step = c.last_step.step if c.last_step else None
        parts.append(f"{c.label} {what}" + (f" at step {step}" if step is not None else "")
                     + (f" at {fmt_time(at.time)}" if at.time is not None else ""))
    else:
        at = c.last_step or c.last_line
        step = c.last_step.step if c.last_step else None
        parts.append(f"{c.label} stopped" + (f" at step {step}" if step is not None else "")
                     + (f" at {fmt_time(at.time)}" if at is not None and at.time is not None else ""))
    vict = [v for v in view.victims if v.first_error is not None]
    if vict:
        ranks = [v.rank for v in vict if v.rank is not None]
        first_v = min((v.first_error.time for v in vict if v.first_error.time is not None), default=None)
        who = f"ranks {fmt_ranks(ranks)}" if len(ranks) > 1 else (vict[0].label if vict else "")
        waited = "timed out waiting" if all(v.error_kind == "timeout" for v in vict) else \
            ("lost their peer" if all(v.error_kind == "peer" for v in vict) else "timed out waiting or lost their peer")
        kind = f"the watchdog fired on {who}" if any(v.last_seq is not None for v in vict) else f"{who} {waited}"
        if first_v is not None and at is not None and at.time is not None:
            gap = first_v - at.time
            parts.append(f"{fmt_gap(gap)} {'before' if gap >= 0 else 'after'} {kind}")
        else:
            parts.append(f"then {kind}")
    if c.last_seq is not None or any(v.last_seq is not None for v in view.victims):
        vs = max((v.last_seq for v in view.victims if v.last_seq is not None), default=None)
        op = c.last_op or next((v.last_op for v in view.victims if v.last_op), None) or "collective"
        if c.last_seq is not None and vs is not None and vs != c.last_seq:
            parts.append(f"last op {op} SeqNum {c.last_seq} vs {vs}")
        elif vs is not None and c.last_seq is None:
            parts.append(f"the others wait in {op} SeqNum {vs}")
    s = ", ".join(parts)
    if view.reason.startswith(("a different collective", "no watchdog line")):
        s += f"; {view.reason}"
    if view.ordering_uncertain:
        s += " (ordering uncertain: the ranks are on different nodes and the gap is within clock error)"
    return s


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
    ctx = _Ctx(run, streams)
    rows = {s.key: RankRow(s) for s in streams}
    by_rank = {r.rank: r for r in rows.values() if r.rank is not None}
    by_local = {(r.stream.node or "", r.stream.local_rank): r for r in rows.values() if r.stream.local_rank is not None}
    view = RankView(rows=list(rows.values()), layout=layout, notes=notes)
    for row in rows.values():
        _fill_row(ctx, row)
    _world(run, view, by_rank)
    _scan_failures(ctx, rows, by_rank, by_local, view)
    _clocks(view)
    _judge(view)
    _worker_batches(ctx, view)
    view.sentence = _sentence(view)
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


_WORLD = re.compile(r"(?i)\bworld[_ ]?size\s*[:=]?\s*(\d{1,6})\b|--nproc[_-]per[_-]node[= ](\d{1,5})")


def _world(run: Run, view: RankView, by_rank: dict[int, RankRow]) -> None:
    """The expected ranks (world size from the logs, else the highest rank seen + 1) and which have no log."""
    ranks = sorted(by_rank)
    world = None
    for art in run.texts[:200]:
        for lit in ("world_size", "WORLD_SIZE", "world size", "World size", "--nproc"):
            i = art.text.find(lit, 0, 200_000)
            m = _WORLD.search(art.text, max(0, i - 2), i + 80) if i >= 0 else None
            if m:
                world = int(m.group(1) or m.group(2))
                break
        if world is not None:
            break
    if ranks:
        seen_max = ranks[-1] + 1
        if world is None or world < seen_max or world > MAX_RANKS * 4:
            world = seen_max
    view.world_size = world
    if world is not None and len(ranks) < world <= MAX_RANKS:
        have = set(ranks)
        view.missing = [r for r in range(world) if r not in have]
        if view.missing:
            what = "log file" if view.layout == "files" else "line"
            view.notes.append(f"no {what} from rank{'s' if len(view.missing) > 1 else ''} {fmt_ranks(view.missing)} "
                              f"(ranks 0-{world - 1} expected); what it did is unknown")


def _worker_batches(ctx: _Ctx, view: RankView) -> None:
    """The batch a dead worker held: a batch/index number on one of the 30 lines before, in its rank's lines."""
    for w in view.workers:
        art = ctx.run.text(w.loc.source)
        if art is None:
            continue
        for ln in range(w.loc.line - 1, max(0, w.loc.line - 30), -1):
            m = _BATCH.search(art.line(ln))
            if m:
                w.batch = int(m.group(1))
                break
        if w.loc.time is None:
            w.loc.time = ctx.time(_strip_prefix(art.line(w.loc.line)))


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


# ----------------------------------------------------------------------------- signals

def rank_signals(run: Run) -> list[Signal]:
    """`ranks:*` signals from the cross-rank view (none for a single-process run)."""
    view = cross_rank(run)
    if view is None:
        return []
    for n in view.notes:
        run.warnings.append(f"(ranks) {n}")
    out: list[Signal] = []
    c = view.culprit
    table = [r.to_json() for r in view.rows[:64]]
    if c is not None:
        ev = _culprit_evidence(view)
        data = {"rank": c.rank, "label": c.label, "reason": view.reason, "role_counts": _counts(view),
                "victims": [v.rank for v in view.victims if v.rank is not None],
                "step": c.last_step.step if c.last_step else None, "last_op": c.last_op, "last_seq": c.last_seq,
                "exit_code": c.exit_code, "signal": c.signal, "ordering_uncertain": view.ordering_uncertain,
                "missing": view.missing, "rows": table}
        strength = 0.6 if view.ordering_uncertain else 0.9
        kind = {"cuda_oom": "ranks:culprit_cuda_oom", "host_oom": "ranks:culprit_host_oom",
                "exception": "ranks:culprit_exception", "mismatch": "ranks:collective_mismatch"}.get(c.error_kind or "")
        if kind is None:
            kind = "ranks:collective_mismatch" if view.reason.startswith(("its collective lags", "a different collective",
                                                                          "no watchdog line")) else "ranks:stalled"
            if kind == "ranks:stalled" and not view.victims:
                strength = 0.5
        if ev:
            out.append(Signal(kind, strength, view.sentence, ev, data))
    elif view.desync:
        ev = [g[0].op_loc.evidence(f"ranks {fmt_ranks([r.rank for r in g if r.rank is not None])} wait in "
                                   f"{g[0].last_op} SeqNum {g[0].last_seq}") for g in view.desync[:3] if g[0].op_loc]
        if ev:
            out.append(Signal("ranks:collective_mismatch", 0.8, view.sentence, ev,
                              {"groups": [[r.rank for r in g] for g in view.desync], "rows": table}))
    elif view.victims:
        ev = [v.first_error.evidence(f"{v.label} timed out waiting ({v.error_kind})") for v in view.victims[:3]
              if v.first_error is not None]
        ranks = [v.rank for v in view.victims if v.rank is not None]
        words = f"ranks {fmt_ranks(ranks)} timed out waiting and no rank's log shows why"
        if view.missing:
            words += f"; the log of rank(s) {fmt_ranks(view.missing)} is missing"
        if ev:
            out.append(Signal("ranks:all_timed_out", 0.6, words, ev,
                              {"victims": ranks, "missing": view.missing, "rows": table}))
    for kind, ws in (("ranks:worker_killed", [w for w in view.workers if w.kind in ("killed", "exited")]),
                     ("ranks:worker_hang", [w for w in view.workers if w.kind == "timeout"])):
        if ws:
            ev = [w.loc.evidence(w.words()) for w in ws[:3]]
            first = ws[0]
            more = f" ({len(ws)} workers)" if len(ws) > 1 else ""
            out.append(Signal(kind, 0.7 if kind == "ranks:worker_killed" else 0.6, first.words() + more, ev,
                              {"signal": first.signal, "pid": first.pid, "rank": first.rank_label, "step": first.step,
                               "batch": first.batch, "count": len(ws)}))
    return out


def _counts(view: RankView) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in view.rows:
        out[r.role] = out.get(r.role, 0) + 1
    return out


def _culprit_evidence(view: RankView) -> list[Evidence]:
    c = view.culprit
    ev: list[Evidence] = []
    first = c.first_error if c.error_kind in ("cuda_oom", "host_oom", "exception", "mismatch") else None
    main = first or c.last_step or c.last_line
    if main is not None:
        ev.append(main.evidence(view.sentence))
    if c.exit_loc is not None and c.exit_loc is not main and (c.exit_code is not None or c.signal):
        ev.append(c.exit_loc.evidence(f"{c.label} exit code {c.exit_code if c.exit_code is not None else '?'}"
                                      + (f" ({c.signal})" if c.signal else "")))
    if c.op_loc is not None and c.op_loc is not main:
        ev.append(c.op_loc.evidence(f"{c.label}'s last collective: {c.last_op or '?'} SeqNum {c.last_seq}"))
    for v in view.victims[:2]:
        loc = v.op_loc or v.first_error
        if loc is not None:
            what = f"{v.label} timed out waiting" + (f" in {v.last_op} SeqNum {v.last_seq}" if v.last_seq is not None else "")
            ev.append(loc.evidence(what + (f" at {fmt_time(loc.time)}" if loc.time is not None else "")))
    return ev
