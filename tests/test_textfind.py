"""TextFinder (analyzers/common/textfind.py) gives str.find's answer, sought by a rare character."""
from __future__ import annotations

import random

from mltdbg.analyzers.common import textfind
from mltdbg.analyzers.common.textfind import TextFinder, contains_any
from mltdbg.analyzers.log_findings import GATES


def test_same_answer_as_str_find_on_random_text():
    rnd = random.Random(7)
    alpha = "abcnNrWo \nxe"
    for _ in range(3000):
        text = "".join(rnd.choice(alpha) for _ in range(rnd.randint(0, 300)))
        f = TextFinder(text)
        for g in ("nan", "rror", "Wo", "ab", "a", "NaN", "x\nb", "eee"):
            a, b = rnd.randint(0, len(text) + 2), rnd.randint(0, len(text) + 5)
            assert f.find(g, a, b) == text.find(g, a, b), (text, g, a, b)


def test_anchor_common_past_the_sample_falls_back(monkeypatch):
    # the sample (head and tail) has no 'b', the middle is full of it: the anchor tries run out
    monkeypatch.setattr(textfind, "RARITY_SAMPLE", 1000)
    text = "x" * 5000 + "ab" * 5000 + "zzab" + "x" * 5000
    f = TextFinder(text)
    for g in ("bz", "zab", "abz", "ba", "bx", "qb"):
        for a in (0, 5, 5001, 14000, len(text)):
            assert f.find(g, a, len(text)) == text.find(g, a), (g, a)


def test_metric_log_gates():
    lines = [f"2024-05-01 01:00:{i % 60:02d},000 INFO step {i} loss 2.5 lr 1.0e-04\n" for i in range(20000)]
    lines[15000] = "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp, unhandled system error\n"
    text = "".join(lines)
    f = TextFinder(text)
    for g in GATES:
        assert f.find(g, 0, len(text)) == text.find(g), g


def test_contains_any():
    text = "step 1 loss 2.5\n" * 1000 + "torch==2.4.0\n"
    assert contains_any(text, ("CUDA", "torch=="))
    assert not contains_any(text, ("CUDA", "Namespace("))
    assert not contains_any("", ("a",))
