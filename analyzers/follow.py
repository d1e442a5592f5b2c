"""Follow a running job's files and report findings as the points arrive (`mltdbg watch`'s core).

In:  paths (files, or folders scanned for logs, JSONL, CSV and TensorBoard event files each poll).
Out: `Follower.poll()` -> a list of `Finding` (kind, metric, step, value, source, line, message)
     and `Notice` (a file truncated, rotated, gone, unreadable, a log growing faster than it is read).
Pure: no terminal, no printing, no sleeping; the caller decides when to poll (app/watch_cli.py, and the
TUI's live follower app/widgets/live.py, which also takes the new points: `keep_points=True` -> `.points`).

Cost of an append is independent of the file's size:
  - per file: its inode and the offset read so far; only bytes past the offset are read (at most
    READ_BYTES a poll), the last partial line is held back (at most MAX_PARTIAL bytes);
  - text logs: the appended whole lines, with up to CONTEXT_LINES lines before them, go through the
    log reader's own scanner (readers.textlog.assemble.LogMetrics: a key is a metric once it repeats,
    a step may be printed on the line before); only points on lines not yet reported are kept;
  - JSONL: readers.tabular's lenient line decoder and record columns; CSV (Lightning's CSVLogger
    rewrites the whole file when a column appears: the header is compared each poll, rows already
    seen are skipped); TensorBoard: whole records from the last whole-record offset
    (readers.tensorboard's header check and event parser);
  - findings: `Detector` keeps O(1) state per series (exponentially weighted mean and variance for
    spikes, an EMA and its running minimum for divergence, a flag for the first non-finite value).
"""
from __future__ import annotations

import math
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from mltdbg.analyzers.curves import DIVERGENCE_RISE, SPIKE_RATIO, SPIKE_Z
from mltdbg.analyzers.model import Run, value_for_json
from mltdbg.analyzers.names import normalize
from mltdbg.analyzers.readers import tabular, tensorboard
from mltdbg.analyzers.readers.textlog.assemble import LogMetrics

# Bytes read from one file in one poll: memory stays bounded when a log grows faster than it is read.
READ_BYTES = 4 * 1024 * 1024
# Unread bytes above this: the follower jumps to the last SKIP_TO_TAIL bytes (lines counted, not parsed).
MAX_LAG_BYTES = 256 * 1024 * 1024
SKIP_TO_TAIL = 1024 * 1024
# A partial last line longer than this is dropped (a binary file or a runaway progress bar).
MAX_PARTIAL = 1024 * 1024
# Lines before the appended ones that the text scanner sees again (its vocabulary needs a key to
# repeat, and a step may sit on an earlier line): 64 lines or 64 KB, whichever is less.
CONTEXT_LINES = 64
CONTEXT_BYTES = 64 * 1024
# The first points of a series set its level; no spike is called before this many finite points.
WARMUP_POINTS = 20
# Weight of a new point in the running mean/variance of the spike test (~1/alpha points of memory).
SPIKE_ALPHA = 0.05
# Points after a spike during which no other spike of that series is reported.
SPIKE_COOLDOWN = 50
# Smoothing of the loss for the divergence test, and how many points the rise must hold.
EMA_ALPHA = 0.1
DIVERGE_HOLD = 10
# The smoothed loss must first have fallen this much from its start (curves.py: "fell > 0.05").
DIVERGE_FELL = 0.05

_SPIKY = re.compile(r"loss|grad|norm|ppl|perplex", re.I)
_LOSS = re.compile(r"loss", re.I)
_HELDOUT = re.compile(r"^(val|valid|eval|test)", re.I)
_FOLLOWED_SUFFIXES = (".log", ".txt", ".out", ".err", ".jsonl", ".csv")


