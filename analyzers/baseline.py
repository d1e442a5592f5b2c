"""Compare a run with a good baseline run: curves, config/environment facts, and the code diff.

    compare(run, base, repo_root=None) -> list[Signal]      # `baseline:*` kinds, analyzers/signals.md

- Curves: each validation metric both runs log, aligned on the steps they share; worse than the
  baseline there -> `baseline:val_metric_drop` with both numbers.
- Facts: lr, seed, tokenizer, checkpoint, versions, pinned dependencies, other config values.
- Code: in a git repo, the diff between the two runs' `git_sha` facts (or the baseline's commit and the
  working tree) classified by what each changed line touches: preprocessing, split, metric, seed,
  eval() removed, checkpoint, tokenizer, lr. Each cites file:line with that line's text.
"""
from __future__ import annotations

import ast
import math
import os
import re
import time
from pathlib import Path
from typing import Any

import numpy as np

from mltdbg.analyzers.common.gitrepo import file_at, find_repo_root, resolve_commit, run_git
from mltdbg.analyzers.curves import Quoter
from mltdbg.analyzers.model import Evidence, Fact, Run, Series, Signal, TextArtifact

# A validation loss this much above the baseline (relative) at the shared steps counts as a drop;
# a bounded metric (accuracy, F1) this many points (absolute, on a 0-1 scale) below it.
LOSS_REL_DROP = 0.05
SCORE_ABS_DROP = 0.01
TAIL_SHARE = 0.25          # compare the last quarter of the shared steps (the end of training matters)
MAX_EVIDENCE = 6

_HIGHER_BETTER = re.compile(r"acc|f1|auc|precision|recall|bleu|rouge|map|score|iou|dice|top\d|r2|exact|match|spearman|pearson", re.I)
_LOWER_BETTER = re.compile(r"loss|perplexity|ppl|error|wer|cer|mse|mae|rmse|nll", re.I)


# ---------------------------------------------------------------- curves

def _val_series(run: Run) -> dict[tuple[str, str], Series]:
    """Eval series keyed by (name, file name): a final test score printed in eval.log pairs
    with the baseline's eval.log, not with the per-epoch val curve in train.log."""
    out: dict[tuple[str, str], Series] = {}
    for s in run.series:
        if s.name.startswith("val_") and "/" not in s.name and len(s) and s.rank in (None, 0):
            key = (s.name, Path(s.source).name)
            if key not in out or len(s) > len(out[key]):
                out[key] = s
    return out


def _direction(name: str) -> int | None:
    """+1 when higher is better, -1 when lower is better, None when unknown."""
    if _LOWER_BETTER.search(name):
        return -1
    if _HIGHER_BETTER.search(name):
        return +1
    return None


