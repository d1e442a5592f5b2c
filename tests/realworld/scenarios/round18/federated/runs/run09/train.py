import random
from collections import OrderedDict

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

torch.set_num_threads(1)
cfg = yaml.safe_load(open("fl_config.yaml"))
FEATURES = ["hr_mean", "hr_std", "steps", "skin_temp", "eda", "acc_energy", "spo2", "resp_rate"]
random.seed(21)
np.random.seed(21)
torch.manual_seed(21)


def load_client_data(cid):
    df = pd.read_csv(f"data/wearable_client{cid}.csv")
    X = df[FEATURES].values.astype(np.float32)
    y = df["label"].values.astype(np.int64)
    mu, sigma = X.mean(axis=0), X.std(axis=0) + 1e-8
    X = (X - mu) / sigma
    n_val = int(cfg["val_split"] * len(y))
    train = TensorDataset(torch.from_numpy(X[n_val:]), torch.from_numpy(y[n_val:]))
    val = TensorDataset(torch.from_numpy(X[:n_val]), torch.from_numpy(y[:n_val]))
    return train, val


def load_test_data():
    df = pd.read_csv("data/server_test.csv")
    X = df[FEATURES].values.astype(np.float32)
    y = df["label"].values.astype(np.int64)
    return TensorDataset(torch.from_numpy(X), torch.from_numpy(y))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        h1, h2 = cfg["hidden"]
        self.net = nn.Sequential(nn.Linear(len(FEATURES), h1), nn.ReLU(), nn.Linear(h1, h2), nn.ReLU(),
                                 nn.Linear(h2, cfg["num_classes"]))

    def forward(self, x):
        return self.net(x)


def get_parameters(model):
    return [val.cpu().numpy() for _, val in model.state_dict().items()]


def set_parameters(model, parameters):
    keys = model.state_dict().keys()
    model.load_state_dict(OrderedDict({k: torch.tensor(v) for k, v in zip(keys, parameters)}), strict=True)


def evaluate_model(model, loader):
    model.eval()
    total_loss, correct, count = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            total_loss += nn.functional.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(dim=1) == y).sum().item()
            count += y.shape[0]
    return total_loss / count, correct / count


class WearableClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = cid
        train, val = load_client_data(cid)
        self.trainloader = DataLoader(train, batch_size=cfg["batch_size"], shuffle=True)
        self.valloader = DataLoader(val, batch_size=256)
        self.model = MLP()

    def fit(self, parameters, config):
        set_parameters(self.model, parameters)
        optimizer = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"])
        self.model.train()
        for epoch in range(cfg["local_epochs"]):
            for x, y in self.trainloader:
                optimizer.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                optimizer.step()
        loss, acc = evaluate_model(self.model, self.trainloader)
        print(f"[client {self.cid}] round {config['server_round']}: train_loss={loss:.4f} train_acc={acc:.4f}")
        return get_parameters(self.model), len(self.trainloader.dataset), {}

    def evaluate(self, parameters, config):
        set_parameters(self.model, parameters)
        loss, acc = evaluate_model(self.model, self.valloader)
        print(f"[client {self.cid}] evaluate: val_loss={loss:.4f} val_acc={acc:.4f}")
        return loss, len(self.valloader.dataset), {"accuracy": acc}


testloader = DataLoader(load_test_data(), batch_size=512)


def central_evaluate(server_round, parameters, config):
    model = MLP()
    set_parameters(model, parameters)
    loss, acc = evaluate_model(model, testloader)
    return loss, {"accuracy": acc}


def weighted_average(metrics):
    total = sum(n for n, _ in metrics)
    return {"accuracy": sum(n * m["accuracy"] for n, m in metrics) / total}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=cfg["fraction_fit"],
    fraction_evaluate=cfg["fraction_evaluate"],
    min_available_clients=cfg["num_clients"],
    evaluate_fn=central_evaluate,
    evaluate_metrics_aggregation_fn=weighted_average,
    on_fit_config_fn=lambda rnd: {"server_round": rnd},
    initial_parameters=ndarrays_to_parameters(get_parameters(MLP())),
)

history = fl.simulation.start_simulation(
    client_fn=lambda cid: WearableClient(cid).to_client(),
    num_clients=cfg["num_clients"],
    config=fl.server.ServerConfig(num_rounds=cfg["num_rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
