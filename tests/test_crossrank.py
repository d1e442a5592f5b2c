"""The cross-rank view: real gloo jobs on CPU (one rank made to stall, crash or lose its DataLoader worker
at a known step), and hand-written NCCL watchdog logs in torch's own format for what a CPU cannot run."""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mltdbg.analyzers.analyze import analyze, prepare
from mltdbg.analyzers.crossrank import cross_rank, fmt_ranks, parse_time, rank_signals
from mltdbg.analyzers.ingest import ingest
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.playbooks.diagnose import diagnose

JOB = Path(__file__).parent / "ranks_job.py"
PY = sys.executable


def view_of(*paths) -> tuple:
    run = ingest([str(p) for p in paths])
    prepare(run)
    return run, cross_rank(run)


def roles(view) -> dict:
    return {r.rank: r.role for r in view.rows}


# ----------------------------------------------------------------------------- real gloo jobs

@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """Three real jobs at once (a few seconds on two cores): fork-launched stall (timestamps) and crash (no
    timestamps), and a torchrun job (--log-dir folders, --tee prefixes, its failure table) whose rank 1
    loses its DataLoader worker to SIGKILL."""
    d = tmp_path_factory.mktemp("jobs")
    specs = {
        "stall": [PY, str(JOB), "--fork", "4", "--out", str(d / "stall"), "--mode", "stall", "--timeout", "2", "--bad-rank", "2",
                  "--bad-step", "5"],
        "crash": [PY, str(JOB), "--fork", "3", "--out", str(d / "crash"), "--mode", "crash", "--bad-rank", "1",
                  "--bad-step", "3", "--no-time"],
        "torchrun": [PY, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--log-dir", str(d / "tr" / "logs"),
                     "--tee", "3", str(JOB), "--mode", "worker_kill", "--bad-rank", "1", "--bad-step", "4"],
    }
    procs = {}
    for name, cmd in specs.items():
        (d / ("tr" if name == "torchrun" else name)).mkdir(parents=True, exist_ok=True)
        out = open(d / ("tr" if name == "torchrun" else name) / "launcher.txt", "wb")
        procs[name] = (subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=d), out)
    for name, (p, out) in procs.items():
        p.wait(timeout=120)
        out.close()
        assert p.returncode != 0, f"{name}: the faulty job should fail"
    return d


def test_stalled_rank_is_the_culprit_and_the_rest_victims(jobs):
    run, v = view_of(jobs / "stall")
    assert v.layout == "files" and v.world_size == 4
    assert v.culprit.rank == 2 and v.rows[0].rank == 2          # the culprit's row first
    # the others timed out waiting (gloo's own words), lost their peer after that, or were stopped by the
    # launcher before their own timeout (which of these depends on scheduling)
    assert all(role in ("victim", "unknown") for rank, role in roles(v).items() if rank != 2)
    c = v.culprit
    assert c.last_step.step == 5 and c.first_error is None
    assert all(r.last_step.step == 4 for r in v.rows if r is not c)
    assert any(re.search(r"Timed out waiting \d+ms|Connection (closed|reset) by peer", r.first_error.text)
               for r in v.victims)                                   # gloo's own words
    assert v.sentence.startswith("rank 2 stopped at step 5 at ")
    sig = next(s for s in rank_signals(run) if s.kind == "ranks:stalled")
    assert sig.evidence[0].source == "rank2.log" and "loading shard for step 5" in sig.evidence[0].quote
    # the timeline merges the ranks by time: the culprit's stall comes after everyone's step 4
    tl = v.timeline()
    i_stall = next(i for i, e in enumerate(tl) if e.rank_label == "rank 2" and e.what == "step")
    assert all(e.loc.step == 4 for e in tl[:i_stall] if e.what == "step")
    assert [e.time for e in tl if e.time is not None] == sorted(e.time for e in tl if e.time is not None)


