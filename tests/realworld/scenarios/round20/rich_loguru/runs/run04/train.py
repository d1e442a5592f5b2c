import numpy as np
import torch
import torch.nn as nn
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

torch.set_num_threads(1)
console = Console()

N_CLASSES = 10
N_FEATURES = 32
EPOCHS = 25
BATCH = 128
LR = 1e-3


def make_classification(n, rng, centers):
    y = rng.integers(0, N_CLASSES, n)
    X = centers[y] + rng.normal(0, 1.0, (n, N_FEATURES))
    return torch.tensor(X, dtype=torch.float32), torch.tensor(y)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(N_FEATURES, 128), nn.ReLU(),
            nn.Linear(128, 128), nn.ReLU(),
            nn.Linear(128, N_CLASSES),
            nn.Softmax(dim=1),
        )

    def forward(self, x):
        return self.body(x)


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    centers = rng.normal(0, 0.9, (N_CLASSES, N_FEATURES))
    Xtr, ytr = make_classification(8000, rng, centers)
    Xva, yva = make_classification(2000, rng, centers)
    dl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(Xtr, ytr), batch_size=BATCH, shuffle=True)

    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=LR)
    console.rule("[bold blue]training")
    console.print(f"classes={N_CLASSES} features={N_FEATURES} train={len(Xtr)} val={len(Xva)} lr={LR} bs={BATCH}")

    for epoch in range(1, EPOCHS + 1):
        model.train()
        run_loss, run_correct, seen = 0.0, 0, 0
        with Progress(TextColumn("[bold]Epoch {task.fields[ep]}"), BarColumn(bar_width=32),
                      TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(), TimeRemainingColumn(),
                      TextColumn("{task.fields[stats]}"), console=console) as progress:
            task = progress.add_task("", total=len(dl), ep=epoch, stats="")
            for xb, yb in dl:
                optimizer.zero_grad()
                out = model(xb)
                loss = criterion(out, yb)
                loss.backward()
                optimizer.step()
                run_loss += loss.item() * len(xb)
                run_correct += (out.argmax(1) == yb).sum().item()
                seen += len(xb)
                progress.update(task, advance=1,
                                stats=f"loss={run_loss / seen:.4f} acc={run_correct / seen:.3f}")
        model.eval()
        with torch.no_grad():
            out = model(Xva)
            val_loss = criterion(out, yva).item()
            val_acc = (out.argmax(1) == yva).float().mean().item()
        console.print(f"  [cyan]val[/cyan] loss={val_loss:.4f} acc={val_acc:.3f}")

    console.rule("[bold green]done")
    torch.save(model.state_dict(), "classifier.pt")


if __name__ == "__main__":
    main()
