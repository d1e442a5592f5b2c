"""Generated zoo cases: real small trainings on CPU with an injected fault.

Each builder writes the case's `train.py` (bug included) and config, runs it
as a real subprocess, and keeps its artifacts. The `notes` of each case say
what was injected and where.
"""
from __future__ import annotations

import json

from make_zoo import Ctx, case
from zoo_lib import (CONFIG_JSON, CONFIG_YAML, DATA_BLOBS, DATA_SEQ, DATA_SHAPES, MODEL_CNN, MODEL_LSTM,
                     MODEL_MLP, STYLE_FORMAT, clf_script, config_argparse, yaml_dump)

# Which stream each style prints to; files written by the style itself are kept as they are.
_STDOUT_STYLES = {"kv", "pipe", "hfdict", "keras", "beginner", "rank", "megatron", "fairseq", "mmengine", "fastai"}
_STDERR_STYLES = {"tqdm", "absl"}

BLOBS = dict(seed=0, dim=20, num_classes=10, spread=1.0, noise=1.0, n_train=2000, n_val=500,
             depth=2, hidden=64, batch_size=32, epochs=8, lr=0.01, log_every=10)
SHAPES = dict(seed=0, image_size=12, noise=0.8, n_train=1600, n_val=400, channels=8,
              batch_size=32, epochs=6, lr=0.01, log_every=10)
SEQ = dict(seed=0, vocab_size=30, num_classes=6, seq_len=20, n_train=1600, n_val=400, emb=16, hidden=32,
           batch_size=32, epochs=6, lr=0.003, log_every=10)


def run_train(c: Ctx, style: str, cmd: str = "python train.py", log: str = "train.log", **kw) -> int:
    """Run train.py capturing its console the way this style's user would have it."""
    if style in _STDOUT_STYLES or style in _STDERR_STYLES:
        return c.run(cmd, stdout=log, stderr=log, **kw)
    rc = c.run(cmd, stdout="console.log", stderr="console.log", **kw)
    p = c.dir / "console.log"
    if p.exists() and not p.read_text().strip():
        p.unlink()
    return rc


def clf_case(c: Ctx, *, doc: str, data: str, model: str, style: str, cfg: dict, config: str = "yaml",
             extra_defs: str = "", run: bool = True, **repl: str | None) -> int | None:
    """Write config + train.py of a classifier case and run it."""
    if config == "yaml":
        c.write("config.yaml", yaml_dump(cfg))
        src = CONFIG_YAML
    elif config == "json":
        c.write("config.json", json.dumps(cfg, indent=2) + "\n")
        src = CONFIG_JSON
    else:                                  # argparse; defaults are the settings, dump written by the run
        src = config_argparse(cfg, dump=config)
    c.write("train.py", clf_script(doc, data=data, model=model, style=style, config=src,
                                   extra_defs=extra_defs, **repl))
    return run_train(c, style) if run else None


def fmt(style: str, extra: str = "") -> str:
    return STYLE_FORMAT[style] + (f"; {extra}" if extra else "")


# =============================================================================
# lr_too_high
# =============================================================================

@case("lr_high_mlp_kv", split="tune", expected="lr_too_high",
      symptom="Loss went down for a bit and then shot up to nan. I think the data has NaNs in it?", misleading=True,
      fmt=fmt("kv"), notes="MLP on blobs, SGD momentum 0.9 with lr=0.5 (config.yaml); loss falls, then rises and goes NaN.")
def _(c: Ctx):
    clf_case(c, doc="Train an MLP classifier on the blob dataset.", data=DATA_BLOBS, model=MODEL_MLP, style="kv",
             cfg={**BLOBS, "lr": 0.5})
