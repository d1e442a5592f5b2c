"""The last reader: any remaining text file becomes a TextArtifact; logs also yield metric Series.

In:  a file no other reader claimed.
Out: `run.texts` gets a TextArtifact (kind "code", "config", "log" or "text"); for "log"
     artifacts every metric found in the common printed styles becomes a `Series`
     (`source=rel`, `locs` = 1-based line numbers). Binary and empty files become a warning.

A log is read BLOCK_BYTES at a time (cut at newlines; gzip streamed), so memory follows the
metrics it holds, not its size. A log of more than one block has each block scanned on worker
threads (assemble.prepare_block: newlines, anchors, counters, word hits) a few blocks ahead of
the part that needs the blocks in order (LogMetrics.add_block, the sparse text). A log over sparse.SPARSE_TEXT_BYTES keeps a SparseText: every
line in place, only its head, tail and the lines the text analyzers look for filled in (one
warning says so); its metrics come from every line all the same.

Styles read: `key=value`, `key: value`, `'key': value` (printed dicts, HF Trainer), Keras
`- loss: 0.5`, tqdm postfixes (tqdm's `\\r` redraws are separate segments; line numbers stay
the file's `\\n` lines), Python logging prefixes, fairseq/Megatron `key value | key value`
(space form only for known names), `Step N/M`, `Epoch [N/M]`, bare `[N/M]` and tqdm/Keras
`N/M [` counters, `[rankN]:`/`[RANK N]`/`[defaultN]:` line prefixes (one series per rank), metric
tables (fastai, printed DataFrames, YOLOv5/v8 with a header per epoch), darknet's `N: loss, avg avg loss, lr rate`,
Flower's `fit progress:` lines and end-of-run History, and DeepXDE's `Step  Train loss  Test loss  Test metric` table.
Metric names printed in Chinese, Japanese or Korean (`손실`, `正解率`, `验证损失`) are read as the English keys they
stand for (vocabulary.cjk_keys, in the scanned bytes only).

Where things live:
  kind.py        which kind of text a file is (code / config / text / log)
  vocabulary.py  which printed keys are steps, epochs, metrics or noise
  arrays.py      whole-array numpy primitives (windows, hashing, factorize)
  scan.py        the byte scanner: anchors, keys and numbers, progress counters, rank prefixes
  tables.py      whitespace-aligned metric tables
  darknet.py     darknet's training line (each value before its name)
  flower.py      Flower's server evaluation line (`fit progress: (round, loss, {metrics}, s)`) and its History
                 sections (`History (loss, distributed):`, `History (metrics, distributed, fit):`, ...)
  deepxde.py     DeepXDE's training table (`Step  Train loss  Test loss  Test metric`, bracketed lists per row)
  lists.py       a history printed as one list (Keras' history dict, a printed array of losses)
  assemble.py    anchors -> steps per line -> Series (LogMetrics: a block at a time)
  sparse.py      what a big log's text keeps (SparseText, WordFinder)
This module is the reader entry: `sniff(path, head)` and `read(path, rel, run)`; `read_text_only` keeps
the text of a replica rank's log without its metric series (ingest decides, crossrank/replicas.py);
`prefetch(files)` scans a run of small logs in one pass before ingest reads them one by one (a
folder of thousands of short logs: numpy's fixed cost per call paid once per 4 MB, not per file).
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import zlib
from collections import deque
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import nullcontext
from functools import partial
from itertools import accumulate
from pathlib import Path

import numpy as np

from mltdbg.analyzers.ingest import UTF16_BOMS, binary_skipped, decode_utf8, is_binary, read_bytes
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.prose import is_documentation, without_assistant_turns
from mltdbg.analyzers.readers.textlog.arrays import (find_byte, one_thread, release_memory, reused_heap,
                                                     small_pages)
from mltdbg.analyzers.readers.textlog.assemble import (MAX_METRIC_LINE, LogMetrics, extract_metrics, prepare_block,
                                                       prepare_files)
from mltdbg.analyzers.readers.textlog.kind import table_name, text_kind
from mltdbg.analyzers.readers.textlog.lists import with_lists
from mltdbg.analyzers.readers.textlog.sparse import (HEAD_BYTES, INDEX_EVERY, MID_CAP, MID_WORDS, SPARSE_TEXT_BYTES,
                                                     TAIL_BYTES, SparseText, WordFinder, compact_starts, keep_lines,
                                                     open_blocks, sparse_block)

# A log is read this many bytes at a time (cut at the last newline): its metrics, and the text
# it keeps, never need the whole file in memory at once.
BLOCK_BYTES = 4 * 1024 * 1024
# A single line longer than this is not held whole: its first MAX_METRIC_LINE bytes stay in the
# text, the rest is skipped (a 20 MB line is held and kept; a 5 GB one is not).
MAX_HELD_LINE = 64 * 1024 * 1024
# A log over one block is scanned on this many worker threads, up to this many blocks ahead of
# the part that needs them in order (LogMetrics.add_block, the sparse text). The scan is numpy
# work that frees the GIL, so two blocks at once use both cores of a 2-core machine (a 10M-line,
# 0.9 GB mixed log, benchmarks/bench_textlog.py: reader 10.1 s -> 6.3-7.7 s, the reader thread
# itself then mostly waits); a block ahead holds its bytes and its (small) scan results.
PREPARE_WORKERS = 2
PREPARE_AHEAD = 2
# A log of at least this many bytes is scanned in PREPARE_WORKERS forked processes instead (Linux):
# prepare_block's Python between its numpy calls holds the GIL, so on threads two blocks at once
# cost 1.2-1.8x the CPU of one alone, and the reader thread's own work waits for the GIL too.
# 10M-line logs, 3 interleaved pairs each (ingest): mixed style 12.7-15.0 s on threads, 11.1-12.4 s
# in processes; default style 9.0-9.6 -> 7.9-9.1 s, the reader's own peak RSS 1.1 GB -> 0.79 GB
# (+ ~85 MB a worker). A worker reads its block of a plain log from the file (_prepare_range; a gzip's
# goes to it pickled) and its scan comes back pickled.
PROCESS_MIN_BYTES = 128 * 1024 * 1024
# Logs up to this size are scanned together (prefetch), up to BLOCK_BYTES of them at once: the
# scan's numpy calls cost ~0.5 ms a call set whatever the size, so 5,000 logs of 20 lines each
# took 2.6 s of scanning alone (benchmarks/bench_diagnose.py --many).
SMALL_LOG_BYTES = 256 * 1024
# A post saved as markdown is read for metrics as a .txt post is, up to this size (a post, not a report)
POST_EXT = (".md", ".markdown")
POST_MAX_BYTES = 1024 * 1024
# path -> (bytes, newlines, prepare_block's dict, (size, mtime_ns) when read) of the small logs
# prefetched last
_PREFETCHED: dict[Path, tuple[bytes, np.ndarray, dict, tuple[int, int]]] = {}


def _stamp(st: os.stat_result) -> tuple[int, int]:
    return st.st_size, st.st_mtime_ns


def _take_prefetched(path: Path) -> tuple | None:
    """Remove `path`'s prefetched entry and return it when the file still has the size and mtime it
    had when it was prefetched (its bytes are then those held: read() takes them without opening
    it again); None when there is none or the file has changed since (it is read anew)."""
    ready = _PREFETCHED.pop(path, None)
    if ready is None:
        return None
    try:
        return ready if _stamp(os.stat(path)) == ready[3] else None
    except OSError:
        return None


def sniff(path: Path, head: bytes) -> bool:
    """The last reader takes every file (binary ones only to say they were skipped)."""
    return True


def read(path: Path, rel: str, run: Run) -> None:
    """Append a TextArtifact (and, for logs, metric series) to `run`; warnings for bad input (a file
    named like a metrics table that the table reader declined and that yields no metrics is one)."""
    n_warn, n_series = len(run.warnings), len(run.series)
    _read(path, rel, run)
    table = table_name(path)
    if table and len(run.warnings) == n_warn and len(run.series) == n_series:
        what = "JSON record" if table == "jsonl" else "header row with a numeric row under it"
        run.warnings.append(f"{rel}: named like a metrics table but no {what} was found in its first lines; "
                            f"kept as text, no metrics read from it")


def _read(path: Path, rel: str, run: Run) -> None:
    ready = _take_prefetched(path)
    if ready is not None:    # a small plain log, checked and scanned by prefetch
        _read_log(path, rel, run, False, ready=ready)
        return
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        run.warnings.append(f"{rel}: cannot read ({e.strerror or e})")
        return
    gz = head[:2] == b"\x1f\x8b" or head[:2] in UTF16_BOMS     # (read through ingest.open_utf8)
    if not gz and is_binary(head):
        run.warnings.append(binary_skipped(rel, head))
        return
    if text_kind(path, "") != "log":   # code, configs, prose: by name; read whole
        _read_whole(path, rel, run)
        return
    try:
        _read_log(path, rel, run, gz)
    except OSError as e:
        run.warnings.append(f"{rel}: cannot read ({e.strerror or e})")


def prefetch(files: list[tuple[Path, str]]) -> int:
    """Scan the small plain logs among the first of `files` together (ingest calls this before
    reading them one by one): what each one's `read` would compute alone, ready when it is read,
    if its size and mtime are still those it had then. Stops before BLOCK_BYTES of them are held; returns how
    many of `files` it went through. Replaces what an earlier call left."""
    _PREFETCHED.clear()
    batch: list[tuple[Path, str, bytes, tuple[int, int]]] = []
    size = 0
    for k, (path, rel) in enumerate(files):
        try:
            if os.path.getsize(path) > SMALL_LOG_BYTES or text_kind(path, "") != "log":
                continue
            with open(path, "rb") as f:
                stamp = _stamp(os.fstat(f.fileno()))     # (before reading: a write after it shows)
                data = f.read(SMALL_LOG_BYTES + 1)
        except OSError:
            continue     # read() says what is wrong with it
        # (a log whose last line has no newline yet is read in two blocks: read alone)
        if (not data.endswith(b"\n") or len(data) > SMALL_LOG_BYTES or data[:2] == b"\x1f\x8b"
                or is_binary(data[:4096]) or len(data) != stamp[0]):
            continue
        if size + len(data) > BLOCK_BYTES and batch:
            _prefetch_batch(batch)
            return k
        batch.append((path, rel, data, stamp))
        size += len(data)
    if batch:
        _prefetch_batch(batch)
    return len(files)


def _prefetch_batch(batch: list[tuple[Path, str, bytes, tuple[int, int]]]) -> None:
    # each file ends with a newline: lines never run from one into the next, and a file's first
    # line is the number of the batch's newlines before its first byte
    starts = np.cumsum([0] + [len(data) for _, _, data, _ in batch[:-1]])
    whole = b"".join(data for _, _, data, _ in batch)
    with small_pages(), one_thread():
        nl = find_byte(np.frombuffer(whole, np.uint8), 10)
        first_lines = np.searchsorted(nl, starts).tolist()
        pieces = [(int(at), len(data), line, rel) for at, line, (_, rel, data, _) in zip(starts, first_lines, batch)]
        pres = prepare_files(whole, nl, pieces)
    for (path, _, data, stamp), pre in zip(batch, pres):
        if pre is not None:      # None: read it alone (prepare_files says why)
            _PREFETCHED[path] = (data, pre["nl"], pre, stamp)


def read_text_only(path: Path, rel: str, run: Run) -> None:
    """Like `read`, without the metric series (a replica rank's log: crossrank/replicas.py)."""
    try:
        _read_log(path, rel, run, False, metrics=False)
    except OSError as e:
        run.warnings.append(f"{rel}: cannot read ({e.strerror or e})")


def _artifact(path: Path, rel: str, text: str) -> TextArtifact:
    """The file's TextArtifact, of the kind its name and text say; in a post or a log, an AI assistant's turns of a
    pasted conversation blanked (prose.without_assistant_turns: no observation of the run)."""
    kind = text_kind(path, text)
    return TextArtifact(path=rel, abspath=path, kind=kind,
                        text=without_assistant_turns(text) if kind in ("text", "log") else text)


def _read_whole(path: Path, rel: str, run: Run) -> None:
    data = read_bytes(path)
    if not data:
        run.warnings.append(f"{rel}: empty file")
        return
    if is_binary(data[:4096]):  # a gzip of something binary
        run.warnings.append(binary_skipped(rel, data[:4096]))
        return
    art = _artifact(path, rel, decode_utf8(data, rel, run))
    text = art.text
    if data.isascii():  # byte offsets are character offsets: reuse a newline scan
        art._starts = np.concatenate(([0], find_byte(np.frombuffer(data, np.uint8), 10) + 1)).astype(np.int64)
    run.texts.append(art)
    if art.kind == "text" and rel.lower().endswith(POST_EXT) and not is_documentation(rel, text) and len(data) <= POST_MAX_BYTES:
        # a post saved as markdown (a GitHub issue: its log in a fence, its curve as a table) is read for metrics
        # as a post saved as .txt is
        run.series.extend(with_lists(art, extract_metrics(data, rel, run)))


def _blocks(path: Path, gz: bool):
    """(bytes of whole lines, True when they are the cut head of an over-long line, offset of
    the bytes in the file) per block. A truncated gzip (still being written) ends where its
    data stops."""
    rest = b""
    at = 0                    # offset of `rest` in the (gunzipped) file
    skipping = False          # inside a line longer than MAX_HELD_LINE
    with open_blocks(path, gz) as f:
        # a log still being written is read as it was when opened (what comes after is the next read's)
        left = None if gz else os.fstat(f.fileno()).st_size
        while True:
            try:
                chunk = f.read(BLOCK_BYTES if left is None else min(BLOCK_BYTES, left))
                if left is not None:
                    left -= len(chunk)
            except (EOFError, OSError, zlib.error):
                if not gz:
                    raise
                chunk = b""
            if skipping:
                k = chunk.find(b"\n")
                if k < 0 and chunk:
                    at += len(chunk)
                    continue
                skipping = False
                at += k + 1 if k >= 0 else 0
                chunk = chunk[k + 1:] if k >= 0 else b""   # its newline ends the long line
            if not chunk:
                if rest:
                    yield rest, False, at
                return
            k = chunk.rfind(b"\n")
            if k < 0:
                buf = rest + chunk if rest else chunk
                if len(buf) > MAX_HELD_LINE:
                    yield buf[:MAX_METRIC_LINE], True, at
                    at += len(buf)
                    rest, skipping = b"", True
                else:
                    rest = buf
                continue
            # one copy of the block at most: the held start of its first line + the chunk's whole lines
            if rest:
                out = b"".join((rest, memoryview(chunk)[:k + 1]))
            else:
                out = chunk if k + 1 == len(chunk) else chunk[:k + 1]
            rest = chunk[k + 1:]
            yield out, False, at
            at += len(out)


def _prepare(data: bytes, cut: bool, rel: str, metrics: bool, finder: WordFinder | None):
    """A block's newlines, LogMetrics scan (prepare_block) and sparse-text word hits: the work that
    needs nothing but the block, run on a worker thread (its own splits stay on that thread)."""
    with one_thread():
        nl = find_byte(np.frombuffer(data, np.uint8), 10)
        pre = prepare_block(data, nl, rel) if metrics and not cut else None
        hits = finder.find(data) if finder is not None and not cut else None
    return nl, pre, hits


# In a scan worker process: the log's file descriptor, opened on its first block (path -> fd).
_WORKER_FDS: dict[Path, int] = {}


def _prepare_range(src: tuple[Path, int, int], cut: bool, rel: str, metrics: bool, finder: WordFinder | None):
    """_prepare for the `n` bytes at `offset` of a plain log, read here from the file (path, offset,
    n) rather than handed over a pipe: in a worker process the block then costs one copy out of the
    page cache instead of a pickle, a pipe write, a pipe read and an unpickle. None when the file no
    longer holds those n bytes (truncated since the reader read them): the reader scans them itself."""
    path, offset, n = src
    fd = _WORKER_FDS.get(path)
    if fd is None:
        fd = _WORKER_FDS[path] = os.open(path, os.O_RDONLY)
    parts, got = [], 0
    while got < n:
        b = os.pread(fd, n - got, offset + got)
        if not b:
            return None
        parts.append(b)
        got += len(b)
    return _prepare(parts[0] if len(parts) == 1 else b"".join(parts), cut, rel, metrics, finder)


def _same_lines(data: bytes, nl: np.ndarray) -> bool:
    """Whether a worker's newline offsets fit the reader's bytes of the block (a cheap guard: each
    is a newline, and the last one ends the block unless it is the file's last)."""
    if not len(nl):
        return b"\n" not in data
    b, last = np.frombuffer(data, np.uint8), int(nl[-1])
    return last < len(b) and bool((b[nl] == 10).all()) and (last == len(b) - 1 or b"\n" not in data[last + 1:])


def _forks() -> bool:
    """Whether the scan may run in forked processes: Linux (elsewhere fork is missing or unsafe
    for the system's frameworks), and not inside a forked scan worker itself."""
    return sys.platform.startswith("linux") and multiprocessing.parent_process() is None


def _worker_process() -> None:
    """A scan worker process: Ctrl-C is the parent's to handle (it stops handing out blocks and
    waits for the few in flight); the heap settings of the parent's reused_heap came with the fork."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _ready(ready: tuple) -> tuple:
    """_prepare's result for a prefetched log: (newlines, prepare_block's dict, no word hits)."""
    return ready[1], ready[2], None


def _prepared(blocks, plan, inline: bool, processes: bool = False):
    """(block, result) in order, where plan(*block) (called here, in block order) names the work
    for it: (function, arguments), run on PREPARE_WORKERS threads (`processes`: forked processes,
    see PROCESS_MIN_BYTES) up to PREPARE_AHEAD blocks ahead (`inline`: on this thread, for a log
    of one block)."""
    if inline:
        for item in blocks:
            fn, args = plan(*item)
            yield item, fn(*args)
        return
    q: deque = deque()
    pool_of = (partial(ProcessPoolExecutor, PREPARE_WORKERS, mp_context=multiprocessing.get_context("fork"),
                       initializer=_worker_process) if processes
               else partial(ThreadPoolExecutor, PREPARE_WORKERS, thread_name_prefix="textlog"))
    with pool_of() as pool:
        for item in blocks:
            fn, args = plan(*item)
            q.append((item, pool.submit(fn, *args)))
            if len(q) > PREPARE_AHEAD:
                it, fut = q.popleft()
                yield it, fut.result()
        while q:
            it, fut = q.popleft()
            yield it, fut.result()


def _read_log(path: Path, rel: str, run: Run, gz: bool, metrics: bool = True, ready: tuple | None = None) -> None:
    """`ready`: the log's prefetched entry (_take_prefetched): its bytes and scan, not read again."""
    big = ready is None and (gz or os.path.getsize(path) > BLOCK_BYTES)
    # the workers' temporaries too (numpy's switch and glibc's thresholds are process-wide)
    with small_pages(), (reused_heap() if big else nullcontext()):
        _read_log_blocks(path, rel, run, gz, metrics, ready)


