"""Key vocabulary of printed metrics: which words are steps, batches, epochs, metrics or noise.

In:  a key as printed in a log ("loss", "global_step", "val acc", "pid").
Out: `classify_key(raw)` -> (role, space form trusted); the word sets the scanner uses to
     accept a one-space prefix ("val loss") and a unit after a number ("12 ms").
"""
from __future__ import annotations

import re
from functools import lru_cache

from mltdbg.analyzers.names import normalize


STEP_KEYS = {"step", "steps", "global_step", "globalstep", "global_steps", "global step", "iter",
             "iters", "iteration", "it", "_step", "num_updates", "update", "updates",
             "trainer/global_step", "train/global_step", "train/step", "optimizer_step"}
BATCH_KEYS = {"batch", "batch_idx", "batch_id", "minibatch", "mini_batch", "mini-batch"}
EPOCH_KEYS = {"epoch", "ep", "train/epoch", "trainer/epoch", "train epoch"}
# Numbers next to these words are identifiers, versions, times or settings, never metrics.
DENY_KEYS = {
    "version", "ver", "v", "v_num", "pid", "tid", "ppid", "port", "line", "lineno", "rank", "local_rank",
    "global_rank", "world_size", "node", "node_rank", "nnodes", "nproc_per_node", "seed", "id",
    "ip", "host", "hostname", "addr", "master_addr", "master_port", "cuda", "cudnn", "nccl",
    "python", "torch", "pytorch", "numpy", "transformers", "driver", "eta", "date", "timestamp",
    "_timestamp", "exitcode", "exit_code", "errno", "signal", "attempt", "retry", "device", "gpu",
    "gpus", "cpu", "cpus", "num_workers", "http", "https", "file", "thread", "process", "worker",
    "localhost", "total_steps", "max_steps", "num_epochs", "epochs", "code", "status", "sha",
    "commit", "job", "jobid", "job_id", "task", "index", "idx", "shape", "size", "default", "at", "to",
    "from", "of", "in", "on", "with", "and", "or", "for", "is", "was", "after", "than", "by",
}
FILE_EXTS = (".py", ".pyx", ".c", ".cc", ".cpp", ".cu", ".h", ".hpp", ".js", ".rs", ".go",
             ".java", ".sh", ".txt", ".log", ".yaml", ".yml", ".json", ".so", ".bin", ".pt", ".pth")
# Words that may precede a key with one space ("val loss", "Train Acc", "lm loss").
PREFIX_WORDS = {"train", "training", "val", "valid", "validation", "eval", "evaluation", "test",
                "dev", "avg", "average", "mean", "total", "running", "best", "global"}
# Any other word before "loss" names a term of a multi-term loss ("SR loss: 9.75 | contrastive loss:
# 0.89", a GAN's "D loss" and "G loss"): the pair is one name, else every term would land in one
# series called loss, two or more values a step. A word that says how the loss was averaged ("batch
# loss", "epoch loss") is kept too: names.normalize reads the pair as the loss. Except these words,
# which are not part of a name: the loss itself ("the loss", "final loss") keeps its name.
NOT_A_TERM = {"the", "a", "an", "my", "our", "your", "its", "this", "that", "new", "final", "last", "lowest",
              "highest", "min", "max", "minimum", "maximum", "got", "get", "gets", "has", "have", "had",
              "reached", "reaches", "no", "nan", "inf", "is", "was", "are", "were", "itr",
              # a log record's level or a whole model's name in front of its loss
              "info", "debug", "warning", "warn", "error", "critical", "notice", "trace", "fatal",
              "model", "net", "network"}


def loss_term(pre: str, key: str) -> bool:
    """`pre key` names one term of a multi-term loss (see NOT_A_TERM)."""
    low = pre.lower()
    return key.lower() == "loss" and low not in NOT_A_TERM and low not in DENY_KEYS


# Two-word names whose second word alone would mean something else.
# (Megatron-LM's "number of skipped iterations" and "number of nan iterations": two counts, not one)
PAIR_NAMES = {"learning rate", "grad norm", "gradient norm", "loss scale", "max mem", "skipped iterations",
              "nan iterations"}
# Words that may follow a known metric name with one space ("Loss error: 0.8", "Accuracy score: 0.1").
QUALIFIER_WORDS = {"error", "score", "value"}


def qualified_pair(pre: str, key: str) -> bool:
    """`pre key` is one metric name: a known name followed by a qualifier word ("Loss error")."""
    return key.lower() in QUALIFIER_WORDS and normalize(f"{pre} {key}") in _SPACE_CANON
_SPACE_CANON = {"loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm", "perplexity",
                "val_perplexity", "loss_scale", "epoch", "data_time", "step_time", "throughput",
                "tokens_per_s"}
UNITS = {"ms", "s", "us", "ns", "sec", "secs", "min", "mins", "h", "hr", "gb", "mb", "kb", "gib",
         "mib", "kib", "b", "k", "m", "g", "x", "it", "its", "tok", "img", "samples", "step"}


# A snake_case name that ends as a metric does ("relu_zero_frac 0.98", "train_acc 0.91", "attn_entropy 2.1"): a
# program's own identifier for a number it prints, trusted in the space form as the known names are
_SPACED_IDENT = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:acc|accuracy|norm|frac|fraction|ratio|sparsity|perplexity"
                           r"|ppl|f1|auc|iou|dice|wer|bleu|entropy|mae|mse|rmse)")


@lru_cache(maxsize=4096)   # (each small log of a folder of many asks again for the same few keys)
def classify_key(raw: str):
    """Role of a key: 'step', 'batch', 'epoch', 'metric' or None (not a metric); and whether
    the space form ("loss 0.5") is trusted for it."""
    low = raw.lower()
    if not low or not (low[0].isalpha() or low[0] == "_"):
        return None, False
    last = low.split()[-1]
    if low in DENY_KEYS or last in DENY_KEYS or low.endswith(FILE_EXTS):
        return None, False
    if low in STEP_KEYS:
        return "step", True
    if low in BATCH_KEYS:
        return "batch", True
    if low in EPOCH_KEYS or last in EPOCH_KEYS:
        return "epoch", True
    space_ok = (normalize(low) in _SPACE_CANON or low.endswith("loss")
                or low in ("acc1", "acc5", "top1", "top5", "ppl") or bool(_SPACED_IDENT.fullmatch(low)))
    return "metric", space_ok