@dataclass
class Finding:
    kind: str                 # "nonfinite", "spike", "divergence", "stalled"
    metric: str | None
    step: int | None
    value: float | None
    source: str
    line: int | None
    message: str

    def to_json(self) -> dict:
        return {"kind": self.kind, "metric": self.metric, "step": self.step,
                "value": None if self.value is None else value_for_json(self.value),
                "source": self.source, "line": self.line, "message": self.message}

    def text(self) -> str:
        where = self.source + (f":{self.line}" if self.line else "")
        step = f" step {self.step}" if self.step is not None else ""
        return f"{self.kind}: {self.message}  [{where}{step}]"


@dataclass
class Notice:
    source: str
    message: str

    def to_json(self) -> dict:
        return {"kind": "notice", "source": self.source, "message": self.message}

    def text(self) -> str:
        return f"{self.source}: {self.message}"


def _fmt(v: float) -> str:
    return f"{v:.4g}"


@dataclass
class Detector:
    """Findings for one series, fed a point at a time; O(1) state."""

    metric: str
    source: str
    n: int = 0                 # finite points seen
    mean: float = 0.0
    var: float = 0.0
    m2: float = 0.0
    cooldown: int = 0
    nonfinite: bool = False
    ema: float | None = None
    ema_start: float | None = None
    ema_min: float = math.inf
    above: int = 0
    diverged: bool = False
    last_step: int | None = None   # the last step fed (a file rewritten from a lower step is a new run)
    spiky: bool = field(default=False, init=False)
    lossy: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        self.spiky = bool(_SPIKY.search(self.metric))
        self.lossy = bool(_LOSS.search(self.metric)) and not _HELDOUT.search(self.metric)

    def feed(self, step: int | None, v: float, line: int | None) -> list[Finding]:
        out: list[Finding] = []
        if step is not None:
            self.last_step = step
        if not math.isfinite(v):
            if not self.nonfinite:
                self.nonfinite = True
                out.append(Finding("nonfinite", self.metric, step, v, self.source, line,
                                   f"{self.metric} became {value_for_json(v)} (first non-finite value)"))
            return out
        self.n += 1
        x = v                                  # the value the smoothed loss sees (a spike clipped)
        if self.spiky:
            if self.n <= WARMUP_POINTS:        # plain mean and variance (Welford) while warming up
                d = v - self.mean
                self.mean += d / self.n
                self.m2 += d * (v - self.mean)
                self.var = self.m2 / self.n
            else:
                sd = math.sqrt(self.var)
                z = (v - self.mean) / sd if sd > 0 else 0.0
                if self.cooldown:
                    self.cooldown -= 1
                elif z > SPIKE_Z and v > SPIKE_RATIO * abs(self.mean) + 1e-12:
                    self.cooldown = SPIKE_COOLDOWN
                    out.append(Finding("spike", self.metric, step, v, self.source, line,
                                       f"{self.metric} jumped to {_fmt(v)} ({z:.0f} sigma above its "
                                       f"running mean {_fmt(self.mean)})"))
                # a spike enters the running statistics clipped, so one outlier does not mask the next
                x = min(v, self.mean + SPIKE_Z * sd) if sd > 0 else v
                d = x - self.mean
                self.mean += SPIKE_ALPHA * d
                self.var = (1 - SPIKE_ALPHA) * (self.var + SPIKE_ALPHA * d * d)
        if self.lossy:
            self.ema = x if self.ema is None else self.ema + EMA_ALPHA * (x - self.ema)
            if self.ema_start is None:
                self.ema_start = v
            self.ema_min = min(self.ema_min, self.ema)
            lo = self.ema_min
            rise = (self.ema - lo) / (abs(lo) + 1e-8)
            fell = (self.ema_start - lo) / (abs(self.ema_start) + 1e-8)
            if rise > DIVERGENCE_RISE and fell > DIVERGE_FELL:
                self.above += 1
                if self.above >= DIVERGE_HOLD and not self.diverged:
                    self.diverged = True
                    out.append(Finding("divergence", self.metric, step, v, self.source, line,
                                       f"{self.metric} (smoothed) rose {rise * 100:.0f}% above its minimum "
                                       f"{_fmt(lo)} and stayed there for {self.above} points"))
            else:
                self.above = 0
                if rise < DIVERGENCE_RISE / 2:
                    self.diverged = False
        return out


