"""Formatting helpers: print real numbers the way R and Julia consoles print them."""
import math
import numpy as np


# ---------------------------------------------------------------- R helpers
def r_signif(x, digits=4):
    if x == 0 or not math.isfinite(x):
        return x
    return float(f"{x:.{digits}g}")


def _decimals_needed(v, max_dec=6):
    s = f"{v:.{max_dec}f}".rstrip("0")
    if "." in s:
        return len(s.split(".")[1])
    return 0


def r_format_common(vals, digits=4):
    """Roughly R's format(signif(x, digits)): common number of decimals."""
    sv = [r_signif(v, digits) for v in vals]
    dec = max(_decimals_needed(v) for v in sv)
    dec = min(dec, max(0, digits - 1))
    return [f"{v:.{dec}f}" for v in sv]


def r_summary_df(cols):
    """cols: list of (name, np.array float possibly with NaN, kind) kind in num/int."""
    labels = ["Min.   :", "1st Qu.:", "Median :", "Mean   :", "3rd Qu.:", "Max.   :"]
    blocks = []
    for name, arr, kind in cols:
        a = np.asarray(arr, dtype=float)
        nas = int(np.isnan(a).sum())
        b = a[~np.isnan(a)]
        q = np.quantile(b, [0, 0.25, 0.5, 0.75, 1.0])
        vals = [q[0], q[1], q[2], b.mean(), q[3], q[4]]
        s = r_format_common(vals, 4)
        w = max(len(x) for x in s)
        cells = [lab + x.rjust(w) + "  " for lab, x in zip(labels, s)]
        if nas:
            cells.append("NA's   :" + str(nas).ljust(w) + "  ")
        blocks.append((name, cells))
    nrow = max(len(c) for _, c in blocks)
    out_cols = []
    for name, cells in blocks:
        width = max(len(c) for c in cells)
        cells = [c.ljust(width) for c in cells] + [" " * width] * (nrow - len(cells))
        head = name.center(width)
        out_cols.append([head] + cells)
    lines = []
    for i in range(nrow + 1):
        lines.append(" " + " ".join(col[i] for col in out_cols))
    return "\n".join(l.rstrip() + "  " if i else l for i, l in enumerate(lines))


def r_str_df(cols, nobs):
    """cols: list of (name, array, kind) kind num/int/chr."""
    w = max(len(n) for n, _, _ in cols)
    lines = [f"'data.frame':\t{nobs} obs. of  {len(cols)} variable{'s' if len(cols) > 1 else ''}:"]
    for name, arr, kind in cols:
        if kind == "int":
            vals = " ".join(str(int(v)) for v in arr[:10])
            lines.append(f" $ {name.ljust(w)}: int  {vals} ...")
        elif kind == "chr":
            vals = " ".join(f'"{v}"' for v in arr[:4])
            lines.append(f" $ {name.ljust(w)}: chr  {vals} ...")
        else:
            vals = " ".join(r_num3(v) for v in arr[:5])
            lines.append(f" $ {name.ljust(w)}: num  {vals} ...")
    return "\n".join(lines)


def r_num3(v):
    if isinstance(v, float) and math.isnan(v):
        return "NA"
    s = f"{v:.3g}"
    if "e" in s:
        m, e = s.split("e")
        s = f"{m}e{int(e):+03d}"
    return s


def r_table(values, header_name=None):
    vals, counts = np.unique(values, return_counts=True)
    keys = [str(int(v)) for v in vals]
    cnts = [str(int(c)) for c in counts]
    w = [max(len(a), len(b)) for a, b in zip(keys, cnts)]
    l1 = " ".join(k.rjust(x) for k, x in zip(keys, w)) + " "
    l2 = " ".join(c.rjust(x) for c, x in zip(cnts, w)) + " "
    out = "\n" if header_name is None else header_name + "\n"
    return out + l1 + "\n" + l2


def r_crosstab(a, b, names, levels):
    """two-way table(a, b) printout as R does."""
    m = np.zeros((len(levels), len(levels)), dtype=int)
    for x, y in zip(a, b):
        m[levels.index(x), levels.index(y)] += 1
    w = max(max(len(str(v)) for v in m.flatten()), max(len(str(l)) for l in levels))
    rn = names[0]
    rw = max(len(rn), max(len(str(l)) for l in levels))
    lines = [" " * rw + "  " + names[1]]
    lines.append(rn.ljust(rw) + " " + " ".join(str(l).rjust(w + 1) for l in levels))
    for i, l in enumerate(levels):
        lines.append(("  " + str(l)).ljust(rw) + " " + " ".join(str(v).rjust(w + 1) for v in m[i]))
    return "\n".join(lines)


def r_vec(v, digits=7):
    if isinstance(v, (int, np.integer)):
        return f"[1] {v}"
    return f"[1] {float(f'{v:.{digits}g}')!r}".replace("[1] ", "[1] ")


def r_params_comma(n):
    return f"{n:,}"


# ------------------------------------------------------------ Julia helpers
def jl_f32(v):
    """Julia's print/show of a Float32."""
    f = np.float32(v)
    if not np.isfinite(f):
        return "NaN32" if np.isnan(f) else ("Inf32" if f > 0 else "-Inf32")
    a = abs(float(f))
    if a != 0 and (a < 1e-4 or a >= 1e6):
        s = np.format_float_scientific(f, unique=True, trim="0", exp_digits=1)
        m, e = s.split("e")
        if "." not in m:
            m += ".0"
        return f"{m}f{int(e)}"
    s = np.format_float_positional(f, unique=True, trim="0")
    if s.endswith("."):
        s += "0"
    if "." not in s:
        s += ".0"
    return s + "f0"


def jl_f64(v):
    r = repr(float(v))
    if "e" in r:
        m, e = r.split("e")
        if "." not in m:
            m += ".0"
        r = f"{m}e{int(e)}"
    return r


def jl_round4_f32(v, digits=4):
    return jl_f32(round(float(np.float32(v)), digits))


def keras_bar(steps, secs, parts):
    per = secs / steps * 1000
    per_s = f"{per:.0f}ms/step" if per >= 1 else f"{per * 1000:.0f}us/step"
    return f"{steps}/{steps} [==============================] - {max(0, round(secs))}s {per_s} - " + " - ".join(
        f"{k}: {v:.4f}" for k, v in parts)


def r_summary_vec(a):
    """summary() of a numeric vector: two lines."""
    a = np.asarray(a, dtype=float)
    q = np.quantile(a, [0, 0.25, 0.5, 0.75, 1.0])
    vals = r_format_common([q[0], q[1], q[2], a.mean(), q[3], q[4]], 4)
    names = ["Min.", "1st Qu.", "Median", "Mean", "3rd Qu.", "Max."]
    w = [max(len(n), len(v)) for n, v in zip(names, vals)]
    return [" ".join(n.rjust(x) for n, x in zip(names, w)) + " ",
            " ".join(v.rjust(x) for v, x in zip(vals, w)) + " "]
