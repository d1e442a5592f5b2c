"""`mltdbg watch`: a real `mltdbg watch` subprocess follows files appended by this test (a real writer).

Times are measured and printed, not asserted tightly (speed claims live in benchmarks/bench_watch.py).
"""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from mltdbg.analyzers.follow import Follower

PY = sys.executable
# A generous bound for "a finding appears": the goal is 1 s; CI machines are slow and shared.
SEEN_WITHIN_S = 15.0


class Watch:
    """`mltdbg watch --json` in a subprocess; its stdout lines collected by a thread."""

    def __init__(self, *args: str):
        # SIGINT as a terminal gives it: a test run started in the background by a non-interactive
        # shell has SIGINT ignored, and an ignored signal is inherited across exec
        self.p = subprocess.Popen([PY, "-m", "mltdbg.app.cli", "watch", "--json", "--interval", "0.1", *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines: list[dict] = []
        self.err: list[str] = []
        threading.Thread(target=self._read, args=(self.p.stdout, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.p.stderr, False), daemon=True).start()

    def _read(self, stream, out: bool) -> None:
        for line in stream:
            (self.lines.append(json.loads(line)) if out else self.err.append(line))

    def wait_for(self, pred, timeout: float = SEEN_WITHIN_S):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            for x in list(self.lines):
                if pred(x):
                    return x, time.monotonic() - t0
            time.sleep(0.01)
        raise AssertionError(f"not seen in {timeout}s; stdout={self.lines} stderr={self.err}")

    def wait_err(self, word: str, timeout: float = SEEN_WITHIN_S) -> str:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            for x in list(self.err):
                if word in x:
                    return x
            time.sleep(0.01)
        raise AssertionError(f"{word!r} not on stderr: {self.err}")

    def stop(self) -> int:
        self.p.send_signal(signal.SIGINT)
        return self.p.wait(timeout=10)


def _append(path: Path, text: str) -> None:
    """A real writer: another process appends (and flushes) the text."""
    subprocess.run([PY, "-c", "import sys; f = open(sys.argv[1], 'a'); f.write(sys.argv[2]); f.close()",
                    str(path), text], check=True)


def _lines(a: int, b: int) -> str:
    return "".join(f"step {i} loss={2.0 / (1 + i * 0.01):.4f} lr=0.001\n" for i in range(a, b))


def test_nan_appended_is_reported_and_sigint_exits_0(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_lines(0, 50))
    w = Watch(str(log))
    try:
        time.sleep(1.0)    # let it catch up with what is there
        assert w.lines == []
        t0 = time.monotonic()
        _append(log, "step 50 loss=nan lr=0.001\n")
        f, _ = w.wait_for(lambda x: x["kind"] == "nonfinite")
        print(f"NaN reported {time.monotonic() - t0:.3f}s after the write")
        assert f == {"kind": "nonfinite", "metric": "loss", "step": 50, "value": "NaN", "source": "train.log",
                     "line": 51, "message": "loss became NaN (first non-finite value)"}
    finally:
        rc = w.stop()
    assert rc == 0


def test_partial_line_waits_for_its_newline(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_lines(0, 30))
    w = Watch(str(log))
    try:
        _append(log, "step 30 loss=na")       # torn write: "na" is not NaN yet
        time.sleep(1.0)
        assert w.lines == []
        _append(log, "n lr=0.001\n")
        f, _ = w.wait_for(lambda x: x["kind"] == "nonfinite")
        assert (f["step"], f["line"]) == (30, 31)
    finally:
        assert w.stop() == 0


def test_truncation_and_rotation(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_lines(0, 30))
    w = Watch(str(log))
    try:
        time.sleep(1.0)
        log.write_text(_lines(0, 5))                     # truncated in place, same inode
        w.wait_err("truncated")
        _append(log, "step 5 loss=inf lr=0.001\n")
        f, _ = w.wait_for(lambda x: x["kind"] == "nonfinite")
        assert (f["line"], f["value"]) == (6, "inf")
        log.rename(tmp_path / "train.log.1")             # rotated: a new file under the old name
        (tmp_path / "new.log").write_text(_lines(0, 3) + "step 3 grad_norm=1.5 loss=0.5\n"
                                          + "step 4 grad_norm=nan loss=0.5\n" + _lines(5, 6))
        (tmp_path / "new.log").rename(log)
        w.wait_err("rotated")
        f, _ = w.wait_for(lambda x: x["metric"] == "grad_norm")
        assert (f["kind"], f["line"]) == ("nonfinite", 5)   # a key is a metric once it repeats
    finally:
        assert w.stop() == 0


def test_jsonl_and_lightning_csv_rewrite(tmp_path):
    j = tmp_path / "metrics.jsonl"
    j.write_text("".join(json.dumps({"step": i, "loss": 1 - i / 100}) + "\n" for i in range(10)))
    c = tmp_path / "metrics.csv"
    c.write_text("step,train_loss\n" + "".join(f"{i},{1 - i / 100}\n" for i in range(10)))
    w = Watch(str(tmp_path))
    try:
        _append(j, '{"step": 10, "loss": NaN}\n')
        f, _ = w.wait_for(lambda x: x["source"].endswith("metrics.jsonl"))
        assert (f["kind"], f["step"], f["line"]) == ("nonfinite", 10, 11)
        # Lightning's CSVLogger rewrites the whole file when a column appears
        c.write_text("step,train_loss,val_loss\n" + "".join(f"{i},{1 - i / 100},\n" for i in range(10))
                     + "10,0.9,nan\n")
        f, _ = w.wait_for(lambda x: x["source"].endswith("metrics.csv"))
        assert (f["kind"], f["metric"], f["step"], f["line"]) == ("nonfinite", "val_loss", 10, 12)
        w.wait_err("rewritten")
        time.sleep(0.5)
        assert len([x for x in w.lines if x["source"].endswith("metrics.csv")]) == 1   # old rows not again
    finally:
        assert w.stop() == 0


def test_tensorboard_written_while_followed(tmp_path):
    from torch.utils.tensorboard import SummaryWriter  # noqa: PLC0415 - heavy, only for this test
    w = Watch(str(tmp_path))
    try:
        sw = SummaryWriter(str(tmp_path / "tb"))        # a new event file appears in the followed folder
        for i in range(30):
            sw.add_scalar("train/loss", 1.0 / (i + 1), i)
        sw.flush()
        time.sleep(0.5)
        sw.add_scalar("train/loss", float("nan"), 30)
        sw.flush()
        f, _ = w.wait_for(lambda x: x["kind"] == "nonfinite")
        sw.close()
        assert (f["metric"], f["step"], f["value"], f["line"]) == ("loss", 30, "NaN", None)
        assert "events.out.tfevents" in f["source"]
    finally:
        assert w.stop() == 0


def test_stall_is_a_finding(tmp_path):
    log = tmp_path / "train.log"
    log.write_text(_lines(0, 5))
    now = [0.0]
    f = Follower([log], stall_s=120, clock=lambda: now[0])
    assert f.poll() == []
    now[0] = 119
    assert f.poll() == []
    now[0] = 121
    out = f.poll()
    assert [x.kind for x in out] == ["stalled"] and out[0].source == "train.log"
    now[0] = 500
    assert f.poll() == []                              # once, until the job writes again
    _append(log, _lines(5, 6))
    assert f.poll() == []
    now[0] = 700
    assert [x.kind for x in f.poll()] == ["stalled"]


def test_once_and_missing_file(tmp_path):
    r = subprocess.run([PY, "-m", "mltdbg.app.cli", "watch", "--once", str(tmp_path / "nope.log")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "does not exist yet" in r.stderr and "Traceback" not in r.stderr


def test_spike_found_once_and_log_growing_faster_than_read(tmp_path):
    from mltdbg.analyzers import follow  # noqa: PLC0415 - its limits are lowered for this test
    log = tmp_path / "train.log"
    log.write_text(_lines(0, 100) + "step 100 loss=50.0 lr=0.001\n" + _lines(101, 150))
    f = Follower([log])
    out = f.poll()
    assert [(x.kind, x.step, x.line) for x in out] == [("spike", 100, 101)]
    old = follow.MAX_LAG_BYTES, follow.SKIP_TO_TAIL
    follow.MAX_LAG_BYTES, follow.SKIP_TO_TAIL = 10_000, 1_000
    try:
        _append(log, _lines(150, 2000) + "step 2000 loss=nan lr=0.001\n")
        out = f.poll()
    finally:
        follow.MAX_LAG_BYTES, follow.SKIP_TO_TAIL = old
    assert "falling behind" in out[0].message
    assert [(x.kind, x.line) for x in out[1:]] == [("nonfinite", 2001)]   # line numbers kept after the skip


def _low(a: int, b: int) -> str:
    return "".join(f"step {i} loss={0.1 + 0.001 * (i % 3):.4f} lr=0.001\n" for i in range(a, b))


def test_a_run_relaunched_into_the_same_file_is_followed_as_a_new_run(tmp_path):
    """A job relaunched with `> train.log` truncates the file and starts again at step 0: its first
    loss is no spike against the old run's low running mean, and its own first NaN is reported. A
    rotated log whose steps go on keeps the statistics (its NaN after the first is not news)."""
    log = tmp_path / "train.log"
    log.write_text(_low(0, 200) + "step 200 loss=nan lr=0.001\n")
    f = Follower([log])
    assert [(x.kind, x.step) for x in f.poll()] == [("nonfinite", 200)]
    log.write_text(_lines(0, 20))                        # truncated in place: a new run from step 0
    out = f.poll()
    assert "truncated" in out[0].message and [x.kind for x in out[1:]] == []
    _append(log, "step 20 loss=nan lr=0.001\n")
    assert [(x.kind, x.step, x.line) for x in f.poll()] == [("nonfinite", 20, 21)]
    log.rename(tmp_path / "train.log.1")                # rotated: the same run goes on in a new file
    (tmp_path / "new.log").write_text("step 21 loss=nan lr=0.001\n" + _lines(22, 30))
    (tmp_path / "new.log").rename(log)
    out = f.poll()
    assert "rotated" in out[0].message and [x.kind for x in out[1:]] == []


def test_a_followed_catboost_log_has_its_loss_and_val_loss(tmp_path):
    """The follower names points as the reader does: CatBoost's `learn` and `test` are the loss and the
    validation loss (LogMetrics.finish applies names.layout_names for both)."""
    log = tmp_path / "catboost.log"
    log.write_text("".join(f"{i}:\tlearn: {0.7 - 0.01 * i:.7f}\ttest: {0.71 - 0.01 * i:.7f}\ttotal: {52 + i}ms\n"
                           for i in range(5)))
    f = Follower([log], keep_points=True)
    f.poll()
    assert {p[0] for p in f.points} >= {"loss", "val_loss"} and not {p[0] for p in f.points} & {"learn", "test"}
