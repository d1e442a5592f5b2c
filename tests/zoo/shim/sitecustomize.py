"""Loaded by every training the zoo generator runs (via PYTHONPATH), never by users.

Makes runs byte-for-byte reproducible: wall clock and perf_counter become a
virtual clock that advances a fixed tick per call on the main thread (so log
timestamps, TensorBoard wall times and measured step times are deterministic),
time.sleep advances that clock instead of sleeping (a slow Dataset costs no
real time), and uuid4 / random run names come from a seeded generator (MLflow).
"""
import os

if os.environ.get("ZOO_FAKE_CLOCK"):
    import random
    import threading
    import time
    import uuid

    _real_sleep = time.sleep
    _main = threading.main_thread()
    _now = [float(os.environ.get("ZOO_T0", "1714564800.0"))]
    _tick = float(os.environ.get("ZOO_TICK", "0.05"))
    _p0 = _now[0] - 5000.0

    def _clock() -> float:
        # Only the main thread advances the clock: background threads (TB writer) read it,
        # so their scheduling cannot change what the main thread records.
        if threading.current_thread() is _main:
            _now[0] += _tick
        return _now[0]

    def _sleep(seconds: float) -> None:
        if threading.current_thread() is _main:
            _now[0] += max(0.0, float(seconds))
        else:
            _real_sleep(seconds)

    time.time = _clock
    time.time_ns = lambda: int(_clock() * 1e9)
    time.perf_counter = lambda: _clock() - _p0
    time.perf_counter_ns = lambda: int((_clock() - _p0) * 1e9)
    time.sleep = _sleep
    _rng = random.Random(20240501)
    uuid.uuid4 = lambda: uuid.UUID(int=_rng.getrandbits(128), version=4)
    random.seed(7)
