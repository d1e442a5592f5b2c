"""What a segment's step needs from the segments before it, settled as blocks arrive.

In:  the segment columns of a log's blocks, in order (assemble.prepare_block: S/S_tot explicit
     step and its total, P/P_tot progress counter, E epoch, R rank; -1 or None where absent).
Out: StepContext.settle(block) adds two columns to the block, Ec (the epoch in force: the
     segment's own or the last one printed before it on its rank) and K (passes a progress
     counter printed with no epoch has completed before it), and keeps the few numbers of the
     whole log the steps depend on (the first epoch, whether a counter restarts with each epoch,
     the counters' largest total, restarts that are no new pass). With them the step of a
     segment follows from its own row (assemble._segment_steps(..., ctx=)), so a log with
     progress counters or epochs keeps only the segments its kept points are on: a 30M-line tqdm
     log need not hold 30M rows of counters to the end.

The rules are assemble._segment_steps' own, applied a block at a time; `ffill` is shared by both.
"""
from __future__ import annotations

import numpy as np

# A progress counter that goes back to the start after reaching at least this share of its total
# began another pass over the same loop (an epoch), not a restarted job.
PASS_DONE_SHARE = 0.9


def pass_ends(x: np.ndarray, total: int) -> tuple[np.ndarray, np.ndarray]:
    """Where a progress counter of `total` goes back (indexes of the value after the drop), and
    those of them that end a pass (the value before reached PASS_DONE_SHARE of the total)."""
    back = np.flatnonzero(x[1:] < x[:-1]) + 1
    return back, back[x[back - 1] >= PASS_DONE_SHARE * total]


def ffill(valid: np.ndarray, group: np.ndarray | None) -> np.ndarray:
    """Index of the last valid entry at or before each position (within `group`), -1 if none."""
    n = len(valid)
    if group is None:
        idx = np.where(valid, np.arange(n), -1)
        return np.maximum.accumulate(idx) if n else idx
    order = np.lexsort((np.arange(n), group))
    v = valid[order]
    idx = np.where(v, np.arange(n), -1)
    idx = np.maximum.accumulate(idx) if n else idx
    g = group[order]
    bad = (idx >= 0) & (g[np.maximum(idx, 0)] != g)
    idx[bad] = -1
    src = np.where(idx >= 0, order[np.maximum(idx, 0)], -1)
    out = np.empty(n, dtype=np.int64)
    out[order] = src
    return out



def counter_restarts(x: np.ndarray, e: np.ndarray) -> bool:
    """Whether a batch counter falls back or stays while the epoch advances (it counts within each epoch; a
    counter staying at its total is the next epoch's restart as well). Shared with assemble.globalise."""
    return bool(np.any((np.diff(x) <= 0) & (np.diff(e) > 0)))

class _Global:
    """What assemble._segment_steps' globalise reads of one kind of counter (explicit steps, or
    progress counters) over the segments that have it and an epoch: how many, whether one goes
    back while the epoch goes up (a counter that restarts every epoch), its largest total and
    its range; the last (counter, epoch) for the next block."""

    def __init__(self) -> None:
        self.n = 0
        self.back = False
        self.tot_max = -1
        self.x_max, self.x_min = -1, -1
        self.last: tuple[int, int] | None = None

    def add(self, x: np.ndarray, e: np.ndarray, tot: np.ndarray) -> None:
        if not len(x):
            return
        if not self.back:
            xs, es = (x, e) if self.last is None else (np.r_[self.last[0], x], np.r_[self.last[1], e])
            self.back = counter_restarts(xs, es)
        self.n += len(x)
        self.tot_max = max(self.tot_max, int(tot.max()))
        self.x_max = max(self.x_max, int(x.max()))
        lo = int(x.min())
        self.x_min = lo if self.x_min < 0 else min(self.x_min, lo)
        self.last = (int(x[-1]), int(e[-1]))

    def per(self) -> int | None:
        """Steps per epoch when the counter restarts with each epoch (None: it does not)."""
        if self.n < 2 or not self.back:
            return None
        return self.tot_max if self.tot_max > 0 else self.x_max + (1 if self.x_min == 0 else 0)


