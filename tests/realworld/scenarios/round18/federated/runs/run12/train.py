import random
import tomllib
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

torch.set_num_threads(1)
with open("pyproject.toml", "rb") as f:
    toml = tomllib.load(f)
cfg = toml["tool"]["flwr"]["app"]["config"]
NUM_SITES = toml["tool"]["flwr"]["federations"]["local-simulation"]["options"]["num-supernodes"]

random.seed(123)
np.random.seed(123)
torch.manual_seed(123)


class WaveCNN(nn.Module):
    def __init__(self, num_classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 8, 5, padding=2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(8, 16, 5, padding=2), nn.ReLU(), nn.AdaptiveAvgPool1d(1),
        )
        self.classifier = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.classifier(self.features(x).squeeze(-1))


def get_weights(net):
    return [v.cpu().numpy() for v in net.state_dict().values()]


def set_weights(net, weights):
    net.load_state_dict(OrderedDict({k: torch.tensor(w) for k, w in zip(net.state_dict().keys(), weights)}))


def load_site(site_id):
    d = np.load(f"data/site_{site_id}.npz")
    ds = TensorDataset(torch.from_numpy(d["signals"]), torch.from_numpy(d["labels"]))
    n_val = len(ds) // 5
    train_ds, val_ds = torch.utils.data.random_split(ds, [len(ds) - n_val, n_val],
                                                     generator=torch.Generator().manual_seed(site_id))
    return (DataLoader(train_ds, batch_size=cfg["batch-size"], shuffle=True),
            DataLoader(val_ds, batch_size=128))


def train(net, loader, epochs, lr):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    for epoch in range(epochs):
        total, correct, running = 0, 0, 0.0
        for signals, labels in loader:
            optimizer.zero_grad()
            logits = net(signals)
            loss = criterion(logits, labels)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(labels)
            correct += (logits.argmax(1) == labels).sum().item()
            total += len(labels)
        print(f"  epoch {epoch + 1}: loss={running / total:.4f} acc={correct / total:.4f}")
    return running / total


def test(net, loader):
    criterion = nn.CrossEntropyLoss(reduction="sum")
    net.eval()
    total, correct, loss = 0, 0, 0.0
    with torch.no_grad():
        for signals, labels in loader:
            logits = net(signals)
            loss += criterion(logits, labels).item()
            correct += (logits.argmax(1) == labels).sum().item()
            total += len(labels)
    return loss / total, correct / total


class SiteClient(fl.client.NumPyClient):
    def __init__(self, site_id):
        self.site_id = site_id
        self.net = WaveCNN(cfg["num-classes"])
        self.trainloader, self.valloader = load_site(site_id)

    def fit(self, parameters, config):
        print(f"[site {self.site_id}] fit round {config['server_round']}")
        set_weights(self.net, parameters)
        loss = train(self.net, self.trainloader, cfg["local-epochs"], cfg["lr"])
        return get_weights(self.net), len(self.trainloader.dataset), {"train_loss": loss}

    def evaluate(self, parameters, config):
        set_weights(self.net, parameters)
        loss, acc = test(self.net, self.valloader)
        print(f"[site {self.site_id}] eval loss={loss:.4f} acc={acc:.4f}")
        return loss, len(self.valloader.dataset), {"accuracy": acc}


def client_fn(cid: str):
    return SiteClient(int(cid)).to_client()


_t = np.load("data/global_test.npz")
testloader = DataLoader(TensorDataset(torch.from_numpy(_t["signals"]), torch.from_numpy(_t["labels"])),
                        batch_size=256)


def server_evaluate(server_round, parameters, config):
    net = WaveCNN(cfg["num-classes"])
    set_weights(net, parameters)
    loss, acc = test(net, testloader)
    return loss, {"accuracy": acc}


def weighted_average(metrics):
    n = sum(num for num, _ in metrics)
    return {"accuracy": sum(num * m["accuracy"] for num, m in metrics) / n}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=cfg["fraction-fit"],
    fraction_evaluate=cfg["fraction-evaluate"],
    min_available_clients=NUM_SITES,
    evaluate_fn=server_evaluate,
    on_fit_config_fn=lambda rnd: {"server_round": rnd},
    evaluate_metrics_aggregation_fn=weighted_average,
    initial_parameters=ndarrays_to_parameters(get_weights(WaveCNN(cfg["num-classes"]))),
)

fl.simulation.start_simulation(
    client_fn=client_fn,
    num_clients=NUM_SITES,
    config=fl.server.ServerConfig(num_rounds=cfg["num-server-rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
