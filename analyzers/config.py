"""Config and environment facts, and the config signals drawn from them.

In:  a `Run` whose `texts` hold configs (YAML/JSON, Lightning hparams.yaml), code
     (read with `ast`, never executed) and logs (argparse `Namespace(...)` dumps,
     HF `TrainingArguments(...)` reprs, `key: value` lines, pip freeze /
     collect_env / nvidia-smi output, git SHAs).
Out: `extract_facts(run)` appends typed `Fact`s (names in signals.md), each with
     source, line and quote, ordered config < code < log (a log shows what ran);
     `config_signals(run)` returns `config:fp16`, `config:no_grad_clip`,
     `config:warmup_zero`, and the optimiser / batch settings that are off by
     themselves: `config:weight_decay_high`, `config:momentum_odd`,
     `config:betas_odd`, `config:eps_large`, `config:batch_size_tiny`.
"""
from __future__ import annotations

import ast
import difflib
import json
import math
import re
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

import yaml

from mltdbg.analyzers.common import yamlsafe
from mltdbg.analyzers.common.textfind import contains_any
from mltdbg.analyzers.model import Evidence, Fact, Run, Signal, TextArtifact
from mltdbg.analyzers.names import is_held_out
from mltdbg.analyzers.code.index import notebook_cells, post_code, pyfile_of
from mltdbg.analyzers.prose import is_sentence

QUOTE_MAX = 300
_LOG_HEAD = 300_000      # key: value facts are read from a log's head (where configs are printed)

# ----------------------------------------------------------------------------- synonyms

_SYN: dict[str, str] = {}
for _fact, _names in {
    "lr": "lr learning_rate learning-rate base_lr max_lr lr_max peak_lr init_lr initial_lr lr0 optimizer.lr optim.lr "
          "optimizer.params.lr optimizer.learning_rate",
    "batch_size": "batch_size train_batch_size per_device_train_batch_size per_gpu_train_batch_size "
                  "micro_batch_size train_micro_batch_size_per_gpu bs batchsize data.batch_size "
                  # (OpenMMLab's data = dict(samples_per_gpu=2), its older imgs_per_gpu)
                  "samples_per_gpu imgs_per_gpu batch_size_per_gpu batch_size_per_device",
    "grad_clip": "max_grad_norm gradient_clip_val clip_grad_norm grad_clip clip_grad gradient_clipping clip_norm "
                 "max_norm grad_norm_clip clip_grad_norm_ clip_gradient",
    "optimizer": "optimizer optim optimizer_name optimizer.name optimizer.type optimizer._target_ opt optimizer_type "
                 "optim.name optim.type optim._target_",
    "scheduler": "scheduler lr_scheduler lr_scheduler_type scheduler.name scheduler.type lr_schedule "
                 "scheduler._target_ lr_scheduler.name lr_scheduler.type lr_decay_style",
    "warmup_steps": "warmup_steps num_warmup_steps warmup lr_warmup_steps warmup_iters warmup_num_steps "
                    "scheduler.warmup_steps lr_warmup_iters t_warmup scheduler.t_warmup",   # (OLMo's t_warmup)
    "warmup_ratio": "warmup_ratio warmup_fraction pct_start warmup_pct warmup_proportion",
    "seed": "seed random_seed manual_seed seed_everything set_seed",
    "epochs": "epochs num_epochs num_train_epochs max_epochs n_epochs train_epochs",
    "max_steps": "max_steps max_iters total_steps num_training_steps train_steps max_iterations num_steps "
                 "train_iters total_optimization_steps",
    # OLMo's and Composer's run length (an int is steps; "2ep" / "1e9T" say their unit); lhotse's --max-duration and
    # NeMo's max_duration are seconds of audio: read as steps only beside OLMo's t_warmup (_warmup_past_run)
    "max_duration": "max_duration",
    "weight_decay": "weight_decay wd l2_reg optimizer.weight_decay",
    "momentum": "momentum sgd_momentum optimizer.momentum optim.momentum",
    "beta1": "beta1 adam_beta1 optimizer.beta1",
    "beta2": "beta2 adam_beta2 optimizer.beta2",
    "_betas": "betas adam_betas optimizer.betas optim.betas",
    # only keys that name the optimiser's epsilon (a bare `eps` is as often a norm layer's or label smoothing's)
    "eps": "adam_eps adam_epsilon optimizer.eps optim.eps optimizer_eps opt_eps optimizer.epsilon optimizer.params.eps "
           "adam.epsilon adam.eps adamw.epsilon adamw.eps",
    "global_batch_size": "global_batch_size total_batch_size effective_batch_size",
    "grad_accum": "gradient_accumulation_steps accumulate_grad_batches grad_accum_steps grad_accum accum_iter "
                  "accumulation_steps update_freq gradient_accumulation grad_accumulation_steps",
    "num_classes": "num_classes n_classes num_labels nclasses num_class n_labels",
    "vocab_size": "vocab_size n_vocab vocabulary_size ntokens",
    "dropout": "dropout dropout_rate drop_rate hidden_dropout_prob dropout_prob p_dropout dropout_p",
    "num_workers": "num_workers workers dataloader_num_workers n_workers data.num_workers",
    "tokenizer": "tokenizer tokenizer_name tokenizer_name_or_path tokenizer_path vocab_file tokenizer.name",
    "checkpoint": "checkpoint ckpt ckpt_path checkpoint_path pretrained model_name_or_path init_from load_from "
                  "pretrained_model_name_or_path pretrained_path load_checkpoint weights",
    "resume_from": "resume_from_checkpoint resume_from resume resume_path ckpt_resume resume_checkpoint",
    # (DeepSpeed's config: "fp16": {"enabled": true}, "bf16": {"enabled": true}, "amp": {"enabled": true})
    "_fp16": "fp16 half use_fp16 fp16.enabled",
    "_bf16": "bf16 use_bf16 bf16.enabled",
    "_precision": "precision mixed_precision amp_dtype dtype torch_dtype trainer.precision",
    "_amp": "amp use_amp autocast enable_amp apex amp.enabled",
    # the data and model setup a run states in its config (a benchmark scenario's, a sweep's); not the
    # names other settings share: flip_prob (an augmentation's), init_scale (GradScaler's), noise_ratio
    "label_noise": "label_noise label_noise_rate label_noise_ratio label_noise_prob noisy_label_rate noisy_labels_rate "
                   "noise_rate label_corruption label_corruption_prob corrupt_prob corruption_prob "
                   "corrupt_labels label_flip_prob label_flip_rate mislabel_rate mislabel_ratio "
                   "symmetric_noise asymmetric_noise",
    "shuffle": "shuffle shuffle_train train_shuffle shuffle_data data.shuffle dataloader.shuffle train.shuffle",
    # the Trainer's choice of the checkpoint it keeps: by which metric, which way is better, and whether it loads it
    "best_metric": "metric_for_best_model",
    "greater_is_better": "greater_is_better",
    "load_best": "load_best_model_at_end",
    "normalize": "normalize normalise normalize_inputs normalize_input normalise_inputs standardize standardise "
                 "standardize_inputs input_normalization normalize_data normalization feature_scaling scale_inputs",
    "freeze": "freeze freeze_backbone freeze_encoder freeze_base freeze_base_model freeze_body freeze_bert "
              "freeze_feature_extractor freeze_pretrained freeze_layers freeze_weights frozen "
              # open_clip's --lock-image / --lock-text: a tower held fixed
              "lock_image lock_text lock_image_tower lock_text_tower",
    "init_std": "init_std weight_init_std weight_std initializer_range init_range weight_init_scale "
                # (a nested init section: init: {type: normal, std: 1.0})
                "init.std weight_init.std initializer.std initialization.std",
    "bias_init": "bias_init bias_init_value init_bias bias_fill",
    # the model's shape a scenario's config states: its hidden activation and how many layers use it
    # (not n_hidden / num_hidden, which name a width as often as a depth)
    "activation": "activation activation_fn act act_fn activation_function hidden_activation nonlinearity "
                  "non_linearity model.activation",
    "num_layers": "num_layers n_layers num_hidden_layers n_hidden_layers hidden_layers depth model.num_layers "
                  "model.depth",
    # the width of the hidden layers (a list gives each layer's; sklearn's MLP takes hidden_layer_sizes)
    "hidden_width": "hidden hidden_size hidden_sizes hidden_dim hidden_dims hidden_units hidden_layer_sizes layer_sizes "
                    "model.hidden model.hidden_size model.hidden_dim",
}.items():
    for _n in _names.split():
        _SYN[_n] = _fact

_OPTIMIZERS = {"adam", "adamw", "sgd", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "radam", "lbfgs",
               "adafactor", "lion", "lamb", "lars", "fusedadam", "fusedlamb", "adam8bit", "adamw8bit",
               "pagedadamw", "pagedadamw8bit", "sparseadam", "asgd", "rprop", "sophia", "shampoo", "muon"}
_SCHEDULERS = {"OneCycleLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts", "StepLR", "MultiStepLR",
               "ExponentialLR", "LinearLR", "ReduceLROnPlateau", "LambdaLR", "CyclicLR", "PolynomialLR",
               "SequentialLR", "ConstantLR", "get_linear_schedule_with_warmup", "get_cosine_schedule_with_warmup",
               "get_constant_schedule_with_warmup", "get_polynomial_decay_schedule_with_warmup",
               "get_cosine_with_hard_restarts_schedule_with_warmup", "get_scheduler", "get_constant_schedule",
               "get_inverse_sqrt_schedule", "create_lr_scheduler_with_warmup", "WarmupLR", "WarmupDecayLR"}
_SEED_CALLS = {"manual_seed", "seed_everything", "set_seed", "manual_seed_all"}
_CONFIG_CALLS = {"TrainingArguments", "Seq2SeqTrainingArguments", "Trainer", "DataLoader", "SFTConfig",
                 "TrainerConfig", "Accelerator", "GPTConfig", "Config", "dict",
                 # Keras' loaders take the batch size and the shuffle switch
                 "image_dataset_from_directory", "text_dataset_from_directory", "flow_from_directory",
                 "flow_from_dataframe", "timeseries_dataset_from_array"}

# Optimisers whose `momentum` argument defaults to 0 in torch (a call without it runs without momentum).
_MOMENTUM_OPTIMIZERS = {"sgd", "rmsprop"}
_INT_FACTS = {"batch_size", "warmup_steps", "seed", "epochs", "max_steps", "max_duration", "num_classes", "num_workers", "grad_accum",
              "global_batch_size", "num_layers", "vocab_size", "hidden_width"}
_FLOAT_FACTS = {"lr", "warmup_ratio", "weight_decay", "dropout", "grad_clip", "momentum", "beta1", "beta2", "eps",
                "init_std", "bias_init"}
_BOOL_FACTS = {"shuffle", "normalize", "greater_is_better", "load_best"}
_STR_FACTS = {"optimizer", "scheduler", "tokenizer", "checkpoint", "resume_from", "activation", "best_metric"}


# ----------------------------------------------------------------------------- values

def _num(v: Any) -> Any:
    """Numbers written as strings ('3e-4', '1,000') become numbers; others unchanged."""
    if isinstance(v, str):
        t = v.strip().strip("'\"").replace(",", "") if re.fullmatch(r"\s*['\"]?[-+\d.,eE]+['\"]?\s*", v) else None
        if t:
            try:
                f = float(t)
                return int(f) if re.fullmatch(r"[-+]?\d+", t) else f
            except ValueError:
                return v
    return v


def _scalar(raw: str) -> Any:
    """A value as printed in a log (`0.1`, `True`, `None`, `adamw_torch`, `'x'`), typed."""
    s = raw.strip().rstrip(",").strip()
    low = s.lower()
    if low in ("none", "null", "~"):
        return None
    if low in ("true", "false"):
        return low == "true"
    try:
        return ast.literal_eval(s)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        pass
    n = _num(s)
    return n if not isinstance(n, str) else s.strip("'\"")


