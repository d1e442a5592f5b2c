"""The artifact viewer on a 50 MB log: the line index built off the UI thread, the right line at a cited
line number, text on screen before the index is complete, a sparse index past a line limit, the per-file cache."""
from __future__ import annotations

import asyncio
import os

import pytest
from textual.widgets import Static

from mltdbg.app.screens.viewer import ViewerScreen
from mltdbg.app.widgets.viewer import SPARSE_STEP, SYNC_INDEX_BYTES, ArtifactView, LineIndex

from tui_helpers import demo_app, until

N_LINES = 700_000     # ~50 MB at ~72 bytes a line
CITED = 654_321       # 1-based, near the end


def _line(i: int) -> str:
    return f"step={i} loss={1.0 / (i + 1):.8f} lr=3.0e-04 grad_norm={1 + i % 97 / 10:.3f} tokens/s=123456.7"


@pytest.fixture(scope="module")
def big_log(tmp_path_factory):
    p = tmp_path_factory.mktemp("viewer") / "train.log"
    with p.open("w") as f:
        for start in range(0, N_LINES, 10_000):
            f.write("".join(_line(i) + "\n" for i in range(start, min(start + 10_000, N_LINES))))
    assert p.stat().st_size > 45 << 20 and p.stat().st_size > SYNC_INDEX_BYTES
    return p


def test_the_cited_line_is_the_line_of_that_number(big_log):
    idx = LineIndex(big_log, build_now=False)
    assert not idx.ready and idx.line(CITED - 1) == ""          # not known before the scan
    assert idx.build() and idx.ready and len(idx) == N_LINES
    for n in (1, 2, CITED, N_LINES):
        assert idx.line(n - 1) == _line(n - 1)
    assert idx.line(N_LINES) == ""
    assert idx.search("step=654320 ") == [CITED - 1]


def test_a_sparse_index_keeps_one_start_in_64_and_reads_the_same_lines(big_log, tmp_path):
    copy = tmp_path / "copy.log"                                # its own file: the cache is per path
    os.link(big_log, copy)
    idx = LineIndex(copy, build_now=True, sparse_above=100_000)
    assert len(idx) == N_LINES
    kept = sum(len(c) for c in idx._view[0])
    assert kept <= N_LINES // SPARSE_STEP + 64                   # 8 bytes per 64 lines, not per line
    for n in (1, 63, 64, 65, 100_001, CITED, N_LINES):
        assert idx.line(n - 1) == _line(n - 1)
    assert idx.search("step=654320 ") == [CITED - 1]


def test_an_index_is_kept_per_file_until_the_file_changes(tmp_path):
    p = tmp_path / "a.log"
    p.write_bytes(b"".join(_line(i).encode() + b"\n" for i in range(200_000)))
    assert p.stat().st_size > SYNC_INDEX_BYTES
    assert LineIndex(p, build_now=True).ready
    assert LineIndex(p).ready                                    # from the cache: no scan
    with p.open("a") as f:
        f.write(_line(200_000) + "\n")                           # size and mtime change
    again = LineIndex(p)
    assert not again.ready and again.build() and len(again) == 200_001


def test_before_the_index_lines_near_the_cited_one_are_shown(big_log, tmp_path):
    copy = tmp_path / "fresh.log"
    os.link(big_log, copy)
    idx = LineIndex(copy, build_now=False)
    lines, exact = idx.window(CITED - 1, 5)
    assert not exact and len(lines) == 5
    nums = [int(s.split()[0].removeprefix("step=")) for s in lines]
    assert all(s == _line(k) for s, k in zip(lines, nums))       # whole real lines, in order
    assert nums == list(range(nums[0], nums[0] + 5))
    assert abs(nums[0] - (CITED - 1)) < N_LINES // 20            # near it (an estimate, marked ~ on screen)


def test_the_viewer_paints_text_before_the_index_is_done_then_goes_exact(big_log, tmp_path):
    app, _ = demo_app(tmp_path)
    copy = tmp_path / "run.log"
    os.link(big_log, copy)

    async def go():
        async with app.run_test(size=(120, 30)) as pilot:
            await pilot.pause()
            screen = ViewerScreen(copy, "run.log", [CITED])
            await app.push_screen(screen)
            view = app.screen.query_one(ArtifactView)
            # the first layout puts the cited line in view: the first frame is drawn there, not at the top
            assert view.cursor == CITED - 1 and view.scroll_offset.y > 0
            await pilot.pause()
            rows = ["".join(seg.text for seg in view.render_line(y)) for y in range(view.size.height)]
            if not view.index.ready:     # the worker may already be done on a fast machine; both must show text
                assert "indexing" in str(app.screen.query_one("#where", Static).render())
            assert sum("step=" in r for r in rows) >= view.size.height - 1
            await until(pilot, lambda: view.index.ready, timeout=60, what="index")
            await pilot.pause()
            assert view.cursor == CITED - 1
            row = ["".join(seg.text for seg in view.render_line(y)) for y in range(view.size.height)]
            hit = [r for r in row if r.startswith(">")]
            assert hit and f"{CITED:>7} {_line(CITED - 1)}"[:60] in hit[0]
            assert f"{N_LINES} lines" in str(app.screen.query_one("#where", Static).render())
    asyncio.run(go())


def test_the_view_shows_estimated_rows_while_no_index_exists(big_log, tmp_path):
    """build_index=False holds the worker back: what a user sees in the first frames on a slow disk."""
    from textual.app import App

    copy = tmp_path / "slow.log"
    os.link(big_log, copy)

    class One(App):
        def compose(self):
            yield ArtifactView(copy, [CITED - 1], id="v", build_index=False)

    async def go():
        app = One()
        async with app.run_test(size=(100, 20)) as pilot:
            view = app.query_one(ArtifactView)
            view.goto(CITED - 1)
            await pilot.pause()
            rows = ["".join(seg.text for seg in view.render_line(y)) for y in range(view.size.height)]
            assert all(r[1] == "~" and "step=" in r for r in rows)        # estimated numbers, real text
            assert not view.index.ready
            view._build_index()
            await until(pilot, lambda: view.index.ready, timeout=60, what="index")
            await pilot.pause()
            rows = ["".join(seg.text for seg in view.render_line(y)) for y in range(view.size.height)]
            assert not any(r[1] == "~" for r in rows)
            assert any(r.startswith(">") and _line(CITED - 1) in r for r in rows)
    asyncio.run(go())
