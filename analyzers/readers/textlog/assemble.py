"""From anchors to series: steps per line, one Series per (key, rank, print style).

In:  the bytes of a log, a block of whole lines at a time (scan.py reads its anchors,
     counters and rank prefixes).
Out: `prepare_block` (what a block's metrics need from its bytes alone: safe to run on another
     thread), `LogMetrics` (add_block / finish: the blocks in order) and
     `extract_metrics(data, rel, run, nl)` for a log in one piece -> every metric Series printed
     in the log (`source=rel`, `locs` = 1-based line numbers), tables included (tables.py). A
     line's step is its own `step=`/counter/epoch, else the last one printed before it; a
     counter that restarts every epoch becomes global.

Styles: one key printed by two statements (`loss=` in a logging line, `'loss':` in an HF dict,
`loss=` after a tqdm counter) gives one series per style: the form that ties key and number
(FORM_*) and where its lines' steps come from (KIND_*: their own step, a progress counter, an
epoch, none). A style that only continues another (its steps start after the other's last)
joins it; interleaved ones stay apart, so a cited point's neighbours come from the same
statement.

Size: a log whose series hold more than POINTS_BUDGET points keeps min/max per bucket of lines
(the bucket doubles as needed), the first non-finite point of every bucket and every change
between finite and non-finite, and each series' first and last, with
exact steps and lines, and says so in one warning; below it every point is kept. Segments
(lines, \r redraws) no kept point needs are dropped then; the steps of a log with progress
counters or epochs are settled as blocks arrive (settle.py) so that they may be. HELD_BYTES_BUDGET
bounds the bytes of points and segments held the same way.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Run, Series
from mltdbg.analyzers.names import normalize, rename_by_layout
from mltdbg.analyzers.readers.textlog.arrays import (Masked, count_before, factorize, find_byte, hash_rows,
                                                     release_memory, rows_of, small_pages)
from mltdbg.analyzers.readers.textlog.scan import (BACK, DECIMAL_COMMA_HEAD, EVAL_KEY_PREFIX, FWD, LONG_BACK, LONG_FWD, Keys, anchors,
                                                   decimal_commas, held_out_marks, inline_set_tags, julia_floats, line_ranks,
                                                   progress_counters, read_anchors)
from mltdbg.analyzers.readers.textlog.layergrads import layer_series, scan_layer_tables, table_lines
from mltdbg.analyzers.readers.textlog.settle import StepContext, counter_restarts, pass_ends
from mltdbg.analyzers.readers.textlog.settle import ffill as _ffill
from mltdbg.analyzers.readers.textlog.darknet import darknet_series, scan_darknet
from mltdbg.analyzers.readers.textlog.deepxde import DeepXDEOpen, Row, deepxde_lines, deepxde_series, scan_deepxde
from mltdbg.analyzers.readers.textlog.flower import (HistoryOpen, HistoryPoint, flower_lines, flower_series, scan_flower,
                                                     scan_history)
from mltdbg.analyzers.readers.textlog.tables import has_trigger, scan_tables, tables_series
from mltdbg.analyzers.readers.textlog.vocabulary import cjk_keys, classify_key, foreign_keys, norm_keys


# After this many bytes of blocks the freed temporaries are handed back to the OS
# (arrays.release_memory). Not after every block: the next block reuses the same pages, and
# handing them back each time cost ~30 % of the reader's time in page faults (measured on a
# 10M-line log: 4.1 s -> 2.9 s system time) for no lower peak.
RELEASE_EVERY_BYTES = 64 * 1024 * 1024
# Lines longer than this are kept as text but not mined for metrics (a serialized tensor or a
# base64 blob on one line is not a metric line, and its "key: number" pairs would be noise).
MAX_METRIC_LINE = 100 * 1024


def _first_per(seg: np.ndarray, vals: np.ndarray, nseg: int, fill=-1, dtype=np.int64):
    """Per segment, the value of the first entry in it (entries sorted by position)."""
    out = np.full(nseg, fill, dtype=dtype)
    if seg.size:
        first = np.r_[True, seg[1:] != seg[:-1]]
        out[seg[first]] = vals[first]
    return out


def extract_metrics(data: bytes, rel: str, run: Run, nl: np.ndarray | None = None) -> list[Series]:
    """All metric series printed in a log (the bytes of the whole file; `nl`: offsets of its
    newlines when the caller has them)."""
    acc = LogMetrics(rel, run)
    acc.add_block(data, nl)
    return acc.finish()


def prepare_block(data: bytes, nl: np.ndarray | None, rel: str) -> dict | None:
    """What a block's metrics need that depends on its bytes alone (LogMetrics.add_block does the
    rest, in block order): segments, anchors read (key numbers of the block's own Keys), progress
    counters, rank prefixes, long lines, table triggers, per-layer rows (ordinals and lines from
    0). No state is touched, so blocks may be prepared on other threads (textlog._read_log).
    None for an empty block."""
    if not data:
        return None
    data = _scanned_bytes(data, [(0, len(data), 0, rel)])
    if nl is None:
        nl = find_byte(np.frombuffer(data, dtype=np.uint8), 10)
    sc = scan_block(data, nl)
    return _package(sc, data, rel, _places(sc, nl, [(0, len(data), 0)])[0])


def prepare_files(data: bytes, nl: np.ndarray, pieces: list[tuple[int, int, int, str]]) -> list[dict | None]:
    """prepare_block for many small files at once: `data` holds them one after the other, each
    ending with a newline; `pieces` gives each file's
    (first byte, its own length (> 0), first line, rel). One scan of the whole (numpy's fixed cost per
    call, ~0.5 ms a block, paid once, not per file), then each file's part cut out of it: the
    same dict prepare_block gives for that file alone (tests/test_textlog_batch.py compares them
    on every log the tests hold). The scan keeps each spelling of a key apart, and each file gets
    the spellings it prints; a file that spells one key two ways ("Loss", "loss") gets None: which
    spelling names its series depends on its own scan's order, so it is read alone."""
    data = _scanned_bytes(data, pieces)
    sc = scan_block(data, nl, exact_keys=True, files=[(b0, n) for b0, n, _, _ in pieces])
    places = _places(sc, nl, [(b0, n, l0) for b0, n, l0, _ in pieces])
    return [_package(sc, data[b0:b0 + n], rel, at) for (b0, n, _, rel), at in zip(pieces, places)]


def _scanned_bytes(data: bytes, pieces: list[tuple[int, int, int, str]]) -> bytes:
    """The bytes the key scanner reads: decimal commas made dots (file by file), names printed in other languages
    made English keys, a gradient norm's bars and Julia's Float32 exponents rewritten; each the same length, so
    offsets and newlines stay the file's (and every quote is taken from the file's own text)."""
    return julia_floats(norm_keys(cjk_keys(_decimal_commas_by_file(data, pieces))))


def _decimal_commas_by_file(data: bytes, pieces: list[tuple[int, int, int, str]]) -> bytes:
    """decimal_commas (and the foreign labels of a file that prints them) file by file, as prepare_block reads each
    alone: one file's decimal commas say nothing of its neighbours' commas."""
    if b"," not in data:
        return data
    out: bytearray | None = None
    for b0, n, _, _ in pieces:
        if data.find(b",", b0, b0 + min(n, DECIMAL_COMMA_HEAD)) < 0:
            continue        # (no comma in the file's head: decimal_commas would leave it, without the copy)
        seg = data[b0:b0 + n]
        new = decimal_commas(seg)
        if new is not seg:
            if out is None:
                out = bytearray(data)
            out[b0:b0 + n] = foreign_keys(new, True)
    return data if out is None else bytes(out)


class _At(NamedTuple):
    """One piece's place in a scan: its lines l0..l1 (0-based), its newlines (from its own first
    byte), its kept segments k0..k1, which columns hold a value (>= 0) there, its points i0..i1."""
    l0: int
    l1: int
    nl: np.ndarray
    k0: int
    k1: int
    has: dict
    i0: int
    i1: int


def _places(sc: dict, nl: np.ndarray, pieces: list[tuple[int, int, int]]) -> list[_At]:
    """Each piece's (first byte, length, first line) place in the scan `sc` of the bytes with
    newlines `nl`, found for all pieces at once: a few numpy calls per scan, not a dozen per
    piece (the most of a small file's cost when a batch holds thousands)."""
    b0s = np.fromiter((p[0] for p in pieces), np.int64, len(pieces))
    l0s = np.fromiter((p[2] for p in pieces), np.int64, len(pieces))
    l1s = np.append(l0s[1:], len(nl) + 1)
    nl_lo = np.searchsorted(nl, b0s).tolist()
    nl_hi = np.searchsorted(nl, b0s + np.fromiter((p[1] for p in pieces), np.int64, len(pieces))).tolist()
    L = sc["L"]
    k0s, k1s = np.searchsorted(L, l0s + 1), np.searchsorted(L, l1s + 1)
    has: dict[str, list] = {}
    for key, v in sc["cols"].items():
        if v is not None:
            c = np.concatenate(([0], np.cumsum(v >= 0)))
            has[key] = (c[k1s] > c[k0s]).tolist()
        else:
            has[key] = [False] * len(pieces)
    pts = sc.get("points")
    zeros = [0] * len(pieces)
    i0s = np.searchsorted(pts[0], k0s).tolist() if pts is not None else zeros
    i1s = np.searchsorted(pts[0], k1s).tolist() if pts is not None else zeros
    k0l, k1l, l0l, l1l = k0s.tolist(), k1s.tolist(), l0s.tolist(), l1s.tolist()
    return [_At(l0l[k], l1l[k], nl[nl_lo[k]:nl_hi[k]] - b0 if b0 else nl[nl_lo[k]:nl_hi[k]], k0l[k], k1l[k],
                {key: h[k] for key, h in has.items()}, i0s[k], i1s[k])
            for k, b0 in enumerate(b0s.tolist())]


# Full-width separators of CJK text ("loss：2.30，acc：0.11", "lr＝0.01"): three UTF-8 bytes each,
# read as the ASCII separator and two spaces, so every byte offset (lines, quotes) stays where it was.
_FULLWIDTH = ((b"\xef\xbc\x9a", b":  "), (b"\xef\xbc\x9d", b"=  "), (b"\xef\xbc\x8c", b",  "))


# The light vertical bar of a rich/box-drawn table ("│ test_loss │ nan │": Lightning's table of test
# metrics), read as " : " so that a row reads as `test_loss : nan`; only in data up to this size (a post,
# a small log: the three-byte search would cost ~1.5 ms of every 4 MB block of a big one).
_BOX_BAR = (b"\xe2\x94\x82", b" : ")
BOX_TABLE_BYTES = 1024 * 1024


def ascii_separators(data: bytes, small: bool = False) -> bytes:
    """data with full-width colons, equals signs and commas as their ASCII forms (same length);
    data itself when it holds none (a memchr for their first byte, then a search for the two they
    share: the two-byte search alone ran at ~1 GB/s, 5 ms of every 4 MB block). In small data (or
    `small`: a batch of small files, each of which is), the bars of a box-drawn table too (_BOX_BAR)."""
    if (small or len(data) <= BOX_TABLE_BYTES) and _BOX_BAR[0] in data:
        data = data.replace(*_BOX_BAR)
    if b"\xef" not in data or b"\xef\xbc" not in data:
        return data
    for wide, narrow in _FULLWIDTH:
        data = data.replace(wide, narrow)
    return data


def scan_block(data: bytes, nl: np.ndarray, exact_keys: bool = False,
               files: list[tuple[int, int]] | None = None) -> dict:
    """The whole-array part of prepare_block, for bytes that hold one file or several (each file's
    lines are read as they would be alone: nothing here looks across a line end, except Keras'
    evaluate bars, read per file: `files`, each file's (first byte, length); None: one file): the kept
    segments' columns and lines, the metric points as arrays, the Keys (`exact_keys`: one per
    spelling), the long lines."""
    n_in = len(data)
    # (a batch's files are small logs, each read alone with its box bars replaced: so is the batch, whatever its size)
    data = ascii_separators(data, small=files is not None and all(n <= BOX_TABLE_BYTES for _, n in files))
    if files is None or len(data) != n_in:
        files = [(0, len(data))]
    b = np.frombuffer(data, dtype=np.uint8)
    nb = len(b)
    line_starts = np.concatenate(([0], nl + 1))
    if line_starts[-1] >= nb:
        line_starts = line_starts[:-1]
    cr = find_byte(b, 13) if b"\r" in data else nl[:0]  # tqdm/Keras redraws: '\r' also ends a segment
    if cr.size:   # two sorted runs of distinct offsets: a stable sort merges them (np.union1d hashes: 200x slower)
        breaks = np.concatenate((nl, cr))
        breaks.sort(kind="stable")
    else:
        breaks = nl

    masked = Masked(data)
    pos = anchors(b, data, masked)
    sl, pn, pm = progress_counters(b, masked)
    ranks_line = line_ranks(b, masked, line_starts)
    marks = held_out_marks(b, masked, line_starts, data, files)

    # long lines: keep as text, do not mine. A line of many \r redraws (a Keras or tqdm bar
    # over a whole epoch) is as long as its longest redraw.
    seg_starts = np.concatenate(([0], breaks + 1))
    seg_len = np.diff(np.concatenate((seg_starts, [nb])))
    long_segs = np.flatnonzero(seg_len > MAX_METRIC_LINE)
    long_lines = None
    if long_segs.size:
        long_lines = np.unique(np.searchsorted(nl, seg_starts[long_segs], side="left"))
        lo, hi = seg_starts[long_segs], seg_starts[long_segs] + seg_len[long_segs]

        def outside(p):
            i = np.searchsorted(lo, p, side="right") - 1
            return ~((i >= 0) & (p < hi[np.maximum(i, 0)]))
        pos = pos[outside(pos)]
        keep = outside(sl)
        sl, pn, pm = sl[keep], pn[keep], pm[keep]
    del seg_len

    keys = Keys(exact_keys)     # this block's; add_block maps them to the file's
    acc, again = read_anchors(b, masked, pos, BACK, FWD, keys, last=False)
    acc2 = read_anchors(b, masked, again, LONG_BACK, LONG_FWD, keys, last=True)[0] if again.size else None
    if acc2 is not None and acc2["pos"].size:     # (none accepted: nothing to insert, no array copied)
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
    sc: dict = {"nl": nl, "keys": keys, "long_lines": long_lines, "points": None}
    pos, kid, val, is_int, form = acc["pos"], acc["key"], acc["val"], acc["is_int"], acc["form"]

    # per distinct key (few): role, and whether the space form ("loss 0.5") is trusted for it
    # (classify_key reads the lower-cased key: the block's first spelling answers as the file's)
    code_of = {"metric": 1, "step": 2, "batch": 3, "epoch": 4}
    roles, space_ok = np.zeros(len(keys.raws), np.int8), np.zeros(len(keys.raws), bool)
    for i, raw in enumerate(keys.raws):
        r, sp = classify_key(raw)
        roles[i], space_ok[i] = code_of.get(r, 0), sp
    role = roles[kid] if len(kid) else np.zeros(0, np.int8)
    ok = (role > 0) & (~acc["is_space"] | space_ok[kid])
    total, slash = acc["total"], acc["slash"]
    del acc  # a million-line log has millions of anchors: no array more than needed at once
    if not ok.all():
        pos, kid, role, val, is_int, form = pos[ok], kid[ok], role[ok], val[ok], is_int[ok], form[ok]
        total, slash = None if total is None else total[ok], slash[ok]
    del ok

    # a '/' inside a keyed value ("Epoch 3/10", "Step [100/600]") is not a bare counter
    if sl.size and (slash >= 0).any():
        has = slash >= 0
        keep = ~np.isin(sl, pos[has] + slash[has])
        sl, pn, pm = sl[keep], pn[keep], pm[keep]
    del slash

    nseg = len(breaks) + 1
    seg = count_before(breaks, pos) if len(breaks) < len(pos) else np.searchsorted(breaks, pos)
    # metrics after a held-out set's tag inside their own line (inline_set_tags: ESPnet's "[train] ... [valid] ...")
    inline_on = None
    tag_at, tag_held = inline_set_tags(data)       # (it looks for a '[' or a bar first)
    if tag_at.size and tag_held.any() and len(pos):
        j = np.searchsorted(tag_at, pos, side="right") - 1
        jj = np.maximum(j, 0)
        inline_on = (j >= 0) & tag_held[jj] & (np.searchsorted(breaks, tag_at[jj]) == seg) & (role == 1)
        if not inline_on.any():
            inline_on = None
    del pos
    # counters (step, batch, epoch): whole numbers
    cnt = np.flatnonzero(role >= 2)
    c_val, c_role, c_seg = val[cnt], role[cnt], seg[cnt]
    finite = np.isfinite(c_val)
    integral = finite & (c_val >= 0) & (c_val == np.floor(np.where(finite, c_val, 0))) & is_int[cnt]
    ival = np.where(integral, c_val, -1).astype(np.int64)
    c_total = total[cnt] if total is not None else np.full(len(cnt), -1, dtype=np.int64)
    if total is not None:   # a metric printed as a count of a total ("Accuracy: 9890/10000"): the fraction
        frac = (role == 1) & (total > 0)
        if frac.any():
            val = np.where(frac, val / np.where(frac, total, 1), val)
    del total, is_int, finite, c_val

    def first_of(code):  # "epoch: 1.0" (HF) is a fraction that happens to be whole, not a counter
        m = (c_role == code) & integral
        return _first_per(c_seg[m], ival[m], nseg), _first_per(c_seg[m], c_total[m], nseg)

    S, S_tot = first_of(2)
    B, B_tot = first_of(3)
    E, _ = first_of(4)
    if sl.size:
        sseg = np.searchsorted(breaks, sl)
        P0, M0 = _first_per(sseg, pn, nseg), _first_per(sseg, pm, nseg)
        # two bare counters on one line, "[0/25][50/1583]" (the PyTorch DCGAN tutorial's and the GAN scripts
        # made from it): the epoch of its total, then the batch of the epoch's
        pair = np.flatnonzero(sseg[1:] == sseg[:-1])
        if pair.size:
            pair = pair[np.r_[True, sseg[pair[1:]] != sseg[pair[:-1]]]]     # each segment's first two
            at = sseg[pair]
            E = E.copy()
            E[at] = np.where(E[at] < 0, P0[at], E[at])
            P0[at], M0[at] = pn[pair + 1], pm[pair + 1]
        P = np.where(B >= 0, B, P0)
        P_tot = np.where(B >= 0, B_tot, M0)
    else:
        P, P_tot = B, B_tot
    if marks.size:
        # mmengine's validation line ("Epoch(val) [2][4/4]", "Iter(val) [50/50]"): its counter is the evaluation
        # loop's batch, no training step; the line takes the step of the training line before it
        phrase = np.array([k for k in marks.tolist() if data[k:k + 5] in (b"(val)", b"(test")], np.int64)
        ev = np.unique(np.searchsorted(breaks, phrase))
        ev = ev[P[ev] >= 0]
        if ev.size:
            P, P_tot = P.copy(), P_tot.copy()
            P[ev] = P_tot[ev] = -1
    R = None
    if ranks_line is not None:
        R = ranks_line[np.minimum(np.searchsorted(nl, seg_starts, side="right"), len(ranks_line) - 1)]

    # metric points and the segments worth keeping: those with a point or a counter
    m = (role == 1) | (role == 4)
    mseg = seg[m]
    if marks.size or inline_on is not None:
        # a held-out set's segment (a line, or one redraw of it): its metrics' keys are that set's
        on = np.isin(seg, np.searchsorted(breaks, marks)) & (role == 1) if marks.size else np.zeros(len(seg), bool)
        if inline_on is not None:
            on |= inline_on
        if on.any():      # each such key's id -> the id of its held-out name, in one gather
            ks = np.unique(kid[on]).tolist()
            ids = [keys.id_text(EVAL_KEY_PREFIX + keys.raws[k]) for k in ks]
            to = np.arange(len(keys.raws), dtype=kid.dtype)
            to[ks] = ids
            kid = np.where(on, to[kid], kid)
    has = (S >= 0) | (P >= 0) | (E >= 0)
    has[mseg] = True
    kept = np.flatnonzero(has)
    sc["cols"] = {"S": S[kept], "S_tot": S_tot[kept], "P": P[kept], "P_tot": P_tot[kept], "E": E[kept],
                  "R": R[kept] if R is not None else None}
    sc["L"] = np.searchsorted(nl, seg_starts[kept], side="left") + 1      # the block's own line numbers
    if mseg.size:
        where = np.empty(nseg, np.int64)
        where[kept] = np.arange(kept.size)
        sc["points"] = (where[mseg], kid[m], val[m], form[m], R[mseg] if R is not None else None)
    return sc


def _package(sc: dict, data: bytes, rel: str, at: _At) -> dict | None:
    """prepare_block's dict for one piece of a scan_block (`data`: its bytes; `at`: its place,
    _places): for one file of many, its keys are its own spellings (None when it spells one key
    two ways)."""
    nl, l0, l1, k0, k1 = at.nl, at.l0, at.l1, at.k0, at.k1
    ll = sc["long_lines"]
    if ll is not None and (l0 or l1 <= len(sc["nl"])):
        ll = ll[(ll >= l0) & (ll < l1)] - l0
        ll = ll if ll.size else None
    # one file of many: its own keys only (set below from its points; none when it has none: the
    # batch's every spelling would be classified again for each such file)
    out = {"nl": nl, "keys": Keys() if sc["keys"].exact else sc["keys"], "long_lines": ll, "trigger": has_trigger(data),
           "layer_rows": scan_layer_tables(data, nl, 0, rel, 0), "block": None, "points": []}
    L = sc["L"]
    if k1 == k0:
        return out
    whole = k0 == 0 and k1 == len(L)
    block: dict = {k: (v if whole else v[k0:k1]) if at.has[k] else None for k, v in sc["cols"].items()}
    # a piece's lines count from its own first line (all the scan's kept segments may be in one
    # file that is not the first); its own array: add_block shifts it in place
    block["L"] = L if whole and l0 == 0 else L[k0:k1] - l0
    block["n"] = k1 - k0
    out["block"] = block
    pts = sc.get("points")
    if pts is not None:
        where, kid, val, form, pr = pts
        if not whole:
            # the points are in segment order: this piece's are one slice (no mask over the batch's
            # every point per file: 3,600 small files a batch made that the scan's largest cost)
            i0, i1 = at.i0, at.i1
            if i1 == i0:
                return out
            where, kid, val, form = where[i0:i1] - k0, kid[i0:i1], val[i0:i1], form[i0:i1]
            pr = pr[i0:i1] if pr is not None else None
        if sc["keys"].exact:     # this file's own spellings, numbered in the order it prints them
            used, first = np.unique(kid, return_index=True)
            own = Keys()
            local = np.zeros(int(used[-1]) + 1, np.int32)
            for i in np.argsort(first, kind="stable").tolist():
                local[used[i]] = own.id_text(sc["keys"].raws[int(used[i])])
            if own.respelled:
                return None
            out["keys"], kid = own, local[kid]
        out["points"] = _group_points(where, kid, val, form, pr)
    return out


def _group_points(cidx, kid, val, form, prank) -> list[tuple]:
    """A block's points by (key, rank, form), in the order each first appears: [(key, rank, form,
    kept-segment indexes, values)]; keys printed on the same lines share one array of indexes."""
    gk = kid.astype(np.int64) * 8 + form
    if prank is not None:
        gk = gk * (int(prank.max()) + 2) + (prank + 1)
    distinct = _distinct_small(gk)
    if distinct is not None and len(distinct) <= GROUP_PASSES_MAX:   # a few groups: one pass each
        rows = sorted((np.flatnonzero(gk == v) for v in distinct.tolist()), key=lambda r: int(r[0]))
    else:
        codes, reps = factorize(hash_rows(gk.astype(np.uint64)[:, None]))
        rows = [idx for _, idx in rows_of(codes, len(reps), range(len(reps)))]
    shared: dict[tuple, list] = {}
    out = []
    for idx in rows:
        r0 = int(idx[0])
        ci = cidx[idx]
        sig = (len(ci), int(ci[0]), int(ci[-1]))
        for other in shared.get(sig, ()):
            if np.array_equal(other, ci):
                ci = other
                break
        else:
            shared.setdefault(sig, []).append(ci)
        out.append((int(kid[r0]), -1 if prank is None else int(prank[r0]), int(form[r0]), ci, val[idx]))
    return out


# _group_points: group keys below this use a table (np.bincount) to find the distinct groups,
# and up to this many groups are gathered one whole-array pass each (a block of a log prints a
# handful of (key, form) pairs); more fall back to hashing and one sort.
GROUP_TABLE_MAX = 1 << 16
GROUP_PASSES_MAX = 16


# Segment columns kept per block (only for segments with a counter or a metric point):
# S/S_tot explicit step and its "/M", P/P_tot progress counter (batch N, [N/M], N/M [),
# E epoch, R rank (-1 where absent), L the segment's 1-based line; once a StepContext settles
# them (settle.py) also Ec the epoch in force (-1: none) and K the passes of the counter before it.
_COLS = ("S", "S_tot", "P", "P_tot", "E", "R")
_SETTLED = {"Ec": -1, "K": 0}
# Over the budget, a log with progress counters or epochs has its steps settled as blocks arrive
# (settle.StepContext) and drops the segments no kept point needs, like a log without them
# (a 30M-line tqdm log held 30M rows of counters to the end: ~3 GB). Off only to check in tests
# that the settled steps are the ones the whole log gives.
COMPACT_COUNTERS = True

# Points (values of all series of a log together) held before they are thinned: min/max per bucket
# of lines (like downsample.minmax_downsample), the first non-finite point of each bucket and every
# finite/non-finite change kept, steps and lines exact.
# The 10M-line default log of benchmarks/bench_textlog.py holds 27M (3 keys x 9M lines; its
# diagnosis peaks at ~1.1 GB RSS) and stays whole; a bigger log holds at most this many, so its
# reader needs no more than that one, whatever its size. Curve analysis needs far fewer.
POINTS_BUDGET = 30_000_000
# ... or before their values, segment indexes and segment columns (steps, counters, lines) take more
# bytes than this: a progress-bar log holds ~40 bytes of columns per redraw besides its points (the
# 10M-line mixed log of benchmarks/bench_textlog.py: 13.8M points, 11.2M segments, 540 MB held,
# read whole at ~1.1 GB peak; a 30M-line one reached 1.2 GB held at 30M points, 1.9 GB peak). The
# reader's peak is about twice what is held (finish builds steps for every held segment).
HELD_BYTES_BUDGET = 640 * 2**20


def _step_class(sg: dict) -> np.ndarray | None:
    """Per segment of a block, where its step comes from as far as the block tells: its own step
    (1), a progress counter (per total), an epoch (3), none (0): a (key, rank, form) group splits
    into one series per such style at the end (_series_of), so each is thinned on its own.
    None: every segment has its own step."""
    S, P, P_tot, E = sg["S"], sg["P"], sg["P_tot"], sg["E"]
    if S is not None and P is None and E is None and (S >= 0).all():
        return None
    n = sg["n"]
    out = np.zeros(n, np.int64)
    if E is not None:
        out[E >= 0] = 3
    if P is not None:
        p = P >= 0
        out[p] = 8 * (P_tot[p] + 1) + 2 if P_tot is not None else 2
    if S is not None:
        out[S >= 0] = 1
    return out


def _thin_keep(bucket: np.ndarray, v: np.ndarray, cls: np.ndarray | None = None) -> np.ndarray | None:
    """Which points of one run of a series (in line order; `bucket` its bucket per point,
    non-decreasing; `cls` its _step_class per point, each thinned on its own) to keep: the first
    min and the first max of every bucket, the first non-finite value of every bucket and every
    change between finite and non-finite, the first and the last.
    None: keep all."""
    if cls is not None and len(cls) and not (cls == cls[0]).all():
        keep = np.zeros(len(v), bool)
        for c in np.unique(cls).tolist():
            idx = np.flatnonzero(cls == c)
            k = _thin_keep(bucket[idx], v[idx])
            keep[idx if k is None else idx[k]] = True
        return None if keep.all() else keep
    n = len(v)
    if n < 3:
        return None
    starts = np.flatnonzero(np.r_[True, bucket[1:] != bucket[:-1]])
    counts = np.diff(np.r_[starts, n])
    if counts.max() <= 2:
        return None
    fin = np.isfinite(v)
    nf = ~fin
    # both sides of every change between finite and non-finite (the first NaN and the last finite
    # value before it are cited; a recovery shows), and the first non-finite point of each bucket:
    # a run of NaN printed for a million lines is thinned too
    keep = (nf & np.r_[True, fin[:-1]]) | (fin & np.r_[False, nf[:-1]]) | (fin & np.r_[nf[1:], False])
    keep[0] = keep[-1] = True
    bid = np.repeat(np.arange(len(starts)), counts)
    at_nf = np.flatnonzero(nf)
    if at_nf.size:
        keep[at_nf[np.r_[True, bid[at_nf[1:]] != bid[at_nf[:-1]]]]] = True
    for reduce, fill in ((np.minimum, np.inf), (np.maximum, -np.inf)):
        x = np.where(fin, v, fill)
        at = np.flatnonzero(x == reduce.reduceat(x, starts)[bid])
        keep[at[np.r_[True, bid[at[1:]] != bid[at[:-1]]]]] = True
    return keep


def _segments_needed(sg: dict, ref: np.ndarray) -> np.ndarray:
    """Segments of a block (columns `sg`: no counter or epoch, or settled by a StepContext, so a
    segment's step is its own) that steps still need: those a point is on (`ref`), the last one
    with a step before each of those without one (the step it carries), and the block's last one
    with a step per rank (for the lines of the next blocks)."""
    keep = ref.copy()
    R = sg["R"]
    steps = [sg[k] >= 0 for k in ("S", "P", "E") if sg[k] is not None]
    if not steps:
        return keep
    own = steps[0] if len(steps) == 1 else np.logical_or.reduce(steps)
    src = _ffill(own, R)
    need = keep & ~own & (src >= 0)
    keep[src[need]] = True
    idx = np.flatnonzero(own)
    if idx.size:
        if R is None:
            keep[idx[-1]] = True
        else:
            _, last = np.unique(R[idx][::-1], return_index=True)
            keep[idx[::-1][last]] = True
    return keep


def _nbytes(segs: list[dict], chunks: list[tuple]) -> int:
    """Bytes of segment columns and held (segment indexes, values) pairs (a shared index array once)."""
    n = sum(v.nbytes for sg in segs for v in sg.values() if isinstance(v, np.ndarray))
    seen: dict[int, int] = {}
    for g, v in chunks:
        seen[id(g)] = g.nbytes
        n += v.nbytes
    return n + sum(seen.values())


def _take_segments(sg: dict, keep: np.ndarray) -> dict:
    out = {k: (v[keep] if isinstance(v, np.ndarray) else v) for k, v in sg.items()}
    out["n"] = int(np.count_nonzero(keep))
    return out


def _compact_block(block: dict, points: list[tuple]) -> tuple[dict, list[tuple]]:
    """A thinned block without the segments its kept points do not need (_segments_needed);
    the points' segment indexes renumbered."""
    ref = np.zeros(block["n"], bool)
    for p in points:
        ref[p[3]] = True
    keep = _segments_needed(block, ref)
    if keep.all():
        return block, points
    new_index = np.cumsum(keep) - 1
    moved = _renumber([p[3:] for p in points], new_index)
    return _take_segments(block, keep), [p[:3] + m for p, m in zip(points, moved)]


def _renumber(items: list[tuple], new_index: np.ndarray) -> list[tuple]:
    """[(segment indexes, values)] with the indexes mapped through new_index; pairs that shared
    one index array still do."""
    done: dict[int, np.ndarray] = {}
    out = []
    for ci, v in items:
        g = done.get(id(ci))
        if g is None:
            g = done[id(ci)] = new_index[ci]
        out.append((g, v))
    return out


def _thin_points(items: list[tuple], lines: np.ndarray, cls: np.ndarray | None, width: int) -> list[tuple]:
    """[(segment indexes, values)] thinned on buckets of `width` lines (_thin_keep; `lines`, `cls`:
    line and _step_class per segment). Keys printed on the same lines (one shared index array)
    keep the same points, the union of what each needs, so they go on sharing one array."""
    masks: dict[int, np.ndarray | None] = {}
    for ci, v in items:
        m = masks.get(id(ci), False)
        if m is None:
            continue
        k = _thin_keep(lines[ci] // width, v, None if cls is None else cls[ci])
        masks[id(ci)] = None if k is None else (k if m is False else m | k)
    taken: dict[int, np.ndarray] = {}
    out = []
    for ci, v in items:
        m = masks[id(ci)]
        if m is None:
            out.append((ci, v))
            continue
        g = taken.get(id(ci))
        if g is None:
            g = taken[id(ci)] = ci[m]
        out.append((g, v[m]))
    return out


class LogMetrics:
    """Metric series of one log, fed a block of whole lines at a time (memory stays bounded by
    the block, the counters of the lines that have them, and the points themselves: over
    POINTS_BUDGET held points, or HELD_BYTES_BUDGET bytes of points and segment columns, the
    series are thinned, min/max per bucket of lines, and the lines no kept point needs are
    dropped too; a log with progress counters or epochs has their steps settled as blocks
    arrive from then on, settle.StepContext).

    add_block(data, nl): the next block (it ends with a newline, except the file's last);
    finish(): every Series (the step of a line may depend on lines far away: an epoch printed
    once, a counter that restarts every epoch, so steps are settled only at the end)."""

    def __init__(self, rel: str, run: Run):
        self.rel, self.run = rel, run
        self.keys = Keys()
        self.roles = np.zeros(0, np.int8)
        self.space_ok = np.zeros(0, bool)
        self.line0 = 0                      # lines before the current block
        self.segs: list[dict] = []          # per block: segment columns (arrays or None)
        self.nseg = 0                       # segments kept so far
        self.groups: dict[tuple, list] = {} # (key id, rank, form) -> [(segment indexes, values)]
        self.tables: list[dict] = []   # closed tables (tables.close_table)
        self.table_open = None
        self.darknet: list[tuple] = []      # darknet's training lines (darknet.py)
        self.flower: list[tuple] = []       # Flower's server evaluation lines (flower.py)
        self.history: list[HistoryPoint] = []           # ... and its History sections' entries (flower.py)
        self.history_open: HistoryOpen | None = None    # the History section a block ended inside
        self.deepxde: list[Row] = []                    # DeepXDE's training table lines (deepxde.py)
        self.deepxde_open: DeepXDEOpen | None = None    # the DeepXDE table a block ended inside
        self.layer_rows: list[tuple] = []   # per-layer gradient table rows (layergrads.py)
        self.layer_tables = 0
        self.long_lines, self.first_long = 0, None
        self.unreleased = 0                 # block bytes since the last release_memory()
        self.bytes_seen = 0                 # block bytes in all (a small log skips the releases)
        self.held = 0                       # points held in self.groups
        self.limit = POINTS_BUDGET          # thin when more are held (_thin_all)
        self.held_bytes = 0                 # bytes of the points and segment columns held (_nbytes)
        self.byte_limit = HELD_BYTES_BUDGET # ... or when they take more than this
        self.width = 1                      # lines per min/max bucket once thinned (1: not thinned)
        self.simple = True                  # no progress counter or epoch so far: segments may be compacted
        self.ctx: StepContext | None = None # once thinned with counters or epochs: what their steps need
        self.peak_segs = 0                  # the most segments held at once (self.nseg at its highest)

    def _classify(self) -> None:
        code_of = {"metric": 1, "step": 2, "batch": 3, "epoch": 4}
        n0, n = len(self.roles), len(self.keys.raws)
        if n == n0:
            return
        roles, space = np.zeros(n, np.int8), np.zeros(n, bool)
        roles[:n0], space[:n0] = self.roles, self.space_ok
        for i in range(n0, n):
            r, sp = classify_key(self.keys.raws[i])
            roles[i], space[i] = code_of.get(r, 0), sp
        self.roles, self.space_ok = roles, space

    def add_block(self, data: bytes, nl: np.ndarray | None = None, pre: dict | None = None) -> None:
        """`pre`: prepare_block(data, nl, rel) when the caller made it already (on another thread)."""
        with small_pages():
            self._add_block(data, nl, pre)

    def finish(self) -> list[Series]:
        with small_pages():
            series = self._finish()
        # names that mean one thing only beside each other (CatBoost's learn/test): names.layout_names
        rename_by_layout(series, table=False)
        return series

    def _add_block(self, data: bytes, nl: np.ndarray | None, pre: dict | None = None) -> None:
        """The part of a block that needs the blocks before it: line numbers, the file's key
        numbers, tables that run on from the last block, segment indexes (prepare_block did the rest)."""
        if pre is None:
            pre = prepare_block(data, nl, self.rel)
        if pre is None:
            return
        nl, line0 = pre["nl"], self.line0
        self.line0 += len(nl)
        if pre["long_lines"] is not None:
            lines = pre["long_lines"]
            if self.first_long is None:
                self.first_long = line0 + int(lines[0]) + 1
            self.long_lines += lines.size
        tables, self.table_open = scan_tables(data, self.rel, nl, line0, self.table_open, trigger=pre["trigger"])
        self.tables += tables
        self.darknet += scan_darknet(data, nl, line0)
        self.flower += scan_flower(data, nl, line0)
        hist, self.history_open = scan_history(data, nl, line0, self.history_open)
        self.history += hist
        dx, self.deepxde_open = scan_deepxde(data, nl, line0, self.deepxde_open)
        self.deepxde += dx
        rows, n_layer = pre["layer_rows"]
        if rows:
            self.layer_rows += [(o + self.layer_tables, name, v, line0 + ln, *rest) for o, name, v, ln, *rest in rows]
        self.layer_tables += n_layer
        local = pre["keys"]
        # the block's own key numbers -> the file's (in the order the block met them)
        remap = [self.keys.id_text(raw) for raw in local.raws]
        self._classify()
        block = pre["block"]
        if block is None:
            return
        block["L"] += line0
        if block["P"] is not None or block["E"] is not None:
            self.simple = False
        points = pre["points"]
        if self.width > 1:      # thinned already: this block's points too, on the same buckets
            thinned = _thin_points([p[3:] for p in points], block["L"], _step_class(block), self.width)
            points = [p[:3] + t for p, t in zip(points, thinned)]
            if self._compactable():
                if self.ctx is not None:
                    self.ctx.settle(block)
                block, points = _compact_block(block, points)
        self.segs.append(block)
        shifted: dict[int, np.ndarray] = {}     # keys printed on the same lines still share one array
        for k, r, form, ci, v in points:
            g = shifted.get(id(ci))
            if g is None:
                g = shifted[id(ci)] = ci + self.nseg
                self.held_bytes += g.nbytes
            self.groups.setdefault((remap[k], r, form), []).append((g, v))
            self.held += len(v)
            self.held_bytes += v.nbytes
        self.held_bytes += sum(v.nbytes for v in block.values() if isinstance(v, np.ndarray))
        self.nseg += block["n"]
        self.peak_segs = max(self.peak_segs, self.nseg)
        if self.held > self.limit or self.held_bytes > self.byte_limit:
            self._thin_all()
        self.unreleased += len(data)
        self.bytes_seen += len(data)
        if self.unreleased >= RELEASE_EVERY_BYTES:
            self.unreleased = 0
            release_memory()

    def _compactable(self) -> bool:
        """Whether segments no kept point needs may be dropped: always while the log has no counter
        or epoch; with them, once a StepContext has settled every held segment (made here, the
        first time) and settles each block after (COMPACT_COUNTERS off: never)."""
        if self.simple:
            return True
        if not COMPACT_COUNTERS:
            return False
        if self.ctx is None:
            self.ctx = StepContext()
            for sg in self.segs:
                self.ctx.settle(sg)
        return True

    def _chunks(self) -> list[tuple]:
        """Every held (segment indexes, values) pair, group after group."""
        return [c for chunks in self.groups.values() for c in chunks]

    def _set_chunks(self, items: list[tuple]) -> None:
        """Replace the held pairs by `items`, in _chunks() order."""
        it = iter(items)
        for key, chunks in self.groups.items():
            self.groups[key] = [next(it) for _ in chunks]

    def _thin_all(self) -> None:
        """Too many points (or bytes) held: widen the buckets (a power of two lines, at least 4) until
        at most half the budget is held, keeping per bucket each series' min and max, its first
        non-finite point, every finite/non-finite change and each block's first and last, and drop
        the segments no point needs (_compact_block) when steps allow (_compactable)."""
        while True:
            before_bytes = self.held_bytes
            L = np.concatenate([sg["L"] for sg in self.segs])
            classes = [_step_class(sg) for sg in self.segs]
            cls = None if all(c is None for c in classes) else \
                np.concatenate([np.ones(sg["n"], np.int64) if c is None else c for sg, c in zip(self.segs, classes)])
            del classes
            while True:
                before = self.held
                self.width = max(4, self.width * 2)
                self._set_chunks(_thin_points(self._chunks(), L, cls, self.width))
                held = self.held = sum(len(v) for _, v in self._chunks())
                # stop at half the budget, or when wider buckets no longer help
                if held <= POINTS_BUDGET // 2 or held > 0.9 * before or self.width > 2 * self.line0:
                    break
            del L, cls
            if self._compactable():
                self._compact_all()
            self.held_bytes = _nbytes(self.segs, self._chunks())
            # the same for the bytes held (points and the segments they need)
            if self.held_bytes <= HELD_BYTES_BUDGET // 2 or self.held_bytes > 0.9 * before_bytes \
                    or self.width > 2 * self.line0:
                break
        self.limit = max(POINTS_BUDGET, 2 * self.held)
        self.byte_limit = max(HELD_BYTES_BUDGET, 2 * self.held_bytes)
        release_memory()

    def _compact_all(self) -> None:
        """Drop the held segments no kept point needs (_segments_needed), renumbering the points'."""
        ref = np.zeros(self.nseg, bool)
        for chunks in self.groups.values():
            for g, _ in chunks:
                ref[g] = True
        segs, keeps, off = [], [], 0
        for sg in self.segs:
            n = sg["n"]
            keep = _segments_needed(sg, ref[off:off + n])
            off += n
            keeps.append(keep)
            if not keep.all():
                sg = _take_segments(sg, keep)
            if sg["n"]:
                segs.append(sg)
        del ref
        new_index = np.cumsum(np.concatenate(keeps)) - 1
        del keeps
        self.segs, self.nseg = segs, len(new_index) and int(new_index[-1]) + 1
        self._set_chunks(_renumber(self._chunks(), new_index))

    def _finish(self) -> list[Series]:
        run, rel = self.run, self.rel
        if self.width > 1:
            run.warnings.append(f"{rel}: metric series thinned above {POINTS_BUDGET:,} points held (or "
                                f"{HELD_BYTES_BUDGET // 2**20:,} MB with their steps and lines; min/max per "
                                f"bucket of {self.width:,} lines; the first non-finite point of each bucket, every change "
                                f"between finite and non-finite and each series' first and last kept, with their "
                                f"exact steps and lines)")
        if self.long_lines:
            run.warnings.append(f"{rel}:{self.first_long}: {self.long_lines} line(s) longer than "
                                f"{MAX_METRIC_LINE // 1024} KB; kept as text, no metrics read from them")
        tables = tables_series(self.tables, rel, self.table_open)
        tables += darknet_series(self.darknet, rel)
        self.table_open, self.darknet = None, []
        on: set[int] = set()
        if self.layer_rows:   # a per-layer table's rows are layers, not steps of one metric
            on = table_lines(self.layer_rows)
            tables = [s for s in tables if not set(s.locs.tolist()) <= on] + layer_series(self.layer_rows, rel)
            self.layer_rows = []
        if self.flower or self.history:     # (the scanner's reading of those lines is a training accuracy with no loss)
            tables += flower_series(self.flower, rel, self.history)
            on |= flower_lines(self.flower, self.history)
            self.flower, self.history = [], []
        if self.deepxde:      # (the scanner reads nothing there, or odd things)
            tables += deepxde_series(self.deepxde, rel)
            on |= deepxde_lines(self.deepxde)
            self.deepxde = []
        if not self.groups or not any(self.roles[k] in (1, 4) for k, _, _ in self.groups):
            return tables
        segs, self.segs = self.segs, []
        col: dict = {}
        ctx = self.ctx
        names = _COLS + ("L",) + (tuple(_SETTLED) if ctx is not None else ())
        for k in names:     # one column at a time, its block pieces freed as it is built
            if any(sg.get(k) is not None for sg in segs):
                fill = _SETTLED.get(k, -1)
                col[k] = np.concatenate([sg[k] if sg[k] is not None else np.full(sg["n"], fill, np.int64)
                                         for sg in segs])
            else:
                col[k] = None
            for sg in segs:
                sg[k] = None
            if self.bytes_seen >= RELEASE_EVERY_BYTES:
                release_memory()   # this column's block pieces are freed: their pages back before the next column
        del segs
        L = col.pop("L")
        n = len(L)
        seg_rank = col["R"]
        step, kind = _segment_steps(col["S"], col["S_tot"], col["P"], col["P_tot"], col["E"], seg_rank, n,
                                    ctx=ctx, Ec=col.pop("Ec", None), K=col.pop("K", None))
        own = step >= 0
        if own.all():
            carried = np.zeros(n, bool)
        else:
            # a line with no step of its own takes the last step printed before it (an eval line
            # after a train line; an HF dict printed right after the progress bar reached that step)
            src = _ffill(own, seg_rank)
            carried = ~own & (src >= 0)
            step[carried] = step[src[carried]]
            kind[~own] = KIND_CARRIED
            del src
        # a counter's total tells bars apart (a train bar of 50 steps, an eval bar of 10)
        style = kind
        c = kind == KIND_COUNTER
        if col["P_tot"] is not None and c.any():
            pt = col["P_tot"]
            lo, hi = (int(pt.min(where=c, initial=np.iinfo(np.int64).max)), int(pt.max(where=c, initial=-1))) \
                if ctx is None else (ctx.pt_lo, ctx.pt_hi)
            if lo != hi:
                style = kind.astype(np.int64)
                style[c] += 8 * (pt[c] + 1)
        del c
        del own, col, kind
        if self.bytes_seen >= RELEASE_EVERY_BYTES:
            release_memory()

        parts = []
        shared: dict[tuple, tuple] = {}    # keys printed on the same lines: one sg / steps / lines array
        for (k, r, form), chunks in self.groups.items():
            ident = tuple(id(c[0]) for c in chunks)
            hit = shared.get(ident)
            if hit is None:
                sg = chunks[0][0] if len(chunks) == 1 else np.concatenate([c[0] for c in chunks])
                hit = shared[ident] = (sg, {})
            v = chunks[0][1] if len(chunks) == 1 else np.concatenate([c[1] for c in chunks])
            parts += self._series_of(k, r, form, hit[0], v, step, style, carried, L, hit[1])
        self.groups = {}
        merged = _merge_styles(parts)
        if on:
            merged = [s for s in merged if not set(s.locs.tolist()) <= on]
        return merged + tables

    def _series_of(self, k, r, form, sg, v, step, kind, carried, L, memo: dict) -> list[tuple]:
        """One (key, rank, form) group -> its series, one per kind of step its lines have (their
        own `step`, a progress counter (per total), an epoch, or none: carried from an earlier
        line); each part: (first line, key id, Series)."""
        raw = self.keys.raws[k]
        name = normalize(raw)
        if "kinds" not in memo:    # what depends on the lines only, once per set of lines
            # most of the lines, in order (a progress bar's loss beside the logged one): one mask
            # over the lines, so a kind's steps and lines are a compress, not a gather
            memo["mask"] = mask = _as_mask(sg, len(step)) if 2 * len(sg) >= len(step) else None
            kd = kind[mask] if mask is not None else kind[sg]
            # (one kind, the usual case: np.unique's sort is most of a small file's cost here)
            memo["kd"], memo["kinds"] = kd, kd[:1].copy() if len(kd) and (kd == kd[0]).all() else _codes(kd)
        kd, kinds, mask = memo["kd"], memo["kinds"], memo["mask"]
        out = []
        for kk in kinds:
            sel = None if len(kinds) == 1 else kd == kk
            s_sg, s_v = (sg, v) if sel is None or mask is not None else (sg[sel], v[sel])
            if sel is not None and mask is not None:
                s_v = v[sel]
            if not len(s_v):
                continue
            if sel is not None and mask is not None:      # this kind's lines: the group's lines of this kind
                lm = kind == kk
                lm &= mask
                st, lc, cr = step[lm], L[lm], carried[lm]
            elif sel is None:
                if "st" not in memo:
                    if len(sg) == len(step) and (len(sg) == 0 or (sg[0] == 0 and sg[-1] == len(sg) - 1)):
                        memo["st"], memo["lc"], memo["cr"] = step, L, carried    # every line: no copies
                    elif mask is not None:
                        memo["st"], memo["lc"], memo["cr"] = step[mask], L[mask], carried[mask]
                    else:
                        memo["st"], memo["lc"], memo["cr"] = step[sg], L[sg], carried[sg]
                st, lc, cr = memo["st"], memo["lc"], memo["cr"]
            else:
                st, lc, cr = step[s_sg], L[s_sg], carried[s_sg]
            # the same value at the same step again (two log handlers, an epoch repeated in the
            # eval dict) is one point; not where the steps are mostly carried from a few lines that have one
            # (_finish_steps: FEW_OWN_STEPS): "train_accuracy=1.0" on 40 lines after one "at step 400" is 40 points
            dup = memo.get("dup") if sel is None else None
            if dup is None:
                dup = (st[1:] >= 0) & (st[1:] == st[:-1])
                dup = dup if dup.any() and not _sparse_steps(st, cr) else False
                if sel is None:
                    memo["dup"] = dup
            filtered = False
            if dup is not False:
                same = dup & ((s_v[1:] == s_v[:-1]) | (np.isnan(s_v[1:]) & np.isnan(s_v[:-1])))
                if same.any():
                    keep = np.r_[True, ~same]
                    st, s_v, lc, cr = st[keep], s_v[keep], lc[keep], cr[keep]
                    filtered = True
            if sel is None and not filtered:        # the same lines, the same steps: settle them once
                if "fin" not in memo:
                    memo["fin"] = _finish_steps(st, cr)
                st, is_index, keep = memo["fin"]
            else:
                st, is_index, keep = _finish_steps(st, cr)
            if not keep.all():
                s_v, lc = s_v[keep], lc[keep]
            if not len(s_v):
                continue
            out.append((int(lc[0]), k, Series(name=name, raw_name=raw, steps=st, values=s_v, source=self.rel,
                                              locs=lc, loc_kind=LOC_LINE, step_is_index=is_index,
                                              rank=None if r < 0 else r)))
        return out


def _as_mask(sg: np.ndarray, n: int) -> np.ndarray | None:
    """A mask over n lines true at sg's, when sg is strictly increasing (a mask keeps only
    that order); None otherwise."""
    if len(sg) > 1 and not (sg[1:] > sg[:-1]).all():
        return None
    m = np.zeros(n, bool)
    m[sg] = True
    return m


def _distinct_small(x: np.ndarray) -> np.ndarray | None:
    """The distinct values of integer codes below GROUP_TABLE_MAX, sorted, by counting (one pass,
    no sort); None when they are not such codes (np.unique or hashing then)."""
    if x.dtype.kind not in "iu" or not len(x) or int(x.min()) < 0 or int(x.max()) >= GROUP_TABLE_MAX:
        return None
    return np.flatnonzero(np.bincount(x))


def _codes(kd: np.ndarray) -> np.ndarray:
    """np.unique of the kinds (and counter styles) of a group's lines."""
    d = _distinct_small(kd)
    return np.unique(kd) if d is None else d.astype(kd.dtype)


def _merge_styles(parts: list[tuple]) -> list[Series]:
    """Series of one key printed in more than one style (form, axis): each stays its own
    series, except that a style that takes over where another stopped (its steps start after
    the other's last step: a script's print format changed between runs of one log) continues
    it. Interleaved styles (a progress bar's running loss next to the logged loss) never mix."""
    by_key: dict[tuple, list] = {}
    for first, k, s in sorted(parts, key=lambda p: p[0]):
        by_key.setdefault((k, s.rank), []).append(s)
    out = []
    for group in by_key.values():
        cur = group[0]
        for s in group[1:]:
            if (not cur.step_is_index and not s.step_is_index and s.locs[0] > cur.locs[-1]
                    and s.steps[0] > cur.steps[-1]):
                cur = Series(cur.name, cur.raw_name, np.concatenate((cur.steps, s.steps)),
                             np.concatenate((cur.values, s.values)), cur.source,
                             np.concatenate((cur.locs, s.locs)), cur.loc_kind, False, cur.rank)
            else:
                out.append(cur)
                cur = s
        out.append(cur)
    # An eval metric may be printed once (a final test accuracy); training series need two points,
    # unless no series of the file has two on two lines (a post quoting its one epoch line: its values are all
    # there is; a code line "x.mean(axis=0) / x.std(axis=0)" above it gives axis two points on one line)
    multi = any(len(s) >= 2 and s.locs[0] != s.locs[-1] for s in out)
    return [s for s in out if len(s) >= 2 or s.name.startswith("val_") or not multi]


# Where a segment's step comes from: its own `step`, its progress counter, an epoch (its own,
# or a Keras epoch line's), or none of its own (carried from the line before, or no step at all).
KIND_NONE, KIND_STEP, KIND_COUNTER, KIND_EPOCH, KIND_CARRIED = 0, 1, 2, 3, 4


def _segment_steps(S, S_tot, P, P_tot, E, seg_rank, n: int | None = None, ctx: StepContext | None = None,
                   Ec: np.ndarray | None = None, K: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Step of each segment (-1 = none) from its explicit step S, its progress counter P
    (batch N, [N/M], N/M [) and its epoch E, all -1 where absent (a column absent from the
    whole log may be None); and where it came from (KIND_*).

    An epoch printed on a line of its own (Keras "Epoch 3/10") carries to the lines after it.
    A counter that restarts every epoch ("Epoch [2/10], Step [100/600]") becomes global:
    (epoch - first_epoch) * steps_per_epoch + counter.

    `ctx`: the segments were settled as they came (settle.StepContext; some dropped since): the
    epoch in force is their `Ec`, a counter's passes before it their `K` (None: -1 / 0), and what
    depends on the whole log comes from `ctx`.
    """
    n = len(S if S is not None else E if E is not None else P) if n is None else n
    if ctx is None and S is not None and P is None and E is None:   # only explicit steps (the common log): no copies
        kind = np.where(S >= 0, KIND_STEP, KIND_NONE).astype(np.int8)
        return S, kind
    neg = None

    def col(x):
        nonlocal neg
        if x is not None:
            return x
        if neg is None:
            neg = np.full(n, -1, np.int64)
        return neg
    S, S_tot, P, P_tot, E = col(S), col(S_tot), col(P), col(P_tot), col(E)
    if ctx is not None:
        Ec = col(Ec)
        any_e = ctx.e_min >= 0
        e_base = 1 if any_e and ctx.e_min >= 1 else 0
    else:
        if (E >= 0).any():
            src = _ffill(E >= 0, seg_rank)
            Ec = np.where(src >= 0, E[np.maximum(src, 0)], -1)
            del src
        else:
            Ec = E                      # no epoch anywhere: all -1
        any_e = bool((Ec >= 0).any())
        e_base = 1 if any_e and Ec[Ec >= 0].min() >= 1 else 0
    step = np.full(len(S), -1, dtype=np.int64)
    kind = np.zeros(len(S), dtype=np.int8)

    def globalise(X, X_tot, has, glob):
        idx = np.flatnonzero(has & (Ec >= 0))
        if ctx is not None:        # the whole log's answer (glob: settle._Global)
            per = glob.per()
            if per is None:
                return X
            out = X.copy()
            out[idx] = (Ec[idx] - e_base) * per + X[idx]
            return out
        if idx.size < 2:
            return X
        tots = X_tot[idx]
        pos = tots[tots > 0]
        if pos.size and (pos != pos[0]).any():
            # bars of several totals under one epoch (Lightning's training bar, 68 batches, with its validation
            # bar, 9, in between): the training bar, the total printed most, is the one whose passes are steps
            vals, counts = np.unique(pos, return_counts=True)
            idx = idx[tots == vals[np.flatnonzero(counts == counts.max())[-1]]]     # (a tie: the larger total)
            if idx.size < 2:
                return X
        out = X.copy()
        x, e = X[idx], Ec[idx]
        # the counter falls back (or stays: each epoch shows only its last bar, "40000/40000") as the epoch moves on
        if not counter_restarts(x, e):
            return out
        tot = X_tot[idx]
        per = int(tot.max()) if (tot > 0).any() else int(x.max() + (1 if x.min() == 0 else 0))
        out[idx] = (e - e_base) * per + x
        return out

    hasS = S >= 0
    if hasS.any():
        np.copyto(step, globalise(S, S_tot, hasS, ctx and ctx.S) if any_e else S, where=hasS)
        kind[hasS] = KIND_STEP
        hasP = (P >= 0) & ~hasS
    else:
        hasP = P >= 0
    del hasS
    # (masks, not index arrays, and copies only where needed: a tqdm log has a counter on
    # every one of its ten million redraws)
    if hasP.any():
        # Keras file logs show only each epoch's last batch ("100/100"): the epoch is the step
        keras = not ctx.keras_off if ctx is not None else \
            not ((P != P_tot) & hasP).any() and not ((Ec < 0) & hasP).any()
        if any_e and keras:
            np.copyto(step, Ec, where=hasP)
            kind[hasP] = KIND_EPOCH
        else:
            np.copyto(step, globalise(P, P_tot, hasP, ctx and ctx.P) if any_e else P, where=hasP)
            kind[hasP] = KIND_COUNTER
            no_epoch = hasP & (Ec < 0) if any_e else hasP
            if ctx is not None:
                if ctx.n_no_epoch > 1 and K is not None:
                    _settled_passes_into(step, P, P_tot, K, no_epoch, seg_rank, ctx)
            elif np.count_nonzero(no_epoch) > 1:
                _passes_into(step, P, P_tot, no_epoch, seg_rank)
    hasE = (E >= 0) & (step < 0)
    kind[hasE] = KIND_EPOCH
    _epoch_lines_at_last_step(step, kind, E, hasE, seg_rank)
    step[hasE] = E[hasE]
    return step, kind


def _epoch_lines_at_last_step(step: np.ndarray, kind: np.ndarray, E: np.ndarray, hasE: np.ndarray,
                              seg_rank: np.ndarray | None) -> None:
    """A line with an epoch and no step, printed after lines with steps of their own (a per-epoch
    validation summary, "Epoch 1/6 | Validation Loss: 0.41" after "Epoch 1/6 | Step 60 | Loss: 0.52"),
    sits at the last step printed before it: on the step lines' axis, not at step = its epoch number,
    which would put every validation point before the first training step. Only where each later
    epoch has new step lines before it (else the epochs keep their numbers); hasE loses those lines."""
    if not hasE.any():
        return
    stepped = kind == KIND_STEP
    if not stepped.any():
        return
    src = _ffill(stepped, seg_rank)
    at = np.flatnonzero(hasE & (src >= 0))
    if not len(at) or len(at) < np.count_nonzero(hasE) // 2:
        return
    s, e = src[at], E[at]
    if len(at) > 1 and np.any((np.diff(s) <= 0) & (np.diff(e) != 0)):
        return
    step[at] = step[s]
    hasE[at] = False


def _passes_into(step: np.ndarray, P: np.ndarray, P_tot: np.ndarray, where: np.ndarray,
                 seg_rank: np.ndarray | None) -> None:
    """step[where] = _passes(P[where], P_tot[where], ...), without index arrays when every such
    counter has one total and no rank (one progress bar: the usual case)."""
    big = np.iinfo(np.int64).max
    t_lo = int(P_tot.min(where=where, initial=big))
    t_hi = int(P_tot.max(where=where, initial=-1))
    if seg_rank is None and t_lo == t_hi:
        xs = P[where]
        out = _passes(xs, np.full(1, t_lo, np.int64), None, single=True)
        if out is not xs:
            step[where] = out
        return
    idx = np.flatnonzero(where)
    step[idx] = _passes(P[idx], P_tot[idx], None if seg_rank is None else seg_rank[idx])


def _settled_passes_into(step: np.ndarray, P: np.ndarray, P_tot: np.ndarray, K: np.ndarray, where: np.ndarray,
                         seg_rank: np.ndarray | None, ctx: StepContext) -> None:
    """step[where] = passes before (K, settle.StepContext._passes) * total + counter, as _passes
    gives it, except for the (total, rank) counters that restarted (left as printed)."""
    use = where & (K > 0) & (P_tot > 0)
    bad = ctx.restarted()
    if bad and use.any():
        rk = seg_rank if seg_rank is not None else np.full(len(P), -1, np.int64)
        for t, r in bad:
            use &= ~((P_tot == t) & (rk == r))
    idx = np.flatnonzero(use)
    step[idx] = K[idx] * P_tot[idx] + P[idx]


def _passes(x: np.ndarray, tot: np.ndarray, rank: np.ndarray | None, single: bool = False) -> np.ndarray:
    """Global steps of a progress counter that no epoch is printed with ("Training: 45%|| 450/1000"
    restarting at every epoch): passes completed * total + counter. Counters of another total (an
    eval bar) count their own passes; a counter that goes back before reaching
    PASS_DONE_SHARE of its total is left as it is (a restart is for the analyzers to see)."""
    if single:     # one total for all (tot holds it), no rank: x in one piece
        t = int(tot[0])
        if t <= 0 or len(x) < 2:
            return x
        back, done = pass_ends(x, t)
        if done.size == 0 or done.size < back.size:
            return x
        k = np.zeros(len(x), np.int64)
        k[done] = t
        np.cumsum(k, out=k)
        k += x
        return k
    out = x.copy()
    key = tot if rank is None else tot * (int(rank.max()) + 2) + (rank + 1)
    for kv in np.unique(key):
        idx = np.flatnonzero(key == kv)
        xs, t = x[idx], int(tot[idx[0]])
        if t <= 0 or idx.size < 2:
            continue
        back, done = pass_ends(xs, t)
        if done.size == 0 or done.size < back.size:
            continue                           # no new passes, or a restart among them: leave as printed
        k = np.zeros(idx.size, np.int64)
        k[done] = 1
        out[idx] = np.cumsum(k) * t + xs
    return out


# Carried steps that collide this often mean the log printed one step and then many stepless
# lines: their order is a better x axis than a repeated step.
MAX_CARRIED_DUP_SHARE = 0.1


FEW_OWN_STEPS = 4     # under a quarter of a series' points with a step of their own ...
SPARSE_MISS_SHARE = 0.1     # ... and at least this share of them before any step at all


def _sparse_steps(st: np.ndarray, carried: np.ndarray) -> bool:
    """A series whose steps come from a rare line of another kind ("Saved checkpoint for epoch 50 at step 400."): many
    points before the first such line, and few with a step of their own. An "Epoch N" header's lines carry its step as
    well, but nothing (or one stray line) stands before the first header."""
    n = len(st)
    miss = st < 0
    n_miss = int(np.count_nonzero(miss))
    if FEW_OWN_STEPS * int(np.count_nonzero(~miss & ~carried)) >= n:
        return False
    if n_miss >= SPARSE_MISS_SHARE * n and n_miss > 1:
        return True
    # ... or one step carried to every point from a single line before them ("===training policy=== num_updates=80"
    # above stepless record dicts: 80 is a count; read as their step, every record sat at step 80 and repeats folded)
    held = st[carried & ~miss]
    return held.size >= FEW_OWN_STEPS and bool(np.all(held == held[0]))


def _finish_steps(st: np.ndarray, carried: np.ndarray) -> tuple[np.ndarray, bool, np.ndarray]:
    """Steps of one series (-1 = none) -> (steps, step_is_index, points kept).

    Mostly stepless: the running index. Stepless points before the first step are dropped
    (a config echo such as `Namespace(lr=[0.0005])` is not a point of the lr curve); later
    ones take the step before them."""
    n = len(st)
    keep = np.ones(n, dtype=bool)
    miss = st < 0
    n_miss = int(np.count_nonzero(miss))    # (counts, not .mean(): a small file's series are many tiny arrays)
    if n_miss == n or 2 * n_miss > n:
        return np.arange(n, dtype=np.int64), True, keep
    cr = carried
    # ... nor when the points with a step of their own are few (FEW_OWN_STEPS) and the rest only carry a rare line's step
    # ("Saved checkpoint for epoch 50 at step 400." among clu's "[8] train_loss=..." lines, whose "[8]" is no step read
    # here): the points before that line are the run's, not an echo, and the steps carried from it say nothing
    if _sparse_steps(st, carried):
        return np.arange(n, dtype=np.int64), True, keep
    if n_miss:
        first = int(np.flatnonzero(~miss)[0])
        keep[:first] = False
        idx = np.maximum.accumulate(np.where(~miss, np.arange(n), -1))
        st = st[np.maximum(idx, 0)][keep]
        cr = carried[keep]
    if 2 * int(np.count_nonzero(cr)) > len(cr) and (len(st) - len(np.unique(st))) > MAX_CARRIED_DUP_SHARE * len(st):
        return np.arange(len(st), dtype=np.int64), True, keep
    return st, False, keep
