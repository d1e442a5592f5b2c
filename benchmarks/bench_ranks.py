"""Speed of the cross-rank view: `diagnose` on 64 rank files of 100,000 lines each (a benchmark, not a test).

    python benchmarks/bench_ranks.py [--ranks 64] [--lines 100000] [--keep DIR] [--big-gb 1.0] [--compare 3]

The logs are generated deterministically (seeded): Python-logging lines `2024-05-01 10:00:00,123 INFO step N
loss X lr Y` a step every 0.5 s from 01:00, rank 37 stops 40 steps early and the others' NCCL watchdog (torch 2.4
format) fires 10 minutes later on the next SeqNum. Reported: the wall time of the whole diagnosis and
of its stages (ingest, the analyzers, the cross-rank view alone, the engine), the finding, and that the
culprit was found. The target in the issue: the whole diagnosis under 5 s on 2 cores.
--compare N: N rounds, each `diagnose` with and without the replica shortcut (crossrank/replicas.py: the
logs of ranks whose loss tail matches the lowest rank's are read as text, their metrics not parsed),
medians of the same run (timings on a shared machine are noisy; compare within one run).
--big-gb N also times the cross-rank view over one rank file of N GB (the rest small): its failure
search reads the head and tail of a big log only, so it stays bounded; reading the file (ingest) does not.
"""
from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path