def _typed(name: str, key: str, value: Any) -> list[tuple[str, Any]]:
    """(fact name, value) pairs for one synonym hit; [] when the value does not fit the fact."""
    v = _num(value)
    if name in ("num_layers", "hidden_width") and isinstance(v, (list, tuple)):
        # hidden_layers: [64, 64, 64] gives the widths, one per layer: the count, and the narrowest
        if not v or not all(isinstance(_num(x), int) and not isinstance(x, bool) and _num(x) > 0 for x in v):
            return []
        width = [("hidden_width", min(_num(x) for x in v))]
        return [("num_layers", len(v))] + width if name == "num_layers" else width
    if name == "hidden_width":
        return [(name, v)] if isinstance(v, int) and not isinstance(v, bool) and v > 0 else []
    if name == "_betas":
        if isinstance(v, str):   # "(0.9, 0.999)" as printed in a log
            v = _scalar(v)
        if isinstance(v, (list, tuple)) and len(v) == 2 and all(
                isinstance(_num(b), (int, float)) and not isinstance(b, bool) for b in v):
            return [("beta1", float(_num(v[0]))), ("beta2", float(_num(v[1])))]
        return []
    if isinstance(v, (dict, list, tuple)) and name not in ("_precision",):
        return []
    if name == "_fp16":
        return [("precision", "fp16"), ("amp", True)] if v is True or v in (1, "O1", "O2") else []
    if name == "_bf16":
        return [("precision", "bf16"), ("amp", True)] if v is True or v == 1 else []
    if name == "_amp":
        if isinstance(v, bool):
            return [("amp", v)]
        if isinstance(v, str) and v.lower() in ("o1", "o2", "o3", "native", "apex", "fp16", "bf16"):
            return [("amp", True)] + ([("precision", v.lower())] if v.lower() in ("fp16", "bf16") else [])
        return []
    if name == "_precision":
        p = _precision(v, key)
        return p
    if name in _BOOL_FACTS:
        return [(name, v)] if isinstance(v, bool) else []
    if name == "freeze":
        # a switch, or a count of frozen layers (0: none)
        if isinstance(v, bool) or (isinstance(v, (int, float)) and v >= 0):
            return [(name, bool(v))]
        return []
    if name == "label_noise":
        # a share of the labels (0.4) or a percentage (40); 0 / false is a clean run
        if v is False or v is None:
            return [(name, 0.0)]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 <= v <= 100:
            return []
        return [(name, float(v) / 100 if v > 1 else float(v))]
    if name in _INT_FACTS:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return []
        if name == "warmup_steps" and isinstance(v, float) and 0 < v < 1:
            return [("warmup_ratio", v)]     # (GPT-NeoX's `warmup: 0.01`: a share of the run, not 0 steps)
        return [(name, int(v))]
    if name in _FLOAT_FACTS:
        if name == "grad_clip" and (v is None or v is False):
            return [(name, None)]
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return []
        return [(name, float(v))]
    if name in _STR_FACTS:
        if v is None or v is False:
            return [(name, None)] if name in ("resume_from", "checkpoint") else []
        if not isinstance(v, str) or not v.strip():
            return []
        if name == "optimizer":
            return [(name, _optimizer_name(v))]
        if name == "scheduler":
            return [(name, v.rsplit(".", 1)[-1])]
        if name == "activation":
            return [(name, v.rsplit(".", 1)[-1].lower())]
        return [(name, v)]
    return []


def _optimizer_name(v: str) -> str:
    """'torch.optim.AdamW' / 'adamw_torch' / 'FusedAdam' -> 'adamw' / 'adamw' / 'fusedadam'."""
    s = v.rsplit(".", 1)[-1].lower()
    for suffix in ("_torch_fused", "_torch", "_hf", "_apex_fused", "_fused", "_bnb_8bit", "_8bit", "_anyprecision"):
        if s.endswith(suffix):
            s = s[: -len(suffix)]
    return s


def _precision(v: Any, key: str) -> list[tuple[str, Any]]:
    """precision/amp from Lightning/accelerate/HF spellings ('16-mixed', 'bf16', 'fp16', torch.float16...)."""
    s = str(v).lower().replace("torch.", "")
    mixed_key = key in ("mixed_precision", "amp_dtype", "autocast")
    if s in ("16", "16-mixed", "fp16", "mixed", "o1", "o2"):
        return [("precision", "fp16"), ("amp", True)]
    if s in ("16-true", "half", "float16"):        # weights in fp16, no autocast unless the key says so
        return [("precision", "fp16"), ("amp", mixed_key)]
    if s in ("bf16", "bf16-mixed"):
        return [("precision", "bf16"), ("amp", True)]
    if s in ("bf16-true", "bfloat16"):
        return [("precision", "bf16"), ("amp", mixed_key)]
    if s in ("32", "32-true", "fp32", "float32", "no", "64", "64-true", "float64", "full"):
        return [("precision", "fp32"), ("amp", False)]
    return []


# The boundary inside a camelCase word: a lower-case letter or digit, then a capital.
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)  # a log repeats the same few keys on every line
def key_name(key: str) -> str | None:
    """Fact name for a (possibly dotted) key: the full path first, then its last part. camelCase keys
    (`learningRate`, `batchSize`, `weightDecay`: JavaScript, Java and Julia configs, TF Playground's URL
    state) are read as their snake_case spelling."""
    if not key.startswith("learning-rate"):
        k = _CAMEL.sub("_", key).lower().lstrip("-").replace("-", "_")
    else:
        k = "learning-rate"
    if k in _SYN:
        return _SYN[k]
    last = k.rsplit(".", 1)[-1]
    if last in _SYN:
        return _SYN[last]
    parts = k.split(".")
    if len(parts) >= 2 and ".".join(parts[-2:]) in _SYN:
        return _SYN[".".join(parts[-2:])]
    return None


# ----------------------------------------------------------------------------- facts collection

class _Facts:
    def __init__(self, art: TextArtifact):
        self.art = art
        self.out: list[Fact] = []
        self.seen: set[tuple[str, int | None, str]] = set()
        self.defaults: list[Fact] = []   # a library's default, kept only where nothing names the setting
        self.custom_optimizer = False    # Trainer(optimizers=...): the HF default optimizer is not used
        self.pyfile: Any = None           # the parsed code being read (a keyword's name resolved in its scope)

    def add(self, name: str, value: Any, line: int | None, quote: str | None = None) -> None:
        key = (name, line, repr(value))
        if key in self.seen:
            return
        self.seen.add(key)
        if quote is None and line is not None:
            quote = self.art.line(line)
        self.out.append(Fact(name=name, value=value, source=self.art.path, line=line,
                             quote=(quote or "")[:QUOTE_MAX] or None))

    def trainer_default_optimizer(self, line: int, value: str = "adamw") -> None:
        """The HF Trainer's default optimizer (adamw), named where its arguments are (a
        TrainingArguments(...) call, a launch command's flags), kept only where no fact names one;
        or another trainer's (fastai's Learner: adam)."""
        self.defaults.append(Fact(name="optimizer", value=value, source=self.art.path, line=line,
                                  quote=(self.art.line(line) or "")[:QUOTE_MAX] or None))

    def key_value(self, key: str, value: Any, line: int | None, quote: str | None = None) -> None:
        name = key_name(key)
        if name is None:
            return
        for fact, v in _typed(name, key.lower().rsplit(".", 1)[-1], value):
            self.add(fact, v, line, quote)


# ---- config files (YAML / JSON) with line numbers from the YAML node marks

# A gin binding ("trainer.adam.learning_rate = 1e-3", "train/Adam.epsilon = 1.0", a scope before the '/'); gin files
# are no YAML.
_GIN_BINDING = re.compile(r"^[ \t]*(?:[\w.]+/)?([A-Za-z_][\w.]*\.[A-Za-z_]\w*)[ \t]*=[ \t]*([^#\n]+?)[ \t]*(?:#.*)?$", re.M)


def _config_facts(art: TextArtifact, fx: _Facts, run: Run) -> None:
    if art.path.lower().endswith(".gin"):
        line, at = 1, 0
        for m in _GIN_BINDING.finditer(art.text):
            line += art.text.count("\n", at, m.start())
            at = m.start()
            if "/" not in m.group(0).split("=", 1)[0]:      # (a scoped binding, "eval/...", is not the training's)
                fx.key_value(m.group(1), _scalar(m.group(2)), line)
        return
    try:
        node = yamlsafe.compose(art.text)      # bounded: size, alias expansion, depth
    except yamlsafe.YamlRefused as e:
        run.warnings.append(f"{art.path}: config not read: {e}")
        return
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        try:
            if len(art.text) > yamlsafe.MAX_YAML_BYTES:
                raise ValueError("too large")
            data = json.loads(art.text)
        except (ValueError, RecursionError) as je:     # RecursionError: JSON nested thousands deep
            if art.path.lower().endswith(".json") and isinstance(je, json.JSONDecodeError):
                # a .json file is told by the JSON error (where it stops: often a file cut off mid-write)
                run.warnings.append(f"{art.path}:{je.lineno}: not valid JSON, not read ({je.msg} at column {je.colno})")
            else:
                run.warnings.append(f"{art.path}:{line}: config not parsed ({str(e).splitlines()[0][:120]})")
            return
        items: list[tuple[str, Any, int | None]] = [(k, v, _find_key_line(art, k.rsplit(".", 1)[-1]))
                                                    for k, v in _flatten(data, "")]
        for k, v, at_line in items:
            fx.key_value(k, v, at_line)
            if (meant := _misspelled(k)) is not None:
                fx.add("key_misspelled", f"{k.rsplit('.', 1)[-1]}->{meant}", at_line)
        _split_twin_facts(items, fx)
        return
    if node is None:
        return
    loader = yaml.SafeLoader("")
    items = []
    for path, scalar in _walk(node, ""):
        try:
            v = loader.construct_object(scalar, deep=True)
        except Exception:  # an odd tag: keep the text
            v = scalar.value
        line = scalar.start_mark.line + 1
        items.append((path, v, line))
        if path == "batch" and isinstance(v, int) and not isinstance(v, bool) and v > 0:
            path = "batch_size"      # ultralytics' args.yaml (batch: 16; -1, its auto batch, is no size)
        fx.key_value(path, v, line)
        if (meant := _misspelled(path)) is not None:
            fx.add("key_misspelled", f"{path.rsplit('.', 1)[-1]}->{meant}", line)
    _split_twin_facts(items, fx)


# A config's training and evaluation sections that set one preprocessing value differently
# (`train_transform.sample_rate: 16000` beside `val_transform.sample_rate: 8000`, `data.train.mean` beside
# `data.val.mean`): the model is scored on inputs prepared unlike the ones it learnt from. Only settings
# that should match are compared: signal and feature extraction, normalisation constants, point and clip
# sampling; augmentation, batch size, clip counts and generation lengths differ between the sides by design.
_SPLIT_WORD = re.compile(r"(?:^|(?<=[_\-]))(train|training|val|valid|validation|dev|eval|evaluation|test|testing|inference|infer)"
                         r"(?=$|[_\-])", re.I)
_TWIN_KEYS = frozenset({"sample_rate", "sampling_rate", "sr", "n_fft", "hop_length", "hop_size", "win_length", "win_size",
                        "window_size", "n_mels", "num_mels", "n_mfcc", "f_min", "f_max", "fmin", "fmax", "mean", "std",
                        "norm_mean", "norm_std", "pixel_mean", "pixel_std", "normalize", "normalization", "rescale",
                        "scale_factor", "num_points", "npoints", "n_points", "clip_len", "frame_interval", "to_rgb",
                        "color_space", "lowercase", "do_lower_case"})
