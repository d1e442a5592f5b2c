"""`code:val_overlaps_train`, `code:target_in_features`: data leaks the split cannot see.

In:  one parsed file.
Out: `check_leakage(f)` -> Findings.

val_overlaps_train, inside one function (or the module body):
- rows oversampled (fit_resample, resample) before the train_test_split that takes the resampled arrays, or
- a fit call validated on its training data (Keras `validation_data=(x_train, y_train)`, Lightning
  `trainer.fit(model, train_loader, train_loader)`), or
- a validation/test-named target bound to a training-named object (`val_ds = train_ds`,
  `val_loader = DataLoader(train_ds)`, `val_ds = Subset(train_ds, ...)`), or
- a validation-named target that takes rows of an array (`x_val = x[:n_val]`) whose rows also
  reach training: the same array passed whole or with an overlapping slice to a Dataset/Loader
  or bound to a training-named target. `x[:n]` vs `x[n:]` (same bound) is a clean split; or
- a validation-named target picked from an array by an index (`X_val = X[val_idx]`) while a training-named
  set takes that array whole and is not cut later (an index beside it, a sampler, a Subset), or
- rows copied (noise added, flipped, tiled or repeated along the rows) into an array that a random split then
  cuts (train_test_split / random_split of it, or `X[p[:n]]` and `X[p[n:]]` of one permutation).
target_in_features: a label taken as a column of an array (`y = arr[:, -1]`) while the features
take a column range of the same array that contains that column (`x = arr[:, 1:]`), or a pandas
frame whose label column is not among the dropped ones (`y = df["label"]`, `X = df.drop(columns=["id"])`); or a
sliding window whose input slice holds the step it predicts (`X.append(s[t - w + 1 : t + 1])` beside
`y.append(s[t])` in one loop over t).
"""
from __future__ import annotations

import ast
import re

from mltdbg.analyzers.code.config_values import target_name
from mltdbg.analyzers.code.index import (
    STRONG,
    Finding,
    PyFile,
    const,
    dotted,
    kwarg,
    last,
    recv,
    src,
)

_VAL = re.compile(r"(^|_)(val|valid|validation|dev|test|eval|holdout)(_|$|\d)|^(xv|yv|x_v|y_v|xval|yval|xtest|ytest)$",
                  re.IGNORECASE)
_TRAIN = re.compile(r"(^|_)(train|training|trn)(_|$|\d)|^(xtrain|ytrain|xtr|ytr)$", re.IGNORECASE)
_LABEL = re.compile(r"^(y|ys|labels?|targets?|classes|y_\w+|\w+_labels?|\w+_targets?|\w+_y)$", re.IGNORECASE)
_FEATURE = re.compile(r"^(x|xs|features?|feats|inputs?|data_x|x_\w+|\w+_features?|\w+_x|\w+_inputs?)$", re.IGNORECASE)
_SINKS = re.compile(r"Dataset$|Loader$|^Subset$|^fit$|^train\w*$|^make_loader$", re.IGNORECASE)


def check_leakage(f: PyFile) -> list[Finding]:
    out: list[Finding] = []
    scopes = [f.tree] + list(f.funcs)
    for scope in scopes:
        out += _val_overlaps(f, scope)
        out += _target_in_features(f, scope)
        out += _window_holds_target(f, scope)
    out += _validates_on_train(f)
    out += _oversampled_before_split(f)
    for scope in scopes:
        out += _copies_before_split(f, scope)
    return out


# Resamplers that copy rows (imblearn's oversamplers and SMOTE family, sklearn's resample with replace=True), and
# the user's own helpers that multiply rows (`augment_dataset(X, y, n_copies=5)`: flipped copies of each image)
_OVERSAMPLERS = re.compile(r"fit_resample|fit_sample|^resample$|^upsample|oversampl|augment", re.I)
# ... not those that drop rows (imblearn's under-samplers, sklearn's resample without replacement)
_UNDERSAMPLERS = re.compile(r"Under|NearMiss|Tomek|EditedNearest|ClusterCentroids|OneSided|replace\s*=\s*False")
# ... and a sample drawn with replacement (pandas' `df.sample(n=4000, replace=True)`, a bootstrap): rows repeat in it
_BOOTSTRAP_ON = re.compile(r"replace\s*=\s*True")


