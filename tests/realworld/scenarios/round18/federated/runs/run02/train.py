import argparse
import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

parser = argparse.ArgumentParser()
parser.add_argument("--num-clients", type=int, default=20)
parser.add_argument("--fraction-fit", type=float, default=0.25)
parser.add_argument("--rounds", type=int, default=60)
parser.add_argument("--local-epochs", type=int, default=1)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--alpha", type=float, default=0.3)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()
print(vars(args))

torch.set_num_threads(1)
random.seed(args.seed)
np.random.seed(args.seed)
torch.manual_seed(args.seed)


def dirichlet_partition(labels, num_clients, alpha, rng):
    """Split sample indices over clients with per-class Dirichlet(alpha) proportions."""
    num_classes = labels.max() + 1
    while True:
        parts = [[] for _ in range(num_clients)]
        for c in range(num_classes):
            idx = rng.permutation(np.where(labels == c)[0])
            props = rng.dirichlet(alpha * np.ones(num_clients))
            cuts = (np.cumsum(props) * len(idx)).astype(int)[:-1]
            for p, chunk in zip(parts, np.split(idx, cuts)):
                p.extend(chunk.tolist())
        if min(len(p) for p in parts) >= 20:
            return [np.array(p) for p in parts]


pool = np.load("data/pool.npz")
X, Y = pool["x"], pool["y"]
partitions = dirichlet_partition(Y, args.num_clients, args.alpha, np.random.default_rng(args.seed))
for cid, p in enumerate(partitions):
    counts = np.bincount(Y[p], minlength=10)
    print(f"client {cid:2d}: n={len(p):4d} label counts={counts.tolist()}")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.body(x))


def get_parameters(net):
    return [val.cpu().numpy() for _, val in net.state_dict().items()]


def set_parameters(net, parameters):
    state_dict = OrderedDict({k: torch.tensor(v) for k, v in zip(net.state_dict().keys(), parameters)})
    net.load_state_dict(state_dict, strict=True)


def test(net, loader):
    net.eval()
    loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = net(x)
            loss += nn.functional.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            total += len(y)
    return loss / total, correct / total


class FlowerClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = int(cid)
        idx = partitions[self.cid]
        ds = TensorDataset(torch.from_numpy(X[idx]), torch.from_numpy(Y[idx]))
        self.loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True)
        self.net = Net()

    def fit(self, parameters, config):
        set_parameters(self.net, parameters)
        opt = torch.optim.SGD(self.net.parameters(), lr=args.lr)
        self.net.train()
        for epoch in range(args.local_epochs):
            running, n = 0.0, 0
            for x, y in self.loader:
                opt.zero_grad()
                loss = nn.functional.cross_entropy(self.net(x), y)
                loss.backward()
                opt.step()
                running += loss.item() * len(y)
                n += len(y)
            print(f"[Client {self.cid}] round {config['server_round']} epoch {epoch}: loss {running / n:.4f}")
        return get_parameters(self.net), len(self.loader.dataset), {"train_loss": running / n}


testset = np.load("data/test.npz")
testloader = DataLoader(TensorDataset(torch.from_numpy(testset["x"]), torch.from_numpy(testset["y"])),
                        batch_size=512)


def evaluate_fn(server_round, parameters, config):
    net = Net()
    set_parameters(net, parameters)
    loss, acc = test(net, testloader)
    return loss, {"accuracy": acc}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=args.fraction_fit,
    fraction_evaluate=0.0,
    min_fit_clients=2,
    min_available_clients=args.num_clients,
    evaluate_fn=evaluate_fn,
    on_fit_config_fn=lambda r: {"server_round": r},
    initial_parameters=ndarrays_to_parameters(get_parameters(Net())),
)

fl.simulation.start_simulation(
    client_fn=lambda cid: FlowerClient(cid).to_client(),
    num_clients=args.num_clients,
    config=fl.server.ServerConfig(num_rounds=args.rounds),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