def test_diagnose_turns_the_stall_into_hang_evidence(jobs):
    d = diagnose([str(jobs / "stall")], ["training hangs then dies with a gloo timeout"])
    top = d.hypotheses[0]
    assert top.id == "distributed_hang"
    ev = top.evidence[0]
    assert ev.verified and ev.source == "rank2.log" and ev.text.startswith("rank 2 stopped at step 5")
    js = json.loads(json.dumps(d.to_json()))
    assert js["root_causes"][0]["evidence"][0]["source"] == "rank2.log"


def test_crash_without_timestamps_is_ordered_by_step(jobs):
    run, v = view_of(jobs / "crash")
    assert v.culprit.rank == 1 and v.culprit.error_kind == "exception"
    assert "ValueError: bad record in shard 3 at step 3" in v.culprit.first_error.text
    assert v.reason.startswith("crashed")
    assert all(r.last_time is None for r in v.rows)               # --no-time: no line has a time
    tl = v.timeline()
    assert all(e.ordered_by == "step" for e in tl)
    steps = [e.step for e in tl if e.step is not None]
    assert steps == sorted(steps)
    assert [s.kind for s in rank_signals(run)][0] == "ranks:culprit_exception"


def test_torchrun_layouts_and_dataloader_worker_death(jobs):
    logs = next((jobs / "tr" / "logs").iterdir())
    assert (logs / "attempt_0" / "1" / "stderr.log").is_file()    # torchrun's own --log-dir layout
    for paths in ([jobs / "tr" / "logs"], [jobs / "tr" / "launcher.txt"]):
        run, v = view_of(*paths)
        assert v.culprit.rank == 1, paths
        assert v.culprit.error_kind == "host_oom"                  # its worker was SIGKILLed
        w = v.workers[0]
        assert w.kind == "killed" and w.signal == "Killed" and w.pid > 0 and w.rank_label == "rank 1"
        kinds = [s.kind for s in rank_signals(run)]
        assert "ranks:culprit_host_oom" in kinds and "ranks:worker_killed" in kinds
    # the tee'd output (--tee 3): [defaultN]: prefixes, and torchrun's table gives the exit code
    run, v = view_of(jobs / "tr" / "launcher.txt")
    assert v.layout == "prefixes"
    assert v.culprit.exit_code == 1 and v.culprit.exit_loc is not None


def test_missing_rank_file_is_said(jobs, tmp_path):
    d = tmp_path / "stall"
    shutil.copytree(jobs / "stall", d)
    (d / "rank2.log").unlink()                                    # the culprit's own log is lost
    run, v = view_of(d)
    assert v.missing == [2] and v.culprit is None
    assert any("no log file from rank 2 (ranks 0-3 expected)" in n for n in v.notes)
    assert any("may hold it" in n for n in v.notes)
    sig = rank_signals(run)
    assert sig[0].kind == "ranks:all_timed_out" and "rank(s) 2 is missing" in sig[0].summary
    assert any("(ranks) no log file from rank 2" in w for w in run.warnings)


def test_interleaved_out_of_order_prefixed_lines(jobs, tmp_path):
    """One file: every rank's lines tagged [rankN]:, interleaved at random (each rank's own lines in order),
    and one block of rank 1's early lines flushed late, after everything else."""
    streams = []
    for f in sorted((jobs / "stall").glob("rank*.log")):
        r = int(f.stem[4:])
        streams.append([f"[rank{r}]:{s}" for s in f.read_text().splitlines()])
    late = streams[1][1:3]                       # rank 1's steps 1-2, written out last
    del streams[1][1:3]
    rnd = random.Random(3)
    merged = []
    while any(streams):
        s = rnd.choice([x for x in streams if x])
        merged.append(s.pop(0))
    (tmp_path / "all.log").write_text("\n".join(merged + late) + "\n")
    run, v = view_of(tmp_path / "all.log")
    # the same job read from its per-rank files is the reference: how far each rank got depends on
    # scheduling (a loaded machine), the interleaving must not change it
    _, ref = view_of(jobs / "stall")
    last = {r.rank: r.last_step.step for r in ref.rows}
    assert v.layout == "prefixes" and v.culprit.rank == 2
    assert v.culprit.last_step.step == last[2] == 5
    assert {r.rank: r.last_step.step for r in v.rows}[1] == last[1] > 2     # not the late-flushed step 2
    assert any("not in time order" in n and "rank 1" in n for n in v.notes)
    tl = [e.time for e in v.timeline() if e.time is not None]
    assert tl == sorted(tl)