def _oversampled_before_split(f: PyFile) -> list[Finding]:
    """Rows oversampled or augmented (copied, flipped, synthesised from their neighbours) before the train/validation
    split: copies of one row land on both sides, and validation scores rows training has seen (AUC 0.99 locally,
    0.61 on the leaderboard). The resampler's output must reach the split: the split call's first argument is a
    name the resample call assigned."""
    out = []
    for c in f.calls:
        if not (_OVERSAMPLERS.search(last(c)) or last(c) == "sample" and _BOOTSTRAP_ON.search(src(c))) \
                or _UNDERSAMPLERS.search(src(c)):
            continue
        parent = f.parent.get(c)
        while isinstance(parent, (ast.Attribute, ast.Call)):     # (a chain after it: `df.sample(...).reset_index()`)
            parent = f.parent.get(parent)
        if not isinstance(parent, ast.Assign):
            continue
        names = {d for t in parent.targets for e in (t.elts if isinstance(t, ast.Tuple) else [t]) if (d := dotted(e))}
        for s in f.calls_in(f.scope_of(c)):
            if s.lineno > c.lineno and last(s) == "train_test_split" and s.args and dotted(s.args[0]) in names:
                out.append(Finding("code:val_overlaps_train", STRONG, s.lineno,
                                   f"the rows are oversampled ({src(c)[:50]}) before this split: copies of one row land in "
                                   "both training and validation, and validation scores rows training has seen",
                                   [(c.lineno, "oversampling before the split")]))
                return out
    return out


# Calls that stack arrays' rows (the first axis by default), and those that repeat one array's rows
_STACK_ROWS = frozenset({"concatenate", "vstack", "row_stack", "cat", "concat"})
_REPEAT_ROWS = frozenset({"tile", "repeat", "repeat_interleave"})
_PERMUTES = frozenset({"permutation", "randperm", "shuffle"})
_SPLITS = frozenset({"train_test_split", "random_split"})


def _names(e: ast.AST | None) -> set[str]:
    return {d for n in ast.walk(e) if isinstance(n, (ast.Name, ast.Attribute)) and (d := dotted(n))} if e is not None else set()


def _copy_of(e: ast.AST | None) -> set[str]:
    """The arrays whose rows `e` carries: a bare name, arithmetic on it (`X + noise`, `-X`), a call that takes it as its
    first argument or is a method of it (`np.flip(X, 2)`, `X.clone()`, `augment(X)`); not `len(X)`, `X.shape` or a
    new array of its size (`np.random.randn(*X.shape)`)."""
    if e is None:
        return set()
    if isinstance(e, (ast.Name, ast.Attribute)):
        d = dotted(e)
        return {d} if d and not (isinstance(e, ast.Attribute) and e.attr in ("shape", "size", "dtype", "ndim", "T")) else set()
    if isinstance(e, ast.BinOp):
        return _copy_of(e.left) | _copy_of(e.right)
    if isinstance(e, ast.UnaryOp):
        return _copy_of(e.operand)
    if isinstance(e, ast.Subscript):
        return _copy_of(e.value)
    if isinstance(e, ast.Call) and last(e) not in ("len", "zeros_like", "ones_like", "empty_like", "randn_like", "rand_like"):
        inner = e.args[0] if e.args and not isinstance(e.args[0], ast.Starred) else None
        if inner is None and isinstance(e.func, ast.Attribute):
            inner = e.func.value
        return _copy_of(inner)
    return set()


def _bound_before(f: PyFile, scope: ast.AST, name: str, line: int) -> ast.AST | None:
    """The value last bound to `name` in scope on a line before `line`, tuple targets unpacked (`xs, ys = [x], [y]`
    binds xs to `[x]`; PyFile.value_of gives the whole tuple)."""
    return next((v for n in reversed(f.scope_nodes_of(scope, ast.Assign)) if n.lineno < line
                 for t, v in _pairs(n) if t == name), None)


