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
                    hidden: int = 2, seed: int = 0) -> dict[str, list[float]]:
    """A Keras-style history (loss, accuracy, val_loss, val_accuracy per epoch) of a ReLU MLP
    (20 -> 64, `hidden` layers of 64 -> 4) trained with Adam, batch 32, on four overlapping Gaussian clusters, validated
    on 512 fresh samples of the same clusters. shuffled_labels: the training targets are permuted apart
    from their inputs (what a loader that shuffles inputs and targets separately does)."""
    import torch  # noqa: PLC0415 - torch only for the tests that train

    (x, y), (xv, yv) = _clusters(n, 0.35, seed)
    if shuffled_labels:
        y = y[torch.randperm(n)]
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
    ce = torch.nn.functional.cross_entropy
    lines, step = [], 0
    for epoch in range(epochs):
        for idx in (torch.arange(len(x)) if sorted_by_class else torch.randperm(len(x))).split(batch):
            if zero_grad:
                opt.zero_grad()
            loss = ce(model(x[idx]), y[idx])
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
            opt.step()
            step += 1
            if step % every == 0:
                lines.append(f"epoch {epoch} step {step} loss={loss.item():.4f} grad_norm={norm:.4f} lr={lr}")
        with torch.no_grad():
            out = model(xv)
        lines.append(f"epoch {epoch} step {step} val_loss={ce(out, yv).item():.4f} "
                     f"val_acc={(out.argmax(1) == yv).float().mean().item():.4f}")
    return "\n".join(lines) + "\n"
