import datetime, json, os, csv, io


class Clock:
    """Wall-clock stamps for log lines: a fixed start date plus the real elapsed seconds of the run
    (scaled, because the real run is a CPU toy while the user's run was on a GPU box)."""
    def __init__(self, start, scale=1.0):
        self.t0 = datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.scale = scale

    def at(self, elapsed, fmt="%Y-%m-%d %H:%M:%S"):
        return (self.t0 + datetime.timedelta(seconds=elapsed * self.scale)).strftime(fmt)


def kfmt(n):
    if n >= 1_000_000:
        return f"{n/1e6:.0f}M"
    if n >= 10000:
        return f"{n/1000:.0f}K"
    if n >= 1000:
        return f"{n/1000:.1f}K".replace(".0K", "K")
    return str(n)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def write_csv(path, header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow(r)
    write(path, buf.getvalue())


def g(x, p=4):
    """short float formatting like lerobot's log lines"""
    return f"{x:.{p}g}" if isinstance(x, float) else str(x)
