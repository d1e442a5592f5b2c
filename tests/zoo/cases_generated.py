"""Generated zoo cases: real small trainings on CPU with an injected fault.

Each builder writes the case's `train.py` (bug included) and config, runs it
as a real subprocess, and keeps its artifacts. The `notes` of each case say
what was injected and where.
"""
from __future__ import annotations

import json

from make_zoo import Ctx, case
from zoo_lib import (STYLES, fill, CONFIG_JSON, CONFIG_YAML, DATA_BLOBS, DATA_SEQ, DATA_SHAPES, DATA_TEXT, DATA_REGRESSION, MODEL_CNN, MODEL_LSTM, MODEL_GRU_LM, MODEL_TRANSFORMER_LM, lm_script, script,
                     MODEL_MLP, STYLE_FORMAT, clf_script, config_argparse, yaml_dump)

# Which stream each style prints to; files written by the style itself are kept as they are.
_STDOUT_STYLES = {"kv", "pipe", "hfdict", "keras", "beginner", "rank", "megatron", "fairseq", "mmengine", "fastai"}
_STDERR_STYLES = {"tqdm", "absl"}

BLOBS = dict(seed=0, dim=20, num_classes=10, spread=1.0, noise=1.5, n_train=2000, n_val=500,
             depth=2, hidden=64, batch_size=32, epochs=8, lr=0.01, log_every=10)
SHAPES = dict(seed=0, image_size=12, noise=0.8, n_train=1600, n_val=400, channels=8,
              batch_size=32, epochs=6, lr=0.01, log_every=10)
CHARLM = dict(seed=0, n_sentences=1200, block=48, emb=32, hidden=128, batch_size=32, epochs=5, lr=0.003,
              grad_clip=1.0, log_every=5)
TLM = dict(seed=0, n_sentences=1200, block=48, d_model=64, n_heads=4, n_layers=2, batch_size=32, epochs=5,
           lr=0.001, grad_clip=1.0, log_every=5)
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


# clip_grad_norm_ with max_norm=inf returns the total norm without clipping
CLIP_OPTIONAL = 'gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"] or float("inf")).item()'


# =============================================================================
# lr_too_high
# =============================================================================

@case("lr_high_mlp_kv", split="tune", expected="lr_too_high",
      symptom="Accuracy is stuck at 10% after the first few hundred steps. I think my labels are broken.", misleading=True,
      fmt=fmt("kv"), notes="MLP on blobs, SGD momentum 0.9 with lr=0.3 in config.yaml (0.01 works): loss falls for ~25 steps, "
                           "then rises to chance (ln 10) and stays; grad_norm spikes at the rise.")
def _(c: Ctx):
    clf_case(c, doc="Train an MLP classifier on the blob dataset.", data=DATA_BLOBS, model=MODEL_MLP, style="kv",
             cfg={**BLOBS, "lr": 0.3})


@case("lr_high_charlm_hfdict", split="tune", expected="lr_too_high",
      symptom="Char model's loss drops nicely and then climbs back up after the first epoch.",
      fmt=fmt("hfdict"), notes="GRU char LM, AdamW lr=0.15 (config.yaml; 3e-3 works), with gradient clipping at 1.0: the "
                               "loss falls for ~10 steps, then rises far above its start and only partly recovers.")
def _(c: Ctx):
    cfg = {**CHARLM, "lr": 0.15}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script("Character-level GRU language model on a toy corpus.", model=MODEL_GRU_LM, style="hfdict"))
    run_train(c, "hfdict")


# =============================================================================
# healthy runs
# =============================================================================

@case("healthy_mlp_kv_noisy", split="tune", expected=None, symptom="Is this run OK? The loss is really noisy.",
      fmt=fmt("kv"), notes="Healthy: MLP on blobs, SGD lr=0.01; the per-batch loss is noisy but trends down.")
def _(c: Ctx):
    clf_case(c, doc="Train an MLP classifier on the blob dataset.", data=DATA_BLOBS, model=MODEL_MLP, style="kv",
             cfg={**BLOBS, "epochs": 10})


@case("healthy_charlm_hfdict_warmup", split="tune", expected=None, symptom=None,
      fmt=fmt("hfdict"), notes="Healthy: GRU char LM, AdamW 3e-3 with linear warm-up over 40 steps then linear decay; "
                               "grad_norm is high during warm-up (normal).")
def _(c: Ctx):
    cfg = {**CHARLM, "warmup_steps": 40}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Character-level GRU language model on a toy corpus, with linear warm-up and decay.", model=MODEL_GRU_LM,
        style="hfdict",
        SCHEDULER='''
        total_steps = cfg["epochs"] * len(loader)
        scheduler = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda s: min((s + 1) / cfg["warmup_steps"], max(0.0, (total_steps - s) / (total_steps - cfg["warmup_steps"]))))
        ''',
        BATCH_END="scheduler.step()"))
    run_train(c, "hfdict")


@case("healthy_cnn_keras_short", split="tune", expected=None, symptom="Only ran 3 epochs to check the pipeline, does it look sane?",
      fmt=fmt("keras"), notes="Healthy short run: small CNN on synthetic shapes, 3 epochs, Adam 1e-3.")
def _(c: Ctx):
    clf_case(c, doc="Small CNN on synthetic 12x12 shape images.", data=DATA_SHAPES, model=MODEL_CNN, style="keras",
             cfg={**SHAPES, "epochs": 3, "lr": 0.001},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


# =============================================================================
# Shared bespoke pieces: regression MLP, vanilla RNN, per-layer diagnostics
# =============================================================================

REG = dict(seed=0, dim=8, n=3000, hidden=64, batch_size=64, epochs=6, lr=0.01, log_every=10)

REG_MAIN = '''
def load_data(cfg):
    return make_split(cfg["n"], cfg, seed=1)


def build_model(cfg):
    h = cfg["hidden"]
    return nn.Sequential(nn.Linear(cfg["dim"], h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 1))  # @MODEL


def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    x, y = load_data(cfg)
    n_val = len(x) // 5
    train_ds = TensorDataset(x[n_val:], y[n_val:])
    xv, yv = x[:n_val], y[:n_val]
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    model = build_model(cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)  # @OPTIMIZER
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    log_text(f"training on {len(train_ds)} rows, validating on {n_val}")
    step = 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            pred = model(xb)
            loss = F.mse_loss(pred, yb)  # @LOSS
            optimizer.zero_grad()
            loss.backward()
            gnorm = math.sqrt(sum(p.grad.pow(2).sum().item() for p in model.parameters()))
            optimizer.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm})
        with torch.no_grad():
            val_loss = F.mse_loss(model(xv), yv).item()
        log_val(step, epoch, {"val_loss": val_loss})
    close()


CFG = {}

if __name__ == "__main__":
    main()
'''


def reg_case(c: Ctx, *, doc: str, style: str, cfg: dict, data: str = DATA_REGRESSION, config: str = "yaml",
             **repl: str | None) -> int:
    if config == "yaml":
        c.write("config.yaml", yaml_dump(cfg))
        src = CONFIG_YAML
    else:
        c.write("config.json", json.dumps(cfg, indent=2) + "\n")
        src = CONFIG_JSON
    c.write("train.py", script(doc, src, data, STYLES[style], fill(REG_MAIN, **repl)))
    return run_train(c, style)


# Per-layer gradient norms and dead-unit shares, logged as extra metrics.
PER_LAYER_DEFS = '''
def layer_grad_norms(model):
    """Gradient norm of each Linear/Conv layer's weight, input side first."""
    out = {}
    layers = [m for m in model.modules() if isinstance(m, (nn.Linear, nn.Conv2d))]
    for i, m in enumerate(layers):
        out[f"grad_norm/layer{i}"] = m.weight.grad.norm().item() if m.weight.grad is not None else 0.0
    return out
'''

DEAD_DEFS = PER_LAYER_DEFS + '''

@torch.no_grad()
def dead_fraction(model, x):
    """Share of ReLU units that output 0 for every sample of the batch, per ReLU layer."""
    out, h = {}, x
    i = 0
    for m in model.body:
        h = m(h)
        if isinstance(m, nn.ReLU):
            out[f"dead_frac/relu{i}"] = (h.amax(dim=0) <= 0).float().mean().item()
            i += 1
    return out
'''


# =============================================================================
# lr_too_high (continued)
# =============================================================================

@case("lr_high_regression_mlflow", split="holdout", expected="lr_too_high",
      symptom="regression loss explodes to inf after a few epochs, what is going on", fmt=fmt("mlflow"),
      also_acceptable=["exploding_gradients"],
      notes="Tanh MLP regression, SGD momentum 0.9 at lr=0.2 (config.json; 0.01 works). MSE falls for a while, "
            "then rises by orders of magnitude and goes inf/NaN. MLflow file store only.")
def _(c: Ctx):
    reg_case(c, doc="Fit a small MLP to the tabular regression target.", style="mlflow", cfg={**REG, "lr": 0.2},
             config="json")


# =============================================================================
# lr_too_low
# =============================================================================

@case("lr_low_cnn_pylogging", split="tune", expected="lr_too_low",
      symptom="The CNN trains but painfully slowly, loss has barely moved after 6 epochs.", fmt=fmt("pylogging"),
      notes="Small CNN on shapes, Adam with lr=2e-5 in config.yaml (1e-3 works): loss falls almost linearly and very slowly.")
def _(c: Ctx):
    clf_case(c, doc="Small CNN on synthetic 12x12 shape images.", data=DATA_SHAPES, model=MODEL_CNN, style="pylogging",
             cfg={**SHAPES, "lr": 2e-5},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


@case("lr_low_lstm_absl", split="holdout", expected="lr_too_low", symptom=None, fmt=fmt("absl"),
      notes="LSTM sequence classifier, plain SGD (no momentum) with lr=1e-3 passed as a flag default (argparse, flags dumped to "
            "flags.json); loss creeps down linearly from ln 6.")
def _(c: Ctx):
    clf_case(c, doc="LSTM classifier: which token dominates a sequence.", data=DATA_SEQ, model=MODEL_LSTM, style="absl",
             cfg={**SEQ, "lr": 1e-3, "epochs": 8}, config="flags.json",
             OPTIMIZER='optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# lr_schedule_bug
# =============================================================================

@case("sched_steplr_per_batch_csv", split="tune", expected="lr_schedule_bug",
      symptom="Loss stops improving after about 100 steps even though I planned a decay only every 30 epochs.",
      fmt=fmt("csv"), notes="StepLR(step_size=30, gamma=0.1) meant per epoch (config: lr_step_epochs: 30) but "
                            "scheduler.step() is called inside the batch loop: lr divides by 10 every 30 batches and "
                            "is ~1e-9 by step 240; loss freezes high.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs with a step decay every `lr_step_epochs` epochs.", data=DATA_BLOBS, model=MODEL_MLP,
             style="csv", cfg={**BLOBS, "lr": 0.01, "epochs": 10, "lr_step_epochs": 30, "lr_gamma": 0.1},
             SCHEDULER='scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=cfg["lr_step_epochs"], gamma=cfg["lr_gamma"])',
             BATCH_END="scheduler.step()")


@case("sched_cosine_per_batch_pipe", split="tune", expected="lr_schedule_bug", symptom=None, fmt=fmt("pipe"),
      notes="CosineAnnealingLR(T_max=epochs) meant per epoch but stepped every batch: the lr swings between 0 "
            "and its peak every 2*epochs batches; loss wobbles with the same period.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes with cosine annealing over the epochs.", data=DATA_SHAPES, model=MODEL_CNN,
             style="pipe", cfg={**SHAPES, "lr": 0.05, "epochs": 6},
             SCHEDULER='scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])',
             BATCH_END="scheduler.step()")


@case("sched_warmup_whole_run_fairseq", split="holdout", expected="lr_schedule_bug",
      symptom="transformer LM converges way slower than the reference run", fmt=fmt("fairseq"),
      notes="Inverse-sqrt schedule with warmup_updates equal to the whole run (warmup_updates: 4000 in config.yaml, "
            "run is 190 updates): the lr ramps linearly the entire run and never reaches its peak.")
def _(c: Ctx):
    cfg = {**TLM, "lr": 0.003, "warmup_updates": 4000, "warmup_init_lr": 1e-7}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Small Transformer char LM with fairseq's inverse_sqrt schedule.", model=MODEL_TRANSFORMER_LM, style="fairseq",
        LR_UPDATE='''
        if step < cfg["warmup_updates"]:
            lr = cfg["warmup_init_lr"] + (cfg["lr"] - cfg["warmup_init_lr"]) * step / cfg["warmup_updates"]
        else:
            lr = cfg["lr"] * (cfg["warmup_updates"] / step) ** 0.5
        for g in optimizer.param_groups:
            g["lr"] = lr
        '''))
    run_train(c, "fairseq")


# =============================================================================
# exploding_gradients
# =============================================================================

RNN_DEFS = '''
class RNNClassifier(nn.Module):
    """Vanilla ReLU RNN over the whole sequence; the last state classifies."""

    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab_size"], cfg["emb"])
        self.rnn = nn.RNN(cfg["emb"], cfg["hidden"], nonlinearity="relu", batch_first=True)
        self.out = nn.Linear(cfg["hidden"], cfg["num_classes"])
        nn.init.orthogonal_(self.rnn.weight_hh_l0, gain=cfg["recurrent_gain"])

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.out(h[:, -1])
'''

RNN_CFG = {**SEQ, "seq_len": 40, "emb": 16, "hidden": 64, "recurrent_gain": 1.2, "lr": 0.02, "epochs": 6}


@case("explode_rnn_pipe", split="tune", expected="exploding_gradients",
      symptom="Loss jumps to huge values and ends up nan. I think one of my input sequences has a NaN in it.",
      misleading=True, fmt=fmt("pipe"),
      notes="Vanilla ReLU RNN over 40 steps, recurrent weights initialised orthogonal*1.2, SGD momentum, and no "
            "gradient clipping (none in train.py or config): grad_norm grows by orders of magnitude, loss jumps, then NaN.")
def _(c: Ctx):
    clf_case(c, doc="Vanilla RNN sequence classifier.", data=DATA_SEQ, model=RNN_DEFS.replace("RNNClassifier", "Net"),
             style="pipe", cfg=RNN_CFG)


@case("explode_gru_lm_noclip_jsonl", split="tune", expected="exploding_gradients", also_acceptable=["lr_too_high"],
      symptom=None, fmt=fmt("jsonl"),
      notes="GRU char LM with gradient clipping disabled (grad_clip: 0 in config.yaml, so train.py skips "
            "clip_grad_norm_) and AdamW lr=0.15: train/grad_norm grows from ~4 to ~1e4-1e5 within ~40 steps while the "
            "loss jumps back up. The lr is also high, so lr_too_high is acceptable.")
def _(c: Ctx):
    cfg = {**CHARLM, "lr": 0.15, "grad_clip": 0}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Character-level GRU language model on a toy corpus.", model=MODEL_GRU_LM, style="jsonl",
        CLIP=CLIP_OPTIONAL))
    run_train(c, "jsonl")