def test_traceback_cut_short_then_late_lines_is_no_crash(jobs, tmp_path):
    """A rank stopped by the launcher while printing its traceback (CI saw it on a loaded machine), whose
    buffered early lines are flushed after it: the log line after the cut frames is not its exception."""
    logs = {int(f.stem[4:]): f.read_text().splitlines() for f in sorted((jobs / "stall").glob("rank*.log"))}
    # which ranks printed a traceback depends on scheduling; at least one did (the job failed)
    tb = next(lines[i:] for lines in logs.values() for i, s in enumerate(lines) if s.startswith("Traceback"))
    own = logs[1]
    own = own[: next((i for i, s in enumerate(own) if s.startswith("Traceback")), len(own))]
    logs[1] = own + tb[:3]                               # the header and one frame, then the kill
    streams = [[f"[rank{r}]:{s}" for s in lines] for r, lines in sorted(logs.items())]
    late = streams[1][1:3]
    del streams[1][1:3]
    (tmp_path / "all.log").write_text("\n".join(sum(streams, []) + late) + "\n")
    run, v = view_of(tmp_path / "all.log")
    assert not [t for t in run.tracebacks if t.rank == 1]
    row = next(r for r in v.rows if r.rank == 1)
    assert row.error_kind is None and row.role != "culprit"
    assert v.culprit is None or v.culprit.rank == 2


# ----------------------------------------------------------------------------- hand-written NCCL logs

