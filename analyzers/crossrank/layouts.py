"""Which files (or which lines of a file) are which rank's: the layouts launchers write.

In:  a `Run` (its log texts and their paths).
Out: `find_streams(run) -> (streams, layout, notes)`: one `Stream` per rank (its `Part`s: whole files
     or the line numbers of one rank inside a shared file), the layout ("files", "prefixes", "nodes",
     "watchdog") and notes (an earlier torchrun attempt left out, too many ranks, assumed global ranks).
     Layouts: one file per rank (`rank3.log`, `log_rank_3.txt`, torchrun `attempt_0/3/stdout.log`,
     SLURM `slurm-<job>_<task>.out`), rank-tagged lines (`[rank3]:`, `[default3]:`, `3: `), per-node files.
"""
from __future__ import annotations

import re
from itertools import islice
from pathlib import PurePosixPath

import numpy as np

from mltdbg.analyzers.crossrank.records import SRUN_LABEL, Part, Stream
from mltdbg.analyzers.model import Run, TextArtifact
from mltdbg.analyzers.ranks import rank_lines
from mltdbg.analyzers.tracebacks import LOG_KINDS

# Beyond this many ranks we read the lowest-numbered ones and say so (a 1,000-rank job is fine;
# a folder of 100,000 numbered files is not a job we can show).
MAX_RANKS = 4096


# ----------------------------------------------------------------------------- layouts

# torchrun --log-dir: <dir>/<run id>/attempt_<n>/<local rank>/{stdout,stderr}.log
_TORCHRUN_DIR = re.compile(r"(?:^|/)attempt_(\d+)/(\d+)/(stdout|stderr|error)\.(?:log|json)$")
# SLURM --output=slurm-%j_%t.out (job, task id = global rank); also %j.%t
_SLURM_TASK = re.compile(r"(?:^|/)slurm-(\d+)[_.](\d+)\.(?:out|err|log|txt)$")
# rank3.log, log_rank_3.txt, train.rank-05.out, rank3/stdout.log, RANK_3.log
_RANK_NAME = re.compile(r"(?:^|[/_.\-])rank[_\-]?(\d{1,5})(?=[/_.\-]|$)", re.I)
# node-local rank in a name: local_rank3.log, lrank_3.log
_LOCAL_NAME = re.compile(r"(?:^|[/_.\-])l(?:ocal_?)?rank[_\-]?(\d{1,5})(?=[/_.\-]|$)", re.I)
# srun --label: "  3: text" (right-aligned task id, colon, space)

# torch >= 2.2 nests the global rank in torchrun's tee prefix: "[default1]:[rank5]: ..."
_NESTED_RANK = re.compile(r"\[default(\d+)\]:\[rank(\d+)\]:")
_NODE_INDEX = re.compile(r"(\d+)(?!.*\d)")



# ----------------------------------------------------------------------------- finding the ranks

def may_name_rank(path: str) -> bool:
    """Whether path_rank can find a rank in `path` (or in any part of it): each of its patterns
    needs one of these words. A plain substring test, so most files stop here."""
    return "rank" in path.lower() or "attempt_" in path or "slurm-" in path


def path_rank(rel: str) -> tuple[str, int, str] | None:
    """(how, number, group) from a file's path: ("rank", global, group) or ("local", local, group)."""
    p = rel.replace("\\", "/")
    if not may_name_rank(p):
        return None
    m = _TORCHRUN_DIR.search(p)
    if m:
        group = p[: m.start()] or "."
        return "local", int(m.group(2)), f"{group}#attempt{int(m.group(1)):06d}"
    m = _SLURM_TASK.search(p)
    if m:
        return "rank", int(m.group(2)), f"slurm-{m.group(1)}"
    name = PurePosixPath(p)
    tail = "/".join(name.parts[-2:])
    m = _LOCAL_NAME.search(tail)
    if m:
        return "local", int(m.group(1)), str(name.parent)
    m = _RANK_NAME.search(tail)
    if m:
        return "rank", int(m.group(1)), str(name.parent) if "/" not in tail[m.start():].strip("/") else str(name.parent.parent)
    return None


def _srun_lines(art: TextArtifact) -> dict[int, np.ndarray]:
    """Line numbers per task for `srun --label` output ("  3: text"), when most lines carry one."""
    text = art.text
    if ": " not in text[:20000]:
        return {}            # (no line of the sample can carry a label)
    sample = text[:20000].split("\n")[:200]
    hits = [SRUN_LABEL.match(s) for s in sample if s.strip()]
    if len(hits) < 4 or sum(h is not None for h in hits) < 0.6 * len(hits):
        return {}
    if len({h.group(1) for h in hits if h}) < 2:
        return {}
    ranks: list[int] = []
    offs: list[int] = []
    for m in re.finditer(r"(?m)^ {0,5}(\d{1,5}): ", text):
        offs.append(m.start())
        ranks.append(int(m.group(1)))
    if not offs:
        return {}
    lines = art.lines_of(np.asarray(offs, dtype=np.int64))
    r = np.asarray(ranks, dtype=np.int64)
    return {int(k): lines[r == k] for k in np.unique(r)}