def _copied_from(f: PyFile, scope: ast.AST, call: ast.Call) -> str | None:
    """The array whose rows `call` stacks more than once: `concatenate([X, X + noise])`, `concatenate(parts)` of a
    list started as `[X]` and appended copies of X in a loop, `cat([x, x_aug])` with `x_aug = flip(x)`, `tile(X, (5, 1))`,
    `X.repeat(5, axis=0)`; None when it stacks other arrays or along another axis."""
    leaf = last(call)
    axis = kwarg(call, "axis") or kwarg(call, "dim")
    if axis is None and leaf in _STACK_ROWS and len(call.args) > 1:
        axis = call.args[1]
    if axis is not None and const(axis) != 0:
        return None
    if leaf in _REPEAT_ROWS:
        owner = dotted(recv(call)) if isinstance(call.func, ast.Attribute) else None
        module = owner in (None, "np", "numpy", "torch")
        base = (dotted(call.args[0]) if call.args else None) if module else owner
        reps = call.args[1:2] if module else call.args[:1]
        if leaf == "tile":       # (the first axis's reps: np.tile(imgs, (1, 3, 1, 1)) copies channels, not rows)
            first = reps[0].elts[0] if reps and isinstance(reps[0], ast.Tuple) and reps[0].elts else reps[0] if reps else None
            return base if first is not None and const(first) != 1 else None
        return base if axis is not None else None       # (without an axis, a repeat flattens: elements, not rows)
    if leaf not in _STACK_ROWS or not call.args:
        return None
    first = call.args[0]

    def holds(e: ast.AST, base: str) -> bool:      # e is a copy of base's rows (itself, or a name bound to one)
        got = _copy_of(e)
        return base in got or any(base in _copy_of(f.value_of(n, scope, call.lineno)) for n in got if n != base)

    if isinstance(first, (ast.List, ast.Tuple)) and len(first.elts) >= 2:
        base = dotted(first.elts[0])
        return base if base and all(holds(e, base) for e in first.elts[1:]) else None
    if isinstance(first, ast.Name):
        start = _bound_before(f, scope, first.id, call.lineno)
        if isinstance(start, ast.List) and len(start.elts) == 1 and (base := dotted(start.elts[0])):
            grown = [c for c in f.calls_in(scope) if last(c) in ("append", "extend") and c.lineno < call.lineno
                     and isinstance(c.func, ast.Attribute) and dotted(c.func.value) == first.id and c.args and holds(c.args[0], base)]
            return base if grown else None
    return None


def _cut(f: PyFile, scope: ast.AST, e: ast.AST, line: int) -> tuple[str, str | None, str | None] | None:
    """(permutation, lower, upper) of an index that is a slice of a permutation, directly (`idx[:n]`) or by a name bound
    to one (`tr = idx[:n]`, `tr, va = idx[:n], idx[n:]`): the two sides of a split are `p[:n]` and `p[n:]`."""
    if isinstance(e, ast.Name):
        bound = _bound_before(f, scope, e.id, line + 1)
        if bound is None:
            return None
        e = bound
    r = _rows(e)
    return r if r is not None and (r[1] is None) != (r[2] is None) else None


