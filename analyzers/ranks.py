"""Which rank wrote which line of a multi-process log.

In:  a TextArtifact, or one line of it.
Out: `rank_lines(art)` maps rank -> 1-based line numbers of the lines tagged `[rankN]`,
     `[defaultN]` (torchrun --tee) or `[job,N]<stdout>` (mpirun --tag-output);
     `rank_of_prefix(line)` splits such a tag off one line (the traceback parser uses it
     to follow one rank through interleaved output).
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import TextArtifact

# Launchers that tag every line with the rank: torchrun (`[rank1]:`), torchrun --tee
# (`[default1]:`), mpirun --tag-output (`[1,0]<stderr>:`, job,rank).
_RANK_PREFIX = re.compile(r"\[(?:rank|default|Rank)(\d+)\]:?\s?|\[\d+,(\d+)\]<std(?:out|err)>:\s?")


def rank_of_prefix(s: str) -> tuple[int | None, str]:
    """(rank, rest of the line) when the line starts with a rank tag, else (None, s)."""
    m = _RANK_PREFIX.match(s)
    if not m:
        return None, s
    return int(m.group(1) or m.group(2)), s[m.end():]


_RANK_LINE = re.compile(r"^(?:\[(?:rank|default|Rank)(\d+)\]|\[\d+,(\d+)\]<std(?:out|err)>)", re.M)
_RANK_TAGS = (b"[rank", b"[default", b"[Rank")


def rank_lines(art: TextArtifact) -> dict[int, np.ndarray]:
    """1-based line numbers per rank for lines tagged `[rankN]`, `[defaultN]` or `[job,N]<stdout>`."""
    text = art.text
    if not any(t.decode() in text for t in _RANK_TAGS) and "]<std" not in text:
        return {}
    if text.isascii() and "]<std" not in text:
        return _rank_lines_ascii(art)
    offs: list[int] = []
    ranks: list[str] = []
    for m in _RANK_LINE.finditer(text):
        offs.append(m.start())
        ranks.append(m.group(1) or m.group(2))
    if not offs:
        return {}
    lines = art.lines_of(np.asarray(offs, dtype=np.int64))
    r = np.asarray(ranks, dtype=np.int64)
    return {int(k): lines[r == k] for k in np.unique(r)}


def _rank_lines_ascii(art: TextArtifact) -> dict[int, np.ndarray]:
    """Vectorised: compare the bytes at every line start with the tags, read up to 5 digits."""
    buf = np.frombuffer(art.text.encode("ascii"), dtype=np.uint8)
    if not len(buf):
        return {}
    last = len(buf) - 1
    starts = art.text_line_starts()
    cand = starts[buf[np.minimum(starts, last)] == ord("[")]
    found_lines, found_ranks = [], []
    for tag in _RANK_TAGS:
        w = len(tag)
        ok = np.ones(len(cand), dtype=bool)
        for j in range(w):                      # 1-D gathers only: fast
            ok &= buf[np.minimum(cand + j, last)] == tag[j]
        sub = cand[ok]
        val = np.zeros(len(sub), dtype=np.int64)
        nd = np.zeros(len(sub), dtype=np.int64)
        alive = np.ones(len(sub), dtype=bool)
        for j in range(6):                      # up to 5 digits, read left to right
            c = buf[np.minimum(sub + w + j, last)].astype(np.int64)
            alive &= (c >= 48) & (c <= 57) & (j < 5)
            val = np.where(alive, val * 10 + c - 48, val)
            nd += alive
        ok = (nd > 0) & (buf[np.minimum(sub + w + nd, last)] == ord("]"))
        found_lines.append(sub[ok])
        found_ranks.append(val[ok])
    if not found_lines:
        return {}
    offs = np.concatenate(found_lines)
    r = np.concatenate(found_ranks)
    order = np.argsort(offs, kind="stable")
    lines = art.lines_of(offs[order])
    r = r[order]
    return {int(k): lines[r == k] for k in np.unique(r)}
