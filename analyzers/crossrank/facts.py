"""Per-rank facts from the logs: last step, last line and time, last collective, exit, first error.

In:  a `Run` (tracebacks extracted) and the rank `Stream`s of mltdbg.analyzers.crossrank.layouts.
Out: `Ctx(run, streams)`; `fill_row(ctx, row)` fills a `RankRow`'s lines, last line/time/step and its
     step-versus-time samples; `scan_failures(ctx, rows, by_rank, by_local, view)` attributes watchdog
     lines (SeqNum/OpType), launcher exits and signals, errors, tracebacks and DataLoader worker deaths
     to their rank; `world(run, view, by_rank)` the expected ranks and the missing ones;
     `worker_batches(ctx, view)` the batch a dead worker held.

Speed: no Python loop over all lines. The reader's per-rank series give steps by line; lines are
otherwise sampled (CHART_POINTS per rank plus TAIL_LINES at the end); failure lines are found by
literal searches, over the whole text up to FULL_SCAN_CHARS and over its head and tail beyond
(tracebacks anywhere come from analyzers/tracebacks.py, which reads all of it).
Log text is untrusted: matched, never evaluated.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.common.textfind import TextFinder
from mltdbg.analyzers.crossrank.layouts import MAX_RANKS
from mltdbg.analyzers.crossrank.records import (_ISO, Loc, Part, RankRow, RankView, Stream, WorkerEvent, fmt_ranks,
                                                parse_step, parse_time, strip_prefix)
from mltdbg.analyzers.log_findings import CUDA_OOM
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.tracebacks import LOG_KINDS, lines_of_offsets

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

class Ctx:
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


def _stream_of(ctx: Ctx, art: TextArtifact, line: int, s: str) -> tuple[Stream, Part] | None:
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


def fill_row(ctx: Ctx, row: RankRow) -> None:
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
        for i, (ln, s) in enumerate(_tail(p, n, min(n, TAIL_LINES)), 1):     # i: 1 = the last line
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


def _tail(p: Part, n: int, k: int) -> list[tuple[int, str]]:
    """(line number, text) of the last k lines of a part, the last first. A whole plain file is cut
    in one slice and split (64 ranks x TAIL_LINES lines one by one took ~0.1 s); anything else
    (a rank's lines in a shared file, a big log's sparse text) line by line."""
    art = p.art
    if p.lines is None and not p.prefixed and type(art) is TextArtifact and k > 0:
        starts = art.line_starts
        end = int(starts[n]) - 1 if n < len(starts) else len(art.text)
        chunk = art.text[int(starts[n - k]):end].split("\n")
        if len(chunk) == k:
            return [(n - j, chunk[k - 1 - j].rstrip("\r")) for j in range(k)]
    return [(ln, p.text(ln)) for ln in (p.line_no(-i) for i in range(1, k + 1))]


def _later(a: Loc, b: Loc) -> bool:
    if a.time is not None and b.time is not None:
        return a.time > b.time
    return a.time is not None and b.time is None


def _samples(ctx: Ctx, p: Part, ser) -> list[tuple[int, float]]:
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
    # first every `stride`-th line, a round stride (1, 2, 5 x 10^k) so that ranks of about the same length
    # sample the same line numbers (the same steps: the clock comparison needs steps in common); when
    # most of those lines have no step, 3x as many lines spread evenly
    stride = _round_stride(n / CHART_POINTS)
    for idx in (np.arange(0, n, stride, dtype=np.int64),
                np.unique(np.linspace(0, n - 1, min(CHART_POINTS * 3, n)).astype(np.int64))):
        out = []
        for i in idx:
            s = p.text(p.line_no(int(i)))
            k = parse_step(s)
            if k is None:
                continue
            t = ctx.time(s)
            out.append((k, t if t is not None else np.nan))
        if len(out) * 2 >= len(idx):
            break
    return out


def _round_stride(x: float) -> int:
    """The smallest of 1, 2, 5 x 10^k not below x (at least 1)."""
    if x <= 1:
        return 1
    k = 10 ** int(np.floor(np.log10(x)))
    return next(m * k for m in (1, 2, 5, 10) if m * k >= x)


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


def scan_failures(ctx: Ctx, rows: dict[tuple, RankRow], by_rank: dict[int, RankRow],
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


def _node_of(art: TextArtifact, ctx: Ctx) -> str:
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


def _torchrun_tables(ctx: Ctx, by_rank: dict[int, RankRow], rows: dict[tuple, RankRow]) -> None:
    """Exit codes and signals from torchrun's ChildFailedError table (every entry, not just the root cause)."""
    for tb in ctx.run.tracebacks:
        if not tb.exc_type.endswith("ChildFailedError"):
            continue
        art = ctx.run.text(tb.source)
        if art is None:
            continue
        if tb.line >= art.n_lines:
            continue
        a = art.start_of(tb.line + 1)          # the line after the exception line
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


def _tracebacks(ctx: Ctx, rows: dict[tuple, RankRow]) -> None:
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
        t = ctx.time(strip_prefix(text))
        if t is None:
            t = _time_before(ctx, art, tb.start_line, row)
        _set_error(row, Loc(art.path, tb.line, text, t), kind)


def _time_before(ctx: Ctx, art: TextArtifact, line: int, row: RankRow) -> float | None:
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


_WORLD = re.compile(r"(?i)\bworld[_ ]?size\s*[:=]?\s*(\d{1,6})\b|--nproc[_-]per[_-]node[= ](\d{1,5})")


def world(run: Run, view: RankView, by_rank: dict[int, RankRow]) -> None:
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


def worker_batches(ctx: Ctx, view: RankView) -> None:
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
            w.loc.time = ctx.time(strip_prefix(art.line(w.loc.line)))