@case("explode_rnn_tb", split="holdout", expected="exploding_gradients", symptom="loss goes to inf around step 150?",
      fmt=fmt("tb_holdout"), notes="Vanilla ReLU RNN (hidden 96, 50 steps), recurrent weights orthogonal*1.25, SGD momentum, no "
                                   "clipping; optim/gnorm spikes by orders of magnitude, then the loss goes NaN.")
def _(c: Ctx):
    clf_case(c, doc="Sequence classifier with a plain RNN.", data=DATA_SEQ, model=RNN_DEFS.replace("RNNClassifier", "Net"),
             style="tb_holdout", cfg={**RNN_CFG, "seq_len": 50, "hidden": 96, "recurrent_gain": 1.25, "log_every": 2})


# =============================================================================
# vanishing_gradients
# =============================================================================

SIGMOID_MLP = '''
class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, d = [], cfg["dim"]
        for _ in range(cfg["depth"]):
            layers += [nn.Linear(d, cfg["hidden"]), nn.Sigmoid()]
            d = cfg["hidden"]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))
'''


@case("vanish_sigmoid_kv", split="tune", expected="vanishing_gradients",
      symptom="Deep net doesn't learn at all, loss flat at 2.30.", fmt=fmt("kv"),
      notes="16-layer sigmoid MLP, no normalisation or residuals, SGD: per-layer weight-gradient norms "
            "(grad_norm/layerN, layer0 = input side) fall by orders of magnitude toward the input; loss stays at ln 10.")
def _(c: Ctx):
    clf_case(c, doc="Deep sigmoid MLP on blobs.", data=DATA_BLOBS, model=SIGMOID_MLP, style="kv",
             cfg={**BLOBS, "depth": 16, "hidden": 32, "lr": 0.05}, extra_defs=PER_LAYER_DEFS,
             EXTRA_METRICS="metrics.update(layer_grad_norms(model))")


@case("vanish_sigmoid_tb", split="holdout", expected="vanishing_gradients", symptom=None, fmt=fmt("tb_holdout"),
      notes="12-layer sigmoid MLP on the shapes images (flattened), Adam 1e-4; per-layer grad norms logged to "
            "TensorBoard as train/grad_norm/layerN fall by orders of magnitude toward the input; loss flat near ln 4.")
def _(c: Ctx):
    model = SIGMOID_MLP.replace('layers, d = [], cfg["dim"]', 'layers, d = [nn.Flatten()], cfg["image_size"] ** 2') \
                       .replace('cfg["num_classes"]', '4')
    clf_case(c, doc="Deep sigmoid MLP on flattened shape images.", data=DATA_SHAPES, model=model, style="tb_holdout",
             cfg={**SHAPES, "depth": 12, "hidden": 48, "lr": 1e-4}, extra_defs=PER_LAYER_DEFS,
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             EXTRA_METRICS="metrics.update(layer_grad_norms(model))")


# =============================================================================
# dead_relu
# =============================================================================

@case("dead_relu_bias_pylogging", split="tune", expected="dead_relu",
      symptom="Loss is stuck around 2.3 from the start and never moves.", fmt=fmt("pylogging"),
      notes="ReLU MLP whose hidden biases are initialised to -3 (bias_init in config.yaml): ~all units output 0 for "
            "every input (dead_frac/reluN near 1), their gradients are 0 (grad_norm/layerN ~0 except the head).")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs with a custom bias initialisation.", data=DATA_BLOBS, model=MODEL_MLP,
             style="pylogging", cfg={**BLOBS, "depth": 3, "bias_init": -3.0},
             extra_defs=DEAD_DEFS, OPTIMIZER='''
for m in model.body:
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.bias, cfg["bias_init"])
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
''', EXTRA_METRICS="metrics.update(layer_grad_norms(model))\nmetrics.update(dead_fraction(model, x))")


RELU_HOOK_DEFS = '''
_acts = {}


def watch_relus(model):
    """Keep the last output of every ReLU module (for the dead-unit share)."""
    for name, m in model.named_modules():
        if isinstance(m, nn.ReLU):
            m.register_forward_hook(lambda mod, inp, out, name=name: _acts.__setitem__(name, out.detach()))


def dead_fraction():
    """Share of units/channels that are 0 for every sample (and position) of the last batch."""
    out = {}
    for name, a in _acts.items():
        a = a.transpose(0, 1).reshape(a.shape[1], -1) if a.dim() == 4 else a.t()
        out[f"dead_frac/{name}"] = (a.amax(dim=1) <= 0).float().mean().item()
    return out
''' + PER_LAYER_DEFS


@case("dead_relu_cnn_bias_tb", split="holdout", expected="dead_relu", symptom="accuracy collapsed to chance",
      fmt=fmt("tb_holdout"),
      notes="CNN whose conv and hidden Linear biases are initialised to -2 (init_bias in config.yaml, 'sparse "
            "activations' init in train.py): every ReLU outputs 0 for every input (train/dead_frac/* = 1.0), all "
            "layer gradients except the output bias are 0; loss stays at ln 4.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes with a sparse-activation initialisation.", data=DATA_SHAPES, model=MODEL_CNN,
             style="tb_holdout", cfg={**SHAPES, "init_bias": -2.0}, extra_defs=RELU_HOOK_DEFS,
             OPTIMIZER='''
hidden = [m for m in model.modules() if isinstance(m, nn.Conv2d) or (isinstance(m, nn.Linear) and m.out_features != 4)]
for m in hidden:
    nn.init.constant_(m.bias, cfg["init_bias"])
watch_relus(model)
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
''', EXTRA_METRICS="metrics.update(layer_grad_norms(model))\nmetrics.update(dead_fraction())")


# =============================================================================
# overfitting
# =============================================================================

@case("overfit_mlp_keras", split="tune", expected="overfitting",
      symptom="Training accuracy is almost 100% but validation gets worse every epoch.", fmt=fmt("keras"),
      notes="Wide 3-layer MLP (512 units) on only 120 training samples for 60 epochs with Adam and no "
            "regularisation: train loss -> 0 while val_loss rises after epoch ~8.")
