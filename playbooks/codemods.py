"""Mechanical fixes as unified diffs. This module never writes a proposal to disk.

    propose(name, repo_root, run, signal) -> Patch | None
        name: add_zero_grad | log_softmax | add_eval | add_grad_clip | halve_lr | remove_softmax_before_ce
        The file comes from the signal's evidence (source relative to run.root); without a signal the
        run's code is checked again (or its `lr` fact read) to find the spot. None when nothing fits.

Patch is the type of mltdbg.analyzers.common.patch; applying or reverting one (apply_patch /
revert_patch) is that module's job, not this one's.
"""
from __future__ import annotations

import ast
import itertools
import json
import re
from pathlib import Path

from mltdbg.analyzers import code as C
from mltdbg.analyzers.model import Run, Signal, TextArtifact
from mltdbg.analyzers.common.patch import Patch, unified_diff

CLIP_NORM = 1.0      # max-norm used by the usual recipes (HF default max_grad_norm, nanoGPT grad_clip)
NAMES = ("add_zero_grad", "log_softmax", "add_eval", "add_grad_clip", "halve_lr", "remove_softmax_before_ce")


# ---------------------------------------------------------------- propose

def propose(name: str, repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    """A patch for codemod `name`, or None when the code does not have the shape it fixes."""
    fn = _CODEMODS.get(name)
    if fn is None:
        return None
    repo_root = Path(repo_root).resolve()
    try:
        return fn(repo_root, run, signal)
    except (SyntaxError, ValueError, OSError, UnicodeDecodeError, IndexError, KeyError, RecursionError):
        return None     # code we cannot edit safely: no proposal rather than a wrong one


class _Source:
    """A file under repo_root: its text, its lines, its AST, and edits made to them."""

    def __init__(self, path: Path, rel: str):
        self.path, self.rel = path, rel
        self.text = path.read_bytes().decode("utf-8")
        self.lines = self.text.splitlines(keepends=True)
        self._tree = None
        self._starts: list[int] | None = None

    @property
    def tree(self) -> ast.Module:
        if self._tree is None:
            self._tree = C.parse_tree(self.text)   # shared with the checks: read, never modified
        return self._tree

    def offset(self, lineno: int, col: int) -> int:
        """Character offset of an AST (line, UTF-8 byte column) position."""
        if self._starts is None:     # character offset of each line's start, made once
            self._starts = list(itertools.accumulate((len(x) for x in self.lines), initial=0))
        start = self._starts[lineno - 1]
        return start + len(self.lines[lineno - 1].encode("utf-8")[:col].decode("utf-8", "ignore"))

    def span(self, n: ast.AST) -> tuple[int, int]:
        return self.offset(n.lineno, n.col_offset), self.offset(n.end_lineno, n.end_col_offset)

    def seg(self, n: ast.AST) -> str:
        a, b = self.span(n)
        return self.text[a:b]

    def indent(self, lineno: int) -> str:
        line = self.lines[lineno - 1]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def newline(self) -> str:
        return "\r\n" if "\r\n" in self.text[:2000] else "\n"

    def patch(self, new_text: str, summary: str) -> Patch | None:
        if new_text == self.text:
            return None
        return Patch(diff=unified_diff(self.rel, self.text, new_text), files=[self.rel], summary=summary)


def _locate(repo_root: Path, run: Run, source: str) -> _Source | None:
    p = (Path(run.root) / source).resolve()
    if not p.is_file():
        p = (repo_root / source).resolve()
    try:
        rel = p.relative_to(repo_root).as_posix()
    except ValueError:
        return None
    return _Source(p, rel) if p.is_file() else None


def _find(repo_root: Path, run: Run, signal: Signal | None, kinds: tuple[str, ...]) -> tuple[_Source, Signal] | None:
    """The file and signal a codemod works on: the given signal, else the first matching code signal."""
    if signal is None or not signal.evidence or not signal.evidence[0].source:
        sigs = [s for s in C.code_signals(_scratch(run)) if s.kind in kinds]
        if not sigs:
            return None
        signal = sigs[0]
    src = _locate(repo_root, run, signal.evidence[0].source)
    return (src, signal) if src is not None else None


def _scratch(run: Run) -> Run:
    """The run's code texts in a Run of their own (so warnings do not land on the user's run twice)."""
    r = Run(root=run.root)
    r.texts = [t for t in run.texts if t.kind == "code"]
    return r


def _stmt_at(f: C.PyFile, line: int) -> ast.stmt | None:
    """The innermost statement that starts on `line`."""
    best = None
    for n in f.nodes:
        if isinstance(n, ast.stmt) and n.lineno == line:
            if best is None or n.col_offset >= best.col_offset:
                best = n
    return best


def _stmt_containing(f: C.PyFile, n: ast.AST) -> ast.stmt:
    while not isinstance(n, ast.stmt):
        n = f.parent[n]
    return n


def _pyfile(s: _Source) -> C.PyFile:
    return C.pyfile_of(TextArtifact(path=s.rel, abspath=s.path, kind="code", text=s.text))   # built once per text


def _insert_lines(s: _Source, before_line: int, new_lines: list[str]) -> str:
    nl = s.newline()
    lines = list(s.lines)
    lines[before_line - 1: before_line - 1] = [x + nl for x in new_lines]
    return "".join(lines)


# ---------------------------------------------------------------- the codemods

def _add_zero_grad(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    found = _find(repo_root, run, signal, ("code:missing_zero_grad",))
    if not found:
        return None
    s, sig = found
    f = _pyfile(s)
    line = sig.evidence[0].line
    backs = sorted(f.backward_calls, key=lambda c: abs(c.lineno - line))
    if not backs:
        return None
    b = backs[0]
    bstmt = _stmt_containing(f, b)
    z = _stmt_at(f, line) if line else None
    if z is not None and (C.is_zero_grad(z) or C.is_zero_grad(getattr(z, "value", z))):
        # zero_grad between backward and step: move it in front of the backward
        zt = s.seg(z)
        lines = list(s.lines)
        del lines[z.lineno - 1: z.end_lineno]
        tmp = "".join(lines)
        s2 = _Source.__new__(_Source)
        s2.path, s2.rel, s2.text, s2.lines, s2._tree, s2._starts = s.path, s.rel, tmp, tmp.splitlines(keepends=True), None, None
        new = _insert_lines(s2, bstmt.lineno, [s.indent(bstmt.lineno) + zt])
        return s.patch(new, f"move {zt} before the backward pass in {s.rel}")
    scope = f.scope_of(b)
    loops = f.loops_of(b)
    steps = [c for c in f.in_scope(scope) if isinstance(c, ast.Call) and C.is_opt_step(c, f.optimizers)]
    steps = [c for c in steps if not loops or any(f.inside(c, L) for L in loops)] or steps
    if not steps:
        return None
    st = steps[0]
    opt = C.dotted(st.args[0]) if C.last(st) == "step" and C.dotted(C.recv(st)) and \
        C.dotted(C.recv(st)).rsplit(".", 1)[-1] in ("scaler", "grad_scaler") and st.args else C.dotted(C.recv(st))
    if not opt:
        return None
    sstmt = _stmt_containing(f, st)
    if f.parent.get(sstmt) is not f.parent.get(bstmt):
        # the step is conditional (gradient accumulation): zero right after it, never between micro-batches
        new = _insert_lines(s, sstmt.end_lineno + 1, [s.indent(sstmt.lineno) + f"{opt}.zero_grad()"])
        return s.patch(new, f"add {opt}.zero_grad() after each {opt} step in {s.rel}:{sstmt.lineno}")
    # same block: zero at the start of the step, before its forward pass (else right before backward)
    target = bstmt
    block = f.parent.get(bstmt)
    body = getattr(block, "body", [])
    if bstmt in body:
        i = body.index(bstmt)
        for prev in body[:i]:
            if any(isinstance(c, ast.Call) and f.is_forward(c) for c in f.subtree(prev)):
                target = prev
                break
    new = _insert_lines(s, target.lineno, [s.indent(target.lineno) + f"{opt}.zero_grad()"])
    return s.patch(new, f"add {opt}.zero_grad() at the start of each step in {s.rel}:{target.lineno}")


def _log_softmax(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    found = _find(repo_root, run, signal, ("code:log_softmax_unstable",))
    if not found:
        return None
    s, sig = found
    edits = []
    for n in _pyfile(s).calls:
        sm = None
        if C.fname(n) in ("torch.log", "th.log") and n.args and C.is_softmax_call(n.args[0], set()) and len(n.args) == 1:
            sm = n.args[0]
        elif isinstance(n.func, ast.Attribute) and n.func.attr == "log" and not n.args \
                and C.is_softmax_call(n.func.value, set()):
            sm = n.func.value
        if sm is None or C.last(sm) != "softmax":
            continue
        if sig.evidence[0].line and not (n.lineno <= sig.evidence[0].line <= n.end_lineno):
            continue
        fsrc, ssrc = s.seg(sm.func), s.seg(sm)
        repl = fsrc[: -len("softmax")] + "log_softmax" + ssrc[len(fsrc):]
        edits.append((*s.span(n), repl))
    if not edits:
        return None
    new = _apply_edits(s.text, edits)
    return s.patch(new, f"replace log(softmax(...)) with log_softmax(...) in {s.rel}")


def _apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    for a, b, r in sorted(set(edits), key=lambda e: -e[0]):
        text = text[:a] + r + text[b:]
    return text


def _add_eval(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    found = _find(repo_root, run, signal, ("code:no_eval_at_inference",))
    if not found:
        return None
    s, sig = found
    f = _pyfile(s)
    line = sig.evidence[0].line
    calls = [c for c in f.calls if c.lineno <= line <= c.end_lineno and
             (f.is_forward(c) or (isinstance(c.func, ast.Attribute) and c.func.attr in ("generate", "predict")
                                  and C.is_model_name(C.dotted(c.func.value))))]
    if not calls:
        return None
    c = calls[0]
    model = C.dotted(c.func) if f.is_forward(c) else C.dotted(c.func.value)
    # before the outermost no_grad block around the call, else at the top of its function, else before the statement
    block = None
    p = f.parent.get(c)
    while p is not None and not isinstance(p, C.FUNCS + (ast.Module,)):
        if C.is_no_grad_with(p):
            block = p
        p = f.parent.get(p)
    if block is None and isinstance(p, C.FUNCS):
        body = p.body
        first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant) and isinstance(body[0].value.value, str) else body[0]
        block = first
    if block is None:
        block = _stmt_containing(f, c)
    new = _insert_lines(s, block.lineno, [s.indent(block.lineno) + f"{model}.eval()"])
    return s.patch(new, f"call {model}.eval() before inference in {s.rel}:{block.lineno}")


def _add_grad_clip(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    # framework configs first: a Trainer call or a config key that turns clipping off
    s = None
    if signal is not None and signal.evidence and signal.evidence[0].source:
        s = _locate(repo_root, run, signal.evidence[0].source)
    cands = [s] if s is not None else [x for x in (_locate(repo_root, run, t.path) for t in run.texts
                                                   if t.kind in ("code", "config")) if x is not None]
    for s in cands:
        if s.path.suffix == ".py":
            p = _clip_framework(s) or _clip_loop(s)
        else:
            p = _clip_config(s)
        if p is not None:
            return p
    return None


_CLIP_KEY = re.compile(r"^(\s*[\"']?(?:max_grad_norm|grad_clip|gradient_clip_val|clip_grad_norm|grad_norm_clip|"
                       r"clip_grad)[\"']?\s*[:=]\s*)(0+(?:\.0*)?|null|None|~|false)(\s*,?\s*(?:#.*)?)$", re.I)


def _clip_config(s: _Source) -> Patch | None:
    lines = list(s.lines)
    for i, line in enumerate(lines):
        body = line.rstrip("\r\n")
        m = _CLIP_KEY.match(body)
        if m:
            lines[i] = m.group(1) + str(CLIP_NORM) + m.group(3) + line[len(body):]
            return s.patch("".join(lines), f"set gradient clipping to {CLIP_NORM} in {s.rel}:{i + 1}")
    return None


def _clip_framework(s: _Source) -> Patch | None:
    f = _pyfile(s)
    for c in f.calls:
        kind = C.framework_of(f, c)
        if kind == "hf" and C.last(c) in ("TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig"):
            v = C.kwarg(c, "max_grad_norm")
            if v is not None and isinstance(C.const(v), (int, float)) and C.const(v) <= 0:
                new = _apply_edits(s.text, [(*s.span(v), str(CLIP_NORM))])
                return s.patch(new, f"max_grad_norm={CLIP_NORM} in {s.rel}:{c.lineno}")
        if kind == "lightning" and C.last(c) == "Trainer":
            v = C.kwarg(c, "gradient_clip_val")
            if v is not None:
                if C.const(v, 1) in (0, None):
                    return s.patch(_apply_edits(s.text, [(*s.span(v), str(CLIP_NORM))]),
                                   f"gradient_clip_val={CLIP_NORM} in {s.rel}:{c.lineno}")
                continue
            a, b = s.span(c)
            inner = s.text[a:b]
            sep = "" if inner.rstrip()[-2:] == "()" else ", "
            close = inner.rstrip().rfind(")")
            new_call = inner[:close].rstrip() + f"{sep}gradient_clip_val={CLIP_NORM})"
            return s.patch(s.text[:a] + new_call + s.text[b:], f"gradient_clip_val={CLIP_NORM} in {s.rel}:{c.lineno}")
    return None


def _clip_loop(s: _Source) -> Patch | None:
    f = _pyfile(s)
    if any(C.last(c) in ("clip_grad_norm_", "clip_grad_value_", "clip_grad_norm") for c in f.calls):
        return None
    for b in f.backward_calls:
        scope = f.scope_of(b)
        steps = [c for c in f.in_scope(scope) if isinstance(c, ast.Call) and C.is_opt_step(c, f.optimizers)
                 and c.lineno > b.lineno]
        if not steps:
            continue
        st = steps[0]
        rname = (C.dotted(C.recv(st)) or "").rsplit(".", 1)[-1]
        scaler = rname in ("scaler", "grad_scaler") and st.args
        opt = C.dotted(st.args[0]) if scaler else C.dotted(C.recv(st))
        model = _model_of(f, scope, opt, b)
        if not model or not opt:
            continue
        stmt = _stmt_containing(f, st)
        ind = s.indent(stmt.lineno)
        new_lines = []
        if scaler:
            new_lines.append(f"{ind}{C.dotted(C.recv(st))}.unscale_({opt})")
        new_lines.append(f"{ind}torch.nn.utils.clip_grad_norm_({model}.parameters(), {CLIP_NORM})")
        text = _insert_lines(s, stmt.lineno, new_lines)
        if "torch" not in f.imports:
            text = _add_import(text, s.tree, "import torch", s.newline())
        return s.patch(text, f"clip gradients to norm {CLIP_NORM} before {opt} steps in {s.rel}:{stmt.lineno}")
    return None


def _model_of(f: C.PyFile, scope: ast.AST, opt: str | None, b: ast.Call) -> str | None:
    """The module whose parameters get clipped: the optimizer's, else the forward's."""
    for c in f.optimizer_ctors():
        p = f.parent.get(c)
        if isinstance(p, ast.Assign) and any(C.dotted(t) == opt for t in p.targets):
            paths = C.param_paths(f, C.arg(c, 0, "params") or c, f.scope_of(c), c.lineno)
            if len(set(paths)) == 1:
                return paths[0]
    loops = f.loops_of(b)
    fwd = C.model_calls(f, f.within(loops[0]) if loops else f.in_scope(scope))
    return C.dotted(fwd[0].func) if fwd else None


def _add_import(text: str, tree: ast.Module, stmt: str, nl: str) -> str:
    """Insert an import after the docstring and __future__ imports."""
    line = 0
    for n in tree.body:
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str) and line == 0:
            line = n.end_lineno
        elif isinstance(n, ast.ImportFrom) and n.module == "__future__":
            line = n.end_lineno
        else:
            break
    lines = text.splitlines(keepends=True)
    lines[line:line] = [stmt + nl]
    return "".join(lines)


_LR_KEY = re.compile(r"""^(\s*-?\s*["']?(?:lr|learning_rate|learning-rate|base_lr|max_lr|init_lr|peak_lr)["']?\s*[:=]\s*)"""
                     r"""(["']?)([0-9.]+(?:[eE][-+]?\d+)?)(\2)(.*)$""")


def _halve_number(s: str) -> str:
    """Half of a number written like the original: 0.1 -> 0.05, 1e-3 -> 5e-4, 3e-4 -> 1.5e-4, 2.0e-5 -> 1.0e-5."""
    v = float(s) / 2
    if "e" in s.lower():
        mant, exp = s.lower().split("e")
        m, e = f"{v:e}".split("e")
        m = m.rstrip("0").rstrip(".")
        dec = len(mant.split(".")[1]) if "." in mant else 0
        if dec and "." not in m:
            m += "." + "0" * dec
        elif dec and len(m.split(".")[1]) < dec:
            m += "0" * (dec - len(m.split(".")[1]))
        ei = int(e)
        width = len(exp.lstrip("+-"))
        sign = "-" if ei < 0 else ("+" if exp.startswith("+") else "")
        return f"{m}{'E' if 'E' in s else 'e'}{sign}{abs(ei):0{width}d}"
    if "." not in s:
        return str(int(v)) if v == int(v) else repr(v)
    out = repr(round(v, 15))
    dec = len(s.split(".")[1])
    if "." in out and "e" not in out and len(out.split(".")[1]) < dec:
        out += "0" * (dec - len(out.split(".")[1]))
    return out


def _halve_lr(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    spots: list[tuple[str, int | None]] = []
    if signal is not None:
        spots += [(e.source, e.line) for e in signal.evidence if e.source]
    fact = run.fact("lr")
    if fact is not None:
        spots.append((fact.source, fact.line))
    spots += [(t.path, None) for t in run.texts if t.kind == "config"]
    spots += [(t.path, None) for t in run.texts if t.kind == "code"]
    for source, line in spots:
        s = _locate(repo_root, run, source)
        if s is None:
            continue
        p = _halve_in_code(s, line) if s.path.suffix == ".py" else _halve_in_config(s, line)
        if p is not None:
            return p
    return None


def _halve_in_config(s: _Source, line: int | None) -> Patch | None:
    order = [line - 1] if line else []
    order += [i for i in range(len(s.lines)) if i + 1 != line]
    for i in order:
        if not 0 <= i < len(s.lines):
            continue
        raw = s.lines[i]
        body = raw.rstrip("\r\n")
        m = _LR_KEY.match(body)
        if not m:
            continue
        try:
            new_num = _halve_number(m.group(3))
        except ValueError:
            continue
        lines = list(s.lines)
        lines[i] = m.group(1) + m.group(2) + new_num + m.group(4) + m.group(5) + raw[len(body):]
        new = "".join(lines)
        if s.path.suffix == ".json":
            try:
                json.loads(new)
            except ValueError:
                continue
        return s.patch(new, f"halve the learning rate {m.group(3)} -> {new_num} in {s.rel}:{i + 1}")
    return None


def _halve_in_code(s: _Source, line: int | None) -> Patch | None:
    f = _pyfile(s)
    cands = []
    for c in f.calls:
        v = None
        if f.is_optimizer_ctor(c):
            v = C.arg(c, 1, "lr")
        elif C.last(c) == "add_argument" and any(isinstance(a, ast.Constant) and str(a.value).lstrip("-").replace("-", "_")
                                                 in ("lr", "learning_rate") for a in c.args):
            v = C.kwarg(c, "default")
        if isinstance(v, ast.Constant) and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            cands.append(v)
    if line:
        cands.sort(key=lambda v: abs(v.lineno - line))
    for v in cands:
        old = s.seg(v)
        try:
            new_num = _halve_number(old)
        except ValueError:
            continue
        return s.patch(_apply_edits(s.text, [(*s.span(v), new_num)]),
                       f"halve the learning rate {old} -> {new_num} in {s.rel}:{v.lineno}")
    return None


def _remove_softmax(repo_root: Path, run: Run, signal: Signal | None) -> Patch | None:
    found = _find(repo_root, run, signal, ("code:softmax_before_ce",))
    if not found:
        return None
    s, sig = found
    lines = [e.line for e in sig.evidence if e.line and (e.source == sig.evidence[0].source)]
    if not lines:
        return None
    f = _pyfile(s)
    sm_attrs = set()
    for cls in f.walk_order(ast.ClassDef):   # ast.walk's order
        sm_attrs |= C.softmax_attrs(cls, f)
    calls = [c for c in f.walk_order(ast.Call) if isinstance(c, ast.Call)]
    # the softmax cited last is where the probabilities come from; the CE line may hold it inline
    for line in reversed(lines):
        for n in calls:
            if not (n.lineno <= line <= n.end_lineno):
                continue
            if C.last(n) == "Sequential" and n.args and isinstance(n.args[-1], ast.Call) \
                    and C.last(n.args[-1]) == "Softmax" and n.args[-1].lineno == line and len(n.args) > 1:
                a = s.span(n.args[-2])[1]
                b = s.span(n.args[-1])[1]
                return s.patch(_apply_edits(s.text, [(a, b, "")]), f"drop the final Softmax layer in {s.rel}:{line}")
            if n.lineno != line and n.end_lineno != line:
                continue
            if C.is_softmax_call(n, sm_attrs) and C.last(n) != "log_softmax":
                if (C.dotted(n.func) or "") in sm_attrs:
                    inner = C.arg(n, 0, "input")     # self.softmax(x) -> x
                elif isinstance(n.func, ast.Attribute) and n.func.attr == "softmax" and not _is_module_path(n, f):
                    inner = n.func.value        # x.softmax(dim) -> x
                else:
                    inner = C.arg(n, 0, "input")
                if inner is None:
                    continue
                return s.patch(_apply_edits(s.text, [(*s.span(n), s.seg(inner))]),
                               f"pass logits, not softmax, to cross-entropy in {s.rel}:{line}")
    return None


def _is_module_path(n: ast.Call, f: C.PyFile) -> bool:
    """F.softmax / torch.softmax / torch.nn.functional.softmax (a function), not tensor.softmax (a method)."""
    d = C.dotted(n.func) or ""
    head = d.split(".")[0]
    return head in f.imports or head in ("torch", "F", "nn", "np", "scipy", "special")


_CODEMODS = {
    "add_zero_grad": _add_zero_grad,
    "log_softmax": _log_softmax,
    "add_eval": _add_eval,
    "add_grad_clip": _add_grad_clip,
    "halve_lr": _halve_lr,
    "remove_softmax_before_ce": _remove_softmax,
}
