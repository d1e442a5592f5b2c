import os
import random
import tomllib
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters, parameters_to_ndarrays

torch.set_num_threads(1)
with open("pyproject.toml", "rb") as f:
    _toml = tomllib.load(f)
config = _toml["tool"]["flwr"]["app"]["config"]
NUM_CLIENTS = _toml["tool"]["flwr"]["federations"]["local-simulation"]["options"]["num-supernodes"]

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.fc1 = nn.Linear(16 * 3 * 3, 32)
        self.fc2 = nn.Linear(32, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def get_weights(net):
    return [val.cpu().numpy() for _, val in net.state_dict().items()]


def set_weights(net, parameters):
    params_dict = zip(net.state_dict().keys(), parameters)
    state_dict = OrderedDict({k: torch.tensor(v) for k, v in params_dict})
    net.load_state_dict(state_dict, strict=True)


def train(net, trainloader, epochs, lr):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    net.train()
    for epoch in range(epochs):
        correct, total, epoch_loss = 0, 0, 0.0
        for images, labels in trainloader:
            optimizer.zero_grad()
            outputs = net(images)
            loss = criterion(outputs, labels)
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item() * labels.size(0)
            total += labels.size(0)
            correct += (outputs.argmax(1) == labels).sum().item()
        print(f"Epoch {epoch + 1}: train loss {epoch_loss / total:.4f}, accuracy {correct / total:.4f}")
    return epoch_loss / total


def test(net, testloader):
    criterion = nn.CrossEntropyLoss(reduction="sum")
    correct, total, loss = 0, 0, 0.0
    net.eval()
    with torch.no_grad():
        for images, labels in testloader:
            outputs = net(images)
            loss += criterion(outputs, labels).item()
            correct += (outputs.argmax(1) == labels).sum().item()
            total += labels.size(0)
    return loss / total, correct / total


class FlowerClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = cid
        self.net = Net()
        d = np.load(f"data/client_{cid}.npz")
        x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
        n_val = len(y) // 5
        self.trainloader = DataLoader(TensorDataset(x[n_val:], y[n_val:]), batch_size=config["batch-size"],
                                      shuffle=True)
        self.valloader = DataLoader(TensorDataset(x[:n_val], y[:n_val]), batch_size=64)

    def fit(self, parameters, cfg):
        print(f"[Client {self.cid}] fit, config: {cfg}")
        set_weights(self.net, parameters)
        loss = train(self.net, self.trainloader, cfg["local_epochs"], cfg["lr"])
        return get_weights(self.net), len(self.trainloader.dataset), {"train_loss": loss}

    def evaluate(self, parameters, cfg):
        set_weights(self.net, parameters)
        loss, acc = test(self.net, self.valloader)
        print(f"[Client {self.cid}] evaluate: loss {loss:.4f}, accuracy {acc:.4f}")
        return loss, len(self.valloader.dataset), {"accuracy": acc}


class FedAvgWithCheckpoints(fl.server.strategy.FedAvg):
    def __init__(self, net, ckpt_dir, **kwargs):
        super().__init__(**kwargs)
        self.net = net
        self.ckpt_dir = ckpt_dir
        os.makedirs(ckpt_dir, exist_ok=True)

    def aggregate_fit(self, server_round, results, failures):
        aggregated_parameters, aggregated_metrics = super().aggregate_fit(server_round, results, failures)
        if aggregated_parameters is not None:
            ndarrays = parameters_to_ndarrays(aggregated_parameters)
            state_dict = self.net.state_dict()
            for key, arr in zip(state_dict.keys(), ndarrays):
                state_dict[key] = torch.from_numpy(arr)
            path = os.path.join(self.ckpt_dir, f"model_round_{server_round}.pt")
            torch.save(state_dict, path)
            print(f"Saved aggregated model to {path}")
        return ndarrays_to_parameters(get_weights(self.net)), aggregated_metrics


_test = np.load("data/test.npz")
testloader = DataLoader(TensorDataset(torch.from_numpy(_test["x"]), torch.from_numpy(_test["y"])), batch_size=200)


def evaluate(server_round, parameters, cfg):
    net = Net()
    set_weights(net, parameters)
    loss, acc = test(net, testloader)
    return loss, {"accuracy": acc}


def weighted_average(metrics):
    n = sum(num for num, _ in metrics)
    return {"accuracy": sum(num * m["accuracy"] for num, m in metrics) / n}


def fit_loss_average(metrics):
    n = sum(num for num, _ in metrics)
    return {"train_loss": sum(num * m["train_loss"] for num, m in metrics) / n}


global_net = Net()
strategy = FedAvgWithCheckpoints(
    net=global_net,
    ckpt_dir=config["checkpoint-dir"],
    fraction_fit=config["fraction-fit"],
    fraction_evaluate=config["fraction-evaluate"],
    min_available_clients=NUM_CLIENTS,
    initial_parameters=ndarrays_to_parameters(get_weights(global_net)),
    on_fit_config_fn=lambda rnd: {"round": rnd, "local_epochs": config["local-epochs"], "lr": config["learning-rate"]},
    evaluate_fn=evaluate,
    fit_metrics_aggregation_fn=fit_loss_average,
    evaluate_metrics_aggregation_fn=weighted_average,
)

fl.simulation.start_simulation(
    client_fn=lambda cid: FlowerClient(cid).to_client(),
    num_clients=NUM_CLIENTS,
    config=fl.server.ServerConfig(num_rounds=config["num-server-rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