def _(c: Ctx):
    clf_case(c, doc="MLP on a small labelled subset of the blobs.", data=DATA_BLOBS, model=MODEL_MLP, style="keras",
             cfg={**BLOBS, "n_train": 120, "n_val": 400, "depth": 3, "hidden": 512, "epochs": 60, "batch_size": 16,
                  "lr": 0.001, "noise": 2.0},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


@case("overfit_cnn_lightning", split="tune", expected="overfitting", symptom=None, fmt=fmt("lightning_csv"),
      notes="CNN with 32 channels on 96 noisy shape images, 40 epochs, Adam: train_loss_step -> 0, val_loss "
            "(validation rows of metrics.csv) bottoms out early and rises.")
def _(c: Ctx):
    clf_case(c, doc="CNN on a small subset of shapes (LightningModule port pending, logs in the Lightning layout).",
             data=DATA_SHAPES, model=MODEL_CNN, style="lightning_csv",
             cfg={**SHAPES, "n_train": 96, "noise": 1.4, "channels": 32, "epochs": 40, "batch_size": 16, "lr": 0.002,
                  "log_every": 3},
             config="lightning_logs/version_0/hparams.yaml",
             OPTIMIZER='os.makedirs("lightning_logs/version_0", exist_ok=True)\n'
                       'optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


@case("overfit_lstm_fastai", split="holdout", expected="overfitting",
      symptom="valid_loss keeps going up, is the validation set broken?", misleading=True, fmt=fmt("fastai"),
      notes="LSTM (hidden 256) on 150 training sequences for 40 epochs, Adam: train_loss keeps falling while "
            "valid_loss rises from epoch ~6 (fastai-style epoch table).")
def _(c: Ctx):
    clf_case(c, doc="LSTM sequence classifier on a small training set.", data=DATA_SEQ, model=MODEL_LSTM, style="fastai",
             cfg={**SEQ, "n_train": 150, "hidden": 256, "emb": 64, "epochs": 40, "batch_size": 16, "lr": 0.003},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# plateau_underfitting
# =============================================================================

@case("plateau_tiny_model_tqdm", split="tune", expected="plateau_underfitting",
      symptom="Loss plateaus around 1.7 almost immediately. More epochs don't help.", fmt=fmt("tqdm"),
      notes="The MLP has one hidden layer of 2 units (hidden: 2, depth: 1 in config.yaml) for a 10-class, "
            "20-dimensional problem: far too small, the loss stalls early around 1.7 (ln 10 = 2.30, a 64-unit "
            "model reaches ~0.5).")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs.", data=DATA_BLOBS, model=MODEL_MLP, style="tqdm",
             cfg={**BLOBS, "depth": 1, "hidden": 2})


@case("plateau_linear_model_rank", split="holdout", expected="plateau_underfitting", symptom=None, fmt=fmt("rank"),
      notes="A purely linear model (no hidden layer, `hidden: 0` path in train.py) on a nonlinear regression target: "
            "MSE plateaus at ~1.0 after a few steps while the target variance is ~1.6.")
def _(c: Ctx):
    reg_case(c, doc="Baseline regressor for the tabular target.", style="rank", cfg={**REG, "hidden": 0, "lr": 0.01},
             MODEL='return nn.Linear(cfg["dim"], 1) if h == 0 else nn.Sequential(nn.Linear(cfg["dim"], h), nn.Tanh(), nn.Linear(h, 1))')


# =============================================================================
# label_misalignment
# =============================================================================

@case("labels_shuffled_separately_pipe", split="tune", expected="label_misalignment",
      symptom="Model is stuck at chance: loss never goes below 2.30 even though the data is easy.", fmt=fmt("pipe"),
      notes="make_datasets() shuffles the features and the labels with two different permutations "
            "(x = x[perm_x]; y = y[perm_y]): pairs are random, loss stays at ln 10 with healthy gradients.")
def _(c: Ctx):
    data = DATA_BLOBS.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    # shuffle once up front so batches mix classes
    x = x[torch.randperm(len(x))]
    y = y[torch.randperm(len(y))]
''')
    clf_case(c, doc="MLP on blobs, data shuffled once at load time.", data=data, model=MODEL_MLP, style="pipe",
             cfg=BLOBS)


@case("labels_off_by_one_cnn_hfdict", split="tune", expected="label_misalignment",
      symptom="eval_accuracy is 25% no matter what I try (4 classes).", fmt=fmt("hfdict"),
      notes="ShapesDataset.__getitem__ returns (image[i], label[i - 1]): every image is paired with its "
            "neighbour's label, so accuracy stays at chance (ln 4 loss); gradients are normal.")
def _(c: Ctx):
    data = DATA_SHAPES.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)''', '''class ShapesDataset(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        # labels file has a header row, so label i is stored at i - 1
        return self.images[i], self.labels[i - 1]


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return ShapesDataset(x, y), ShapesDataset(xv, yv)''')
    clf_case(c, doc="CNN on shapes with a map-style dataset.", data=data, model=MODEL_CNN, style="hfdict",
             cfg={**SHAPES, "lr": 0.001}, OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


@case("labels_sorted_lstm_mlflow", split="holdout", expected="label_misalignment", symptom=None, fmt=fmt("mlflow"),
      notes="load step sorts the label list (`labels = sorted(labels)`) but not the sequences: inputs and "
            "targets no longer correspond; loss stays at ln 6, val acc ~1/6.")
def _(c: Ctx):
    data = DATA_SEQ.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y = torch.tensor(sorted(y.tolist()))        # canonical label order for the class-weight table
''')
    clf_case(c, doc="LSTM sequence classifier.", data=data, model=MODEL_LSTM, style="mlflow", cfg=SEQ,
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# nan_in_data
# =============================================================================

CSV_DATA_LOADER = '''
def make_datasets(cfg):
    """Features and label from data/train.csv (label in the last column); 20% held out."""
    arr = np.genfromtxt(cfg["data_path"], delimiter=",", skip_header=1)
    x = torch.tensor(arr[:, :-1], dtype=torch.float32)
    y = torch.tensor(arr[:, -1], dtype=torch.long)
    n_val = len(x) // 5
    return TensorDataset(x[n_val:], y[n_val:]), TensorDataset(x[:n_val], y[:n_val])
'''


def write_blob_csv(c: Ctx, n: int, dim: int, k: int, holes: dict[int, int], rel="data/train.csv", noise=1.5) -> None:
    """A CSV of blob features + label; `holes` maps row -> column left empty (a missing value)."""
    import torch
    g = torch.Generator().manual_seed(0)
    centres = torch.randn(k, dim, generator=g)
    g = torch.Generator().manual_seed(3)
    y = torch.randint(0, k, (n,), generator=g)
    x = centres[y] + torch.randn(n, dim, generator=g) * noise
    lines = [",".join([f"f{i}" for i in range(dim)] + ["label"])]
    for r in range(n):
        cells = [f"{v:.4f}" for v in x[r].tolist()]
        if r in holes:
            cells[holes[r]] = ""
        lines.append(",".join(cells + [str(int(y[r]))]))
    c.write(rel, "\n".join(lines) + "\n")


@case("nan_csv_missing_value_kv", split="tune", expected="nan_in_data",
      symptom="Loss becomes nan about 30 steps in, before that it looked fine.", fmt=fmt("kv", "data CSV"),
      notes="data/train.csv data row 1128 (file line 1130, column f3) has an empty cell; np.genfromtxt reads it as NaN. The batch "
            "holding that row turns the loss NaN (finite just before), and every step after is NaN.")
def _(c: Ctx):
    write_blob_csv(c, 2000, 8, 6, holes={1128: 3})
    clf_case(c, doc="MLP on features read from data/train.csv.", data=CSV_DATA_LOADER, model=MODEL_MLP, style="kv",
             cfg={**BLOBS, "dim": 8, "num_classes": 6, "data_path": "data/train.csv", "log_every": 5})


@case("nan_ratio_feature_csv", split="tune", expected="nan_in_data", symptom=None, fmt=fmt("csv", "data CSV"),
      notes="A derived feature divides two raw columns (f1 / f2); data/train.csv has one row with f2 == 0, "
            "giving inf in that sample (data row 989, file line 991): the loss is inf/NaN at the batch that holds it, finite before.")
def _(c: Ctx):
    write_blob_csv(c, 1500, 6, 5, holes={})
    text = (c.dir / "data/train.csv").read_text().split("\n")
    cells = text[990].split(",")
    cells[2] = "0.0000"
    text[990] = ",".join(cells)
    c.write("data/train.csv", "\n".join(text))
    loader = CSV_DATA_LOADER.replace('''    x = torch.tensor(arr[:, :-1], dtype=torch.float32)
''', '''    x = torch.tensor(arr[:, :-1], dtype=torch.float32)
    ratio = x[:, 1:2] / x[:, 2:3]                  # derived feature: f1 / f2
    x = torch.cat([x, ratio], dim=1)
''')
    clf_case(c, doc="MLP on CSV features plus a ratio feature.", data=loader, model=MODEL_MLP, style="csv",
             cfg={**BLOBS, "dim": 7, "num_classes": 5, "data_path": "data/train.csv", "log_every": 5})


@case("nan_sample_regression_rank", split="holdout", expected="nan_in_data",
      symptom="loss=nan after ~20 iterations, I'm guessing the learning rate is too high?", misleading=True,
      fmt=fmt("rank", "data .npz"),
      notes="data/features.npy has NaN in row 2417 (a failed sensor read); the regression loss is finite until the "
            "batch holding it and NaN from there on. lr is a normal 0.01.")
def _(c: Ctx):
    import numpy as np
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3000, 8)).astype(np.float32)
    x[2417, 5] = np.nan
    y = (np.sin(x[:, 0]) + x[:, 1] * x[:, 2] + 0.5 * x[:, 3] ** 2).astype(np.float32)
    (c.dir / "data").mkdir(parents=True, exist_ok=True)
    np.save(c.dir / "data/features.npy", x)
    np.save(c.dir / "data/targets.npy", y)
    reg_case(c, doc="Regressor trained on sensor features from data/*.npy.", style="rank", cfg={**REG, "lr": 0.01},
             data='''
def make_split(n, cfg, seed):
    x = torch.from_numpy(np.load("data/features.npy"))
    y = torch.from_numpy(np.load("data/targets.npy")).unsqueeze(1)
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(x), generator=g)
    return x[perm], y[perm]
''')


# =============================================================================
# numerical_instability
# =============================================================================

@case("log_of_softmax_jsonl", split="tune", expected="numerical_instability",
      symptom="Loss jumps up and then becomes nan within the first epoch.", fmt=fmt("jsonl"),
      notes="Loss computed as -log(softmax(logits / temperature)) with temperature 0.05 (config.yaml) instead of "
            "log_softmax: once a wrong class wins by a wide margin softmax underflows to 0 and log gives -inf; "
            "loss inf then NaN. Data has no NaN.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs with a temperature-scaled classification loss.", data=DATA_BLOBS, model=MODEL_MLP,
             style="jsonl", cfg={**BLOBS, "temperature": 0.05, "lr": 0.02},
             LOSS='probs = torch.softmax(logits / cfg["temperature"], dim=-1)\n'
                  'loss = -torch.log(probs[torch.arange(len(y)), y]).mean()')


@case("manual_bce_log0_absl", split="holdout", expected="numerical_instability", symptom=None, fmt=fmt("absl"),
      notes="Binary task with a hand-written BCE: -(y*log(sigmoid(z)) + (1-y)*log(1-sigmoid(z))). sigmoid saturates "
            "to exactly 1.0 in float32 for confident logits, log(1 - 1) = -inf: the loss turns inf/NaN mid-run.")
def _(c: Ctx):
    clf_case(c, doc="Binary classifier (class 0 vs rest) with a custom BCE loss.", data=DATA_BLOBS,
             style="absl", cfg={**BLOBS, "lr": 0.1, "spread": 3.0}, model=MODEL_MLP.replace('cfg["num_classes"]', "1"),
             extra_defs='''
def bce(logit, target):
    p = torch.sigmoid(logit)
    return -(target * torch.log(p) + (1 - target) * torch.log(1 - p)).mean()


@torch.no_grad()
def evaluate_binary(model, loader):
    model.eval()
    tot, correct, n = 0.0, 0, 0
    for x, y in loader:
        z, t = model(x).squeeze(1), (y == 0).float()
        tot += bce(z, t).item() * len(y)
        correct += ((z > 0).float() == t).sum().item()
        n += len(y)
    model.train()
    return tot / n, correct / n
''', FORWARD="logits = model(x).squeeze(1)", LOSS="loss = bce(logits, (y == 0).float())",
             EVAL="val_loss, val_acc = evaluate_binary(model, val_loader)", CRITERION="", config="flags.json")


# =============================================================================
# mixed_precision_overflow
# =============================================================================

FP16_MAIN = '''

class DynamicLossScaler:
    """apex-style dynamic loss scaling for a pure fp16 model."""

    def __init__(self, init_scale=2.0 ** 16, window=200):
        self.scale, self.window, self.good = init_scale, window, 0

    def has_overflow(self, params):
        return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in params)

    def update(self, overflow):
        if overflow:
            self.scale = max(self.scale / 2, 2.0 ** -24)
            self.good = 0
        else:
            self.good += 1
            if self.good % self.window == 0:
                self.scale *= 2


