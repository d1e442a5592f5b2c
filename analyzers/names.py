"""Metric name normalisation: many spellings, one canonical name.

`normalize("train/loss") == "loss"`, `normalize("eval_loss") == "val_loss"`.
Unknown names are lower-cased with separators unified (so they still group).
"""
from __future__ import annotations

import re
from functools import lru_cache

# Canonical names analyzers key on.
CANONICAL = (
    "loss", "val_loss", "grad_norm", "lr", "loss_scale", "throughput", "data_time",
    "step_time", "compute_time", "accuracy", "val_accuracy", "epoch", "perplexity", "val_perplexity",
    "skipped_steps", "memory", "tokens_per_s",
)

_TRAIN_PREFIXES = ("train/", "train_", "training/", "training_", "trn_", "train.", "train-",
                   # SageMaker's metric definitions ("train:loss", "validation:accuracy")
                   "train:", "training:")
_VAL_PREFIXES = ("val/", "val_", "valid/", "valid_", "validation/", "validation_", "eval/",
                 "eval_", "evaluation/", "test/", "test_", "dev/", "dev_", "val.", "eval.", "val-",
                 # XGBoost's watchlist names ("eval-logloss", "valid-rmse", "test-auc")
                 "eval-", "valid-", "validation-", "test-", "dev-",
                 "validation:", "val:", "valid:", "eval:", "test:")

_ALIASES = {
    "loss": "loss", "train_loss": "loss", "training_loss": "loss", "total_loss": "loss",
    # XGBoost's (multi-class) log loss: the cross-entropy it trains on
    "logloss": "loss", "mlogloss": "loss",
    # ... and LightGBM's
    "binary_logloss": "loss", "multi_logloss": "loss",
    # Keras' accuracy metrics by their class names, and ImageNet scripts' top-1 ("Acc@1 76.13")
    "categorical_accuracy": "accuracy", "sparse_categorical_accuracy": "accuracy", "binary_accuracy": "accuracy",
    "acc@1": "accuracy", "prec@1": "accuracy", "top-1": "accuracy", "accuracy@1": "accuracy",
    # mmpretrain's training lines ("loss: 2.29  accuracy_top-1: 11.72"), other top-1 spellings
    "accuracy_top-1": "accuracy", "accuracy_top1": "accuracy", "accuracy_top_1": "accuracy", "acc_top1": "accuracy",
    "acc_top-1": "accuracy", "top1_accuracy": "accuracy", "top-1_accuracy": "accuracy",
    "avg_loss": "loss", "mean_loss": "loss", "lm_loss": "loss", "loss_epoch": "loss", "loss_step": "loss",
    "grad_norm": "grad_norm", "gradient_norm": "grad_norm", "total_norm": "grad_norm", "norm_grad": "grad_norm",
    "gnorm": "grad_norm", "grad_norm_total": "grad_norm", "global_grad_norm": "grad_norm",
    "grad-norm": "grad_norm", "grads_norm": "grad_norm", "grad_norms": "grad_norm", "gradient_norms": "grad_norm", "norm": "grad_norm",
    "lr": "lr", "learning_rate": "lr", "learning-rate": "lr", "lr_0": "lr", "lr-adam": "lr",
    "lr-adamw": "lr", "lr-sgd": "lr", "current_lr": "lr", "base_lr": "lr",
    "loss_scale": "loss_scale", "scale": "loss_scale", "loss-scale": "loss_scale",
    "grad_scale": "loss_scale", "scaler_scale": "loss_scale", "amp_scale": "loss_scale",
    "throughput": "throughput", "samples_per_second": "throughput", "samples/s": "throughput",
    "train_samples_per_second": "throughput", "it/s": "throughput", "steps_per_second": "throughput",
    "train_steps_per_second": "throughput", "samples_per_sec": "throughput", "ips": "throughput",
    "tokens_per_second": "tokens_per_s", "tok/s": "tokens_per_s", "tokens/s": "tokens_per_s",
    "data_time": "data_time", "data": "data_time", "dataloader_time": "data_time",
    "load_time": "data_time", "data_wait": "data_time", "data_time_s": "data_time", "data_time_sec": "data_time",
    "data_load_time": "data_time", "data_loading_time": "data_time",
    # the model's own share of a step, where a log splits a step into waiting for data and computing
    "compute_time": "compute_time", "compute": "compute_time", "compute_time_s": "compute_time",
    "compute_time_sec": "compute_time", "fwd_bwd_time": "compute_time", "forward_backward_time": "compute_time",
    "model_time": "compute_time",
    "step_time": "step_time", "batch_time": "step_time", "iter_time": "step_time", "time": "step_time",
    "step_time_s": "step_time", "batch_time_s": "step_time", "iter_time_s": "step_time",
    "acc": "accuracy", "accuracy": "accuracy", "top1": "accuracy", "acc1": "accuracy",
    "top1_acc": "accuracy", "train_acc": "accuracy", "train_accuracy": "accuracy",
    "epoch": "epoch", "ppl": "perplexity", "perplexity": "perplexity",
    "skipped": "skipped_steps", "skipped_steps": "skipped_steps", "overflow": "skipped_steps",
    "skipped_iterations": "skipped_steps",
    "mem": "memory", "memory": "memory", "max_memory_allocated": "memory", "gpu_mem": "memory",
}
_VAL_ALIASES = {"loss": "val_loss", "accuracy": "val_accuracy", "perplexity": "val_perplexity"}

