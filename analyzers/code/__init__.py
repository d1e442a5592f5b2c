"""Static checks of training code: parsed with `ast`, never executed.

In:  a Run whose `texts` hold Python source (`kind == "code"`), and posts (a text or log file) whose
     ```python fences quote code (index.fenced_code: checked at the post's own lines).
Out: `code_signals(run)` -> `code:*` Signals (vocabulary in analyzers/signals.md). Each cites
     the file, the 1-based line and that line's exact text, and says in words what is wrong.

The checks follow simple data flow inside one function (a name's last assignment
before its use) and a few facts gathered over every file of the run (model classes
that end in softmax or hold dropout/batch-norm, whether a GradScaler or gradient
clipping exists anywhere). They are heuristics tuned to stay silent on correct
code: where a pattern is ambiguous the check says nothing or emits a weak signal.

Where things live:
  index.py             AST helpers, the per-file index (PyFile, parsed once), the run's facts
                       (RunIndex), parse_code()
  zero_grad.py         code:missing_zero_grad
  output_act.py        the activation the model's output goes through (read for the two below)
  softmax.py           code:softmax_before_ce (also a softmax/sigmoid output to a loss that applies it:
                       BCEWithLogitsLoss, Keras from_logits=True), code:log_softmax_unstable, code:unsafe_log,
                       code:softmax_one_unit
  relu_output.py       code:relu_output
  div_std.py           code:unsafe_div_std, code:unsafe_sqrt
  variance.py          code:var_single_element
  fp16.py              code:fp16_no_scaler
  scheduler.py         code:scheduler_wrong_loop
  resume.py            code:resume_weights_only
  strict_load.py       code:load_not_strict
  preprocess_pair.py   code:eval_preprocessing_differs
  graph_kept.py        code:loss_kept_with_graph
  missing_values.py    code:missing_unhandled
  eval_mode.py         code:no_eval_at_inference, code:dropout_always_on
  detached.py          code:detached_graph
  params.py            code:frozen_params, code:params_not_in_optimizer, code:frozen_random_init
  no_shuffle.py        code:no_shuffle
  separate_shuffle.py  code:separate_shuffle
  frameworks.py        code:hf_trainer, code:lightning, code:no_grad_clip (framework settings)
  grad_clip.py         code:no_grad_clip (hand-written loop)
  training_setup.py    the setup checks below, with config values read from code (config_values.py)
  init_scale.py        code:init_std_large, code:init_constant_weights
  optimizer_args.py    code:optimizer_arg_mismatch
  input_scaling.py     code:raw_pixels_unscaled, code:features_unscaled
  leakage.py           code:val_overlaps_train, code:target_in_features
  inference_refit.py   code:vocab_rebuilt_at_inference, code:encoder_refit_at_inference (run-wide), code:vocab_per_split
This module runs them in a fixed order and turns their Findings into Signals; it also
re-exports the index's public names (codemods use them).
"""
from __future__ import annotations

import ast

from mltdbg.analyzers.code.detached import check_detached
from mltdbg.analyzers.code.div_std import check_div_std, check_sqrt
from mltdbg.analyzers.code.eval_mode import check_eval, check_functional_dropout, check_training_flag_at_eval
from mltdbg.analyzers.code.fp16 import check_fp16
from mltdbg.analyzers.code.frameworks import check_frameworks
from mltdbg.analyzers.code.grad_clip import check_grad_clip
from mltdbg.analyzers.code.inference_refit import check_inference_refit
from mltdbg.analyzers.code.graph_kept import check_graph_kept
from mltdbg.analyzers.code.index import (AMBIG_SCHED, CLEAR, EPOCH_SCHED, FUNCS, HINT, INFO, LOOPS, MEDIUM, NESTED,
                                         NORM_LAYERS, PASSTHRU, STEP_SCHED, STRONG, WEAK, Finding, PyFile, RunIndex,
                                         arg, build_index, chain_attrs, const, core, dotted, fname, framework_of,
                                         is_backward, is_model_name, is_no_grad_with, is_opt_step, is_sched_ctor,
                                         is_softmax_call, is_zero_grad, gc_paused, kwarg, last, model_calls, parse_code, sequential_ending,
                                         parse_tree, pyfile_of, recv, safe_from_zero, softmax_attrs, src)
from mltdbg.analyzers.code.no_shuffle import check_no_shuffle
from mltdbg.analyzers.code.params import check_params, param_paths
from mltdbg.analyzers.code.resume import check_resume
from mltdbg.analyzers.code.scheduler import check_scheduler
from mltdbg.analyzers.code.preprocess_pair import check_preprocess_pair
from mltdbg.analyzers.code.relu_output import check_relu_output
from mltdbg.analyzers.code.separate_shuffle import check_separate_shuffle
from mltdbg.analyzers.code.softmax import check_softmax
from mltdbg.analyzers.code.strict_load import check_strict_load
from mltdbg.analyzers.code.training_setup import setup_findings
from mltdbg.analyzers.code.variance import check_var
from mltdbg.analyzers.code.missing_values import check_missing_unhandled
from mltdbg.analyzers.code.registration import check_registration
from mltdbg.analyzers.code.zero_grad import check_zero_grad
from mltdbg.analyzers.model import Evidence, Run, Signal