# (image sizes are not compared: a larger test resolution is a recipe, FixRes); a path through an augmentation step
# ("train_transform.gaussian_noise.std: 0.01" beside 0.0 at evaluation) is augmentation, off at evaluation by design
_AUGMENT_SEGMENT = re.compile(r"nois|aug|jitter|mask|blur|random|dropout|mixup|cutmix|erasing", re.I)
# a sample rate in Hz (an audio front end's); "train_sample_rate: 0.2", a share of the data set, is none
SAMPLE_RATE_HZ = 1000
_HZ_KEYS = frozenset({"sample_rate", "sampling_rate", "sr"})


def _same_setting(a: Any, b: Any) -> bool:
    """Equal settings; numbers within 5 % of each other count as equal (statistics a config reports per
    split, a train mean of 0.131 beside a val mean of 0.129, are no preprocessing choice), a list and a tuple
    of the same numbers too, and NaN is NaN."""
    xs, ys = (list(a) if isinstance(a, (list, tuple)) else [a]), (list(b) if isinstance(b, (list, tuple)) else [b])
    if len(xs) == len(ys) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in xs + ys):
        return all((math.isnan(x) and math.isnan(y)) or abs(x - y) <= 0.05 * max(abs(x), abs(y)) for x, y in zip(xs, ys))
    return str(a).lower() == str(b).lower()


def _split_twin_facts(items: list[tuple[str, Any, int | None]], fx: _Facts) -> None:
    """`eval_preprocessing_differs` facts: a training-side key whose evaluation-side twin (the same
    path with its split word swapped) holds another value."""
    sides: dict[str, dict[str, tuple[str, Any, int | None]]] = {}
    for path, v, line in items:
        parts = path.split(".")
        last = parts[-1].lower()
        hit = None
        for i, seg in enumerate(parts):
            m = _SPLIT_WORD.search(seg)
            if m is not None:
                hit = (i, m)
        if hit is None:
            continue
        i, m = hit
        rest = _SPLIT_WORD.sub("", parts[i]).strip("_-").lower() if i == len(parts) - 1 else last
        if rest not in _TWIN_KEYS or any(_AUGMENT_SEGMENT.search(p) for p in parts[:-1]) or rest in _HZ_KEYS and not (
                isinstance(v, (int, float)) and not isinstance(v, bool) and v >= SAMPLE_RATE_HZ):
            continue
        key = ".".join(parts[:i] + [parts[i][:m.start()] + "*" + parts[i][m.end():]] + parts[i + 1:])
        side = "train" if m.group(1).lower().startswith("train") else "eval"
        sides.setdefault(key, {}).setdefault(side, (path, v, line))
    for pair in sides.values():
        if len(pair) == 2 and not _same_setting(pair["train"][1], pair["eval"][1]):
            (tp, tv, tl), (ep, ev, el) = pair["train"], pair["eval"]
            fx.add("eval_preprocessing_differs", f"{tp}={tv} vs {ep}={ev}", el if el is not None else tl)


# Optimizer settings a config names, and how a key one or two keystrokes off one of them reads: `momemtum: 0.9`
# is a key no code asks for, so the optimizer runs with its default (0 momentum, no weight decay).
_OPTIMIZER_KEYS = ("momentum", "weight_decay", "nesterov", "betas", "beta1", "beta2", "epsilon", "amsgrad",
                   "dampening")
_KNOWN_KEYS = frozenset(_OPTIMIZER_KEYS) | {"beta_1", "beta_2", "b1", "b2", "decay", "weightdecay"}
MISSPELLED_RATIO = 0.85


def _misspelled(path: str) -> str | None:
    """The optimizer key a config key misspells (difflib ratio >= MISSPELLED_RATIO, not itself a known key)."""
    last = path.rsplit(".", 1)[-1].lower().replace("-", "_")
    if len(last) < 5 or last in _KNOWN_KEYS or key_name(path) is not None:
        return None
    hit = difflib.get_close_matches(last, _OPTIMIZER_KEYS, n=1, cutoff=MISSPELLED_RATIO)
    return hit[0] if hit else None


def _walk(node: yaml.Node, prefix: str) -> Iterator[tuple[str, yaml.Node]]:
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if not isinstance(k, yaml.ScalarNode):
                continue
            path = f"{prefix}.{k.value}" if prefix else str(k.value)
            if isinstance(v, yaml.ScalarNode) or _short_scalar_list(v):
                yield path, v      # a short list of scalars is one value: betas: [0.9, 0.999]
            else:
                yield from _walk(v, path)
    elif isinstance(node, yaml.SequenceNode):
        for i, v in enumerate(node.value[:50]):
            yield from _walk(v, prefix)


# A list of scalars up to this long is one value (betas: [0.9, 0.999]; hidden_layers: [64, 64, ...]).
SCALAR_LIST_MAX = 64


def _short_scalar_list(node: yaml.Node) -> bool:
    return isinstance(node, yaml.SequenceNode) and 0 < len(node.value) <= SCALAR_LIST_MAX and \
        all(isinstance(x, yaml.ScalarNode) for x in node.value)


def _flatten(d: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(d, dict):
        for k, v in d.items():
            p = f"{prefix}.{k}" if prefix else str(k)
            if isinstance(v, list) and 0 < len(v) <= SCALAR_LIST_MAX and not any(isinstance(x, (dict, list)) for x in v):
                yield p, v         # a short list of scalars is one value: "betas": [0.9, 0.999]
            elif isinstance(v, (dict, list)):
                yield from _flatten(v, p)
            else:
                yield p, v
    elif isinstance(d, list):
        for v in d[:50]:
            yield from _flatten(v, prefix)


def _find_key_line(art: TextArtifact, key: str) -> int | None:
    m = re.search(r"""["']?%s["']?\s*[:=]""" % re.escape(key), art.text)
    return art.line_of(m.start()) if m else None


# ---- code, read with ast

def _call_name(f: ast.expr) -> str:
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _dotted(f: ast.expr) -> str:
    parts = []
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
    return ".".join(reversed(parts))


def _lit(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    d = _dotted(node) if isinstance(node, (ast.Attribute, ast.Name)) else ""
    return d or _NOT_LITERAL


_NOT_LITERAL = object()


def _code_facts(art: TextArtifact, fx: _Facts, run: Run) -> None:
    try:
        f = pyfile_of(art)      # the code checks' parse and index of the same file
    except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
        line = getattr(e, "lineno", None) or 1
        run.warnings.append(f"{art.path}:{line}: code does not parse ({type(e).__name__}); read with regexes")
        _regex_facts(art, fx, art.text, 0)
        return
    fx.pyfile = f
    _tree_facts(f.walk_order(ast.Call, ast.Assign, ast.AnnAssign, ast.Dict), fx)
    _pipeline_twins(f.of_type(ast.Assign), fx)


def _pipeline_twins(assigns: Iterable[ast.AST], fx: _Facts) -> None:
    """OpenMMLab's data pipelines (`train_pipeline = [dict(type='SampleFrames', clip_len=8, frame_interval=4), ...]`
    beside `val_pipeline = [...]`): each step's settings named by the pipeline and the step's type, so the training and
    evaluation twins of a step are compared as a YAML config's sections are (_split_twin_facts)."""
    items: list[tuple[str, Any, int | None]] = []
    for n in assigns:
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and n.targets[0].id.endswith("pipeline") and isinstance(n.value, (ast.List, ast.Tuple))):
            continue
        for step in n.value.elts:
            if not (isinstance(step, ast.Call) and _is_dict_call(step)):
                continue
            kind = next((_value_of(k.value) for k in step.keywords if k.arg == "type"), None)
            if not isinstance(kind, str):
                continue
            for k in step.keywords:
                if k.arg and k.arg != "type" and (v := _value_of(k.value)) is not _NOT_LITERAL:
                    items.append((f"{n.targets[0].id}.{kind}.{k.arg}", v, k.value.lineno))
    if items:
        _split_twin_facts(items, fx)


def _notebook_facts(art: TextArtifact, fx: _Facts) -> None:
    """A Jupyter notebook: its code cells read as code (ast), `!python train.py --lr 10` lines as
    launch commands. Each cell is parsed on its own, laid over the notebook file's lines (nbformat
    writes one source line per file line), so facts cite the .ipynb's own lines."""
    for padded in notebook_cells(art):
        code = "\n".join(padded)
        shell = "\n".join(ln if ln.lstrip()[:1] in ("!", "%") else "" for ln in padded)
        _cli_facts(art, fx, shell, lambda off, t=shell: t.count("\n", 0, off) + 1)
        py = "\n".join("" if ln.lstrip()[:1] in ("!", "%") else ln for ln in padded)
        try:
            _tree_facts(ast.walk(ast.parse(py)), fx)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            _regex_facts(art, fx, code, 0, lambda off, t=code: t.count("\n", 0, off) + 1)


# keys of a dict that a trainer logs per step (a post pastes transformers' log lines, which parse as dict literals)
_LOGGED_KEYS = frozenset({"loss", "eval_loss", "train_loss", "grad_norm", "train_runtime", "eval_runtime"})


def _tree_facts(nodes: Iterable[ast.AST], fx: _Facts) -> None:
    """Facts of a file's calls, assignments and dict literals, taken in `ast.walk` order (a dict before the dicts
    nested in it: each nested dict's keys are named by the path of keys above it, `optimizer.params.eps`)."""
    under: dict[int, str] = {}      # id of a nested dict literal (or dict(...) call) -> the dotted keys above it
    for node in nodes:
        if isinstance(node, ast.Call) and _is_dict_call(node):
            # OpenMMLab's Python configs (and many scripts' settings): `optim_wrapper = dict(optimizer=dict(type='SGD',
            # lr=0.02, weight_decay=1e-4))` names its settings as a nested dict literal does
            pre = under.pop(id(node), "")
            # (val_dataloader = dict(batch_size=100, sampler=dict(shuffle=False)): the evaluation's, not training's)
            held_out = bool(pre) and is_held_out(pre.split(".")[0])
            for kw in node.keywords:
                if kw.arg is None:
                    continue
                inner = kw.value.elts if isinstance(kw.value, (ast.List, ast.Tuple)) else [kw.value]
                calls = [e for e in inner if isinstance(e, ast.Call) and _is_dict_call(e)]
                for c in calls:             # (a list of dicts: param_scheduler = [dict(type='LinearLR', ...), ...])
                    under[id(c)] = f"{pre}{kw.arg}."
                if calls or held_out:
                    continue
                val = _value_of(kw.value)
                if val is not _NOT_LITERAL:
                    fx.key_value(pre + kw.arg, val, kw.value.lineno)
        elif isinstance(node, ast.Call):
            _code_call(node, fx)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(node.value, ast.Call) and _is_dict_call(node.value):
                t = targets[0] if len(targets) == 1 else None
                if isinstance(t, ast.Name):
                    under[id(node.value)] = f"{t.id}."
                continue
            v = _value_of(node.value)
            if v is _NOT_LITERAL:
                continue
            for t in targets:
                name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else None
                if name:
                    fx.key_value(name, v, node.lineno)
        elif isinstance(node, ast.Dict):
            logged = [v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant) and k.value in _LOGGED_KEYS]
            if logged and all(isinstance(v, ast.Constant) and isinstance(v.value, (int, float)) for v in logged):
                continue    # a logged step ({'loss': 1.1, 'learning_rate': 9.8e-4, 'epoch': 0.04}): the schedule's value
            # a dict nested under a key names its settings by that key ({"optimizer": {"eps": 1.0}}: the optimizer's
            # epsilon, where a bare `eps` is as often a norm layer's)
            pre = under.pop(id(node), "")
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and isinstance(k.value, str):
                    if isinstance(v, ast.Dict):
                        under[id(v)] = f"{pre}{k.value}."
                        continue
                    val = _value_of(v)
                    if val is not _NOT_LITERAL:
                        fx.key_value(pre + k.value, val, k.lineno)


