"""A resumed session shows the same rank table as the fresh diagnosis it recorded (Pilot, real session files)."""
from __future__ import annotations

import asyncio
from pathlib import Path

from mltdbg.app.mltdbg_app import MltdbgApp, Options
from mltdbg.app.screens.hypotheses import HypothesesScreen
from mltdbg.app.widgets.ranks import RankPanel, RankStepChart, RankTable

from repo_helpers import make_repo
from tui_helpers import diagnose_from_capture, until


def _job(d: Path, world: int = 4, culprit: int = 2) -> None:
    """NCCL-style rank logs: a step a minute from 10:00, `culprit` stops at step 30, the others' watchdog
    fires 9 minutes later on SeqNum 91 while the culprit's last enqueued work is 90."""
    d.mkdir(parents=True, exist_ok=True)
    for r in range(world):
        last = 30 if r == culprit else 40
        lines = [f"2024-05-01 10:{i:02d}:00,000 INFO [rank{r}] step {i} loss {2.0 - i * 0.01:.3f}" for i in range(last + 1)]
        if r == culprit:
            lines.append(f"[rank{r}]:[E501 10:49:00.1 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank {r}] Exception "
                         f"(either an error or timeout) detected by watchdog at work: 90, last enqueued NCCL work: 90, "
                         f"last completed NCCL work: 90.")
        else:
            lines.append(f"[rank{r}]:[E501 10:49:00.2 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
                         f"operation timeout: WorkNCCL(SeqNum=91, OpType=ALLREDUCE, NumelIn=10, NumelOut=10, "
                         f"Timeout(ms)=600000) ran for 600044 milliseconds before timing out.")
        (d / f"rank{r}.log").write_text("\n".join(lines) + "\n")


def _rows(app) -> list[tuple]:
    v = app.screen.query_one(RankTable).view
    assert v is not None
    return [(r.label, r.role, r.last_step.step if r.last_step else None, r.last_op, r.last_seq) for r in v.rows]


def test_resumed_session_shows_the_rank_table_it_was_diagnosed_with(tmp_path):
    repo = make_repo(tmp_path / "repo", {"train.py": "print('train')\n"})
    _job(repo / "runs" / "job")
    app = MltdbgApp(Options(cwd=str(repo), paths=[str(repo / "runs" / "job")], engine="offline"))
    seen: dict = {}

    async def fresh():
        async with app.run_test(size=(140, 45)) as pilot:
            await diagnose_from_capture(app, pilot)
            assert app.screen.query_one(RankPanel).display
            seen["rows"] = _rows(app)
            seen["head"] = str(app.screen.query_one("#rank_head").render())
            seen["id"] = app.session.id
            await app.action_quit()

    asyncio.run(fresh())
    assert seen["rows"][0] == ("rank 2", "culprit", 30, None, 90)
    assert [r[1] for r in seen["rows"][1:]] == ["victim"] * 3
    again = MltdbgApp(Options(cwd=str(repo), resume=seen["id"], engine="offline"))

    async def resumed():
        async with again.run_test(size=(140, 45)) as pilot:
            await pilot.pause()
            await until(pilot, lambda: isinstance(again.screen, HypothesesScreen), what="the hypotheses screen")
            await pilot.pause()
            assert getattr(again, "diagnosis", None) is None or getattr(again.diagnosis, "run", None) is None
            assert again.screen.query_one(RankPanel).display
            assert _rows(again) == seen["rows"]
            assert str(again.screen.query_one("#rank_head").render()) == seen["head"]
            assert again.screen.query_one(RankStepChart).chosen()[0].label == "rank 2"

    asyncio.run(resumed())