def main():
    cfg = load_config()
    torch.manual_seed(cfg["seed"])
    x, y = make_split(cfg["n"], cfg, seed=1)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True)
    model = build_model(cfg)
    if cfg["precision"] == "fp16":
        model = model.half()
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    scaler = DynamicLossScaler(cfg["init_loss_scale"])
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    step, skipped = 0, 0
    for epoch in range(cfg["epochs"]):
        for xb, yb in loader:
            step += 1
            if cfg["precision"] == "fp16":
                xb = xb.half()
                yb = yb.half() if yb.is_floating_point() else yb
            loss = LOSS(model(xb), yb)
            optimizer.zero_grad()
            (loss * scaler.scale).backward()
            overflow = scaler.has_overflow(model.parameters())
            if overflow:
                skipped += 1
                log_overflow(step, scaler.scale)
            else:
                for p in model.parameters():
                    p.grad.div_(scaler.scale)
                optimizer.step()
            gnorm = 0.0 if overflow else math.sqrt(sum(p.grad.float().pow(2).sum().item() for p in model.parameters()))
            scaler.update(overflow)
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": cfg["lr"], "grad_norm": gnorm,
                                        "loss_scale": scaler.scale, "skipped": skipped})
    close()


if __name__ == "__main__":
    main()
'''


@case("fp16_overflow_apex_pylogging", split="tune", expected="mixed_precision_overflow",
      symptom="Training in fp16 prints lots of 'Gradient overflow' and the loss never improves.", fmt=fmt("pylogging"),
      notes="Pure-fp16 MLP (precision: fp16 in config.yaml) with a hand-written label-smoothed CE using "
            "logits.exp().sum().log(): once logits pass ~11, exp overflows fp16 (max 65504) to inf and every step "
            "overflows; the log shows apex-style 'Gradient overflow.  Skipping step, loss scaler 0 "
            "reducing loss scale to ...' lines and loss_scale halving to its floor. In fp32 the same run trains.")
def _(c: Ctx):
    cfg = {**BLOBS, "n": 2000, "feature_scale": 10.0, "precision": "fp16", "init_loss_scale": 65536.0,
           "lr": 0.01, "epochs": 3}
    c.write("config.yaml", yaml_dump(cfg))
    data = DATA_BLOBS.split("\n\n\ndef make_datasets")[0]
    data = data.replace('* cfg.get("noise", 1.0)\n    return x, y', '* cfg.get("noise", 1.0)\n    # raw sensor units, not standardised\n    return x * cfg["feature_scale"], y')
    style = STYLES["pylogging"] + '''

def log_overflow(step, new_scale):
    logger.warning("Gradient overflow.  Skipping step, loss scaler 0 reducing loss scale to %s", new_scale / 2)
'''
    model = '''
def LOSS(logits, y, smoothing=0.1):
    """Label-smoothed cross-entropy: log-sum-exp minus the smoothed target logit."""
    lse = logits.exp().sum(-1).log()
    target = (1 - smoothing) * logits.gather(1, y[:, None]).squeeze(1) + smoothing * logits.mean(-1)
    return (lse - target).mean()


def build_model(cfg):
    return nn.Sequential(nn.Linear(cfg["dim"], 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                         nn.Linear(256, cfg["num_classes"]))
'''
    c.write("train.py", script("fp16 MLP classifier with dynamic loss scaling.", CONFIG_YAML, data, model, style,
                               FP16_MAIN))
    run_train(c, "pylogging")


DS_STYLE = '''
import time


def _stamp():
    t = time.time()
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(t)) + f",{int(t * 1000) % 1000:03d}"


def log_overflow(step, new_scale):
    print(f"[{_stamp()}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
          f"Attempted loss scale: {int(new_scale)}, reducing to {int(max(new_scale / 2, 1))}", flush=True)


def log_train(step, epoch, m):
    print(f"[{_stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped={m['skipped']}, "
          f"lr=[{m['lr']}], mom=[(0.9, 0.999)]", flush=True)
    print(f"[{_stamp()}] [INFO] [timer.py:260:stop] epoch={epoch}/micro_step={step}/global_step={step}, "
          f"RunningAvgSamplesPerSec=1021.3, CurrSamplesPerSec=1033.9, MemAllocated=0.02GB, MaxMemAllocated=0.03GB", flush=True)
    print(f"step {step} | loss {m['loss']:.4f} | loss_scale {m['loss_scale']:g}", flush=True)


def log_text(msg):
    print(msg, flush=True)


def close():
    pass
'''


@case("fp16_overflow_deepspeed_mse", split="holdout", expected="mixed_precision_overflow", symptom=None,
      fmt="DeepSpeed-style log lines (OVERFLOW! Skipping step) + ds_config.json",
      notes="fp16 regression (ds_config.json: fp16.enabled true) on targets in the hundreds: the MSE itself "
            "overflows fp16 (inf). DeepSpeed-style dynamic scaling logs 'OVERFLOW! ... Skipping step' and halves "
            "the loss scale from 65536 to 64; the printed loss stays inf all run. In fp32 it trains.")
def _(c: Ctx):
    c.write("ds_config.json", json.dumps({"train_batch_size": 64, "fp16": {"enabled": True, "loss_scale": 0,
                                                                          "initial_scale_power": 16,
                                                                          "loss_scale_window": 200, "min_loss_scale": 1},
                                          "gradient_clipping": 1.0}, indent=2) + "\n")
    cfg = {**REG, "precision": "fp16", "init_loss_scale": 65536.0, "target_scale": 400.0, "lr": 1e-5, "epochs": 3}
    c.write("config.yaml", yaml_dump(cfg))
    data = DATA_REGRESSION.replace('return x, y.unsqueeze(1)', 'return x, (y * cfg["target_scale"]).unsqueeze(1)   # in grams')
    model = '''
LOSS = nn.MSELoss()


def build_model(cfg):
    return nn.Sequential(nn.Linear(cfg["dim"], cfg["hidden"]), nn.Tanh(), nn.Linear(cfg["hidden"], 1))
'''
    c.write("train.py", script("fp16 regressor, DeepSpeed-style dynamic loss scaling.", CONFIG_YAML, data, model,
                               DS_STYLE, FP16_MAIN))
    c.run("python train.py", stdout="train.log", stderr="train.log")


# =============================================================================
# zero_variance_statistic
# =============================================================================

@case("var_last_batch_of_one_kv", split="tune", expected="zero_variance_statistic",
      symptom="Loss goes NaN at the end of the first epoch, probably my learning rate is too high?", misleading=True,
      fmt=fmt("kv", "stderr merged"),
      notes="Net.forward standardises each batch with x.std(0); 1601 training samples at batch 32 leave a last "
            "batch of ONE sample, std over one element is NaN (torch prints 'std(): degrees of freedom is <= 0') "
            "and the loss and weights turn NaN at step 51.")
def _(c: Ctx):
    model = MODEL_MLP.replace('''    def forward(self, x):
        return self.head(self.body(x))''', '''    def forward(self, x):
        x = (x - x.mean(0)) / (x.std(0) + 1e-6)      # per-batch feature standardisation
        return self.head(self.body(x))''')
    clf_case(c, doc="MLP on blobs with in-model batch standardisation.", data=DATA_BLOBS, model=model, style="kv",
             cfg={**BLOBS, "n_train": 1601, "log_every": 5, "noise": 1.5})


@case("var_target_norm_rank", split="holdout", expected="zero_variance_statistic", symptom=None,
      fmt=fmt("rank", "stderr merged"),
      notes="Regression targets normalised per batch with yb.var(); 2369 training rows at batch 64 leave a final "
            "batch of one row: var(): degrees of freedom is <= 0 warning, NaN target, NaN loss from the end of "
            "epoch 1 on.")
def _(c: Ctx):
    reg_case(c, doc="Regressor with per-batch target normalisation.", style="rank", cfg={**REG, "n": 2961},
             LOSS="loss = F.mse_loss(pred, (yb - yb.mean()) / yb.var().sqrt())  # normalised target")


# =============================================================================
# label_out_of_range
# =============================================================================

@case("target_out_of_bounds_pipe", split="tune", expected="label_out_of_range",
      symptom="Crashes with IndexError partway through the first epoch.", fmt=fmt("pipe", "traceback in log"),
      notes="data/train.csv has labels 0..10 (a rare 11th 'other' class, 0.5% of rows) but num_classes: 10 in "
            "config.yaml: F.cross_entropy raises 'IndexError: Target 10 is out of bounds.' at the first batch "
            "holding one.")
def _(c: Ctx):
    write_blob_csv(c, 2400, 8, 10, holes={})
    lines = (c.dir / "data/train.csv").read_text().split("\n")
    for r in (700, 1333, 1900, 2210):
        cells = lines[r].split(",")
        cells[-1] = "10"
        lines[r] = ",".join(cells)
    c.write("data/train.csv", "\n".join(lines))
    clf_case(c, doc="MLP on CSV features.", data=CSV_DATA_LOADER, model=MODEL_MLP, style="pipe",
             cfg={**BLOBS, "dim": 8, "num_classes": 10, "data_path": "data/train.csv", "log_every": 5})


@case("target_minus_one_mmengine", split="holdout", expected="label_out_of_range",
      symptom="IndexError in the loss, no idea why", fmt=fmt("mmengine", "traceback in log"),
      notes="Unlabelled sequences carry label -1 (meant to be ignored) but the loss has no ignore_index: "
            "'IndexError: Target -1 is out of bounds.' at the first batch containing one.")
def _(c: Ctx):
    data = DATA_SEQ.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y[torch.arange(len(y)) % 97 == 96] = -1         # unlabelled samples
''')
    clf_case(c, doc="LSTM classifier on partly labelled sequences.", data=data, model=MODEL_LSTM, style="mmengine",
             cfg={**SEQ, "log_every": 5}, OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# missing_zero_grad
# =============================================================================

@case("no_zero_grad_mlp_kv", split="tune", expected="missing_zero_grad",
      symptom="grad_norm keeps growing the whole run and the loss gets worse after a while.", fmt=fmt("kv"),
      notes="The training loop never calls optimizer.zero_grad(): gradients accumulate across steps, grad_norm "
            "climbs steadily all run, the loss falls at first then degrades.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs.", data=DATA_BLOBS, model=MODEL_MLP, style="kv", cfg=BLOBS, ZERO_GRAD="")


@case("zero_grad_per_epoch_charlm_tqdm", split="tune", expected="missing_zero_grad", symptom=None, fmt=fmt("tqdm"),
      notes="optimizer.zero_grad() sits at the top of the epoch loop instead of the batch loop: grads accumulate "
            "over every batch of an epoch; the pre-clip grad_norm climbs within each epoch and resets at epoch "
            "boundaries.")
def _(c: Ctx):
    cfg = {**CHARLM, "grad_clip": 0}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Character-level GRU language model on a toy corpus.", model=MODEL_GRU_LM, style="tqdm",
        ZERO_GRAD="", EPOCH_END=None, CLIP=CLIP_OPTIONAL,
        CORPUS='text, val_text = make_corpus(cfg["n_sentences"], seed=1), make_corpus(150, seed=2)').replace(
        "    for epoch in range(cfg[\"epochs\"]):\n        for x, y in loader:",
        "    for epoch in range(cfg[\"epochs\"]):\n        optimizer.zero_grad()\n        for x, y in loader:"))
    run_train(c, "tqdm")