def _is_dict_call(node: ast.Call) -> bool:
    return isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args


_MEANINGFUL_NAME = re.compile(r"float16|bfloat16|float32|optim\.\w+|lr_scheduler\.\w+")


def _value_of(node: ast.expr) -> Any:
    """A literal's value; a dotted name only when it says something (torch.float16, optim.AdamW)."""
    v = _lit(node)
    if isinstance(v, str) and not isinstance(node, ast.Constant) and not _MEANINGFUL_NAME.search(v):
        return _NOT_LITERAL
    return v


# fastai: a Learner trains with Adam unless given opt_func; learn.fit_one_cycle(5, 1e-2) takes the lr second
# (lr_max), learn.fine_tune(3, 1e-3) too (base_lr)
_FASTAI_FITS = ("fit_one_cycle", "fit_flat_cos", "fine_tune", "fit_sgdr")
_FASTAI_LEARNERS = ("vision_learner", "cnn_learner", "tabular_learner", "text_classifier_learner",
                    "language_model_learner", "unet_learner", "collab_learner")


def _code_call(node: ast.Call, fx: _Facts) -> None:
    name = _call_name(node.func)
    line = node.lineno
    kw = {k.arg: k.value for k in node.keywords if k.arg}
    # a class count given to any call (timm's create_model / reset_classifier, a from_pretrained head, a model's
    # own constructor): what the model's output layer has
    for k in ("num_classes", "num_labels", "n_classes"):      # (0: timm's "no head", no class count)
        if k in kw and isinstance(v := _lit(kw[k]), int) and not isinstance(v, bool) and v >= 2:
            _kw_fact(fx, k, kw[k], kw[k].lineno)
    if name in _FASTAI_FITS and isinstance(node.func, ast.Attribute):
        v = next((kw[k] for k in ("lr_max", "base_lr", "lr") if k in kw), node.args[1] if len(node.args) >= 2 else None)
        if v is not None:
            _kw_fact(fx, "lr", v, line)
        fx.trainer_default_optimizer(line, "adam")
        return
    if name in _FASTAI_LEARNERS:
        if "opt_func" in kw and (o := _call_name(kw["opt_func"]).lower()) in _OPTIMIZERS:
            fx.add("optimizer", o, line)
        fx.trainer_default_optimizer(line, "adam")
    if name.lower() in _OPTIMIZERS:
        fx.add("optimizer", name.lower(), line)
        lr_kw = next((k for k in ("lr", "learning_rate") if k in kw), None)   # torch / Keras, optax
        first = _lit(node.args[0]) if node.args else None
        if lr_kw:
            _kw_fact(fx, "lr", kw[lr_kw], kw[lr_kw].lineno)
        elif isinstance(first, (int, float)) and not isinstance(first, bool):
            _kw_fact(fx, "lr", node.args[0], line)    # Keras/optax: the lr comes first (torch: the params)
        elif len(node.args) >= 2:
            _kw_fact(fx, "lr", node.args[1], line)
        for k in ("weight_decay", "momentum", "betas"):
            if k in kw:
                _kw_fact(fx, k, kw[k], kw[k].lineno)
        # the optimizer's own epsilon and betas, in torch's, Keras' and optax's spellings (Adam(eps=1.0),
        # keras.optimizers.Adam(epsilon=1.0, beta_1=...)): a bare `eps` key elsewhere is as often a norm
        # layer's, so the key vocabulary does not take it; an optimizer's argument is the optimizer's
        for k, fact in (("eps", "eps"), ("epsilon", "eps"), ("beta_1", "beta1"), ("beta_2", "beta2"),
                        ("b1", "beta1"), ("b2", "beta2")):
            if k in kw and isinstance(v := _value_of(kw[k]), (int, float)) and not isinstance(v, bool):
                fx.add(fact, float(v), kw[k].lineno)
        if name.lower() in _MOMENTUM_OPTIMIZERS and "momentum" not in kw and len(node.args) <= 2:
            fx.add("momentum", 0.0, line)   # not passed: torch's default is 0 (no momentum)
        return
    if name in _SCHEDULERS:
        fx.add("scheduler", name, line)
        for k, v in kw.items():
            _kw_fact(fx, k, v, v.lineno)
        if name.startswith("get_") and "num_warmup_steps" not in kw and len(node.args) >= 2 and "warmup" in name:
            _kw_fact(fx, "num_warmup_steps", node.args[1], line)
        return
    if name in _SEED_CALLS and node.args:
        v = _lit(node.args[0])
        if isinstance(v, int) and not isinstance(v, bool):
            fx.add("seed", v, line)
        return
    if name == "seed" and _dotted(node.func) in ("np.random.seed", "numpy.random.seed", "random.seed") and node.args:
        v = _lit(node.args[0])
        if isinstance(v, int) and not isinstance(v, bool):
            fx.add("seed", v, line)
        return
    if name in ("clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"):
        v = kw.get("max_norm") or kw.get("clip_value") or (node.args[1] if len(node.args) >= 2 else None)
        if v is not None:
            _kw_fact(fx, "grad_clip", v, line)
        return
    if name == "GradScaler":
        fx.add("amp", True, line)
        return
    if name == "autocast":
        dt = _lit(kw["dtype"]) if "dtype" in kw else None
        enabled = _lit(kw["enabled"]) if "enabled" in kw else True
        if enabled is False:
            return
        fx.add("amp", True, line)
        if isinstance(dt, str):
            fx.add("precision", "bf16" if "bfloat16" in dt else "fp16" if "float16" in dt else "fp32", line)
        return
    if name == "half" and not node.args and isinstance(node.func, ast.Attribute):
        fx.add("precision", "fp16", line)
        return
    if name == "add_argument" and node.args:
        opt = _lit(node.args[0])
        if isinstance(opt, str) and "default" in kw:
            _kw_fact(fx, opt, kw["default"], line)
        return
    if name in ("from_pretrained",) and node.args:
        v = _lit(node.args[0])
        owner = _dotted(node.func).lower()
        if isinstance(v, str):
            fx.add("tokenizer" if "tokenizer" in owner else "checkpoint", v, line)
        return
    if name == "load" and _dotted(node.func) in ("torch.load",) and node.args:
        v = _lit(node.args[0])
        if isinstance(v, str):
            fx.add("checkpoint", v, line)
        return
    # Trainer(...), TrainingArguments(...), DataLoader(...), any config-like call: its keywords
    if name in _CONFIG_CALLS or name.endswith(("Config", "Arguments", "Args")) or name == "Trainer":
        for k, v in kw.items():
            _kw_fact(fx, k, v, v.lineno)   # the keyword's own line, for a call over many lines
        if name.endswith("TrainingArguments") and "optim" not in kw:
            # not passed: adamw, the Trainer's default (arguments spread from a config, `**cfg["training"]`,
            # name another where the config is posted: a default gives way to any fact that names one)
            fx.trainer_default_optimizer(line)
        if name == "Trainer" and "optimizers" in kw:
            fx.custom_optimizer = True


def _kw_fact(fx: _Facts, key: str, value: ast.expr, line: int) -> None:
    v = _value_of(value)
    if v is _NOT_LITERAL and isinstance(value, ast.Name) and fx.pyfile is not None \
            and key_name(value.id) != key_name(key):     # (BATCH_SIZE = 128 is a fact of its own already)
        bound = fx.pyfile.value_near(value.id, value)   # `batch_size=BATCH` with `BATCH = 2` in its scope or the file's
        v = _value_of(bound) if bound is not None else _NOT_LITERAL
    if v is not _NOT_LITERAL:
        fx.key_value(key, v, line)


# ---- logs and other text

_NAMESPACE = re.compile(r"Namespace\(")
_TA_BLOCK = re.compile(r"(?:Seq2Seq)?TrainingArguments\(\s*\n")
_KV_LINE = re.compile(r"^\s*(\w+)=(.*?),?\s*$")
# (a key may be quoted: a printed dict, "train_config: {'lr': 5e-06, 'use_fp16': True}")
_KV_ANY = re.compile(
    r"(?<![\w.])(--)?['\"]?([A-Za-z_][\w.-]{0,60}?)['\"]?\s*(?:[:=]|\s=\s)\s*(?![=:])(?![A-Za-z_][\w.-]{0,60}=[^=])"
    r"(\"[^\"\n]{0,200}\"|'[^'\n]{0,200}'|[^\s,;(){}\[\]]{1,200})")
# (a value is never itself a `key=value` pair: "params: optimizer=sgd lr=1.3" sets the optimizer, not `params`)
# A progress line: a loss with its value (a line that only names the loss, "params: optimizer=sgd lr=1.3 ... pasted from
# the metrics table (train loss / grad_norm):", sets things), a step or iteration count, a rate
_LOSS_VALUED = re.compile(r"loss[^\n\d]{0,16}?(?:\d|nan|inf)", re.I)
_METRIC_LINE = re.compile(rf"{_LOSS_VALUED.pattern}|\bstep\s*[:=]?\s*\d|\biter\w*\s*[:=]?\s*\d|it/s|s/it", re.I)
_HF_BANNER = re.compile(r"^\s+(Num Epochs|Instantaneous batch size per device|Total optimization steps"
                        r"|Total train batch size \(w\. parallel, distributed & accumulation\))\s*=\s*([\d,]+)", re.M)
_HF_BANNER_FACT = {"Num Epochs": "epochs", "Instantaneous batch size per device": "batch_size",
                   "Total optimization steps": "max_steps"}


def _log_facts(art: TextArtifact, fx: _Facts) -> None:
    text = art.text
    head_end = min(len(text), _LOG_HEAD)
    # argparse dumps: Namespace(lr=0.1, batch_size=32, ...) anywhere in the log
    if contains_any(text, ("Namespace(",)):
        for m in list(_NAMESPACE.finditer(text))[:20]:
            _call_repr(art, fx, text, m.start())
    # HF TrainingArguments repr, one key=value per line
    if contains_any(text, ("TrainingArguments(",)):
        for m in list(_TA_BLOCK.finditer(text))[:5]:
            line0 = art.line_of(m.start())
            n = line0 + 1
            optim = False
            while n <= art.n_lines and n < line0 + 400:
                s = art.line(n)
                if s.strip().startswith(")"):
                    break
                km = _KV_LINE.match(s)
                if km:
                    fx.key_value(km.group(1), _scalar(km.group(2)), n, s)
                    optim = optim or km.group(1) == "optim"
                n += 1
            if not optim:       # an older transformers' repr has no optim line: the Trainer's AdamW ran
                fx.trainer_default_optimizer(line0)
    banner = contains_any(text[:head_end], ("Num Epochs", "Instantaneous batch", "Total optimization", "Total train batch"))
    for m in (_HF_BANNER.finditer(text, 0, head_end) if banner else ()):
        fx.add(_HF_BANNER_FACT.get(m.group(1), "batch_size"), int(m.group(2).replace(",", "")),
               art.line_of(m.start(2)))
    if contains_any(text[:head_end], _FASTAI_FITS + ("_learner(",)):
        _fastai_line_facts(art, fx, text[:head_end])
    _cli_facts(art, fx, text[:head_end])
    _regex_facts(art, fx, text[:head_end], 0)
    if contains_any(text, ("Sigmoid()", "Tanh()")):
        _module_print_facts(art, fx, text)


_FASTAI_LINE = re.compile(r"^[ \t]*(?:\w+\s*=\s*)?[\w.]*(?:\.(?:%s)|_learner)\(.*\)[ \t]*$" % "|".join(_FASTAI_FITS), re.M)


