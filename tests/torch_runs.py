"""Small real torch training runs on CPU that tests log in the ways users do."""
from __future__ import annotations

from typing import Iterator


def relu_mlp_steps(kill_at: int | None, steps: int = 12) -> Iterator[tuple[int, "object", "object"]]:
    """A ReLU MLP (8 -> 32 -> 32 -> 2, nn.Sequential) trained full-batch with SGD. Yields (step, model,
    loss) after each backward, before the optimizer step (the gradients are in p.grad). kill_at: the
    step at which one bad update pushes the second hidden layer's biases far negative, so its units
    never fire again (their own weights and every layer below get no gradient); None: a healthy run."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    torch.manual_seed(0)
    x = torch.randn(256, 8)
    y = (x[:, 0] + x[:, 1] > 0).long()
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Linear(32, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(steps):
        if step == kill_at:
            with torch.no_grad():
                model[2].bias -= 100.0
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        yield step, model, loss
        opt.step()


def _clusters(n: int, spread: float, seed: int = 0):
    """(x, y) training and validation samples (n and 512) of four Gaussian clusters in 20 dimensions whose
    centres lie `spread` apart per coordinate (0.35-0.5: overlapping, a Bayes error of 20-30 %); seeds
    fixed by `seed`, and torch's global seed set to it for what is drawn after."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    centres = torch.randn(4, 20, generator=torch.Generator().manual_seed(seed)) * spread

    def sample(count: int, draw: int):
        g = torch.Generator().manual_seed(draw)
        y = torch.randint(0, 4, (count,), generator=g)
        return centres[y] + torch.randn(count, 20, generator=g), y

    torch.manual_seed(seed)
    return sample(n, 100 + 2 * seed), sample(512, 101 + 2 * seed)


def cluster_history(lr: float, shuffled_labels: bool, epochs: int = 30, n: int = 512,
                    hidden: int = 2, seed: int = 0, label_noise: float = 0.0) -> dict[str, list[float]]:
    """A Keras-style history (loss, accuracy, val_loss, val_accuracy per epoch) of a ReLU MLP
    (20 -> 64, `hidden` layers of 64 -> 4) trained with Adam, batch 32, on four overlapping Gaussian clusters, validated
    on 512 fresh samples of the same clusters. shuffled_labels: the training targets are permuted apart
    from their inputs (what a loader that shuffles inputs and targets separately does). label_noise: that
    share of the training labels redrawn at random (validation keeps its true labels)."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    (x, y), (xv, yv) = _clusters(n, 0.35, seed)
    if shuffled_labels:
        y = y[torch.randperm(n)]
    if label_noise:
        y = torch.where(torch.rand(n) < label_noise, torch.randint(0, 4, (n,)), y)
    layers: list = [torch.nn.Linear(20, 64), torch.nn.ReLU()]
    for _ in range(hidden - 1):
        layers += [torch.nn.Linear(64, 64), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers, torch.nn.Linear(64, 4))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    ce = torch.nn.functional.cross_entropy
    hist: dict[str, list[float]] = {"loss": [], "accuracy": [], "val_loss": [], "val_accuracy": []}
    for _ in range(epochs):
        total = correct = 0.0
        for idx in torch.randperm(n).split(32):
            opt.zero_grad()
            out = model(x[idx])
            loss = ce(out, y[idx])
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            correct += (out.argmax(1) == y[idx]).sum().item()
        with torch.no_grad():
            ov = model(xv)
        hist["loss"].append(total / n)
        hist["accuracy"].append(correct / n)
        hist["val_loss"].append(ce(ov, yv).item())
        hist["val_accuracy"].append((ov.argmax(1) == yv).float().mean().item())
    return hist


def cluster_step_log(zero_grad: bool = True, epochs: int = 10, sorted_by_class: bool = False, every: int = 10,
                     softmax_output: bool = False, adam: bool = False, batch: int = 32, seed: int = 0) -> str:
    """A text log ("epoch E step S loss=... grad_norm=... lr=..." every 10 steps, val_loss/val_acc
    each epoch) of a ReLU MLP (20 -> 64 -> 64 -> 4) trained with SGD (lr 0.01, momentum 0.9; adam:
    Adam at lr 1e-3), batch 32 (or `batch`), on 2,048 samples of four Gaussian clusters. softmax_output: the model
    ends in nn.Softmax and its probabilities go into cross_entropy (which applies its own). zero_grad=False leaves out optimizer.zero_grad():
    each backward adds to the gradients of every step before it. sorted_by_class: the training set is
    sorted by label and read in that order every epoch (no shuffling). every: the logging interval."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    (x, y), (xv, yv) = _clusters(2048, 0.5, seed)
    if sorted_by_class:
        order = torch.argsort(y)
        x, y = x[order], y[order]
    model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                torch.nn.Linear(64, 4), *([torch.nn.Softmax(dim=1)] if softmax_output else []))
    lr = 1e-3 if adam else 0.01
    opt = (torch.optim.Adam(model.parameters(), lr=lr) if adam else
           torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9))
    return _train_logged(model, opt, torch.nn.functional.cross_entropy, (x, y), (xv, yv), epochs, every, "kv4",
                         zero_grad=zero_grad, shuffle=not sorted_by_class, batch=batch)