def _copies_before_split(f: PyFile, scope: ast.AST) -> list[Finding]:
    """Rows copied (augmented with noise, flipped, tiled) into the array that a random split then cuts into training
    and validation: copies of one sample land on both sides, and validation scores near-copies of training rows
    (val accuracy that follows train to 1.0 while new data scores far lower). The split: train_test_split /
    random_split of the array, or two different random index sets taken from it (`X[idx[:n]]`, `X[idx[n:]]`)."""
    out: list[Finding] = []
    calls = f.calls_in(scope)
    stacked = []
    for n in f.scope_nodes_of(scope, ast.Assign):
        if isinstance(n.value, ast.Call) and (base := _copied_from(f, scope, n.value)):
            stacked += [(d, n.lineno, base) for t in n.targets if (d := dotted(t))]
    if not stacked:
        return out
    # names holding a random order of the rows (or part of one): idx = permutation(n); tr = idx[:k]
    perm: set[str] = {dotted(c.args[0]) or "" for c in calls if last(c) == "shuffle" and c.args}
    assigns = f.assigns(scope)
    for name, vals in assigns.items():
        if any(isinstance(v, ast.Call) and last(v) in _PERMUTES for _, v in vals):
            perm.add(name)
    grew = True
    while grew:
        grew = False
        for name, vals in assigns.items():
            if name not in perm and any(isinstance(v, (ast.Subscript, ast.Tuple)) and _names(v) & perm for _, v in vals):
                perm.add(name)
                grew = True
    perm.discard("")
    for name, line, base in stacked:
        split = next((c for c in calls if c.lineno > line and last(c) in _SPLITS and c.args and dotted(c.args[0]) == name), None)
        where = split.lineno if split is not None else None
        if where is None:
            picks = [s for s in f.scope_nodes_of(scope, ast.Subscript)
                     if s.lineno > line and dotted(s.value) == name and _names(s.slice) & perm]
            cuts = {c for s in picks if (c := _cut(f, scope, s.slice, s.lineno)) is not None}
            if any((a, hi, None) in cuts for a, lo, hi in cuts if lo is None and hi is not None):
                where = min(s.lineno for s in picks)
        if where is not None:
            out.append(Finding("code:val_overlaps_train", STRONG, where,
                               f"the rows of `{base}` are copied into `{name}` (line {line}) before this random split: "
                               "copies of one sample land in both training and validation, and validation scores "
                               "near-copies of rows training has seen", [(line, "the rows are copied here")],
                               {"array": name}))
    return out


def _validates_on_train(f: PyFile) -> list[Finding]:
    """A fit call validated on what it trains on: Keras `fit(x_train, y_train, validation_data=(x_train, y_train))`
    or `fit(train_ds, validation_data=train_ds)` (the same inputs, or training-named ones), Lightning
    `trainer.fit(model, train_loader, train_loader)`."""
    out: list[Finding] = []
    for c in f.calls_named("fit"):
        vd = kwarg(c, "validation_data")
        if vd is not None:       # Keras: a tuple (x, y) or a dataset, beside the fit's x
            line = vd.lineno
            val = dotted(vd.elts[0] if isinstance(vd, ast.Tuple) and vd.elts else vd) or ""
            train = dotted(c.args[0] if c.args else kwarg(c, "x")) or ""
        else:                    # Lightning: fit(model, train_loader, val_loader), or the keywords
            line = c.lineno
            train, val = (dotted(a) or "" for a in (c.args[1:3] if len(c.args) >= 3 else
                                                    (kwarg(c, "train_dataloaders"), kwarg(c, "val_dataloaders"))))
        same = bool(val) and val == train
        if same or (val and _TRAIN.search(val.rsplit(".", 1)[-1]) and not _VAL.search(val.rsplit(".", 1)[-1])):
            out.append(Finding("code:val_overlaps_train", STRONG, line,
                               f"the fit validates on `{val}`, which it also trains on: validation scores measure "
                               "samples the model trained on", data={"val": val}))
    return out


# ---------------------------------------------------------------- validation rows that training also sees

def _pairs(n: ast.Assign) -> list[tuple[str, ast.AST]]:
    """(target name, value) of an assignment, tuples unpacked element-wise."""
    out = []
    for t in n.targets:
        if isinstance(t, ast.Tuple) and isinstance(n.value, ast.Tuple) and len(t.elts) == len(n.value.elts):
            out += [(target_name(a), b) for a, b in zip(t.elts, n.value.elts)]
        else:
            out.append((target_name(t), n.value))
    return out