__all__ = ["AMBIG_SCHED", "CLEAR", "EPOCH_SCHED", "FUNCS", "Finding", "HINT", "INFO", "LOOPS", "MEDIUM", "NESTED",
           "NORM_LAYERS", "PASSTHRU", "PyFile", "RunIndex", "STEP_SCHED", "STRONG", "WEAK", "arg", "build_index",
           "chain_attrs", "check_detached", "check_div_std", "check_eval", "check_fp16", "check_frameworks",
           "check_grad_clip", "check_no_shuffle", "check_params", "check_registration", "check_resume", "check_scheduler",
           "check_separate_shuffle", "check_softmax", "check_var", "check_zero_grad", "code_signals", "const",
           "core", "dotted", "fname", "framework_of", "is_backward", "is_model_name", "is_no_grad_with",
           "is_opt_step", "is_sched_ctor", "is_softmax_call", "is_zero_grad", "kwarg", "last", "model_calls",
           "param_paths", "parse_code", "parse_tree", "pyfile_of", "recv", "safe_from_zero", "softmax_attrs", "src"]

_FILE_CHECKS = (check_zero_grad, check_fp16, check_scheduler, check_eval, check_frameworks)
_PLAIN_CHECKS = (check_div_std, check_sqrt, check_var, check_resume, check_detached, check_params, check_no_shuffle,
                 check_separate_shuffle, check_registration, check_relu_output,
                 check_strict_load, check_preprocess_pair, check_functional_dropout, check_graph_kept,
                 check_missing_unhandled, check_training_flag_at_eval)


def code_signals(run: Run, files: list[PyFile] | None = None) -> list[Signal]:
    """`code:*` signals for every Python code artifact in the run (never executes it).

    `files`: parse_code(run) of this same run, when the caller already holds it (a codemod
    that also edits the code); parsed here when not given. Each file is parsed once."""
    # One pause for the whole of it: each pause's end lets the collector rescan everything
    # allocated during the pause, so parse, index, checks and signals share one.
    with gc_paused():
        files = parse_code(run) if files is None else files
        if not files:
            return []
        key = tuple(files)
        hit = _FOUND.get(key)
        if hit is None:
            hit = _FOUND[key] = _file_findings(files)
            while len(_FOUND) > FOUND_CACHE:
                del _FOUND[next(iter(_FOUND))]
        found, too_deep = hit
        run.warnings += [f"{p}:1: code too deeply nested to check" for p in too_deep]
        return _to_signals(found + setup_findings(files, run))


# The findings that depend on the code alone are kept for the last few sets of files: one
# diagnosis asks again for the same files' signals (each codemod looks for its spot).
FOUND_CACHE = 8
_FOUND: dict[tuple, tuple[list, list[str]]] = {}


def _file_findings(files: list[PyFile]) -> tuple[list[tuple[PyFile, Finding]], list[str]]:
    """(findings of the per-file and run-wide checks, paths too deeply nested to check)."""
    idx = build_index(files)
    found: list[tuple[PyFile, Finding]] = []
    too_deep: list[str] = []
    for f in files:
        try:
            for chk in _FILE_CHECKS:
                found += [(f, x) for x in chk(f, idx)]
            found += [(f, x) for x in check_softmax(f, idx)]
            for chk in _PLAIN_CHECKS:
                found += [(f, x) for x in chk(f)]
        except RecursionError:
            too_deep.append(f.t.path)
    # a model whose forward ends in softmax, cross-entropy used (or only built: a post that quotes the
    # model class and the criterion, not the call), flow not followed
    ce = idx.ce_used or idx.ce_built
    probs = list(idx.prob_classes.values()) or _softmax_heads([cf for cf, _ in ce])
    if probs and ce and not any(x.kind == "code:softmax_before_ce" for _, x in found):
        (pf, line) = probs[0]
        ce_f, ce_line = ce[0]
        found.append((pf, Finding("code:softmax_before_ce", MEDIUM, line,
                                  "the model's forward returns softmax probabilities and the run trains with"
                                  " cross-entropy, which expects logits",
                                  [(ce_line, "cross-entropy here" if idx.ce_used else "cross-entropy criterion built here",
                                    ce_f)])))
    found += check_grad_clip(files, idx)
    found += check_inference_refit(files)
    return found, too_deep


def _softmax_heads(files: list[PyFile]) -> list[tuple[PyFile, int]]:
    """Layers built as an nn.Sequential that ends in nn.Softmax (`self.head = nn.Sequential(nn.Linear(256, 10),
    nn.Softmax(dim=1))`), outside a model class whose forward the index follows, in the files given (those that
    build or call the cross-entropy): (file, line) of each. A head named for pooling or attention weights is
    a softmax over positions, not the classifier's output."""
    out = []
    for f in dict.fromkeys(files):
        for n in f.of_type(ast.Assign):
            if isinstance(n, ast.Assign) and sequential_ending(n.value, "Softmax") is not None \
                    and not any(w in src(n.targets[0]).lower() for w in ("pool", "attn", "attention", "weight")):
                out.append((f, n.lineno))
    return out


def _to_signals(found: list[tuple[PyFile, Finding]]) -> list[Signal]:
    out, seen = [], set()
    for f, x in found:
        key = (x.kind, f.t.path, x.line)
        if key in seen:
            continue
        seen.add(key)
        t = f.t
        ev = [Evidence(text=x.text, source=t.path, line=x.line, quote=t.line(x.line))]
        for m in x.more:
            mt = m[2].t if len(m) > 2 else t
            ev.append(Evidence(text=m[1], source=mt.path, line=m[0], quote=mt.line(m[0])))
        out.append(Signal(kind=x.kind, strength=round(float(x.strength), 3),
                          summary=f"{t.path}:{x.line}: {x.text}", evidence=ev,
                          data={"file": t.path, "line": x.line, **x.data}))
    out.sort(key=lambda s: -s.strength)
    return out
