"""The judgement: clocks compared, the culprit and its victims, the finding in one sentence, the signals.

In:  a `RankView` whose rows mltdbg.analyzers.crossrank.facts filled.
Out: `clocks(view)` (per-rank clock offsets, corrected), `judge(view)` (roles: culprit, victim, ok,
     unknown; `view.reason`), `sentence(view)` ("rank 5 stopped at step 1200 at 10:41:07, 9 min before
     the watchdog fired on ranks 0-4 and 6-7, last op ALLREDUCE SeqNum 8812 vs 8813"),
     `view_signals(view) -> list[Signal]` (`ranks:*`, signals.md) whose Evidence cites the culprit's
     and the victims' lines (file:line + quote).
"""
from __future__ import annotations

import numpy as np

from mltdbg.analyzers.crossrank.facts import _HOST_OOM, _VICTIM_KINDS
from mltdbg.analyzers.crossrank.records import RankRow, RankView, fmt_gap, fmt_ranks, fmt_time
from mltdbg.analyzers.model import Evidence, Signal

# A rank whose last line is this much older than the others' failure is "stopped" (seconds);
# below it, the stop and the failure are too close to tell apart.
STALL_GAP_S = 2.0
# Clocks: two ranks are taken to log the same step within a step of each other (collectives keep
# them together); a median offset above this, consistent across steps, is a clock difference.
CLOCK_SKEW_S = 2.0
# Ordering by time across clocks we could not compare is uncertain below this gap (seconds).
UNCERTAIN_GAP_S = 5.0


# ----------------------------------------------------------------------------- clocks

def clocks(view: RankView) -> None:
    """Per-rank clock offsets from the times at which ranks logged the same steps.

    Ranks of one job pass every step within a collective of each other, so the same step logged at
    times that differ by a steady offset means their clocks differ. Offsets are measured against the
    lowest rank with times; a rank whose offset is above CLOCK_SKEW_S and steady (its spread is small
    next to it) is corrected, and the notes say by how much.
    """
    timed = [r for r in view.rows if len(r.times) and np.isfinite(r.times).sum() >= 3]
    if len(timed) < 2:
        return
    ref = min(timed, key=lambda r: (r.rank is None, r.rank if r.rank is not None else 0))
    ref_steps, ref_times = _step_time(ref)
    for r in timed:
        if r is ref:
            continue
        steps, times = _step_time(r)
        common, ia, ib = np.intersect1d(ref_steps, steps, return_indices=True)
        if len(common) < 3:
            continue
        d = times[ib] - ref_times[ia]
        off = float(np.median(d))
        spread = float(np.median(np.abs(d - off)))
        if abs(off) > CLOCK_SKEW_S and spread < 0.25 * abs(off):
            r.clock_offset = off
            view.clock_skew[r.label] = off
    if view.clock_skew:
        groups: dict[float, list[RankRow]] = {}
        for r in view.rows:
            if r.label in view.clock_skew:
                groups.setdefault(round(r.clock_offset), []).append(r)
        parts = []
        for off, rs in sorted(groups.items()):
            ranks = [x.rank for x in rs if x.rank is not None]
            who = f"ranks {fmt_ranks(ranks)}" if len(ranks) > 1 else rs[0].label
            parts.append(f"{who} {'ahead' if off > 0 else 'behind'} by {fmt_gap(off)}")
        view.notes.append(f"clocks differ between ranks ({'; '.join(parts)} of {ref.label}, from the times the same "
                          "steps were logged); times are compared after correcting for it")
        for r in view.rows:
            if r.clock_offset:
                for loc in (r.last_step, r.last_line, r.first_error, r.exit_loc, r.op_loc):
                    if loc is not None and loc.time is not None:
                        loc.time -= r.clock_offset
                if r.last_time is not None:
                    r.last_time -= r.clock_offset
                r.times = r.times - r.clock_offset


def _step_time(r: RankRow) -> tuple[np.ndarray, np.ndarray]:
    fin = np.isfinite(r.times)
    steps, times = r.steps[fin], r.times[fin]
    u, idx = np.unique(steps, return_index=True)
    return u, times[idx]


# ----------------------------------------------------------------------------- culprit and victims