@case("no_zero_grad_transformer_mlflow", split="holdout", expected="missing_zero_grad", symptom=None,
      fmt=fmt("mlflow"), notes="Transformer char LM; the loop has no zero_grad at all (it was removed with a "
                               "gradient-accumulation refactor): the pre-clip grad_norm metric climbs steadily.")
def _(c: Ctx):
    cfg = {**TLM, "lr": 0.001, "grad_clip": 0}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script("Small Transformer char LM.", model=MODEL_TRANSFORMER_LM, style="mlflow",
                                  ZERO_GRAD="", SAMPLE=None, CLIP=CLIP_OPTIONAL))
    run_train(c, "mlflow")


# =============================================================================
# frozen_parameters
# =============================================================================

@case("frozen_stale_optimizer_pipe", split="tune", expected="frozen_parameters",
      symptom="Loss doesn't move at all, but gradients are definitely non-zero.", fmt=fmt("pipe"),
      notes="The model is re-created after the optimizer was built (a 're-seed so init matches the reference' "
            "block): the optimizer updates the first, unused model; the trained model never changes "
            "(param_norm constant, loss flat) while its grad_norm is normal.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs.", data=DATA_BLOBS, model=MODEL_MLP, style="pipe", cfg=BLOBS,
             OPTIMIZER='''
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
# re-seed so the initial weights match the reference run
torch.manual_seed(cfg["seed"])
model = Net(cfg)
''', ZERO_GRAD="model.zero_grad()",
             EXTRA_METRICS='metrics["param_norm"] = math.sqrt(sum(p.detach().pow(2).sum().item() for p in model.parameters()))')


@case("frozen_requires_grad_jsonl", split="tune", expected="frozen_parameters", symptom=None, fmt=fmt("jsonl"),
      notes="'Freeze the backbone' loop sets requires_grad=False on ALL parameters (model.parameters() instead "
            "of model.body.parameters()); the resulting 'does not require grad' error was silenced with "
            "loss.requires_grad_(True). grad_norm is exactly 0 and the loss is flat.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs, backbone frozen for linear probing.", data=DATA_BLOBS, model=MODEL_MLP,
             style="jsonl", cfg=BLOBS, OPTIMIZER='''
for p in model.parameters():  # freeze the backbone
    p.requires_grad = False
optimizer = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
''', LOSS='''
loss = criterion(logits, y)
loss.requires_grad_(True)  # fixes "element 0 of tensors does not require grad"
''')


@case("frozen_no_grad_forward_rank", split="holdout", expected="frozen_parameters",
      symptom="I think my learning rate is too low, the loss is flat", misleading=True, fmt=fmt("rank"),
      notes="The forward pass is wrapped in torch.no_grad() 'to save memory' and loss.requires_grad = True is "
            "set so backward() does not raise: no parameter ever gets a gradient, gnorm is 0, loss flat at ln 6.")
def _(c: Ctx):
    clf_case(c, doc="LSTM classifier.", data=DATA_SEQ, model=MODEL_LSTM, style="rank", cfg=SEQ,
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             FORWARD='''
with torch.no_grad():  # saves activation memory
    logits = model(x)
''', LOSS='''
loss = criterion(logits, y)
loss.requires_grad = True
''')


# =============================================================================
# double_softmax
# =============================================================================

@case("double_softmax_mlp_pylogging", split="tune", expected="double_softmax",
      symptom="Loss gets stuck around 1.8 even though accuracy is OK-ish. I think the model is too small.",
      misleading=True, fmt=fmt("pylogging"), notes="The model ends in nn.Softmax(dim=-1) and its output goes into "
                                  "nn.CrossEntropyLoss (which applies log_softmax itself): loss floors high, below ln 10.")
def _(c: Ctx):
    model = MODEL_MLP.replace('self.head = nn.Linear(d, cfg["num_classes"])',
                              'self.head = nn.Sequential(nn.Linear(d, cfg["num_classes"]), nn.Softmax(dim=-1))')
    clf_case(c, doc="MLP classifier with probability outputs.", data=DATA_BLOBS, model=model, style="pylogging",
             cfg={**BLOBS, "epochs": 10})


@case("double_softmax_cnn_tb", split="holdout", expected="double_softmax", symptom=None, fmt=fmt("tb_holdout"),
      notes="CNN forward returns F.softmax(logits, dim=1) and training uses nn.CrossEntropyLoss: the loss "
            "floors around 0.8-0.9 (ln 4 = 1.39) although accuracy is high.")
def _(c: Ctx):
    model = MODEL_CNN.replace("        return self.classifier(self.features(x))",
                              "        return F.softmax(self.classifier(self.features(x)), dim=1)")
    clf_case(c, doc="CNN on shapes.", data=DATA_SHAPES, model=model, style="tb_holdout", cfg=SHAPES)


# =============================================================================
# data_not_shuffled
# =============================================================================

@case("unshuffled_sorted_kv", split="tune", expected="data_not_shuffled",
      symptom="The loss curve has a weird repeating saw-tooth pattern, is my learning-rate scheduler broken?",
      misleading=True, fmt=fmt("kv"),
      notes="The training set is sorted by label (make_datasets sorts for a per-class count report) and the "
            "DataLoader has shuffle=False: every epoch walks class 0, then 1, ...; the loss jumps at each class "
            "boundary and repeats with the epoch period.")
def _(c: Ctx):
    data = DATA_BLOBS.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    order = torch.argsort(y, stable=True)          # group by class for the per-class report
    x, y = x[order], y[order]
    print("per-class counts:", torch.bincount(y).tolist())
''')
    clf_case(c, doc="MLP on blobs.", data=data, model=MODEL_MLP, style="kv", cfg={**BLOBS, "log_every": 3},
             LOADER='train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=False)')


@case("unshuffled_lstm_mmengine", split="holdout", expected="data_not_shuffled", symptom="loss oscillates every epoch",
      fmt=fmt("mmengine"),
      notes="Sequences sorted by label (sorted once for bucketing) and DataLoader(shuffle=False): epoch-periodic "
            "saw-tooth in the loss.")
def _(c: Ctx):
    data = DATA_SEQ.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    order = torch.argsort(y, stable=True)          # bucket by label
    x, y = x[order], y[order]
''')
    clf_case(c, doc="LSTM classifier.", data=data, model=MODEL_LSTM, style="mmengine", cfg={**SEQ, "log_every": 2},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             LOADER='train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=False)')


# =============================================================================
# mode_collapse
# =============================================================================

PRED_HIST = '''
@torch.no_grad()
def prediction_counts(model, loader, num_classes):
    """How often each class is predicted on the validation set."""
    model.eval()
    preds = torch.cat([model(x).argmax(-1) for x, _ in loader])
    model.train()
    return torch.bincount(preds, minlength=num_classes).tolist()
'''


@case("collapse_majority_class_pylogging", split="tune", expected="mode_collapse",
      symptom="Loss looks great (0.2) but the model predicts class 0 for every single input.", fmt=fmt("pylogging"),
      notes="make_datasets() meant to subsample class 0 to 1% but the mask is inverted: it keeps all of class 0 "
            "and 1% of every other class. The model learns to emit class 0 for every input (pred_counts logged "
            "each epoch: all mass on one class) while the training loss falls.")
def _(c: Ctx):
    data = DATA_BLOBS.replace('''    x, y = make_split(cfg["n_train"], cfg, seed=1)
''', '''    x, y = make_split(cfg["n_train"], cfg, seed=1)
    # class 0 is over-represented upstream: keep only cfg["keep_frac"] of it
    g = torch.Generator().manual_seed(3)
    keep = (y == 0) | (torch.rand(len(y), generator=g) < cfg["keep_frac"])
    x, y = x[keep], y[keep]
''')
    clf_case(c, doc="MLP on blobs with class-0 subsampling.", data=data, model=MODEL_MLP, style="pylogging",
             cfg={**BLOBS, "n_train": 6000, "keep_frac": 0.01, "noise": 2.5}, extra_defs=PRED_HIST,
             EVAL_LOG='''
log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
log_text(f"pred_counts: {prediction_counts(model, val_loader, cfg['num_classes'])}")
''', )


@case("collapse_weighted_sampler_rank", split="holdout", expected="mode_collapse", symptom=None, fmt=fmt("rank"),
      notes="WeightedRandomSampler is given each sample's class FREQUENCY as its weight (meant 1/frequency) on "
            "an imbalanced training set: batches are almost all the majority class and the model predicts that "
            "class for everything ('preds:' lines show one id repeated); loss falls.")
def _(c: Ctx):
    data = DATA_SEQ.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)''', '''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y = torch.where(torch.arange(len(y)) % 3 == 0, y, torch.full_like(y, 2))   # imbalanced: 2/3 are class 2''')
    clf_case(c, doc="LSTM classifier with class-balanced sampling.", data=data, model=MODEL_LSTM, style="rank",
             cfg={**SEQ, "lr": 0.003}, extra_defs=PRED_HIST,
             LOADER='''
counts = torch.bincount(train_ds.tensors[1], minlength=cfg["num_classes"]).float()
weights = counts[train_ds.tensors[1]]              # per-sample weight for balancing
sampler = torch.utils.data.WeightedRandomSampler(weights, num_samples=len(weights), replacement=True)
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=sampler)
''', OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])', EVAL_LOG='''
log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
xs, _ = next(iter(val_loader))
log_text("preds: " + " ".join(str(int(p)) for p in model(xs[:24]).argmax(-1)))
log_text(f"pred_counts: {prediction_counts(model, val_loader, cfg['num_classes'])}")
''')


# =============================================================================
# architecture_imbalance
# =============================================================================

WORDLM_MAIN = '''
def make_tokens(n, vocab, seed):
    """Zipf-distributed token ids with short-range structure (bigram repeats)."""
    g = torch.Generator().manual_seed(seed)
    ranks = torch.arange(1, vocab + 1, dtype=torch.float)
    p = 1.0 / ranks
    ids = torch.multinomial(p / p.sum(), n, replacement=True, generator=g)
    ids[1::2] = (ids[0::2] * 7 + 3) % vocab
    return ids