def _read_log_blocks(path: Path, rel: str, run: Run, gz: bool, metrics: bool, ready: tuple | None) -> None:
    acc = LogMetrics(rel, run)
    full: list[bytes] = []          # the text, while the log is small enough to keep whole
    nls: list[np.ndarray] = []
    text_parts: list[bytes] = []    # the sparse text, once it is not
    pending: list[tuple] = []       # recent blocks (bytes, newlines, first line, offset, word hits): the tail
    pending_bytes = 0
    sparse = False
    marks: list[np.ndarray] = []
    caps = [MID_CAP] * len(MID_WORDS)
    sample = b""
    size = offset = line0 = 0
    cut_lines: list[int] = []
    first = True
    finder_box: list[WordFinder] = []   # made once the log is known to be big (from its first block)
    handed_bytes = 0                    # bytes handed to the workers so far
    head_sample = b""                   # the first block's sample

    def plan(data: bytes, cut: bool, offset: int):
        """The work for a block, decided in block order: its word hits too once the log is big."""
        nonlocal handed_bytes, head_sample
        if ready is not None:       # the one block of a prefetched log: scanned already
            return _ready, (ready,)
        if not head_sample:
            head_sample = data[:WordFinder.SAMPLE]
        handed_bytes += len(data)
        finder = None
        if handed_bytes > SPARSE_TEXT_BYTES and not is_binary(head_sample[:4096]):
            if not finder_box:
                finder_box.append(WordFinder(head_sample))
            finder = finder_box[0]
        if processes:    # the worker reads the block from the file itself (a plain log: processes implies it)
            return _prepare_range, ((path, offset, len(data)), cut, rel, metrics, finder)
        return _prepare, (data, cut, rel, metrics, finder)

    blocks = iter([(ready[0], False, 0)]) if ready is not None else _blocks(path, gz)
    on_disk = None if ready is not None or gz else os.path.getsize(path)   # (a gzip's: not the log's size)
    inline = ready is not None or (on_disk is not None and on_disk <= BLOCK_BYTES)
    processes = not inline and on_disk is not None and on_disk >= PROCESS_MIN_BYTES and _forks()
    for (data, cut, offset), got in _prepared(blocks, plan, inline, processes):
        if got is None or (processes and not _same_lines(data, got[0])):
            got = _prepare(data, cut, rel, metrics, None)     # the file changed under the worker
        nl, pre, hits = got
        if first:
            first = False
            if not data and not cut:
                run.warnings.append(f"{rel}: empty file")
                return
            if is_binary(data[:4096]):  # a gzip of something binary (a .tar.gz)
                run.warnings.append(binary_skipped(rel, data[:4096]))
                return
            sample = data[:WordFinder.SAMPLE]
        if cut:   # the first bytes of an over-long line: text only
            cut_lines.append(line0 + 1)
            data += b"\n"
            nl = np.append(nl, len(data) - 1)
            acc.line0 += 1
        elif metrics:
            acc.add_block(data, nl, pre)
        del pre
        # line offsets every INDEX_EVERY lines (a sparse text reads blanked lines back with them)
        starts = np.concatenate(([0], nl + 1))
        k0 = (-line0) % INDEX_EVERY
        marks.append(offset + starts[k0::INDEX_EVERY][starts[k0::INDEX_EVERY] < len(data)])
        size += len(data)
        if not sparse and size > SPARSE_TEXT_BYTES:
            sparse = True
            if not finder_box:
                finder_box.append(WordFinder(sample))
            finder = finder_box[0]
            pending = []
            b0 = l0 = 0
            for d, n_ in zip(full, nls):     # earlier blocks: the head stays, the rest waits for the tail
                pending.append((d, n_, l0, b0, None))
                l0 += len(n_)
                b0 += len(d)
            pending_bytes = b0
            full, nls = [], []
        if sparse:
            pending.append((data, nl, line0, offset, hits))
            pending_bytes += len(data)
            while len(pending) > 1 and pending_bytes - len(pending[0][0]) >= TAIL_BYTES:
                d, n_, l0, o0, h = pending.pop(0)
                pending_bytes -= len(d)
                text_parts.append(_sparse(d, n_, o0, caps, None, finder, h))
        else:
            full.append(data)
            nls.append(nl)
        line0 += len(nl)
    if first:
        run.warnings.append(f"{rel}: empty file")
        return
    series = acc.finish()
    if size >= BLOCK_BYTES:
        release_memory()      # the reader's temporaries, back to the OS before the text is built
    for n in cut_lines:
        run.warnings.append(f"{rel}:{n}: line longer than {MAX_HELD_LINE // 2**20} MB; its first "
                            f"{MAX_METRIC_LINE // 1024} KB kept as text, no metrics read from it")
    if not sparse:
        data = b"".join(full)
        art = _artifact(path, rel, decode_utf8(data, rel, run))
        kind = art.kind
        if data.isascii():  # byte offsets are character offsets: reuse the newline scan
            # (block offsets as Python ints: one array op per block, which a small log's cost is made of)
            off = accumulate((len(d) for d in full[:-1]), initial=0)
            art._starts = np.concatenate([np.zeros(1, np.int64)] + [n_ + (o + 1) for n_, o in zip(nls, off)])
        run.texts.append(art)
        if kind == "log":
            run.series.extend(with_lists(art, series))
        return
    tail_from = size - TAIL_BYTES
    for d, n_, l0, o0, h in pending:
        text_parts.append(_sparse(d, n_, o0, caps, tail_from, finder, h))
    data = b"".join(text_parts)
    text_parts = []
    text = decode_utf8(data, rel, run)
    art = SparseText(path=rel, abspath=path, kind="log", text=text, marks=np.concatenate(marks), gz=gz)
    art.set_index(*compact_starts(data, text))
    del data
    run.warnings.append(f"{rel}: {size / 2**20:.0f} MB log: metrics read from every line; its text kept for "
                        f"the first and last {HEAD_BYTES // 2**20} MB and the lines between that mention errors, "
                        f"warnings, NaN, resumes, checkpoints or crashes ({art.kept_lines:,} lines kept in all)")
    run.texts.append(art)
    run.series.extend(series)


def _sparse(data: bytes, nl: np.ndarray, offset: int, caps: list[int], tail_from: int | None,
            finder: WordFinder, hits: list[np.ndarray] | None = None) -> bytes:
    """One block's part of a sparse text: lines in the head (before HEAD_BYTES) or the tail (from
    `tail_from`) whole, others only when they hold a MID_WORDS word (or are near one)."""
    keep = keep_lines(data, nl, caps, finder, hits)
    starts = np.concatenate(([0], nl + 1))[:len(nl) + (0 if data.endswith(b"\n") else 1)] + offset
    whole = np.zeros(0, np.int64)
    if offset < HEAD_BYTES:
        whole = np.flatnonzero(starts < HEAD_BYTES)
    if tail_from is not None and offset + len(data) > tail_from:
        whole = np.union1d(whole, np.flatnonzero(starts >= tail_from))
    if whole.size:
        keep = np.union1d(keep, whole)
    return sparse_block(data, nl, keep)
