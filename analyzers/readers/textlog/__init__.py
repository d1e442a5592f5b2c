"""The last reader: any remaining text file becomes a TextArtifact; logs also yield metric Series.

In:  a file no other reader claimed.
Out: `run.texts` gets a TextArtifact (kind "code", "config", "log" or "text"); for "log"
     artifacts every metric found in the common printed styles becomes a `Series`
     (`source=rel`, `locs` = 1-based line numbers). Binary and empty files become a warning.

How, and why not `re` over the text: Python's regex engine costs ~100 ns per *attempted*
position with a "word: number" pattern (measured ~12 s on a 100 MB, 1,000,000-line log).
So the text is handled as a byte array:
  1. whole-array masks find the bytes a metric can hang on ("anchors"): '=' and ':' after a
     key, a space before a digit or '[', and '/' between digits (progress counters);
  2. the bytes around every anchor are cut out at once and their digits masked to '0'. A
     million log lines come from a handful of print statements, so these *shapes* repeat:
     a 1,000,000-line log has a few dozen distinct ones;
  3. each distinct shape is read once with an ordinary regex (key, separator, number layout,
     unit, what follows); the answer is broadcast to all anchors of that shape, and numbers
     are assembled from their digit columns with integer arithmetic (exactly like float()).
No Python loop runs per line or per point.

Styles read: `key=value`, `key: value`, `'key': value` (printed dicts, HF Trainer), Keras
`- loss: 0.5`, tqdm postfixes (tqdm's `\\r` redraws are separate segments; line numbers stay
the file's `\\n` lines), Python logging prefixes, fairseq/Megatron `key value | key value`
(space form only for known names), `Step N/M`, `Epoch [N/M]`, bare `[N/M]` and tqdm/Keras
`N/M [` counters, `[rankN]:`/`[RANK N]`/`[defaultN]:` line prefixes (one series per rank).
"""
from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..ingest import is_binary, read_bytes
from ..model import LOC_LINE, Run, Series, TextArtifact
from ..names import normalize

# Lines longer than this are kept as text but not mined for metrics (a serialized tensor or a
# base64 blob on one line is not a metric line, and its "key: number" pairs would be noise).
MAX_METRIC_LINE = 100 * 1024
# Bytes examined before / after an anchor. Most keys and numbers fit the short window;
# anchors whose key or number runs past it are read again with the long one.
BACK, FWD = 16, 16
LONG_BACK, LONG_FWD = 64, 48
# A config sniffed by content is parsed only when small.
MAX_CONFIG_SNIFF = 256 * 1024
MAX_MANT_DIGITS = 18  # int64 holds 18 decimal digits exactly