def _rows(e: ast.AST) -> tuple[str, str | None, str | None] | None:
    """(array, lower, upper) when e takes a slice of rows `a[lo:hi]` (first axis); None otherwise."""
    while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr in (
            "float", "long", "to", "clone", "copy", "numpy", "astype", "contiguous"):
        e = e.func.value
    if not isinstance(e, ast.Subscript):
        return None
    base = dotted(e.value)
    sl = e.slice.elts[0] if isinstance(e.slice, ast.Tuple) and e.slice.elts else e.slice
    if not base or not isinstance(sl, ast.Slice) or sl.step is not None:
        return None
    return base, (src(sl.lower) if sl.lower is not None else None), (src(sl.upper) if sl.upper is not None else None)


def _disjoint(a: tuple[str | None, str | None], b: tuple[str | None, str | None]) -> bool:
    """Two row slices of one array with a shared bound that do not overlap: [:n] and [n:] (or -n)."""
    (alo, ahi), (blo, bhi) = a, b
    return (alo is None and ahi is not None and ahi == blo and bhi is None) or \
           (blo is None and bhi is not None and bhi == alo and ahi is None)


def _val_overlaps(f: PyFile, scope: ast.AST) -> list[Finding]:
    nodes = f.in_scope(scope)
    assigns = f.scope_nodes_of(scope, ast.Assign)
    out: list[Finding] = []
    val_rows: list[tuple[str, str, tuple, int]] = []     # (val name, array, (lo, hi), line)
    for n in assigns:
        for name, value in _pairs(n):
            if not name or not _VAL.search(name) or _TRAIN.search(name):
                continue
            # bound to a training object, directly or through a wrapper
            inner = value.args[0] if isinstance(value, ast.Call) and value.args else value
            src_name = (dotted(inner) or "").rsplit(".", 1)[-1]
            if src_name and _TRAIN.search(src_name) and (inner is value or _SINKS.search(last(value))):
                out.append(Finding("code:val_overlaps_train", STRONG, n.lineno,
                                   f"`{name}` is built from the training data `{src(inner)}`: validation scores "
                                   "measure samples the model trained on", data={"val": name, "train": src(inner)}))
                continue
            r = _rows(value)
            if r is not None:
                val_rows.append((name, r[0], (r[1], r[2]), n.lineno))
            elif (pick := _picked(value)) is not None:
                out += _picked_from_trained(f, scope, assigns, name, pick, n.lineno)
    if not val_rows:
        return out
    uses = _train_uses(f, scope, nodes, {v[0] for v in val_rows})
    for name, base, sl, line in val_rows:
        for ubase, usl, uline in uses:
            if ubase != base:
                continue
            if usl is not None and _disjoint(sl, usl):
                continue
            how = "whole" if usl is None else f"rows [{usl[0] or ''}:{usl[1] or ''}]"
            out.append(Finding("code:val_overlaps_train", STRONG, line,
                               f"`{name}` takes rows [{sl[0] or ''}:{sl[1] or ''}] of `{base}`, and training uses "
                               f"`{base}` {how} (line {uline}): every validation sample is also a training sample",
                               [(uline, "training uses the same rows here")], {"val": name, "array": base}))
            break
    return out


# Calls that only convert an array (its rows stay the same rows)
_CONVERTS = frozenset({"from_numpy", "tensor", "as_tensor", "asarray", "array", "FloatTensor", "LongTensor", "Tensor"})


def _unwrap(e: ast.AST) -> ast.AST:
    while isinstance(e, ast.Call) and last(e) in _CONVERTS and len(e.args) == 1:
        e = e.args[0]
    return e


def _picked(e: ast.AST) -> tuple[str, str] | None:
    """(array, index) when e takes rows of an array by an index array or a mask (`X[val_idx]`, `x[perm[:n]]`)."""
    e = _unwrap(e)
    if not isinstance(e, ast.Subscript) or isinstance(e.slice, (ast.Slice, ast.Tuple, ast.Constant)):
        return None
    base = dotted(e.value)
    return (base, src(e.slice)) if base else None


_INDEXISH = re.compile(r"idx|index|indices|perm|split|mask|fold|ids$", re.I)