# Words that say how a printed loss, accuracy or perplexity was averaged or when it was taken, not what
# it measures: "running_loss", "Average loss", "epoch_acc", "loss_avg", "avg_train_loss" are the
# training loss and accuracy (the curve analyzers read them as such), "epoch_val_loss" the val loss.
_AVERAGING = ("running", "average", "avg", "ave", "mean", "batch", "minibatch", "epoch", "step", "iter", "iteration",
              "smoothed", "smooth", "moving", "ema", "current", "cur", "overall", "total", "global")
LOSS_ACC_PPL = frozenset({"loss", "val_loss", "accuracy", "val_accuracy", "perplexity", "val_perplexity"})

_SEP = re.compile(r"[\s]+")
# What follows "grad_" in a setting or counter, not a layer's gradient norm.
_GRAD_SETTINGS = ("accum", "clip", "step")
# A metric named with what it was measured on (textlog/scan._METRIC_ON: the PyTorch tutorials'
# "Accuracy of the network on the 10000 test images"): its name before "of the <model> on", its set after.
_MEASURED_ON = re.compile(r"(?P<m>(?:[a-z]+_)?(?:accuracy|acc|loss|error))_of_the_[a-z_]+?_on_(?:the_)?(?:\d+_)?"
                          r"(?:(?P<set>val|valid|validation|eval|test|dev|holdout)_)?[a-z_]+")
# A namespace of per-layer gradient norms: "grad_norm", "grads", "gradients", "gradnorm", "gnorm" (fairseq's and
# many trainers' short form), "layer_grad_norms", "per_layer_grads", "grad_norms_per_layer".
WHOLE_MODEL = frozenset({"total", "total_norm", "global", "global_norm", "norm", "all", "overall", "l2", "l2_norm",
                          "grad_norm", "model", "whole"})
_LAYER_GRAD_HEAD = re.compile(r"(?:per_)?(?:layer_?)?(?:grad(?:ient)?s?(?:_?norms?)?|gnorms?)(?:_per_layer|_by_layer|_layers?)?")
# A metric named after its data set: XGBoost's sklearn API joins a numbered set and the metric with '-'
# ("validation_0-logloss"), LightGBM puts the set in the possessive ("training's binary_logloss",
# "valid_0's auc": its default names, "training" for the training set, "valid_N" for the others).
_SET_METRIC = re.compile(r"(?P<set>(?:validation|valid|eval)_\d+)-(?P<m>.+)|(?P<owner>[a-z][\w\-]*)'s_(?P<m2>.+)")
_VAL_SET = re.compile(r"(?:val|valid|validation|eval|evaluation|test|dev|holdout)(?:_?\d+)?")
_LIGHTNING_GRAD = re.compile(r"(?:(?:train|training)/)?grad_(?:\d+(?:\.\d+)?|inf)_norm(?:_total|/(.+))?")
# A layer's (or parameter's) name: a dotted path ("encoder.layer.3.attn") or a word ending in a number
# ("layer0", "conv_3", "fc1"), or nn.Sequential's own index path ("0.weight", "3.0.conv1.weight"). Before
# a gradient word here; a per-layer table's row or column names in the tabular reader (fullmatch).
LAYER_NAME = re.compile(r"[a-z_][\w\-]*(?:\.[\w\-]+)+|[a-z_][a-z_\-]*\d+|\d+(?:\.\d+)*\.[a-z_][\w\-]*(?:\.[\w\-]+)*",
                        re.I)