# Faults that fault_step_log can build into the cluster run, each a few lines of what users get wrong.
FAULTS = ("none", "bad_init", "dead_bias", "frozen_body", "deep_sigmoid", "label_noise", "raw_inputs",
          "val_is_train", "steplr_per_batch", "huge_weight_decay", "nan_input", "labels_from_1", "log_softmax_by_hand",
          "float_targets", "batchnorm_last_batch_1", "mse_shape", "val_not_normalized", "width_1", "sgd_lr_10")


def _log_line(style: str, epoch: int, epochs: int, step: int, vals: dict) -> str:
    """One training or validation record in a logging style users write: 'kv' (key=value; 'kv4': every
    value to four decimals), 'hf' (a
    Trainer's dict line), 'pipe' ("Epoch 1/10 | Step 20 | Loss: 0.51 | Grad Norm: ...")."""
    if style == "kv4":   # cluster_step_log's: four decimals, the lr as it was set
        return f"epoch {epoch} step {step} " + " ".join(f"{k}={v}" if k == "lr" else f"{k}={v:.4f}" for k, v in vals.items())
    if style == "kv":
        return f"epoch {epoch} step {step} " + " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                                                       for k, v in vals.items())
    if style == "hf":
        names = {"loss": "loss", "grad_norm": "grad_norm", "lr": "learning_rate", "val_loss": "eval_loss",
                 "val_acc": "eval_accuracy"}
        d = {names[k]: round(v, 4) if k != "lr" else v for k, v in vals.items()}
        return str({**d, "epoch": round(epoch + (step % 64) / 64, 2) if "loss" in vals else float(epoch + 1)})
    names = {"loss": "Loss", "grad_norm": "Grad Norm", "lr": "LR", "val_loss": "Validation Loss",
             "val_acc": "Validation Accuracy"}
    parts = [f"Epoch {epoch + 1}/{epochs}"] + ([f"Step {step}"] if "loss" in vals else [])
    for k, v in vals.items():
        parts.append(f"{names[k]}: {v * 100:.2f}%" if k == "val_acc" else
                     f"{names[k]}: {v:.2e}" if k == "lr" else f"{names[k]}: {v:.4f}")
    return " | ".join(parts)


