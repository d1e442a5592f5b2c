"""Light OCR-style degradation of text captured from real runs, and chart transcription."""
import math
import re

# letter-level confusions typical of OCR on terminal fonts
_WORD_SUBS = [("l", "1"), ("I", "l"), ("O", "0"), ("rn", "m"), ("cl", "d"), ("_", " "), ("t", "f"),
              ("S", "5"), ("e", "c"), ("i", "l"), (":", ";"), ("|", "l"), ("=", "-")]


def _noise_line(line, rng):
    cands = []
    for a, b in _WORD_SUBS:
        for m in re.finditer(re.escape(a), line):
            s, e = m.start(), m.end()
            # only touch characters inside alphabetic context (keep numbers intact)
            left = line[s - 1] if s > 0 else " "
            right = line[e] if e < len(line) else " "
            if a in (":", "|", "="):
                if left.isdigit() or right.isdigit():
                    continue
            elif not (left.isalpha() or right.isalpha()):
                continue
            cands.append((s, e, b))
    if not cands:
        return line
    s, e, b = cands[rng.randrange(len(cands))]
    return line[:s] + b + line[e:]


def _damage_number(line, rng):
    nums = [m for m in re.finditer(r"-?\d+\.\d+", line)]
    if not nums:
        return line, False
    m = nums[rng.randrange(len(nums))]
    txt = m.group(0)
    if txt.startswith("-") and rng.random() < 0.5:
        new = txt[1:]
    else:
        new = txt.replace(".", "", 1) if rng.random() < 0.6 else txt.replace(".", ",", 1)
    return line[:m.start()] + new + line[m.end():], True


def _garble(line, rng, keep=0.45):
    out = []
    for ch in line:
        if ch == " ":
            out.append(" ")
        elif rng.random() < keep:
            out.append(rng.choice(["'", ".", ",", "-", "_", "~", "`", ch, ch]))
        else:
            out.append(" ")
    return "".join(out).rstrip()


def wrap(lines, width):
    out = []
    for ln in lines:
        while len(ln) > width:
            out.append(ln[:width])
            ln = ln[width:]
        out.append(ln)
    return out


def ocr(text, rng, rate=0.05, width=None, num_damage=1, cut_top=True, cut_bottom=False,
        protect=(), box=False):
    """Turn clean captured text into an OCR-like transcription.
    protect: regexes; lines matching any are never altered (except wrapping)."""
    lines = text.rstrip("\n").split("\n")
    prot = [re.compile(p) for p in protect]
    is_prot = lambda l: any(p.search(l) for p in prot)
    out = []
    for ln in lines:
        if not is_prot(ln) and ln.strip() and rng.random() < rate:
            ln = _noise_line(ln, rng)
        if box and ln.strip() and rng.random() < 0.15:
            ln = "| " + ln
        out.append(ln)
    # a few numbers lose their decimal point / minus sign
    idx = [i for i, l in enumerate(out) if not is_prot(l) and re.search(r"\d+\.\d+", l)]
    rng.shuffle(idx)
    for i in idx[:num_damage]:
        out[i], _ = _damage_number(out[i], rng)
    if width:
        out = wrap(out, width)
    if cut_top and out:
        out = [_garble(out[0], rng)] + out[1:]
    if cut_bottom and len(out) > 1:
        cut = out[-1]
        out = out[:-1] + [_garble(cut[: max(4, len(cut) // 2)], rng, keep=0.7)]
    return "\n".join(out) + "\n"


def _nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1.0
    span = hi - lo
    raw = span / n
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            step = m * mag
            break
    start = math.floor(lo / step) * step
    ticks = []
    t = start
    while t <= hi + step * 1e-6:
        ticks.append(t)
        t += step
    return ticks


def _fmt_tick(v, kilo=True):
    if kilo and abs(v) >= 1000:
        s = ("%.1f" % (v / 1000)).rstrip("0").rstrip(".")
        return s + "k"
    if abs(v) < 1e-12:
        return "0"
    if abs(v) < 0.01:
        return ("%.1e" % v).replace(".0e", "e")
    s = ("%.4f" % v).rstrip("0").rstrip(".")
    return s


def chart(title, xs, ys, x_label="Step", readoff_at=None, legend=None, ymax=None, ymin=None,
          fmt="%.3g", smooth=0.0, panel="W&B", extra_series=None):
    """Transcribe a line chart: title, y tick labels, x tick labels, and values read off it.
    smooth: EMA smoothing as the UI shows it (read-off values use the smoothed curve)."""
    ys_s = list(ys)
    if smooth > 0:
        acc = None
        ys_s = []
        for v in ys:
            acc = v if acc is None else smooth * acc + (1 - smooth) * v
            ys_s.append(acc)
    finite = [v for v in ys_s if v == v and abs(v) != float("inf")]
    lo = min(finite) if ymin is None else ymin
    hi = max(finite) if ymax is None else ymax
    yt = _nice_ticks(min(lo, 0) if lo >= 0 and lo < 0.25 * hi else lo, hi)
    xt = _nice_ticks(min(xs), max(xs), 5)
    L = []
    L.append(title)
    if legend:
        L.append("  " + "   ".join(legend))
    for t in reversed(yt):
        L.append("%6s |" % _fmt_tick(t, kilo=False))
    L.append("       +" + "-" * 54)
    L.append("        " + "   ".join(_fmt_tick(t) for t in xt))
    L.append("                          " + x_label)
    if readoff_at:
        parts = []
        for x in readoff_at:
            # nearest logged point
            j = min(range(len(xs)), key=lambda i: (abs(xs[i] - x), -i))
            v = ys_s[j]
            sv = "~0" if abs(v) < 0.004 * (hi - lo) and abs(v) < 0.01 * abs(hi) else fmt % v
            parts.append("%s %s: %s" % (x_label.lower(), xs[j] if isinstance(xs[j], int) and xs[j] < 10000 else _fmt_tick(xs[j]), sv))
        L.append("")
        L.append("(values read off the chart%s: %s)" % (" (smoothed line)" if smooth > 0 else "",
                                                        "; ".join(parts)))
    return "\n".join(L) + "\n"