def _new_run(det: Detector, step: int | None, how: str) -> bool:
    """Whether a series' first point after its file was rewritten starts a new run, whose points the
    old running mean, minimum and first-NaN flag say nothing about: its step is not past the last one
    seen (a job relaunched into the same file with `>`), or, with no steps, the file was truncated
    in place. A rotated log whose steps go on (logrotate) keeps its statistics."""
    if step is not None and det.last_step is not None:
        return step <= det.last_step
    return how == "truncated"


def file_kind(path: Path) -> str | None:
    """How a file is followed: "tb", "jsonl", "csv", "log"; None for files a folder scan skips."""
    name = path.name
    if "tfevents" in name:
        return "tb"
    suf = path.suffix.lower()
    if suf == ".jsonl":
        return "jsonl"
    if suf == ".csv":
        return "csv"
    if suf in _FOLLOWED_SUFFIXES:
        return "log"
    return None


# A point: (series key, metric name, step or None, value, 1-based line or None)
Point = tuple


class FileFollower:
    """One file: offset, inode, held-back partial line, a few lines of context; yields new points."""

    def __init__(self, path: Path, rel: str, kind: str, start_at_end: bool = False):
        self.path, self.rel, self.kind = path, rel, kind
        self.ino: int | None = None
        self.offset = 0
        self.line = 0                 # whole lines consumed before `offset`
        self.partial = b""
        self.ctx: list[bytes] = []    # the last whole lines (text logs)
        self.ctx_bytes = 0
        self.last_line: dict = {}     # series key -> last line reported
        self.header: bytes | None = None   # CSV header line (with its newline)
        self.cols: list[str] = []
        self.rows = 0                 # CSV data rows consumed
        self.skip_rows = 0            # rows already seen before a rewrite
        self.tb_index = 0
        self.broken = False
        self.start_at_end = start_at_end
        self.missing = False
        self.restarted: str | None = None   # "truncated" or "rotated" since the last poll: maybe a new run

    # ------------------------------------------------------------ bytes
    def _reset(self) -> None:
        self.offset = self.line = 0
        self.partial = b""
        self.ctx, self.ctx_bytes = [], 0
        self.last_line = {}
        self.tb_index = 0
        self.broken = False

    def poll(self, notices: list[Notice]) -> tuple[list[Point], bool, bool]:
        """(new points, whether the file grew, whether unread bytes remain)."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            if not self.missing and self.ino is not None:
                notices.append(Notice(self.rel, "file is gone (rotated or deleted); waiting for it to come back"))
            self.missing = True
            return [], False, False
        except OSError as e:
            notices.append(Notice(self.rel, f"cannot read ({e.strerror or e})"))
            return [], False, False
        if self.ino is None:
            self.ino = st.st_ino
            if self.start_at_end:
                self._skip_to(st.st_size, whole=True)
        elif st.st_ino != self.ino:
            notices.append(Notice(self.rel, "file was replaced (rotated); reading the new one from the start"))
            self.ino = st.st_ino
            self._rewritten()
            self.restarted = "rotated"
        elif st.st_size < self.offset:
            notices.append(Notice(self.rel, f"file was truncated (from {self.offset:,} to {st.st_size:,} bytes); "
                                            f"reading it again from the start"))
            self._rewritten()
            self.restarted = "truncated"
        self.missing = False
        if self.kind == "csv" and self.header is not None and self.offset and not self._header_same():
            notices.append(Notice(self.rel, "CSV rewritten with a new header; rows already seen are skipped"))
            self._rewritten()
        if self.broken:
            return [], False, False
        size = st.st_size
        lag = size - self.offset - len(self.partial)
        if lag <= 0:
            return [], False, False
        if lag > MAX_LAG_BYTES and self.kind != "tb":
            skipped = self._skip_to(size - SKIP_TO_TAIL)
            notices.append(Notice(self.rel, f"falling behind: {skipped / 2**20:,.0f} MB unread; skipped to the "
                                            f"last {SKIP_TO_TAIL // 2**20} MB (line numbers kept)"))
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset + len(self.partial))
                data = f.read(READ_BYTES)
        except OSError as e:
            notices.append(Notice(self.rel, f"cannot read ({e.strerror or e})"))
            return [], False, False
        more = self.offset + len(self.partial) + len(data) < size
        if self.kind == "tb":
            return self._tb(data, notices), True, more
        buf = self.partial + data
        k = buf.rfind(b"\n")
        if k < 0:
            if len(buf) > MAX_PARTIAL:
                notices.append(Notice(self.rel, f"line {self.line + 1} is longer than {MAX_PARTIAL // 1024} KB "
                                                f"without a newline; skipped"))
                self.offset += len(buf)
                self.partial = b""
            else:
                self.partial = buf
            return [], True, more
        whole, self.partial = buf[:k + 1], buf[k + 1:]
        first_line = self.line + 1
        self.offset += len(whole)
        self.line += whole.count(b"\n")
        if self.kind == "jsonl":
            pts = self._jsonl(whole, first_line)
        elif self.kind == "csv":
            pts = self._csv(whole, first_line)
        else:
            pts = self._log(whole, first_line)
        return pts, True, more

    def _rewritten(self) -> None:
        skip = self.rows if self.kind == "csv" else 0
        self._reset()
        self.header, self.rows, self.skip_rows = None, 0, max(skip, self.skip_rows)

    def _header_same(self) -> bool:
        if self.header is None:
            return True
        try:
            with open(self.path, "rb") as f:
                return f.read(len(self.header)) == self.header
        except OSError:
            return True

    def _skip_to(self, target: int, whole: bool = False) -> int:
        """Jump to the first line start at or after `target`, counting the newlines skipped."""
        start = self.offset + len(self.partial)
        skipped = 0
        with open(self.path, "rb") as f:
            f.seek(start)
            pos = start
            while pos < target:
                chunk = f.read(min(READ_BYTES, target - pos))
                if not chunk:
                    break
                self.line += chunk.count(b"\n")
                pos += len(chunk)
            tail = f.read(MAX_PARTIAL) if not whole else b""
        k = tail.find(b"\n")
        if k >= 0:
            pos += k + 1
            self.line += 1
        skipped = pos - start
        if self.kind == "csv" and self.header is None and start == 0:
            self._read_header()
        self.offset, self.partial = pos, b""
        self.ctx, self.ctx_bytes = [], 0
        return skipped

    def _read_header(self) -> None:
        with open(self.path, "rb") as f:
            h = f.readline(MAX_PARTIAL)
        if h.endswith(b"\n"):
            self.header = h
            self.cols = tabular.split_csv_line(h.decode("utf-8", "replace").rstrip("\r\n"), ",")

    # ------------------------------------------------------------ parsing
    def _new(self, key, line: int) -> bool:
        if line <= self.last_line.get(key, 0):
            return False
        self.last_line[key] = line
        return True

    def _log(self, whole: bytes, first_line: int) -> list[Point]:
        ctx = b"".join(self.ctx)
        line0 = first_line - 1 - len(self.ctx)     # lines before the context
        acc = LogMetrics(self.rel, Run(self.path.parent))
        acc.add_block(ctx + whole)
        pts = []
        for s in acc.finish():
            key = (s.raw_name, s.rank)
            for st, v, loc in zip(s.steps.tolist(), s.values.tolist(), s.locs.tolist()):
                line = line0 + loc
                if self._new(key, line):
                    pts.append((key, s.name, None if s.step_is_index else st, v, line))
        # keep the last lines as context for the next block
        lines = whole.splitlines(keepends=True)[-CONTEXT_LINES:]
        self.ctx = (self.ctx + lines)[-CONTEXT_LINES:]
        self.ctx_bytes = sum(map(len, self.ctx))
        while self.ctx and self.ctx_bytes > CONTEXT_BYTES:
            self.ctx_bytes -= len(self.ctx.pop(0))
        pts.sort(key=lambda p: p[4])
        return pts

    def _jsonl(self, whole: bytes, first_line: int) -> list[Point]:
        recs, lines = [], []
        for i, raw in enumerate(whole.split(b"\n")[:-1]):
            s = raw.decode("utf-8", "replace").strip()
            if not s:
                continue
            r = tabular.loads_lenient(s)
            if isinstance(r, dict):
                recs.append(r)
                lines.append(first_line + i)
        if not recs:
            return []
        run = Run(self.path.parent)
        tabular.emit_records(run, self.rel, self.path, recs, np.asarray(lines, np.int64), [])
        return self._points(run)

    def _points(self, run: Run) -> list[Point]:
        pts = []
        for s in run.series:
            key = (s.raw_name, s.rank)
            for st, v, loc in zip(s.steps.tolist(), s.values.tolist(), s.locs.tolist()):
                if self._new(key, loc):
                    pts.append((key, s.name, None if s.step_is_index else st, v, loc))
        pts.sort(key=lambda p: p[4])
        return pts

    def _csv(self, whole: bytes, first_line: int) -> list[Point]:
        pts = []
        for i, raw in enumerate(whole.split(b"\n")[:-1]):
            line = first_line + i
            text = raw.decode("utf-8", "replace").rstrip("\r")
            if self.header is None:
                self.header = raw + b"\n"
                self.cols = tabular.split_csv_line(text, ",")
                continue
            if not text.strip():
                continue
            self.rows += 1
            if self.rows <= self.skip_rows:
                continue
            cells = tabular.split_csv_line(text, ",")
            vals = {}
            for c, cell in zip(self.cols, cells):
                try:
                    vals[c] = float(cell)
                except ValueError:
                    continue
            step = next((int(vals[c]) for c in tabular.STEP_COLUMNS if c in vals and math.isfinite(vals[c])), None)
            for c, v in vals.items():
                if c in tabular.STEP_COLUMNS or c in tabular.EPOCH_COLUMNS or c.lower() in tabular.CLOCK_COLUMNS:
                    continue
                pts.append(((c, None), normalize(c), step, v, line))
        return pts

    def _tb(self, data: bytes, notices: list[Notice]) -> list[Point]:
        pts = []
        p = 0
        n_all = len(data)
        while n_all - p >= 12:
            h = data[p:p + 12]
            n = int.from_bytes(h[:8], "little")
            if h != tensorboard.record_header(n):
                notices.append(Notice(self.rel, f"bad TensorBoard record header at byte {self.offset + p:,}; "
                                                f"stopped following this file"))
                self.broken = True
                break
            if p + 16 + n > n_all:
                if 16 + n > READ_BYTES:   # a record bigger than one read: read it whole next time
                    self._big_record(n, notices)
                break
            try:
                step, _, _, values, _ = tensorboard.parse_event(data[p + 12:p + 12 + n])
            except (ValueError, IndexError):
                values, step = [], 0
            for tag, v, *_ in values:
                if v is not None:
                    pts.append(((tag, None), normalize(tag), step, float(v), None))
            p += 16 + n
            self.tb_index += 1
        self.offset += p
        return pts

    def _big_record(self, n: int, notices: list[Notice]) -> None:
        """A record larger than READ_BYTES (an image, a histogram): skipped, no scalars in it."""
        self.offset += 16 + n
        notices.append(Notice(self.rel, f"skipped a {n / 2**20:.0f} MB TensorBoard record"))


class Follower:
    """Every followed file, the detectors of their series, and the stall clock."""

    def __init__(self, paths: list[str | Path], stall_s: float | None = None, start_at_end: bool = False,
                 clock=None, *, keep_points: bool = False, stall_after_write: bool = False,
                 rescan_s: float = 0.0):
        """keep_points: each poll leaves its new points in `.points` as (metric, step or None, value, source,
        line or None), in file order (a plot appends them). stall_after_write: the stall clock starts at the
        first write seen, so a finished run that is only being looked at is never "stalled". rescan_s:
        folders are walked for new files at most this often (a large folder costs a walk per scan)."""
        self.clock = clock or time.monotonic
        self.roots = [Path(p) for p in paths]
        self.files: dict[Path, FileFollower] = {}
        self.detectors: dict[tuple, Detector] = {}
        self.pending: dict[tuple, str] = {}   # detectors whose file was rewritten: how, until their next point
        self.stall_s = stall_s
        self.start_at_end = start_at_end
        self.last_write = self.clock()
        self.last_source = ""
        self.stalled = False
        self.behind = False
        self.keep_points = keep_points
        self.points: list[tuple] = []
        self.stall_after_write = stall_after_write
        self.written = False           # some followed file grew since the start
        self.rescan_s = rescan_s
        self._last_scan: float | None = None
        self._first_scan = True

    def _scan(self, notices: list[Notice]) -> None:
        for root in self.roots:
            if root.is_dir():
                for dirpath, dirnames, filenames in os.walk(root):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                    for fn in sorted(filenames):
                        p = Path(dirpath) / fn
                        if p not in self.files and file_kind(p):
                            self._add(p, os.path.relpath(p, root.parent if root.parent != root else root))
            elif root not in self.files:
                if root.exists() or not self._first_scan:
                    if root.exists():
                        self._add(root, root.name)
                else:
                    notices.append(Notice(str(root), "does not exist yet; waiting for it"))
        self._first_scan = False

    def _add(self, p: Path, rel: str) -> None:
        # files that appear after the start are new: read whole, whatever start_at_end says
        self.files[p] = FileFollower(p, rel, file_kind(p) or "log", self.start_at_end and self._first_scan)

    def poll(self) -> list[Finding | Notice]:
        out: list = []
        notices: list[Notice] = []
        self.points = []
        t = self.clock()
        if self._last_scan is None or t - self._last_scan >= self.rescan_s:
            self._last_scan = t
            self._scan(notices)
        out.extend(notices)
        grew_any = False
        self.behind = False
        for ff in list(self.files.values()):
            notices = []
            pts, grew, more = ff.poll(notices)
            out.extend(notices)
            self.behind |= more
            if grew:
                grew_any = True
                self.last_source = ff.rel
            if self.keep_points:
                self.points.extend((name, step, v, ff.rel, line) for _, name, step, v, line in pts)
            if ff.restarted:    # each series of the file is judged at its first point after the rewrite
                self.pending.update({dk: ff.restarted for dk in self.detectors if dk[0] == ff.rel})
                ff.restarted = None
            for key, name, step, v, line in pts:
                dk = (ff.rel, key)
                det = self.detectors.get(dk)
                how = self.pending.pop(dk, None)
                if det is not None and how is not None and _new_run(det, step, how):
                    det = None
                if det is None:
                    det = self.detectors[dk] = Detector(name, ff.rel)
                out.extend(det.feed(step, v, line))
        now = self.clock()
        if grew_any:
            self.last_write = now
            self.stalled = False
            self.written = True
        elif self.stall_s is not None and not self.stalled and now - self.last_write >= self.stall_s \
                and (self.written or not self.stall_after_write):
            self.stalled = True
            mins = (now - self.last_write) / 60
            out.append(Finding("stalled", None, None, None, self.last_source or ", ".join(map(str, self.roots)),
                               None, f"no write to any followed file for {mins:.1f} min"))
        return out
