"""A metric's whole history printed as one list: Keras' `history.history` dict, a `print(losses)`.

In:  a small log's text (`{'loss': [0.6931, 0.6930, ...], 'val_accuracy': [0.5, ...]}`,
     `loss = [2.30 1.91 1.52]` as numpy prints it, over several lines).
Out: `list_series(art)` -> one `Series` per such list of >= MIN_POINTS numbers under a loss,
     accuracy or perplexity name; steps are the list positions (`step_is_index`), each point's
     line is the line its number is on. `worded_series(art)` -> the same for a short text's values
     in words ("loss went 2.3 -> 2.1 -> 45.2 -> nan", "grad norm 1.2, 3.5, 40, 900, inf").

The block scanner reads the first number after a key, so these histories came out as one point
each. Only metric names are read this way: a config echo's lists (`milestones: [30, 60, 90]`,
`betas: [0.9, 0.999]`, an lr per group) are settings, not histories.
"""
from __future__ import annotations

import re

import numpy as np

from mltdbg.analyzers.model import LOC_LINE, Series, TextArtifact
from mltdbg.analyzers.names import LOSS_ACC_PPL, as_held_out, normalize
from mltdbg.analyzers.prose import prose_sentences
from mltdbg.analyzers.readers.textlog.layergrads import numbered_layer_series

# Logs up to this many characters are searched (a post's paste; a long run prints per step), and
# only when a list of numbers follows a ':' or '=' somewhere (_ANY, ~10x quicker than _LIST).
MAX_CHARS = 1024 * 1024
# Fewer numbers than this in a list are not a history.
MIN_POINTS = 3

# (one way to match each number: a list that never closes fails in linear time)
_NUM = r"[-+]?(?:nan|inf|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?)"
_LIST = re.compile(
    r"""(?P<key>(?<![\w.])['"]?[A-Za-z_][\w./-]{0,40}?['"]?)[ \t]*[:=][ \t]*"""
    r"(?:array\(|np\.array\(|tensor\()?\[\s*(?P<nums>" + _NUM + r"(?:(?:[ \t]*,\s*|\s+)" + _NUM + r")+)\s*,?\s*\]",
    re.IGNORECASE)
_EACH = re.compile(_NUM, re.IGNORECASE)
_ANY = re.compile(r"[:=][ \t]*(?:array\(|np\.array\(|tensor\()?\[\s*[-+.\dni]", re.IGNORECASE)
def _is_metric(name: str) -> bool:
    """Names whose lists are read: the loss, accuracy and perplexity families and any other loss term."""
    return name in LOSS_ACC_PPL or name.endswith("loss") or name.endswith(("_acc", "_accuracy"))


# A history kept in a list is often named for it: train_losses, val_accs, loss_history, acc_list
_LIST_SUFFIX = re.compile(r"[_ ](?:history|hist|list|log|curve|values|vals|per_epoch|all)$", re.I)
_PLURALS = (("losses", "loss"), ("accuracies", "accuracy"), ("accs", "acc"), ("perplexities", "perplexity"))


def _list_name(raw: str) -> str:
    """The metric a list holds, by its name (normalize's, after the list's own suffix and plural are taken off)."""
    name = normalize(raw)
    if _is_metric(name):
        return name
    base = _LIST_SUFFIX.sub("", raw)
    for plural, one in _PLURALS:
        if base.lower().endswith(plural):
            base = base[:len(base) - len(plural)] + one
            break
    return normalize(base)


# A list on a line of its own under the line that names it: `print(losses)` or `print(history.history['loss'])`
# then its output, a notebook's `In [5]: train_loss` / `Out[5]: [...]`, a caption ("Loss array:", "=== Loss ===")
# over numpy's multi-line print. The caption is one short line with no list of its own; its first word that names a
# metric (by _list_name) names the list.
_CAPTIONED = re.compile(
    r"^(?P<cap>[^\n]{1,80})\r?\n[ \t]*(?:Out\[\d+\]:[ \t]*)?(?:array\(|tensor\()?\[\s*(?P<nums>" + _NUM
    + r"(?:(?:[ \t]*,\s*|\s+)" + _NUM + r")+)\s*,?\s*\]", re.IGNORECASE | re.MULTILINE)
_CAPTION_WORD = re.compile(r"[A-Za-z_][\w]*")
# (what every _CAPTIONED match holds: a line opening a list of two numbers; one search, no copy of the text)
_CAPTION_ANY = re.compile(r"\n[ \t]*(?:Out\[\d+\]:[ \t]*)?(?:array\(|tensor\()?\[\s*" + _NUM
                          + r"(?:[ \t]*,\s*|\s+)" + _NUM, re.IGNORECASE)


