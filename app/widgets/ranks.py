"""The cross-rank view beside the plot: one row per rank (the culprit first) and steps against time.

Data in: a `RankView` (mltdbg.analyzers.crossrank.cross_rank of the diagnosed Run; in a resumed session
crossrank.view_from_record of the session's recorded `rank_view`), or None (a single-process run, or a
session recorded before the record existed): the panel hides itself then.
`RankPanel` holds the finding in one line and the notes, a `RankTable` and a `RankStepChart`. Every
string from the logs goes into rich `Text` objects, never into markup.
"""
from __future__ import annotations

import numpy as np
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from mltdbg.analyzers.crossrank import RankView, fmt_time

# Rows drawn in the table (the culprit and the victims first); the rest are summed up in one line.
MAX_ROWS = 16
# Ranks drawn in the step-versus-time chart: the culprit, then the ranks with the lowest last step.
MAX_LINES = 6
ROLE_STYLE = {"culprit": "bold red", "failed": "red", "victim": "yellow", "unknown": "dim", "ok": "green"}


def _cell(x, width: int = 0) -> Text:
    s = "" if x is None else str(x)
    if width and len(s) > width:
        s = s[: width - 1] + "…"
    return Text(s)


class RankTable(Widget):
    DEFAULT_CSS = """
    RankTable { height: auto; max-height: 20; }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.view: RankView | None = None

    def set_view(self, view: RankView | None) -> None:
        self.view = view
        self.refresh(layout=True)

    def render(self):
        v = self.view
        if v is None:
            return Text("")
        t = Table(expand=True, box=None, pad_edge=False, show_edge=False, header_style="bold")
        for name, kw in (("rank", {"no_wrap": True}), ("role", {"no_wrap": True}), ("last step", {"justify": "right"}),
                         ("last time", {"no_wrap": True}), ("last op", {}), ("exit", {"no_wrap": True}),
                         ("first error / last line", {"ratio": 1})):
            t.add_column(name, **kw)
        for r in v.rows[:MAX_ROWS]:
            op = f"{r.last_op or 'op'} #{r.last_seq}" if r.last_seq is not None else ""
            ex = ("" if r.exit_code is None else str(r.exit_code)) + (f" {r.signal}" if r.signal else "")
            last_t = r.last_time if r.last_time is not None else (r.last_line.time if r.last_line else None)
            what = r.first_error.text if r.first_error is not None else (r.last_line.text if r.last_line else "")
            t.add_row(_cell(r.label), Text(r.role, style=ROLE_STYLE.get(r.role, "")),
                      _cell(r.last_step.step if r.last_step else ""), _cell(fmt_time(last_t)[-8:] if last_t else ""),
                      _cell(op), _cell(ex.strip()), _cell(what.strip(), 120))
        if len(v.rows) > MAX_ROWS:
            rest = v.rows[MAX_ROWS:]
            roles: dict[str, int] = {}
            for r in rest:
                roles[r.role] = roles.get(r.role, 0) + 1
            t.add_row(Text(f"+{len(rest)}", style="dim"), Text(", ".join(f"{n} {k}" for k, n in roles.items()), style="dim"))
        return t


class RankStepChart(Widget):
    """Each rank's step against time (seconds from the first timed line); the culprit in red."""

    DEFAULT_CSS = """
    RankStepChart { height: 1fr; min-height: 6; }
    """

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.view: RankView | None = None
        self.lines_drawn = 0

    def set_view(self, view: RankView | None) -> None:
        self.view = view
        self.refresh()

    def chosen(self) -> list:
        """The rows drawn: the culprit, then those that stopped lowest, then the rest by rank."""
        v = self.view
        if v is None:
            return []
        rows = [r for r in v.rows if len(r.steps) and np.isfinite(r.times).any()]
        rows.sort(key=lambda r: (r.role != "culprit", r.last_step.step if r.last_step else 0, r.rank or 0))
        return rows[:MAX_LINES]

    def render(self) -> Text:
        import plotext as plt  # noqa: PLC0415 - plotext loads on the first chart drawn, as in widgets/plot.py
        rows = self.chosen()
        self.lines_drawn = 0
        if not rows:
            return Text("no timestamps with steps in the ranks' logs: no step-versus-time chart", style="dim")
        t0 = min(float(np.nanmin(r.times)) for r in rows)
        w, h = max(self.size.width, 20), max(self.size.height, 6)
        plt.clear_figure()
        plt.plotsize(w, h - 1)
        plt.theme("clear")
        palette = ["gray", "cyan", "green", "blue", "magenta"]
        for i, r in enumerate(rows):
            ok = np.isfinite(r.times)
            x = (r.times[ok] - t0).tolist()
            y = r.steps[ok].astype(float).tolist()
            color = "red" if r.role == "culprit" else palette[i % len(palette)]
            plt.plot(x, y, label=r.label, color=color, marker="braille")
            self.lines_drawn += 1
        out = Text.from_ansi(plt.build().rstrip("\n"))
        out.append(f"\nstep vs seconds since {fmt_time(t0)}  ({len(rows)} of {len(self.view.rows)} ranks)"[: w], style="dim")
        return out


class RankPanel(Vertical):
    """The finding, the notes, the table and the chart; hidden without a multi-rank view."""

    DEFAULT_CSS = """
    RankPanel { height: 1fr; }
    RankPanel > #rank_head { height: auto; max-height: 6; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="rank_head")
        yield RankTable(id="rank_table")
        yield RankStepChart(id="rank_chart")

    def set_view(self, view: RankView | None) -> None:
        self.display = view is not None
        head = Text()
        if view is not None:
            head.append("Ranks ", style="bold")
            head.append(f"({len(view.rows)}, {view.layout})  ", style="dim")
            head.append(view.sentence or "no rank stands out as the first to fail or stall")
            for n in view.notes[:3]:
                head.append("\n! ", style="yellow")
                head.append(n)
        self.query_one("#rank_head", Static).update(head)
        self.query_one(RankTable).set_view(view)
        self.query_one(RankStepChart).set_view(view)
