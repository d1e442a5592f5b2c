"""TensorBoard event files (`events.out.tfevents.*`) -> one Series per scalar tag.

In:  an event file (TFRecord framing: uint64 length, uint32 masked CRC32C of the
     length, payload, uint32 masked CRC32C of the payload; payloads are `Event` protos).
Out: `run.series` gets every scalar point of every tag (old-style `simple_value`
     and new-style 1-element float/double `tensor`), steps from `Event.step`,
     locs = record index in the file (`loc_kind="record"`). Nothing is dropped
     (TensorBoard's own loader keeps 10,000 points per tag by default). A legacy
     histogram of a gradient (`add_histogram("fc1.weight.grad", p.grad)`) is one point of
     `grad_norm/<layer>`: sqrt of its sum of squares, the gradient's exact L2 norm; other
     histograms (weights, activations) are no curve.

Speed: no per-record protobuf parsing. Writers log the same tags in the same
order every step, so the sequence of record lengths is periodic. The framing walk
finds the period and then checks whole blocks of record headers with numpy
(every header is compared byte for byte, CRC of the length included, so the
chain of offsets is exact). Decoding parses one record of each layout in Python
("template"), checks with numpy that other records have byte-identical structure
(everything except wall_time, step and the value bytes), and reads step and
value columns from all matching records at once. Records of other layouts
(histograms, images, text, odd tags) are decoded one by one.

A truncated last record (the run is still writing) is silently ignored; a bad
header in the middle is one warning, and the records before it are kept.
Payload CRCs are not checked (lengths and header CRCs are).

Several event files in one folder (a restarted job) are merged per tag by `finish(run)`, which
ingest calls once every file is read.
"""
from __future__ import annotations

import math
import struct
from array import array
from pathlib import Path

import numpy as np

from mltdbg.analyzers.model import LOC_RECORD, Run, Series
from mltdbg.analyzers.names import normalize
from mltdbg.analyzers.readers.protowire import iter_fields, read_varint

# ---------------------------------------------------------------- CRC32C (header checks only: 8 bytes)
_CRC_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _CRC_TABLE.append(_c)


def _crc32c(data: bytes) -> int:
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _masked_crc(data: bytes) -> int:
    c = _crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


_HEADER_CACHE: dict[int, bytes] = {}


def record_header(length: int) -> bytes:
    """The 12 header bytes a valid record of this payload length starts with."""
    h = _HEADER_CACHE.get(length)
    if h is None:
        lb = struct.pack("<Q", length)
        h = lb + struct.pack("<I", _masked_crc(lb))
        if len(_HEADER_CACHE) < 65536:
            _HEADER_CACHE[length] = h
    return h


# ---------------------------------------------------------------- sniff

def sniff(path: Path, head: bytes) -> bool:
    """Claim files named *tfevents* and any file whose first record is an Event
    carrying `file_version` "brain.Event:..."."""
    if "tfevents" in path.name:
        return True
    if len(head) < 16:
        return False
    n = int.from_bytes(head[:8], "little")
    return (n < 4096 and head[8:12] == record_header(n)[8:] and head[12:13] == b"\x09"
            and b"brain.Event:" in head[12:12 + n])


# ---------------------------------------------------------------- framing

_MAX_PERIOD = 1024