def _fastai_line_facts(art: TextArtifact, fx: _Facts, text: str) -> None:
    """A fastai call on a line of its own in a log or a post ("learn.fit_one_cycle(5, 1e-2)"), read as code."""
    for m in list(_FASTAI_LINE.finditer(text))[:20]:
        try:
            tree = ast.parse(m.group(0).strip())
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        ast.increment_lineno(tree, art.line_of(m.start()) - 1)
        _tree_facts((n for n in ast.walk(tree) if isinstance(n, ast.Call)), fx)


# A torch module as print(model) shows it: one `(name): Sigmoid()` line per activation module.
_MODULE_ACT = re.compile(r"^[ \t]*\([\w.]+\): (Sigmoid|Tanh)\(\)[ \t]*\r?$", re.MULTILINE)
_MODULE_NORM = re.compile(r"^[ \t]*\([\w.]+\): (?:BatchNorm\dd|LayerNorm|GroupNorm)\(", re.MULTILINE)


def _module_print_facts(art: TextArtifact, fx: _Facts, text: str) -> None:
    """activation / num_layers from a printed torch module whose hidden activations are all sigmoid or
    all tanh (two of them at least) and that has no normalisation layer: as a config stating them."""
    acts = list(_MODULE_ACT.finditer(text))
    names = {m.group(1) for m in acts}
    if len(acts) < 2 or len(names) != 1 or _MODULE_NORM.search(text):
        return
    line = art.line_of(acts[0].start())
    fx.add("activation", names.pop().lower(), line)
    fx.add("num_layers", len(acts), line)


# A launch command echoed into a log: `python train.py --batch_size 2`, `torchrun ... --lr=0.1` (or its first line
# `python train.py \` with every flag on the lines it continues onto); or one a post quotes inside a sentence
# ("When I run `python train.py --lr 0.01` I get", "using the command torchrun ... --use-amp", "nohup python ...",
# "CUDA_VISIBLE_DEVICES=0 python ...", a script's `nohup python -u train.py \`). Read line by line, linearly: a line that can hold one (_CLI_CANDIDATE: a
# `--flag` on it, or a `\` that continues it), then the first place on it where a command starts (_CLI_START).
_CLI_CANDIDATE = re.compile(r"^(?=[^\n]*(?:--[A-Za-z]|\\[ \t]*$))[^\n]*", re.MULTILINE)
_CLI_START = re.compile(r"^[ \t]*(?:[$+#>!%]\s*)?(?:(?:nohup|time|exec|env|[A-Z_][A-Z0-9_]*=\S*)[ \t]+)*(?:\S*/)?"
                        r"(?:python[\d.]*(?:\s+-m)?|torchrun|accelerate\s+launch|deepspeed"
                        r"|srun|mpirun|horovodrun)\b"
                        r"|(?<=[\s`\"'：:/])(?:python[\d.]*(?=(?:\s+-[A-Za-z]\b)*\s+(?:-m\s+[\w.]|\S+\.py\b))|torchrun|accelerate\s+launch"
                        r"|deepspeed|mpirun|horovodrun)(?=\s)")
# ... inside a sentence it runs a script or a module ("I tried deepspeed but with --lr 0.5 it diverges" runs none)
_CLI_RUNS = re.compile(r"\S\.py\b|\s-m\s+[\w.]")
_QUOTES = "`\"'"
# A flag's value ends at a space, a backslash, or a quote or backtick (one that opens it is left out).
_CLI_FLAG = re.compile(r"(?<!\S)--([A-Za-z][\w.-]*)(?:=|[ \t]+)(?!--)[\"'`]?([^\s\\`\"']+)")
# A switch with no value (`--fp16`, `--bf16`, `--use-amp`): on. Only the switches that name a setting by themselves.
_CLI_SWITCH = re.compile(r"(?<!\S)--(fp16|bf16|half|amp|use[_-]amp|use[_-]fp16|use[_-]bf16)"
                         r"(?=\s*(?:\\\s*$|--|$|[;&|`\"',])|[.)](?:\s|$))", re.MULTILINE)
# `python train.py \` + indented `--lr 10 \` lines: one command over several lines.
_CONTINUED = re.compile(r"\\[ \t]*\r?\n")
# The words _CLI_START starts a command with (a find in C first: most logs hold none, and the regex tries each position).
_LAUNCHERS = ("python", "torchrun", "accelerate", "deepspeed", "srun", "mpirun", "horovodrun")
_SHELL_EXT = (".sh", ".bash", ".zsh")
_CLI_COMMANDS = 20   # launch commands read per file (a sweep script repeats one command per setting)


# Flags only HF TrainingArguments has (the transformers example scripts and every script built on them).
_HF_ARGS_FLAG = re.compile(r"--per_device_(?:train|eval)_batch_size\b"
                           # ... or one of transformers' example scripts (run_glue.py, run_clm_no_trainer.py: the
                           # Trainer's scripts and their accelerate twins both train with AdamW)
                           r"|\brun_(?:glue|clm|mlm|plm|qa|seq2seq_qa|ner|summarization|translation|swag|xnli|classification"
                           r"|image_classification|speech_recognition_ctc|audio_classification|wwm_mlm)(?:_no_trainer)?\.py\b")


def _cli_facts(art: TextArtifact, fx: _Facts, text: str, line_of=None) -> None:
    """Flags of launch commands found in a log's head or a launch script (values as the shell
    passed them; a command continued over lines with `\\` is read whole, each flag cited at
    its own line). `line_of`: offset in `text` -> line, when `text` is not the artifact's own."""
    line_of = line_of or art.line_of
    if "--" not in text or not contains_any(text, _LAUNCHERS):   # every command holds a `--flag` and a launcher
        return
    found = 0
    for line in _CLI_CANDIDATE.finditer(text):
        m = _CLI_START.search(line.group())
        if m is None:
            continue
        begin = line.start() + m.start()
        end = line.end()
        if m.start() and (text[begin - 1] in _QUOTES):
            close = text.find(text[begin - 1], begin, end)      # a command quoted in a sentence ends at its quote
            end = close if close >= 0 else end
        cmd = text[begin:end]
        if m.start() and not _CLI_RUNS.search(cmd):
            continue
        if end == line.end():
            while text[begin:end].rstrip(" \t").endswith("\\"):   # the command goes on on the next line
                nxt = text.find("\n", end + 1)
                end = len(text) if nxt < 0 else nxt
            cmd = text[begin:end]
        found += 1
        if found > _CLI_COMMANDS:
            break
        _flag_facts(fx, cmd, begin, line_of)
        hf = _HF_ARGS_FLAG.search(cmd)
        if hf and "--optim" not in cmd:     # an HF example script (or its TrainingArguments flags) without --optim
            fx.trainer_default_optimizer(line_of(begin + hf.start()))


def _shell_facts(art: TextArtifact, fx: _Facts, text: str) -> None:
    """A launch script (run.sh, command.sh) or a notebook's `!python ...` lines: its commands'
    flags, `LR=1e-3`-style variables, and flags kept in a variable the command expands (Megatron's and
    DeepSpeed's scripts: GPT_ARGS="--lr 1e-3 --adam-eps 1e-8 ..." then `torchrun pretrain_gpt.py $GPT_ARGS`)."""
    _cli_facts(art, fx, text)
    if "--" in text:
        for m in _SHELL_ARGS_VAR.finditer(text):
            k = 3 if m.group(2) else 5
            name, body, at = m.group(1), m.group(k), m.start(k)
            if "--" not in body or is_held_out(name) or not re.search(rf"\$\{{?{name}\b", text):
                continue      # (flags of a variable no command expands, or an evaluation's: EVAL_ARGS)
            _flag_facts(fx, body, at, art.line_of)
    _regex_facts(art, fx, text, 0)


def _flag_facts(fx: _Facts, cmd: str, at: int, line_of: Callable[[int], int]) -> None:
    """The `--flag value` pairs and the `--fp16`-style switches of a command's text, found at offset `at` of the text
    `line_of` maps to lines: a launch command's, or a shell variable's that one expands."""
    for f in _CLI_FLAG.finditer(cmd):
        fx.key_value(f.group(1), _scalar(f.group(2).rstrip(",;:)。，")), line_of(at + f.start()))
    for f in _CLI_SWITCH.finditer(cmd):
        fx.key_value(f.group(1), True, line_of(at + f.start()))


# A shell variable holding a command's flags, quoted over one or more lines: NAME="  --flag value \ ... "
_SHELL_ARGS_VAR = re.compile(r"(?m)^[ \t]*(?:export[ \t]+)?([A-Za-z_]\w*)=(?:(\")([^\"]{0,20000})\"|(')([^']{0,20000})')")