class WordLM(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embed = nn.Embedding(cfg["vocab_size"], cfg["emb"])
        self.proj_in = nn.Linear(cfg["emb"], cfg["hidden"])
        self.rnn = nn.GRU(cfg["hidden"], cfg["hidden"], batch_first=True)
        self.proj_out = nn.Linear(cfg["hidden"], cfg["emb"])
        self.head = nn.Linear(cfg["emb"], cfg["vocab_size"])

    def forward(self, x):
        h, _ = self.rnn(self.proj_in(self.embed(x)))
        return self.head(self.proj_out(h))


def param_table(model):
    total = sum(p.numel() for p in model.parameters())
    rows = [f"{'module':<12}{'params':>12}{'share':>9}"]
    for name, m in model.named_children():
        n = sum(p.numel() for p in m.parameters())
        rows.append(f"{name:<12}{n:>12,}{100 * n / total:>8.1f}%")
    rows.append(f"{'total':<12}{total:>12,}")
    return rows


def main():
    cfg = load_config()
    torch.manual_seed(cfg["seed"])
    ids = make_tokens(cfg["n_tokens"], cfg["vocab_size"], seed=1)
    blocks = ids[: len(ids) // (cfg["block"] + 1) * (cfg["block"] + 1)].view(-1, cfg["block"] + 1)
    loader = DataLoader(TensorDataset(blocks[:, :-1], blocks[:, 1:]), batch_size=cfg["batch_size"], shuffle=True)
    model = WordLM(cfg)
    for row in param_table(model):
        log_text(row)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    RUN.update(total=cfg["epochs"] * len(loader), epochs=cfg["epochs"], per_epoch=len(loader),
               log_every=cfg["log_every"], batch_size=cfg["batch_size"])
    step = 0
    for epoch in range(cfg["epochs"]):
        for x, y in loader:
            step += 1
            loss = F.cross_entropy(model(x).reshape(-1, cfg["vocab_size"]), y.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
            optimizer.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": cfg["lr"], "grad_norm": gnorm})
    close()


if __name__ == "__main__":
    main()
'''


@case("arch_embedding_heavy_kv", split="tune", expected="architecture_imbalance",
      symptom="My LM has 1.5M parameters but it learns worse than a much smaller model from the tutorial.", fmt=fmt("kv"),
      notes="Word LM with vocab 8000 and emb 96 but a GRU body of hidden 24: the parameter table printed at the "
            "start shows embed ~49.6% + head ~50.1%, the recurrent body well under 1%. Loss falls slowly.")
def _(c: Ctx):
    cfg = dict(seed=0, vocab_size=8000, emb=96, hidden=24, n_tokens=24000, block=32, batch_size=32, epochs=2,
               lr=0.003, log_every=2)
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", script("Word-level GRU language model.", CONFIG_YAML, STYLES["kv"], WORDLM_MAIN))
    run_train(c, "kv")


@case("arch_embedding_heavy_lightning_summary_rank", split="holdout", expected="architecture_imbalance", symptom=None,
      fmt=fmt("rank", "Lightning-style model summary"),
      notes="Same failure in another layout: a Lightning-style ModelSummary table (printed by train.py) shows "
            "the embedding + output head with >99% of 1.5 M parameters and a few-K-parameter GRU body.")
def _(c: Ctx):
    main = WORDLM_MAIN.replace('''    for row in param_table(model):
        log_text(row)''', '''    for row in lightning_summary(model):
        log_text(row)''')
    summary = '''
def _fmt_count(n):
    for unit, div in (("M", 1e6), ("K", 1e3)):
        if n >= div:
            return f"{n / div:.1f} {unit}"
    return str(n)


def lightning_summary(model):
    """The table Lightning prints at fit start."""
    rows = ["  | Name     | Type      | Params", "------------------------------------"]
    for i, (name, m) in enumerate(model.named_children()):
        rows.append(f"{i} | {name:<8} | {type(m).__name__:<9} | {_fmt_count(sum(p.numel() for p in m.parameters()))}")
    total = sum(p.numel() for p in model.parameters())
    rows += ["------------------------------------", f"{_fmt_count(total):<10}Trainable params",
             f"{'0':<10}Non-trainable params", f"{_fmt_count(total):<10}Total params",
             f"{total * 4 / 1e6:<10.3f}Total estimated model params size (MB)"]
    return rows
'''
    cfg = dict(seed=0, vocab_size=6000, emb=128, hidden=16, n_tokens=20000, block=32, batch_size=32, epochs=2,
               lr=0.003, log_every=2)
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", script("Word-level GRU language model.", CONFIG_YAML, STYLES["rank"], summary, main))
    run_train(c, "rank")


# =============================================================================
# shape_mismatch
# =============================================================================

@case("shape_varlen_collate_tqdm", split="tune", expected="shape_mismatch",
      symptom="DataLoader crashes immediately with a RuntimeError about stack.", fmt=fmt("tqdm", "traceback in log"),
      notes="SentenceDataset returns one tensor per sentence, sentences have different lengths, and the "
            "DataLoader uses the default collate (no padding collate_fn): real 'stack expects each tensor to be "
            "equal size' error from torch's collate.")
def _(c: Ctx):
    cfg = {**CHARLM, "epochs": 2}
    c.write("config.yaml", yaml_dump(cfg))
    data = DATA_TEXT + '''

class SentenceDataset(torch.utils.data.Dataset):
    """One sample per sentence: (input ids, next-char ids)."""

    def __init__(self, text, stoi):
        self.sents = [s.strip() + "." for s in text.split(".") if s.strip()]
        self.stoi = stoi

    def __len__(self):
        return len(self.sents)

    def __getitem__(self, i):
        ids = torch.tensor([self.stoi[ch] for ch in self.sents[i]])
        return ids[:-1], ids[1:]
'''
    text = lm_script("Char GRU LM, one sentence per sample.", model=MODEL_GRU_LM, style="tqdm", data=data)
    text = text.replace('train_ds, val_ds = CharData(text, stoi, cfg["block"]), CharData(val_text, stoi, cfg["block"])',
                        'train_ds, val_ds = SentenceDataset(text, stoi), SentenceDataset(val_text, stoi)')
    c.write("train.py", text)
    run_train(c, "tqdm")


@case("shape_flatten_size_beginner", split="tune", expected="shape_mismatch",
      symptom="RuntimeError: mat1 and mat2 shapes cannot be multiplied, right at the first batch.",
      fmt=fmt("beginner", "traceback in log"),
      notes="The CNN's first Linear is sized from config input_size: 16 while the data are 12x12 images "
            "(image_size: 12): flatten gives 144 features, the layer expects 256.")
def _(c: Ctx):
    model = MODEL_CNN.replace('s = cfg.get("image_size", 12) // 4', 's = cfg["input_size"] // 4')
    clf_case(c, doc="Small CNN on synthetic shape images.", data=DATA_SHAPES, model=model, style="beginner",
             cfg={**SHAPES, "input_size": 16})


@case("shape_per_timestep_logits_absl", split="holdout", expected="shape_mismatch", symptom=None,
      fmt=fmt("absl", "traceback in log"),
      notes="The LSTM head is applied to every timestep and the logits are flattened with view(-1, C): "
            "input batch 640 (32 x 20 steps) vs target batch 32, real ValueError from cross_entropy.")
def _(c: Ctx):
    model = MODEL_LSTM.replace("        return self.out(h.mean(dim=1))",
                               "        return self.out(h).view(-1, self.out.out_features)")
    clf_case(c, doc="LSTM classifier.", data=DATA_SEQ, model=model, style="absl", cfg=SEQ, config="flags.json",
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# dtype_mismatch
# =============================================================================

@case("dtype_float64_numpy_kv", split="tune", expected="dtype_mismatch",
      symptom="RuntimeError about Double and Float as soon as training starts", fmt=fmt("kv", "traceback in log"),
      notes="Features loaded with np.genfromtxt (float64) and wrapped with torch.from_numpy, so the input is "
            "Double while the model is Float: real 'mat1 and mat2 must have the same dtype' error.")
def _(c: Ctx):
    write_blob_csv(c, 1200, 8, 6, holes={})
    loader = CSV_DATA_LOADER.replace("    x = torch.tensor(arr[:, :-1], dtype=torch.float32)\n",
                                     "    x = torch.from_numpy(arr[:, :-1])\n")
    clf_case(c, doc="MLP on CSV features.", data=loader, model=MODEL_MLP, style="kv",
             cfg={**BLOBS, "dim": 8, "num_classes": 6, "data_path": "data/train.csv"})


@case("dtype_float_targets_rank", split="holdout", expected="dtype_mismatch", symptom="crash in the loss function",
      fmt=fmt("rank", "traceback in log"),
      notes="Labels are stored as float32 (`y.float()` for a mixup experiment left in place) and passed to "
            "F.cross_entropy: 'expected target dtype to be Long or Byte, but got Float'.")
def _(c: Ctx):
    data = DATA_SEQ.replace('''    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
''', '''    y = y.float()                                  # soft labels for mixup
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
''')
    clf_case(c, doc="LSTM classifier.", data=data, model=MODEL_LSTM, style="rank", cfg=SEQ,
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


# =============================================================================
# dataloader_bottleneck
# =============================================================================

SLOW_DATA = '''

class DecodedImages(torch.utils.data.Dataset):
    """Decodes each image on access (simulated JPEG decode + resize)."""

    def __init__(self, x, y, decode_ms):
        self.x, self.y, self.decode_s = x, y, decode_ms / 1000.0

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        time.sleep(self.decode_s)                  # decode + resize
        return self.x[i], self.y[i]
'''

TIMED_LOOP = dict(
    LOADER='''
train_ds = DecodedImages(*train_ds.tensors, cfg["decode_ms"])
train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=cfg["num_workers"])
''',
    EPOCH_START="t_data = time.perf_counter()",
    ZERO_GRAD='''
t_step = time.perf_counter()
data_time = t_step - t_data
optimizer.zero_grad()
''',
    BATCH_END='''
step_time = time.perf_counter() - t_data
''',
    EXTRA_METRICS='''
metrics.update(data_time=data_time, time=step_time, samples_per_sec=len(x) / step_time)
''')


@case("slow_decode_pipe", split="tune", expected="dataloader_bottleneck",
      symptom="Training is really slow, I think the model is too big for this GPU.", misleading=True, fmt=fmt("pipe"),
      notes="Dataset.__getitem__ decodes each image on access (~12 ms) and the DataLoader has num_workers=0: "
            "data_time is ~85% of each step's time and samples/s is low.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes, images decoded on the fly.", data=DATA_SHAPES + SLOW_DATA, model=MODEL_CNN,
             style="pipe", cfg={**SHAPES, "decode_ms": 12, "num_workers": 0, "epochs": 2},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             **{**TIMED_LOOP, "BATCH_END": TIMED_LOOP["BATCH_END"] + "t_data = time.perf_counter()"})


@case("slow_tokenize_mmengine", split="holdout", expected="dataloader_bottleneck", symptom=None, fmt=fmt("mmengine"),
      notes="Sequences are tokenised inside __getitem__ (~8 ms each) with num_workers=0: mmengine-style lines show "
            "data_time close to time for every iteration.")
def _(c: Ctx):
    slow = SLOW_DATA.replace("DecodedImages", "TokenizedText").replace("Decodes each image on access (simulated JPEG decode + resize).", "Tokenises each raw text on access.").replace("# decode + resize", "# tokenizer call")
    loop = {k: v.replace("DecodedImages", "TokenizedText") for k, v in TIMED_LOOP.items()}
    loop["BATCH_END"] += "t_data = time.perf_counter()"
    clf_case(c, doc="LSTM classifier over raw text tokenised on the fly.", data=DATA_SEQ + slow, model=MODEL_LSTM,
             style="mmengine", cfg={**SEQ, "decode_ms": 8, "num_workers": 0, "epochs": 2, "log_every": 5},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])', **loop)


# =============================================================================
# lr_too_high (hold-out, CNN)
# =============================================================================

@case("lr_high_cnn_mmengine", split="holdout", expected="lr_too_high", symptom="loss goes up after the first epoch",
      fmt=fmt("mmengine"), notes="CNN with SGD momentum 0.9 at lr=0.3 (config.yaml; 0.01 works): the loss falls "
                                 "briefly, then climbs back to ln 4 and stays; grad_norm spikes.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes.", data=DATA_SHAPES, model=MODEL_CNN, style="mmengine",
             cfg={**SHAPES, "lr": 0.3, "log_every": 5})


# =============================================================================
# healthy (more)
# =============================================================================

@case("healthy_regression_mlflow", split="holdout", expected=None, symptom="Can you sanity check this run?",
      fmt=fmt("mlflow"), notes="Healthy: tanh MLP regression, SGD momentum lr=0.01; MSE falls steadily.")
def _(c: Ctx):
    reg_case(c, doc="Fit a small MLP to the tabular regression target.", style="mlflow", cfg={**REG, "epochs": 8},
             config="json")


@case("healthy_transformer_fairseq", split="holdout", expected=None, symptom=None, fmt=fmt("fairseq"),
      notes="Healthy: Transformer char LM with inverse-sqrt schedule and a 30-update warm-up; loss falls, grad "
            "norm is higher in warm-up.")
def _(c: Ctx):
    cfg = {**TLM, "lr": 0.003, "warmup_updates": 30, "warmup_init_lr": 1e-7}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Small Transformer char LM with fairseq's inverse_sqrt schedule.", model=MODEL_TRANSFORMER_LM, style="fairseq",
        LR_UPDATE='''
        if step < cfg["warmup_updates"]:
            lr = cfg["warmup_init_lr"] + (cfg["lr"] - cfg["warmup_init_lr"]) * step / cfg["warmup_updates"]
        else:
            lr = cfg["lr"] * (cfg["warmup_updates"] / step) ** 0.5
        for g in optimizer.param_groups:
            g["lr"] = lr
        '''))
    run_train(c, "fairseq")


@case("healthy_cnn_tb_every_step", split="holdout", expected=None, symptom="the loss is spiky, should I worry?",
      fmt=fmt("tb_holdout"), notes="Healthy: CNN on shapes logged every step to TensorBoard; per-step loss is "
                                   "spiky (small batches of 16) but trends down, val improves.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes.", data=DATA_SHAPES, model=MODEL_CNN, style="tb_holdout",
             cfg={**SHAPES, "batch_size": 16, "epochs": 3, "log_every": 1, "lr": 0.001},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


@case("healthy_mlp_lightning_restart", split="tune", expected=None,
      symptom="There's a loss spike halfway through training, is something broken?", fmt=fmt("lightning_csv"),
      notes="Healthy: CosineAnnealingWarmRestarts (T_0 = half the run, in hparams) restarts the lr once mid-run; "
            "the loss spikes briefly at the restart and then goes below its previous level. Intended schedule.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs with SGDR warm restarts.", data=DATA_BLOBS, model=MODEL_MLP, style="lightning_csv",
             cfg={**BLOBS, "lr": 0.05, "epochs": 8, "restart_every_steps": 252, "log_every": 6},
             config="lightning_logs/version_0/hparams.yaml",
             SCHEDULER='scheduler = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=cfg["restart_every_steps"])',
             BATCH_END="scheduler.step()")


# =============================================================================
# resume_mismatch
# =============================================================================

RESUME_MAIN = '''

def main():
    cfg = load_config()
    CFG.update(cfg)
    torch.manual_seed(cfg["seed"])
    train_ds, val_ds = make_datasets(cfg)
    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True)
    val_loader = DataLoader(val_ds, batch_size=256)
    model = Net(cfg)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    total = cfg["epochs"] * len(loader)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / cfg["warmup_steps"]) * max(0.02, 1 - s / total))
    RUN.update(total=total, epochs=cfg["epochs"], per_epoch=len(loader), log_every=cfg["log_every"],
               batch_size=cfg["batch_size"])
    step = 0
    if cfg.get("resume_from"):
        ckpt = torch.load(cfg["resume_from"])
        model.load_state_dict(ckpt["model"])
        step = ckpt["step"]
        log_text(f"Resuming from checkpoint {cfg['resume_from']} (global step {step})")
    start_epoch = step // len(loader)
    for epoch in range(start_epoch, cfg["epochs"]):
        for x, y in loader:
            step += 1
            loss = criterion(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0).item()
            optimizer.step()
            scheduler.step()
            if step % cfg["log_every"] == 0:
                log_train(step, epoch, {"loss": loss.item(), "lr": optimizer.param_groups[0]["lr"], "grad_norm": gnorm})
            if step == cfg.get("stop_at_step"):
                os.makedirs("checkpoints", exist_ok=True)
                torch.save({"model": model.state_dict(), "step": step}, f"checkpoints/step_{step}.pt")
                log_text(f"saved checkpoints/step_{step}.pt; job time limit reached, exiting")
                close()
                return
        val_loss, val_acc = evaluate(model, val_loader, criterion)
        log_val(step, epoch, {"val_loss": val_loss, "val_acc": val_acc})
    close()