# Names that mean one thing only beside their neighbours, by the layout of the program that printed them:
# - fastai's recorder prints, and its CSVLogger writes, "epoch train_loss valid_loss <metrics...> time":
#   every metric column after the two losses is computed on the validation set ("accuracy" there is the
#   validation accuracy); fastai 0.7 printed "epoch trn_loss val_loss accuracy". Known by these two loss
#   columns, spelled as fastai spells them.
# - CatBoost prints "0:\tlearn: 0.68\ttest: 0.69\tbest: 0.69 (0)\ttotal: 52ms\tremaining: 52s": `learn`
#   is the training loss, `test` the loss on the eval set. Known by the two names together.
# - the Hugging Face Trainer's model card tabulates its evaluations as "| Training Loss | Epoch | Step |
#   Validation Loss | Accuracy | F1 |": every metric after the two losses is the evaluation set's too.
_FASTAI_LOSSES = (("train_loss", "valid_loss"), ("trn_loss", "val_loss"), ("training loss", "validation loss"))
_NOT_METRICS = frozenset({"epoch", "time", "train_loss", "valid_loss", "trn_loss", "val_loss", "training loss",
                          "validation loss"})
# (a table that also has its own step counter or a column named for the training set, Lightning's metrics.csv with
# train_acc beside train_loss and valid_loss, is no fastai table: those columns keep their names)
_OWN_LAYOUT_COLUMNS = frozenset({"step", "global_step", "iteration", "iter", "it", "lr", "learning_rate"})
_CATBOOST = {"learn": "loss", "test": "val_loss"}
# - XGBoost names its eval sets in the order given: with `eval_set=[(X_train, y_train), (X_test, y_test)]`, the
#   usual way to watch both, it prints "[50]\tvalidation_0-logloss:0.31\tvalidation_1-logloss:0.38": the first
#   set is the training data. Known by the same metric on sets 0 and 1 (a lone validation_0 is an eval set,
#   as _SET_METRIC reads every set name).


def layout_names(raws: list[str], table: bool = True) -> dict[str, str]:
    """Raw name -> canonical name for the names of a table (`table`: the columns of one) or a log whose
    meaning its layout sets (see above); {} for any other. fastai's layout is a table's only: a log
    that prints train_loss= and valid_loss= beside accuracy= says nothing of where the accuracy came from."""
    low = {r.strip().lower(): r for r in raws}
    if table and any(all(k in low for k in pair) for pair in _FASTAI_LOSSES):
        return {r: as_held_out(normalize(r)) for k, r in low.items()
                if k not in _NOT_METRICS and not normalize(r).startswith("val_") and not k.startswith(_TRAIN_PREFIXES)
                and k not in _OWN_LAYOUT_COLUMNS}
    if all(k in low for k in _CATBOOST):
        return {low[k]: v for k, v in _CATBOOST.items()}
    sets = {(m.group("set"), m.group("m")): r for k, r in low.items() if (m := _SET_METRIC.fullmatch(k))}
    return {r: normalize(f"train-{metric}") for (name, metric), r in sets.items()
            if name == "validation_0" and ("validation_1", metric) in sets}


def rename_by_layout(series: list, table: bool = True) -> None:
    """Give the series of one table (`table`) or one log the names their layout sets (layout_names),
    in place; the others keep theirs."""
    by = layout_names(list({s.raw_name for s in series}), table)
    for s in series:
        s.name = by.get(s.raw_name, s.name)


_SEGMENTS = re.compile(r"[/._\-]")


def is_held_out(name: str) -> bool:
    """Whether a metric name (normalized or as printed) is a held-out set's: `val_accuracy`, or a set word
    as one of its segments (`items/eval.acc`, `test-acc`)."""
    return any(_VAL_SET.fullmatch(seg) for seg in _SEGMENTS.split(name.lower()))


