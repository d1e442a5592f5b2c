"""The byte scanner: where a metric can hang in a log, and the key and number at each place.

In:  the bytes of a log (and its digit-masked copy, arrays.Masked).
Out: `anchors` (positions of `key=`, `key:`, `key value`), `read_anchors` (key id and value
     per anchor), `progress_counters` (bare `[N/M` / `N/M [` counters), `line_ranks`
     (rank per line from `[rankN]:`-style prefixes), `held_out_marks` (where a line reports on a
     held-out set: "Test set: ...", Caffe's "Test net output #N").

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
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.readers.textlog.arrays import (CHUNK, PAD, Masked, by_code, digits_value, find_byte,
                                                     group_rows, raw_bytes_at, rows_of, scale_pow10, split_halves,
                                                     starts_with_any)
from mltdbg.analyzers.readers.textlog.vocabulary import (AT_K, BATCH_KEYS, EPOCH_KEYS, PAIR_NAMES, PREFIX_WORDS, STEP_KEYS, UNITS,
                                                          loss_term, qualified_pair)


# Bytes examined before / after an anchor. Most keys and numbers fit the short window;
# anchors whose key or number runs past it are read again with the long one.
BACK, FWD = 16, 16
RANK_FWD = 48       # a line's rank prefix is read from its first bytes (a Ray actor's "(ClientAppActor pid=61281) ")
LONG_BACK, LONG_FWD = 64, 48
MAX_MANT_DIGITS = 18  # int64 holds 18 decimal digits exactly
FORM_EQ, FORM_COLON, FORM_QUOTED, FORM_SPACE = 0, 1, 2, 3

# (pre: a qualifying word, "train loss", or a data set's name in the possessive, LightGBM's
# "valid_1's binary_logloss", "training's auc")
_KEY_TAIL = re.compile(
    rb"(?<![A-Za-z0-9_./@\-])(?:(?P<pre>[A-Za-z]{1,12}|[A-Za-z][A-Za-z0-9_\-]{0,23}'s) )?"
    rb"(?P<key>[A-Za-z_][A-Za-z0-9_./@\-]*?)(?P<q>['\"]?)[ \t]*\Z")
_VALUE = re.compile(rb"""
    (?: [:=][ \t]*['"]?[\[(]?[ \t]*(?:tensor\(|np\.(?:float|int)00\(|float\()?   # key: value
      | \x20\[?[ \t]*(?:tensor\()? )                                             # key value
    (?: (?P<spec>[-+]?(?:[nN][aA][nN]|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?))
      | (?P<sign>[-+]?)(?P<int>0*)(?:(?P<dot>\.)(?P<frac>0*))?(?:[eE](?P<es>[-+]?)(?P<exp>0+))? )
    (?:[ \t]*(?P<slash>/)[ \t]*(?P<tot>0+))?
    (?P<unit>%|[A-Za-z]{1,7}(?:/[A-Za-z]{1,8})?)?
    """, re.X)
_PROG_BACK = re.compile(rb"(?P<ctx>[\x00\n\r|\[])[ \t]*(?P<n>0+)[ \t]*\Z")
_PROG_FWD = re.compile(rb"/[ \t]*(?P<m>0+)(?P<after>[ \t]*)")
_RANK = re.compile(rb"\[?(?:[rR][aA][nN][kK]|[dD][eE][fF][aA][uU][lL][tT])[ \t]?(?P<r>0+)(?:\]|:| )"
                   # ... and the clients of a federated run, each its own model and data (a Ray actor's "(ClientAppActor
                   # pid=61281) device 7: val_loss=4.12"): one series per client, not one that jumps between them
                   rb"|(?:\((?:[A-Za-z_]+[ \t])?pid=0+(?:,[ \t]*ip=[0.]+)?\)[ \t]*)?\[?(?i:client|device|site|silo|party)"
                   rb"[ \t_#-]?(?P<c>0+)(?:\]|:|[ \t]+\|)")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPECIAL = (b"nan", b"inf", b"infinity")
_COPULAS = frozenset((b"is", b"was", b"are", b"were"))
_COPULA_END = re.compile(rb"(?<![A-Za-z])(?:" + b"|".join(sorted(_COPULAS)) + rb")[ \t]*\Z", re.I)
_STOPPING = re.compile(rb"stop|termin|abort|exit", re.I)
_CONT = frozenset(b".:/-,")
_ALPHA = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")



def _this_line(before: bytes) -> bytes:
    """The part of the bytes before an anchor on the anchor's own line (a window may reach into the line, or the
    file, before it: read together or apart, a line reads the same)."""
    cut = max(before.rfind(b"\n"), before.rfind(b"\r"), before.rfind(b"\x00"))
    return before[cut + 1:]

# What a metric was measured on, named last: "Accuracy of the network on the 10000 test images: 54 %"
# (the PyTorch tutorials' line). The key is then the whole phrase from the metric's name (_METRIC_ON);
# names.normalize reads it as the metric, of the set the phrase names.
_MEASURED_UNITS = re.compile(rb"(?:images|samples|examples|sentences|instances|records|items|batches)", re.I)
_METRIC_ON = re.compile(rb"(?<![A-Za-z])(?:[A-Za-z]{1,12}[ \t]+)?(?:accuracy|acc|loss|error)[ \t]+of[ \t]+the[ \t]+"
                        rb"[A-Za-z_]+[ \t]+on[ \t]+(?:the[ \t]+)?(?:0+[ \t]+)?\Z", re.I)
# ... whose end ("on ", "the ", a count) is all a short window may hold of it
_PHRASE_END = re.compile(rb"(?:\bon|\bthe|0)[ \t]+\Z", re.I)


# Words before a counter's name that make it a count or a setting: "optimization steps", "warmup steps", "max iters".
_COUNT_WORDS = {b"optimization", b"accumulation", b"warmup", b"max", b"num", b"number", b"logging", b"save",
                b"decay", b"checkpoint", b"total"}
_COUNTER_KEYS = {k.encode() for k in STEP_KEYS | EPOCH_KEYS | BATCH_KEYS} | {b"epochs", b"batches"}


def _key_shape(masked: bytes):
    """Key at the end of the bytes before an anchor: (status, start, end, has_digit, pre_len,
    quoted). status 0 = none, 1 = key, 2 = may run past the window."""
    m = _KEY_TAIL.search(masked)
    if not m:
        return 0, 0, 0, False, 0, False
    key = m.group("key")
    if _MEASURED_UNITS.fullmatch(key):
        head = masked[:m.start()]
        on = _METRIC_ON.search(head)
        if on:
            return 1, on.start(), m.end("key"), b"0" in masked[on.start():m.end("key")], 0, bool(m.group("q"))
        if len(masked) < LONG_BACK and _PHRASE_END.search(head) and not any(c in head for c in (0, 10, 13)):
            return 2, 0, 0, False, 0, False      # the phrase may start before the window: read it again wider
    if key[-1:] in (b".", b"-", b"/"):
        return 0, 0, 0, False, 0, False
    start = m.start()
    if start == 0 and masked[0] not in (0, 10, 13):
        return 2, 0, 0, False, 0, False
    pre = m.group("pre")
    if pre and key.lower() in _COPULAS and not m.group("q"):
        # "loss is 1.4503" (MindSpore's LossMonitor), "accuracy was 0.91": the word before the verb is the key
        return 1, m.start("pre"), m.end("pre"), False, 0, False
    if pre == b"s" and start == 1 and masked[:1] == b"'":    # "...'s key": a set's name runs past the window
        return 2, 0, 0, False, 0, False
    pre_len = 0
    if pre and pre.endswith(b"'s"):     # a data set's metric: its name is part of the key
        pre_len = len(pre) + 1
    elif pre:
        full = (pre + b" " + key).lower()
        if pre.lower().decode() in PREFIX_WORDS or full.decode() in PAIR_NAMES \
                or qualified_pair(pre.decode(errors="replace"), key.decode(errors="replace")) \
                or loss_term(pre.decode(errors="replace"), key.decode(errors="replace")):
            pre_len = len(pre) + 1
        elif pre.lower() in _COUNT_WORDS and key.lower() in _COUNTER_KEYS:
            # "Total optimization steps = 128", "Gradient Accumulation steps = 2" (the Trainer's banner): how many,
            # not the step a line is at (read as one, every stepless record after it sat at step 128)
            return 0, 0, 0, False, 0, False
        else:
            start = m.start("key")
    # (digits anywhere in the key read per row: "valid_0's" and "valid_1's" have one shape)
    return 1, start, m.end("key"), b"0" in masked[start:m.end("key")], pre_len, bool(m.group("q"))


def _value_shape(masked: bytes):
    """Number after an anchor. Returns None (no number), "long", or a layout dict."""
    m = _VALUE.match(masked)
    if not m:
        return None
    spec, intg, frac, dot, exp = m.group("spec"), m.group("int"), m.group("frac"), m.group("dot"), m.group("exp")
    if not spec and not intg and not frac:
        # the window ends in the padding before the value, or inside a nan/inf ("│ test_loss │      nan │",
        # a box-drawn table's wide cells): read again with the long window
        rest = masked[m.end():].lstrip(b"+-").lower()
        if m.end() < len(masked) and rest and not any(w.startswith(rest) and len(rest) < len(w) for w in _SPECIAL):
            return None
        return "long" if masked[:1] in (b":", b"=") else None
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
    if unit == b"%" and c == 124:   # "Training:  45%|####" is a tqdm bar's percentage, not a metric
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
    # (a whole number with a unit is a time, a size or a share, never a counter: "Step: 45ms")
    lay["is_int"] = not dot and not exp and not unit
    if has_tot:
        lay["tcols"] = list(range(m.start("tot"), m.end("tot")))
        lay["slash"] = m.start("slash")
    if len(lay["mcols"]) > MAX_MANT_DIGITS or len(lay["ecols"]) > 3 or len(lay["tcols"]) > 18:
        lay["float"] = (m.start("sign"), m.end("exp") if exp else (m.end("frac") if dot else m.end("int")))
    return lay


class Keys:
    """Distinct keys of one file: lower-cased text -> id, with the first spelling seen."""

    def __init__(self, exact: bool = False):
        self.ids: dict[str, int] = {}
        self.raws: list[str] = []
        self.exact = exact          # one id per spelling (a scan of many files: each keeps its own)
        self.respelled = False      # a key met again spelled another way ("Loss" after "loss")

    def id(self, raw: bytes) -> int:
        return self.id_text(raw.decode("ascii", "replace"))

    def id_text(self, text: str) -> int:
        low = text if self.exact else text.lower()
        i = self.ids.get(low)
        if i is None:
            i = self.ids[low] = len(self.raws)
            self.raws.append(text)
        elif not self.respelled and self.raws[i] != text:
            self.respelled = True
        return i


def read_anchors(b: np.ndarray, masked: Masked, pos: np.ndarray, back: int, fwd: int, keys: Keys,
                  last: bool):
    """Key and number at each anchor. Returns (accepted dict of per-row arrays, positions to
    read again with longer windows). "slash": offset of a '/' in the value from the anchor, -1;
    "total": M of a value "N/M", -1 (None when no value has one); "form": how the key is tied
    to its number, FORM_EQ `key=1`, FORM_COLON `key: 1`, FORM_QUOTED `'key': 1`, FORM_SPACE
    `key 1` (one print statement prints a key one way: the forms tell print styles apart).

    One shape per anchor covers both sides (key before, number after): a print statement
    gives the same few shapes on every line, so the regexes run a few dozen times in all."""
    n = len(pos)
    e = np.zeros(0, np.int64)
    empty = {"pos": e, "key": e, "val": np.zeros(0), "is_int": e.astype(bool),
             "is_space": e.astype(bool), "total": None, "slash": e, "form": e.astype(np.int8)}
    if n == 0:
        return empty, e
    codes, reps = masked.group(pos, back, fwd)
    mk = masked.windows(pos[reps], back, fwd)  # one masked window per distinct shape
    # read each distinct shape once
    kinfo, lays, status = [], [], np.zeros(len(reps), np.int8)  # 0 no, 1 yes, 2 read again
    for c in range(len(reps)):
        before, after = mk[c, :back].tobytes(), mk[c, back:].tobytes()
        lay = _value_shape(after)
        k = _key_shape(before) if lay is not None else (0, 0, 0, False, 0, False)
        if k[0] and isinstance(lay, dict) and lay["spec"] is not None and _COPULA_END.search(before) \
                and (_STOPPING.search(after) or b"0" not in _this_line(before)):
            # "Loss is nan, stopping training" (a run's last words) or a sentence's "the loss is nan": no logged
            # point (MindSpore's "step: 300, loss is nan", a step's number right before it, is one, and stays)
            k = (0, 0, 0, False, 0, False)
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
    code_form = np.zeros(len(reps), dtype=np.int8)
    for c in np.flatnonzero(status == 1):
        _, a, z, has_digit, _, quoted = kinfo[c]
        if not has_digit:  # the key is the same text in every row of this shape
            p = int(pos[reps[c]]) - back
            code_kid[c] = keys.id(b[p + a:p + z].tobytes())
        lay = lays[c]
        code_int[c], code_space[c], code_slash[c] = lay["is_int"], lay["space"], lay["slash"]
        code_form[c] = (FORM_SPACE if lay["space"] else FORM_QUOTED if quoted
                        else FORM_COLON if mk[c, back] == 58 else FORM_EQ)
    kid = code_kid[cid]
    val = np.empty(len(idx))
    total = None
    for c, sub in rows_of(cid, len(reps), np.flatnonzero(status == 1)):
        if sub.size == 0:
            continue
        rows = idx[sub]
        at = pos[rows]  # the anchor: the number's columns count from it
        lay = lays[c]
        _, a, z, has_digit, _, _ = kinfo[c]
        if has_digit:  # "acc1", "layer.3": the digits are part of the key, read them per row
            kb = raw_bytes_at(b, at, a - back, z - back)
            g, greps = group_rows(kb)
            kid[sub] = np.array([keys.id(kb[r].tobytes()) for r in greps], dtype=np.int32)[g]
        if lay["spec"] is not None:
            val[sub] = lay["spec"]
            continue
        if "float" in lay:  # more digits than int64 holds: let float() read these few
            i, j = lay["float"]
            val[sub] = [float(x.tobytes()) for x in raw_bytes_at(b, at, i, j)]
            continue
        e10 = -lay["nfrac"]
        if lay["ecols"]:
            ex = digits_value(b, at, lay["ecols"])
            e10 = e10 + (-ex if lay["eneg"] else ex)
        v = scale_pow10(digits_value(b, at, lay["mcols"]), e10)
        val[sub] = -v if lay["neg"] else v
        if lay["tcols"]:
            if total is None:
                total = np.full(len(idx), -1, dtype=np.int64)
            total[sub] = digits_value(b, at, lay["tcols"])
    acc = {"pos": pos[idx], "key": kid, "val": val, "is_int": code_int[cid],
           "is_space": code_space[cid], "total": total, "slash": code_slash[cid], "form": code_form[cid]}
    return acc, again


def _is_anchor(b: np.ndarray, i: int) -> bool:
    """The test `anchors` applies, for one position (the file's first two: their neighbours
    before the file's start read as the file's first byte)."""
    c, n = int(b[i]), int(b[i + 1])
    p1, p2 = int(b[max(i - 1, 0)]), int(b[max(i - 2, 0)])
    if c in (61, 58):
        return not (48 <= p1 <= 57 and 48 <= p2 <= 57)
    return c == 32 and (48 <= n <= 57 or n == 91) and (97 <= (p1 | 32) <= 122 or p1 == 32)


def anchors(b: np.ndarray, data: bytes, masked: Masked | None = None) -> np.ndarray:
    """Positions of ':' / '=' after a key-like byte, and of a space between a letter (or spaces)
    and a digit or '['. Cheap single-byte tests first: most ':' in a log are in timestamps.

    Whole-array masks over the digit-masked copy (every digit is '0' there; its zero padding
    stands in for the bytes before the file), a block at a time: whole-file temporaries cost
    more in page faults than the comparisons themselves."""
    nb = len(b)
    if nb < 3:
        return np.zeros(0, np.int64)
    if masked is None:
        masked = Masked(data)
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
            # '=', or ':' unless right after two digits (a time: "12:00"); a key may end in two digits
            # before '=' ("layer10=0.5", "top10=0.93")
            np.equal(cur, 58, out=a)
            np.equal(p1, 48, out=x)
            np.equal(p2, 48, out=y)
            np.logical_and(x, y, out=x)
            np.greater(a, x, out=a)  # ':' and not x
            np.equal(cur, 61, out=x)
            np.logical_or(a, x, out=a)
            # ' ' before a digit or '[', after a letter or a space
            np.equal(nxt, 48, out=x)
            np.equal(nxt, 91, out=y)
            np.logical_or(x, y, out=x)
            np.equal(cur, 32, out=y)
            np.logical_and(x, y, out=x)
            # (a space before 'n', 'i', '-' or 't': where " nan", " inf", " -inf", " -0.5", " tensor(" may start)
            z = w.view(bool)
            np.equal(nxt, 110, out=z)
            np.logical_or(z, nxt == 105, out=z)
            np.logical_or(z, nxt == 45, out=z)
            np.logical_or(z, nxt == 116, out=z)
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
    halves = split_halves(scan, nb - 1, CHUNK)
    parts = [x for h in halves for x in h[0]]
    # "loss nan" / "loss -inf" (Python prints nan/inf in lower case): the space before them,
    # when the word is not longer ("info", "nano"); "loss tensor(0.69, ...)" (print("loss", loss)
    # of a torch scalar) when a number, a sign, nan or inf follows the parenthesis
    cand = np.concatenate([x for h in halves for x in h[1]])
    at = cand + PAD
    ahead = [M[at + k] for k in range(1, 10)]
    not_alpha = [((c | np.uint8(32)) - np.uint8(97)) >= 26 for c in ahead]
    is_nan = (ahead[0] == 110) & (ahead[1] == 97) & (ahead[2] == 110) & not_alpha[3]
    is_inf = (ahead[0] == 105) & (ahead[1] == 110) & (ahead[2] == 102) & not_alpha[3]
    is_ninf = (ahead[0] == 45) & (ahead[1] == 105) & (ahead[2] == 110) & (ahead[3] == 102) & not_alpha[4]
    # ... and a negative number ("loss -0.0327": CTC with a label on the blank, a GAN's critic): '-' then a digit, or
    # '-.5' (a dash then a space is a separator: "epoch 3 - loss 0.5")
    is_neg = (ahead[0] == 45) & ((ahead[1] == 48) | ((ahead[1] == 46) & (ahead[2] == 48)))
    is_tensor = ahead[0] == 116
    for k, c in enumerate(b"ensor(", 1):
        is_tensor &= ahead[k] == c
    is_tensor &= ((ahead[7] == 48) | (ahead[7] == 45) | (ahead[7] == 110) | (ahead[7] == 105)
                  | ((ahead[7] == 46) & (ahead[8] == 48)))      # a digit, '-', nan, inf, '.5'
    special = cand[is_nan | is_inf | is_ninf | is_neg | is_tensor]
    at_k = _at_k_anchors(data)
    pos = np.concatenate(parts + [special, at_k])
    if special.size or at_k.size:
        pos.sort(kind="stable")
        if at_k.size:
            pos = np.unique(pos)
    return pos


# A ranking metric at a cut-off ("HR@10 0.1133", "recall@20: 0.0371", "NDCG@10=0.02"): a key that ends in digits
# before ':' or a space, where the byte tests above read a time ("12:00") or no key at all. Found by one regex
# where the file holds an '@' before a digit.
_AT_K = re.compile(rb"[A-Za-z]" + AT_K.encode() + rb"(?P<a>[ \t]*:|[ ])[ \t]*[-+.\d]")


def _at_k_anchors(data: bytes) -> np.ndarray:
    """Anchor positions (the ':' or the space) after `name@K` keys."""
    if data.find(b"@") < 0:
        return np.zeros(0, np.int64)
    return np.array([m.end("a") - 1 for m in _AT_K.finditer(data)], dtype=np.int64)


def progress_counters(b: np.ndarray, masked: Masked):
    """Bare progress counters `[N/M` (mmcv, timm, tutorials) and tqdm/Keras `N/M [` / `N/M ━`.
    Returns (slash positions, N, M)."""
    sl = find_byte(b, 47)
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
    good = [c for c, inf in enumerate(info) if inf is not None and len(inf[0]) <= 15 and len(inf[1]) <= 15]
    if not good:
        return empty, empty, empty
    # N and M scattered back to the slashes' own order (no sort of the rows)
    nv = np.full(len(sl), -1, np.int64)
    mv = np.zeros(len(sl), np.int64)
    for c, rows in rows_of(codes, len(reps), good):
        nv[rows] = digits_value(b, sl[rows] - BACK, info[c][0])
        mv[rows] = digits_value(b, sl[rows] - BACK, info[c][1])
    ok = (nv >= 0) & (nv <= mv) & (mv > 0)
    return sl[ok], nv[ok], mv[ok]


# Decimal commas ("Verlust: 0,4123", "perte validation 1,2404 | exactitude 86,33 %", "perdita 0,88"): numbers as French,
# German, Italian, Dutch, Spanish and Russian code prints them. A number with a comma inside, after a space, ':' or '='
# and not touching another digit, dot or comma (not a tuple's "(0,1)", nor a CSV row's "3,0.51,0.87"), is a decimal
# where it starts with 0 or has other than three digits after the comma; with three (and a leading digit other than 0)
# it may be an English thousands separator ("1,024 steps"). A block is read as printing decimal commas where its head
# holds DECIMAL_COMMA_MIN such decimals and they are DECIMAL_COMMA_SHARE of its comma numbers at least (the others, three
# digits after the comma, are decimals there too).
_COMMA_NUMBER = re.compile(rb"(?<=[ \t:=])(\d+),(\d+)(?![\d.,])")
DECIMAL_COMMA_MIN = 3
DECIMAL_COMMA_SHARE = 0.5
DECIMAL_COMMA_HEAD = 64 * 1024


def decimal_commas(data: bytes) -> bytes:
    """`data` with the decimal commas of its numbers made dots (same length: offsets and newlines stay), where the
    block prints decimal commas (see above); else as it is, at the cost of one search of its head."""
    head = data[:DECIMAL_COMMA_HEAD]
    found = _COMMA_NUMBER.findall(head) if b"," in head else []
    if not found:
        return data
    dec = sum(1 for i, f in found if i == b"0" or len(f) != 3)
    # (a later block of a long log whose head holds fewer: two or more, and all of its comma numbers decimals, is
    # enough; one "GPUs: 0,1" in an English header is not)
    if (dec < DECIMAL_COMMA_MIN and not (dec >= 2 and dec == len(found))) or dec < DECIMAL_COMMA_SHARE * len(found):
        return data
    return _COMMA_NUMBER.sub(lambda m: m.group(1) + b"." + m.group(2), data)


# Julia prints a Float32 with its own exponent letter ("loss = 1.4486f0", "lr = 1.0f-5", Flux's training loops): the
# same number as 1.4486e0, written so in the scanned bytes (same length)
_JULIA_F32 = re.compile(rb"(?<![\w.])(\d+\.\d*)f([-+]?\d{1,3})(?!\w|\.\d)|(?<![\w.])(NaN|Inf)32(?!\w)")


def julia_floats(data: bytes) -> bytes:
    """`data` with Julia's Float32 literals' `f` exponent made `e`, and NaN32 / Inf32 made NaN / Inf (see above); data
    without an "f0" as it is, at the cost of one literal search (~0.02 s on 50 MB; every Float32 log prints some), or
    without such a literal in its first MB at the cost of that search too; else one substitution over it all (~1 s on
    50 MB)."""
    if _F0.search(data) is None or _JULIA_F32.search(data, 0, JULIA_PROBE) is None:
        return data         # ("0x7f0..." in a repr has an f0 too: the pattern itself is looked for in the first MB)
    return _JULIA_F32.sub(lambda m: m.group(1) + b"e" + m.group(2) if m.group(1) else m.group(3) + b"  ", data)


_F0 = re.compile(rb"f0")
JULIA_PROBE = 1 << 20


# A line that reports on a held-out set: "Test set: Average loss: 0.0334, Accuracy: 9890/10000 (99%)"
# (PyTorch's MNIST example, and the many scripts made from it), "Validation: loss=0.41 acc=0.88". Its
# keys are that set's (EVAL_KEY_PREFIX + key), not the training loss and accuracy printed beside them.
# (also "eval epoch: 1, loss: 0.05, accuracy: 98.2", Flax's examples: the line's counter names the set)
# (and a set's tag in brackets at the start: "[test] n=500 loss=0.94 acc=0.75", "[val] epoch 3 ...")
# (and PyTorch-Ignite's examples: "Validation Results - Epoch: 3  Avg accuracy: 0.91 Avg loss: 0.30", beside
# "Training Results - Epoch: 3 ...")
_EVAL_LINE = re.compile(rb"(?:test|val|valid|validation|eval|evaluation)(?: set| epoch| step)?[ \t]*:"
                        rb"|(?:test|val|valid|validation|eval|evaluation)[ \t]+results?\b"
                        rb"|\[(?:test|val|valid|validation|eval|evaluation|dev|holdout)\][ \t]", re.I)
EVAL_KEY_PREFIX = "test/"
_EVAL_WIDTH = 24


# ... and, after a logging prefix, Caffe's test phase ("I0101 12:00:00.000 1234 solver.cpp:409]     Test net
# output #1: loss = 0.8 (* 1 = 0.8 loss)"; its training lines say "Train net output") and OpenMMLab 2's
# (mmengine: "... - INFO - Epoch(val) [1][100/100]    accuracy/top1: 45.2", "Iter(test)"; its training
# lines say "Epoch(train)"), and fairseq's (below). Each phrase with a rare byte of its line: only a block that holds that byte
# (one memchr) is searched for the phrase (bytes.find of a phrase costs 1.5-2.2 ms a 4 MB block); and
# the words one must follow, when it needs them.
# fairseq's ("... | INFO | valid | epoch 003 | valid on 'valid' subset | loss 7.902 | ppl 147"; older versions print
# only "| epoch 003 | valid on 'valid' subset | ..."; its training lines say "| train |" or nothing).
_EVAL_MARKS = ((b"#", b"Test net output", ()), (b"(", b"(val)", (b"Epoch", b"Iter")),
               (b"(", b"(test)", (b"Epoch", b"Iter")), (b"'", b" valid on '", ()))


# Keras' finished progress bars ("35/35 [====] - 6s 176ms/step - loss: 0.02 - accuracy: 0.99 - val_loss: ..."; Keras 3
# draws "35/35 ━━━━ 6s ..."): a bar with another total than the training epochs' and no val_ key, in a log whose epoch
# bars carry val_ keys, is model.evaluate()'s on a held-out set ("9/9 [====] - 1s - loss: 2.11 - accuracy: 0.69")
_KERAS_BAR = re.compile(rb"^[ \t]*\d+/(\d+) (?:\[=|\xe2\x94\x81)[^\n]*?/step[^\n]*", re.M)
KERAS_EVAL_MAX_BYTES = 16 * 1024 * 1024


def _keras_evaluate_bars(data: bytes) -> list[int]:
    if b"/step" not in data or b"val_" not in data or len(data) > KERAS_EVAL_MAX_BYTES:
        return []
    bars = [(m.start(), m.group(1), b"val_" in m.group(0)) for m in _KERAS_BAR.finditer(data)]
    epoch_totals = {t for _, t, val in bars if val}
    if not epoch_totals:
        return []
    return [at for at, t, val in bars if not val and t not in epoch_totals]


# A set's tag inside a line that reports two sets (ESPnet: "3epoch results: [train] loss=41.2, acc=0.52, [valid]
# loss=45.1, acc=0.44, cer=0.31, wer=0.72"): the keys after a held-out tag are that set's, up to a [train] tag.
_INLINE_HELD = ("valid", "val", "validation", "test", "eval", "dev")
_INLINE_TAGS = tuple((f"[{w}]".encode(), True) for w in _INLINE_HELD) + ((b"[train]", False),)


_HELD_TAG = re.compile(rb"\[(?:" + "|".join(_INLINE_HELD).encode() + rb")\]")


# ... and a set's name opening a part of the line after a bar ("epoch 01 | train loss 0.35 auroc 0.99 | val loss 0.14 auroc
# 0.99", "train: loss 0.3 | Val: loss 0.2", any case); the word must end there (not "| value", "| validate_every"). The
# held part ends at the next bar that opens no held set ("| val loss 0.1 acc 0.8 | lr 0.001": the lr is no validation
# metric). (The same after a comma, ", val: loss 0.2", is left unread: a regex pass over every comma of a 4 MB block cost
# ~13 ms, a pass over its bars ~3 ms.)
_HELD_WORD = rb"(?i:" + "|".join(_INLINE_HELD).encode() + rb")(?![\w])"
_SEP_TAG = re.compile(rb"\| " + _HELD_WORD)
_SEP_END = re.compile(rb"\| (?!" + _HELD_WORD + rb")")


def inline_set_tags(data: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, held_out) of the set tags in `data` (_INLINE_TAGS by bytes.find, rare needles; _SEP_TAG by one regex pass
    where a bar is there), and where each bar's held part ends, in order."""
    found: list[tuple[int, bool]] = []
    # (the [train] tags only where a held-out one is there to end: most logs with brackets hold neither; one regex pass
    # tells, 4x cheaper than a find per tag)
    if b"[" in data and _HELD_TAG.search(data) is not None:
        for tag, held in _INLINE_TAGS:
            k = data.find(tag)
            while k >= 0:
                found.append((k, held))
                k = data.find(tag, k + len(tag))
    if b"| " in data:
        for m in _SEP_TAG.finditer(data):
            found.append((m.start(), True))
            eol = data.find(b"\n", m.end())
            end = _SEP_END.search(data, m.end(), len(data) if eol < 0 else eol)
            if end is not None:
                found.append((end.start(), False))
    found.sort()
    return np.array([f[0] for f in found], np.int64), np.array([f[1] for f in found], bool)


def held_out_marks(b: np.ndarray, masked: Masked, line_starts: np.ndarray, data: bytes,
                   files: list[tuple[int, int]] | None = None) -> np.ndarray:
    """Offsets where a report on a held-out set starts: the start of a line that begins by naming one
    (_EVAL_LINE), and each _EVAL_MARKS phrase. The caller holds the metrics of the segment (a line, or
    one tqdm redraw of it) that holds a mark as that set's: a line that starts "Validation: 0%|" and
    goes on with the training bar's redraws after '\r' marks its first segment only. Only lines that
    start with t, v, e (either case) or '[' are looked at, one window per distinct shape; the phrases are
    found by bytes.find (rare, long needles)."""
    found: list[int] = []
    # ('{' is '[' lower-cased by starts_with_any's | 32: the bracketed tags, a '[' whose next byte may start one (t, v,
    # e, d, h); JSON lines' own '{' and "[INFO]"-style lines are dropped at once)
    cand = starts_with_any(b, line_starts, b"tve{") if len(line_starts) else line_starts
    if cand.size:
        at = line_starts[cand]
        br = b[at] == 0x5B
        nxt = b[np.minimum(at + 1, len(b) - 1)] | np.uint8(32)
        tag = br & ((nxt == 116) | (nxt == 118) | (nxt == 101) | (nxt == 100) | (nxt == 104))
        cand = cand[(b[at] != 0x7B) & (~br | tag)]
    if cand.size:
        at = line_starts[cand]
        codes, reps = masked.group(at, 0, _EVAL_WIDTH)
        mk = masked.windows(at[reps], 0, _EVAL_WIDTH)
        good = [c for c in range(len(reps)) if _EVAL_LINE.match(mk[c].tobytes())]
        if good:
            found += at[np.isin(codes, good)].tolist()
    if b"/step" in data and b"val_" in data:      # Keras' evaluate bars, file by file (`files`: (first byte, length))
        for b0, n in files or [(0, len(data))]:
            found += [b0 + at for at in _keras_evaluate_bars(data[b0:b0 + n])]
    for gate, mark, after in _EVAL_MARKS:
        if gate not in data:
            continue
        k = data.find(mark)
        while k >= 0:
            if not after or any(data[max(k - len(w), 0):k] == w for w in after):
                found.append(k)
            k = data.find(mark, k + len(mark))
    return np.array(found, np.int64)


# The first two bytes (lower-cased) a rank or client prefix opens with: [r, [d, [c, [s, [p (bracketed: '[' | 32 is
# '{'), ra(nk), de(fault / vice), cl(ient), si(te / lo), pa(rty)
_RANK_PAIRS = tuple((ord(a), ord(b2)) for a, b2 in ("{r", "{d", "{c", "{s", "{p", "ra", "de", "cl", "si", "pa"))


def _rank_opening(b: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Which of the line starts `at` open with one of _RANK_PAIRS (a vector test: most lines of a log that start
    with these letters, "step ...", "processing ...", are no prefix and need no window)."""
    c0 = b[at] | np.uint8(32)
    c1 = b[np.minimum(at + 1, len(b) - 1)] | np.uint8(32)
    hit = np.zeros(len(at), bool)
    for x, y in _RANK_PAIRS:
        hit |= (c0 == x) & (c1 == y)
    return hit


def line_ranks(b: np.ndarray, masked: Masked, line_starts: np.ndarray) -> np.ndarray | None:
    """Rank per line from `[rank3]:`, `[rank3]`, `rank3:`, `[RANK 3]`, `[default3]:` prefixes
    (torchrun, DeepSpeed), or a federated client's `device 7:` / `client 3:` / `[site 07]`; -1 where none.
    None when no line has one. (Lines are grouped by the digit-masked shape of their first FWD bytes; only a
    line that opens with '(', a Ray actor's prefix, by its first RANK_FWD: a wide window makes nearly every
    line of an ordinary log a shape of its own.)"""
    out = np.full(len(line_starts), -1, dtype=np.int64)
    for width in (FWD, RANK_FWD):
        cand = np.flatnonzero(_rank_opening(b, line_starts)) if width == FWD else starts_with_any(b, line_starts, b"(")
        if cand.size == 0:
            continue
        at = line_starts[cand]
        codes, reps = masked.group(at, 0, width)
        mk = masked.windows(at[reps], 0, width)
        order, starts = by_code(codes, len(reps))
        for c in range(len(reps)):
            m = _RANK.match(mk[c].tobytes())
            if not m:
                continue
            g = "r" if m.start("r") >= 0 else "c"
            rows = order[starts[c]:starts[c + 1]]
            out[cand[rows]] = digits_value(b, at[rows], list(range(m.start(g), m.end(g))))
    return out if (out >= 0).any() else None
