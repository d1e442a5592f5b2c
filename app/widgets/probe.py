"""A probe result in the TUI: its findings, the probe's main table, and for `gradients` a plotext bar
chart of the per-layer gradient norms (log10). Data in: a `ProbeResult`
(mltdbg.analyzers.probes.results). Every string from the result (module names, summaries) goes into
Rich `Text`/table cells as plain text, never as markup; control characters are dropped first.
"""
from __future__ import annotations

import math
import re
from typing import Any

from mltdbg.analyzers.probes.results import ProbeResult, grad_rows, value
from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widget import Widget

TABLE_ROWS = 20
CHART_LAYERS = 30
_CTRL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean(s: Any) -> str:
    """Printable text of a value from the result (no escape sequences)."""
    return _CTRL.sub("", str(s))


def _num(x: Any) -> str:
    v = value(x)
    if v is None:
        return "-"
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    if math.isnan(v) or math.isinf(v):
        return str(v)
    return f"{v:.3g}" if (1e-3 <= abs(v) < 1e5) or v == 0 else f"{v:.2e}"


def grad_chart(pr: ProbeResult, width: int, height: int) -> Text:
    """Horizontal bars of log10(grad norm) per layer, in forward order (plotext)."""
    import plotext as plt  # noqa: PLC0415 - plotext only when a plot is drawn
    rows = [r for r in grad_rows(pr) if value(r.get("grad_norm")) is not None][:CHART_LAYERS]
    pts = [(clean(r.get("layer"))[:24], value(r.get("grad_norm"))) for r in rows]
    pts = [(n, v) for n, v in pts if v is not None and math.isfinite(v) and v > 0]
    if not pts:
        return Text("no positive per-layer gradient norms to plot", style="dim")
    plt.clear_figure()
    plt.plotsize(max(width, 30), max(height, len(pts) + 4))
    plt.theme("clear")
    logs = [math.log10(v) for _, v in pts]
    base = math.floor(min(logs)) - 1
    plt.bar([n for n, _ in pts], [x - base for x in logs], orientation="horizontal", width=0.3, color="cyan")
    top = math.ceil(max(logs)) - base
    step = max(1, top // 6)
    plt.xticks(list(range(0, top + 1, step)), [f"1e{base + i}" for i in range(0, top + 1, step)])
    plt.title("per-layer gradient norm (log scale), forward order from the bottom")
    out = Text.from_ansi(plt.build().rstrip("\n"))
    return out


def table_for(pr: ProbeResult) -> Table:
    r = pr.result
    t = Table(expand=True, show_edge=False, pad_edge=False)
    if pr.probe == "gradients":
        for c in ("layer", "type", "grad norm", "grad RMS", "update/weight"):
            t.add_column(c, overflow="fold")
        for row in grad_rows(pr)[:TABLE_ROWS]:
            t.add_row(Text(clean(row.get("layer"))), Text(clean(row.get("type"))), _num(row.get("grad_norm")),
                      _num(row.get("grad_rms")), _num(row.get("update_ratio")))
        return t
    p = r.get("params") if isinstance(r.get("params"), dict) else None
    if p:
        t.add_column("kind")
        t.add_column("parameters", justify="right")
        t.add_column("share", justify="right")
        for k, v in sorted((p.get("by_kind") or {}).items(), key=lambda kv: -(value(kv[1].get("share")) or 0)):
            t.add_row(Text(clean(k)), _num(v.get("params")), f"{100 * (value(v.get('share')) or 0):.1f}%")
        return t
    t.add_column("item")
    t.add_column("value", overflow="fold")
    for k, v in list(r.items())[:TABLE_ROWS]:
        if isinstance(v, dict) and v.get("available") is False:
            t.add_row(Text(clean(k)), Text("unavailable: " + clean(v.get("unavailable")), style="dim"))
        elif not isinstance(v, (dict, list)):
            t.add_row(Text(clean(k)), Text(clean(v)))
    return t


class ProbeView(Widget):
    """Findings, table and (gradients) chart of one probe result."""

    DEFAULT_CSS = """
    ProbeView { height: auto; min-height: 6; }
    """

    def __init__(self, result: ProbeResult | None = None, *, id: str | None = None):
        super().__init__(id=id)
        self.result = result

    def set_result(self, result: ProbeResult | None) -> None:
        self.result = result
        self.refresh(layout=True)

    def render(self) -> Group | Text:
        pr = self.result
        if pr is None:
            return Text("no probe result", style="dim")
        head = Text()
        head.append(f"probe {pr.probe}", style="bold")
        if pr.target:
            head.append("  " + clean(pr.target))
        head.append(f"  {pr.status}", style="green" if pr.ok else "yellow")
        parts: list[Any] = [head]
        if pr.error_message:
            parts.append(Text(clean(pr.error_message), style="red"))
        for f in pr.findings:
            line = Text()
            line.append(f"! {clean(f.kind)} ", style="bold red" if f.severity in ("critical", "high") else "bold yellow")
            line.append(clean(f.summary))
            parts.append(line)
        if not pr.findings:
            parts.append(Text("no findings", style="dim"))
        parts.append(table_for(pr))
        if pr.probe == "gradients" and grad_rows(pr):
            parts.append(grad_chart(pr, self.size.width or 80, min(len(grad_rows(pr)), CHART_LAYERS) + 6))
        return Group(*parts)