# A metric of a model kept fixed on purpose: a distillation's teacher, a DPO / KL reference ("teacher_acc" the same
# every epoch, "param_norm/teacher"); not "teacher forcing" (a seq2seq model's own accuracy with its targets fed in)
FIXED_MODEL = re.compile(r"(?:^|[/_])(?:teacher(?![/_]forc)|ref|reference)(?:$|[/_])")


def as_held_out(name: str) -> str:
    """A canonical name as the validation set's ("accuracy" -> "val_accuracy")."""
    return name if name.startswith("val_") else _VAL_ALIASES.get(name, "val_" + name)


def _when_alias(n: str) -> str | None:
    """The alias of a known name logged with when it was taken ("loss_epoch", "acc/step"), else None."""
    for suf in ("_epoch", "_step", "/epoch", "/step"):
        if n.endswith(suf) and n[: -len(suf)] in _ALIASES:
            return _ALIASES[n[: -len(suf)]]
    return None


# The networks of a GAN or an actor-critic, each trained by its own loss and logging its own gradient norm
# ("gnorm_d" -> "grad_norm/d"); curves.py reads the one that grew most where no whole-model norm is logged. An
# encoder's or decoder's norm is named the same way but is a part of one model (a frozen encoder's norm that starts
# at 0 and grows once it is unfrozen is no gradient of the run's own), so it is not among them.
NETWORK_PARTS = frozenset({"d", "g", "disc", "gen", "discriminator", "generator", "critic", "actor", "policy", "value"})
# ... and the parts of one network that logs name their gradients by ("trunk_grad_norm", "embedder_grad_norm":
# pytorch-metric-learning's trunk and embedder; a backbone, neck and head)
_MODEL_PARTS = frozenset({"encoder", "decoder", "trunk", "embedder", "backbone", "neck", "head", "classifier", "stem",
                          "projector", "predictor", "embedding", "embeddings"})
_NET_PART = "|".join(sorted(NETWORK_PARTS | _MODEL_PARTS, key=len, reverse=True))
_PART_GRAD = re.compile(rf"(?:gradnorm|gnorm|grad_norm)_(?P<a>{_NET_PART})|(?P<b>{_NET_PART})_(?:gradnorm|gnorm|grad_norm)")


# MosaicML Composer's console and loggers name a value by what it is, the set, and the metric's class:
# "loss/train/total", "metrics/train/MulticlassAccuracy", "metrics/eval/CrossEntropy", its LRMonitor "lr-SGD/group0",
# and its clock "time/epoch", "time/batch" (read only as its console prints them, after "Train " / "Eval ": a bare
# "Time/epoch" is as often a TensorBoard tag of an epoch's duration).
_COMPOSER = re.compile(r"(?:^|[_/])(?P<kind>loss|metrics)/(?P<set>train|eval|val|validation|test)/(?P<name>[\w.\-]+)$")
_COMPOSER_LR = re.compile(r"(?:^|[_/])lr-\w+/group\d+$")
_COMPOSER_TIME = re.compile(r"^(?:train|eval)_time/(?P<unit>epoch|batch|sample|token|batch_in_epoch|sample_in_epoch|token_in_epoch)$")
_METRIC_CLASSES = {"multiclassaccuracy": "accuracy", "binaryaccuracy": "accuracy", "multilabelaccuracy": "accuracy",
                   "accuracy": "accuracy", "crossentropy": "loss", "languagecrossentropy": "loss",
                   "lossmetric": "loss", "languageperplexity": "perplexity", "perplexity": "perplexity"}


def _composer(n: str) -> str | None:
    """A Composer name's canonical one (see _COMPOSER), else None."""
    if "/" not in n:
        return None
    if (m := _COMPOSER.search(n)) is not None:
        name = m.group("name")
        base = ("loss" if name == "total" else "loss/" + name) if m.group("kind") == "loss" else \
            _METRIC_CLASSES.get(name.replace("_", ""), name)
        return base if m.group("set") == "train" else as_held_out(base)
    if _COMPOSER_LR.search(n):
        return "lr"
    if (m := _COMPOSER_TIME.search(n)) is not None:
        return {"epoch": "epoch", "batch": "step"}.get(m.group("unit"), "time/" + m.group("unit"))
    return None


