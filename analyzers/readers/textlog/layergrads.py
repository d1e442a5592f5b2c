"""Per-layer gradient tables without a step column: one row per parameter, a number after it.

In:  a block of whole lines of a log, its newline offsets, the lines before it, the file's
     relative path.
Out: `scan_layer_tables(data, nl, line0, rel)` -> rows (table ordinal in the block, layer
     name, value, 1-based line[, INLINE]); `layer_series(rows, rel)` -> one `grad_norm/<layer>` Series per
     layer (step = which printing of the table, so one printed table is a 1-point series per
     layer; a table printed every epoch gives each layer one point per printing).

Styles read (written the way posts and hooks print them):
    layer1.weight 0.0001              name | grad_norm           conv1.weight: grad norm = 1e-8
    layer2.weight 1e-05               conv1.weight | 1e-08       encoder.layers.0.fc  3.2e-4
    layers.0.weight grad_norm: 1e-9   (a label between the name and the number)
    net.0.weight    grad norm 3.9e-15 (a gradient label without a separator)
Also several layers printed side by side on one line, one printing per line (its other metrics,
the loss and the epoch, are still the line's own):
    epoch 3 loss 2.30 | conv1.weight grad 1.2e-08 | conv2.weight grad 3.1e-06 | fc.weight grad 4e-03
A row's name must look like a parameter (a dotted path, or a word ending in a layer number);
two rows in a row at least. The table only counts as gradients when "grad" appears in its
header (the lines just above it), in its rows, or in the file's name: the same rows printed
without that word may be weight norms or parameter counts.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series
from mltdbg.analyzers.readers.textlog.vocabulary import classify_key

# A parameter-like name: a dotted path ("layer1.weight", "encoder.layers.0.attn"; an nn.Sequential's
# own parameters start with their index: "0.weight", "12.bias") or a word ending in a layer number
# ("conv1", "layer_3"); then a separator and one number.
_ROW = re.compile(
    rb"^[ \t|]*(?P<name>[A-Za-z_][\w\-]*(?:\.[\w\-]+)+|\d+\.[A-Za-z_][\w\-]*(?:\.[\w\-]+)*|[A-Za-z_][A-Za-z_\-]*\d+)['\"]?[ \t]*"
    rb"(?:[|:=,][ \t]*(?:[A-Za-z_ ]{0,24}[:=][ \t]*)?|[ \t]+(?:[A-Za-z_][A-Za-z_ ]{0,23}[:=][ \t]*"
    rb"|grad(?:ient)?s?(?:[_ ]?norm)?[ \t]+)?)"
    rb"(?P<t>tensor\([ \t]*)?(?P<val>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf|None)"
    rb"(?(t)(?:,[^)\r\n]*)?\))[ \t]*\|?[ \t]*\r?$", re.M)
# Lines above a table searched for its header ("name | grad_norm", "Gradient norms per layer:").
HEADER_LINES = 3
MIN_ROWS = 2   # one "name number" line is a sentence; two aligned ones are a table


def _has_grad(text: bytes) -> bool:
    return b"grad" in text.lower()


# Lines whose first name-like token is tested with whole-array operations: this many bytes
# from a line's start (a longer indent or name sends the line to the regex as it is).
_TOKEN_WINDOW = 64


def _byte_class(chars: bytes) -> np.ndarray:
    """A 256-entry lookup table: True at the given bytes."""
    t = np.zeros(256, bool)
    t[np.frombuffer(chars, np.uint8)] = True
    return t


_LETTERS = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
_WORD = _byte_class(_LETTERS + b"0123456789-.")
_LEAD = _byte_class(b" \t|")
_FIRST = _byte_class(b" \t|" + _LETTERS)   # a row starts with an indent or a name's first letter (or a Sequential
                                           # index, tested apart in _row_matches)
_DIGIT = _byte_class(b"0123456789")
_ALPHA = _byte_class(_LETTERS)
_LAST = _byte_class(b"0123456789.nf \t|)e")   # ... and ends with a number ("1.", "nan", "inf", "tensor(1e-3)",
                                               # "None") or a table's '|'


_SHORT_WINDOW = 16


def _token_test(b: np.ndarray, nb: int, starts: np.ndarray, ends: np.ndarray, idx: np.ndarray,
                width: int) -> tuple[np.ndarray, np.ndarray]:
    """Of lines `idx`: those whose first name (after the indent) holds a '.' or ends in a digit,
    and those whose indent or name runs past the first `width` bytes (undecided here)."""
    cols = np.arange(width)
    at = starts[idx][:, None] + cols
    w = b[np.minimum(at, nb - 1)]
    inside = cols < (ends[idx] - starts[idx])[:, None]
    lead = _LEAD[w] & inside
    lead_n = np.argmin(lead, axis=1)                       # indent length (first non-lead byte)
    word = (_WORD[w] & inside) | (cols < lead_n[:, None])
    tok_end = np.argmin(word, axis=1)                      # the token ends at the first other byte
    long = word.all(axis=1) | lead.all(axis=1)
    in_tok = (cols >= lead_n[:, None]) & (cols < tok_end[:, None])
    dotted = ((w == 46) & in_tok).any(axis=1)
    rows = np.arange(len(idx))
    lastc = w[rows, np.maximum(tok_end - 1, 0)]
    digit_end = (lastc >= 48) & (lastc <= 57) & (tok_end > lead_n)
    # a token that starts with a digit is a name only as a Sequential's "0.weight": digits, a '.',
    # then a letter ("1.5", "12", "3/20" are numbers, steps and fractions)
    digit = (w >= 48) & (w <= 57)
    first = w[rows, np.minimum(lead_n, width - 1)]
    num_start = (first >= 48) & (first <= 57)
    after = np.argmax((cols >= lead_n[:, None]) & ~(digit & inside), axis=1)   # first byte past the digits
    nxt = w[rows, np.minimum(after + 1, width - 1)]
    seq_name = (w[rows, after] == 46) & _ALPHA[nxt] & (after + 1 < width)
    keep = ~long & np.where(num_start, seq_name, dotted | digit_end)
    return idx[keep], idx[long]


def _row_matches(data: bytes, nl: np.ndarray, starts: np.ndarray):
    """_ROW's matches, line by line, on the lines that can hold one: a line whose first name
    (after its indent) neither holds a '.' nor ends in a digit, or that does not start with a
    letter or end with a number, is passed over by whole-array tests (running the regex over
    every position of a 4 MB block costs ~0.5 s; most log lines fail these tests)."""
    b = np.frombuffer(data, np.uint8)
    nb = len(b)
    if nb == 0:
        return
    ends = np.append(nl, nb) if nb and b[-1] != 10 else nl    # a line's end: its newline (or the data's end)
    starts = starts[:len(ends)]
    first = b[np.minimum(starts, nb - 1)]
    ok = (ends > starts) & _FIRST[first]
    # ... or an nn.Sequential's parameter at the line's start, "0.weight" / "12.bias": one or two digits, '.',
    # a letter (tested on the lines' first bytes only: a timestamped log, whose lines start with digits, stays
    # out of the per-byte tests below)
    at = lambda k: b[np.minimum(starts + k, nb - 1)]      # noqa: E731
    ok |= (ends > starts + 2) & _DIGIT[first] & (((at(1) == 46) & _ALPHA[at(2)])
                                                 | (_DIGIT[at(1)] & (at(2) == 46) & _ALPHA[at(3)]))
    last = np.maximum(ends - 1, 0)
    last = np.where((b[last] == 13) & (last > starts), last - 1, last)   # "\r\n"
    ok &= _LAST[b[last]]
    if not ok.any():    # no line starts and ends as a row (a timestamped log, JSON lines, a progress bar)
        return
    # a row has at most two '=' or ':' (its separator and a label's, "w: grad norm = 1e-8"; a name
    # has none): a `key=value` metric line or a timestamped one has more (two compares over the bytes)
    sep = b == 61
    sep |= b == 58
    seps = np.add.reduceat(sep, starts, dtype=np.int32)
    del sep
    ok &= seps <= 2
    idx = np.flatnonzero(ok)
    # a short window first (most lines' first token is a short word such as "step"), the lines
    # whose indent and token run past it again with the long one: the same answer as the long
    # window alone, at a quarter of the whole-array work (a 4 MB block of `step=N loss=...`
    # lines: 44 -> 12 ms)
    if idx.size:
        keep, undecided = _token_test(b, nb, starts, ends, idx, _SHORT_WINDOW)
        if undecided.size:
            keep2, rest = _token_test(b, nb, starts, ends, undecided, _TOKEN_WINDOW)
            keep = np.union1d(keep, np.union1d(keep2, rest))
        idx = keep
    for i in idx.tolist():
        m = _ROW.match(data, int(starts[i]), int(ends[i]))
        if m:
            yield m


def scan_layer_tables(data: bytes, nl: np.ndarray, line0: int, rel: str, ordinal0: int = 0):
    """Rows of the per-layer gradient tables in one block: [(table ordinal, layer, value, line)].
    Returns (rows, next table ordinal)."""
    if not (b"grad" in data or _has_grad(data) or _has_grad(rel.encode("utf-8", "replace"))):
        return [], ordinal0
    file_grad = _has_grad(rel.rsplit("/", 1)[-1].encode("utf-8", "replace"))
    starts = np.concatenate(([0], nl + 1))
    runs: list[list] = []
    last_line = -2
    for m in _row_matches(data, nl, starts):
        name = m.group("name").decode("ascii", "replace")
        # a Sequential's "0.weight" is a parameter as it stands (the key vocabulary wants a letter first)
        role = "metric" if name[0].isdigit() else classify_key(name)[0]
        if role != "metric" or name.lower().endswith(("loss", "acc", "accuracy", "lr")):
            continue
        line = int(np.searchsorted(starts, m.start(), side="right"))   # 1-based within the block
        if line != last_line + 1:
            runs.append([])
        val = m.group("val")
        # `print(name, p.grad)` of a parameter no gradient reached prints None: no gradient, norm 0
        runs[-1].append((name, 0.0 if val == b"None" else float(val), line))
        last_line = line
    out: list[tuple] = []
    ordinal = ordinal0
    for rows in runs:
        if len(rows) < MIN_ROWS or len({r[0] for r in rows}) < len(rows):
            continue
        first = rows[0][2]
        lo = starts[max(first - 1 - HEADER_LINES, 0)]
        head = data[lo:starts[first - 1]]
        end = starts[rows[-1][2]] if rows[-1][2] < len(starts) else len(data)
        if not (file_grad or _has_grad(head) or _has_grad(data[starts[first - 1]:end])):
            continue      # "grad" above the table, in its rows (names or labels) or in the file's name
        out += [(ordinal, name, v, line0 + line) for name, v, line in rows]
        ordinal += 1
    inline, ordinal = _inline_rows(data, {r[3] - line0 for r in out}, ordinal)
    out += [(o, name, v, line0 + line, INLINE) for o, name, v, line in inline]
    return out, ordinal


# Several layers' gradients side by side on one line ("epoch 3 loss 2.30 | conv1.weight grad 1.2e-08 |
# fc1.weight grad 3.4e-03"): a segment is a parameter-like name, an optional "grad"/"grad_norm" label and a
# number. A name without a dot (conv1) counts only with the label in its own segment ("top1 95.2" is no layer).
_INLINE = re.compile(
    rb"(?:^|(?<=[\s|,;(\[{]))(?P<name>[A-Za-z_][\w\-]*(?:\.[\w\-]+)+|[A-Za-z_][A-Za-z_\-]*\d+)['\"]?[ \t]*"
    rb"(?:[:=][ \t]*|[ \t]+)(?P<label>grad(?:ient)?s?(?:[_ ]?norm)?[ \t]*[:=]?[ \t]*)?"
    rb"(?P<val>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)(?=[\s|,;)\]}]|$)", re.M)
INLINE_MIN = 3             # layers on one line
INLINE = "inline"          # a row's fifth field: printed inline, on a line that may hold other metrics too
INLINE_HEAD = 16 * 1024    # the style is looked for in a block's head; the whole block is read only when it is there
# what such a line holds that a `step=N loss=... grad_norm=...` line does not: two parameters' names, or a
# numbered layer with a grad label (one search over a block's head: a 1M-line log pays ~0 for it)
_INLINE_HINT = re.compile(rb"\.(?:weight|bias)\b[^\n]*?\.(?:weight|bias)\b|[A-Za-z_]\d+['\"]?[ \t]*[:=]?[ \t]*grad", re.I)


def _inline_layers(line: bytes) -> list[tuple[str, float]]:
    out: dict[str, float] = {}
    for m in _INLINE.finditer(line):
        name = m.group("name").decode("ascii", "replace")
        if "." not in name and not m.group("label"):
            continue
        role, _ = classify_key(name)
        if role != "metric" or name.lower().endswith(("loss", "acc", "accuracy", "lr")):
            continue
        out.setdefault(name, float(m.group("val")))
    return list(out.items()) if len(out) >= INLINE_MIN else []


def _inline_rows(data: bytes, taken: set[int], ordinal0: int) -> tuple[list, int]:
    """Rows of per-layer gradients printed inline, one printing per line: [(ordinal, layer, value,
    1-based line)], lines in `taken` (a table's rows) left out."""
    head = data[:INLINE_HEAD]
    if not _INLINE_HINT.search(head) or not any(
            _inline_layers(ln) for ln in head.split(b"\n") if b"grad" in ln and _INLINE_HINT.search(ln)):
        return [], ordinal0
    out, ordinal = [], ordinal0
    for i, ln in enumerate(data.split(b"\n"), 1):
        if i in taken or b"grad" not in ln:
            continue
        layers = _inline_layers(ln)
        if layers:
            out += [(ordinal, name, v, i) for name, v in layers]
            ordinal += 1
    return out, ordinal


def layer_series(rows: list, rel: str) -> list[Series]:
    """One `grad_norm/<layer>` series per layer named in the rows (step: the table's ordinal)."""
    by: dict[str, list] = {}
    for ordinal, name, v, line, *_ in rows:
        by.setdefault(name, []).append((ordinal, v, line))
    out = []
    for name, pts in by.items():
        out.append(Series(name="grad_norm/" + name, raw_name=name,
                          steps=np.array([p[0] for p in pts], dtype=np.int64),
                          values=np.array([p[1] for p in pts], dtype=float), source=rel,
                          locs=np.array([p[2] for p in pts], dtype=np.int64), loc_kind=LOC_LINE,
                          step_is_index=True))
    return out


def table_lines(rows: list) -> set[int]:
    """The lines the tables' rows stand on (other series read from them alone are misreadings); an
    inline printing's line is not one (its loss, epoch ... are the line's own metrics)."""
    return {r[3] for r in rows if len(r) == 4}


# A table whose rows name a layer by its number ("layer  0 (Linear 40->128)   grad_norm 2.7e-11", "block 3: grad
# 1.2e-05", "Layer 12 | grad norm = 4e-9"), as a post prints one from a loop over its layers: read in texts up to
# NUMBERED_MAX_CHARS (a post), its first table of MIN_ROWS + 1 rows at least with distinct numbers, "grad" in each
# row or in the lines above the table.
NUMBERED_MAX_CHARS = 256 * 1024
_NUMBERED_ROW = re.compile(
    r"^[ \t|]*(?P<name>(?:layer|block|stage|level)[ \t_#]*(?P<idx>\d{1,3}))\b(?P<mid>[^\n]{0,60}?)[ \t]*[:=|]?[ \t]*"
    r"(?P<val>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)[ \t]*\|?[ \t]*(?P<more>[^\n]*?)\r?$", re.I | re.M)
# ... and where the row goes on past its gradient ("grad 3.2e-13   out std 0.136"), the number "grad" labels
_GRAD_VALUE = re.compile(r"\bgrad(?:ient)?s?(?:[_ ]?norm)?[ \t]*[:=]?[ \t]*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf)\b",
                         re.I)


def numbered_layer_series(text: str, line_of, rel: str) -> list[Series]:
    """`grad_norm/<layer N>` one-point series from a numbered-layer table of a small text (see _NUMBERED_ROW);
    `line_of(offset)` gives a 1-based line."""
    if len(text) > NUMBERED_MAX_CHARS or "grad" not in text.lower():
        return []
    runs: list[list[tuple[str, float, int, re.Match]]] = []
    last = -2
    for m in _NUMBERED_ROW.finditer(text):
        line = line_of(m.start())
        labelled = _GRAD_VALUE.search(m.group(0))
        if m.group("more").strip() and labelled is None:
            continue        # (a row of several numbers, none of them named a gradient)
        if line != last + 1:
            runs.append([])
        runs[-1].append((f"layer{int(m.group('idx'))}", float(labelled.group(1) if labelled else m.group("val")), line, m))
        last = line
    for rows in runs:
        if len(rows) <= MIN_ROWS or len({r[0] for r in rows}) < len(rows):
            continue
        first = rows[0][3].start()
        head = "\n".join(text[max(0, first - 4000):first].split("\n")[-HEADER_LINES - 1:])
        if not ("grad" in head.lower() or all("grad" in r[3].group("mid").lower() for r in rows)):
            continue
        # (the first table only: a post prints one; a log that prints one every N steps is read by the block scanner)
        return [Series(name="grad_norm/" + name, raw_name=m.group("name").strip(), steps=np.array([0], np.int64),
                       values=np.array([v], float), source=rel, locs=np.array([line], np.int64), loc_kind=LOC_LINE,
                       step_is_index=True) for name, v, line, m in rows]
    return []