def fault_step_log(fault: str, epochs: int = 6, every: int = 10, style: str = "kv", seed: int = 0,
                   adam: bool = False) -> str:
    """A per-step log of the cluster MLP (20 -> 64 -> 64 -> 4, SGD lr 0.01 momentum 0.9, or Adam 1e-3;
    batch 32; 2,048 training samples) with one fault of FAULTS built in. When the fault makes torch
    raise, the log ends with the traceback that torch printed, as a user's terminal shows it.
    none: a healthy run. bad_init: weights drawn with std 3. dead_bias: the hidden biases start at -20
    (no ReLU fires). frozen_body: every layer but the last has requires_grad False. deep_sigmoid:
    eight 64-wide sigmoid layers. label_noise: 45 % of the training labels drawn at random. raw_inputs:
    the inputs scaled by 500 and shifted by 1000 (never normalized). val_is_train: validation on 512
    training samples. steplr_per_batch: StepLR(step_size=30, gamma=0.5) stepped every batch.
    huge_weight_decay: weight_decay=5.0. nan_input: one NaN feature in the training set.
    labels_from_1: targets 1..4 for a 4-way head. log_softmax_by_hand: log(softmax(40 z)) for NLL: the
    probabilities underflow to 0 and their log is -inf. float_targets: class targets as floats. batchnorm_last_batch_1: a
    BatchNorm1d model whose last batch holds one sample. mse_shape: MSELoss of (N, 1) outputs against
    (N,) targets. val_not_normalized: raw features (x 40 + 25) standardised with the training set's
    statistics for training only; validation gets them raw. width_1: hidden layers one unit wide.
    sgd_lr_10: SGD at lr 10."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    assert fault in FAULTS, fault
    nn, F = torch.nn, torch.nn.functional
    n = 2049 if fault == "batchnorm_last_batch_1" else 2048
    (x, y), (xv, yv) = _clusters(n, 0.5, seed)
    if fault == "label_noise":
        flip = torch.rand(n) < 0.45
        y = torch.where(flip, torch.randint(0, 4, (n,)), y)
    if fault == "raw_inputs":
        x, xv = x * 500 + 1000, xv * 500 + 1000
    if fault == "val_not_normalized":
        x, xv = x * 40 + 25, xv * 40 + 25
        x = (x - x.mean(0)) / x.std(0)
    if fault == "val_is_train":
        xv, yv = x[:512], y[:512]
    if fault == "nan_input":
        x = x.clone()
        x[1500, 3] = float("nan")
    if fault == "labels_from_1":
        y, yv = y + 1, yv + 1
    width, depth = 1 if fault == "width_1" else 64, 8 if fault == "deep_sigmoid" else 2
    act = nn.Sigmoid if fault == "deep_sigmoid" else nn.ReLU
    layers: list = []
    for i in range(depth):
        layers += [nn.Linear(20 if i == 0 else width, width),
                   *([nn.BatchNorm1d(width)] if fault == "batchnorm_last_batch_1" else []), act()]
    model = nn.Sequential(*layers, nn.Linear(width, 1 if fault == "mse_shape" else 4))
    if fault == "bad_init":
        for p in model.parameters():
            nn.init.normal_(p, std=3.0)
    if fault == "dead_bias":
        for m in list(model)[:-1]:
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.bias, -20.0)
    if fault == "frozen_body":
        for m in list(model)[:-1]:
            for p in m.parameters():
                p.requires_grad = False
    lr = 10.0 if fault == "sgd_lr_10" else 1e-3 if adam else 0.01
    wd = 5.0 if fault == "huge_weight_decay" else 0.0
    params = [p for p in model.parameters() if p.requires_grad]
    opt = (torch.optim.Adam(params, lr=lr, weight_decay=wd) if adam else
           torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=wd))
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.5) if fault == "steplr_per_batch" else None

    def loss_of(out, yb):
        if fault == "log_softmax_by_hand":
            return F.nll_loss(torch.log(torch.softmax(out * 40, dim=1)), yb)
        if fault == "float_targets":
            return F.cross_entropy(out, yb.float())
        if fault == "mse_shape":
            return F.mse_loss(out, yb.float())
        return F.cross_entropy(out, yb)

    return _train_logged(model, opt, loss_of, (x, y), (xv, yv), epochs, every, style, sched=sched,
                         acc=fault != "mse_shape")


def _train_logged(model, opt, loss_of, train, val, epochs: int, every: int, style: str, *, sched=None,
                  acc: bool = True, zero_grad: bool = True, shuffle: bool = True, batch: int = 32) -> str:
    """The cluster runs' loop and log: batches of `batch` (shuffled each epoch, or in the set's order),
    the total grad norm, a record every `every` steps and a validation record per epoch in `style`
    (_log_line). A warning torch raises is printed once per place, as Python's default filter does; a
    crash ends the log with its traceback, as the user's terminal shows it. zero_grad=False leaves out
    optimizer.zero_grad(); acc=False leaves out the validation accuracy (a regression head)."""
    import traceback  # noqa: PLC0415
    import warnings  # noqa: PLC0415
    import torch  # noqa: PLC0415 - torch only for the tests that train

    (x, y), (xv, yv) = train, val
    lines: list[str] = []
    step, shown = 0, set()
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        try:
            for epoch in range(epochs):
                model.train()
                for idx in (torch.randperm(len(x)) if shuffle else torch.arange(len(x))).split(batch):
                    if zero_grad:
                        opt.zero_grad()
                    loss = loss_of(model(x[idx]), y[idx])
                    loss.backward()
                    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
                    opt.step()
                    if sched is not None:
                        sched.step()
                    step += 1
                    for w in heard:
                        if (w.filename, w.lineno) not in shown:
                            shown.add((w.filename, w.lineno))
                            lines.append(warnings.formatwarning(w.message, w.category, w.filename, w.lineno).rstrip())
                    heard.clear()
                    if step % every == 0:
                        lines.append(_log_line(style, epoch, epochs, step, {"loss": loss.item(), "grad_norm": norm,
                                                                            "lr": opt.param_groups[0]["lr"]}))
                model.eval()
                with torch.no_grad():
                    out = model(xv)
                    vals = {"val_loss": loss_of(out, yv).item()}
                    if acc:
                        vals["val_acc"] = (out.argmax(1) == yv).float().mean().item()
                lines.append(_log_line(style, epoch, epochs, step, vals))
        except Exception:  # noqa: BLE001 - the run crashed as the user's did: its traceback ends the log
            lines.append(traceback.format_exc().rstrip())
    return "\n".join(lines) + "\n"
