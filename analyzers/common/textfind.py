"""Substring search over big log text by a rare character of the needle.

In:  a text (a log of up to GBs, mostly metric lines) and literals to find in it.
Out: `TextFinder(text).find(lit, a, b)`, the same answer as `text.find(lit, a, b)`;
     `contains_any(text, literals)`, whether any literal occurs.

Why: CPython's str.find of a multi-character needle scans ~1.5 GB/s; a single character
is a memchr (~20 GB/s). The detectors ask for dozens of literals per log (log_findings.py
gates, crossrank.py failure literals, config.py environment gates), most absent: 64 ranks x
6 MB x 54 gates took 3 s of a 12 s diagnosis (benchmarks/bench_ranks.py). Each literal is
sought by its rarest character in a sample of the text, each hit of that character checked.
"""
from __future__ import annotations

from collections.abc import Iterable

import numpy as np

# Rarity is counted over this many chars of the head and of the tail (where setup lines and
# the crash are; the middle of a big log is its metric lines, like the head's).
RARITY_SAMPLE = 32_768
# A character that turns out common past the sample costs at most this many checks per call
# before the plain str.find takes over, so the worst case stays about one pass.
ANCHOR_TRIES = 64
# An anchor seen more than once per this many sample chars is not rare: str.find at once.
COMMON_EVERY = 256
# A text this short is searched with str.find directly: one pass over it costs less than
# counting its characters (a folder of 5,000 small logs asked ~70 literals of each).
SHORT_TEXT = 65_536


class TextFinder:
    """`find(lit, a, b)` is `text.find(lit, a, b)`: the same answer, sought by a rare character of lit."""

    def __init__(self, text: str) -> None:
        self.text = text
        n = len(text)
        self.sample = text if n <= 2 * RARITY_SAMPLE else text[:RARITY_SAMPLE] + text[-RARITY_SAMPLE:]
        self.counts: dict[str, int] = {}
        self.anchors: dict[str, tuple[str, int]] = {}

    def _anchor(self, lit: str) -> tuple[str, int]:
        """(its rarest character, where in lit), or ("", 0) when even that one is common."""
        a = self.anchors.get(lit)
        if a is None:
            if not self.counts and self.sample.isascii():    # all counts in one pass, not one per character
                self.counts = dict(zip(map(chr, range(128)), np.bincount(
                    np.frombuffer(self.sample.encode("ascii"), np.uint8), minlength=128).tolist()))
            for c in lit:
                if c not in self.counts:
                    self.counts[c] = self.sample.count(c)
            k = min(range(len(lit)), key=lambda j: self.counts[lit[j]])
            common = self.counts[lit[k]] * COMMON_EVERY > len(self.sample)
            a = self.anchors[lit] = ("", 0) if common else (lit[k], k)
        return a

    def find(self, lit: str, a: int = 0, b: int | None = None) -> int:
        text = self.text
        if b is None:
            b = len(text)
        if len(lit) < 2 or a < 0 or b - a < len(lit) or len(text) <= SHORT_TEXT:   # as str.find
            return text.find(lit, a, b)
        c, k = self._anchor(lit)
        if not c:                                # every character of lit is common here
            return text.find(lit, a, b)
        i, end = a + k, b - len(lit) + k + 1     # where the anchor of a hit inside [a, b) lies
        for _ in range(ANCHOR_TRIES):
            j = text.find(c, i, end)
            if j < 0:
                return -1
            if text.startswith(lit, j - k):
                return j - k
            i = j + 1
        return text.find(lit, i - k, b)          # every start before i - k was checked


def contains_any(text: str, literals: Iterable[str]) -> bool:
    """Whether any of `literals` occurs in `text` (`any(x in text for x in literals)`, faster)."""
    if len(text) <= SHORT_TEXT:
        return any(x in text for x in literals)
    f = TextFinder(text)
    return any(f.find(x) >= 0 for x in literals)