CFG = {}

if __name__ == "__main__":
    main()
'''

EVAL_DEF = '''
@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    for x, y in loader:
        logits = model(x)
        loss_sum += criterion(logits, y).item() * len(y)
        correct += (logits.argmax(-1) == y).sum().item()
        n += len(y)
    model.train()
    return loss_sum / n, correct / n
'''


def resume_case(c: Ctx, style: str, cfg: dict, data: str, model: str, log: str | None) -> None:
    """First job stops at cfg['stop_at_step'] (time limit) and saves weights only; the second resumes from them."""
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", script("Classifier training with preemption-safe resume (weights + step saved).",
                               CONFIG_YAML, data, model, STYLES[style], EVAL_DEF, RESUME_MAIN))
    run = (lambda: c.run("python train.py", stdout=log, stderr=log, append=True)) if log else (lambda: run_train(c, style))
    run()
    cfg2 = {**cfg, "resume_from": f"checkpoints/step_{cfg['stop_at_step']}.pt"}
    cfg2.pop("stop_at_step")
    c.write("config.yaml", yaml_dump(cfg2))
    run()
    for p in (c.dir / "checkpoints").glob("*.pt"):
        p.unlink()


@case("resume_fresh_optimizer_pylogging", split="tune", expected="resume_mismatch",
      symptom="After the job restarted from the checkpoint the loss jumped up and took ages to recover.",
      fmt=fmt("pylogging", "two runs appended"),
      notes="The job hit its time limit at step 250 and saved only the model weights + step. The resumed run "
            "(resume_from in config.yaml) builds a fresh Adam and a fresh warm-up/decay scheduler: the lr jumps "
            "from its decayed value back to the warm-up start and the loss jumps at step 251. Both runs append to "
            "train.log.")
def _(c: Ctx):
    resume_case(c, "pylogging", {**BLOBS, "lr": 0.003, "epochs": 8, "warmup_steps": 20, "stop_at_step": 250,
                                 "log_every": 5}, DATA_BLOBS, MODEL_MLP, log=None)


@case("resume_fresh_scheduler_tb", split="holdout", expected="resume_mismatch", symptom=None,
      fmt="TensorBoard (two event files) + console log",
      notes="CNN job preempted at step 150 (weights + step saved, optimizer and scheduler not); the resumed job "
            "writes a second TensorBoard event file: optim/lr-AdamW jumps from ~1e-3 back up and the loss jumps at "
            "step 151. console.log has 'Resuming from checkpoint ... (global step 150)'.")
def _(c: Ctx):
    style = STYLES["tb_holdout"].replace("def log_text(msg):\n    pass", "def log_text(msg):\n    print(msg, flush=True)")
    STYLES["tb_resume"] = style
    resume_case(c, "tb_resume", {**SHAPES, "lr": 0.002, "epochs": 6, "warmup_steps": 30, "stop_at_step": 150,
                                 "log_every": 2}, DATA_SHAPES, MODEL_CNN, log="console.log")


# =============================================================================
# taxonomy v2: bad_initialization, optimizer_misconfigured, batch_size_too_small,
# label_noise, unnormalized_inputs, data_leakage
# =============================================================================

@case("bad_init_std1_deep_mlp_pylogging", split="tune", expected="bad_initialization",
      symptom="The loss starts in the thousands and the deep net ends up worse than a linear model.",
      fmt=fmt("pylogging"),
      notes="8-layer ReLU MLP whose Linear weights are re-initialised with nn.init.normal_(std=1.0) ('unit "
            "variance' init ported from old code) instead of PyTorch's fan-in scaled default: activations grow "
            "~8x per layer, the first losses are in the thousands and Adam (lr 1e-3, a sane value) never recovers "
            "a good solution.")
def _(c: Ctx):
    clf_case(c, doc="Deep MLP on blobs.", data=DATA_BLOBS, model=MODEL_MLP, style="pylogging",
             cfg={**BLOBS, "depth": 8, "hidden": 128, "lr": 0.001},
             OPTIMIZER='''
for m in model.modules():          # unit-variance init, as in the reference implementation
    if isinstance(m, nn.Linear):
        nn.init.normal_(m.weight, mean=0.0, std=1.0)
        nn.init.zeros_(m.bias)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
''', EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


@case("bad_init_transformer_std_megatron", split="holdout", expected="bad_initialization", symptom=None,
      fmt=fmt("megatron"),
      notes="Small Transformer char LM with a GPT-2 style init_weights() whose std comes from config.yaml "
            "(init_std: 1.0, GPT-2 uses 0.02): every weight matrix (embeddings, attention, MLP, head) is drawn "
            "with std 1, logits are huge at step 0 (lm loss far above ln V) and training crawls from there.")
def _(c: Ctx):
    cfg = {**TLM, "init_std": 1.0, "epochs": 8, "log_every": 2}
    c.write("config.yaml", yaml_dump(cfg))
    c.write("train.py", lm_script(
        "Small Transformer char LM, GPT-2 style initialisation.", model=MODEL_TRANSFORMER_LM, style="megatron",
        extra_defs='''
def init_weights(model, std):
    """GPT-2 style: normal(0, std) for every weight matrix, zeros for biases."""
    for name, p in model.named_parameters():
        if p.dim() > 1:
            nn.init.normal_(p, mean=0.0, std=std)
        elif name.endswith("bias"):
            nn.init.zeros_(p)
''',
        OPTIMIZER='''