def write_job(d: Path, ranks: int, lines: int, culprit: int = 37, seed: int = 0) -> None:
    rnd = random.Random(seed)
    t0 = 3600                                  # 01:00: 100k steps of 0.5 s end the same day
    for r in range(ranks):
        n = lines - 40 if r == culprit else lines
        loss = [2.5 * (0.99999 ** i) + rnd.random() * 0.01 for i in range(0, n, 97)]
        with open(d / f"rank{r}.log", "w") as f:
            buf = []
            for i in range(n):
                t = t0 + i * 0.5 + r * 0.003
                buf.append(f"2024-05-01 {int(t // 3600) % 24:02d}:{int(t // 60 % 60):02d}:{int(t % 60):02d},"
                           f"{int(t * 1000) % 1000:03d} INFO step {i} loss {loss[i // 97]:.4f} lr 1.0e-04\n")
                if len(buf) >= 10000:
                    f.writelines(buf)
                    buf = []
            f.writelines(buf)
            tw = t0 + (lines - 40) * 0.5 + 600
            hh, mm, ss = int(tw // 3600) % 24, int(tw // 60 % 60), int(tw % 60)
            if r != culprit:
                f.write(f"[rank{r}]:[E501 {hh:02d}:{mm:02d}:{ss:02d}.201455621 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog "
                        f"caught collective operation timeout: WorkNCCL(SeqNum={lines * 3 + 1}, OpType=ALLREDUCE, "
                        f"NumelIn=23891971, NumelOut=23891971, Timeout(ms)=600000) ran for 600044 milliseconds before "
                        f"timing out.\n")
            else:
                f.write(f"[rank{r}]:[E501 {hh:02d}:{mm:02d}:{ss:02d}.44 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] "
                        f"Exception (either an error or timeout) detected by watchdog at work: {lines * 3}, last enqueued "
                        f"NCCL work: {lines * 3}, last completed NCCL work: {lines * 3}.\n")


def bench(d: Path) -> dict:
    from mltdbg.analyzers import crossrank
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    from mltdbg.playbooks.engine import DiagnosisContext, OfflineEngine
    t0 = time.perf_counter()
    dg = diagnose([str(d)])
    total = time.perf_counter() - t0
    # the stages, once more, one by one
    t = time.perf_counter()
    run = ingest([str(d)])
    t_ingest = time.perf_counter() - t
    t = time.perf_counter()
    signals = analyze(run)
    t_analyze = time.perf_counter() - t
    crossrank._CACHE.clear()
    t = time.perf_counter()
    view = crossrank.cross_rank(run)
    t_cross = time.perf_counter() - t
    t = time.perf_counter()
    OfflineEngine().diagnose(DiagnosisContext(run, signals))
    t_engine = time.perf_counter() - t
    return {"total": total, "ingest": t_ingest, "analyze": t_analyze, "crossrank": t_cross, "engine": t_engine,
            "top": dg.hypotheses[0].id if dg.hypotheses else None, "status": dg.status,
            "culprit": view.culprit.rank if view and view.culprit else None, "sentence": view.sentence if view else ""}


def compare(d: Path, rounds: int) -> None:
    import statistics

    from mltdbg.analyzers import crossrank, ingest
    from mltdbg.playbooks.diagnose import diagnose
    real = ingest.replica_logs
    times: dict[str, list[float]] = {"every rank parsed": [], "replicas as text": []}
    try:
        for _ in range(rounds):
            for mode in times:
                ingest.replica_logs = real if mode == "replicas as text" else (lambda files, root: (set(), None))
                crossrank._CACHE.clear()
                t = time.perf_counter()
                dg = diagnose([str(d)])
                times[mode].append(time.perf_counter() - t)
                v = crossrank.cross_rank(dg.run)
                assert v is not None and v.culprit is not None and v.culprit.rank == 37, mode
    finally:
        ingest.replica_logs = real
    for mode, ts in times.items():
        print(f"{mode}: median {statistics.median(ts):.2f}s over {rounds} ({', '.join(f'{x:.2f}' for x in ts)})")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--keep", help="write the logs here and keep them")
    ap.add_argument("--big-gb", type=float, default=0.0)
    ap.add_argument("--compare", type=int, default=0)
    a = ap.parse_args()
    d = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="bench_ranks_"))
    d.mkdir(parents=True, exist_ok=True)
    try:
        if not (d / f"rank{a.ranks - 1}.log").exists():
            t = time.perf_counter()
            write_job(d, a.ranks, a.lines)
            print(f"wrote {a.ranks} x {a.lines} lines ({sum(p.stat().st_size for p in d.glob('*.log')) / 2**20:.0f} MB) "
                  f"in {time.perf_counter() - t:.1f}s")
        print(f"cores available: {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()}")
        r = bench(d)
        print(f"diagnose: {r['total']:.2f}s  (ingest {r['ingest']:.2f}s, analyzers {r['analyze']:.2f}s of which the "
              f"cross-rank view {r['crossrank']:.2f}s, engine {r['engine']:.2f}s)")
        print(f"top: {r['top']} ({r['status']}); culprit: rank {r['culprit']}; {r['sentence']}")
        ok = r["culprit"] == 37
        if a.compare:
            compare(d, a.compare)
        if a.big_gb:
            big = Path(tempfile.mkdtemp(prefix="bench_ranks_big_"))
            try:
                write_job(big, 4, 2000)
                line = "2024-05-01 10:00:00,000 INFO step 1 loss 2.5000 lr 1.0e-04 " + "x" * 40 + "\n"
                with open(big / "rank1.log", "w") as f:
                    chunk = line * 100_000
                    for _ in range(int(a.big_gb * 2**30 / len(chunk)) + 1):
                        f.write(chunk)
                    f.write("RuntimeError: CUDA error: an illegal memory access was encountered\n")
                from mltdbg.analyzers import crossrank
                from mltdbg.analyzers.analyze import prepare
                from mltdbg.analyzers.ingest import ingest
                t = time.perf_counter()
                run = ingest([str(big)])
                t_in = time.perf_counter() - t
                prepare(run)
                t = time.perf_counter()
                v = crossrank.cross_rank(run)
                print(f"one {a.big_gb:g} GB rank file: ingest {t_in:.1f}s, cross-rank view {time.perf_counter() - t:.2f}s; "
                      f"culprit rank {v.culprit.rank if v and v.culprit else None}")
            finally:
                shutil.rmtree(big, ignore_errors=True)
        return 0 if ok else 1
    finally:
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    sys.exit(main())