def find_streams(run: Run) -> tuple[list[Stream], str, list[str]]:
    """The ranks' streams, the layout, and notes (dropped attempts, too many ranks)."""
    notes: list[str] = []
    by_file: dict[str, list[tuple[str, int, TextArtifact]]] = {}
    prefixed: list[tuple[TextArtifact, dict[int, np.ndarray], str]] = []
    for art in run.texts:
        if art.kind not in LOG_KINDS:
            continue
        pr = path_rank(art.path)
        if pr is not None:
            how, n, group = pr
            by_file.setdefault(group, []).append((how, n, art))
            continue
        rl = rank_lines(art)
        tag = "rank"
        if rl and (art.text.startswith("[default") or "\n[default" in art.text[:2_000_000]):
            tag = "local"   # torchrun --tee: [defaultN] is the local rank (the global one may be nested after it)
        if not rl:
            rl = _srun_lines(art)
            tag = "rank"
        if len(rl) >= 1:
            prefixed.append((art, rl, tag))
    streams: dict[tuple, Stream] = {}
    layout = "files"
    # one file (or two: stdout/stderr) per rank; keep the latest torchrun attempt of each log dir
    groups = sorted(by_file)
    latest: dict[str, str] = {}
    for g in groups:
        base, _, att = g.partition("#attempt")
        if att and (base not in latest or g > latest[base]):
            latest[base] = g
    for g in groups:
        base, _, att = g.partition("#attempt")
        if att and latest.get(base) != g:
            notes.append(f"{base}: an earlier torchrun attempt (attempt_{int(att)}) was left out; the latest is shown")
            continue
        for how, n, art in by_file[g]:
            key = ("", n) if how == "rank" else (base if base != "." else "", n)
            s = streams.get(key)
            if s is None:
                s = streams[key] = Stream(key=key, rank=n if how == "rank" else None,
                                          local_rank=n if how == "local" else None)
            s.parts.append(Part(art))
    # local-rank files of one torchrun log dir on a single node: local == global
    nodes_f = {k[0] for k in streams if streams[k].rank is None}
    if len(nodes_f) == 1:
        for s in streams.values():
            if s.rank is None:
                s.rank = s.local_rank
    elif len(nodes_f) > 1:
        for s in streams.values():
            if s.rank is None:
                s.node = s.key[0]
        _assign_global(list(streams.values()), notes)
    # prefixed files
    local_files = [(a, rl) for a, rl, t in prefixed if t == "local"]
    multi_node = len(local_files) > 1
    for art, rl, tag in prefixed:
        nested = dict((int(a), int(b)) for a, b in _NESTED_RANK.findall(art.text[:2_000_000]))
        node = PurePosixPath(art.path).stem if (tag == "local" and multi_node) else None
        for r, lines in rl.items():
            glob = nested.get(r) if tag == "local" else r
            if tag == "local" and not multi_node and glob is None:
                glob = r
            key = ("", glob) if glob is not None else (node or art.path, r)
            s = streams.get(key)
            if s is None:
                s = streams[key] = Stream(key=key, rank=glob, node=node, local_rank=r if tag == "local" else None)
            s.parts.append(Part(art, lines, prefixed=True, tag=r))
        layout = "nodes" if multi_node else "prefixes"
    if multi_node:
        _assign_global([s for s in streams.values() if s.rank is None], notes)
    out = sorted(streams.values(), key=lambda s: (s.rank is None, s.rank if s.rank is not None else 0, s.key))
    if len(out) < 2:
        named = _watchdog_ranks(run)
        if len(named) >= 2:   # one log whose lines do not carry the rank, but whose watchdog lines name it
            have = {s.rank for s in out}
            out += [Stream(key=("", r), rank=r) for r in sorted(named) if r not in have]
            layout = "watchdog"
    if len(out) > MAX_RANKS:
        notes.append(f"{len(out)} rank streams found; the first {MAX_RANKS} are analysed")
        out = out[:MAX_RANKS]
    return out, layout, notes


def _watchdog_ranks(run: Run) -> set[int]:
    """Ranks named by NCCL watchdog lines (`[Rank 3] Watchdog caught ... SeqNum=...`)."""
    out: set[int] = set()
    for art in run.texts:
        if art.kind not in LOG_KINDS or "SeqNum=" not in art.text:
            continue
        for m in islice(re.finditer(r"\[(?:PG[^\]]*?)?Rank (\d+)\][^\n]*SeqNum=", art.text), MAX_RANKS * 4):
            out.add(int(m.group(1)))
    return out


def _assign_global(streams: list[Stream], notes: list[str]) -> None:
    """Per-node local ranks -> global ranks as node index * ranks per node + local (torchrun's static
    assignment), when every node's name holds an index and all nodes hold the same ranks."""
    by_node: dict[str, list[Stream]] = {}
    for s in streams:
        if s.node is not None:
            by_node.setdefault(s.node, []).append(s)
    if len(by_node) < 2:
        return
    idx = {}
    for n in by_node:
        m = _NODE_INDEX.search(n)
        if not m:
            return
        idx[n] = int(m.group(1))
    per = {len(v) for v in by_node.values()}
    if len(per) != 1 or len(set(idx.values())) != len(idx):
        return
    k = per.pop()
    order = sorted(idx, key=idx.get)
    for i, n in enumerate(order):
        for s in by_node[n]:
            if s.local_rank is not None:
                s.rank = i * k + s.local_rank
                s.rank_assumed = True
    notes.append(f"global ranks assumed as node index x {k} + local rank (nodes {', '.join(order)}); "
                 "the logs do not print them")