def _nccl_job(d: Path, world: int, culprit: int, stop_step: int = 1200, *, skew: dict | None = None,
              per_node: int | None = None, seq: int = 8813) -> None:
    """Per-rank logs in torch 2.4's format: a step a minute, rank `culprit` stops at `stop_step` at
    10:41:07 (on a right clock), the others' watchdog fires 9 minutes later on SeqNum `seq` while the
    culprit's last enqueued work is seq - 1. `skew`: seconds a rank's clock runs ahead; `per_node`: ranks
    per node file (torchrun --tee prefixes, the global rank nested as torch >= 2.2 prints it)."""
    skew = skew or {}
    files: dict[str, list[str]] = {}

    def hms(t: float) -> tuple[int, int, int, int]:
        return int(t // 3600), int(t // 60 % 60), int(t % 60), int(round(t % 1 * 1000))
    for r in range(world):
        off = skew.get(r, 0.0)
        out = []
        last = stop_step if r == culprit else stop_step + 1
        for step in range(stop_step - 40, last + 1):
            hh, mm, ss, ms = hms(38467 + (step - stop_step) * 60 + off)
            out.append(f"2024-05-01 {hh:02d}:{mm:02d}:{ss:02d},{ms:03d} INFO step {step} loss {2.0 - step * 1e-4:.4f}")
        hh, mm, ss, _ = hms(38467 + 540 + off)
        if r != culprit:
            out.append(f"[rank{r}]:[E501 {hh:02d}:{mm:02d}:{ss:02d}.201455621 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught "
                       f"collective operation timeout: WorkNCCL(SeqNum={seq}, OpType=ALLREDUCE, NumelIn=23891971, "
                       f"NumelOut=23891971, Timeout(ms)=600000) ran for 600044 milliseconds before timing out.")
            out.append(f"[rank{r}]:[E501 {hh:02d}:{mm:02d}:{ss:02d}.205410988 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] "
                       f"Exception (either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: "
                       f"{seq}, last completed NCCL work: {seq - 1}.")
        else:
            out.append(f"[rank{r}]:[E501 {hh:02d}:{mm:02d}:{ss + 2:02d}.44 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] "
                       f"Exception (either an error or timeout) detected by watchdog at work: {seq - 1}, last enqueued NCCL "
                       f"work: {seq - 1}, last completed NCCL work: {seq - 1}.")
        if per_node:
            node, local = divmod(r, per_node)
            files.setdefault(f"node{node}.log", []).extend(
                f"[default{local}]:{x}" if x.startswith("[rank") else f"[default{local}]:{x}" for x in out)
        else:
            files[f"rank{r}.log"] = out
    for name, out in files.items():
        (d / name).write_text("\n".join(out) + "\n")


def test_the_issue_example_rank5_of_8(tmp_path):
    _nccl_job(tmp_path, 8, 5)
    run, v = view_of(tmp_path)
    assert v.culprit.rank == 5 and v.reason.startswith("its collective lags")
    assert v.sentence.startswith("rank 5 stopped at step 1200 at 2024-05-01 10:41:07, 9 min before the watchdog "
                                 "fired on ranks 0-4, 6-7, last op ALLREDUCE SeqNum 8812 vs 8813")
    assert {r.rank for r in v.victims} == {0, 1, 2, 3, 4, 6, 7}
    sig = rank_signals(run)[0]
    assert sig.kind == "ranks:collective_mismatch"
    assert sig.evidence[0].source == "rank5.log" and "step 1200" in sig.evidence[0].quote
    d = diagnose([str(tmp_path)])
    assert d.hypotheses[0].id == "distributed_hang" and d.status == "diagnosis_complete"
    assert d.hypotheses[0].evidence[0].verified


@pytest.mark.parametrize("world,culprit", [(2, 1), (64, 37)])
def test_two_to_64_ranks(tmp_path, world, culprit):
    _nccl_job(tmp_path, world, culprit)
    run, v = view_of(tmp_path)
    assert len(v.rows) == world and v.rows[0].rank == culprit
    others = [r for r in range(world) if r != culprit]
    assert f"ranks {fmt_ranks(others)}" in v.sentence or (world == 2 and "rank 0" in v.sentence)
    table = rank_signals(run)[0].data["rows"]
    assert table[0]["rank"] == culprit and table[0]["role"] == "culprit" and table[0]["last_seq"] == 8812


def test_per_node_files_with_local_ranks_and_a_fast_clock(tmp_path):
    """Two nodes, two ranks each ([default0]/[default1] in node0.log and node1.log); node 1's clock runs
    40 s ahead. The culprit is on node 1; its times are corrected before they are compared."""
    _nccl_job(tmp_path, 4, 3, per_node=2, skew={2: 40.0, 3: 40.0})
    run, v = view_of(tmp_path)
    assert v.layout == "nodes"
    assert {r.label for r in v.rows} == {"rank 0", "rank 1", "rank 2", "rank 3"}   # from the nested [rankN]: tags
    assert not any("assumed" in n for n in v.notes)
    assert v.culprit.rank == 3
    assert v.clock_skew and all(abs(s - 40.0) < 1.0 for s in v.clock_skew.values())
    assert any("clocks differ" in n and "ranks 2-3 ahead by 40 s" in n for n in v.notes)
    assert "at 2024-05-01 10:41:07" in v.sentence        # corrected to rank 0's clock


def test_ordering_uncertain_across_nodes(tmp_path):
    """Two ranks on two nodes crash 1 s apart, with no common steps to compare their clocks: say so."""
    (tmp_path / "node0.log").write_text(
        "[default0]:2024-05-01 10:00:00,000 INFO starting\n"
        "[default0]:2024-05-01 10:05:00,500 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "[default1]:2024-05-01 10:00:00,000 INFO starting\n")
    (tmp_path / "node1.log").write_text(
        "[default0]:2024-05-01 10:00:00,000 INFO starting\n"
        "[default0]:2024-05-01 10:05:01,400 ERROR RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "[default1]:2024-05-01 10:00:00,000 INFO starting\n")
    run, v = view_of(tmp_path)
    assert v.layout == "nodes" and any("assumed as node index x 2 + local rank" in n for n in v.notes)
    assert v.culprit.rank == 0 and v.ordering_uncertain
    assert "ordering uncertain" in v.sentence


def test_a_thousand_ranks():
    """1,000 rank logs (built in memory: reading 1,000 files is ingest's business, not this analyzer's)."""
    run = Run(root=Path("."))
    for r in range(1000):
        lines = [f"2024-05-01 10:00:{s:02d},000 INFO step {s} loss 1.0" for s in range(1, 11 if r != 512 else 7)]
        if r != 512:
            lines.append("RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
                         "Timed out waiting 1800000ms for recv operation to complete")
        run.texts.append(TextArtifact(f"rank{r}.log", Path(f"rank{r}.log"), "log", "\n".join(lines) + "\n"))
    v = cross_rank(run)
    assert len(v.rows) == 1000 and v.culprit.rank == 512
    assert "ranks 0-511, 513-999" in v.sentence
    assert len(rank_signals(run)[0].data["rows"]) == 64          # the table handed on is capped


def test_torchrun_table_names_a_sigkilled_rank(tmp_path):
    """torchrun's ChildFailedError table (its real layout, copied from torch 2.13's output) gives exit codes
    and signals of every rank; -9 is the OOM killer's."""
    for r in range(3):
        (tmp_path / f"rank{r}.log").write_text(
            "".join(f"2024-05-01 10:00:{s:02d},000 INFO step {s}\n" for s in range(1, 8 if r != 1 else 5)))
    (tmp_path / "torchrun.txt").write_text("""\
E0501 10:00:30.218000 27121 torch/distributed/elastic/multiprocessing/api.py:882] failed (exitcode: -9) local_rank: 1 (pid: 27355) of binary: /usr/bin/python
Traceback (most recent call last):
  File "/usr/bin/torchrun", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2024-05-01_10:00:30
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 27354)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 27354
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_10:00:30
  host      : localhost
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 27355)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 27355
============================================================
""")
    run, v = view_of(tmp_path)
    assert v.culprit.rank == 1 and v.culprit.signal == "SIGKILL" and v.culprit.exit_code == -9
    assert {r.rank: r.signal for r in v.rows}[0] == "SIGTERM"
    assert "rank 1 was killed (SIGKILL, exit -9)" in v.sentence
    assert rank_signals(run)[0].kind == "ranks:culprit_host_oom"


def test_single_process_logs_give_no_rank_view(tmp_path):
    (tmp_path / "train.log").write_text("".join(f"step {s} loss 1.0\n" for s in range(10)))
    run, v = view_of(tmp_path)
    assert v is None and rank_signals(run) == []


def test_times_in_the_formats_logs_use():
    assert parse_time("2024-05-01 10:41:07,123 INFO x") == pytest.approx(1714560067.123)
    assert parse_time("[E501 12:31:44.201455621 ProcessGroupNCCL.cpp:607] x", 2024) == pytest.approx(1714566704.2014556)
    assert parse_time("I0501 12:00:00.101000 140519 torch/distributed/run.py:793]", 2024) == pytest.approx(1714564800.101)
    assert parse_time("12:31:44 step 3") == 45104
    assert parse_time("step 3 loss 0.5") is None


# ----------------------------------------------------------------------------- the TUI's rank view

def test_rank_panel_shows_the_culprit_first_and_a_step_chart(tmp_path):
    import asyncio

    from textual.app import App

    from mltdbg.app.widgets.ranks import RankPanel, RankStepChart, RankTable
    _nccl_job(tmp_path, 8, 5)
    run, v = view_of(tmp_path)
    run.texts[0].text += "[rank0]: [/bold red]markup in a log line stays text[/]\n"

    class Host(App):
        def compose(self):
            yield RankPanel(id="ranks")

    async def go():
        app = Host()
        async with app.run_test(size=(140, 40)) as pilot:
            panel = app.query_one(RankPanel)
            panel.set_view(None)
            await pilot.pause()
            assert not panel.display
            panel.set_view(v)
            await pilot.pause()
            assert panel.display
            table = app.query_one(RankTable).render()
            first = [c._cells[0] for c in table.columns]
            assert str(first[0]) == "rank 5" and str(table.columns[1]._cells[0]) == "culprit"
            assert str(table.columns[4]._cells[0]) == "ALLREDUCE #8812" or str(table.columns[4]._cells[0]) == "op #8812"
            chart = app.query_one(RankStepChart)
            chart.render()
            assert chart.lines_drawn == 6 and chart.chosen()[0].rank == 5
            head = str(app.query_one("#rank_head").render())
            assert "rank 5 stopped at step 1200" in head
    asyncio.run(go())


# ----------------------------------------------------------------------------- replicas read as text only

def _replica_job(d: Path, ranks: int = 4, lines: int = 20_000, odd: dict | None = None) -> None:
    """Per-rank logs over crossrank.replicas.MIN_REPLICA_BYTES; `odd`: rank -> loss factor (nan allowed)
    applied to its last 500 lines, and rank 2 stops 30 steps early (the culprit)."""
    for r in range(ranks):
        n = lines - 30 if r == 2 else lines
        with open(d / f"rank{r}.log", "w") as f:
            for i in range(n):
                loss = 2.0 * 0.9999 ** i + 0.001 * ((i * 7 + r) % 5)
                if odd and r in odd and i >= n - 500:
                    loss *= odd[r]
                t = 3600 + i
                f.write(f"2024-05-01 {t // 3600:02d}:{t // 60 % 60:02d}:{t % 60:02d},000 INFO step {i} loss {loss:.5f} "
                        f"lr 1.0e-04 padding-to-make-the-line-longer\n")
            if r != 2:
                f.write(f"[E501 05:40:00.1 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective operation "
                        f"timeout: WorkNCCL(SeqNum=901, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=600000) "
                        f"ran for 600044 milliseconds before timing out.\n")


def test_replica_ranks_skip_metric_parsing_but_keep_their_text(tmp_path):
    _replica_job(tmp_path)
    run, v = view_of(tmp_path)
    assert (tmp_path / "rank1.log").stat().st_size > 1024 * 1024
    assert {s.source for s in run.series} == {"rank0.log"}            # the representative's curve only
    assert {t.path for t in run.texts} >= {f"rank{r}.log" for r in range(4)}
    assert any("metrics of 3 rank logs were not parsed" in w for w in run.warnings)
    assert v.culprit.rank == 2 and v.culprit.last_step.step == 20_000 - 31
    assert {r.rank: r.last_step.step for r in v.rows}[3] == 19_999   # steps of a replica from its text


@pytest.mark.parametrize("odd", [{1: float("nan")}, {3: 4.0}])
def test_a_rank_whose_loss_differs_at_the_end_is_read_in_full(tmp_path, odd):
    _replica_job(tmp_path, odd=odd)
    run, _ = view_of(tmp_path)
    (r,) = odd
    assert f"rank{r}.log" in {s.source for s in run.series}
    assert {s.source for s in run.series} == {"rank0.log", f"rank{r}.log"}


# One line each, only in rank 37 of 64, in the middle of its log (not in the tail that replicas.py compares):
# (the line number it is written at, the text, the signal it must give)
_RANK37_EVENTS = [
    (4_000, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity)",
     "log:cuda_oom"),
    (7_000, "RuntimeError: Function 'MulBackward0' returned nan values in its 0th output.", "log:anomaly_nan"),
    (9_000, "Killed", "log:host_oom"),
    (11_000, "[rank37]:[E501 04:03:20.201455621 ProcessGroupNCCL.cpp:607] [Rank 37] Watchdog caught collective "
             "operation timeout: WorkNCCL(SeqNum=33001, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, Timeout(ms)=600000) "
             "ran for 600044 milliseconds before timing out.", "log:nccl_timeout"),
]


@pytest.fixture(scope="module")
def rank37_job(tmp_path_factory):
    """64 replica rank logs of 17,000 lines (over replicas.MIN_REPLICA_BYTES, so read as text only);
    rank 37 alone holds the lines of _RANK37_EVENTS."""
    d = tmp_path_factory.mktemp("rank37")
    n = 17_000
    for r in range(64):
        lines = [f"2024-05-01 {(3600 + i) // 3600:02d}:{(3600 + i) // 60 % 60:02d}:{i % 60:02d},{r:03d} INFO step {i} "
                 f"loss {2.0 * 0.9999 ** i + 0.001 * ((i + r) % 5):.5f} lr 1.0e-04" for i in range(n)]
        if r == 37:
            for at, text, _ in _RANK37_EVENTS:
                lines.insert(at - 1, text)
        (d / f"rank{r}.log").write_text("\n".join(lines) + "\n")
    run = ingest([str(d)])
    return d, run, analyze(run)


def test_replica_setup_reads_rank37_as_text_only(rank37_job):
    d, run, _ = rank37_job
    assert (d / "rank37.log").stat().st_size > 1024 * 1024
    assert any("metrics of 63 rank logs were not parsed" in w for w in run.warnings)
    assert "rank37.log" not in {s.source for s in run.series}
    for at, text, _ in _RANK37_EVENTS:
        assert next(t for t in run.texts if t.path == "rank37.log").line(at) == text


@pytest.mark.parametrize("at,text,kind", _RANK37_EVENTS, ids=[k for _, _, k in _RANK37_EVENTS])
def test_a_finding_in_one_replica_rank_is_found_and_cited(rank37_job, at, text, kind):
    _, _, signals = rank37_job
    sig = next((s for s in signals if s.kind == kind), None)
    assert sig is not None, f"{kind} not found; got {sorted(s.kind for s in signals)}"
    cited = {(e.source, e.line) for e in sig.evidence}
    assert ("rank37.log", at) in cited, cited
    assert f"rank37.log:{at}" in sig.summary


@pytest.mark.parametrize("line, top", [
    ("RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.", "numerical_instability"),
    ("UserWarning: Error detected in PowBackward0. Traceback of forward call that caused the error:",
     "numerical_instability")])
def test_a_nan_that_autograd_traces_to_a_math_op_is_numerical_instability(tmp_path, line, top):
    """sqrt/pow/log/division at 0: the op anomaly mode names is where the NaN starts."""
    (tmp_path / "traceback.txt").write_text(line + "\n")
    d = diagnose([str(tmp_path)], ["the loss becomes nan after a few hundred iterations"])
    assert d.hypotheses[0].id == top and d.hypotheses[0].confidence >= 0.8
    (tmp_path / "traceback.txt").write_text("RuntimeError: Function 'MmBackward0' returned nan values in its 1th output.\n")
    d = diagnose([str(tmp_path)], ["the loss becomes nan after a few hundred iterations"])
    assert d.hypotheses[0].confidence < 0.8


@pytest.mark.parametrize("line, kind", [
    ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Found Inf or NaN global norm. : Tensor had NaN values",
     "log:loss_nonfinite"),
    ("FloatingPointError: Loss became infinite or NaN at iteration=88!", "log:loss_nonfinite"),
    ("WARNING:tensorflow:Gradients do not exist for variables ['dense_1/kernel:0', 'dense_1/bias:0'] when minimizing the loss.",
     "log:vars_without_grad"),
    ("ValueError: Tried to step 1002 times. The specified number of total steps is 1000", "log:scheduler_overrun"),
    ("ValueError: loaded state dict contains a parameter group that doesn't match the size of optimizer's group",
     "log:optimizer_state_mismatch"),
    ("UserWarning: None of the inputs have requires_grad=True. Gradients will be None", "log:no_grad_fn")])
def test_one_framework_line_says_what_failed_and_ranks_its_causes(tmp_path, line, kind):
    """A post that is one framework message: it names the failure, so the ranking is never empty (a NaN
    message alone had no cause: none required log:loss_nonfinite, and no words named a failure class)."""
    (tmp_path / "err.txt").write_text(line + "\n")
    run = ingest([tmp_path])
    assert kind in {s.kind for s in analyze(run)}
    d = diagnose([str(tmp_path)], [])
    family = {"log:loss_nonfinite": {"lr_too_high", "numerical_instability", "nan_in_data", "exploding_gradients"},
              "log:vars_without_grad": {"frozen_parameters"}, "log:scheduler_overrun": {"lr_schedule_bug"},
              "log:optimizer_state_mismatch": {"resume_mismatch"}, "log:no_grad_fn": {"frozen_parameters"}}[kind]
    assert d.hypotheses and d.hypotheses[0].id in family and d.hypotheses[0].confidence < 0.8


def test_a_warm_up_schedule_run_past_its_t_total_is_a_schedule_bug(tmp_path):
    """BertAdam's schedules (pytorch-pretrained-bert, FARM) warn once they run past t_total, and set the lr to 0
    from there: the log says the schedule is wrong, whatever else the post says."""
    (tmp_path / "train.log").write_text(
        "epoch 3 step 2990 loss 0.412\nWARNING - pytorch_pretrained_bert.optimization -   Training beyond specified "
        "'t_total'. Learning rate multiplier set to 0.0. Please set 't_total' of WarmupLinearSchedule correctly.\n")
    hits = [s for s in analyze(ingest([tmp_path])) if s.kind == "log:scheduler_overrun"]
    assert hits and hits[0].evidence[0].line == 2 and "t_total" in hits[0].summary
    d = diagnose([str(tmp_path)], ["the loss stops improving in the last epoch"])
    assert d.hypotheses[0].id == "lr_schedule_bug", [(h.id, h.confidence) for h in d.hypotheses]


@pytest.mark.parametrize("line, kind, top", [
    ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 37.3 GiB for an array with shape (50000, 224, 224, 3)",
     "log:host_oom", "host_oom"),
    ("RuntimeError: value cannot be converted to type at::Half without overflow", "log:half_overflow",
     "mixed_precision_overflow"),
    ("AssertionError: Torch not compiled with CUDA enabled", "log:import_error", "ci_environment_drift"),
    ("FloatingPointError: Minimum loss scale reached (0.0001). Your loss is probably exploding.", "log:loss_scale_overflow",
     "mixed_precision_overflow"),
    ("WARNING:tensorflow:NaN or Inf found in input tensor.", "log:loss_nonfinite", None),
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "log:cudnn_init_failed", "cuda_oom"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "log:illegal_memory_access",
     "label_out_of_range")])
