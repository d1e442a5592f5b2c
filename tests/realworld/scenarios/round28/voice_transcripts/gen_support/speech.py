"""Helpers that render numbers the way an auto-transcription service writes spoken numbers,
and lay out speaker-labelled transcripts."""
import math

ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def say_int(n):
    n = int(n)
    if n < 0:
        return "minus " + say_int(-n)
    if n < 20:
        return ONES[n]
    if n < 100:
        t, o = divmod(n, 10)
        return TENS[t] + ("" if o == 0 else "-" + ONES[o])
    if n < 1000:
        h, r = divmod(n, 100)
        return ONES[h] + " hundred" + ("" if r == 0 else " and " + say_int(r))
    if n < 1_000_000:
        th, r = divmod(n, 1000)
        return say_int(th) + " thousand" + ("" if r == 0 else (" and " if r < 100 else " ") + say_int(r))
    m, r = divmod(n, 1_000_000)
    return say_int(m) + " million" + ("" if r == 0 else " " + say_int(r))


def say_dec(x, digits=2, lead_zero=False):
    """2.314 -> 'two point three one'; 0.41 -> 'point four one'."""
    s = f"{abs(x):.{digits}f}"
    ip, fp = s.split(".")
    fp = fp.rstrip("0") or "0"
    words = [] if (ip == "0" and not lead_zero) else [say_int(int(ip))]
    words.append("point")
    words += [ONES[int(c)] for c in fp]
    out = " ".join(words)
    return ("minus " + out) if x < 0 else out


def say_pow(x):
    """1e-4 -> 'ten to the minus four'; 3e-4 -> 'three e minus four'."""
    e = int(math.floor(math.log10(abs(x)) + 1e-9))
    m = x / 10 ** e
    if abs(m - 1) < 1e-6:
        return "ten to the minus " + say_int(-e) if e < 0 else "ten to the " + say_int(e)
    mm = round(m, 1)
    ms = say_int(int(mm)) if abs(mm - int(mm)) < 1e-6 else say_dec(mm, 1, True)
    return f"{ms} e minus {say_int(-e)}" if e < 0 else f"{ms} e {say_int(e)}"


def say_pct(p, loose=False):
    """p in [0,1]."""
    v = 100 * p
    if loose:
        t = int(v // 10) * 10
        return "like " + (TENS[t // 10] if t >= 20 else say_int(t)) + "-something percent"
    r = int(round(v))
    return say_int(r) + " percent"


def say_pct_dec(p):
    """0.9934 -> 'ninety-nine point three'."""
    v = 100 * p
    return say_int(int(v)) + " point " + ONES[int(round((v - int(v)) * 10)) % 10]


def ts(sec):
    sec = int(sec)
    return f"[{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}]"


def transcript(header, turns, start=3, wps=2.6):
    """turns: list of (speaker, text). Timestamps follow speaking time (~2.6 words/s) plus pauses."""
    out = list(header) + [""]
    t = start
    for i, (spk, text) in enumerate(turns):
        out.append(f"{ts(t)} {spk}: {text}")
        out.append("")
        t += max(2, len(text.split()) / wps) + 1 + (i * 7 % 5)
    dur = ts(t)[1:-1]
    return "\n".join(out).replace("{DURATION}", dur), dur