def judge(view: RankView) -> None:
    rows = view.rows
    named = [r for r in rows if r.role == "culprit"]
    for r in rows:
        if r.role != "culprit":
            # a launcher's SIGTERM (or the watchdog's SIGABRT) alone says nothing: every rank gets one
            r.role = "victim" if r.error_kind in _VICTIM_KINDS else ("unknown" if r.error_kind is None else "failed")
    culprit: RankRow | None = named[0] if named else None
    reason = "named by monitoredBarrier" if culprit else ""
    failed = [r for r in rows if r.role == "failed" and r is not culprit]
    if culprit is None and failed:
        timed = [r for r in failed if r.first_error is not None and r.first_error.time is not None]
        culprit = min(timed, key=lambda r: r.first_error.time) if timed else failed[0]
        reason = "crashed first" if len(failed) > 1 else "crashed"
        if len(failed) > 1 and len(timed) > 1:
            ts = sorted(r.first_error.time for r in timed)
            if ts[1] - ts[0] < UNCERTAIN_GAP_S and not view.clock_skew and len({r.stream.node for r in timed}) > 1:
                view.ordering_uncertain = True
    if culprit is None:
        culprit, reason = _seq_lag(view, rows)
    if culprit is None:
        culprit, reason = _progress_lag(view, rows)
    if culprit is None and view.missing and any(r.role == "victim" for r in rows):
        view.notes.append(f"no rank's own log shows the first failure; the missing log of rank(s) "
                          f"{fmt_ranks(view.missing)} may hold it")
    if culprit is not None:
        culprit.role = "culprit"
        culprit.why = culprit.why or reason
    for r in rows:
        if r.role == "failed":
            r.role = "victim" if culprit is not None and r is not culprit and _after(r, culprit) else "failed"
        if r.role == "unknown" and culprit is not None and r is not culprit and (r.exit_loc is not None or r.signal):
            r.role = "victim"
    view.culprit = culprit
    view.reason = reason
    view.victims = [r for r in rows if r.role == "victim"]
    view.rows = sorted(rows, key=lambda r: ({"culprit": 0, "failed": 1, "victim": 2}.get(r.role, 3),
                                            r.rank if r.rank is not None else 10**9, r.stream.key))


def _after(r: RankRow, c: RankRow) -> bool:
    a, b = r.first_error, c.first_error
    if a is None or b is None or a.time is None or b.time is None:
        return r.error_kind in _VICTIM_KINDS
    return a.time >= b.time


def _seq_lag(view: RankView, rows: list[RankRow]) -> tuple[RankRow | None, str]:
    """The rank the others wait for, from the NCCL watchdog's SeqNums: the one whose collective lags,
    the one no watchdog fired on while it fired on all the others, or the odd one out of a collective
    whose sizes differ."""
    with_seq = [r for r in rows if r.last_seq is not None]
    if len(with_seq) < 2 and not (with_seq and len(rows) >= 2):
        return None, ""
    if not with_seq:
        return None, ""
    top = max(r.last_seq for r in with_seq)
    low = [r for r in with_seq if r.last_seq < top]
    if low and len(low) < len(with_seq):
        c = min(low, key=lambda r: (r.last_seq, r.rank or 0))
        return c, f"its collective lags: {c.last_op or 'op'} SeqNum {c.last_seq} vs {top} on the others"
    silent = [r for r in rows if r.last_seq is None and r.error_kind not in _VICTIM_KINDS]
    if len(with_seq) >= 2 and len(silent) == 1:
        c = silent[0]
        return c, f"no watchdog line: it never entered collective SeqNum {top} that the others timed out in"
    same = [r for r in with_seq if r.last_seq == top and r.numel is not None]
    sizes: dict[tuple, list[RankRow]] = {}
    for r in same:
        sizes.setdefault((r.last_op, r.numel), []).append(r)
    if len(sizes) >= 2:
        odd = min(sizes.values(), key=len)
        if len(odd) == 1 and len(same) >= 3:
            c = odd[0]
            major = max(sizes, key=lambda k: len(sizes[k]))
            return c, (f"a different collective at the same SeqNum {top}: {c.last_op} of {c.numel} elements vs "
                       f"{major[0]} of {major[1]} on the others")
        view.desync = sorted(sizes.values(), key=lambda g: min(r.rank or 0 for r in g))
    return None, ""