def _align(a: Series, b: Series) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Indices into a and b of the steps both logged (last value kept when a step repeats)."""
    ia = _last_per_step(a)
    ib = _last_per_step(b)
    common, xa, xb = np.intersect1d(a.steps[ia], b.steps[ib], assume_unique=True, return_indices=True)
    return common, ia[xa], ib[xb], np.isfinite(a.values[ia[xa]]) & np.isfinite(b.values[ib[xb]])


def _last_per_step(s: Series) -> np.ndarray:
    # np.unique on the reversed steps gives the last occurrence of each step
    rev = s.steps[::-1]
    _, first_in_rev = np.unique(rev, return_index=True)
    return (len(s.steps) - 1 - first_in_rev).astype(np.int64)


def _curve_signals(run: Run, base: Run) -> list[Signal]:
    out = []
    rs, bs = _val_series(run), _val_series(base)
    for key in sorted(set(rs) & set(bs)):
        name = key[0]
        d = _direction(name)
        if d is None:
            continue
        a, b = rs[key], bs[key]
        common, ia, ib, ok = _align(a, b)
        aligned = bool(ok.sum())
        if aligned:
            ia, ib, common = ia[ok], ib[ok], common[ok]
            k = max(1, int(math.ceil(len(common) * TAIL_SHARE)))
            ra, rb = a.values[ia[-k:]], b.values[ib[-k:]]
            i_last, j_last = int(ia[-1]), int(ib[-1])
        else:
            fa, fb = np.flatnonzero(np.isfinite(a.values)), np.flatnonzero(np.isfinite(b.values))
            if not len(fa) or not len(fb):
                continue
            i_last, j_last = int(fa[-1]), int(fb[-1])
            ra, rb = a.values[[i_last]], b.values[[j_last]]
        va, vb = float(np.mean(ra)), float(np.mean(rb))
        if d < 0:
            drop = (va - vb) / max(abs(vb), 1e-12)
            worse = drop > LOSS_REL_DROP
            strength = min(0.9, 0.4 + 2 * drop)
            words = f"{name} {va:.4g} vs baseline {vb:.4g} ({drop:+.0%})"
        else:
            scale = 100.0 if max(np.nanmax(np.abs(ra)), np.nanmax(np.abs(rb))) > 1.5 else 1.0
            drop = (vb - va) / scale
            worse = drop > SCORE_ABS_DROP
            strength = min(0.9, 0.4 + 5 * drop)
            words = f"{name} {va:.4g} vs baseline {vb:.4g} ({-drop * scale:+.3g})"
        if not worse:
            continue
        where = (f"over the last {len(ra)} of {len(common)} shared steps" if aligned
                 else "at the last logged step (no shared steps)")
        if not aligned:
            strength *= 0.7
        pa, pb = a.point(i_last), b.point(j_last)
        ev = [Evidence(text=f"this run: {name} = {a.values[i_last]:.4g} at step {pa['step']}", **_ev_fields(pa)),
              Evidence(text=f"baseline: {name} = {b.values[j_last]:.4g} at step {pb['step']}", **_ev_fields(pb))]
        out.append(Signal("baseline:val_metric_drop", round(strength, 3), f"{words} {where}", ev,
                          {"metric": name, "drop": round(float(drop), 6), "value": va, "baseline_value": vb,
                           "aligned_steps": int(len(common)) if aligned else 0,
                           "higher_is_better": d > 0}))
    return out


def _ev_fields(p: dict) -> dict:
    return {k: p[k] for k in ("source", "line", "step", "metric", "value") if k in p}


# ---------------------------------------------------------------- facts

_FACT_KINDS = {
    "lr": "baseline:lr_changed", "seed": "baseline:seed_changed", "tokenizer": "baseline:tokenizer_changed",
    "checkpoint": "baseline:checkpoint_changed", "resume_from": "baseline:checkpoint_changed",
    "torch_version": "baseline:env_changed", "cuda_version": "baseline:env_changed",
    "python_version": "baseline:env_changed", "gpu": "baseline:env_changed",
    "cudnn_version": "baseline:env_changed", "transformers_version": "baseline:deps_changed",
}
_FACT_STRENGTH = {"baseline:lr_changed": 0.6, "baseline:seed_changed": 0.5, "baseline:tokenizer_changed": 0.7,
                  "baseline:checkpoint_changed": 0.6, "baseline:env_changed": 0.4, "baseline:deps_changed": 0.4,
                  "baseline:config_changed": 0.35}
# Facts that differ between any two runs by design: not a cause.
_IGNORE_FACTS = {"git_sha", "run_id", "run_name", "output_dir", "name", "date", "time", "host", "hostname",
                 "wandb_run", "log_dir", "start_time", "pid", "experiment", "logging_dir"}


def _same(a: Any, b: Any) -> bool:
    try:
        fa, fb = float(a), float(b)
        return math.isclose(fa, fb, rel_tol=1e-9, abs_tol=0.0) or (math.isnan(fa) and math.isnan(fb))
    except (TypeError, ValueError):
        return str(a).strip().strip("'\"").lower() == str(b).strip().strip("'\"").lower()


def _fact_ev(f: Fact, who: str) -> Evidence:
    return Evidence(text=f"{who}: {f.name} = {f.value}", source=f.source, line=f.line, quote=f.quote)


def _first_facts(run: Run) -> dict[str, Fact]:
    out: dict[str, Fact] = {}
    for f in run.facts:
        out.setdefault(f.name, f)
    return out


def _fact_signals(run: Run, base: Run) -> list[Signal]:
    out = []
    fr, fb = _first_facts(run), _first_facts(base)
    for name in sorted(set(fr) & set(fb)):
        if name in _IGNORE_FACTS:
            continue
        a, b = fr[name], fb[name]
        if a.value is None or b.value is None or _same(a.value, b.value):
            continue
        kind = _FACT_KINDS.get(name)
        if kind is None:
            kind = "baseline:deps_changed" if name.startswith(("dep:", "package:", "pkg:")) else "baseline:config_changed"
        strength = _FACT_STRENGTH[kind]
        data = {"fact": name, "value": a.value, "baseline_value": b.value}
        if kind == "baseline:lr_changed":
            try:
                ratio = float(a.value) / float(b.value)
                data["ratio"] = ratio
                strength = 0.7 if ratio >= 2 or ratio <= 0.5 else 0.5
            except (TypeError, ValueError, ZeroDivisionError):
                pass
        out.append(Signal(kind, strength, f"{name}: {b.value} in the baseline, {a.value} now",
                          [_fact_ev(a, "this run"), _fact_ev(b, "baseline")], data))
    out += _requirement_signals(run, base)
    return out


_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.\-]*)(?:\[[^\]]*\])?\s*(==|>=|<=|~=|!=|===|>|<|@)\s*([^\s;#,]+)", re.M)
_REQ_FILE = re.compile(r"(requirements|constraints|freeze|pip[-_]?list|packages)[^/]*\.(txt|in)$|environment\.ya?ml$", re.I)


def _pins(run: Run) -> dict[str, tuple[str, str, int, str]]:
    """package (lower-case) -> (spec, source, line, line text) from requirement-like texts."""
    out = {}
    for t in run.texts:
        if not _REQ_FILE.search(t.path):
            continue
        for m in _REQ.finditer(t.text):
            pkg = m.group(1).lower().replace("_", "-")
            line = t.line_of(m.start())
            out.setdefault(pkg, (m.group(2) + m.group(3), t.path, line, t.line(line)))
    return out


def _requirement_signals(run: Run, base: Run) -> list[Signal]:
    pr, pb = _pins(run), _pins(base)
    if not pr or not pb:
        return []
    changed = [p for p in sorted(set(pr) | set(pb)) if pr.get(p, ("",))[0] != pb.get(p, ("",))[0]]
    if not changed:
        return []
    ev = []
    for p in changed[:MAX_EVIDENCE]:
        if p in pr:
            spec, src, line, text = pr[p]
            was = pb[p][0] if p in pb else "absent"
            ev.append(Evidence(text=f"{p}{spec} (baseline: {was})", source=src, line=line, quote=text))
        else:
            spec, src, line, text = pb[p]
            ev.append(Evidence(text=f"{p}{spec} only in the baseline", source=src, line=line, quote=text))
    ml = [p for p in changed if p in ("torch", "numpy", "transformers", "tokenizers", "accelerate", "scikit-learn",
                                      "pandas", "torchvision", "datasets", "jax", "tensorflow")]
    strength = 0.55 if ml else 0.35
    return [Signal("baseline:deps_changed", strength,
                   f"{len(changed)} pinned dependencies differ from the baseline ({', '.join(changed[:5])})", ev,
                   {"packages": {p: {"now": pr.get(p, (None,))[0], "baseline": pb.get(p, (None,))[0]} for p in changed}})]


# ---------------------------------------------------------------- code diff

_CODE_RULES: list[tuple[str, re.Pattern]] = [
    ("baseline:tokenizer_changed", re.compile(r"tokeni[sz]er|AutoTokenizer|vocab|sentencepiece|\bbpe\b|tiktoken|spm\.", re.I)),
    ("baseline:split_changed", re.compile(r"train_test_split|random_split|test_size|train_size|val_size|valid_size|"
                                          r"split_ratio|val_ratio|test_ratio|train_ratio|holdout|KFold|ShuffleSplit|"
                                          r"\b(test|val|valid|train)_(ids|idx|indices)\b|\bsplit\s*=|\.split\(\s*\[|"
                                          r"n_val|num_val|val_frac|test_frac"
                                          # a split by position: `n_train = int(0.8 * len(X))`, `X[:n_train], X[n_train:]`
                                          r"|\bn_?(?:train|tr)\b|\bnum_train\b", re.I)),
    ("baseline:seed_changed", re.compile(r"\bseed\b|manual_seed|random_state|set_seed|PYTHONHASHSEED", re.I)),
    ("baseline:metric_changed", re.compile(r"average\s*=|ignore_index|threshold|f1_score|accuracy_score|"
                                           r"evaluate\.load|\.compute\(\s*predictions|jiwer|\bwer\b|sacrebleu|rouge|"
                                           r"seqeval|torchmetrics|F1Score|\bAccuracy\(|mean_?iou|average_precision|"
                                           r"precision_score|recall_score|roc_auc|top_k_accuracy|"
                                           r"\bzero_division\b|[<>]=?\s*0\.\d+\s*\)?\s*$", re.I)),
    ("baseline:preprocessing_changed", re.compile(r"normali[sz]|Normalize|(?<!\)\.)(?<!loss\.)(?<!acc\.)\bmean\b|\bstd\b|transforms?\b|Resize|resize|"
                                                  r"CenterCrop|RandomCrop|ToTensor|/\s*255|255\.0|max_length|"
                                                  r"max_len|padding|truncat|\.lower\(\)|augment|scaler\.fit|"
                                                  r"StandardScaler|MinMaxScaler|interpolation|clip\(|preprocess|min-max|minmax|\bscal(e|ing)\b|"
                                                  r"\.(min|max)\(\s*(0|dim\s*=\s*0)?\s*\)", re.I)),
    ("baseline:checkpoint_changed", re.compile(r"checkpoint|ckpt|\.pth?\b|\.bin\b|\.safetensors|from_pretrained|"
                                               r"load_state_dict|resume|weights\s*=", re.I)),
    ("baseline:lr_changed", re.compile(r"\blr\b\s*[=:]|learning_rate\s*[=:]", re.I)),
]
_DEF = re.compile(r"\s*(?:async\s+)?def\s+(\w+)")
_EVAL_CALL = re.compile(r"\.eval\(\s*\)|\.train\(\s*(mode\s*=\s*)?False")


def _rule_of(body: str, eval_removal: bool) -> str | None:
    """The kind of change one changed line (stripped) makes: an eval() call removed (where `eval_removal`: a
    removed line in a file that gains none back), else the first of _CODE_RULES it matches."""
    if eval_removal and _EVAL_CALL.search(body):
        return "baseline:eval_call_removed"
    return next((k for k, rx in _CODE_RULES if rx.search(body)), None)


def _in_metric_function(kind: str | None, fn: str | None) -> str | None:
    """`kind`, or the metric's change where a line no rule names (or preprocessing's) sits in a function
    named for a metric or an evaluation (`def compute_metrics`, `def evaluation`)."""
    if (kind is None or kind == "baseline:preprocessing_changed") and fn and _METRIC_FUNC.search(fn) \
            and not re.search(r"normali|preprocess|transform|loss|objective|criterion", fn, re.I):
        return "baseline:metric_changed"
    return kind


_METRIC_FUNC = re.compile(r"acc|f1|metric|score|precision|recall|auc|bleu|rouge|iou|dice|compute_metrics|mAP|evaluat"
                          r"|(?:^|_)eval(?:_|\d|\.|$)|\bwer\b"
                          # ... or for an error measure (`def l2_error`, `def rel_err`, `def compute_rmse`)
                          r"|(?:^|_)(?:l[12]|rel(?:ative)?|abs(?:olute)?|mean|squared|top\d)_?err(?:or)?(?:_|$)"
                          r"|(?:^|_)(?:mse|mae|rmse|mape|smape|mase|psnr|ssim|cer)(?:_|$)", re.I)
_CODE_STRENGTH = {"baseline:tokenizer_changed": 0.7, "baseline:split_changed": 0.7, "baseline:seed_changed": 0.6,
                  "baseline:metric_changed": 0.7, "baseline:checkpoint_changed": 0.6,
                  "baseline:preprocessing_changed": 0.7, "baseline:lr_changed": 0.6,
                  "baseline:eval_call_removed": 0.8}
_CODE_EXT = (".py", ".yaml", ".yml", ".json", ".toml", ".cfg", ".ini", ".sh", ".txt")
GIT_TIMEOUT_S = 60.0       # one git read (a diff, a file at a commit); a hung git must not hang the diagnosis
# Bounds on the code diff (a baseline diff that deleted a 190 MB data file ran past 120 s at 1.6 GB):
# a file with more changed lines than this is data or generated, not a code change to cite (the
# largest hand-written change in the zoo and corpus is under 300 lines);
MAX_DIFF_FILE_LINES = 5_000
# at most this many files, and this much diff text, are read (what is left is named in a warning);
MAX_DIFF_FILES = 500
MAX_DIFF_BYTES = 16 * 1024 * 1024
# and reading the files a change sits in (to name its function) stops after this long.
CODE_DIFF_BUDGET_S = 20.0


def _sha(run: Run) -> str | None:
    f = run.fact("git_sha")
    v = str(f.value).strip() if f is not None and f.value else ""
    return v if re.fullmatch(r"[0-9a-fA-F]{6,40}", v) else None


def _file_at(root: Path, rev: str | None, path: str) -> str | None:
    if rev is None:
        try:
            return (root / path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
    return file_at(root, rev, path, timeout=GIT_TIMEOUT_S)


def _func_spans(text: str | None) -> list[tuple[int, int, str]]:
    """(first line, last line, function name) of every def in a Python text; [] when it does not parse."""
    if not text:
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    return [(n.lineno, n.end_lineno or n.lineno, n.name) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _func_at(spans: list[tuple[int, int, str]], line: int) -> str | None:
    best = None
    for a, b, name in spans:
        if a <= line <= b and (best is None or a >= best[0]):
            best = (a, b, name)
    return best[2] if best else None


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _diff_lines(diff: str) -> list[tuple[str, str, int, str]]:
    """(path, '+'/'-', line number on that side, text) for every changed line of a -U0 diff."""
    out = []
    a_path = b_path = None
    old = new = 0
    for line in diff.splitlines():
        if line.startswith("--- "):
            p = line[4:]
            a_path = p[2:] if p.startswith("a/") else None
        elif line.startswith("+++ "):
            p = line[4:]
            b_path = p[2:] if p.startswith("b/") else None
        elif line.startswith("@@"):
            m = _HUNK.match(line)
            if m:
                old, new = int(m.group(1)), int(m.group(3))
        elif line.startswith("+") and b_path:
            out.append((b_path, "+", new, line[1:]))
            new += 1
        elif line.startswith("-") and a_path:
            out.append((a_path, "-", old, line[1:]))
            old += 1
    return out


def _diff_paths(top: Path, revs: list[str], run: Run) -> list[str]:
    """The code files changed between revs whose diff is worth reading (from `git diff --numstat`,
    which costs no file text): a code extension, at most MAX_DIFF_FILE_LINES changed lines, not
    binary, at most MAX_DIFF_FILES. What is left out is named in one warning on run."""
    r = run_git(top, "diff", "--numstat", "-z", "--no-renames", *revs, "--", timeout=GIT_TIMEOUT_S,
                max_bytes=MAX_DIFF_BYTES)
    if not r.ok:
        return []
    keep: list[str] = []
    big: list[str] = []
    for rec in r.raw.split(b"\0"):
        parts = rec.split(b"\t", 2)
        if len(parts) != 3:
            continue
        path = os.fsdecode(parts[2].lstrip(b"\n"))
        if not path.endswith(_CODE_EXT):
            continue
        if not parts[0].isdigit() or not parts[1].isdigit():    # binary
            continue
        if int(parts[0]) + int(parts[1]) > MAX_DIFF_FILE_LINES:
            big.append(path)
        else:
            keep.append(path)
    if big:
        run.warnings.append(f"baseline code diff: {len(big)} file(s) with more than {MAX_DIFF_FILE_LINES:,} changed "
                            f"lines not read as code ({', '.join(big[:3])}{', ...' if len(big) > 3 else ''})")
    if len(keep) > MAX_DIFF_FILES:
        run.warnings.append(f"baseline code diff: {len(keep)} changed files; read the first {MAX_DIFF_FILES}")
        keep = keep[:MAX_DIFF_FILES]
    return keep


def _code_signals(run: Run, base: Run, repo_root: Path) -> list[Signal]:
    top_path = find_repo_root(repo_root) if Path(repo_root).is_dir() else None
    if top_path is None:
        return []
    base_sha, run_sha = _sha(base), _sha(run)
    if base_sha is None:
        # Neither run recorded its commit: assume the good run is the previous commit and the
        # bad one is the working tree (the usual "it broke after my last change").
        prev = resolve_commit(top_path, "HEAD~1", timeout=GIT_TIMEOUT_S)
        if prev is None:
            return []
        base_sha, run_sha = prev, None
    if run_sha is not None and run_sha.lower() == base_sha.lower():
        return []
    revs = [base_sha, run_sha] if run_sha else [base_sha]
    paths = _diff_paths(top_path, revs, run)
    if not paths:
        return []
    d = run_git(top_path, "diff", "-U0", "--no-color", "--no-ext-diff", "--no-renames", *revs, "--",
                *(f":(literal){p}" for p in paths), timeout=GIT_TIMEOUT_S, max_bytes=MAX_DIFF_BYTES)
    if not d.ok:
        return []
    diff = d.out
    if d.truncated:
        diff = diff[:diff.rfind("\n") + 1]
        run.warnings.append(f"baseline code diff: more than {MAX_DIFF_BYTES // 2**20} MB; read the first "
                            f"{MAX_DIFF_BYTES // 2**20} MB")
    changes = [c for c in _diff_lines(diff) if c[0].endswith(_CODE_EXT)]
    run_root = Path(run.root).resolve()
    cited: dict[str, str] = {}

    # a path relative to the run root when the file is under it, else relative to the repo
    def cite(path: str) -> str:
        if path not in cited:
            try:
                cited[path] = (top_path / path).relative_to(run_root).as_posix()
            except ValueError:
                cited[path] = path
        return cited[path]

    spans: dict[tuple[str, str], list] = {}
    deadline = time.monotonic() + CODE_DIFF_BUDGET_S

    def func_of(path: str, side: str, line: int) -> str | None:
        if not path.endswith(".py"):
            return None
        key = (path, side)
        if key not in spans:
            if time.monotonic() > deadline:     # out of time: the change is still cited, without its function
                return None
            spans[key] = _func_spans(_file_at(top_path, base_sha if side == "-" else run_sha, path))
        return _func_at(spans[key], line)

    found: dict[str, list[Evidence]] = {}
    files: dict[str, set[str]] = {}
    # eval() calls removed from a file (and not re-added there)
    added_eval = {p for p, s, _, t in changes if s == "+" and _EVAL_CALL.search(t)}
    for path, side, line, text in changes:
        body = text.strip()
        if not body or body.startswith("#"):
            continue
        kind = _rule_of(body, side == "-" and path not in added_eval)
        if kind is None or kind == "baseline:preprocessing_changed":
            kind = _in_metric_function(kind, func_of(path, side, line))
        if kind is None:
            continue
        if side == "+":
            ev = Evidence(text=f"changed since the baseline ({kind.split(':')[1].replace('_changed', '')})",
                          source=cite(path), line=line, quote=text)
        else:
            ev = Evidence(text=f"removed since the baseline commit {base_sha[:10]}",
                          source=f"{cite(path)}@{base_sha[:10]}", line=line, quote=text)
        found.setdefault(kind, []).append(ev)
        files.setdefault(kind, set()).add(path)
    out = []
    for kind, evs in found.items():
        evs.sort(key=lambda e: "@" in (e.source or ""))     # the current code first, removed lines after
        what = kind.split(":")[1].replace("_", " ")
        n = len(evs)
        strength = _CODE_STRENGTH[kind]
        out.append(Signal(kind, strength,
                          f"{what} in the code since the baseline: {n} changed line{'s' if n > 1 else ''} in"
                          f" {', '.join(sorted(files[kind]))}",
                          evs[:MAX_EVIDENCE],
                          {"files": sorted(files[kind]), "lines": n, "base_sha": base_sha,
                           "run_sha": run_sha or "worktree"}))
    return out


# ---------------------------------------------------------------- a diff the user posted

# A text that holds a unified diff: a hunk header ("@@ -12,7 +12,9 @@"; a post may paste hunks without the file headers)
_HUNK_HEAD = re.compile(r"^@@(?:[ \t]+-\d+(?:,\d+)?[ \t]+\+\d+(?:,\d+)?[ \t]+@@|[ \t]*(?:@@[ \t]*)?$)", re.M)
POSTED_DIFF_STRENGTH = 0.8     # of what the same change read from the repository weighs: a post may show part of it


def posted_diff_signals(run: Run) -> list[Signal]:
    """The code-diff rules over a diff the user posted (a .diff / .patch file, or a post that quotes one: git's
    hunks, a bare `@@` a post's author typed, a ```diff fence, or an old and a new version of the code in two
    blocks captioned so): what the change between the version that worked and the one that does not touched
    (the split, the seed, the preprocessing, the metric, a removed eval() ...), cited at the posted text's own
    lines. Marked as the user's narration (data "narrated"): which side of a posted diff fails (a change made, or
    a fix tried), the post may not say, so it weighs a cause and meets its requirement but never makes it a
    finding alone."""
    items: list[tuple[str, str, Evidence]] = []     # (kind, side, where)
    for t in run.texts:
        if len(t.text) > MAX_DIFF_BYTES or not ("@@" in t.text or "```" in t.text or "~~~" in t.text):
            continue        # (no hunk, no fence: no diff to read, and no split of the text)
        lines = t.text.split("\n")
        changes, gained_eval = _hunk_changes(t.text, lines)
        changes += _paired_block_changes(t.text, lines)
        for i, side, p, fn in changes:
            body = lines[i - 1][1:].strip() if lines[i - 1][:1] in ("+", "-") else lines[i - 1].strip()
            if not body or body.startswith("#"):
                continue
            kind = _in_metric_function(_rule_of(body, side == "-" and p not in gained_eval), fn)
            if kind is None:
                continue
            what = kind.split(":")[1].replace("_changed", "").replace("_", " ")
            items.append((kind, side, Evidence(
                text=f"{'added' if side == '+' else 'removed'} in the posted diff of {p or 'the code'} ({what})",
                source=t.path, line=i, quote=lines[i - 1].rstrip("\r"))))
    for t, i, side, fn in _file_pair_changes(run):
        body = t.line(i).strip()
        if not body or body.startswith("#"):
            continue
        kind = _in_metric_function(_rule_of(body, False), fn or t.path.rsplit("/", 1)[-1])
        if kind is None:
            continue
        what = kind.split(":")[1].replace("_changed", "").replace("_", " ")
        items.append((kind, side, Evidence(
            text=f"{'only in the old' if side == '-' else 'only in the new'} version {t.path} ({what})",
            source=t.path, line=i, quote=t.line(i).rstrip("\r"))))
    # a line removed in one place and added as it was in another (a function's body reordered) is a move, no change
    def body_of(e: Evidence) -> str:
        q = (e.quote or "").strip()
        return q[1:].strip() if q[:1] in ("+", "-") else q
    sides = {side: {body_of(e) for _, sd, e in items if sd == side} for side in ("+", "-")}
    items = [(k, sd, e) for k, sd, e in items if body_of(e) not in sides["-" if sd == "+" else "+"]]
    # a checkpoint named alike on both sides (`from_pretrained(args.ckpt)` and `pipeline(model=args.ckpt)`) is the
    # same checkpoint loaded another way, no change of weights
    refs = {side: {r for k, sd, e in items if sd == side and k == "baseline:checkpoint_changed"
                   for r in _CKPT_REF.findall(e.quote or "")} for side in ("+", "-")}
    found: dict[str, list[Evidence]] = {}
    files: dict[str, set[str]] = {}
    for kind, side, e in items:
        if kind == "baseline:checkpoint_changed":
            mine = set(_CKPT_REF.findall(e.quote or ""))
            if mine and mine <= refs["+" if side == "-" else "-"]:
                continue
        found.setdefault(kind, []).append(e)
        files.setdefault(kind, set()).add(e.source or "")
    out = []
    for kind, evs in found.items():
        what = kind.split(":")[1].replace("_", " ")
        n = len(evs)
        out.append(Signal(kind, _CODE_STRENGTH[kind] * POSTED_DIFF_STRENGTH,
                          f"{what} in the posted diff: {n} changed line{'s' if n > 1 else ''} in"
                          f" {', '.join(sorted(files[kind]))}", evs[:MAX_EVIDENCE],
                          {"files": sorted(files[kind]), "lines": n, "posted": True, "narrated": True}))
    return out


_CKPT_REF = re.compile(r"[\w.]*(?:ckpt|checkpoint|weights|model_path|model_dir|model_name)[\w.]*(?![\w.]*\()"
                       r"|['\"][^'\"\n]*\.(?:pt|pth|bin|ckpt|safetensors|h5|keras)['\"]", re.I)


# Two versions of one script attached side by side (eval_v1.py and eval_new.py, train_old.py and train.py): names
# that are the same once a version word is taken out. The older is the one named old / v1 / orig / before / prev
# (or the lower version number); the other is the newer.
_VERSION_WORDS = (r"old|new|v\d+|orig|original|before|after|bak|backup|prev|previous|fixed|broken|working|current"
                  r"|refactor(?:ed)?")
_VERSION_WORD = re.compile(rf"(?:^|[_\-.])({_VERSION_WORDS})(?=[_\-.]|$)", re.I)
_OLDER = re.compile(r"^(?:old|orig|original|before|bak|backup|prev|previous|working)$", re.I)
_NEWER = re.compile(r"^(?:new|after|fixed|broken|current|refactor(?:ed)?)$", re.I)
MAX_PAIR_LINES = 3000


def _file_pair_changes(run: Run) -> list[tuple[TextArtifact, int, str, str]]:
    """The lines only one of two versions of a script has: (text, line, '-' for the older's / '+' for the
    newer's, the function it sits in)."""
    code = [t for t in run.texts if t.kind == "code" and t.path.endswith(".py") and t.text.count("\n") < MAX_PAIR_LINES]
    if len(code) < 2:
        return []
    by: dict[str, list[tuple[TextArtifact, str]]] = {}
    stems = {t.path.rsplit("/", 1)[-1][:-3] for t in code}
    for t in code:
        stem = t.path.rsplit("/", 1)[-1][:-3]
        words = [m.group(1) for m in _VERSION_WORD.finditer(stem)]
        if not words and stem[:2] == "re" and stem[2:] in stems and re.match(r"(?:train|run|fit)", stem[2:]):
            # (retrain.py beside train.py: the run done again, a newer version of the script)
            stem, words = stem[2:], ["new"]
        by.setdefault(_VERSION_WORD.sub("", stem), []).append((t, words[0] if words else ""))
    out: list[tuple[TextArtifact, int, str, str]] = []
    for pair in by.values():
        if len(pair) != 2 or not (pair[0][1] or pair[1][1]):
            continue
        (a, wa), (b, wb) = pair

        def age(w: str) -> float:
            if _OLDER.match(w):
                return 0.0
            v = re.fullmatch(r"v(\d+)", w, re.I)
            # (a name that says it is the newer one, eval_new.py, beside a plain eval.py: the plain one is older)
            return 1.0 + int(v.group(1)) / 1000 if v else 9.5 if _NEWER.match(w) else 9.0
        old, new = (a, b) if age(wa) <= age(wb) else (b, a)
        lo = {ln.strip() for ln in old.text.split("\n")} - {""}
        ln_new = {ln.strip() for ln in new.text.split("\n")} - {""}
        if len(lo & ln_new) < 3:
            continue        # two different scripts, not two versions of one
        for t, side, other in ((old, "-", ln_new), (new, "+", lo)):
            fn = ""
            for i, ln in enumerate(t.text.split("\n"), 1):
                if (m := _DEF.match(ln)) is not None:
                    fn = m.group(1)
                if ln.strip() and ln.strip() not in other:
                    out.append((t, i, side, fn))
    return out


_DIFF_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[ \t]*(?:diff|patch)[ \t]*$", re.I | re.M)
_FENCE_END = re.compile(r"^[ \t]*(?:```|~~~)[ \t]*$")


def _hunk_changes(text: str, lines: list[str]) -> tuple[list[tuple[int, str, str | None, str]], set[str | None]]:
    """The changed lines of unified-diff hunks (git's `@@ -a,b +c,d @@`, or a bare `@@`) and of ```diff fences:
    (line, side, file, the function it sits in), and the files that gain an eval() call."""
    if not ("@@" in text and _HUNK_HEAD.search(text)) and not (("```" in text or "~~~" in text) and _DIFF_FENCE.search(text)):
        return [], set()
    path, hunk, func, fence, bare = None, False, "", False, False
    gained_eval: set[str | None] = set()
    changes: list[tuple[int, str, str | None, str]] = []
    for i, ln in enumerate(lines, 1):
        if _DIFF_FENCE.match(ln):
            hunk, fence, func = True, True, ""
        elif fence and _FENCE_END.match(ln):
            hunk, fence = False, False
        elif ln.startswith(("diff --git", "--- ", "index ", "new file", "deleted file")):
            hunk = fence
        elif ln.startswith("+++ "):
            path, hunk = ln[4:].strip().removeprefix("b/"), fence
        elif (h := _HUNK_HEAD.match(ln)) is not None:
            # git names the function a hunk sits in after its header ("@@ -128,14 +123,12 @@ def evaluation(")
            hunk, func, bare = True, ln[h.end():], not re.match(r"@@[ \t]+-", ln)
        elif hunk and bare and not fence and ln[:1] not in (" ", "+", "-", "\\", ""):
            hunk = False        # (a hand-typed bare @@ gives no length: its hunk ends where the diff's shape does)
        elif hunk and (m := _DEF.match(ln[1:])) is not None:
            func = m.group(1)
            if ln[:1] in ("+", "-"):
                changes.append((i, ln[0], path, func))
        elif hunk and ln[:1] in ("+", "-"):
            changes.append((i, ln[0], path, func))
            if ln[0] == "+" and _EVAL_CALL.search(ln):
                gained_eval.add(path)
    return changes, gained_eval


# Two versions of the code in a post, each in its own fenced block under a caption that says which ("Old:", "Before
# (v0.3):", "New version", "after the refactor:"): the lines only one of them has are what changed.
_OLD_CAPTION = re.compile(r"\b(?:old|before|original|previous|working|v1|good)\b", re.I)
_NEW_CAPTION = re.compile(r"\b(?:new|after|now|current|refactor\w*|rewritten|broken|v2|bad)\b", re.I)
_ANY_FENCE = re.compile(r"^[ \t]*(?:```|~~~)")
CAPTION_LINES = 3


def _paired_block_changes(text: str, lines: list[str]) -> list[tuple[int, str, str | None, str]]:
    """Changed lines between an old and a new fenced block of a post (see _OLD_CAPTION): the old block's own lines
    as removed ('-'), the new block's as added ('+'), each with the function it sits in."""
    if "```" not in text and "~~~" not in text:
        return []
    blocks: list[tuple[int, int]] = []       # (first line, last line) of each block's body, 1-based
    opened = None
    for i, ln in enumerate(lines, 1):
        if _ANY_FENCE.match(ln):
            if opened is None:
                opened = i
            else:
                blocks.append((opened + 1, i - 1))
                opened = None

    def caption(b: tuple[int, int]) -> str:
        return " ".join(lines[max(0, b[0] - 2 - CAPTION_LINES):b[0] - 2])[-200:]

    out: list[tuple[int, str, str | None, str]] = []
    for a, b in zip(blocks, blocks[1:]):
        ca, cb = caption(a), caption(b)
        if not (_OLD_CAPTION.search(ca) and _NEW_CAPTION.search(cb)) or _NEW_CAPTION.search(ca) and not \
                _OLD_CAPTION.search(ca[-40:]):
            continue
        old = {lines[i - 1].strip() for i in range(a[0], a[1] + 1)} - {""}
        new = {lines[i - 1].strip() for i in range(b[0], b[1] + 1)} - {""}
        if not old & new:       # two unrelated snippets, not two versions of one
            continue
        for (lo, hi), side, other in ((a, "-", new), (b, "+", old)):
            func = ""
            for i in range(lo, hi + 1):
                s = lines[i - 1].strip()
                if (m := _DEF.match(lines[i - 1])) is not None:
                    func = m.group(1)
                if s and s not in other:
                    out.append((i, side, None, func))
    return out


# ---------------------------------------------------------------- entry point

# Two versions of one run's output side by side in the folder (before/train.log and after/train.log,
# before_refactor.log and after_refactor.log): paths that are the same once version words are taken out.
_VERSION_DIR = re.compile(rf"^(?:{_VERSION_WORDS}|good|bad|baseline)$", re.I)
# A version's loss series must share this many steps with the other's to say "the training is the same"
SAME_TRAINING_POINTS = 4
# Two versions' values at a shared step within this (relative) are the same (a loss); further apart, they differ (a score)
SAME_REL_TOL = 1e-3


def _version_key(path: str) -> str:
    parts = path.split("/")
    dirs = [d for d in parts[:-1] if not _VERSION_DIR.match(d)]
    stem, dot, ext = parts[-1].rpartition(".")
    stem = _VERSION_WORD.sub("", stem) if dot else _VERSION_WORD.sub("", parts[-1])
    return "/".join(dirs + [stem + (dot + ext if dot else "")])


def version_pair_signals(run: Run) -> list[Signal]:
    """Two versions of one run's output in the folder (before/ and after/, `*_before.log` and `*_after.log`) whose
    losses are the same at every step both log (four shared steps at least) while a score (an accuracy, an error
    measure) differs: `versions:same_outputs_score_differs` where a held-out loss is among the same ones (the model
    and its predictions did not change, the way they are scored did), else `versions:same_training_score_differs`
    (the training did not change; the evaluation's data, mode or score may have)."""
    by_src: dict[str, dict[tuple[str, int | None], Series]] = {}
    for s in run.series:
        if len(s):
            cur = by_src.setdefault(s.source, {})
            if (s.name, s.rank) not in cur or len(s) > len(cur[(s.name, s.rank)]):
                cur[(s.name, s.rank)] = s
    groups: dict[str, list[str]] = {}
    for src in by_src:
        groups.setdefault(_version_key(src), []).append(src)
    for srcs in groups.values():
        if len(srcs) != 2 or _version_key(srcs[0]) == srcs[0] and _version_key(srcs[1]) == srcs[1]:
            continue
        a, b = by_src[srcs[0]], by_src[srcs[1]]
        same_loss, held_same, diff = 0, False, []
        for key in a.keys() & b.keys():
            sa, sb = a[key], b[key]
            steps = np.intersect1d(sa.steps, sb.steps)
            if not len(steps):
                continue
            va = sa.values[np.searchsorted(sa.steps, steps)] if np.all(np.diff(sa.steps) > 0) else None
            vb = sb.values[np.searchsorted(sb.steps, steps)] if np.all(np.diff(sb.steps) > 0) else None
            if va is None or vb is None:
                continue
            differs = ~np.isclose(va, vb, rtol=SAME_REL_TOL, atol=0.0, equal_nan=True)
            if "loss" in key[0]:
                if differs.any():
                    break       # a loss moved: the model's outputs changed
                same_loss = max(same_loss, len(steps))
                held_same = held_same or key[0].startswith("val_")
            elif differs.any() and (_HIGHER_BETTER.search(key[0]) or _LOWER_BETTER.search(key[0])):
                k = int(np.flatnonzero(differs)[0])
                diff.append((sa, sb, int(steps[k]), float(va[k]), float(vb[k])))
        else:
            if same_loss < SAME_TRAINING_POINTS or not diff:
                continue
            sa, sb, step, x, y = diff[0]
            kind = "versions:same_outputs_score_differs" if held_same else "versions:same_training_score_differs"
            txt = (f"{sa.source} and {sb.source} log the same {'training and held-out ' if held_same else 'training '}"
                   f"losses at {same_loss} shared steps, yet {sa.name} is {x:.4g} in one and {y:.4g} in the other (step "
                   f"{step}): " + ("the model and its held-out predictions are the same, the score is computed differently"
                                   if held_same else "the training is the same; the evaluation or its score changed"))
            q = Quoter(run)
            ev = [q.ev(v, int(np.flatnonzero(v.steps == step)[0]), f"{v.name} in {v.source}") for v in (sa, sb)]
            return [Signal(kind, 0.9 if held_same else 0.6, txt, ev,
                           {"metric": sa.name, "shared_loss_steps": same_loss, "a": x, "b": y})]
    return []


def compare(run: Run, base: Run, repo_root: Path | None = None) -> list[Signal]:
    """`baseline:*` signals for `run` against the good run `base` (strongest first)."""
    sigs = _curve_signals(run, base) + _fact_signals(run, base)
    if repo_root is not None:
        sigs += _code_signals(run, base, Path(repo_root))
    # one signal per kind: the strongest, with the others' evidence appended
    merged: dict[str, Signal] = {}
    for s in sorted(sigs, key=lambda s: -s.strength):
        key = f"{s.kind}/{s.data['metric']}" if s.kind == "baseline:val_metric_drop" else s.kind
        if key not in merged:
            merged[key] = s
        else:
            m = merged[key]
            m.evidence = (m.evidence + s.evidence)[: MAX_EVIDENCE * 2]
            m.summary += f"; {s.summary}"
    return sorted(merged.values(), key=lambda s: -s.strength)
