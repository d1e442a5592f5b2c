"""Whole-array numpy primitives the log scanner is built from (no regex, no per-line loop).

In:  the bytes of a file as a uint8 array, and positions (offsets) in it.
Out: windows of bytes around positions (`byte_windows`, `Masked.windows`), equal rows
     numbered (`factorize`, `group_rows`, `Masked.group`), rows per code (`by_code`,
     `rows_of`), numbers from digit columns (`digits_value`, `scale_pow10`), byte search
     (`find_byte`) and a two-thread split of whole-file passes (`split_halves`; `one_thread`
     keeps it on the calling thread).
"""
from __future__ import annotations

import os
import threading
from contextlib import contextmanager

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


_K = np.uint64(0x9E3779B97F4A7C15)
_POW10 = np.array([float(f"1e{k}") for k in range(0, 309)] + [np.inf] * 400)


def byte_windows(b: np.ndarray, pos: np.ndarray, back: int, fwd: int) -> np.ndarray:
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


# Zero bytes on both sides of the masked copy: at least the longest window reach.
PAD = 64
# Whole-file byte masks are built this many bytes at a time: a fresh 100 MB temporary per
# operation costs more in page faults than the comparison itself.
CHUNK = 1 << 22


def hash_rows(words: np.ndarray) -> np.ndarray:
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


def row_blocks(n: int, lo: int = 0):
    return (slice(a, min(a + ROWS, n)) for a in range(lo, n, ROWS))


_THREAD = threading.local()


@contextmanager
def one_thread():
    """Within (on this thread): split_halves runs its work in one call. For work that already
    runs on a thread of its own, next to others (blocks prepared in parallel, textlog._read_log)."""
    prev = getattr(_THREAD, "one", False)
    _THREAD.one = True
    try:
        yield
    finally:
        _THREAD.one = prev


