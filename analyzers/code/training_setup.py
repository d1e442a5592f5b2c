"""Checks of how a training run is set up (not of the loop): weight init, optimizer arguments,
input scaling, the train/validation split.

In:  the run's parsed code files (PyFile, from code/index.py) and the run itself (its config
     files, so `cfg["init_std"]` in code reads as the value config.yaml gives it).
Out: `setup_findings(files, run)` -> (PyFile, Finding) pairs for code/__init__.py to turn into
     Signals: code:init_std_large, code:init_constant_weights (init_scale.py),
     code:optimizer_arg_mismatch (optimizer_args.py), code:raw_pixels_unscaled (input_scaling.py),
     code:val_overlaps_train, code:target_in_features (leakage.py), code:tokenizer_model_differ
     (tokenizer_pair.py), code:eval_preprocessing_differs across files (preprocess_pair.py).
"""
from __future__ import annotations

from mltdbg.analyzers.code.config_values import ConfigValues
from mltdbg.analyzers.code.index import Finding, PyFile
from mltdbg.analyzers.code.init_scale import check_init_scale
from mltdbg.analyzers.code.input_scaling import check_input_scaling, check_tabular_scaling
from mltdbg.analyzers.code.leakage import check_leakage
from mltdbg.analyzers.code.optimizer_args import check_optimizer_args
from mltdbg.analyzers.code.preprocess_pair import check_inference_unnormalized
from mltdbg.analyzers.code.tokenizer_pair import check_model_named_in_post, check_tokenizer_pair
from mltdbg.analyzers.model import Run


def setup_findings(files: list[PyFile], run: Run) -> list[tuple[PyFile, Finding]]:
    """Every training-setup finding over the run's code files."""
    conf = ConfigValues(run, files)
    per_file, scaling = _code_only(files)
    if not any(x.kind == "code:tokenizer_model_differ" for _, x in scaling):
        scaling = scaling + check_model_named_in_post(files, run)
    out: list[tuple[PyFile, Finding]] = []
    for f, rest in zip(files, per_file):
        out += [(f, x) for x in check_init_scale(f, files, conf)]
        out += rest
    return out + scaling


# The findings that read the code alone (not the run's config files), for the last few sets of
# files: one diagnosis asks for the same files' signals again (each codemod looks for its spot).
_CODE_ONLY: dict[tuple, tuple[list, list]] = {}
CODE_ONLY_CACHE = 8


def _code_only(files: list[PyFile]) -> tuple[list[list[tuple[PyFile, Finding]]], list]:
    key = tuple(files)
    hit = _CODE_ONLY.get(key)
    if hit is None:
        per_file = [[(f, x) for x in check_optimizer_args(f)] + [(f, x) for x in check_leakage(f)] for f in files]
        hit = _CODE_ONLY[key] = (per_file, check_input_scaling(files) + check_tabular_scaling(files)
                                 + check_tokenizer_pair(files) + check_inference_unnormalized(files))
        while len(_CODE_ONLY) > CODE_ONLY_CACHE:
            del _CODE_ONLY[next(iter(_CODE_ONLY))]
    return hit