init_weights(model, cfg["init_std"])
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
''', SAMPLE=None))
    run_train(c, "megatron")


@case("adam_eps_one_jsonl", split="tune", expected="optimizer_misconfigured",
      symptom="Adam trains far slower than plain SGD did on the same MLP, is Adam broken?", fmt=fmt("jsonl"),
      notes="Adam with eps=1.0 (adam_eps in config.yaml, copied from a TF Inception recipe where epsilon 1.0 is "
            "used with RMSProp-scale gradients): the update is ~lr * g / 1.0, far smaller than Adam's usual "
            "lr-sized steps, so the loss falls slowly although lr 1e-3 is a normal value.")
def _(c: Ctx):
    clf_case(c, doc="MLP on blobs trained with Adam.", data=DATA_BLOBS, model=MODEL_MLP, style="jsonl",
             cfg={**BLOBS, "lr": 0.001, "adam_eps": 1.0},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"], eps=cfg["adam_eps"])')


@case("sgd_positional_momentum_mmengine", split="holdout", expected="optimizer_misconfigured", symptom=None,
      fmt=fmt("mmengine"),
      notes="torch.optim.SGD(model.parameters(), cfg['lr'], cfg['weight_decay']): the third positional argument "
            "of SGD is momentum, so momentum is 5e-4 (not the 0.9 in config.yaml) and there is no weight decay; "
            "the CNN trains slowly as plain SGD.")
def _(c: Ctx):
    clf_case(c, doc="CNN on shapes, SGD with momentum and weight decay from the config.", data=DATA_SHAPES,
             model=MODEL_CNN, style="mmengine", cfg={**SHAPES, "lr": 0.005, "momentum": 0.9, "weight_decay": 5e-4},
             OPTIMIZER='optimizer = torch.optim.SGD(model.parameters(), cfg["lr"], cfg["weight_decay"])')


BN_MLP = '''
class Net(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, d = [], cfg["dim"]
        for _ in range(cfg["depth"]):
            layers += [nn.Linear(d, cfg["hidden"]), nn.BatchNorm1d(cfg["hidden"]), nn.ReLU()]
            d = cfg["hidden"]
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(d, cfg["num_classes"])

    def forward(self, x):
        return self.head(self.body(x))
'''


@case("tiny_batch_batchnorm_pipe", split="tune", expected="batch_size_too_small",
      symptom="Loss jumps all over the place and val accuracy is much worse than train.", fmt=fmt("pipe"),
      notes="MLP with BatchNorm1d trained with batch_size: 2 (config.yaml) and the SGD recipe (lr 0.01, momentum "
            "0.9) that works at batch 32: batch-norm statistics over two samples are noise, the per-batch loss "
            "swings all run and validation accuracy (running statistics) stays near 0.4 instead of ~0.75.")
def _(c: Ctx):
    clf_case(c, doc="MLP with batch norm on blobs.", data=DATA_BLOBS, model=BN_MLP, style="pipe",
             cfg={**BLOBS, "batch_size": 2, "lr": 0.01, "epochs": 2, "log_every": 10, "n_train": 1500})


@case("batch_of_one_lstm_rank", split="holdout", expected="batch_size_too_small",
      symptom="the loss is extremely noisy, is something wrong with my data?", misleading=True, fmt=fmt("rank"),
      notes="LSTM classifier launched with --batch_size 1 (flags dumped to args.json) with the Adam lr of "
            "3e-3 tuned for batch 32: each step follows one sequence, the loss jumps between ~0 and >3 every "
            "step and the run never settles.")
def _(c: Ctx):
    clf_case(c, doc="LSTM classifier.", data=DATA_SEQ, model=MODEL_LSTM, style="rank",
             cfg={**SEQ, "batch_size": 1, "epochs": 1, "n_train": 1200, "log_every": 4}, config="args.json",
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])')


@case("label_noise_two_sources_kv", split="tune", expected="label_noise",
      symptom="Train accuracy is stuck around 70% while validation is at 95%, is my accuracy metric wrong?",
      misleading=True, fmt=fmt("kv"),
      notes="The training set merges two annotation exports; export B (30% of rows) numbers the classes from 1, "
            "and load_export() takes them as-is modulo num_classes, so 30% of the training labels are wrong "
            "(shifted by one class). The validation set comes from export A (clean): train accuracy caps near "
            "70% with a high train-loss floor while val accuracy is ~95%.")
def _(c: Ctx):
    data = DATA_BLOBS.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)''', '''def load_export(y, share_b, k, seed):
    """Labels of the merged annotation exports A and B (B's rows are the first share_b of the file)."""
    g = torch.Generator().manual_seed(seed)
    from_b = torch.rand(len(y), generator=g) < share_b
    return torch.where(from_b, (y + 1) % k, y)     # export B labels read as they are


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y = load_export(y, cfg["export_b_share"], cfg["num_classes"], seed=7)''')
    clf_case(c, doc="MLP on blobs, labels merged from two annotation exports.", data=data, model=MODEL_MLP,
             style="kv", cfg={**BLOBS, "spread": 2.5, "noise": 1.0, "export_b_share": 0.3, "epochs": 10},
             EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


@case("label_noise_crowd_cnn_tb", split="holdout", expected="label_noise", symptom=None, fmt=fmt("tb_holdout"),
      notes="Training labels come from a simulated crowd vote where 35% of the votes are random guesses "
            "(validation labels are expert-checked): train/acc caps around 0.7 and the train loss floors high "
            "while eval/top1 is far higher.")
def _(c: Ctx):
    data = DATA_SHAPES.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)''', '''def crowd_labels(y, guess_rate, seed):
    """One crowd vote per image; a share of the workers guess at random."""
    g = torch.Generator().manual_seed(seed)
    guess = torch.rand(len(y), generator=g) < guess_rate
    return torch.where(guess, torch.randint(0, 4, (len(y),), generator=g), y)


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    y = crowd_labels(y, cfg["guess_rate"], seed=11)''')
    clf_case(c, doc="CNN on shapes with crowd-sourced training labels.", data=data, model=MODEL_CNN,
             style="tb_holdout", cfg={**SHAPES, "guess_rate": 0.47, "noise": 0.6, "epochs": 8, "lr": 0.001},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


UINT8_SHAPES = DATA_SHAPES.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)''', '''def to_uint8(x):
    """Store the images as 8-bit grayscale, the way they come out of the PNG export."""
    return (x * 40 + 100).clamp(0, 255).to(torch.uint8)


class ShapeImages(torch.utils.data.Dataset):
    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = self.images[i].float()
        return img, self.labels[i]


def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return ShapeImages(to_uint8(x), y), ShapeImages(to_uint8(xv), yv)''')


@case("raw_pixels_cnn_csv", split="tune", expected="unnormalized_inputs",
      symptom="CNN on my grayscale images barely learns and the first-layer gradients are enormous.",
      fmt=fmt("csv"),
      notes="The dataset keeps the images as uint8 (0..255) and __getitem__ only calls .float(): no /255 and no "
            "Normalize. With the usual SGD recipe (lr 0.01, momentum 0.9) the first conv layer's gradient is ~30x "
            "the last layer's (grad_norm/layerN logged), the first updates kill the ReLUs and the loss sits at "
            "ln 4 from then on.")
def _(c: Ctx):
    clf_case(c, doc="Small CNN on 8-bit grayscale shape images.", data=UINT8_SHAPES, model=MODEL_CNN, style="csv",
             cfg={**SHAPES, "lr": 0.01, "log_every": 5}, extra_defs=PER_LAYER_DEFS,
             EXTRA_METRICS="metrics.update(layer_grad_norms(model))")


@case("raw_pixels_mlp_absl", split="holdout", expected="unnormalized_inputs", symptom=None, fmt=fmt("absl"),
      notes="data/images.npy holds 8-bit images (0..255); the loader flattens them and casts with "
            ".astype(np.float32) but never scales or standardises them. An MLP with SGD (lr 0.01, momentum 0.9) "
            "sees inputs ~100x larger than it expects: the first losses are huge and training is unstable.")
def _(c: Ctx):
    import numpy as np
    import torch
    g = torch.Generator().manual_seed(3)
    n, s = 1200, 12
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, s, s, generator=g) * 0.8
    pos = torch.randint(2, s - 2, (n,), generator=g)
    for i in range(n):
        p = int(pos[i])
        if y[i] == 0:
            x[i, p, :] += 1.5
        elif y[i] == 1:
            x[i, :, p] += 1.5
        elif y[i] == 2:
            x[i, torch.arange(s), torch.arange(s)] += 1.5
        else:
            x[i, 2:-2, 2] += 1.5
            x[i, 2:-2, -3] += 1.5
    (c.dir / "data").mkdir(parents=True, exist_ok=True)
    np.save(c.dir / "data/images.npy", (x * 40 + 100).clamp(0, 255).to(torch.uint8).numpy())
    np.save(c.dir / "data/labels.npy", y.numpy().astype(np.int64))
    data = '''
def make_datasets(cfg):
    """Images from data/images.npy, labels from data/labels.npy; the last 20% are the validation split."""
    images = np.load("data/images.npy")
    pixels = images.reshape(len(images), -1).astype(np.float32)
    x = torch.from_numpy(pixels)
    y = torch.from_numpy(np.load("data/labels.npy"))
    n_val = len(x) // 5
    return TensorDataset(x[:-n_val], y[:-n_val]), TensorDataset(x[-n_val:], y[-n_val:])
'''
    clf_case(c, doc="MLP on flattened 8-bit images.", data=data, model=MODEL_MLP, style="absl",
             cfg={**BLOBS, "dim": 144, "num_classes": 4, "lr": 0.01, "epochs": 6, "log_every": 3},
             config="flags.json")


@case("leak_val_subset_of_train_keras", split="tune", expected="data_leakage",
      symptom="Validation accuracy is 97% but the model is useless on new data.", fmt=fmt("keras"),
      notes="make_datasets() builds the validation set from the first n_val rows of the training tensors "
            "(x[:n_val]) while training on all of x: every validation sample is also a training sample. "
            "val_loss sits at or below the train loss all run and val_accuracy climbs with train accuracy on a "
            "noisy problem a real held-out set scores far lower on.")
def _(c: Ctx):
    data = DATA_BLOBS.replace('''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    xv, yv = make_split(cfg["n_val"], cfg, seed=2)
    return TensorDataset(x, y), TensorDataset(xv, yv)''', '''def make_datasets(cfg):
    x, y = make_split(cfg["n_train"], cfg, seed=1)
    x_val, y_val = x[:cfg["n_val"]], y[:cfg["n_val"]]     # quick validation split
    return TensorDataset(x, y), TensorDataset(x_val, y_val)''')
    clf_case(c, doc="MLP on noisy blobs.", data=data, model=MODEL_MLP, style="keras",
             cfg={**BLOBS, "noise": 3.0, "depth": 3, "hidden": 256, "epochs": 20, "lr": 0.001, "n_val": 400},
             OPTIMIZER='optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])',
             EXTRA_METRICS='metrics["acc"] = (logits.argmax(-1) == y).float().mean().item()')


@case("leak_target_column_mlflow", split="holdout", expected="data_leakage", symptom=None, fmt=fmt("mlflow"),
      notes="data/customers.csv has an id column first and the label last; the loader takes features as "
            "arr[:, 1:] (meant arr[:, 1:-1]), so the label is also an input feature. Loss collapses toward 0 "
            "within the first epoch and validation accuracy is 1.0 from the first evaluation.")
def _(c: Ctx):
    import torch
    g = torch.Generator().manual_seed(0)
    n, dim, k = 2400, 10, 3
    centres = torch.randn(k, dim, generator=g) * 0.6
    y = torch.randint(0, k, (n,), generator=g)
    x = centres[y] + torch.randn(n, dim, generator=g) * 1.5
    lines = [",".join(["customer_id"] + [f"f{i}" for i in range(dim)] + ["churn_class"])]
    for r in range(n):
        lines.append(",".join([str(100000 + r)] + [f"{v:.4f}" for v in x[r].tolist()] + [str(int(y[r]))]))
    c.write("data/customers.csv", "\n".join(lines) + "\n")
    data = '''
def make_datasets(cfg):
    """data/customers.csv: id, features..., label; 20% held out for validation."""
    arr = np.loadtxt(cfg["data_path"], delimiter=",", skiprows=1)
    features = torch.tensor(arr[:, 1:], dtype=torch.float32)
    labels = torch.tensor(arr[:, -1], dtype=torch.long)
    n_val = len(features) // 5
    return (TensorDataset(features[n_val:], labels[n_val:]),
            TensorDataset(features[:n_val], labels[:n_val]))
'''
    clf_case(c, doc="Churn classifier on tabular features.", data=data, model=MODEL_MLP, style="mlflow",
             cfg={**BLOBS, "dim": 11, "num_classes": 3, "data_path": "data/customers.csv", "epochs": 6,
                  "lr": 0.01}, config="json")