CODE_EXT = {".py", ".pyx", ".pyi", ".sh", ".bash", ".zsh"}
CONFIG_EXT = {".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".conf", ".env"}
# Prose that quotes errors ("CUDA out of memory" in a README) is not a log of this run.
TEXT_EXT = {".md", ".rst", ".html", ".htm", ".tex", ".css", ".js", ".ts", ".c", ".cc", ".cpp",
            ".h", ".hpp", ".cu", ".java", ".go", ".rs", ".r", ".sql", ".xml", ".svg",
            ".csv", ".tsv"}  # a CSV the tabular reader did not take is data, not a log

# ---- key vocabulary --------------------------------------------------------------------------
STEP_KEYS = {"step", "steps", "global_step", "globalstep", "global_steps", "global step", "iter",
             "iters", "iteration", "it", "_step", "num_updates", "update", "updates",
             "trainer/global_step", "train/global_step", "train/step", "optimizer_step"}
BATCH_KEYS = {"batch", "batch_idx", "batch_id", "minibatch", "mini_batch", "mini-batch"}
EPOCH_KEYS = {"epoch", "ep", "train/epoch", "trainer/epoch", "train epoch"}
# Numbers next to these words are identifiers, versions, times or settings, never metrics.
DENY_KEYS = {
    "version", "ver", "v", "pid", "tid", "ppid", "port", "line", "lineno", "rank", "local_rank",
    "global_rank", "world_size", "node", "node_rank", "nnodes", "nproc_per_node", "seed", "id",
    "ip", "host", "hostname", "addr", "master_addr", "master_port", "cuda", "cudnn", "nccl",
    "python", "torch", "pytorch", "numpy", "transformers", "driver", "eta", "date", "timestamp",
    "_timestamp", "exitcode", "exit_code", "errno", "signal", "attempt", "retry", "device", "gpu",
    "gpus", "cpu", "cpus", "num_workers", "http", "https", "file", "thread", "process", "worker",
    "localhost", "total_steps", "max_steps", "num_epochs", "epochs", "code", "status", "sha",
    "commit", "job", "jobid", "job_id", "task", "index", "idx", "shape", "size", "default", "at", "to",
    "from", "of", "in", "on", "with", "and", "or", "for", "is", "was", "after", "than", "by",
}
FILE_EXTS = (".py", ".pyx", ".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".js", ".rs", ".go",
             ".java", ".sh", ".txt", ".log", ".yaml", ".yml", ".json", ".so", ".bin", ".pt", ".pth")
# Words that may precede a key with one space ("val loss", "Train Acc", "lm loss").
PREFIX_WORDS = {"train", "training", "val", "valid", "validation", "eval", "evaluation", "test",
                "dev", "avg", "average", "mean", "total", "running", "best", "global"}
# Two-word names whose second word alone would mean something else.
PAIR_NAMES = {"learning rate", "grad norm", "gradient norm", "loss scale", "max mem"}
_SPACE_CANON = {"loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm", "perplexity",
                "val_perplexity", "loss_scale", "epoch", "data_time", "step_time", "throughput",
                "tokens_per_s"}
UNITS = {"ms", "s", "us", "ns", "sec", "secs", "min", "mins", "h", "hr", "gb", "mb", "kb", "gib",
         "mib", "kib", "b", "k", "m", "g", "x", "it", "its", "tok", "img", "samples", "step"}

# ---- shape regexes (run once per distinct shape; digits are masked to '0') --------------------
_KEY_TAIL = re.compile(
    rb"(?<![A-Za-z0-9_./@\-])(?:(?P<pre>[A-Za-z]{1,12}) )?"
    rb"(?P<key>[A-Za-z_][A-Za-z0-9_./@\-]*?)(?P<q>['\"]?)[ \t]*\Z")
_VALUE = re.compile(rb"""
    (?: [:=][ \t]*['"]?[\[(]?[ \t]*(?:tensor\(|np\.(?:float|int)00\(|float\()?   # key: value
      | \x20\[?[ \t]* )                                                          # key value
    (?: (?P<spec>[-+]?(?:[nN][aA][nN]|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?))
      | (?P<sign>[-+]?)(?P<int>0*)(?:(?P<dot>\.)(?P<frac>0*))?(?:[eE](?P<es>[-+]?)(?P<exp>0+))? )
    (?:[ \t]*(?P<slash>/)[ \t]*(?P<tot>0+))?
    (?P<unit>%|[A-Za-z]{1,7}(?:/[A-Za-z]{1,8})?)?
    """, re.X)
_PROG_BACK = re.compile(rb"(?P<ctx>[\x00\n\r|\[])[ \t]*(?P<n>0+)[ \t]*\Z")
_PROG_FWD = re.compile(rb"/[ \t]*(?P<m>0+)(?P<after>[ \t]*)")
_RANK = re.compile(rb"\[?(?:[rR][aA][nN][kK]|[dD][eE][fF][aA][uU][lL][tT])[ \t]?(?P<r>0+)(?:\]|:| )")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_CONT = frozenset(b".:/-,")
_ALPHA = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")

_K = np.uint64(0x9E3779B97F4A7C15)
_POW10 = np.array([float(f"1e{k}") for k in range(0, 309)] + [np.inf] * 400)


# ---- shapes ----------------------------------------------------------------------------------


def _windows(b: np.ndarray, pos: np.ndarray, back: int, fwd: int) -> np.ndarray:
    """(n, back+fwd) bytes from pos-back to pos+fwd (a copy); zeros beyond the ends of b."""
    width, nb = back + fwd, len(b)
    start = pos - back
    if nb < width:
        padded = np.zeros(nb + 2 * width, dtype=np.uint8)
        padded[width:width + nb] = b
        return sliding_window_view(padded, width)[start + width]
    clipped = np.clip(start, 0, nb - width)
    out = sliding_window_view(b, width)[clipped]
    edge = np.flatnonzero(clipped != start)
    if edge.size:  # anchors near the ends of the file: cut from zero-padded copies of the ends
        k = min(nb, 2 * width)
        head = np.concatenate((np.zeros(width, np.uint8), b[:k], np.zeros(width, np.uint8)))
        tail = np.concatenate((np.zeros(width, np.uint8), b[nb - k:], np.zeros(width, np.uint8)))
        lo = edge[start[edge] < 0]
        hi = edge[start[edge] >= 0]
        out[lo] = sliding_window_view(head, width)[start[lo] + width]
        out[hi] = sliding_window_view(tail, width)[start[hi] - (nb - k) + width]
    return out


_ZERO_DIGITS = bytes(48 if 48 <= c <= 57 else c for c in range(256))
# Zero bytes on both sides of the masked copy: at least the longest window reach.
PAD = 64
# Whole-file byte masks are built this many bytes at a time: a fresh 100 MB temporary per
# operation costs more in page faults than the comparison itself.
CHUNK = 1 << 22


def _hash_rows(words: np.ndarray) -> np.ndarray:
    """One 64-bit hash per row of a uint64 matrix (the row's bytes, 8 at a time)."""
    h = words[:, 0] * _K
    for j in range(1, words.shape[1]):
        h ^= words[:, j]
        h *= _K
    h ^= h >> np.uint64(29)
    return h


# Anchors are hashed and numbered this many at a time, so the temporaries stay small and are
# reused (fresh memory costs more than the arithmetic on it).
ROWS = 1 << 18


def _blocks(n: int, lo: int = 0):
    return (slice(a, min(a + ROWS, n)) for a in range(lo, n, ROWS))


def _halves(fn, n: int, align: int) -> list:
    """[fn(0, mid), fn(mid, n)] with the halves run on two threads (numpy releases the GIL in
    its loops, so whole-array passes over a big file take half the time on two cores); one
    call fn(0, n) when the work is small or there is one core. mid is a multiple of align."""
    mid = (n // 2) // align * align
    if mid == 0 or (os.cpu_count() or 1) < 2:
        return [fn(0, n)]
    out, err = [None], []

    def second():
        try:
            out[0] = fn(mid, n)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            err.append(e)
    t = threading.Thread(target=second)
    t.start()
    try:
        first = fn(0, mid)
    finally:
        t.join()
    if err:
        raise err[0]
    return [first, out[0]]


def _factorize(h: np.ndarray):
    """Equal values of a uint64 array: (code per value, numbered by first appearance; index of
    the first value of each code). Like pandas.factorize, without importing pandas: a table of
    2**16 slots keyed by 16 bits of the value settles the few distinct values a log has in a
    few O(n) passes; values that lost their slot to another value try the next 16 bits, and
    what is left after three tries is sorted (np.unique)."""
    n = len(h)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    codes = np.empty(n, dtype=np.int64)
    ncodes = 0
    todo = None  # rows not settled yet (None: all)
    for shift in (48, 32, 16):
        sel = h if todo is None else h[todo]
        m = len(sel)

        def slots(hh):
            return ((hh >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.intp)
        table = np.zeros(1 << 16, np.uint64)
        for blk in _blocks(m):  # any one value per slot wins
            table[slots(sel[blk])] = sel[blk]
        used = np.zeros(1 << 16, bool)
        hit = np.empty(m, dtype=bool)
        for blk in _blocks(m):
            sl = slots(sel[blk])
            hit[blk] = table[sl] == sel[blk]
            used[sl[hit[blk]]] = True
        slot_code = np.cumsum(used) - 1 + ncodes
        ncodes += int(used.sum())
        if todo is None:
            for blk in _blocks(m):
                codes[blk] = slot_code[slots(sel[blk])]
            if hit.all():
                todo = np.zeros(0, np.int64)
                break
            todo = np.flatnonzero(~hit)
        else:
            codes[todo[hit]] = slot_code[slots(sel[hit])]
            todo = todo[~hit]
        if todo.size == 0:
            break
    else:
        u, inv = np.unique(h[todo], return_inverse=True)
        codes[todo] = ncodes + inv
        ncodes += len(u)
    first = np.full(ncodes, n, dtype=np.int64)
    for blk in _blocks(n):
        np.minimum.at(first, codes[blk], np.arange(blk.start, blk.stop))
    rank = np.argsort(first, kind="stable")
    renum = np.empty(ncodes, np.int64)
    renum[rank] = np.arange(ncodes)
    for blk in _blocks(n):
        codes[blk] = renum[codes[blk]]
    return codes, first[rank]


def _group(m: np.ndarray):
    """Distinct rows of a uint8 matrix: (codes per row, first row of each code)."""
    n, width = m.shape
    if width % 8:
        m = np.concatenate((m, np.zeros((n, 8 - width % 8), np.uint8)), axis=1)
    return _factorize(_hash_rows(np.ascontiguousarray(m).view(np.uint64)))


class _Masked:
    """The file with every digit masked to '0' and PAD zero bytes at both ends, so the
    digit-masked bytes around any position are read from it directly: shapes are hashed from
    8-byte words gathered at the anchors, and only one window per distinct shape is cut."""

    def __init__(self, data: bytes):
        nb = len(data)
        m = np.empty(nb + 2 * PAD, dtype=np.uint8)
        m[:PAD] = 0
        m[PAD + nb:] = 0
        for a in range(0, nb, CHUNK):  # bytes.translate (a C loop), a chunk at a time: no 2nd copy
            piece = data[a:a + CHUNK].translate(_ZERO_DIGITS)
            m[PAD + a:PAD + a + len(piece)] = np.frombuffer(piece, dtype=np.uint8)
        self.m = m
        # every byte offset as the start of a little-endian uint64 (unaligned view, no copy)
        self.words = np.ndarray((len(m) - 7,), dtype="<u8", buffer=m, strides=(1,))

    def windows(self, pos: np.ndarray, back: int, fwd: int) -> np.ndarray:
        """Masked bytes pos-back .. pos+fwd of each position (zeros beyond the file)."""
        return sliding_window_view(self.m, back + fwd)[np.asarray(pos) - back + PAD]

    def group(self, pos: np.ndarray, back: int, fwd: int):
        """Distinct masked windows around positions: (code per position, first position index
        of each code); the same answer as _group(windows) without building the windows."""
        width = back + fwd
        last = np.uint64((1 << (8 * (width % 8))) - 1) if width % 8 else None
        h = np.empty(len(pos), dtype=np.uint64)

        def hash_rows(lo, hi):
            for blk in _blocks(hi, lo):
                start = pos[blk] - back + PAD
                hh = self.words[start]
                hh *= _K
                for j in range(1, -(-width // 8)):
                    start += 8
                    w = self.words[start]
                    if last is not None and 8 * (j + 1) > width:  # bytes past the window: zeros in _group
                        w &= last
                    hh ^= w
                    hh *= _K
                hh ^= hh >> np.uint64(29)
                h[blk] = hh
        _halves(hash_rows, len(pos), ROWS)
        return _factorize(h)


def _raw(b: np.ndarray, pos: np.ndarray, a: int, z: int) -> np.ndarray:
    """Raw bytes pos+a .. pos+z of each position (all inside the file: digits, key text)."""
    return sliding_window_view(b, z - a)[np.asarray(pos) + a]


def _count_before(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """np.searchsorted(a, v) for sorted a and sorted v, in one linear pass over v: the
    binary searches run for the (fewer) elements of a instead."""
    k = np.searchsorted(v, a, side="right")
    return np.repeat(np.arange(len(a) + 1, dtype=np.int64), np.diff(k, prepend=0, append=len(v)))


def _find_byte(b: np.ndarray, v: int) -> np.ndarray:
    """Offsets of every byte equal to v (chunked: no whole-file temporary)."""
    if len(b) <= CHUNK:
        return np.flatnonzero(b == v)
    parts = _halves(lambda lo, hi: [np.flatnonzero(b[a:min(a + CHUNK, hi)] == v) + a
                                    for a in range(lo, hi, CHUNK)], len(b), CHUNK)
    return np.concatenate([x for half in parts for x in half])


def _by_code(codes: np.ndarray, ncodes: int):
    """Row indices grouped by code: (order, starts) so rows of code c are order[starts[c]:starts[c+1]]."""
    small = codes.astype(np.uint16) if ncodes < 65536 else codes
    order = np.argsort(small, kind="stable")  # radix sort for 16-bit keys
    starts = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=ncodes))))
    return order, starts


def _rows_of(codes: np.ndarray, ncodes: int, wanted):
    """(code, its row indices in order) for each code in `wanted`: a few codes take one pass
    over `codes` each, more take one sort (_by_code)."""
    wanted = list(wanted)
    if len(wanted) <= 6:
        for c in wanted:
            yield c, np.flatnonzero(codes == c)
        return
    order, starts = _by_code(codes, ncodes)
    for c in wanted:
        yield c, order[starts[c]:starts[c + 1]]


def _digits_value(b: np.ndarray, base: np.ndarray, cols: list[int]) -> np.ndarray:
    """Integer formed by the digit bytes at offsets base + c (c in `cols`) of b (<= 18 digits)."""
    acc = np.zeros(len(base), dtype=np.int64)
    if not cols:
        return acc
    f = _raw(b, base, min(cols), max(cols) + 1)  # one gather of the bytes, then columns
    for c in cols:
        acc *= 10
        acc += f[:, c - min(cols)]
    return acc - 48 * int("0" + "1" * len(cols))  # every byte was '0' + digit


def _scale(mant: np.ndarray, e10: int | np.ndarray) -> np.ndarray:
    """mant * 10**e10 with one correctly rounded operation (exact for |e10| <= 22)."""
    mf = mant.astype(np.float64)
    if np.ndim(e10) == 0:  # one exponent for all (no 'e' in the number): one operation
        e = int(e10)
        return mf * _POW10[min(e, 700)] if e >= 0 else mf / _POW10[min(-e, 700)]
    e10 = np.clip(np.asarray(e10), -700, 700)
    return np.where(e10 >= 0, mf * _POW10[np.clip(e10, 0, 708)], mf / _POW10[np.clip(-e10, 0, 708)])


def _key_shape(masked: bytes):
    """Key at the end of the bytes before an anchor: (status, start, end, has_digit, pre_len).
    status 0 = none, 1 = key, 2 = may run past the window."""
    m = _KEY_TAIL.search(masked)
    if not m:
        return 0, 0, 0, False, 0
    key = m.group("key")
    if key[-1:] in (b".", b"-", b"/"):
        return 0, 0, 0, False, 0
    start = m.start()
    if start == 0 and masked[0] not in (0, 10, 13):
        return 2, 0, 0, False, 0
    pre = m.group("pre")
    pre_len = 0
    if pre:
        full = (pre + b" " + key).lower()
        if pre.lower().decode() in PREFIX_WORDS or full.decode() in PAIR_NAMES:
            pre_len = len(pre) + 1
        else:
            start = m.start("key")
    return 1, start, m.end("key"), b"0" in key, pre_len


def _value_shape(masked: bytes):
    """Number after an anchor. Returns None (no number), "long", or a layout dict."""
    m = _VALUE.match(masked)
    if not m:
        return None
    spec, intg, frac, dot, exp = m.group("spec"), m.group("int"), m.group("frac"), m.group("dot"), m.group("exp")
    if not spec and not intg and not frac:
        return None
    has_tot = m.group("tot") is not None
    if has_tot and (spec or dot or exp or not intg):
        return None
    unit = m.group("unit")
    if unit and unit != b"%" and unit.split(b"/")[0].lower().decode() not in UNITS:
        return None
    end = m.end()
    if end >= len(masked):
        return "long"
    c = masked[end]
    if c in _WORD:
        return None
    if c in _CONT:
        if end + 1 >= len(masked):
            return "long"
        if masked[end + 1] == 48:
            return None
    lay = {"space": masked[:1] == b" ", "neg": False, "spec": None, "mcols": [], "nfrac": 0,
           "ecols": [], "eneg": False, "tcols": [], "slash": -1, "is_int": False}
    if spec:
        s = spec.lower()
        lay["spec"] = np.nan if s.lstrip(b"+-") == b"nan" else (-np.inf if s[:1] == b"-" else np.inf)
        return lay
    lay["neg"] = m.group("sign") == b"-"
    lay["mcols"] = list(range(m.start("int"), m.end("int")))
    if dot:
        lay["mcols"] += list(range(m.start("frac"), m.end("frac")))
        lay["nfrac"] = len(frac)
    if exp:
        lay["ecols"] = list(range(m.start("exp"), m.end("exp")))
        lay["eneg"] = m.group("es") == b"-"
    lay["is_int"] = not dot and not exp
    if has_tot:
        lay["tcols"] = list(range(m.start("tot"), m.end("tot")))
        lay["slash"] = m.start("slash")
    if len(lay["mcols"]) > MAX_MANT_DIGITS or len(lay["ecols"]) > 3 or len(lay["tcols"]) > 18:
        lay["float"] = (m.start("sign"), m.end("exp") if exp else (m.end("frac") if dot else m.end("int")))
    return lay


class _Keys:
    """Distinct keys of one file: lower-cased text -> id, with the first spelling seen."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.raws: list[str] = []

    def id(self, raw: bytes) -> int:
        text = raw.decode("ascii", "replace")
        low = text.lower()
        i = self.ids.get(low)
        if i is None:
            i = self.ids[low] = len(self.raws)
            self.raws.append(text)
        return i


def _read_anchors(b: np.ndarray, masked: _Masked, pos: np.ndarray, back: int, fwd: int, keys: _Keys,
                  last: bool):
    """Key and number at each anchor. Returns (accepted dict of per-row arrays, positions to
    read again with longer windows). "slash": offset of a '/' in the value from the anchor, -1;
    "total": M of a value "N/M", -1 (None when no value has one).

    One shape per anchor covers both sides (key before, number after): a print statement
    gives the same few shapes on every line, so the regexes run a few dozen times in all."""
    n = len(pos)
    e = np.zeros(0, np.int64)
    empty = {"pos": e, "key": e, "val": np.zeros(0), "is_int": e.astype(bool),
             "is_space": e.astype(bool), "total": None, "slash": e}
    if n == 0:
        return empty, e
    codes, reps = masked.group(pos, back, fwd)
    mk = masked.windows(pos[reps], back, fwd)  # one masked window per distinct shape
    # read each distinct shape once
    kinfo, lays, status = [], [], np.zeros(len(reps), np.int8)  # 0 no, 1 yes, 2 read again
    for c in range(len(reps)):
        lay = _value_shape(mk[c, back:].tobytes())
        k = _key_shape(mk[c, :back].tobytes()) if lay is not None else (0, 0, 0, False, 0)
        kinfo.append(k)
        lays.append(lay)
        if k[0] and lay is not None:
            status[c] = 2 if (k[0] == 2 or isinstance(lay, str)) else 1
    st = status[codes]
    again = e if last else pos[st == 2]
    idx = np.flatnonzero(st == 1)
    if idx.size == 0:
        return empty, again
    # per shape: constant facts broadcast to rows; digits read per group of rows
    cid = codes[idx] if idx.size < n else codes
    del codes, st
    code_kid = np.full(len(reps), -1, dtype=np.int32)
    code_int = np.zeros(len(reps), dtype=bool)
    code_space = np.zeros(len(reps), dtype=bool)
    code_slash = np.full(len(reps), -1, dtype=np.int16)
    for c in np.flatnonzero(status == 1):
        _, a, z, has_digit, _ = kinfo[c]
        if not has_digit:  # the key is the same text in every row of this shape
            p = int(pos[reps[c]]) - back
            code_kid[c] = keys.id(b[p + a:p + z].tobytes())
        lay = lays[c]
        code_int[c], code_space[c], code_slash[c] = lay["is_int"], lay["space"], lay["slash"]
    kid = code_kid[cid]
    val = np.empty(len(idx))
    total = None
    for c, sub in _rows_of(cid, len(reps), np.flatnonzero(status == 1)):
        if sub.size == 0:
            continue
        rows = idx[sub]
        at = pos[rows]  # the anchor: the number's columns count from it
        lay = lays[c]
        _, a, z, has_digit, _ = kinfo[c]
        if has_digit:  # "acc1", "layer.3": the digits are part of the key, read them per row
            kb = _raw(b, at, a - back, z - back)
            g, greps = _group(kb)
            kid[sub] = np.array([keys.id(kb[r].tobytes()) for r in greps], dtype=np.int32)[g]
        if lay["spec"] is not None:
            val[sub] = lay["spec"]
            continue
        if "float" in lay:  # more digits than int64 holds: let float() read these few
            i, j = lay["float"]
            val[sub] = [float(x.tobytes()) for x in _raw(b, at, i, j)]
            continue
        e10 = -lay["nfrac"]
        if lay["ecols"]:
            ex = _digits_value(b, at, lay["ecols"])
            e10 = e10 + (-ex if lay["eneg"] else ex)
        v = _scale(_digits_value(b, at, lay["mcols"]), e10)
        val[sub] = -v if lay["neg"] else v
        if lay["tcols"]:
            if total is None:
                total = np.full(len(idx), -1, dtype=np.int64)
            total[sub] = _digits_value(b, at, lay["tcols"])
    acc = {"pos": pos[idx], "key": kid, "val": val, "is_int": code_int[cid],
           "is_space": code_space[cid], "total": total, "slash": code_slash[cid]}
    return acc, again




def _is_anchor(b: np.ndarray, i: int) -> bool:
    """The test _anchors applies, for one position (the file's first two: their neighbours
    before the file's start read as the file's first byte)."""
    c, n = int(b[i]), int(b[i + 1])
    p1, p2 = int(b[max(i - 1, 0)]), int(b[max(i - 2, 0)])
    if c in (61, 58):
        return not (48 <= p1 <= 57 and 48 <= p2 <= 57)
    return c == 32 and (48 <= n <= 57 or n == 91) and (97 <= (p1 | 32) <= 122 or p1 == 32)


def _anchors(b: np.ndarray, data: bytes, masked: _Masked | None = None) -> np.ndarray:
    """Positions of ':' / '=' after a key-like byte, and of a space between a letter (or spaces)
    and a digit or '['. Cheap single-byte tests first: most ':' in a log are in timestamps.

    Whole-array masks over the digit-masked copy (every digit is '0' there; its zero padding
    stands in for the bytes before the file), a block at a time: whole-file temporaries cost
    more in page faults than the comparisons themselves."""
    nb = len(b)
    if nb < 3:
        return np.zeros(0, np.int64)
    if masked is None:
        masked = _Masked(data)
    M = masked.m

    def scan(lo, hi):  # anchor positions in [lo, hi); spaces before 'n', 'i', '-' (nan/inf?)
        parts, spec = [], []
        sep, t1, t2 = (np.empty(CHUNK, dtype=bool) for _ in range(3))
        u = np.empty(CHUNK, dtype=np.uint8)
        for s0 in range(lo, hi, CHUNK):
            n = min(CHUNK, hi - s0)
            o = PAD + s0
            cur, nxt, p1, p2 = M[o:o + n], M[o + 1:o + 1 + n], M[o - 1:o - 1 + n], M[o - 2:o - 2 + n]
            a, x, y, w = sep[:n], t1[:n], t2[:n], u[:n]
            # ':' or '=', unless right after two digits (a time or a port: "12:00", ":29500")
            np.equal(cur, 61, out=a)
            np.equal(cur, 58, out=x)
            np.logical_or(a, x, out=a)
            np.equal(p1, 48, out=x)
            np.equal(p2, 48, out=y)
            np.logical_and(x, y, out=x)
            np.greater(a, x, out=a)  # a and not x
            # ' ' before a digit or '[', after a letter or a space
            np.equal(nxt, 48, out=x)
            np.equal(nxt, 91, out=y)
            np.logical_or(x, y, out=x)
            np.equal(cur, 32, out=y)
            np.logical_and(x, y, out=x)
            # (a space before 'n', 'i' or '-': where " nan", " inf", " -inf" may start)
            z = w.view(bool)
            np.equal(nxt, 110, out=z)
            np.logical_or(z, nxt == 105, out=z)
            np.logical_or(z, nxt == 45, out=z)
            np.logical_and(z, y, out=z)
            spec.append(np.flatnonzero(z) + s0)
            np.bitwise_or(p1, 32, out=w)
            np.subtract(w, 97, out=w)
            np.less(w, 26, out=y)
            np.logical_and(x, y, out=y)   # ... after a letter
            np.equal(p1, 32, out=w.view(bool))
            np.logical_and(x, w.view(bool), out=x)  # ... after a space
            np.logical_or(x, y, out=x)
            np.logical_or(a, x, out=a)
            if s0 == 0:
                for i in range(min(2, n)):
                    a[i] = _is_anchor(b, i)
            parts.append(np.flatnonzero(a) + s0)
        return parts, spec
    halves = _halves(scan, nb - 1, CHUNK)
    parts = [x for h in halves for x in h[0]]
    # "loss nan" / "loss -inf" (Python prints nan/inf in lower case): the space before them,
    # when the word is not longer ("info", "nano")
    cand = np.concatenate([x for h in halves for x in h[1]])
    at = cand + PAD
    nxt4 = [M[at + k] for k in range(1, 6)]
    not_alpha = [((c | np.uint8(32)) - np.uint8(97)) >= 26 for c in nxt4]
    is_nan = (nxt4[0] == 110) & (nxt4[1] == 97) & (nxt4[2] == 110) & not_alpha[3]
    is_inf = (nxt4[0] == 105) & (nxt4[1] == 110) & (nxt4[2] == 102) & not_alpha[3]
    is_ninf = (nxt4[0] == 45) & (nxt4[1] == 105) & (nxt4[2] == 110) & (nxt4[3] == 102) & not_alpha[4]
    special = cand[is_nan | is_inf | is_ninf]
    pos = np.concatenate(parts + [special])
    if special.size:
        pos.sort(kind="stable")
    return pos


def _progress(b: np.ndarray, masked: _Masked):
    """Bare progress counters `[N/M` (mmcv, timm, tutorials) and tqdm/Keras `N/M [` / `N/M ━`.
    Returns (slash positions, N, M)."""
    sl = _find_byte(b, 47)
    empty = np.zeros(0, np.int64)
    if sl.size == 0:
        return empty, empty, empty
    p1 = b[np.maximum(sl - 1, 0)]
    n1 = b[np.minimum(sl + 1, len(b) - 1)]
    sl = sl[(((p1 - np.uint8(48)) < 10) | (p1 == 32)) & (((n1 - np.uint8(48)) < 10) | (n1 == 32))]
    if sl.size == 0:
        return empty, empty, empty
    codes, reps = masked.group(sl, BACK, FWD)
    mk = masked.windows(sl[reps], BACK, FWD)
    info = []
    for r in range(len(reps)):
        s = mk[r].tobytes()
        mb, mf = _PROG_BACK.search(s[:BACK]), _PROG_FWD.match(s[BACK:])
        if not mb or not mf:
            info.append(None)
            continue
        ctx = s[mb.start("ctx"):mb.start("ctx") + 1]
        if ctx == b"[":  # "Epoch [1/10]" belongs to its key; a bracket right after a word is not bare
            before = s[:mb.start("ctx")].rstrip(b" \t")
            if before and before[-1] in _ALPHA:
                info.append(None)
                continue
        else:
            after = s[BACK + mf.end():BACK + mf.end() + 1]
            if not mf.group("after") or after not in (b"[", b"\xe2"):
                info.append(None)
                continue
        info.append((list(range(mb.start("n"), mb.end("n"))),
                     [BACK + i for i in range(mf.start("m"), mf.end("m"))]))
    order, starts = _by_code(codes, len(reps))
    keep_rows, nv, mv = [], [], []
    for c, inf in enumerate(info):
        if inf is None or len(inf[0]) > 15 or len(inf[1]) > 15:
            continue
        rows = order[starts[c]:starts[c + 1]]
        keep_rows.append(rows)
        nv.append(_digits_value(b, sl[rows] - BACK, inf[0]))
        mv.append(_digits_value(b, sl[rows] - BACK, inf[1]))
    if not keep_rows:
        return empty, empty, empty
    rows = np.concatenate(keep_rows)
    nv, mv = np.concatenate(nv), np.concatenate(mv)
    o = np.argsort(rows, kind="stable")
    rows, nv, mv = rows[o], nv[o], mv[o]
    ok = (nv <= mv) & (mv > 0)
    return sl[rows[ok]], nv[ok], mv[ok]


def _ranks(b: np.ndarray, masked: _Masked, line_starts: np.ndarray) -> np.ndarray | None:
    """Rank per line from `[rank3]:`, `[rank3]`, `rank3:`, `[RANK 3]`, `[default3]:` prefixes
    (torchrun, DeepSpeed); -1 where none. None when no line has one."""
    first = b[line_starts] | np.uint8(32)
    cand = np.flatnonzero(np.isin(first, (ord("["), ord("{"), ord("r"), ord("d"))))
    if cand.size == 0:
        return None
    at = line_starts[cand]
    codes, reps = masked.group(at, 0, FWD)
    mk = masked.windows(at[reps], 0, FWD)
    out = np.full(len(line_starts), -1, dtype=np.int64)
    order, starts = _by_code(codes, len(reps))
    for c in range(len(reps)):
        m = _RANK.match(mk[c].tobytes())
        if not m:
            continue
        rows = order[starts[c]:starts[c + 1]]
        out[cand[rows]] = _digits_value(b, at[rows], list(range(m.start("r"), m.end("r"))))
    return out if (out >= 0).any() else None


# ---- from anchors to series ------------------------------------------------------------------


def _ffill(valid: np.ndarray, group: np.ndarray | None) -> np.ndarray:
    """Index of the last valid entry at or before each position (within `group`), -1 if none."""
    n = len(valid)
    if group is None:
        idx = np.where(valid, np.arange(n), -1)
        return np.maximum.accumulate(idx) if n else idx
    order = np.lexsort((np.arange(n), group))
    v = valid[order]
    idx = np.where(v, np.arange(n), -1)
    idx = np.maximum.accumulate(idx) if n else idx
    g = group[order]
    bad = (idx >= 0) & (g[np.maximum(idx, 0)] != g)
    idx[bad] = -1
    src = np.where(idx >= 0, order[np.maximum(idx, 0)], -1)
    out = np.empty(n, dtype=np.int64)
    out[order] = src
    return out


def _first_per(seg: np.ndarray, vals: np.ndarray, nseg: int, fill=-1, dtype=np.int64):
    """Per segment, the value of the first entry in it (entries sorted by position)."""
    out = np.full(nseg, fill, dtype=dtype)
    if seg.size:
        first = np.r_[True, seg[1:] != seg[:-1]]
        out[seg[first]] = vals[first]
    return out


def _classify_key(raw: str):
    """Role of a key: 'step', 'batch', 'epoch', 'metric' or None (not a metric); and whether
    the space form ("loss 0.5") is trusted for it."""
    low = raw.lower()
    if not low or not (low[0].isalpha() or low[0] == "_"):
        return None, False
    last = low.split()[-1]
    if low in DENY_KEYS or last in DENY_KEYS or low.endswith(FILE_EXTS):
        return None, False
    if low in STEP_KEYS:
        return "step", True
    if low in BATCH_KEYS:
        return "batch", True
    if low in EPOCH_KEYS or last in EPOCH_KEYS:
        return "epoch", True
    space_ok = (normalize(low) in _SPACE_CANON or low.endswith("loss")
                or low in ("acc1", "acc5", "top1", "top5", "ppl"))
    return "metric", space_ok


def extract_metrics(data: bytes, rel: str, run: Run, nl: np.ndarray | None = None) -> list[Series]:
    """All metric series printed in a log (the bytes of the whole file; `nl`: offsets of its
    newlines when the caller has them)."""
    b = np.frombuffer(data, dtype=np.uint8)
    nb = len(b)
    if nb == 0:
        return []
    if nl is None:
        nl = np.flatnonzero(b == 10)
    line_starts = np.concatenate(([0], nl + 1))
    if line_starts[-1] >= nb:
        line_starts = line_starts[:-1]
    cr = _find_byte(b, 13) if b"\r" in data else nl[:0]  # tqdm/Keras redraws: '\r' also ends a segment
    breaks = np.union1d(nl, cr) if cr.size else nl

    masked = _Masked(data)
    pos = _anchors(b, data, masked)
    sl, pn, pm = _progress(b, masked)
    ranks_line = _ranks(b, masked, line_starts)

    # long lines: keep as text, do not mine
    line_len = np.diff(np.concatenate((line_starts, [nb])))
    long_lines = np.flatnonzero(line_len > MAX_METRIC_LINE)
    if long_lines.size:
        run.warnings.append(f"{rel}:{int(long_lines[0]) + 1}: {long_lines.size} line(s) longer than "
                            f"{MAX_METRIC_LINE // 1024} KB; kept as text, no metrics read from them")
        lo, hi = line_starts[long_lines], line_starts[long_lines] + line_len[long_lines]

        def outside(p):
            i = np.searchsorted(lo, p, side="right") - 1
            return ~((i >= 0) & (p < hi[np.maximum(i, 0)]))
        pos = pos[outside(pos)]
        keep = outside(sl)
        sl, pn, pm = sl[keep], pn[keep], pm[keep]

    keys = _Keys()
    acc, again = _read_anchors(b, masked, pos, BACK, FWD, keys, last=False)
    if again.size:
        acc2, _ = _read_anchors(b, masked, again, LONG_BACK, LONG_FWD, keys, last=True)
        # the re-read anchors are few: insert them in position order (no sort of all)
        at = np.searchsorted(acc["pos"], acc2["pos"])
        if (acc["total"] is None) != (acc2["total"] is None):
            for d in (acc, acc2):
                if d["total"] is None:
                    d["total"] = np.full(len(d["pos"]), -1, dtype=np.int64)
        for k in list(acc):  # one array at a time: the old one is freed as the new one is made
            if acc[k] is not None:
                acc[k] = np.insert(acc[k], at, acc2[k])
    del masked
    pos, kid, val, is_int = acc["pos"], acc["key"], acc["val"], acc["is_int"]

    # per distinct key (few): role, and whether the space form ("loss 0.5") is trusted for it
    code_of = {"metric": 1, "step": 2, "batch": 3, "epoch": 4}
    roles, space_ok = np.zeros(len(keys.raws), np.int8), np.zeros(len(keys.raws), bool)
    for i, raw in enumerate(keys.raws):
        r, sp = _classify_key(raw)
        roles[i], space_ok[i] = code_of.get(r, 0), sp
    role = roles[kid] if len(kid) else np.zeros(0, np.int8)
    ok = (role > 0) & (~acc["is_space"] | space_ok[kid])
    total, slash = acc["total"], acc["slash"]
    del acc  # a million-line log has millions of anchors: no array more than needed at once
    if not ok.all():
        pos, kid, role, val, is_int = pos[ok], kid[ok], role[ok], val[ok], is_int[ok]
        total, slash = None if total is None else total[ok], slash[ok]
    del ok

    # a '/' inside a keyed value ("Epoch 3/10", "Step [100/600]") is not a bare counter
    if sl.size and (slash >= 0).any():
        has = slash >= 0
        keep = ~np.isin(sl, pos[has] + slash[has])
        sl, pn, pm = sl[keep], pn[keep], pm[keep]
    del slash
    tables = _tables(data, rel, nl)
    if not ((role == 1) | (role == 4)).any():
        return tables

    nseg = len(breaks) + 1
    seg = _count_before(breaks, pos) if len(breaks) < len(pos) else np.searchsorted(breaks, pos)
    # counters (step, batch, epoch): whole numbers
    cnt = np.flatnonzero(role >= 2)
    c_val, c_role, c_seg = val[cnt], role[cnt], seg[cnt]
    finite = np.isfinite(c_val)
    integral = finite & (c_val >= 0) & (c_val == np.floor(np.where(finite, c_val, 0))) & is_int[cnt]
    ival = np.where(integral, c_val, -1).astype(np.int64)
    c_total = total[cnt] if total is not None else np.full(len(cnt), -1, dtype=np.int64)
    del total, is_int, finite, c_val

    def first_of(code):  # "epoch: 1.0" (HF) is a fraction that happens to be whole, not a counter
        m = (c_role == code) & integral
        return _first_per(c_seg[m], ival[m], nseg), _first_per(c_seg[m], c_total[m], nseg)

    S, S_tot = first_of(2)
    B, B_tot = first_of(3)
    E, _ = first_of(4)
    if sl.size:
        sseg = np.searchsorted(breaks, sl)
        P = np.where(B >= 0, B, _first_per(sseg, pn, nseg))
        P_tot = np.where(B >= 0, B_tot, _first_per(sseg, pm, nseg))
    else:
        P, P_tot = B, B_tot

    seg_rank = None
    if ranks_line is not None:
        seg_start = np.concatenate(([0], breaks + 1))
        seg_rank = ranks_line[np.minimum(np.searchsorted(nl, seg_start, side="right"), len(ranks_line) - 1)]

    step = _segment_steps(S, S_tot, P, P_tot, E, seg_rank)
    own = step >= 0
    # a line with no step of its own takes the last step printed before it (an eval line after
    # a train line; an HF dict printed right after the progress bar reached that step)
    src = _ffill(own, seg_rank)
    carried = ~own & (src >= 0)
    step[carried] = step[src[carried]]

    # metric points, one series per (key, rank)
    m = (role == 1) | (role == 4)
    if not m.all():
        kid, val, seg, pos = kid[m], val[m], seg[m], pos[m]
    del m, role
    if seg_rank is not None:
        prank = seg_rank[seg]
        gkey = kid * (int(prank.max()) + 2) + (prank + 1)
    else:
        prank, gkey = None, kid
    gcodes, greps = _factorize(_hash_rows(gkey.astype(np.uint64)[:, None]))  # mixed: small ints share top bits
    del gkey
    same_breaks = len(breaks) == len(nl)  # no '\r': segments are lines
    out = []
    for c, idx in _rows_of(gcodes, len(greps), range(len(greps))):
        # An eval metric may be printed once (a final test accuracy); training series need two points.
        need = 1 if normalize(keys.raws[int(kid[idx[0]])]).startswith("val_") else 2
        if len(idx) < need:
            continue
        sg = seg[idx]
        lc = sg + 1 if same_breaks else np.searchsorted(nl, pos[idx]) + 1
        st, v, cr = step[sg], val[idx], carried[sg]
        # the same value at the same step again (two log handlers, an epoch repeated in the
        # eval dict) is one point
        same = (st[1:] >= 0) & (st[1:] == st[:-1]) & (
            (v[1:] == v[:-1]) | (np.isnan(v[1:]) & np.isnan(v[:-1])))
        if same.any():
            keep = np.r_[True, ~same]
            st, v, lc, cr = st[keep], v[keep], lc[keep], cr[keep]
        st, is_index, keep = _finish_steps(st, cr)
        v, lc = v[keep], lc[keep]
        if len(v) < need:
            continue
        raw = keys.raws[int(kid[idx[0]])]
        r = -1 if prank is None else int(prank[idx[0]])
        out.append(Series(name=normalize(raw), raw_name=raw, steps=st, values=v, source=rel,
                          locs=lc, loc_kind=LOC_LINE, step_is_index=is_index,
                          rank=None if r < 0 else r))
    return out + tables


# A header of a whitespace-aligned table pads its cells: "epoch     train_loss  valid_loss".
_TABLE_TRIGGER = b"loss  "
_TABLE_HEADER = re.compile(rb"[ \t]*[A-Za-z_][\w/.\-]*(?:[ \t]{2,}[A-Za-z_][\w/.\-]*)+[ \t]*\Z")
MAX_TABLE_HEADERS = 200  # trigger hits examined per file (a table header is printed once or per epoch)


def _float_or_none(cell: bytes):
    try:
        return float(cell)
    except ValueError:
        return None


def _tables(data: bytes, rel: str, nl: np.ndarray) -> list[Series]:
    """Whitespace-aligned metric tables inside a log: fastai's per-epoch table, a printed
    pandas DataFrame of the history. One series per numeric column; step = the epoch column,
    else the row index. Rows end at the first line that is not a row of the table."""
    if _TABLE_TRIGGER not in data:
        return []
    out, seen = [], set()
    for k, m in enumerate(re.finditer(re.escape(_TABLE_TRIGGER), data)):
        if k >= MAX_TABLE_HEADERS:
            break
        ls = data.rfind(b"\n", 0, m.start()) + 1
        if ls in seen:
            continue
        seen.add(ls)
        le = data.find(b"\n", m.start())
        le = len(data) if le < 0 else le
        header = data[ls:le].rstrip(b"\r")
        if not _TABLE_HEADER.match(header):
            continue
        names = [h.decode("ascii", "replace") for h in header.split()]
        line = int(np.searchsorted(nl, ls)) + 1
        rows, pos = [], le + 1
        while pos < len(data):
            e = data.find(b"\n", pos)
            e = len(data) if e < 0 else e
            cells = data[pos:e].split()
            if len(cells) == len(names) + 1:   # pandas prints its index first
                cells = cells[1:]
            vals = [_float_or_none(c) for c in cells] if len(cells) == len(names) else []
            if not vals or sum(v is not None for v in vals) * 2 < len(vals):
                break
            line += 1
            rows.append((line, vals))
            pos = e + 1
        if len(rows) < 2:
            continue
        locs = np.array([r[0] for r in rows], dtype=np.int64)
        cols = {n: np.array([np.nan if r[1][j] is None else r[1][j] for r in rows]) for j, n in enumerate(names)}
        lower = {n.lower(): n for n in names}
        step_col = next((lower[c] for c in ("epoch", "step", "iteration", "iter") if c in lower), None)
        if step_col is not None and np.isfinite(cols[step_col]).all():
            steps, is_index = cols[step_col].astype(np.int64), False
        else:
            step_col, steps, is_index = None, np.arange(len(rows), dtype=np.int64), True
        for n, v in cols.items():
            if n == step_col or np.isnan(v).all():  # a time column ("00:01") is not a metric
                continue
            out.append(Series(name=normalize(n), raw_name=n, steps=steps, values=v, source=rel,
                              locs=locs, loc_kind=LOC_LINE, step_is_index=is_index))
    return out


def _segment_steps(S, S_tot, P, P_tot, E, seg_rank) -> np.ndarray:
    """Step of each segment (-1 = none) from its explicit step S, its progress counter P
    (batch N, [N/M], N/M [) and its epoch E, all -1 where absent.

    An epoch printed on a line of its own (Keras "Epoch 3/10") carries to the lines after it.
    A counter that restarts every epoch ("Epoch [2/10], Step [100/600]") becomes global:
    (epoch - first_epoch) * steps_per_epoch + counter.
    """
    src = _ffill(E >= 0, seg_rank)
    Ec = np.where(src >= 0, E[np.maximum(src, 0)], -1)
    e_base = 1 if (Ec >= 0).any() and Ec[Ec >= 0].min() >= 1 else 0
    step = np.full(len(S), -1, dtype=np.int64)

    def globalise(X, X_tot, has):
        idx = np.flatnonzero(has & (Ec >= 0))
        out = X.copy()
        if idx.size < 2:
            return out
        x, e = X[idx], Ec[idx]
        if not np.any((np.diff(x) < 0) & (np.diff(e) > 0)):
            return out
        tot = X_tot[idx]
        per = int(tot.max()) if (tot > 0).any() else int(x.max() + (1 if x.min() == 0 else 0))
        out[idx] = (e - e_base) * per + x
        return out

    hasS = S >= 0
    step[hasS] = globalise(S, S_tot, hasS)[hasS]
    hasP = (P >= 0) & ~hasS
    if hasP.any():
        pidx = np.flatnonzero(hasP)
        # Keras file logs show only each epoch's last batch ("100/100"): the epoch is the step
        if np.all((P[pidx] == P_tot[pidx]) & (Ec[pidx] >= 0)):
            step[pidx] = Ec[pidx]
        else:
            step[pidx] = globalise(P, P_tot, hasP)[pidx]
    hasE = (E >= 0) & (step < 0)
    step[hasE] = E[hasE]
    return step


# Carried steps that collide this often mean the log printed one step and then many stepless
# lines: their order is a better x axis than a repeated step.
MAX_CARRIED_DUP_SHARE = 0.1


def _finish_steps(st: np.ndarray, carried: np.ndarray) -> tuple[np.ndarray, bool, np.ndarray]:
    """Steps of one series (-1 = none) -> (steps, step_is_index, points kept).

    Mostly stepless: the running index. Stepless points before the first step are dropped
    (a config echo such as `Namespace(lr=[0.0005])` is not a point of the lr curve); later
    ones take the step before them."""
    n = len(st)
    keep = np.ones(n, dtype=bool)
    miss = st < 0
    if miss.all() or miss.mean() > 0.5:
        return np.arange(n, dtype=np.int64), True, keep
    if miss.any():
        first = int(np.flatnonzero(~miss)[0])
        keep[:first] = False
        idx = np.maximum.accumulate(np.where(~miss, np.arange(n), -1))
        st = st[np.maximum(idx, 0)]
    st = st[keep]
    if carried[keep].mean() > 0.5 and (len(st) - len(np.unique(st))) > MAX_CARRIED_DUP_SHARE * len(st):
        return np.arange(len(st), dtype=np.int64), True, keep
    return st, False, keep


# ---- the reader ------------------------------------------------------------------------------

_YAML_LINE = re.compile(r"^(?:[ \t]*(?:#.*|-[ \t].*|-|[A-Za-z_][\w.\-]*[ \t]*:(?:[ \t].*)?))?$")
_LOG_HINT = re.compile(r"\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d|Traceback|\b(?:INFO|WARNING|ERROR|DEBUG)\b")


def text_kind(path: Path, text: str) -> str:
    """'code', 'config', 'text' or 'log' for a file (by extension, then by content)."""
    name = path.name.lower()
    for suf in (".gz",):
        if name.endswith(suf):
            name = name[: -len(suf)]
    ext = Path(name).suffix
    if ext in CODE_EXT:
        return "code"
    if ext in CONFIG_EXT or name in ("dockerfile", "requirements.txt", "environment.yml"):
        return "config"
    if ext in TEXT_EXT:
        return "text"
    if ext in ("", ".txt", ".cfg", ".out") and len(text) <= MAX_CONFIG_SNIFF and _looks_like_config(text):
        return "config"
    return "log"


def _looks_like_config(text: str) -> bool:
    """Clearly a JSON object or a YAML mapping (not a log that happens to say `loss: 0.5`)."""
    s = text.lstrip()
    if not s or _LOG_HINT.search(text[:4096]):
        return False
    if s[0] == "{":
        try:
            return isinstance(json.loads(s), dict)
        except ValueError:
            return False
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) < 3 or not all(_YAML_LINE.match(ln) for ln in lines):
        return False
    top = [ln.split(":", 1)[0] for ln in lines if ln[:1].isalpha() or ln[:1] == "_"]
    if len(top) != len(set(top)):  # repeated top-level keys: a log of "loss: ..." lines
        return False
    try:
        import yaml
        return isinstance(yaml.safe_load(text), dict)
    except Exception:
        return False


def sniff(path: Path, head: bytes) -> bool:
    """The last reader takes every file (binary ones only to say they were skipped)."""
    return True


def read(path: Path, rel: str, run: Run) -> None:
    """Append a TextArtifact (and, for logs, metric series) to `run`; warnings for bad input."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError as e:
        run.warnings.append(f"{rel}: cannot read ({e.strerror or e})")
        return
    if head[:2] != b"\x1f\x8b" and is_binary(head):
        run.warnings.append(f"{rel}: binary file, skipped")
        return
    data = read_bytes(path)
    if not data:
        run.warnings.append(f"{rel}: empty file")
        return
    if is_binary(data[:4096]):  # a gzip of something binary
        run.warnings.append(f"{rel}: binary file, skipped")
        return
    nl = _find_byte(np.frombuffer(data, dtype=np.uint8), 10)
    series = None
    if data.isascii() and len(data) > MAX_CONFIG_SNIFF:
        # A big ASCII log: its kind follows from its name alone (content is sniffed only up to
        # MAX_CONFIG_SNIFF), so its metrics are read before the text is decoded, and the
        # reader's temporaries and the decoded copy are never held at once.
        kind = text_kind(path, "")
        if kind == "log":
            series = extract_metrics(data, rel, run, nl)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = data.count(b"\n", 0, e.start) + 1
        run.warnings.append(f"{rel}:{bad}: not valid UTF-8; undecodable bytes replaced")
        text = data.decode("utf-8", errors="replace")
    kind = text_kind(path, text)
    art = TextArtifact(path=rel, abspath=path, kind=kind, text=text)
    if data.isascii():  # byte offsets are character offsets: reuse the newline scan
        art._starts = np.concatenate(([0], nl + 1)).astype(np.int64)
    run.texts.append(art)
    if kind == "log":
        run.series.extend(series if series is not None else extract_metrics(data, rel, run, nl))