def _cut_later(f: PyFile, scope: ast.AST, base: str, tname: str, args: list[ast.AST], pick: int, use: int) -> bool:
    """Whether the whole-array training set is cut to its training rows after all: an index handed beside the array
    (`WindowDataset(X, train_idx)`), the set handed to a sampler or a Subset (`DataLoader(train_set,
    sampler=SubsetRandomSampler(train_idx))`), or the validation rows dropped from the array in place in between
    (`df.drop(val_df.index, inplace=True)`)."""
    if any(_INDEXISH.search(n) for a in args if dotted(_unwrap(a)) != base for n in _names(a)):
        return True
    for c in f.calls_in(scope):
        if c.lineno >= use and any(dotted(a) == tname for a in c.args) and (
                last(c) == "Subset" or any(k.arg in ("sampler", "batch_sampler") for k in c.keywords)):
            return True
        if pick <= c.lineno <= use and isinstance(c.func, ast.Attribute) and dotted(c.func.value) == base \
                and const(kwarg(c, "inplace")) is True:
            return True
    return False


def _picked_from_trained(f: PyFile, scope: ast.AST, assigns: list[ast.Assign], name: str, pick: tuple[str, str],
                         line: int) -> list[Finding]:
    """A validation set picked from an array by an index (`X_val = X[val_idx]`) while a training-named object takes
    that array whole (`train_ds = TensorDataset(torch.from_numpy(X), ...)`, `X_train = X`): every validation row is
    trained on. Only a training-named target counts here (a neutral `full_ds = TensorDataset(X)` is usually cut by
    Subset later), and only while the array is the one picked from (`X, Xv = X[~is_val], X[is_val]` rebinds X to
    the training rows)."""
    base, idx = pick
    for n in assigns:
        for tname, value in _pairs(n):
            if not tname or not _TRAIN.search(tname) or _VAL.search(tname):
                continue
            args: list[ast.AST] = [value]
            if isinstance(value, ast.Call) and _SINKS.search(last(value)):
                args = [*value.args, *(k.value for k in value.keywords if k.arg in ("dataset", "x", "X", "data"))]
            if any(dotted(_unwrap(a)) == base for a in args) and not f.assigns_between(scope, base, line - 1, n.lineno) \
                    and not _cut_later(f, scope, base, tname, args, line, n.lineno):
                return [Finding("code:val_overlaps_train", STRONG, line,
                                f"`{name}` takes rows {base}[{idx}] of `{base}`, and `{tname}` trains on `{base}` whole "
                                f"(line {n.lineno}): every validation sample is also a training sample",
                                [(n.lineno, "training takes the whole array here")], {"val": name, "array": base})]
    return []


def _train_uses(f: PyFile, scope: ast.AST, nodes: list[ast.AST], val_names: set[str]) -> list[tuple[str, tuple | None, int]]:
    """(array, row slice or None for whole, line) of arrays that reach training in a scope."""
    out = []

    def add(e: ast.AST, line: int) -> None:
        r = _rows(e)
        if r is not None:
            out.append((r[0], (r[1], r[2]), line))
        elif isinstance(e, (ast.Name, ast.Attribute)) and dotted(e):
            out.append((dotted(e), None, line))

    for n in nodes:
        if isinstance(n, ast.Call) and _SINKS.search(last(n)):
            args = list(n.args) + [k.value for k in n.keywords if k.arg in ("dataset", "x", "X", "y", "data")]
            names = {target_name(a) for a in args}
            if names & val_names or any(_VAL.search(x) for x in names if x):
                continue     # this is the validation dataset itself
            p = f.parent.get(n)
            if isinstance(p, ast.Assign) and any(_VAL.search(target_name(t) or "") for t in p.targets):
                continue
            for a in args:
                add(a, n.lineno)
        elif isinstance(n, ast.Assign):
            for name, value in _pairs(n):
                if name and _TRAIN.search(name) and not _VAL.search(name):
                    add(value, n.lineno)
    return out


# ---------------------------------------------------------------- the label among the features