class StepContext:
    """The state of a counter/epoch log's steps after the blocks settled so far (see the module)."""

    def __init__(self) -> None:
        self.last_e: dict[int, int] = {}     # rank (-1: none) -> the epoch in force after the last block
        self.e_min = -1                      # the smallest epoch printed (-1: none yet)
        self.S, self.P = _Global(), _Global()
        self.keras_off = False               # a counter short of its total, or one with no epoch
        self.pt_lo, self.pt_hi = np.iinfo(np.int64).max, -1    # totals of the progress counters
        self.n_no_epoch = 0                  # progress counters printed with no epoch in force
        self.passes: dict[tuple[int, int], list] = {}   # (total, rank) -> [last counter, passes, restarted]

    def settle(self, sg: dict) -> None:
        """Add the block's Ec and K columns to `sg` (None when all -1 / all 0)."""
        n = sg["n"]
        neg = np.full(n, -1, np.int64)
        S, S_tot, P, P_tot, E = (neg if sg[k] is None else sg[k] for k in ("S", "S_tot", "P", "P_tot", "E"))
        R = sg["R"]
        Ec = self._epochs(E, R, n)
        hasS = S >= 0
        has_e = Ec >= 0
        m = hasS & has_e
        self.S.add(S[m], Ec[m], S_tot[m])
        hasP = (P >= 0) & ~hasS
        m = hasP & has_e
        self.P.add(P[m], Ec[m], P_tot[m])
        if hasP.any():
            self.keras_off = self.keras_off or bool(((P != P_tot) & hasP).any() or (~has_e & hasP).any())
            self.pt_lo = min(self.pt_lo, int(P_tot.min(where=hasP, initial=self.pt_lo)))
            self.pt_hi = max(self.pt_hi, int(P_tot.max(where=hasP, initial=-1)))
        no_epoch = hasP & ~has_e
        K = self._passes(P, P_tot, R, no_epoch) if no_epoch.any() else None
        sg["Ec"] = Ec if has_e.any() else None
        sg["K"] = K

    def _epochs(self, E: np.ndarray, R: np.ndarray | None, n: int) -> np.ndarray:
        has = E >= 0
        if has.any():
            lo = int(E[has].min())
            self.e_min = lo if self.e_min < 0 else min(self.e_min, lo)
        if not has.any() and not self.last_e:
            return E
        src = ffill(has, R)
        Ec = np.where(src >= 0, E[np.maximum(src, 0)], -1)
        if R is None:
            Ec[src < 0] = self.last_e.get(-1, -1)
            if has.any():
                self.last_e[-1] = int(Ec[-1])
            return Ec
        ranks, inv = np.unique(R, return_inverse=True)
        carry = np.array([self.last_e.get(int(r), -1) for r in ranks.tolist()], np.int64)
        Ec[src < 0] = carry[inv[src < 0]]
        last = n - 1 - np.unique(inv[::-1], return_index=True)[1]      # each rank's last segment
        for r, i in zip(ranks.tolist(), last.tolist()):
            if Ec[i] >= 0:
                self.last_e[int(r)] = int(Ec[i])
        return Ec

    def _passes(self, P: np.ndarray, P_tot: np.ndarray, R: np.ndarray | None, where: np.ndarray) -> np.ndarray:
        """Per segment, the passes its counter's (total, rank) completed before it (assemble._passes:
        a counter that goes back after reaching PASS_DONE_SHARE of its total began a new pass)."""
        self.n_no_epoch += int(np.count_nonzero(where))
        K = np.zeros(len(P), np.int64)
        idx = np.flatnonzero(where)
        tot = P_tot[idx]
        rk = np.full(len(idx), -1, np.int64) if R is None else R[idx]
        if tot.min() == tot.max() and rk.min() == rk.max():
            groups = [((int(tot[0]), int(rk[0])), idx)]
        else:
            keys, inv = np.unique(np.stack((tot, rk), 1), axis=0, return_inverse=True)
            inv = inv.ravel()
            groups = [((int(a), int(b)), idx[inv == i]) for i, (a, b) in enumerate(keys.tolist())]
        for (t, r), at in groups:
            st = self.passes.setdefault((t, r), [-1, 0, False])
            xs = P[at]
            if t <= 0:
                st[0] = int(xs[-1])
                continue
            full = xs if st[0] < 0 else np.r_[st[0], xs]
            back, done = pass_ends(full, t)
            if done.size < back.size:
                st[2] = True
            k = np.zeros(len(full), np.int64)
            k[done] = 1
            k = np.cumsum(k)[len(full) - len(xs):] + st[1]
            K[at] = k
            st[0], st[1] = int(xs[-1]), int(k[-1])
        return K

    def restarted(self) -> set[tuple[int, int]]:
        """(total, rank) of the counters that went back before a pass was done: left as printed."""
        return {key for key, st in self.passes.items() if st[2]}