def _find_period(hist) -> int:
    """Smallest P such that the last P lengths repeat the P before them (0 if none)."""
    n = len(hist)
    last = hist[-1]
    for p in range(1, min(_MAX_PERIOD, n // 2) + 1):
        if hist[-1 - p] == last and hist[-p:] == hist[-2 * p:-p]:
            return p
    return 0


def _frame(buf: bytes):
    """Walk the record chain.

    Returns (blocks, singles, error):
      blocks:  [(offset, first_index, stride, lengths, M)]: M repeats of a
               period of len(lengths) records starting at offset
      singles: (offsets, lengths, indexes) int64 arrays of records walked one by one
      error:   None, or (index, offset) of the first bad header
    """
    N = len(buf)
    blocks: list = []
    s_off, s_len, s_idx = array("q"), array("q"), array("q")
    known: dict[bytes, int] = {}      # valid 12-byte header -> payload length
    p = idx = 0
    walked = 0                        # records walked one by one since the last block
    wait = 2                          # walk this many before looking for a period (backs off)
    next_test = wait
    error = None
    while True:
        if N - p < 12:
            break                                      # clean end or torn header
        h = buf[p:p + 12]
        n = known.get(h)
        if n is None:
            n = int.from_bytes(h[:8], "little")
            if n > N or h != record_header(n):
                error = (idx, p)
                break
            known[h] = n
        if p + 16 + n > N:
            break                                      # last record still being written
        s_off.append(p)
        s_len.append(n)
        s_idx.append(idx)
        p += 16 + n
        idx += 1
        walked += 1
        if walked < next_test:
            continue
        next_test = walked * 2 if walked < 1024 else walked + 1024
        P = _find_period(s_len[-min(walked, 2 * _MAX_PERIOD):])
        if not P:
            continue
        pattern = list(s_len[-P:])
        S = sum(pattern) + 16 * P
        pre = np.cumsum([0] + [L + 16 for L in pattern[:-1]])
        hdrs = [np.frombuffer(record_header(L), np.uint8) for L in pattern]
        M = 16
        accepted = 0
        while True:
            M = min(M, (N - p) // S)
            if M < 1:
                break
            ok = np.empty((M, P), bool)
            for i in range(P):
                view = np.ndarray((M, 12), np.uint8, buf, p + int(pre[i]), (S, 1))
                ok[:, i] = (view == hdrs[i]).all(1)
            flat = ok.ravel()
            k = M * P if flat.all() else int(np.argmin(flat))
            full, rest = divmod(k, P)
            if full:
                blocks.append((p, idx, S, tuple(pattern), full))
                p += full * S
                idx += full * P
            for L in pattern[:rest]:               # a partial period: keep it as singles
                s_off.append(p)
                s_len.append(L)
                s_idx.append(idx)
                p += L + 16
                idx += 1
            accepted += k
            if k < M * P:
                break
            M *= 2
        # a period that did not hold (chance repeats in irregular logging): look less often
        wait = 2 if accepted >= 8 * P else min(wait * 2, 4096)
        walked = 0
        next_test = wait
    as_np = lambda a: np.frombuffer(a, np.int64) if len(a) else np.zeros(0, np.int64)  # noqa: E731
    return blocks, (as_np(s_off), as_np(s_len), as_np(s_idx)), error


_DT_FLOAT, _DT_DOUBLE, _DT_INT32, _DT_INT64, _DT_HALF = 1, 2, 3, 9, 19
_DTYPES = {_DT_FLOAT: "<f4", _DT_DOUBLE: "<f8", _DT_INT32: "<i4", _DT_INT64: "<i8", _DT_HALF: "<f2"}


def _tensor_scalar(b: bytes, p: int, end: int):
    """A 1-element numeric tensor -> (value, pos, kind) where pos/kind locate the
    value bytes ('<f4'/'<f8') for the vectorised path, or pos=None; None when
    the tensor is not a numeric scalar."""
    dtype = 0
    n_elems = 1
    found = None
    for f, wt, a, z, v in iter_fields(b, p, end):
        if f == 1 and wt == 0:
            dtype = v
        elif f == 2 and wt == 2:
            for g, wt2, a2, z2, _ in iter_fields(b, a, z):
                if g == 2 and wt2 == 2:
                    for h, wt3, a3, z3, v3 in iter_fields(b, a2, z2):
                        if h == 1 and wt3 == 0:
                            n_elems *= v3
        elif f == 4 and wt == 2:
            found = ("content", a, z)
        elif f == 5 and wt in (2, 5):
            found = ("float", a, z)
        elif f == 6 and wt in (2, 1):
            found = ("double", a, z)
        elif f in (7, 10, 13) and wt in (0, 2):
            found = ("varint", a, z, v, wt)
    if n_elems != 1 or dtype not in _DTYPES or found is None:
        return None
    kind = found[0]
    if kind == "content":
        a, z = found[1], found[2]
        dt = np.dtype(_DTYPES[dtype])
        if z - a != dt.itemsize:
            return None
        val = float(np.frombuffer(b, dt, 1, a)[0])
        return (val, a, _DTYPES[dtype]) if dtype in (_DT_FLOAT, _DT_DOUBLE) else (val, None, None)
    if kind == "float" and dtype == _DT_FLOAT and found[2] - found[1] == 4:
        return float(np.frombuffer(b, "<f4", 1, found[1])[0]), found[1], "<f4"
    if kind == "double" and dtype == _DT_DOUBLE and found[2] - found[1] == 8:
        return float(np.frombuffer(b, "<f8", 1, found[1])[0]), found[1], "<f8"
    if kind == "varint":
        _, a, z, v, wt = found
        if wt == 2:                               # packed: exactly one varint
            v, q = read_varint(b, a)
            if q != z:
                return None
        if dtype == _DT_HALF:
            return float(np.array([v], np.uint16).view(np.float16)[0]), None, None
        if dtype in (_DT_INT32, _DT_INT64):
            return float(v - (1 << 64) if v >= 1 << 63 else v), None, None
    return None


# The plugin name a legacy histogram's values are filed under: a norm read from a histogram, not a scalar.
HISTOGRAM = "_histogram_norm"


def parse_event(b: bytes):
    """One Event payload -> (step, step_span, wall_span, values, templatable).

    values: [(tag, value, pos, kind, is_tensor, plugin)]; the spans and `pos`
    are the byte ranges that vary between records of one layout.
    """
    step = 0
    step_span = None
    wall_span = None
    values = []
    templatable = True
    for f, wt, a, z, v in iter_fields(b, 0, len(b)):
        if f == 1 and wt == 1:
            wall_span = (a, z)
        elif f == 2 and wt == 0:
            step = v - (1 << 64) if v >= 1 << 63 else v
            step_span = (a, z)
        elif f == 5 and wt == 2:
            for g, wt2, a2, z2, _ in iter_fields(b, a, z):
                if g != 1 or wt2 != 2:
                    continue
                tag = None
                plugin = None
                val = None
                histo = False
                for h, wt3, a3, z3, _ in iter_fields(b, a2, z2):
                    if h == 1 and wt3 == 2:
                        tag = b[a3:z3].decode("utf-8", "replace")
                    elif h == 2 and wt3 == 5:
                        val = (float(np.frombuffer(b, "<f4", 1, a3)[0]), a3, "<f4", False)
                    elif h == 5 and wt3 == 2:
                        # a legacy HistogramProto (torch's add_histogram): its sum_squares (field 5;
                        # absent when 0, proto3 writes no default) gives the tensor's L2 norm exactly;
                        # kept for gradient tags only (read())
                        ss = 0.0
                        for k, wt4, a4, _, _ in iter_fields(b, a3, z3):
                            if k == 5 and wt4 == 1:
                                ss = float(np.frombuffer(b, "<f8", 1, a4)[0])
                        val = (math.sqrt(ss) if ss >= 0 else float("nan"), None, "<f8", False)
                        histo = True
                        templatable = False
                    elif h == 8 and wt3 == 2:
                        t = _tensor_scalar(b, a3, z3)
                        if t is not None:
                            val = (t[0], t[1], t[2], True)
                    elif h == 9 and wt3 == 2:
                        for k, wt4, a4, z4, _ in iter_fields(b, a3, z3):
                            if k == 1 and wt4 == 2:
                                for m, wt5, a5, z5, _ in iter_fields(b, a4, z4):
                                    if m == 1 and wt5 == 2:
                                        plugin = b[a5:z5].decode("utf-8", "replace")
                if histo:
                    plugin = HISTOGRAM     # whatever its metadata says: a norm, never a scalar curve
                if tag is not None and (val is not None or plugin is not None):
                    if val is None:
                        values.append((tag, None, None, None, True, plugin))
                    else:
                        values.append((tag, val[0], val[1], val[2], val[3], plugin))
                        if val[1] is None:
                            templatable = False
    return step, step_span, wall_span, values, templatable


# ---------------------------------------------------------------- decode

class _Acc:
    """Per-tag columns gathered from templates and single records."""

    def __init__(self) -> None:
        self.cols: dict[str, list] = {}       # tag -> [(idx, steps, values, is_tensor)]
        self.plugins: dict[str, str] = {}     # tag -> first plugin name seen

    def add(self, tag, idx, steps, vals, is_tensor):
        self.cols.setdefault(tag, []).append((idx, steps, vals, is_tensor))


def _varint_column(rows: np.ndarray, a: int, z: int) -> np.ndarray:
    out = np.zeros(len(rows), np.uint64)
    for j in range(z - a):
        out |= (rows[:, a + j] & 0x7F).astype(np.uint64) << np.uint64(7 * j)
    return out.view(np.int64)


def _template(values, step_span, wall_span, L: int):
    """Byte mask of a layout's fixed bytes (False where wall_time, step, values vary)."""
    mask = np.ones(L, bool)
    spans = [s for s in (step_span, wall_span) if s]
    spans += [(pos, pos + np.dtype(kind).itemsize) for _, val, pos, kind, _, _ in values if val is not None]
    for a, z in spans:
        mask[a:z] = False
    return mask


def _decode_rows(rows, idx, step_span, values, acc: _Acc) -> None:
    """Bulk-decode rows known to share one layout."""
    steps = _varint_column(rows, *step_span) if step_span else np.zeros(len(rows), np.int64)
    for tag, val, pos, kind, is_tensor, _ in values:
        if val is None:
            continue
        w = np.dtype(kind).itemsize
        col = np.ascontiguousarray(rows[:, pos:pos + w]).view(kind).ravel().astype(np.float64)
        acc.add(tag, idx, steps, col, is_tensor)


def _varint_ok(rows, step_span) -> np.ndarray:
    """Rows whose step varint has the template's length (continuation bits agree)."""
    if not step_span:
        return np.ones(len(rows), bool)
    a, z = step_span
    return (rows[:, a:z - 1] >= 0x80).all(1) & (rows[:, z - 1] < 0x80)


def _decode_group(rows: np.ndarray, idx: np.ndarray, acc: _Acc, bad: list) -> None:
    """All records of one payload length: parse one record per layout, check which
    records share its fixed bytes, decode those in bulk; repeat on the rest."""
    L = rows.shape[1]
    level = 0
    while len(rows):
        level += 1
        try:
            step, step_span, wall_span, values, templatable = parse_event(rows[0].tobytes())
        except (ValueError, IndexError):
            bad.append(int(idx[0]))
            rows, idx = rows[1:], idx[1:]
            continue
        for tag, _, _, _, _, plugin in values:
            if plugin is not None:
                acc.plugins.setdefault(tag, plugin)
        scalar = any(v[1] is not None for v in values)
        if not scalar or not templatable or len(rows) == 1 or level > 64:
            # histograms/images/text, odd dtypes, or too many layouts: this record alone
            for tag, val, _, _, is_tensor, _ in values:
                if val is not None:
                    acc.add(tag, idx[:1], np.array([step], np.int64), np.array([val]), is_tensor)
            rows, idx = rows[1:], idx[1:]
            continue
        mask = _template(values, step_span, wall_span, L)
        masked = rows[:, mask]
        if level <= 4:                      # the common case: a few tags share this length
            match = (masked == masked[0]).all(1) & _varint_ok(rows, step_span)
            _decode_rows(rows[match], idx[match], step_span, values, acc)
            rows, idx = rows[~match], idx[~match]
            continue
        # Many same-length tags (e.g. per-layer norms): group rows by their fixed bytes in
        # one sort; each group of >= 2 whose representative has this layout decodes in bulk.
        keys = np.ascontiguousarray(masked).view(np.dtype((np.void, masked.shape[1]))).ravel()
        _, first, inv, counts = np.unique(keys, return_index=True, return_inverse=True, return_counts=True)
        inv = inv.ravel()
        order = np.argsort(inv, kind="stable")
        bounds = np.concatenate(([0], np.cumsum(counts)))
        done = np.zeros(len(rows), bool)
        spans0 = (step_span, wall_span, [(v[2], v[3]) for v in values])
        for g in np.flatnonzero((counts >= 2) | (np.arange(len(counts)) == inv[0])).tolist():
            rep = rows[first[g]]
            try:
                _, sp, wp, vals, ok = parse_event(rep.tobytes())
            except (ValueError, IndexError):
                continue
            if not ok or (sp, wp, [(v[2], v[3]) for v in vals]) != spans0:
                continue                    # another layout: a later pass takes it
            sel = order[bounds[g]:bounds[g + 1]]
            sel = sel[_varint_ok(rows[sel], step_span)]
            _decode_rows(rows[sel], idx[sel], step_span, vals, acc)
            done[sel] = True
            for tag, _, _, _, _, plugin in vals:
                if plugin is not None:
                    acc.plugins.setdefault(tag, plugin)
        rows, idx = rows[~done], idx[~done]


def read(path: Path, rel: str, run: Run) -> None:
    """Append one Series per scalar tag of this event file to run.series."""
    with open(path, "rb") as f:
        buf = f.read()
    u8 = np.frombuffer(buf, np.uint8)
    blocks, (s_off, s_len, s_idx), error = _frame(buf)
    if error is not None:
        i, off = error
        if i == 0:
            run.warnings.append(f"{rel}: not a TensorBoard event file (bad record header at byte 0)")
        else:
            run.warnings.append(f"{rel}: record {i} at byte {off}: bad record length/CRC; "
                                f"kept the {i} records before it, ignored the rest of the file")
    # Gather payload rows by length: strided views of blocks, one fancy gather for singles.
    groups: dict[int, tuple[list, list]] = {}
    for off, first, S, pattern, M in blocks:
        pos = off
        P = len(pattern)
        for i, L in enumerate(pattern):
            g = groups.setdefault(L, ([], []))
            g[0].append(np.ndarray((M, L), np.uint8, buf, pos + 12, (S, 1)))
            g[1].append(first + i + P * np.arange(M, dtype=np.int64))
            pos += L + 16
    if len(s_len):
        order = np.argsort(s_len, kind="stable")
        lens, starts = np.unique(s_len[order], return_index=True)
        for L, a, z in zip(lens.tolist(), starts.tolist(), starts[1:].tolist() + [len(order)]):
            sel = order[a:z]
            g = groups.setdefault(L, ([], []))
            for c in range(0, len(sel), 1 << 16):      # chunks bound the index array's memory
                part = sel[c:c + (1 << 16)]
                g[0].append(u8[(s_off[part] + 12)[:, None] + np.arange(L)])
                g[1].append(s_idx[part])
    acc = _Acc()
    bad: list[int] = []
    for L, (views, idxs) in groups.items():
        _decode_group(np.concatenate(views), np.concatenate(idxs), acc, bad)
    if bad:
        run.warnings.append(f"{rel}: {len(bad)} record(s) could not be decoded as Event (first: record {min(bad)}); skipped")
    parent = path.parent.name
    nrec = max([first + len(pattern) * M for _, first, _, pattern, M in blocks] +
               [int(s_idx[-1]) + 1 if len(s_idx) else 0])
    info = (rel, _first_wall_time(buf), nrec)
    for tag, parts in acc.cols.items():
        plugin = acc.plugins.get(tag)
        # new-style tensors are scalars only for the scalars plugin (not text/histograms/hparams)
        parts = [p for p in parts if not p[3] or plugin in (None, "", "scalars")]
        if not parts:
            continue
        idx = np.concatenate([p[0] for p in parts])
        order = np.argsort(idx, kind="stable")
        name, raw = normalize(tag), tag
        if plugin == HISTOGRAM and not name.startswith("grad_norm"):
            continue           # a histogram of weights or activations: no curve of ours
        # add_scalars("loss", {"train": .., "val": ..}) writes tag "loss" into folders
        # loss_train/ and loss_val/: the folder says which curve it is.
        main = tag.replace("/", "_") + "_"
        if parent.startswith(main) and len(parent) > len(main):
            key = parent[len(main):]
            name, raw = normalize(f"{key}/{tag}"), f"{parent}/{tag}"
        s = Series(name=name, raw_name=raw,
                   steps=np.concatenate([p[1] for p in parts])[order],
                   values=np.concatenate([p[2] for p in parts])[order],
                   source=rel, locs=idx[order], loc_kind=LOC_RECORD)
        s._tb_file = info      # for finish(): which file, its first wall time, its record count
        run.series.append(s)


def _first_wall_time(buf: bytes) -> float:
    """wall_time of the file's first Event (the file_version record), inf when unreadable."""
    if len(buf) < 16:
        return float("inf")
    n = int.from_bytes(buf[:8], "little")
    try:
        for f, wt, a, z, _ in iter_fields(buf[12:12 + n], 0, min(n, len(buf) - 12)):
            if f == 1 and wt == 1:
                return float(np.frombuffer(buf, "<f8", 1, 12 + a)[0])
    except (ValueError, IndexError):
        pass
    return float("inf")


def finish(run: Run) -> None:
    """Merge a run's event files (a job restarted into the same folder writes a new one): one
    Series per tag and folder, the files in the order TensorBoard shows them (by their first
    wall time, then name), each file's records in order. Where the steps of a later file go back
    (a restart from a checkpoint), both sides stay: the step counter going back is what
    curves.py reports as a restart. The merged series' source is the folder; its locs count
    records across the files in that order (a record index, as for one file)."""
    groups: dict[tuple, list[Series]] = {}
    for s in run.series:
        info = getattr(s, "_tb_file", None)
        if info is not None:
            groups.setdefault((str(Path(info[0]).parent), s.raw_name), []).append(s)
    merged: dict[int, Series | None] = {}
    for (folder, _), parts in groups.items():
        if len({p._tb_file[0] for p in parts}) < 2:
            continue
        files = sorted({p._tb_file for p in parts}, key=lambda i: (i[1], i[0]))
        offset, at = {}, 0
        for rel, _, nrec in files:
            offset[rel] = at
            at += nrec
        parts.sort(key=lambda p: (p._tb_file[1], p._tb_file[0]))
        m = Series(name=parts[0].name, raw_name=parts[0].raw_name,
                   steps=np.concatenate([p.steps for p in parts]),
                   values=np.concatenate([p.values for p in parts]),
                   source=folder, loc_kind=LOC_RECORD,
                   locs=np.concatenate([p.locs + offset[p._tb_file[0]] for p in parts]))
        merged[id(parts[0])] = m
        for p in parts[1:]:
            merged[id(p)] = None
    if merged:
        run.series = [merged.get(id(s), s) for s in run.series if merged.get(id(s), s) is not None]