def _column(e: ast.AST) -> tuple[str, ast.AST] | None:
    """(array, column index-or-slice node) of `a[:, c]` / `a[..., c]` inside e (first found)."""
    for n in ast.walk(e):
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Tuple) and len(n.slice.elts) == 2:
            rows, col = n.slice.elts
            if (isinstance(rows, ast.Slice) and rows.lower is None and rows.upper is None) or \
                    (isinstance(rows, ast.Constant) and rows.value is Ellipsis):
                base = dotted(n.value)
                if base:
                    return base, col
    return None


def _holds(col: ast.AST, c: int) -> bool | None:
    """Whether a column slice `a:b` holds column c (negative counts from the end); None when unknown."""
    if not isinstance(col, ast.Slice) or col.step is not None:
        return None
    lo = const(col.lower) if col.lower is not None else None
    hi = const(col.upper) if col.upper is not None else None
    if (lo is not None and not isinstance(lo, int)) or (hi is not None and not isinstance(hi, int)):
        return None
    if c < 0:
        if lo is not None and lo >= 0 and hi is None:
            return True
        if lo is not None and lo < 0 and lo > c:
            return False
        if hi is not None and hi >= 0:
            return None     # (0:4 against -1: depends on the width)
        return hi is None or (hi < 0 and c < hi)
    if (lo or 0) < 0 or (hi is not None and hi < 0):
        return None         # (:-1 against 0: depends on the width)
    return (lo or 0) <= c and (hi is None or (hi >= 0 and c < hi))


def _target_in_features(f: PyFile, scope: ast.AST) -> list[Finding]:
    labels: list[tuple[str, str, object, int]] = []      # (label name, array, column int or key, line)
    feats: list[tuple[str, ast.AST, int]] = []
    popped: set[str] = {const(n.args[0]) for n in f.calls_in(scope)
                        if last(n) == "pop" and n.args and isinstance(const(n.args[0]), str)}
    for n in f.scope_nodes_of(scope, ast.Assign):
        for name, value in _pairs(n):
            if not name:
                continue
            if _LABEL.search(name):
                col = _column(value)
                if col is not None and isinstance(const(col[1]), int):
                    labels.append((name, col[0], const(col[1]), n.lineno))
                key = _frame_key(value)
                if key is not None:
                    labels.append((name, key[0], key[1], n.lineno))
            elif _FEATURE.search(name):
                feats.append((name, value, n.lineno))
    out: list[Finding] = []
    for lname, base, c, lline in labels:
        for fname_, value, fline in feats:
            hit = None
            if isinstance(c, int):
                col = _column(value)
                if col is not None and col[0] == base and _holds(col[1], c):
                    hit = f"`{fname_}` takes columns [{src(col[1])}] of `{base}`, which include the label column {c}"
            elif c not in popped:
                dropped = _dropped(value, base)
                if dropped is not None and c not in dropped:
                    hit = (f"`{fname_}` is `{base}` without {sorted(dropped) or 'any column'}, so it still holds the "
                           f"label column '{c}'")
            if hit:
                out.append(Finding("code:target_in_features", STRONG, fline,
                                   hit + f" (`{lname}`, line {lline}): the model reads the answer from its input",
                                   [(lline, f"label `{lname}` taken here")], {"label": lname, "features": fname_}))
                break
    return out


def _frame_key(e: ast.AST) -> tuple[str, str] | None:
    """(frame, column) of `df["label"]` / `df["label"].values` / `df.label.to_numpy()`."""
    while isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute):
        e = e.func.value
    while isinstance(e, ast.Attribute) and e.attr in ("values", "to_numpy", "array"):
        e = e.value
    if isinstance(e, ast.Subscript) and isinstance(const(e.slice), str):
        base = dotted(e.value)
        return (base, const(e.slice)) if base and re.search(r"df|frame|data|table", base, re.IGNORECASE) else None
    return None


def _dropped(e: ast.AST, frame: str) -> set[str] | None:
    """Columns dropped from `frame` in e (`frame.drop(columns=[...])`, `frame.drop([...], axis=1)`);
    None when e is not a drop of that frame."""
    for n in ast.walk(e):
        if isinstance(n, ast.Call) and last(n) == "drop" and isinstance(n.func, ast.Attribute) \
                and dotted(n.func.value) == frame:
            cols = kwarg(n, "columns")
            if cols is None and n.args and (const(kwarg(n, "axis")) in (1, "columns")):
                cols = n.args[0]
            v = const(cols) if cols is not None else None
            if isinstance(v, str):
                return {v}
            if isinstance(v, (list, tuple)) and all(isinstance(x, str) for x in v):
                return set(v)
            return None
    return None