def split_halves(fn, n: int, align: int) -> list:
    """[fn(0, mid), fn(mid, n)] with the halves run on two threads (numpy releases the GIL in
    its loops, so whole-array passes over a big file take half the time on two cores); one
    call fn(0, n) when the work is small, there is one core, or within one_thread(). mid is a
    multiple of align."""
    mid = (n // 2) // align * align
    if mid == 0 or (os.cpu_count() or 1) < 2 or getattr(_THREAD, "one", False):
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


# Up to this many values, factorize sorts (np.unique); above, its table passes are cheaper.
FACTORIZE_SORT_MAX = 1 << 14


def factorize(h: np.ndarray):
    """Equal values of a uint64 array: (code per value, numbered by first appearance; index of
    the first value of each code). Like pandas.factorize, without importing pandas: a table of
    2**16 slots keyed by 16 bits of the value settles the few distinct values a log has in a
    few O(n) passes; values that lost their slot to another value try the next 16 bits, and
    what is left after three tries is sorted (np.unique)."""
    n = len(h)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if n <= FACTORIZE_SORT_MAX:   # a small file: one sort beats three passes over 2**16-slot tables
        _, first, inv = np.unique(h, return_index=True, return_inverse=True)
        rank = np.argsort(first, kind="stable")
        renum = np.empty(len(first), np.int64)
        renum[rank] = np.arange(len(first))
        return renum[inv.ravel()], first[rank].astype(np.int64)
    codes = np.empty(n, dtype=np.int64)
    ncodes = 0
    todo = None  # rows not settled yet (None: all)
    for shift in (48, 32, 16):
        sel = h if todo is None else h[todo]
        m = len(sel)

        def slots(hh):
            return ((hh >> np.uint64(shift)) & np.uint64(0xFFFF)).astype(np.intp)
        table = np.zeros(1 << 16, np.uint64)
        for blk in row_blocks(m):  # any one value per slot wins
            table[slots(sel[blk])] = sel[blk]
        used = np.zeros(1 << 16, bool)
        hit = np.empty(m, dtype=bool)
        for blk in row_blocks(m):
            sl = slots(sel[blk])
            hit[blk] = table[sl] == sel[blk]
            used[sl[hit[blk]]] = True
        slot_code = np.cumsum(used) - 1 + ncodes
        ncodes += int(used.sum())
        if todo is None:
            for blk in row_blocks(m):
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
    for blk in row_blocks(n):
        np.minimum.at(first, codes[blk], np.arange(blk.start, blk.stop))
    rank = np.argsort(first, kind="stable")
    renum = np.empty(ncodes, np.int64)
    renum[rank] = np.arange(ncodes)
    for blk in row_blocks(n):
        codes[blk] = renum[codes[blk]]
    return codes, first[rank]


def group_rows(m: np.ndarray):
    """Distinct rows of a uint8 matrix: (codes per row, first row of each code)."""
    n, width = m.shape
    if width % 8:
        m = np.concatenate((m, np.zeros((n, 8 - width % 8), np.uint8)), axis=1)
    return factorize(hash_rows(np.ascontiguousarray(m).view(np.uint64)))


class Masked:
    """The file with every digit masked to '0' and PAD zero bytes at both ends, so the
    digit-masked bytes around any position are read from it directly: shapes are hashed from
    the 8-byte words of each anchor's window (one gather per window), and only one window per
    distinct shape is cut."""

    def __init__(self, data: bytes):
        nb = len(data)
        m = np.empty(nb + 2 * PAD, dtype=np.uint8)
        m[:PAD] = 0
        m[PAD + nb:] = 0
        b = np.frombuffer(data, dtype=np.uint8)
        # digit bytes minus their value, a chunk at a time (four SIMD passes; bytes.translate's
        # table loop ran at ~1 byte/ns, 4.3 ms of a 4 MB block against 1.2 ms)
        d = np.empty(min(nb, CHUNK), dtype=np.uint8)
        digit = np.empty(len(d), dtype=bool)
        for a in range(0, nb, CHUNK):
            n = min(CHUNK, nb - a)
            np.subtract(b[a:a + n], np.uint8(48), out=d[:n])     # wraps below '0'
            np.less(d[:n], 10, out=digit[:n])
            np.multiply(d[:n], digit[:n], out=d[:n])             # a digit's value, 0 for any other byte
            np.subtract(b[a:a + n], d[:n], out=m[PAD + a:PAD + a + n])
        self.m = m

    def windows(self, pos: np.ndarray, back: int, fwd: int) -> np.ndarray:
        """Masked bytes pos-back .. pos+fwd of each position (zeros beyond the file)."""
        pos = np.asarray(pos)
        if len(pos) <= 256:
            return self.m[(pos - back + PAD)[:, None] + np.arange(back + fwd)]
        return sliding_window_view(self.m, back + fwd)[pos - back + PAD]

    def group(self, pos: np.ndarray, back: int, fwd: int):
        """Distinct masked windows around positions: (code per position, first position index
        of each code); the same answer as group_rows(windows) without building the windows."""
        width = back + fwd
        nw = -(-width // 8)
        last = np.uint64((1 << (8 * (width % 8))) - 1) if width % 8 else None
        h = np.empty(len(pos), dtype=np.uint64)
        # every byte offset as the start of an (8 * nw)-byte item: one gather copies each window's
        # words (half the time of nw separate 8-byte gathers)
        items = np.ndarray((len(self.m) - 8 * nw + 1,), dtype=f"V{8 * nw}", buffer=self.m, strides=(1,))

        def hash_rows(lo, hi):
            for blk in row_blocks(hi, lo):
                rows = items[pos[blk] - back + PAD].view("<u8").reshape(-1, nw)
                hh = None
                for j in range(nw):
                    w = rows[:, j]
                    if last is not None and j == nw - 1:  # bytes past the window: zeros in group_rows
                        w = w & last
                    if hh is None:
                        hh = w * _K
                    else:
                        hh ^= w
                        hh *= _K
                hh ^= hh >> np.uint64(29)
                h[blk] = hh
        split_halves(hash_rows, len(pos), ROWS)
        return factorize(h)


def _hugepage_switch():
    """numpy's (private) switch for madvise(MADV_HUGEPAGE) on big arrays; None where it has none."""
    try:
        from numpy._core import multiarray  # noqa: PLC0415 - numpy >= 2 only; optional switch
    except ImportError:  # pragma: no cover - older or other numpy: nothing to switch
        return None
    return getattr(multiarray, "_set_madvise_hugepage", None)


_set_madvise_hugepage = _hugepage_switch()


@contextmanager
def small_pages():
    """Within: numpy's big arrays without madvise(MADV_HUGEPAGE). The reader allocates and frees
    block-sized temporaries all the time; with huge pages each first touch may compact memory to
    find a 2 MB page (THP defrag=madvise), which cost ~3 s of system time on a 10M-line log
    (1.4 s without; the same user time)."""
    if _set_madvise_hugepage is None:
        yield
        return
    prev = _set_madvise_hugepage(False)
    try:
        yield
    finally:
        _set_madvise_hugepage(prev)


def _libc(name: str, *argtypes: str):
    """glibc's function `name` with its ctypes argument types (named), or None where there is none."""
    try:
        import ctypes  # noqa: PLC0415 - only where glibc is there to ask
        fn = getattr(ctypes.CDLL("libc.so.6"), name)
        fn.argtypes = [getattr(ctypes, t) for t in argtypes]
        return fn
    except (ImportError, OSError, AttributeError):
        return None


_TRIM = _libc("malloc_trim", "c_size_t")
_MALLOPT = _libc("mallopt", "c_int", "c_int")
# mallopt's parameters (malloc.h) and what a reused heap sets them to: blocks up to HEAP_REUSE_BYTES
# come from the heap, which keeps up to twice that free at its top instead of giving it back at once
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
HEAP_REUSE_BYTES = 256 * 1024 * 1024
# What they are set back to: glibc's dynamic threshold's own ceiling on 64-bit (a numpy process
# reaches it soon after its first big temporary is freed) and the trim threshold it pairs with.
_MMAP_AFTER, _TRIM_AFTER = 32 * 1024 * 1024, 64 * 1024 * 1024


@contextmanager
def reused_heap():
    """Within: glibc serves the big temporaries from its heap instead of a fresh mmap each. A reader
    that allocates and frees block-sized arrays all the time otherwise pays a page fault and a page
    clearing per 4 KB of each new array (a 10M-line log: 500,000 faults, 2-3 s of system time).
    On exit the thresholds are set to what glibc's own dynamic ones end at and the freed heap is
    trimmed (release_memory), so memory stays bounded. A no-op where there is no glibc."""
    if _MALLOPT is None:
        yield
        return
    _MALLOPT(_M_MMAP_THRESHOLD, HEAP_REUSE_BYTES)
    _MALLOPT(_M_TRIM_THRESHOLD, 2 * HEAP_REUSE_BYTES)
    # One malloc arena for the process's threads from here on (not set back: glibc has no "unset",
    # and nothing gains from more). The reader's workers and the curve analyzers' side thread each
    # got an arena of their own, whose 64 MB heaps glibc hands back whole when they empty, whatever
    # the trim threshold, so their temporaries came back as fresh pages. Python threads allocate
    # under the GIL, so one arena costs them little. 10M-line default log, 4 interleaved pairs:
    # page faults 610k -> 400k, system CPU 2.8-3.6 -> 2.1-2.6 s, ingest 0.5-1.1 s and analyze
    # 0.2-0.3 s shorter in every pair.
    _MALLOPT(_M_ARENA_MAX, 1)
    try:
        yield
    finally:
        _MALLOPT(_M_MMAP_THRESHOLD, _MMAP_AFTER)
        _MALLOPT(_M_TRIM_THRESHOLD, _TRIM_AFTER)
        release_memory()


def release_memory() -> None:
    """Hand freed memory back to the OS (glibc keeps numpy's freed temporaries in its heap, so a
    reader that works a block at a time would otherwise hold its largest block's worth for good).
    A no-op where there is no glibc."""
    if _TRIM is not None:
        _TRIM(0)


def raw_bytes_at(b: np.ndarray, pos: np.ndarray, a: int, z: int) -> np.ndarray:
    """Raw bytes pos+a .. pos+z of each position (all inside the file: digits, key text)."""
    pos = np.asarray(pos)
    if len(pos) <= 256:     # few rows: index directly (building a window view costs more)
        return b[(pos + a)[:, None] + np.arange(z - a)]
    if z - a <= 8 and b.flags.c_contiguous and len(b) >= 8 and int(pos.max()) + a + 8 <= len(b):
        # one unaligned 8-byte word per row: a plain gather, ~2x faster than copying short rows
        words = np.ndarray((len(b) - 7,), dtype=np.uint64, buffer=b, strides=(1,))
        return words[pos + a].view(np.uint8).reshape(len(pos), 8)[:, :z - a]
    return sliding_window_view(b, z - a)[pos + a]


def count_before(a: np.ndarray, v: np.ndarray) -> np.ndarray:
    """np.searchsorted(a, v) for sorted a and sorted v, in one linear pass over v: the
    binary searches run for the (fewer) elements of a instead."""
    k = np.searchsorted(v, a, side="right")
    return np.repeat(np.arange(len(a) + 1, dtype=np.int64), np.diff(k, prepend=0, append=len(v)))


def starts_with_any(b: np.ndarray, starts: np.ndarray, first: bytes) -> np.ndarray:
    """Indexes of the `starts` whose byte in `b`, lower-cased (| 32), is one of `first` (lower-case):
    one compare per byte value (np.isin costs ~15x as much on a block's 80,000 line starts)."""
    c = b[starts] | np.uint8(32)
    hit = c == first[0]
    for v in first[1:]:
        hit |= c == v
    return np.flatnonzero(hit)


def find_byte(b: np.ndarray, v: int) -> np.ndarray:
    """Offsets of every byte equal to v (chunked: no whole-file temporary)."""
    if len(b) <= CHUNK:
        return np.flatnonzero(b == v)
    parts = split_halves(lambda lo, hi: [np.flatnonzero(b[a:min(a + CHUNK, hi)] == v) + a
                                    for a in range(lo, hi, CHUNK)], len(b), CHUNK)
    return np.concatenate([x for half in parts for x in half])


def by_code(codes: np.ndarray, ncodes: int):
    """Row indices grouped by code: (order, starts) so rows of code c are order[starts[c]:starts[c+1]]."""
    small = codes.astype(np.uint16) if ncodes < 65536 else codes
    order = np.argsort(small, kind="stable")  # radix sort for 16-bit keys
    starts = np.concatenate(([0], np.cumsum(np.bincount(codes, minlength=ncodes))))
    return order, starts


def rows_of(codes: np.ndarray, ncodes: int, wanted):
    """(code, its row indices in order) for each code in `wanted`: a few codes take one pass
    over `codes` each, more take one sort (by_code)."""
    wanted = list(wanted)
    if len(wanted) <= 6:
        for c in wanted:
            yield c, np.flatnonzero(codes == c)
        return
    order, starts = by_code(codes, ncodes)
    for c in wanted:
        yield c, order[starts[c]:starts[c + 1]]


def digits_value(b: np.ndarray, base: np.ndarray, cols: list[int]) -> np.ndarray:
    """Integer formed by the digit bytes at offsets base + c (c in `cols`) of b (<= 18 digits)."""
    acc = np.zeros(len(base), dtype=np.int64)
    if not cols:
        return acc
    f = raw_bytes_at(b, base, min(cols), max(cols) + 1)  # one gather of the bytes, then columns
    for c in cols:
        acc *= 10
        acc += f[:, c - min(cols)]
    return acc - 48 * int("0" + "1" * len(cols))  # every byte was '0' + digit


def scale_pow10(mant: np.ndarray, e10: int | np.ndarray) -> np.ndarray:
    """mant * 10**e10 with one correctly rounded operation (exact for |e10| <= 22)."""
    mf = mant.astype(np.float64)
    if np.ndim(e10) == 0:  # one exponent for all (no 'e' in the number): one operation
        e = int(e10)
        return mf * _POW10[min(e, 700)] if e >= 0 else mf / _POW10[min(-e, 700)]
    e10 = np.clip(np.asarray(e10), -700, 700)
    # (both branches are computed: one that overflows to inf where the other was chosen, or a printed
    # 1e309, which float() reads as inf too, is no news for the user's terminal)
    with np.errstate(over="ignore"):
        return np.where(e10 >= 0, mf * _POW10[np.clip(e10, 0, 708)], mf / _POW10[np.clip(-e10, 0, 708)])