def _progress_lag(view: RankView, rows: list[RankRow]) -> tuple[RankRow | None, str]:
    """A rank that stopped before the others: a lower last step, or its last line long before theirs."""
    stepped = [r for r in rows if r.last_step is not None and r.last_step.step is not None]
    waiting = [r for r in rows if r.role == "victim"]
    if len(stepped) >= 2:
        top = max(r.last_step.step for r in stepped)
        low = [r for r in stepped if r.last_step.step < top]
        if low and len(low) <= max(1, len(stepped) // 2):
            c = min(low, key=lambda r: (r.last_step.step, r.rank or 0))
            if waiting or len(low) == 1:
                return c, f"stopped at step {c.last_step.step} while others reached {top}"
    if waiting:
        quiet = [r for r in rows if r.role in ("unknown", "ok") and r.first_error is None]
        if len(quiet) == 1 and not view.missing:     # with a log missing, the missing rank may be the quiet one
            c = quiet[0]
            return c, "the only rank with no timeout or error: the others waited for it"
        # several ranks without an error (the launcher stopped some before their timeout): the one whose
        # last step is not where the waiting ranks stopped never joined their collective
        vsteps = [r.last_step.step for r in waiting if r.last_step is not None]
        if len(quiet) > 1 and vsteps:
            where = max(set(vsteps), key=vsteps.count)
            odd = [r for r in quiet if r.last_step is not None and r.last_step.step != where]
            if len(odd) == 1:
                c = odd[0]
                return c, (f"its last step ({c.last_step.step}) is not where the waiting ranks stopped ({where}): "
                           "they waited in a collective it never joined")
        # every rank errored, but one only found its peers gone after they had timed out waiting for it
        peers = [r for r in waiting if r.error_kind == "peer"]
        timeouts = [r for r in waiting if r.error_kind == "timeout" and r.first_error.time is not None]
        if len(peers) == 1 and timeouts and len(peers) + len(timeouts) == len(waiting) and \
                peers[0].first_error.time is not None and peers[0].first_error.time > max(t.first_error.time for t in timeouts):
            return peers[0], "the others timed out waiting for it; it found them gone only afterwards"
    return None, ""


def sentence(view: RankView) -> str:
    """'rank 5 stopped at step 1200 at 10:41:07, 9 min before the watchdog fired on ranks 0-4 and 6-7,
    last op ALLREDUCE SeqNum 8812 vs 8813'."""
    c = view.culprit
    if c is None:
        if view.desync:
            top = view.desync[0][0].last_seq
            groups = [f"ranks {fmt_ranks([r.rank for r in g if r.rank is not None])} in {g[0].last_op} of {g[0].numel} "
                      f"element{'s' if g[0].numel != 1 else ''}" for g in view.desync]
            return f"the ranks ran different collectives at the same SeqNum {top}: {'; '.join(groups)}"
        return ""
    parts = []
    if c.error_kind in ("cuda_oom", "host_oom", "exception", "mismatch") and c.first_error is not None:
        what = {"cuda_oom": "ran out of GPU memory", "host_oom": "ran out of host memory",
                "exception": "crashed", "mismatch": "aborted on a collective mismatch (its peers sent a different "
                                                    "collective)"}[c.error_kind]
        if c.error_kind == "host_oom" and c.signal == "SIGKILL" and not _HOST_OOM.search(c.first_error.text):
            what = f"was killed (SIGKILL{f', exit {c.exit_code}' if c.exit_code is not None else ''})"
        at = c.first_error
        step = c.last_step.step if c.last_step else None
        parts.append(f"{c.label} {what}" + (f" at step {step}" if step is not None else "")
                     + (f" at {fmt_time(at.time)}" if at.time is not None else ""))
    else:
        at = c.last_step or c.last_line
        step = c.last_step.step if c.last_step else None
        parts.append(f"{c.label} stopped" + (f" at step {step}" if step is not None else "")
                     + (f" at {fmt_time(at.time)}" if at is not None and at.time is not None else ""))
    vict = [v for v in view.victims if v.first_error is not None]
    if vict:
        ranks = [v.rank for v in vict if v.rank is not None]
        first_v = min((v.first_error.time for v in vict if v.first_error.time is not None), default=None)
        who = f"ranks {fmt_ranks(ranks)}" if len(ranks) > 1 else (vict[0].label if vict else "")
        waited = "timed out waiting" if all(v.error_kind == "timeout" for v in vict) else \
            ("lost their peer" if all(v.error_kind == "peer" for v in vict) else "timed out waiting or lost their peer")
        kind = f"the watchdog fired on {who}" if any(v.last_seq is not None for v in vict) else f"{who} {waited}"
        if first_v is not None and at is not None and at.time is not None:
            gap = first_v - at.time
            parts.append(f"{fmt_gap(gap)} {'before' if gap >= 0 else 'after'} {kind}")
        else:
            parts.append(f"then {kind}")
    if c.last_seq is not None or any(v.last_seq is not None for v in view.victims):
        vs = max((v.last_seq for v in view.victims if v.last_seq is not None), default=None)
        op = c.last_op or next((v.last_op for v in view.victims if v.last_op), None) or "collective"
        if c.last_seq is not None and vs is not None and vs != c.last_seq:
            parts.append(f"last op {op} SeqNum {c.last_seq} vs {vs}")
        elif vs is not None and c.last_seq is None:
            parts.append(f"the others wait in {op} SeqNum {vs}")
    s = ", ".join(parts)
    if view.reason.startswith(("a different collective", "no watchdog line")):
        s += f"; {view.reason}"
    if view.ordering_uncertain:
        s += " (ordering uncertain: the ranks are on different nodes and the gap is within clock error)"
    return s


# ----------------------------------------------------------------------------- signals

def view_signals(view: RankView) -> list[Signal]:
    """`ranks:*` signals from a judged view."""
    out: list[Signal] = []
    c = view.culprit
    table = [r.to_json() for r in view.rows[:64]]
    if c is not None:
        ev = _culprit_evidence(view)
        data = {"rank": c.rank, "label": c.label, "reason": view.reason, "role_counts": _counts(view),
                "victims": [v.rank for v in view.victims if v.rank is not None],
                "step": c.last_step.step if c.last_step else None, "last_op": c.last_op, "last_seq": c.last_seq,
                "exit_code": c.exit_code, "signal": c.signal, "ordering_uncertain": view.ordering_uncertain,
                "missing": view.missing, "rows": table}
        strength = 0.6 if view.ordering_uncertain else 0.9
        kind = {"cuda_oom": "ranks:culprit_cuda_oom", "host_oom": "ranks:culprit_host_oom",
                "exception": "ranks:culprit_exception", "mismatch": "ranks:collective_mismatch"}.get(c.error_kind or "")
        if kind is None:
            kind = "ranks:collective_mismatch" if view.reason.startswith(("its collective lags", "a different collective",
                                                                          "no watchdog line")) else "ranks:stalled"
            if kind == "ranks:stalled" and not view.victims:
                strength = 0.5
        if ev:
            out.append(Signal(kind, strength, view.sentence, ev, data))
    elif view.desync:
        ev = [g[0].op_loc.evidence(f"ranks {fmt_ranks([r.rank for r in g if r.rank is not None])} wait in "
                                   f"{g[0].last_op} SeqNum {g[0].last_seq}") for g in view.desync[:3] if g[0].op_loc]
        if ev:
            out.append(Signal("ranks:collective_mismatch", 0.8, view.sentence, ev,
                              {"groups": [[r.rank for r in g] for g in view.desync], "rows": table}))
    elif view.victims:
        ev = [v.first_error.evidence(f"{v.label} timed out waiting ({v.error_kind})") for v in view.victims[:3]
              if v.first_error is not None]
        ranks = [v.rank for v in view.victims if v.rank is not None]
        words = f"ranks {fmt_ranks(ranks)} timed out waiting and no rank's log shows why"
        if view.missing:
            words += f"; the log of rank(s) {fmt_ranks(view.missing)} is missing"
        if ev:
            out.append(Signal("ranks:all_timed_out", 0.6, words, ev,
                              {"victims": ranks, "missing": view.missing, "rows": table}))
    for kind, ws in (("ranks:worker_killed", [w for w in view.workers if w.kind in ("killed", "exited")]),
                     ("ranks:worker_hang", [w for w in view.workers if w.kind == "timeout"])):
        if ws:
            ev = [w.loc.evidence(w.words()) for w in ws[:3]]
            first = ws[0]
            more = f" ({len(ws)} workers)" if len(ws) > 1 else ""
            out.append(Signal(kind, 0.7 if kind == "ranks:worker_killed" else 0.6, first.words() + more, ev,
                              {"signal": first.signal, "pid": first.pid, "rank": first.rank_label, "step": first.step,
                               "batch": first.batch, "count": len(ws)}))
    return out


def _counts(view: RankView) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in view.rows:
        out[r.role] = out.get(r.role, 0) + 1
    return out


def _culprit_evidence(view: RankView) -> list[Evidence]:
    c = view.culprit
    ev: list[Evidence] = []
    first = c.first_error if c.error_kind in ("cuda_oom", "host_oom", "exception", "mismatch") else None
    main = first or c.last_step or c.last_line
    if main is not None:
        ev.append(main.evidence(view.sentence))
    if c.exit_loc is not None and c.exit_loc is not main and (c.exit_code is not None or c.signal):
        ev.append(c.exit_loc.evidence(f"{c.label} exit code {c.exit_code if c.exit_code is not None else '?'}"
                                      + (f" ({c.signal})" if c.signal else "")))
    if c.op_loc is not None and c.op_loc is not main:
        ev.append(c.op_loc.evidence(f"{c.label}'s last collective: {c.last_op or '?'} SeqNum {c.last_seq}"))
    for v in view.victims[:2]:
        loc = v.op_loc or v.first_error
        if loc is not None:
            what = f"{v.label} timed out waiting" + (f" in {v.last_op} SeqNum {v.last_seq}" if v.last_seq is not None else "")
            ev.append(loc.evidence(what + (f" at {fmt_time(loc.time)}" if loc.time is not None else "")))
    return ev