def _call_repr(art: TextArtifact, fx: _Facts, text: str, off: int) -> None:
    """Keywords of a printed call such as Namespace(lr=0.1, ...) on one line, read with ast (no eval)."""
    end = text.find("\n", off)
    src = text[off: end if end >= 0 else len(text)]
    line = art.line_of(off)
    quote = art.line(line)
    try:
        call = ast.parse(src.strip().rstrip(",;"), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        call = None
    if isinstance(call, ast.Call):
        for k in call.keywords:
            if k.arg:
                v = _lit(k.value)
                if v is not _NOT_LITERAL:
                    fx.key_value(k.arg, v, line, quote)
        return
    for km in re.finditer(r"(\w+)=('[^']*'|\"[^\"]*\"|[^,)]+)", src):   # a cut/odd repr: key=value pairs
        fx.key_value(km.group(1), _scalar(km.group(2)), line, quote)


def _said(line: str) -> bool:
    """`line` is a sentence someone wrote (prose.is_sentence), not a progress line, though it names the loss: "Using
    AdamW with weight_decay=1.0 the loss stays high" sets weight_decay. (A progress line is seldom long with
    seven spaces: the cheap test first.)"""
    return len(line) >= 40 and line.count(" ") >= 7 and not _PROGRESS_START.match(line) and is_sentence(line)


# A line that is a call with keyword arguments (`model.compile(optimizer=Adam(learning_rate=1e-6), loss=...)`,
# `opt = SGD(model.parameters(), lr=0.1)`): its lr is the setting's, though the line names the loss.
_CALL_START = re.compile(r"[ \t]*(?:[\w.]+[ \t]*=[ \t]*)?(?!tensor\()[A-Za-z_][\w.]*\((?:[^\n]*?)\b\w+[ \t]*=")
# a line a training loop prints in words ("epoch 2 step 200 the loss is 0.43 and lr=0.00029"): progress still
_PROGRESS_START = re.compile(r"\s*[\[(]?(?:epoch|step|iter\w*|batch|it)\b\W*\d", re.I)


def _kv_spans(text: str) -> list[tuple[int, int]]:
    """The parts of `text` that _regex_facts scans: runs of lines that are not surely progress lines.

    A line holding a loss and a value after it, `it/s` or `s/it` (any case) is a progress line by _METRIC_LINE, whose
    keys are skipped anyway; a log's head is mostly such lines, and _KV_ANY tries every position
    of what it scans (~9 ms per 300 KB: 64 rank logs took 0.7 s). Each run is scanned up to the
    end of the line after it, so a pair whose separator or value sits on the next line is still read.
    Small texts are split too: 5,000 logs of 20 progress lines took 2.5 s scanned whole, 0.26 s split
    (the facts of the 876 corpus runs, 133 zoo cases and the fixtures identical either way).
    """
    lines = text.split("\n")
    # ASCII text lowered at once keeps every offset (str.lower can lengthen other characters)
    low_lines = text.lower().split("\n") if text.isascii() else [s.lower() for s in lines]
    spans: list[tuple[int, int]] = []
    pos = 0
    start = -1
    for s, low in zip(lines, low_lines):
        end = pos + len(s) + 1
        if ("loss" in low and _LOSS_VALUED.search(low) and not _said(s)) or "it/s" in low or "s/it" in low:
            if start >= 0:
                spans.append((start, min(end, len(text))))
                start = -1
        elif start < 0:
            start = pos
        pos = end
    if start >= 0:
        spans.append((start, len(text)))
    return spans


def _regex_facts(art: TextArtifact, fx: _Facts, text: str, base: int, line_of=None) -> None:
    """`key: value` / `key=value` / `--key value` pairs whose key is a known synonym (first per key)."""
    taken: set[str] = set()
    metric_line: dict[int, bool] = {}   # line start -> is a progress line (a line has many keys)
    for m in (m for a, b in _kv_spans(text) for m in _KV_ANY.finditer(text, a, b)):
        key = m.group(2)
        name = key_name(key)
        if name is None or key.lower() in taken:
            continue
        a = text.rfind("\n", 0, m.start()) + 1
        if a not in metric_line:
            b = text.find("\n", m.start())
            b = b if b >= 0 else len(text)
            metric_line[a] = bool(_METRIC_LINE.search(text, a, b)) and not _said(text[a:b])
        if metric_line[a] and not (name == "lr" and _CALL_START.match(text, a)):
            continue   # a progress line: its lr is the schedule's value at that step, not the setting
        if name in ("seed",) and key.lower() in ("set_seed", "seed_everything", "manual_seed"):
            continue
        taken.add(key.lower())
        line = (line_of or art.line_of)(base + m.start())
        fx.key_value(key, _scalar(m.group(3)), line)


# ---- environment

_ENV = [
    ("torch_version", re.compile(r"PyTorch version:\s*([\w.+-]+)|^torch==([\w.+-]+)|^torch\s+(\d+\.\d+[\w.+-]*)\s*$"
                                 r"|torch(?:\.__version__)?\s*[:=]\s*['\"]?(\d+\.\d+\.\d+[\w.+-]*)", re.M)),
    ("cuda_version", re.compile(r"CUDA Version:\s*([\d.]+)|CUDA used to build PyTorch:\s*([\d.]+)"
                                r"|Cuda compilation tools, release ([\d.]+)|CUDA runtime version:\s*([\d.]+)")),
    ("python_version", re.compile(r"Python version:\s*(\d+\.\d+(?:\.\d+)?)|^Python (\d+\.\d+\.\d+)\s*$", re.M)),
    ("gpu", re.compile(r"GPU \d+: ((?:NVIDIA|Tesla|Quadro|GeForce|AMD|Instinct)[^\n(|]*?)\s*(?:\(UUID|$|\|)"
                       r"|\|\s+\d+\s+((?:NVIDIA|Tesla|Quadro|GeForce)[\w .-]+?)\s{2,}(?:On|Off)\s", re.M)),
    ("git_sha", re.compile(r"^commit ([0-9a-f]{40})\b|^([0-9a-f]{40})\s*$|git[_ ](?:sha|commit|rev|hash)\s*[:=]\s*['\"]?([0-9a-f]{7,40})\b"
                           r"|HEAD is now at ([0-9a-f]{7,40})\b", re.M | re.I)),
]
_ENV_GATES = ("version", "Version", "torch", "CUDA", "Python", "GPU", "commit", "git", "HEAD", "NVIDIA")


def _env_facts(art: TextArtifact, fx: _Facts) -> None:
    text = art.text[: max(_LOG_HEAD, 2_000_000)] if art.kind in ("log", "text", "traceback") else art.text
    if not contains_any(text, _ENV_GATES) and not re.search(r"^[0-9a-f]{40}\s*$", text[:4096], re.M):
        return
    for name, pat in _ENV:
        for m in pat.finditer(text):
            v = next((g for g in m.groups() if g), None)
            if v:
                fx.add(name, v.strip(), art.line_of(m.start()))
                break   # the first of each per artifact: the header, not every table row


# ----------------------------------------------------------------------------- public

_ORDER = {"config": 0, "code": 1}


# A post's own count of classes ("5 classes", "a 3-class sentiment model", "12 categories"), read from its head;
# one count only (a post that names two, "100 classes, then a 10-class subset", says nothing by this)
_PROSE_CLASSES = re.compile(r"(?<![\w.])(\d{1,5})[ -](?:classes|class|categories|category)\b", re.I)
PROSE_HEAD = 65536


def _prose_classes(art: TextArtifact, fx: _Facts) -> None:
    """num_classes from a post's words, as a default: any count its code or config names wins."""
    head = art.text[:PROSE_HEAD]
    if "class" not in head and "Class" not in head and "categor" not in head and "CLASS" not in head:
        return          # (a find in C first: most texts name no class count)
    found = [(m.group(1), m.start()) for m in _PROSE_CLASSES.finditer(head)]
    if len({int(v) for v, _ in found}) != 1 or int(found[0][0]) < 2:
        return
    line = art.line_of(found[0][1])
    fx.defaults.append(Fact(name="num_classes", value=int(found[0][0]), source=art.path, line=line,
                            quote=(art.line(line) or "")[:QUOTE_MAX] or None))


# A fact read from an argparse default (`p.add_argument("--lr", default=0.1)`)
_ARGPARSE_DEFAULT = re.compile(r"\badd_argument\s*\(")


def extract_facts(run: Run) -> None:
    """Append typed facts from every text artifact to run.facts, config < code < log."""
    found: list[tuple[int, int, Fact]] = []
    defaults: list[Fact] = []
    custom_optimizer = False
    for i, art in enumerate(run.texts):
        fx = _Facts(art)
        try:
            if art.kind == "config":
                _config_facts(art, fx, run)
            elif art.path.endswith(".ipynb"):
                _notebook_facts(art, fx)
                _log_facts(art, fx)   # its printed outputs, as a log
            elif art.kind == "code" and art.path.lower().endswith(_SHELL_EXT):
                _shell_facts(art, fx, art.text)
            elif art.kind == "code":
                _code_facts(art, fx, run)
            else:
                _log_facts(art, fx)
                _prose_classes(art, fx)
                if (quoted := post_code(art)) is not None:      # the code a post quotes, read as code
                    fx.pyfile = quoted
                    _tree_facts(quoted.walk_order(ast.Call, ast.Assign, ast.AnnAssign, ast.Dict), fx)
            if art.kind != "code":
                _env_facts(art, fx)
        except Exception as e:  # one odd file must not lose the others
            run.warnings.append(f"{art.path}: facts not read ({type(e).__name__}: {e})")
        found.extend((_ORDER.get(art.kind, 2), i, f) for f in fx.out)
        defaults += fx.defaults
        custom_optimizer |= fx.custom_optimizer
    found.sort(key=lambda t: (t[0], t[1], t[2].line or 0))
    # an argparse default gives way to any other setting of its name (the flag the script was launched with, a config
    # file): dropped where one exists, so a reader of the first fact and a reader of the last agree
    default = [bool(_ARGPARSE_DEFAULT.search(f.quote or "")) for _, _, f in found]
    set_by = {f.name for (_, _, f), d in zip(found, default) if not d}
    run.facts.extend(f for (_, _, f), d in zip(found, default) if not d or f.name not in set_by)
    named = {f.name for _, _, f in found} | ({"optimizer"} if custom_optimizer else set())
    run.facts.extend(f for f in defaults if f.name not in named)


def _ev(f: Fact, text: str) -> Evidence:
    return Evidence(text=text, source=f.source, line=f.line, quote=f.quote)


_TRANSFORMERISH = re.compile(r"bert|gpt|t5|llama|mistral|roberta|transformer|vit|deberta|bart|opt-|falcon|qwen|gemma|phi", re.I)


def is_transformerish(facts: Iterable[Fact]) -> bool:
    """Whether the run's facts name a transformer (its tokenizer, checkpoint or scheduler) or come from
    an HF Trainer's arguments: the runs whose lr wants a warm-up."""
    facts = list(facts)
    hint = " ".join(str(f.value) for f in facts if f.name in ("tokenizer", "checkpoint", "scheduler"))
    return bool(_TRANSFORMERISH.search(hint)) or any("Training" in (f.quote or "") for f in facts)


_WARMUP_SCHED = re.compile(r"warmup|linear|cosine|onecycle|noam|inverse_sqrt|polynomial", re.I)


def config_signals(run: Run) -> list[Signal]:
    """Config signals from run.facts (extract_facts first): precision, clipping, warm-up, and the
    optimiser and batch settings that are off by themselves (see _optimizer_signals, _batch_signals)."""
    facts = run.facts
    by: dict[str, list[Fact]] = {}
    for f in facts:     # (an argparse default overridden by another setting is not among them: extract_facts)
        by.setdefault(f.name, []).append(f)
    out: list[Signal] = []

    fp16 = [f for f in by.get("precision", []) if f.value == "fp16"]
    amp = [f for f in by.get("amp", []) if f.value is True]
    if fp16:
        f = fp16[-1]
        out.append(Signal("config:fp16", 0.5, f"fp16 mixed precision is on ({f.source}:{f.line})",
                          [_ev(f, "fp16 precision configured")], {"precision": "fp16"}))
    elif amp and not any(f.value == "bf16" for f in by.get("precision", [])):
        f = amp[-1]
        out.append(Signal("config:fp16", 0.4, f"automatic mixed precision is on, fp16 by default ({f.source}:{f.line})",
                          [_ev(f, "AMP enabled (fp16 unless bf16 is asked for)")], {"precision": "fp16", "amp": True}))

    clips = by.get("grad_clip", [])
    off = [f for f in clips if f.value in (None, 0, 0.0)]
    on = [f for f in clips if f.value not in (None, 0, 0.0)]
    if off and not on:
        f = off[-1]
        out.append(Signal("config:no_grad_clip", 0.5, f"gradient clipping is off ({f.source}:{f.line}: {f.value})",
                          [_ev(f, f"gradient clipping set to {f.value}")], {"grad_clip": f.value}))
    elif not clips and any(t.kind == "config" for t in run.texts):
        anchor = next((f for f in facts if f.name in ("lr", "optimizer") and f.line is not None), None)
        if anchor is not None:
            out.append(Signal("config:no_grad_clip", 0.25,
                              "no gradient clipping setting in the config or code",
                              [_ev(anchor, "the config sets the optimiser but no gradient clipping")], {"grad_clip": None}))

    warm = by.get("warmup_steps", []) + by.get("warmup_ratio", [])
    sched = by.get("scheduler", [])
    lr = next((f for f in reversed(by.get("lr", [])) if isinstance(f.value, (int, float))), None)
    opt = next((f for f in reversed(by.get("optimizer", []))), None)
    transformerish = is_transformerish(facts)
    zero = [f for f in warm if f.value in (0, 0.0)]
    if zero and not any(f.value not in (0, 0.0, None) for f in warm):
        f = zero[-1]
        expects = any(_WARMUP_SCHED.search(str(s.value)) for s in sched)
        s = 0.5 if expects or transformerish else 0.3
        ev = [_ev(f, f"warm-up set to {f.value}")] + ([_ev(sched[-1], f"scheduler {sched[-1].value}")] if sched else [])
        out.append(Signal("config:warmup_zero", s, f"warm-up is 0 ({f.source}:{f.line})"
                          + (f" with scheduler {sched[-1].value}" if sched else ""), ev,
                          {"warmup": f.value, "scheduler": sched[-1].value if sched else None}))
    elif not warm and lr is not None and transformerish and lr.value >= 1e-3 and \
            (opt is None or "adam" in str(opt.value) or "lamb" in str(opt.value) or "lion" in str(opt.value)):
        out.append(Signal("config:warmup_zero", 0.3, f"no warm-up with lr {lr.value:g} for a transformer ({lr.source}:{lr.line})",
                          [_ev(lr, f"lr {lr.value:g} and no warm-up setting")], {"warmup": None, "lr": lr.value}))
    out += _warmup_past_run(by)
    out += _optimizer_signals(by, run.texts)
    code = [t.text for t in run.texts if t.kind == "code"]
    for f in by.get("key_misspelled", [])[:1]:
        key, meant = str(f.value).split("->")
        if any(f"'{key}'" in c or f'"{key}"' in c or f".{key}" in c for c in code):
            continue        # (the code asks for the key as it is spelt: no setting is lost)
        out.append(Signal("config:key_misspelled", 0.8,
                          f"config key '{key}' ({f.source}:{f.line}) looks like a misspelling of '{meant}': no code asks "
                          f"for it, so the optimizer runs with its default {meant}",
                          [_ev(f, f"'{key}' is not '{meant}'")], {"key": key, "meant": meant}))
    out += _batch_signals(run, by)
    out += _setup_signals(by)
    out += _best_model_inverted(by)
    return out


# A metric that is better when lower: a loss, an error rate, a perplexity, a distance
# (the long words anywhere, "eval_logloss", "valLoss"; the short ones as whole tokens: "answer" holds no WER, "apple" no ppl)
LOWER_IS_BETTER = re.compile(r"loss|perplexity|mse|mae|mape|nll|distance|(?:^|[_/.\-])(?:err(?:or)?|wer|cer|ppl)(?:$|[_/.\-]|\d)",
                              re.I)


def _best_model_inverted(by: dict[str, list[Fact]]) -> list[Signal]:
    """config:best_model_inverted: the checkpoint kept as the best is chosen by a lower-is-better metric (a loss,
    an error rate) with greater_is_better true (or by a higher-is-better one with it false): the Trainer keeps the
    worst evaluation, and with load_best_model_at_end loads it, so the card and the saved model report that one."""
    metric = next((f for f in reversed(by.get("best_metric", [])) if isinstance(f.value, str)), None)
    greater = next((f for f in reversed(by.get("greater_is_better", []))), None)
    if metric is None or greater is None or not isinstance(greater.value, bool):
        return []
    lower = bool(LOWER_IS_BETTER.search(metric.value))
    if lower != greater.value:
        return []
    load = next((f for f in reversed(by.get("load_best", []))), None)
    loads = load is not None and load.value is True
    way = "higher" if greater.value else "lower"
    txt = (f"the best checkpoint is chosen by {metric.value} ({metric.source}:{metric.line}) with greater_is_better="
           f"{greater.value}: {way} counts as better, so the worst evaluation is kept"
           + (" and loaded at the end (load_best_model_at_end)" if loads else ""))
    return [Signal("config:best_model_inverted", 0.9 if loads else 0.6, txt,
                   [_ev(metric, f"metric_for_best_model {metric.value}"), _ev(greater, f"greater_is_better {greater.value}")],
                   {"metric": metric.value, "greater_is_better": greater.value, "load_best": loads})]


# Label noise a config states: a share this large is a cause by itself (5 % is within what curated
# datasets carry).
LABEL_NOISE_MIN = 0.05
# Weight init: a std this large for the weight matrices blows activations up layer by layer (usual:
# Kaiming/Xavier, ~sqrt(2/fan_in), 0.02 for transformers); a bias this negative keeps ReLU units off.
INIT_STD_LARGE = 0.5
BIAS_INIT_NEGATIVE = -1.0
# Saturating activations (the largest slope each has) and the depth from which a stack of them, with no
# normalisation, starves the first layers of gradient: 0.25^5 ~ 1e-3.
SATURATING = {"sigmoid": 0.25, "logistic": 0.25, "tanh": 1.0, "hard_sigmoid": 0.2, "softsign": 1.0}   # (and ~0 saturated)
DEEP_SATURATING = 5


def _setup_signals(by: dict[str, list[Fact]]) -> list[Signal]:
    """The data and model setup a config states that is a cause by itself: labels corrupted on
    purpose, shuffling or input normalisation switched off, layers frozen, an init far off scale."""
    out: list[Signal] = []
    noise = _last_number(by.get("label_noise", []))
    if noise is not None and noise.value >= LABEL_NOISE_MIN:
        out.append(Signal("config:label_noise", min(1.0, 0.5 + noise.value), f"the config corrupts {noise.value:.0%} of "
                          f"the labels ({noise.source}:{noise.line})", [_ev(noise, f"label noise {noise.value:g}")],
                          {"rate": noise.value}))
    for name, kind, strength, what in (("shuffle", "config:shuffle_off", 0.6, "shuffling of the training data is off"),
                                       ("normalize", "config:normalize_off", 0.6, "input normalisation is off")):
        facts = by.get(name, [])
        if name == "shuffle":       # an evaluation loader is not shuffled, and need not be
            facts = [x for x in facts if not (x.quote and _EVAL_LINE.search(x.quote))]
        f = next((x for x in reversed(facts)), None)
        if f is not None and f.value is False:
            out.append(Signal(kind, strength, f"{what} ({f.source}:{f.line})", [_ev(f, f"{name}: false")], {name: False}))
    for f in by.get("eval_preprocessing_differs", [])[:1]:
        out.append(Signal("config:eval_preprocessing_differs", 0.8, f"the config prepares evaluation data unlike training "
                          f"data: {f.value} ({f.source}:{f.line})", [_ev(f, str(f.value))], {"detail": f.value}))
    f = next((x for x in reversed(by.get("freeze", []))), None)
    if f is not None and f.value is True:
        out.append(Signal("config:freeze", 0.5, f"the config freezes part of the model ({f.source}:{f.line})",
                          [_ev(f, "layers frozen by the config")], {"freeze": True}))
    std = _last_number(by.get("init_std", []))
    if std is not None and std.value >= INIT_STD_LARGE:
        out.append(Signal("config:init_std_large", min(1.0, 0.5 + 0.5 * math.log10(std.value / INIT_STD_LARGE + 1)),
                          f"weights initialised with std {std.value:g} ({std.source}:{std.line}); usual scales are ~0.02-0.1",
                          [_ev(std, f"init std {std.value:g}")], {"std": std.value}))
    act = next((x for x in reversed(by.get("activation", [])) if isinstance(x.value, str)), None)
    depth = _last_number(by.get("num_layers", []))
    if act is not None and depth is not None and act.value in SATURATING and depth.value >= DEEP_SATURATING:
        out.append(Signal("config:deep_saturating", 0.7, f"{depth.value} layers with {act.value} activations "
                          f"({act.source}:{act.line}) and no normalisation layer: each saturating layer shrinks the gradient it "
                          f"passes back (a {act.value}'s slope is at most {SATURATING[act.value]:g})",
                          [_ev(act, f"activation {act.value}"), _ev(depth, f"{depth.value} layers")],
                          {"activation": act.value, "layers": depth.value}))
    width, k = _last_number(by.get("hidden_width", [])), _last_number(by.get("num_classes", []))
    drop = _last_number(by.get("dropout", []))
    # dropout p leaves about width * (1 - p) units carrying each training step: 4 units at 0.5 are 2
    p_drop = drop.value if drop is not None and 0 < drop.value < 1 else 0.0
    eff = width.value * (1 - p_drop) if width is not None else None
    below_classes = eff is not None and k is not None and k.value >= 3 and eff < k.value
    if width is not None and eff is not None and (eff <= HIDDEN_NARROW or below_classes):
        why = f"fewer than its {k.value} classes" if below_classes and k is not None else f"{HIDDEN_NARROW} units or fewer"
        dropped = f" with dropout {p_drop:g}: about {eff:g} units carry each step," if p_drop else ","
        ev = [_ev(width, f"hidden width {width.value}")] + ([_ev(drop, f"dropout {p_drop:g}")] if p_drop and drop else [])
        out.append(Signal("config:hidden_narrow", 0.7, f"a hidden layer {width.value} units wide ({width.source}:{width.line})"
                          f"{dropped} {why}: too narrow to carry what the output needs", ev,
                          {"width": width.value, "classes": k.value if k is not None else None, "dropout": p_drop}))
    bias = _last_number(by.get("bias_init", []))
    if bias is not None and bias.value <= BIAS_INIT_NEGATIVE:
        out.append(Signal("config:bias_init_negative", 0.7, f"biases initialised at {bias.value:g} ({bias.source}:{bias.line}): "
                          "ReLU units start (and may stay) off", [_ev(bias, f"bias init {bias.value:g}")], {"bias": bias.value}))
    return out


# A hidden layer this narrow (or narrower than the classes it feeds) is a bottleneck: XOR on 2 units sticks.
HIDDEN_NARROW = 2


# Keys only a DeepSpeed / GPT-NeoX / Megatron config holds (looked for in a config's first DEEPSPEED_SCAN characters)
DEEPSPEED_SCAN = 200_000
_DEEPSPEED_KEY = re.compile(r"train_micro_batch_size_per_gpu|zero_optimization|train_iters|gradient_clipping|"
                            r"pipe_parallel_size|model_parallel_size|lr_decay_style")


# Weight decay. Coupled L2 (SGD, Adam, RMSprop) is normally 1e-5..5e-4 (torchvision ImageNet recipes
# 1e-4..5e-4); 0.02 (40x the top of that range) and above holds a small net far from its fit (SGD at 0.05 floors an
# MLP on digits at ~80 % against 97 %), 0.1 pins the weights near 0. Decoupled decay (AdamW, LAMB, Lion, Adafactor)
# is normally 0.01..0.1 (BERT/GPT recipes); 1.0 and above is off by an order of magnitude.
WD_HIGH_COUPLED = 0.02
WD_HIGH_DECOUPLED = 1.0
_DECOUPLED = ("adamw", "lamb", "lion", "adafactor", "fusedlamb", "pagedadamw")
# Adam's epsilon defaults to 1e-8 (torch) / 1e-7 (Keras); 1e-6..1e-5 is used for fp16. At >= 1e-3 it
# starts to dominate sqrt(v) for typical gradients and the step shrinks toward lr * g / eps.
EPS_LARGE = 1e-3
EPS_HUGE = 0.1
# A per-step batch at or below this is "tiny": per-batch gradient and batch-norm statistics are noise.
BATCH_TINY = 4
# ...unless gradient accumulation brings the optimizer's batch up to at least this.
BATCH_ACCUMULATED_OK = 16


def _last_number(facts: list[Fact]) -> Fact | None:
    return next((f for f in reversed(facts) if isinstance(f.value, (int, float)) and not isinstance(f.value, bool)), None)


def _warmup_past_run(by: dict[str, list[Fact]]) -> list[Signal]:
    """config:warmup_exceeds_run: a warm-up as long as the run or longer (warmup_steps >= max_steps, a
    warmup_ratio of 1 or more): the lr climbs for the whole run and never reaches the value set, so the
    run trains at a fraction of it (read as an lr too low from the curve alone). max_steps <= 0 is
    transformers' "use the epochs" and says nothing."""
    def num(f: Fact) -> float | None:
        return float(f.value) if isinstance(f.value, (int, float)) and not isinstance(f.value, bool) else None
    # (max_duration only beside OLMo's t_warmup in the same file: NeMo's and lhotse's max_duration is seconds of audio)
    olmo = {f.source for f in by.get("warmup_steps", []) if re.search(r"\bt_warmup\b", f.quote or "")}
    steps = next((f for f in reversed(by.get("max_steps", [])) if (num(f) or 0) > 0), None) or next(
        (f for f in reversed(by.get("max_duration", [])) if f.source in olmo and (num(f) or 0) > 0), None)
    total = num(steps) if steps is not None else None
    warm = next((f for f in reversed(by.get("warmup_steps", [])) if total and (num(f) or 0) >= total), None)
    if warm is not None and steps is not None:
        txt = f"warm-up of {warm.value} steps for a run of {steps.value} steps: the lr never leaves its warm-up"
        return [Signal("config:warmup_exceeds_run", 0.9, txt, [_ev(warm, f"warm-up {warm.value} steps"),
                                                              _ev(steps, f"{steps.value} steps in all")],
                       {"warmup": warm.value, "steps": steps.value})]
    ratio = next((f for f in reversed(by.get("warmup_ratio", [])) if (num(f) or 0) >= 1), None)
    if ratio is not None:
        txt = f"warm-up ratio {ratio.value}: the warm-up spans the whole run, the lr never reaches its value"
        return [Signal("config:warmup_exceeds_run", 0.9, txt, [_ev(ratio, txt)], {"warmup_ratio": ratio.value})]
    return []


def _names_optimizer(value: str) -> bool:
    low = value.lower()
    return low in _OPTIMIZERS or any(w in low for w in ("adam", "sgd", "rmsprop", "adagrad", "lamb", "lion", "adafactor"))


# SGD momentum from this value on (below 1) is far past every recipe: 0.9 for most, 0.99 for nnU-Net's. Only where an
# SGD-like optimizer is named: a bare `momentum` key is as often a Keras BatchNormalization's (0.99 by default).
MOMENTUM_NEAR_ONE = 0.995


def _optimizer_signals(by: dict[str, list[Fact]], texts: list[TextArtifact]) -> list[Signal]:
    """Optimizer settings other than the lr that are off by themselves: weight decay, momentum, betas, eps."""
    out: list[Signal] = []
    # (the last that names an optimizer: `model.compile(optimizer=opt)` after `opt = Adam(...)` names a variable)
    named = [f for f in by.get("optimizer", []) if f.value]
    opt_f = next((f for f in reversed(named) if _names_optimizer(str(f.value))), named[-1] if named else None)
    opt = str(opt_f.value).lower() if opt_f is not None else ""
    adam_like = not opt or "adam" in opt or opt in ("lamb", "fusedlamb", "radam", "nadam", "adamax")

    wd = _last_number(by.get("weight_decay", []))
    if wd is not None and wd.value > 0:
        # (DeepSpeed's and GPT-NeoX's `"optimizer": {"type": "Adam", "params": ...}` runs FusedAdam in AdamW mode: a
        # config that also names a DeepSpeed / Megatron setting; pytorch-template's {"type": "Adam", "args": ...} is
        # torch's Adam, coupled)
        # (... told by a DeepSpeed / Megatron key anywhere in that config's text: zero_optimization is no fact)
        deepspeed = opt == "adam" and opt_f is not None and bool(re.search(r"\btype\b", opt_f.quote or "")) \
            and opt_f.source.endswith((".json", ".yml", ".yaml")) and any(
                t.path == opt_f.source and _DEEPSPEED_KEY.search(t.text[:DEEPSPEED_SCAN]) for t in texts)
        decoupled = not opt or opt.startswith(_DECOUPLED) or deepspeed
        high = WD_HIGH_DECOUPLED if decoupled else WD_HIGH_COUPLED
        if wd.value >= high:
            times = wd.value / high
            out.append(Signal("config:weight_decay_high", min(0.9, 0.5 + 0.15 * math.log10(times) * 3),
                              f"weight decay {wd.value:g} for {opt or 'the optimizer'} ({wd.source}:{wd.line}); "
                              f"above ~{high:g} it pulls the weights toward 0 faster than the loss can move them",
                              [_ev(wd, f"weight_decay = {wd.value:g}")], {"weight_decay": wd.value, "optimizer": opt}))

    moms = [f for f in by.get("momentum", []) if isinstance(f.value, (int, float)) and not isinstance(f.value, bool)]
    if moms and (not opt or "sgd" in opt or "rmsprop" in opt or "momentum" in opt):
        # (torch's default, read from an optimizer call without the argument, in a script or a post's snippet)
        set_ = [f for f in moms if not (f.value == 0.0 and "momentum" not in (f.quote or ""))]
        implicit = [f for f in moms if f not in set_]
        bad = next((f for f in set_ if f.value >= 1.0 or f.value < 0), None)
        if bad is not None:
            out.append(Signal("config:momentum_odd", 0.8, f"momentum {bad.value:g} ({bad.source}:{bad.line}) is outside "
                              f"[0, 1): every step adds more than the last", [_ev(bad, f"momentum = {bad.value:g}")],
                              {"momentum": bad.value, "detail": "out_of_range"}))
        elif (near := next((f for f in set_ if MOMENTUM_NEAR_ONE <= f.value < 1.0), None)) is not None and \
                ("sgd" in opt or "momentum" in opt):
            out.append(Signal("config:momentum_odd", 0.8, f"momentum {near.value:g} for {opt} ({near.source}:{near.line}): each "
                              f"step carries the last ~{1 / (1 - near.value):.0f} gradients, {1 / (1 - near.value):.0f}x the lr "
                              f"in all; SGD recipes use 0.9 (0.99 at most)", [_ev(near, f"momentum = {near.value:g}")],
                              {"momentum": near.value, "detail": "near_one"}))
        elif implicit and any(f.value > 0 for f in set_):
            want = next(f for f in set_ if f.value > 0)
            f = implicit[-1]
            out.append(Signal("config:momentum_odd", 0.8,
                              f"momentum {want.value:g} is set in {want.source}:{want.line} but the {opt or 'SGD'} call at "
                              f"{f.source}:{f.line} does not pass it (torch's default is 0: no momentum)",
                              [_ev(want, f"momentum = {want.value:g} configured"), _ev(f, "the optimizer is built without momentum")],
                              {"momentum": 0.0, "configured": want.value, "detail": "not_passed"}))
        elif (zero := next((f for f in set_ if f.value == 0), None)) is not None and \
                (other := next((f for f in set_ if f.value > 0 and f.source != zero.source), None)) is not None:
            # two files of one run disagree: the user's args turn momentum off where the reference config (the
            # paper's, the repository's, last week's) sets it; either way one of them is not the recipe that trains
            out.append(Signal("config:momentum_odd", 0.6,
                              f"momentum is 0 in {zero.source}:{zero.line} but {other.value:g} in {other.source}:{other.line}: "
                              f"one of the two runs SGD without momentum",
                              [_ev(zero, "momentum = 0"), _ev(other, f"momentum = {other.value:g}")],
                              {"momentum": 0.0, "configured": other.value, "detail": "differs"}))
        elif set_ and all(f.value == 0 for f in set_):
            f = set_[-1]
            out.append(Signal("config:momentum_odd", 0.3, f"{opt or 'SGD'} with momentum 0 ({f.source}:{f.line}); "
                              f"SGD recipes use 0.9", [_ev(f, "momentum = 0")], {"momentum": 0.0, "detail": "zero"}))

    b1, b2 = _last_number(by.get("beta1", [])), _last_number(by.get("beta2", []))
    if adam_like and (b1 is not None or b2 is not None):
        v1 = b1.value if b1 is not None else 0.9
        v2 = b2.value if b2 is not None else 0.999
        why, strength = None, 0.0
        if not (0 <= v1 < 1 and 0 <= v2 < 1):
            why, strength = "a beta outside [0, 1)", 0.8
        elif v2 < v1 and b2 is None:
            why, strength = "beta1 at or above the default beta2 (0.999): the first moment averages over more steps than the second", 0.6
        elif v2 < v1:
            # (beta1 at 0.99 or above besides: a first moment averaged over a hundred steps or more, swapped for sure)
            why, strength = "beta2 below beta1 (swapped?)", 0.8 if v1 >= 0.99 else 0.6
        elif v2 < 0.5:          # no recipe goes this low (GANs use 0.9-0.99 with beta1 0-0.5)
            why, strength = "beta2 far below 0.9: the step is scaled by one batch's squared gradient", 0.6
        elif v2 < 0.9 and v1 >= 0.5:
            why, strength = "beta2 below 0.9: the second-moment estimate follows single batches", 0.4
        if why:
            f = b2 if b2 is not None else b1
            out.append(Signal("config:betas_odd", strength, f"Adam betas ({v1:g}, {v2:g}): {why} ({f.source}:{f.line})",
                              [_ev(f, f"betas = ({v1:g}, {v2:g})")], {"beta1": v1, "beta2": v2}))

    eps = _last_number(by.get("eps", []))
    if eps is not None and adam_like and eps.value >= EPS_LARGE:
        s = 0.8 if eps.value >= EPS_HUGE else 0.45
        out.append(Signal("config:eps_large", s, f"optimizer eps {eps.value:g} ({eps.source}:{eps.line}); the default is "
                          f"1e-8, and at this size it swamps sqrt(v) so steps shrink to ~lr*g/eps",
                          [_ev(eps, f"eps = {eps.value:g}")], {"eps": eps.value, "optimizer": opt}))
    return out


# Batch norm in the model: torch's layers, Keras' layer, and an OpenMMLab config's norm_cfg=dict(type='BN')
_BATCHNORM = re.compile(r"\bBatchNorm[123]d\b|\bSyncBatchNorm\b|\bbatch_norm\(|\bBatchNormalization\("
                        r"|\btype\s*=\s*['\"](?:BN|BN[123]d|SyncBN)['\"]")
# a line that builds an evaluation loader: `val_loader = DataLoader(val_ds, shuffle=False)`, `"data/test", shuffle=False`
_EVAL_LINE = re.compile(r"\b(?:val|valid|validation|test|eval|evaluation|dev)\b|\b(?:val|valid|test|eval)_\w+|"
                        r"\w+_(?:val|valid|test|eval)\b", re.I)
# A batch-size fact whose line names an evaluation loader (an OpenMMLab config's val_dataloader = dict(batch_size=1)).
_EVAL_LOADER = re.compile(r"\b(?:val|valid|validation|test|eval|evaluation|inference|predict)\w*\s*=\s*dict\(", re.I)


def train_batch_sizes(facts: Iterable[Fact]) -> list[Fact]:
    """The batch-size facts that say what training used: a config's and a log's before the code's (code
    also holds eval loaders, DataLoader(val_ds, batch_size=256)), an evaluation loader's own line left out
    while another is left."""
    sizes = [f for f in facts if f.name == "batch_size" and isinstance(f.value, int) and f.value > 0]
    sizes = [f for f in sizes if not (f.quote and _EVAL_LOADER.search(f.quote))] or sizes
    return [f for f in sizes if not f.source.endswith(".py")] or sizes


def _batch_signals(run: Run, by: dict[str, list[Fact]]) -> list[Signal]:
    """config:batch_size_tiny: every training batch-size fact is <= BATCH_TINY (and accumulation does not make up for it)."""
    sizes = train_batch_sizes(by.get("batch_size", []))
    if not sizes or max(f.value for f in sizes) > BATCH_TINY:
        return []
    accum = _last_number(by.get("grad_accum", []))
    total = _last_number(by.get("global_batch_size", []))
    bs = min(f.value for f in sizes)
    if (accum is not None and bs * max(1, int(accum.value)) >= BATCH_ACCUMULATED_OK) or \
            (total is not None and total.value >= BATCH_ACCUMULATED_OK):
        return []
    f = next(f for f in sizes if f.value == bs)
    bn = next((t for t in run.texts if t.kind == "code" and _BATCHNORM.search(t.text)), None)
    strength = {1: 0.7, 2: 0.6}.get(bs, 0.45) + (0.15 if bn is not None else 0.0)
    txt = f"batch size {bs} ({f.source}:{f.line})" + (f" with batch norm in {bn.path}" if bn is not None else "")
    return [Signal("config:batch_size_tiny", min(0.9, strength), txt, [_ev(f, f"batch_size = {bs}")],
                   {"batch_size": bs, "batchnorm": bn is not None})]