def captioned_series(art: TextArtifact) -> list[Series]:
    """The histories printed as a bare list under a line that names them (see _CAPTIONED)."""
    text = art.text
    if len(text) > MAX_CHARS or not _CAPTION_ANY.search(text):
        return []
    out = []
    for m in _CAPTIONED.finditer(text):
        if _ANY.search(m.group("cap")) or _EACH.fullmatch(m.group("cap").strip(" ,[]")):
            continue        # (a list's own line, or one of numpy's wrapped lines)
        words = _CAPTION_WORD.findall(m.group("cap").replace("'", " ").replace('"', " "))
        name = next((n for n in (_list_name(w) for w in words) if _is_metric(n)), None)
        nums = list(_EACH.finditer(m.group("nums")))
        if name is None or len(nums) < MIN_POINTS:
            continue
        out.append(_history(art, _points(m, nums), name, m.group("cap").strip()))
    return out


def list_series(art: TextArtifact) -> list[Series]:
    """The histories printed as lists in a small log (see the module docstring)."""
    text = art.text
    if len(text) > MAX_CHARS or "[" not in text or not _ANY.search(text):
        return []
    out = []
    for m in _LIST.finditer(text):
        raw = m.group("key").strip("'\"")
        name = _list_name(raw)
        if not _is_metric(name):
            continue
        nums = list(_EACH.finditer(m.group("nums")))
        if len(nums) < MIN_POINTS:
            continue
        out.append(_history(art, _points(m, nums), name, raw))
    return out


def _history(art: TextArtifact, points: list[tuple[str, int]], name: str, raw: str) -> Series:
    """(number as printed, its offset in the text) pairs as one history: steps their positions, locs their lines."""
    values = np.array([float(v) for v, _ in points], np.float64)
    lines = np.array([art.line_of(at) for _, at in points], np.int64)
    return Series(name=name, raw_name=raw, steps=np.arange(len(values)), values=values, source=art.path,
                  locs=lines, loc_kind=LOC_LINE, step_is_index=True)


def _points(m: re.Match, nums: list[re.Match]) -> list[tuple[str, int]]:
    """The numbers of a match's "nums" group, each with its offset in the text."""
    base = m.start("nums")
    return [(x.group(), base + x.start()) for x in nums]


# A post's few values in words, on one line: "loss went 2.3 -> 2.1 -> 45.2 -> nan", "grad norm 1.2, 3.5, 40,
# 900, inf", "loss 2.302 2.301 2.301 2.300", "val accuracy by epoch: 0.599 0.701 0.608 0.644". Read in texts up to WORDED_MAX_CHARS (a post, a note), MIN_POINTS
# numbers at least under a metric name (one or two words; a verb between: "went", "goes from"), separated by
# arrows, commas or "then" / "to"; by spaces alone only from WORDED_SPACED numbers on (a table row has columns).
WORDED_MAX_CHARS = 4000
WORDED_SPACED = 4
_SEP = r"(?:[ \t]*(?:->|→|=>|,|;)[ \t]*|[ \t]+(?:then|to)[ \t]+|[ \t]+)"
_WORDED = re.compile(
    r"(?P<key>(?<![\w.])[A-Za-z][A-Za-z_]{1,24}(?:[ \t][A-Za-z_]{2,24})?)"
    r"(?:[ \t]+(?:went|goes|go|going|is|was|were|are|from|values?|curve|history))*"
    r"(?:[ \t]*[:=]?|[ \t]+(?:by|per)[ \t]+(?:epoch|step|iteration|iter|round)[ \t]*[:=])[ \t]*"
    r"(?P<nums>" + _NUM + r"(?:" + _SEP + _NUM + r"){2,})(?![\w.])", re.IGNORECASE)
_WORDED_NAMES = ("grad_norm",)


def worded_series(art: TextArtifact) -> list[Series]:
    """A metric's few values a short text gives in words (see WORDED_MAX_CHARS)."""
    text = art.text
    if len(text) > WORDED_MAX_CHARS:
        return []
    # whether the text is the user's words, asked once, and first where nothing else could be read (a log of
    # progress lines is turned down by prose at once; the regex below is slower)
    told: bool | None = None
    if not any(a in text for a in ("->", "→", "=>")):
        told = bool(prose_sentences([art]))
        if not told:
            return []
    out = []
    for m in _WORDED.finditer(text):
        raw = m.group("key")
        # (a metric's own name, whole or its last word: "my loss"; or its first: "loss went"; else any loss term)
        names = [normalize(x) for x in (raw, raw.split()[-1], raw.split()[0])]
        name = next((n for n in names if n in LOSS_ACC_PPL or n in _WORDED_NAMES), None) or \
            next((n for n in names if _is_metric(n)), None)
        if name is None:
            continue
        nums = list(_EACH.finditer(m.group("nums")))
        if not re.search(r"->|→|=>|\bthen\b|\bto\b", m.group("nums")):
            # listed by commas or spaces: a history only in the user's words (a log's "test loss 0.1, 0.0, 0.2"
            # is one value per class or term)
            spaced = "," not in m.group("nums") and ";" not in m.group("nums")
            if len(nums) < (WORDED_SPACED if spaced else MIN_POINTS):
                continue
            if told is None:
                told = bool(prose_sentences([art]))
            if not told:
                continue
        elif len(nums) < MIN_POINTS:
            continue
        out.append(_history(art, _points(m, nums), name, raw))
    return out


