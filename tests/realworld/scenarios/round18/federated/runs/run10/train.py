import json
import math
import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
random.seed(5)
np.random.seed(5)
torch.manual_seed(5)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        m = cfg["model"]
        self.rnn = nn.RNN(1, m["hidden_size"], num_layers=m["num_layers"], nonlinearity=m["nonlinearity"],
                          batch_first=True)
        self.head = nn.Linear(m["hidden_size"], 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


def weights(model):
    return [v.numpy() for v in model.state_dict().values()]


def assign(model, ws):
    model.load_state_dict(OrderedDict((k, torch.tensor(w)) for k, w in zip(model.state_dict().keys(), ws)))


def grad_norm(model):
    total = 0.0
    for p in model.parameters():
        if p.grad is not None:
            total += p.grad.detach().norm().item() ** 2
    return math.sqrt(total)


class MeterClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = cid
        d = np.load(f"data/meter_{cid}.npz")
        self.loader = DataLoader(TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"])),
                                 batch_size=cfg["train"]["batch_size"], shuffle=True)
        self.model = Forecaster()

    def fit(self, parameters, config):
        assign(self.model, parameters)
        tc = cfg["train"]
        opt = torch.optim.SGD(self.model.parameters(), lr=tc["lr"], momentum=tc["momentum"])
        mse = nn.MSELoss()
        self.model.train()
        losses, norms = [], []
        for _ in range(tc["local_epochs"]):
            for x, y in self.loader:
                opt.zero_grad()
                loss = mse(self.model(x), y)
                loss.backward()
                norms.append(grad_norm(self.model))
                opt.step()
                losses.append(loss.item())
        with open("grad_norms.jsonl", "a") as f:
            f.write(json.dumps({"round": config["rnd"], "client": int(self.cid),
                                "grad_norm": [round(g, 4) for g in norms]}) + "\n")
        print(f"meter {self.cid} | rnd {config['rnd']:02d} | mse {np.mean(losses):.5g} | "
              f"grad_norm median {np.median(norms):.4g} max {np.nanmax(norms):.4g}")
        return weights(self.model), len(self.loader.dataset), {"mse": float(np.mean(losses)),
                                                               "grad_norm_max": float(np.nanmax(norms))}


hold = np.load("data/holdout.npz")
hold_x, hold_y = torch.from_numpy(hold["x"]), torch.from_numpy(hold["y"])


def evaluate_fn(rnd, parameters, config):
    model = Forecaster()
    assign(model, parameters)
    model.eval()
    with torch.no_grad():
        pred = model(hold_x)
    mse = nn.functional.mse_loss(pred, hold_y).item()
    return mse, {"mae": (pred - hold_y).abs().mean().item()}


def fit_agg(metrics):
    n = sum(k for k, _ in metrics)
    return {"mse": sum(k * m["mse"] for k, m in metrics) / n,
            "grad_norm_max": max(m["grad_norm_max"] for _, m in metrics)}


fc = cfg["federated"]
fl.simulation.start_simulation(
    client_fn=lambda cid: MeterClient(cid).to_client(),
    num_clients=fc["num_clients"],
    config=fl.server.ServerConfig(num_rounds=fc["num_rounds"]),
    strategy=fl.server.strategy.FedAvg(
        fraction_fit=fc["fraction_fit"],
        fraction_evaluate=fc["fraction_evaluate"],
        min_available_clients=fc["num_clients"],
        evaluate_fn=evaluate_fn,
        on_fit_config_fn=lambda r: {"rnd": r},
        fit_metrics_aggregation_fn=fit_agg,
        initial_parameters=ndarrays_to_parameters(weights(Forecaster())),
    ),
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