# A metric's name printed in Spanish, Portuguese, French, German or Russian, as the English key each word stands for:
# one table for the byte scanner (readers/textlog/vocabulary.foreign_keys rewrites labels with accented or Cyrillic
# letters before it reads them) and for the names below (labels in ASCII letters alone, "perda", "perda_teste",
# "acuracia_validacao", "Verlust": the scanner's keys already, translated word by word here)
FOREIGN_METRIC_WORDS = {
    "loss": ("pérdida", "perdida", "perda", "perte", "verlust", "perdita", "verlies", "потеря", "потери", "потерь", "лосс"),
    "acc": ("acurácia", "acuracia", "precisión", "precisão", "precisao", "exactitud", "exatidão", "précision",
            "exactitude", "genauigkeit", "accuratezza", "nauwkeurigheid", "точность"),
    "epoch": ("época", "epoca", "époque", "epoche", "эпоха", "эпохи", "эпоху"),
    "step": ("paso", "passo", "étape", "schritt", "stap", "шаг"),
    "lr": ("tasa de aprendizaje", "taxa de aprendizado", "taxa de aprendizagem", "taux d'apprentissage", "lernrate",
           "tasso di apprendimento", "leersnelheid", "скорость обучения")}
FOREIGN_SPLIT_WORDS = {
    "train": ("entrenamiento", "treinamento", "treino", "entraînement", "addestramento", "allenamento",
              "обучение", "обучения", "обучении", "трейн"),
    "val": ("validación", "validacion", "validação", "validacao", "validierung", "validazione", "validatie",
            "валидация", "валидации", "вал", "валидационная", "валидационный"),
    "test": ("prueba", "teste", "тест", "теста", "тесте", "тестовая", "тестовый")}
_FOREIGN_WORD = {w: k for table in (FOREIGN_METRIC_WORDS, FOREIGN_SPLIT_WORDS) for k, ws in table.items() for w in ws
                 if w.isascii() and w.isalpha()} | {"norma": "norm"}
_FOREIGN_TOKEN = re.compile(r"(?<![a-z0-9])(?:" + "|".join(sorted(_FOREIGN_WORD, key=len, reverse=True)) + r")(?![a-z0-9])")


# An image restoration's scores, read under an averaging word as themselves
_IMAGE_SCORES = frozenset({"psnr", "ssim"})


