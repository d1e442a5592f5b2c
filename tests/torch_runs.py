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