def test_framework_messages_that_had_no_reading_rank_their_cause(tmp_path, line, kind, top):
    """Each of these lines alone had an empty ranking (no detector read it). TensorBoard's does not say
    which scalar went NaN: the non-finite family, in whatever order."""
    (tmp_path / "err.txt").write_text(line + "\n")
    kinds = {s.kind for s in analyze(ingest([tmp_path]))}
    assert kind in kinds and "log:nan_input" not in kinds      # (TensorBoard's "input tensor" is a logged scalar, no data)
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses and d.hypotheses[0].id == (top or d.hypotheses[0].id)
    if top is None:
        assert {h.id for h in d.hypotheses[:3]} <= {"numerical_instability", "nan_in_data", "lr_too_high",
                                                     "exploding_gradients", "mixed_precision_overflow"}



@pytest.mark.parametrize("line, top", [
    ("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED", "cuda_oom"),
    ("RuntimeError: CUDA error: an illegal memory access was encountered", "label_out_of_range")])
def test_a_message_that_usually_means_a_cause_ranks_it_but_never_makes_it_a_finding(tmp_path, line, top):
    """cuDNN that cannot start is most often a full GPU, sometimes a CUDA/cuDNN mismatch; an illegal memory access
    most often an index past its table, sometimes a kernel or driver bug: the playbooks' requires_held. Alone, each
    ranks its cause first below the bar (0.96, diagnosis_complete, before)."""
    (tmp_path / "err.txt").write_text(line + "\n")
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == top and d.hypotheses[0].confidence < 0.8 and d.status == "needs_more_data"
