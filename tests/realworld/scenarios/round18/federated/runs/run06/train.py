import random
import tomllib
from collections import OrderedDict
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import Metrics, ndarrays_to_parameters

torch.set_num_threads(1)
with open("pyproject.toml", "rb") as f:
    pp = tomllib.load(f)
CFG = pp["tool"]["flwr"]["app"]["config"]
NUM_CLIENTS = pp["tool"]["flwr"]["federations"]["local-simulation"]["options"]["num-supernodes"]


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class Classifier(nn.Module):
    def __init__(self, in_dim: int = 20, n_classes: int = 5):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                    nn.Linear(64, n_classes))

    def forward(self, x):
        return self.layers(x)


def get_weights(model: nn.Module):
    return [v.cpu().numpy() for v in model.state_dict().values()]


def set_weights(model: nn.Module, weights) -> None:
    model.load_state_dict(OrderedDict((k, torch.tensor(w)) for k, w in zip(model.state_dict(), weights)))


def load_device_data(cid: int):
    d = np.load(f"data/device_{cid}.npz")
    x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
    n_val = max(1, int(CFG["val-fraction"] * len(y)))
    train = TensorDataset(x[n_val:], y[n_val:])
    val = TensorDataset(x[:n_val], y[:n_val])
    return (DataLoader(train, batch_size=CFG["batch-size"], shuffle=True),
            DataLoader(val, batch_size=128))


class DeviceClient(fl.client.NumPyClient):
    def __init__(self, cid: str):
        self.cid = int(cid)
        self.model = Classifier()
        self.train_loader, self.val_loader = load_device_data(self.cid)

    def fit(self, parameters, config):
        set_weights(self.model, parameters)
        opt = torch.optim.SGD(self.model.parameters(), lr=config["lr"], momentum=0.9)
        self.model.train()
        for _ in range(config["local_epochs"]):
            for x, y in self.train_loader:
                opt.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                opt.step()
        return get_weights(self.model), len(self.train_loader.dataset), {}

    def evaluate(self, parameters, config):
        set_weights(self.model, parameters)
        self.model.eval()
        loss, correct, n = 0.0, 0, 0
        with torch.no_grad():
            for x, y in self.val_loader:
                out = self.model(x)
                loss += nn.functional.cross_entropy(out, y, reduction="sum").item()
                correct += (out.argmax(1) == y).sum().item()
                n += len(y)
        print(f"device {self.cid}: val_loss={loss / n:.4f} val_acc={correct / n:.4f} (n={n})")
        return loss / n, n, {"accuracy": correct / n}


def aggregate_accuracy(metrics: List[Tuple[int, Metrics]]) -> Metrics:
    accuracies = [m["accuracy"] for _, m in metrics]
    return {"accuracy": float(np.mean(accuracies))}


def fit_config(server_round: int):
    return {"lr": CFG["lr"], "local_epochs": CFG["local-epochs"]}


def main():
    seed_everything(CFG["seed"])
    strategy = fl.server.strategy.FedAvg(
        fraction_fit=CFG["fraction-fit"],
        fraction_evaluate=CFG["fraction-evaluate"],
        min_available_clients=NUM_CLIENTS,
        on_fit_config_fn=fit_config,
        evaluate_metrics_aggregation_fn=aggregate_accuracy,
        initial_parameters=ndarrays_to_parameters(get_weights(Classifier())),
    )
    fl.simulation.start_simulation(
        client_fn=lambda cid: DeviceClient(cid).to_client(),
        num_clients=NUM_CLIENTS,
        config=fl.server.ServerConfig(num_rounds=CFG["num-server-rounds"]),
        strategy=strategy,
        client_resources={"num_cpus": 1, "num_gpus": 0.0},
    )


if __name__ == "__main__":
    main()