def _key(e: ast.AST | None) -> str | None:
    return ast.dump(e) if e is not None else None


def _plus_one(e: ast.AST | None) -> ast.AST | None:
    """`e` for `e + 1` (or `1 + e`), else None."""
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        if const(e.right) == 1:
            return e.left
        if const(e.left) == 1:
            return e.right
    return None


def _in_window(idx: ast.AST, sl: ast.Slice) -> bool:
    """`idx` is the slice's first element (`s[t : t + w]` and `s[t]`) or its last (`s[.. : t + 1]` and `s[t]`,
    `s[.. : i + w]` and `s[i + w - 1]`), read from the expressions as written."""
    k = _key(idx)
    if sl.lower is not None and k == _key(sl.lower):
        return True
    if (u := _plus_one(sl.upper)) is not None and k == _key(u):
        return True
    return (isinstance(idx, ast.BinOp) and isinstance(idx.op, ast.Sub) and const(idx.right) == 1
            and sl.upper is not None and _key(idx.left) == _key(sl.upper))


def _window_holds_target(f: PyFile, scope: ast.AST) -> list[Finding]:
    """A sliding window of a series that includes the step it is to predict: in one loop, the inputs take a slice of an
    array (`X.append(series[t - w + 1 : t + 1])`) and the target an element of the same array (`y.append(series[t])`)
    that lies inside that slice (the slice starts at it, or ends one past it). The model reads the answer from its
    window: validation error far below a persistence baseline from the first epoch."""
    out: list[Finding] = []
    for loop in f.scope_nodes_of(scope, ast.For):
        bound: dict[str, ast.AST] = {}      # names bound in the loop to a subscript (`x_win = s[t - w : t + 1]`)
        slices: list[tuple[str, ast.AST, ast.Slice, ast.AST | None, int]] = []
        picks: list[tuple[str, ast.AST, ast.AST | None, int]] = []
        for n in (x for stmt in loop.body for x in ast.walk(stmt)):
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                    and isinstance(n.value, ast.Subscript):
                bound[n.targets[0].id] = n.value
            if not (isinstance(n, ast.Call) and last(n) == "append" and len(n.args) == 1
                    and isinstance(n.func, ast.Attribute)):
                continue
            arg: ast.AST = n.args[0]
            arg = bound.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
            if not isinstance(arg, ast.Subscript) or not (base := dotted(arg.value)):
                continue
            elts = arg.slice.elts if isinstance(arg.slice, ast.Tuple) else [arg.slice]
            if not elts:
                continue
            idx, cols = elts[0], (elts[1] if len(elts) > 1 else None)       # (rows, and the columns of a 2-d pick)
            who = dotted(n.func.value) or ""
            if isinstance(idx, ast.Slice):
                slices.append((who, arg.value, idx, cols, n.lineno))
            elif _LABEL.search(who):
                picks.append((base, idx, cols, n.lineno))
        for who, arr, sl, wcols, line in slices:
            if not _FEATURE.search(who):
                continue
            for base, pick, pcol, pline in picks:
                if base != dotted(arr):
                    continue
                c = const(pcol) if pcol is not None else None
                if wcols is not None and isinstance(c, int) and _holds(wcols, c) is False:
                    continue        # (the window's columns leave the target's out: data[i:i + w, :-1] and data[.., -1])
                if _in_window(pick, sl):
                    out.append(Finding("code:target_in_features", STRONG, line,
                                       f"the input window `{src(sl)}` of `{base}` holds element [{src(pick)}], the target "
                                       f"taken on line {pline}: the model reads the value it is to predict from its input",
                                       [(pline, "the target, inside the window")], {"label": base, "features": who}))
                    return out
    return out

