"""`code:separate_shuffle`: inputs and targets shuffled, permuted or sliced independently, so
pairs break (also an image and its segmentation mask augmented by two transform calls, the image's with a random
crop or flip).

Also a frame of features re-ordered in place (`feats = feats.sample(frac=1)`, `.sort_values(...)`) after the labels were
taken from it or from the frame it came from (`labels = raw["click"].values`, `feats = raw.drop(columns=["click"])`), the
labels left in the old order: rows are paired by position afterwards.

In:  one parsed file (PyFile, from code/index.py).
Out: `check_separate_shuffle(f)` -> Findings.
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.index import LOOPS, STRONG, Finding, PyFile, const, core, dotted, fname, kwarg, last, src


_INPUT_RE = re.compile(r"^(x|xs|x_\w+|inputs?|images?|imgs|texts?|sentences|features|feats|samples|examples|data_x|train_x|xtrain)$", re.I)
_LABEL_RE = re.compile(r"^(y|ys|y_\w+|labels?|targets?|classes|data_y|train_y|ytrain|\w+_labels?|\w+_targets?"
                       r"|captions?|caps)$", re.I)   # (an image's caption is its pair's other half)
# a split's or a batch's prefix on a name (train_imgs, val_caps): the name after it says which side it is
_SPLIT_PREFIX = re.compile(r"^(?:train|val|valid|test|tr|te|all|batch|shuffled)_(?=\w)", re.I)


def _category(name: str | None) -> str | None:
    if not name:
        return None
    leaf = name.rsplit(".", 1)[-1]
    if not (_LABEL_RE.match(leaf) or _INPUT_RE.match(leaf)):
        leaf = _SPLIT_PREFIX.sub("", leaf)
    if _LABEL_RE.match(leaf):
        return "y"
    if _INPUT_RE.match(leaf):
        return "x"
    return None


# The node types this check reads (the rest of a scope is not sorted for it).
_READ = (ast.Call, ast.Subscript, ast.Tuple, ast.Name, *LOOPS)
# The calls whose scope the check reads whole (the shuffles, permutations and zips it starts from).
_STARTS = frozenset({"shuffle", "randperm", "permutation", "zip"})
# The calls that draw a random order (a `permutation` is numpy's, a Generator's or a RandomState's)
_PERMUTE = ("randperm", "permutation")


def _perm_key(e: ast.AST, perms: dict[str | None, int]) -> str | None:
    """Which random order an index expression is: a permutation drawn in place (by its position), a name bound to
    one in `perms`, or None."""
    if isinstance(e, ast.Call) and last(e) in _PERMUTE:
        return f"call@{e.lineno}:{e.col_offset}"
    d = dotted(e)
    return d if d in perms else None


# random geometric augmentations (torchvision's, albumentations', kornia's): they move the pixels, so an image and
# its mask must be moved by one draw
_GEOMETRIC = re.compile(r"^(?:Random(?:Resized)?Crop|RandomHorizontalFlip|RandomVerticalFlip|RandomRotation|RandomAffine|"
                        r"RandomPerspective|HorizontalFlip|VerticalFlip|Rotate|ShiftScaleRotate|Affine|RandomRotate90|"
                        r"ElasticTransform|GridDistortion|RandomScale|RandomSizedCrop|Flip|Transpose|OpticalDistortion)$")
_MASK_NAME = re.compile(r"mask|seg|gt\b", re.I)   # (not torchvision's target_transform: a class label's)


def _unsynced_augmentation(f: PyFile) -> list[Finding]:
    """An image and its mask (segmentation targets) passed through two transform pipelines, one call each
    (`img = self.img_tf(image=img)`, `mask = self.mask_tf(image=mask)`), where the image's holds a random geometric
    augmentation: flipped or cropped alone (or by a draw of its own), the mask no longer covers the image."""
    pipes: dict[str, list[ast.Call]] = {}      # (a pipeline assigned per branch: train and eval)
    for d, v in f.all_assigns():
        if isinstance(v, ast.Call) and last(v) == "Compose":
            pipes.setdefault(d, []).append(v)
    if len(pipes) < 2:
        return []

    def geometric(vs: list[ast.Call]) -> tuple[list[str], ast.Call | None]:
        for v in vs:
            g = [last(c) for c in f.subtree(v) if isinstance(c, ast.Call) and _GEOMETRIC.match(last(c) or "")]
            if g:
                return g, v
        return [], None
    img: list[tuple[str, list[str], ast.Call]] = []
    for d, vs in pipes.items():
        geo, first = geometric(vs)
        if geo and first is not None and not _MASK_NAME.search(d):
            img.append((d, geo, first))
    masks = [d for d in pipes if _MASK_NAME.search(d)]
    if not img or not masks:
        return []
    applied = {dotted(c.func) for c in f.calls}
    for d, g, v in img:
        m = next((m for m in masks if m in applied and d in applied), None)
        if m is not None:
            call = next(c for c in f.calls if dotted(c.func) == m)
            return [Finding("code:separate_shuffle", STRONG, call.lineno,
                            f"the mask goes through {m} and the image through {d}, which holds {', '.join(g[:3])}: a "
                            "random crop or flip of the image alone (or by a draw of its own) leaves the mask "
                            "covering other pixels; one transform call on image and mask together keeps them paired",
                            [(v.lineno, "the image's random geometric augmentation")])]
    return []


# Two assignments this many lines apart or less are one split of inputs and targets.
_PAIR_LINES = 5


def _pair_key(name: str) -> tuple[str, str] | None:
    """(category, the rest of the name): X_train -> ("x", "_train"), y_train -> ("y", "_train"), labels -> ("y", "")."""
    cat = _category(name)
    if cat is None:
        return None
    m = re.match(r"(?i)(x|y|inputs?|images?|labels?|targets?|features|data_[xy]|train_[xy])(.*)$", name)
    return cat, (m.group(2).lower() if m else "")


def _unpaired_slices(f: PyFile) -> list[Finding]:
    """Inputs and targets cut from their arrays by two different slices next to each other (`X_train =
    X_train[rank::world]`, `y_train = y_train[rank * n:(rank + 1) * n]`): each input keeps another sample's target.
    Only from two different arrays: one series cut twice (`x = s[:-1]`, `y = s[1:]`) is next-step prediction."""
    cuts: list[tuple[int, ast.AST | None, str, str, str, str]] = []
    for n in f.of_type(ast.Assign):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Subscript) and isinstance(n.value.slice, ast.Slice)):
            continue
        base, key = dotted(n.value.value), _pair_key(n.targets[0].id)
        if base and key:
            cuts.append((n.lineno, f.home(n), n.targets[0].id, base, key[0] + "|" + key[1], _slice_sig(n.value)))
    for i, (l1, h1, t1, b1, k1, s1) in enumerate(cuts):
        for l2, h2, t2, b2, k2, s2 in cuts[i + 1:]:
            if l2 - l1 > _PAIR_LINES or h1 is not h2 or b1 == b2 or s1 == s2 or _step_of(s1) == _step_of(s2):
                continue        # (the same stride: a lag, a truncation to the other's length, a train/test cut)
            c1, r1 = k1.split("|")
            c2, r2 = k2.split("|")
            if {c1, c2} == {"x", "y"} and r1 == r2:
                return [Finding("code:separate_shuffle", 0.6, l2,
                                f"{t1} is cut as {b1}[{s1}] and {t2} as {b2}[{s2}]: two different slices, so each input "
                                f"keeps another sample's target", [(l1, f"{t1} cut here")])]
    return []


def check_separate_shuffle(f: PyFile) -> list[Finding]:
    if aug := _unsynced_augmentation(f):
        return aug
    out = _unpaired_slices(f) + _reordered_after_labels(f)
    # a scope without a call this check starts from can only hold sliced loops: only those are read
    # (both found from the file's name and type indexes, then placed in their scopes)
    started = {id(f.home(c)) for c in f.calls_named(*_STARTS)}
    sliced: dict[int, list[ast.AST]] = {}
    for L in f.of_type(*LOOPS):
        if f.holds(L, ast.Slice):
            sliced.setdefault(id(f.home(L)), []).append(L)
    for scope in [f.tree] + f.funcs:
        nodes: list = sorted((n for n in f.in_scope(scope) if isinstance(n, _READ)) if id(scope) in started
                             else sliced.get(id(scope), []), key=lambda n: (n.lineno, n.col_offset))
        shuffles, seeds, perms, indexed = [], [], {}, []
        for n in nodes:
            if isinstance(n, ast.Call):
                leaf, fn = last(n), fname(n)
                if leaf == "shuffle" and len(n.args) == 1 and kwarg(n, "random_state") is None:
                    shuffles.append((n.lineno, dotted(n.args[0]), n))
                elif leaf in ("seed", "manual_seed", "set_state"):
                    seeds.append(n.lineno)
                elif leaf == "shuffle" and "rand" in fn.lower() or leaf in _PERMUTE:
                    # (a `permutation` is numpy's, a Generator's or a RandomState's: random whatever the object's name)
                    p = f.parent.get(n)
                    if isinstance(p, ast.Assign):
                        for t in p.targets:
                            if dotted(t):
                                perms[dotted(t)] = n.lineno
            if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load):
                s = n.slice
                key = _perm_key(s, perms)
                if key is None and isinstance(s, ast.Name):
                    # an element of a comprehension over a permutation: [caps[i] for i in rng.permutation(n)]
                    comp = f.parent.get(n)
                    for g in comp.generators if isinstance(comp, (ast.ListComp, ast.GeneratorExp)) and comp.elt is n \
                            else []:
                        if isinstance(g.target, ast.Name) and g.target.id == s.id:
                            key = _perm_key(g.iter, perms)
                if key:
                    indexed.append((n.lineno, dotted(n.value), key))
        # two arrays shuffled in place one after the other
        for (l1, a, n1), (l2, b, n2) in zip(shuffles, shuffles[1:]):
            if a and b and a != b and not any(l1 < s <= l2 for s in seeds):
                out.append(Finding("code:separate_shuffle", STRONG, l2,
                                   f"{a} and {b} are shuffled by two independent calls: pairs are broken",
                                   [(l1, f"{a} shuffled here")]))
        # one of inputs/targets shuffled, the other not, then paired
        shuffled = {a for _, a, _ in shuffles if a}
        if len(shuffled) == 1:
            (l1, a, n1) = shuffles[0]
            cat = _category(a)
            if cat:
                for n in nodes:
                    if n.lineno <= l1 or not isinstance(n, (ast.Call, ast.Tuple)):
                        continue
                    items = n.args if isinstance(n, ast.Call) else n.elts
                    names = [dotted(x) for x in items]
                    if a in names and any(_category(x) not in (None, cat) and x not in shuffled for x in names):
                        out.append(Finding("code:separate_shuffle", 0.6, l1,
                                           f"only {a} is shuffled, then paired with unshuffled"
                                           f" {next(x for x in names if _category(x) not in (None, cat))}",
                                           [(n.lineno, "paired here")]))
                        break
        # arrays indexed by different permutations
        by_base: dict[str, set[str]] = {}
        for line, base, key in indexed:
            if base:
                by_base.setdefault(base, set()).add(key)
        xs = [(b, k) for b, ks in by_base.items() for k in ks if _category(b) == "x"]
        ys = [(b, k) for b, ks in by_base.items() for k in ks if _category(b) == "y"]
        if xs and ys and not ({k for _, k in xs} & {k for _, k in ys}):
            line = max(l for l, base, _ in indexed if base in (xs[0][0], ys[0][0]))
            out.append(Finding("code:separate_shuffle", STRONG, line,
                               f"{xs[0][0]} and {ys[0][0]} are indexed by different random permutations"))
        elif bool(xs) != bool(ys):
            # only one side permuted while the other side is used unpermuted in the same function
            side, other = (xs, "y") if xs else (ys, "x")
            line = min(l for l, base, _ in indexed if base == side[0][0])
            partner = next((n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)
                            and n.lineno >= line and _category(n.id) == other), None)
            if partner is not None:
                out.append(Finding("code:separate_shuffle", 0.6, line,
                                   f"{side[0][0]} is reordered by a random permutation but {partner} is not:"
                                   " inputs and targets no longer match"))
        # zip with an offset / batches sliced with different offsets
        for n in nodes:
            if isinstance(n, ast.Call) and fname(n) == "zip" and len(n.args) == 2:
                a, b = n.args
                ba, bb = dotted(core(a)), dotted(core(b))
                if ba and bb and ba != bb and _slice_sig(a) != _slice_sig(b) and {_category(ba), _category(bb)} == {"x", "y"}:
                    out.append(Finding("code:separate_shuffle", 0.6, n.lineno,
                                       f"zip({src(a)}, {src(b)}) pairs inputs and targets with an offset"))
        for L in (n for n in nodes if isinstance(n, LOOPS) and f.holds(n, ast.Slice)):
            sl = [(s.lineno, dotted(s.value), _slice_sig(s)) for s in f.within(L)
                  if isinstance(s, ast.Subscript) and isinstance(s.slice, ast.Slice) and isinstance(s.ctx, ast.Load)]
            xs_ = [x for x in sl if _category(x[1]) == "x"]
            ys_ = [y for y in sl if _category(y[1]) == "y"]
            if xs_ and ys_ and not ({x[2] for x in xs_} & {y[2] for y in ys_}):
                out.append(Finding("code:separate_shuffle", 0.6, ys_[0][0],
                                   f"{ys_[0][1]} is sliced with a different offset than {xs_[0][1]}: each input gets"
                                   " another sample's target", [(xs_[0][0], "inputs sliced here")]))
    # one finding per line
    uniq = {}
    for x in out:
        uniq.setdefault(x.line, x)
    return list(uniq.values())


def _step_of(sig: str) -> str:
    """The step of a slice's source text ("rank::world_size" -> "world_size", "a:b" -> ""): two cuts of one stride
    keep their pairing or shift it by a constant; a stride beside a block does not."""
    parts = sig.split(":")
    return parts[2] if len(parts) == 3 else ""


def _slice_sig(e: ast.AST) -> str:
    if isinstance(e, ast.Subscript):
        return src(e.slice).replace(" ", "")
    return ":"


# Calls that re-order a frame's rows (pandas): a shuffle by sample(frac=1) (or a sample of n rows), a sort
_REORDER = frozenset({"sample", "sort_values", "sort_index"})
# ... a label-named value that is a summary of the column, not a label per row (the last call it is made by)
_SUMMARIES = frozenset({"unique", "value_counts", "nunique", "mean", "sum", "max", "min", "count",
                        "sorted", "set", "list", "len"})


def _columns_axis(c: ast.Call) -> bool:
    """The call works on the columns (`sort_index(axis=1)`): the rows keep their order."""
    ax = kwarg(c, "axis")
    return ax is not None and (const(ax) in (1, -1, "columns"))


def _chain_calls(e: ast.AST) -> tuple[str | None, list[ast.Call]]:
    """(the name a method chain starts from, its calls): `feats.sample(frac=1).reset_index(drop=True)` ->
    ("feats", [reset_index(...), sample(...)])."""
    calls: list[ast.Call] = []
    while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        calls.append(e)
        e = e.func.value
    return (e.id if isinstance(e, ast.Name) else None), calls


def _reordered_after_labels(f: PyFile) -> list[Finding]:
    """A frame re-ordered in place (`T = T.sample(frac=1)...`, `T = T.sort_values(...)`) after a label-named array was
    taken from T or from a frame T was made from (`T = raw.drop(...)`), and the labels never assigned again: features
    and labels are then paired by row position, each in another order."""
    out: list[Finding] = []
    # (module and function names are in every expression: `pd.get_dummies(feats)` makes feats from feats, not from pd)
    bound = {(a.asname or a.name).split(".")[0] for n in ast.walk(f.tree) if isinstance(n, (ast.Import, ast.ImportFrom))
             for a in n.names} | {getattr(d, "name", "") for d in f.funcs}
    for scope in [f.tree] + f.funcs:
        assigns = sorted((n for n in f.scope_nodes_of(scope, ast.Assign)), key=lambda n: n.lineno)
        for n in assigns:
            if len(n.targets) != 1 or not isinstance(n.targets[0], ast.Name):
                continue
            t = n.targets[0].id
            base, calls = _chain_calls(n.value)
            if base != t or not any(last(c) in _REORDER and not _columns_axis(c) for c in calls):
                continue
            origins = {t} | {x.id for a in assigns if a.lineno < n.lineno and any(
                isinstance(tg, ast.Name) and tg.id == t for tg in a.targets)
                for x in ast.walk(a.value) if isinstance(x, ast.Name) and x.id != t and x.id not in bound}
            for a in assigns:
                if a.lineno >= n.lineno:
                    break
                names = [tg.id for tg in a.targets if isinstance(tg, ast.Name) and _category(tg.id) == "y"]
                if not names or not any(isinstance(x, ast.Name) and x.id in origins for x in ast.walk(a.value)) \
                        or isinstance(a.value, ast.Call) and last(a.value) in _SUMMARIES:
                    continue        # (a summary of the column, `classes = sorted(df.label.unique())`: no row's label)
                lab = names[0]
                if not any(isinstance(x, ast.Name) and x.id == lab and isinstance(x.ctx, ast.Load)
                           and getattr(x, "lineno", 0) > n.lineno for x in ast.walk(scope)):
                    continue        # (never read after the re-order: the labels used are taken again, under another name)
                if any(b.lineno > n.lineno and isinstance(x, ast.Name) and x.id == lab and isinstance(x.ctx, ast.Store)
                       for b in assigns for tg in b.targets for x in ast.walk(tg)):
                    continue        # the labels taken again after the re-order
                out.append(Finding("code:separate_shuffle", STRONG, n.lineno,
                                   f"`{t}` is re-ordered here ({src(n.value)[:60]}) after `{lab}` was taken (line "
                                   f"{a.lineno}): the labels keep the old row order, so features and labels are "
                                   "paired by position with the wrong rows", [(a.lineno, f"`{lab}` taken here, before")]))
                return out
    return out