@lru_cache(maxsize=4096)
def normalize(raw: str) -> str:
    """Canonical metric name for a raw name as it appears in an artifact."""
    n = _SEP.sub("_", raw.strip().strip("'\"").lower())
    if n in _ALIASES:
        return _ALIASES[n]
    if (en := _FOREIGN_TOKEN.sub(lambda m: _FOREIGN_WORD[m.group(0)], n)) != n:
        return normalize(en)
    if (c := _composer(n)) is not None:
        return c
    # Lightning's gradient norms (track_grad_norm, utilities.grad_norm): "grad_2.0_norm_total" is
    # the whole model's, "grad_2.0_norm/<parameter>" a layer's (not a layer named "2.0_norm_total")
    m = _LIGHTNING_GRAD.fullmatch(n)
    if m:
        return "grad_norm/" + m.group(1) if m.group(1) else "grad_norm"
    m = _MEASURED_ON.fullmatch(n)
    if m:       # "accuracy of the network on the 10000 test images": the metric, of the set named after "on"
        base = normalize(m.group("m"))
        return as_held_out(base) if m.group("set") and base in CANONICAL else base
    m = _SET_METRIC.fullmatch(n)
    if m:       # (any other owner, "model's loss", "my_set's auc": the metric itself)
        owner, base = m.group("set") or m.group("owner"), normalize(m.group("m") or m.group("m2"))
        return as_held_out(base) if _VAL_SET.fullmatch(owner) else base
    # "Loss error", "Accuracy score", "loss value": a qualifier after a known name ("error" only after a
    # loss: "top1 error" is 1 - accuracy)
    for suf in ("_score", "_value", "_error"):
        if n.endswith(suf) and len(n) > len(suf):
            base = normalize(n[: -len(suf)])
            if base in CANONICAL and (suf != "_error" or base in ("loss", "val_loss")):
                return base
    for p in _VAL_PREFIXES:
        if n.startswith(p):
            rest = n[len(p):]
            # (Lightning's "val/acc_epoch"; "test/average_loss": the name after the prefix, read as any)
            return as_held_out(_ALIASES.get(rest) or _when_alias(rest) or normalize(rest))
    for suf in ("_val", "/val", "_eval", "/eval", "_valid", "/valid", "_validation", "/validation", "_test", "/test",
                "_dev", "/dev"):
        if n.endswith(suf):
            return as_held_out(_ALIASES.get(n[: -len(suf)], n[: -len(suf)]))
    # ... and the training set's the same way ("Loss/train", "Accuracy/train": PyTorch's TensorBoard
    # tutorial; "loss_train"), for a known name only
    for suf in ("/train", "_train", "/training", "_training"):
        if n.endswith(suf) and n[: -len(suf)] in _ALIASES:
            return _ALIASES[n[: -len(suf)]]
    for p in _TRAIN_PREFIXES:
        if n.startswith(p):
            rest = n[len(p):]
            # (Lightning's "train_acc_epoch": the name logged with when it was taken, as for val_)
            return _ALIASES.get(rest) or _when_alias(rest) or rest
    if (alias := _when_alias(n)) is not None:
        return alias
    # "running_loss", "epoch_acc", "loss_avg", "avg_train_loss": an averaging word before or after a
    # loss, accuracy or perplexity name
    head, sep, tail = n.partition("_")
    if sep and head in _AVERAGING and (normalize(tail) in LOSS_ACC_PPL or tail in _IMAGE_SCORES):
        return normalize(tail)       # (KAIR's "Average PSNR")
    head, sep, tail = n.rpartition("_")
    if sep and tail in _AVERAGING and normalize(head) in LOSS_ACC_PPL:
        return normalize(head)
    # per-layer gradient norms keep their layer, under any namespace that says "gradient norms (per
    # layer)": "grad_norm/encoder.0", "grads/fc1", "gradients/fc1.weight", and as a JSON history nests
    # them ({"layer_grad_norms": {"conv1": 0.0}} -> "layer_grad_norms/conv1")
    head, sep, tail = n.partition("/")
    if sep and tail and _LAYER_GRAD_HEAD.fullmatch(head):
        # (the whole model's under the same namespace: "Gradients/total_norm", "grad/global_norm"; per step or epoch
        # as Lightning names them, "grad/global_norm_step", is that norm; its maximum over an update another series)
        base, _, when = tail.rpartition("_")
        if base in WHOLE_MODEL and when in ("step", "epoch"):
            return "grad_norm"
        if base in WHOLE_MODEL and when in ("max", "min", "mean", "avg", "std"):
            return "grad_norm_" + when
        return "grad_norm" if tail in WHOLE_MODEL else "grad_norm/" + tail
    # (not the settings and counters named after gradients: grad_accum, grad_clip_norm, grad_steps)
    # a GAN's / an actor-critic's networks, each with its norm: "gradnorm_d", "gnorm_g", "d_grad_norm", "critic_gnorm"
    if (m := _PART_GRAD.fullmatch(n)) is not None:
        return "grad_norm/" + (m.group("a") or m.group("b"))
    for p in ("grad_norm_", "grad_norm.", "grad_"):
        if n.startswith(p) and len(n) > len(p):
            if p == "grad_" and n[len(p):].startswith(_GRAD_SETTINGS):
                break
            return "grad_norm/" + n[len(p):]
    if n.endswith("/grad_norm") or n.endswith(".grad_norm"):
        return "grad_norm/" + n[: -len("/grad_norm")]
    # ... and the other spellings hooks and wide tables use: a layer before the word ("layer0_grad",
    # "conv1.weight.grad", "fc1.weight_grad_norm") when what precedes it names a layer (a dotted path
    # or a word ending in a number: "clip_grad" is a setting)
    for suf in ("_grad_norm", "_gradnorm", "_grad", ".grad", "/grad", "_gradient", "/gradient"):
        if n.endswith(suf) and LAYER_NAME.fullmatch(n[: -len(suf)]):
            return "grad_norm/" + n[: -len(suf)]
    # A namespace in front of a known name ("optim/gnorm", "charts/learning_rate",
    # "trainer/train/total_loss"): the last segment decides, an eval segment makes it val_.
    if "/" in n:
        head, _, last = n.rpartition("/")
        if last in _ALIASES:
            base = _ALIASES[last]
            segs = set(head.split("/"))
            if segs & {"val", "valid", "validation", "eval", "evaluation", "test", "dev"}:
                return as_held_out(base)
            return base
    return n