# A loss printed bare, as torch prints a tensor: "tensor(2.3026, grad_fn=<NllLossBackward0>)", one per line. Its
# grad_fn names what it is: a loss function's backward (NllLoss, MseLoss, BinaryCrossEntropy...) is the loss.
_TENSOR_LINE = re.compile(r"^[ \t]*tensor\([ \t]*(" + _NUM + r")[ \t]*,[^\n]*?grad_fn=<(\w+?)Backward\d*>[ \t]*\)[ \t]*\r?$",
                          re.IGNORECASE | re.MULTILINE)
_LOSS_FN = re.compile(r"loss|nll|mse|entropy|bce|l1|huber|hinge|kldiv|ctc", re.IGNORECASE)


def tensor_series(art: TextArtifact) -> list[Series]:
    """The loss a text prints as bare tensors, MIN_POINTS of them at least (see _TENSOR_LINE)."""
    text = art.text
    if len(text) > MAX_CHARS or "grad_fn=<" not in text:
        return []
    found = [m for m in _TENSOR_LINE.finditer(text) if _LOSS_FN.search(m.group(2))]
    if len(found) < MIN_POINTS:
        return []
    return [_history(art, [(m.group(1), m.start(1)) for m in found], "loss", f"tensor(grad_fn={found[0].group(2)})")]


# A caption that puts the list under it on a held-out set: the Trainer's model card opens with "It achieves the
# following results on the evaluation set:" and a bullet per metric ("- Loss: 0.4734", "- Accuracy: 0.845")
_HELD_OUT_CAPTION = re.compile(r"results? on the (?:evaluation|validation|eval|dev|test|held[- ]out) (?:set|data|split)"
                               r"[^\n]{0,40}:[ \t]*\r?\n((?:[ \t]*[-*+][ \t][^\n]*\n?)+)", re.I)


def _held_out_listed(art: TextArtifact, series: list[Series]) -> None:
    """Rename, in place, the one-point series read from the bullets under a held-out caption to the held-out
    set's names (the card's "- Accuracy: 0.845" is no training accuracy)."""
    for m in _HELD_OUT_CAPTION.finditer(art.text[:MAX_CHARS]):
        first, last = art.line_of(m.start(1)), art.line_of(max(m.start(1), m.end(1) - 1))
        for s in series:
            if len(s) == 1 and first <= int(s.locs[0]) <= last:
                s.name = as_held_out(s.name)


def with_lists(art: TextArtifact, series: list[Series]) -> list[Series]:
    """`series` (the block scanner's) with each printed history in place of the one point the
    scanner took from the start of its list, and a short text's worded values (worded_series) in
    place of the point or two it took from their line; one-point values listed under a held-out
    caption named as the held-out set's (_held_out_listed)."""
    if "set" in art.text[:MAX_CHARS]:
        _held_out_listed(art, series)
    layers = numbered_layer_series(art.text, art.line_of, art.path)
    if layers:      # (what else was read from the table's rows misread them: its grad_norm by layer as by step)
        rows = {int(s.locs[0]) for s in layers}
        series = [s for s in series if not all(int(ln) in rows for ln in s.locs)] + layers
    lists = list_series(art) + captioned_series(art)
    if not any(s.name == "loss" for s in series):
        lists += tensor_series(art)
    worded = worded_series(art)
    if worded:
        at = {(s.name, int(ln)) for s in worded for ln in s.locs}
        series = [s for s in series if not (len(s) <= 2 and all((s.name, int(ln)) in at for ln in s.locs))]
        lists += [w for w in worded if not any(w.name == s.name and len(s) >= len(w) for s in series)]
    if not lists:
        return series
    taken = {(s.raw_name, int(s.locs[0])) for s in lists}
    kept = [s for s in series if not (len(s) == 1 and (s.raw_name.strip("'\""), int(s.locs[0])) in taken)]
    return kept + lists
