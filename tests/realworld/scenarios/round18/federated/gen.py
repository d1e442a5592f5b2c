"""Generate federated-learning (Flower / FedAvg style) run folders with planted faults.

Every run is a real single-process FedAvg simulation in plain torch: several clients with their
own data shards do local SGD, the server averages their weights by number of examples and
evaluates centrally.  The user scripts are written against the Flower API; a tiny in-process
stand-in for `flwr` (written to a scratch folder, never shipped) executes them and prints
Flower-format log lines.

Usage:  python gen.py            (all runs)
        python gen.py run03 ...  (only those runs; truth.json is still rewritten in full)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, "runs")

# --------------------------------------------------------------------------------------------
# Minimal in-process `flwr` replacement (single process, no Ray).  Mirrors the call order and
# log lines of flwr 1.8-1.10 `start_simulation` + `FedAvg`.
# --------------------------------------------------------------------------------------------
SHIM = {}

SHIM["flwr/__init__.py"] = '''
from . import client, common, server, simulation
__version__ = "1.9.0"
'''

SHIM["flwr/common/logger.py"] = '''
import logging
import sys

FLOWER_LOGGER = logging.getLogger("flwr")
FLOWER_LOGGER.setLevel(logging.DEBUG)
FLOWER_LOGGER.propagate = False


class _ConsoleFormatter(logging.Formatter):
    def format(self, record):
        return (record.levelname + " :").ljust(12) + record.getMessage()


_h = logging.StreamHandler(sys.stderr)
_h.setLevel(logging.INFO)
_h.setFormatter(_ConsoleFormatter())
FLOWER_LOGGER.addHandler(_h)
logger = FLOWER_LOGGER
log = logger.log
'''

SHIM["flwr/common/__init__.py"] = '''
from dataclasses import dataclass, field
from io import BytesIO
from typing import Dict, List, Tuple, Union, Any
import numpy as np

from .logger import log

NDArray = np.ndarray
NDArrays = List[np.ndarray]
Scalar = Union[bool, bytes, float, int, str]
Config = Dict[str, Scalar]
Metrics = Dict[str, Scalar]


@dataclass
class Parameters:
    tensors: List[bytes]
    tensor_type: str


@dataclass
class FitIns:
    parameters: Parameters
    config: Dict[str, Scalar]


@dataclass
class FitRes:
    parameters: Parameters
    num_examples: int
    metrics: Dict[str, Scalar]


@dataclass
class EvaluateIns:
    parameters: Parameters
    config: Dict[str, Scalar]


@dataclass
class EvaluateRes:
    loss: float
    num_examples: int
    metrics: Dict[str, Scalar]


@dataclass
class Context:
    node_config: Dict[str, Scalar] = field(default_factory=dict)
    run_config: Dict[str, Scalar] = field(default_factory=dict)
    state: Dict[str, Any] = field(default_factory=dict)


def ndarray_to_bytes(ndarray):
    bytes_io = BytesIO()
    np.save(bytes_io, ndarray, allow_pickle=False)
    return bytes_io.getvalue()


def bytes_to_ndarray(tensor):
    bytes_io = BytesIO(tensor)
    return np.load(bytes_io, allow_pickle=False)


def ndarrays_to_parameters(ndarrays):
    return Parameters(tensors=[ndarray_to_bytes(a) for a in ndarrays], tensor_type="numpy.ndarray")


def parameters_to_ndarrays(parameters):
    return [bytes_to_ndarray(t) for t in parameters.tensors]
'''

SHIM["flwr/client/__init__.py"] = '''
from .numpy_client import NumPyClient
from .client import Client
'''

SHIM["flwr/client/client.py"] = '''
class Client:
    def get_parameters(self, ins):
        raise NotImplementedError

    def fit(self, ins):
        raise NotImplementedError

    def evaluate(self, ins):
        raise NotImplementedError

    def to_client(self):
        return self
'''

SHIM["flwr/client/numpy_client.py"] = '''
from flwr.common import (FitRes, EvaluateRes, ndarrays_to_parameters, parameters_to_ndarrays)
from .client import Client


class NumPyClient:
    def get_parameters(self, config):
        return None

    def fit(self, parameters, config):
        raise NotImplementedError

    def evaluate(self, parameters, config):
        raise NotImplementedError

    def to_client(self):
        return _NumPyClientWrapper(self)


def _fit(self, ins):
    parameters = parameters_to_ndarrays(ins.parameters)
    results = self.numpy_client.fit(parameters, ins.config)
    if not (len(results) == 3 and isinstance(results[1], int) and isinstance(results[2], dict)):
        raise Exception("Client returned invalid fit result")
    parameters_prime, num_examples, metrics = results
    return FitRes(parameters=ndarrays_to_parameters(parameters_prime), num_examples=num_examples,
                  metrics=metrics)


def _evaluate(self, ins):
    parameters = parameters_to_ndarrays(ins.parameters)
    results = self.numpy_client.evaluate(parameters, ins.config)
    loss, num_examples, metrics = results
    return EvaluateRes(loss=float(loss), num_examples=num_examples, metrics=metrics)


class _NumPyClientWrapper(Client):
    def __init__(self, numpy_client):
        self.numpy_client = numpy_client

    fit = _fit
    evaluate = _evaluate
'''

SHIM["flwr/server/__init__.py"] = '''
from dataclasses import dataclass
from typing import Optional
from . import strategy
from .history import History
from .client_proxy import ClientProxy


@dataclass
class ServerConfig:
    num_rounds: int = 1
    round_timeout: Optional[float] = None
'''

SHIM["flwr/server/client_proxy.py"] = '''
class ClientProxy:
    def __init__(self, cid):
        self.cid = cid

    def __repr__(self):
        return f"RayActorClientProxy(cid={self.cid})"
'''

SHIM["flwr/server/history.py"] = '''
import pprint
from functools import reduce


class History:
    def __init__(self):
        self.losses_distributed = []
        self.losses_centralized = []
        self.metrics_distributed_fit = {}
        self.metrics_distributed = {}
        self.metrics_centralized = {}

    def add_loss_distributed(self, server_round, loss):
        self.losses_distributed.append((server_round, loss))

    def add_loss_centralized(self, server_round, loss):
        self.losses_centralized.append((server_round, loss))

    def _add(self, store, server_round, metrics):
        for key in metrics:
            store.setdefault(key, []).append((server_round, metrics[key]))

    def add_metrics_distributed_fit(self, server_round, metrics):
        self._add(self.metrics_distributed_fit, server_round, metrics)

    def add_metrics_distributed(self, server_round, metrics):
        self._add(self.metrics_distributed, server_round, metrics)

    def add_metrics_centralized(self, server_round, metrics):
        self._add(self.metrics_centralized, server_round, metrics)

    def __repr__(self):
        rep = ""
        if self.losses_distributed:
            rep += "History (loss, distributed):\\n" + reduce(
                lambda a, b: a + b,
                [f"\\tround {r}: {loss}\\n" for r, loss in self.losses_distributed])
        if self.losses_centralized:
            rep += "History (loss, centralized):\\n" + reduce(
                lambda a, b: a + b,
                [f"\\tround {r}: {loss}\\n" for r, loss in self.losses_centralized])
        if self.metrics_distributed_fit:
            rep += "History (metrics, distributed, fit):\\n" + pprint.pformat(self.metrics_distributed_fit) + "\\n"
        if self.metrics_distributed:
            rep += "History (metrics, distributed, evaluate):\\n" + pprint.pformat(self.metrics_distributed) + "\\n"
        if self.metrics_centralized:
            rep += "History (metrics, centralized):\\n" + pprint.pformat(self.metrics_centralized) + "\\n"
        return rep
'''

SHIM["flwr/server/strategy/__init__.py"] = '''
from .strategy import Strategy
from .fedavg import FedAvg
'''

SHIM["flwr/server/strategy/strategy.py"] = '''
class Strategy:
    pass
'''

SHIM["flwr/server/strategy/aggregate.py"] = '''
from functools import reduce
import numpy as np


def aggregate(results):
    num_examples_total = sum(num_examples for (_, num_examples) in results)
    weighted_weights = [[layer * num_examples for layer in weights] for weights, num_examples in results]
    return [reduce(np.add, layer_updates) / num_examples_total for layer_updates in zip(*weighted_weights)]


def weighted_loss_avg(results):
    num_total_evaluation_examples = sum(num_examples for (num_examples, _) in results)
    weighted_losses = [num_examples * loss for num_examples, loss in results]
    return sum(weighted_losses) / num_total_evaluation_examples
'''

SHIM["flwr/server/strategy/fedavg.py"] = '''
from logging import WARNING
from flwr.common import (FitIns, EvaluateIns, ndarrays_to_parameters, parameters_to_ndarrays)
from flwr.common.logger import log
from .aggregate import aggregate, weighted_loss_avg
from .strategy import Strategy


class FedAvg(Strategy):
    def __init__(self, *, fraction_fit=1.0, fraction_evaluate=1.0, min_fit_clients=2,
                 min_evaluate_clients=2, min_available_clients=2, evaluate_fn=None,
                 on_fit_config_fn=None, on_evaluate_config_fn=None, accept_failures=True,
                 initial_parameters=None, fit_metrics_aggregation_fn=None,
                 evaluate_metrics_aggregation_fn=None, inplace=True):
        super().__init__()
        self.fraction_fit = fraction_fit
        self.fraction_evaluate = fraction_evaluate
        self.min_fit_clients = min_fit_clients
        self.min_evaluate_clients = min_evaluate_clients
        self.min_available_clients = min_available_clients
        self.evaluate_fn = evaluate_fn
        self.on_fit_config_fn = on_fit_config_fn
        self.on_evaluate_config_fn = on_evaluate_config_fn
        self.accept_failures = accept_failures
        self.initial_parameters = initial_parameters
        self.fit_metrics_aggregation_fn = fit_metrics_aggregation_fn
        self.evaluate_metrics_aggregation_fn = evaluate_metrics_aggregation_fn
        self.inplace = inplace

    def __repr__(self):
        return f"FedAvg(accept_failures={self.accept_failures})"

    def num_fit_clients(self, num_available_clients):
        num_clients = int(num_available_clients * self.fraction_fit)
        return max(num_clients, self.min_fit_clients), self.min_available_clients

    def num_evaluation_clients(self, num_available_clients):
        num_clients = int(num_available_clients * self.fraction_evaluate)
        return max(num_clients, self.min_evaluate_clients), self.min_available_clients

    def initialize_parameters(self, client_manager):
        initial_parameters = self.initial_parameters
        self.initial_parameters = None
        return initial_parameters

    def evaluate(self, server_round, parameters):
        if self.evaluate_fn is None:
            return None
        parameters_ndarrays = parameters_to_ndarrays(parameters)
        eval_res = self.evaluate_fn(server_round, parameters_ndarrays, {})
        if eval_res is None:
            return None
        loss, metrics = eval_res
        return loss, metrics

    def configure_fit(self, server_round, parameters, client_manager):
        config = {}
        if self.on_fit_config_fn is not None:
            config = self.on_fit_config_fn(server_round)
        fit_ins = FitIns(parameters, config)
        sample_size, min_num_clients = self.num_fit_clients(client_manager.num_available())
        clients = client_manager.sample(num_clients=sample_size, min_num_clients=min_num_clients)
        return [(client, fit_ins) for client in clients]

    def configure_evaluate(self, server_round, parameters, client_manager):
        if self.fraction_evaluate == 0.0:
            return []
        config = {}
        if self.on_evaluate_config_fn is not None:
            config = self.on_evaluate_config_fn(server_round)
        evaluate_ins = EvaluateIns(parameters, config)
        sample_size, min_num_clients = self.num_evaluation_clients(client_manager.num_available())
        clients = client_manager.sample(num_clients=sample_size, min_num_clients=min_num_clients)
        return [(client, evaluate_ins) for client in clients]

    def aggregate_fit(self, server_round, results, failures):
        if not results:
            return None, {}
        if not self.accept_failures and failures:
            return None, {}
        weights_results = [(parameters_to_ndarrays(fit_res.parameters), fit_res.num_examples)
                           for _, fit_res in results]
        parameters_aggregated = ndarrays_to_parameters(aggregate(weights_results))
        metrics_aggregated = {}
        if self.fit_metrics_aggregation_fn:
            fit_metrics = [(res.num_examples, res.metrics) for _, res in results]
            metrics_aggregated = self.fit_metrics_aggregation_fn(fit_metrics)
        elif server_round == 1:
            log(WARNING, "No fit_metrics_aggregation_fn provided")
        return parameters_aggregated, metrics_aggregated

    def aggregate_evaluate(self, server_round, results, failures):
        if not results:
            return None, {}
        if not self.accept_failures and failures:
            return None, {}
        loss_aggregated = weighted_loss_avg(
            [(evaluate_res.num_examples, evaluate_res.loss) for _, evaluate_res in results])
        metrics_aggregated = {}
        if self.evaluate_metrics_aggregation_fn:
            eval_metrics = [(res.num_examples, res.metrics) for _, res in results]
            metrics_aggregated = self.evaluate_metrics_aggregation_fn(eval_metrics)
        elif server_round == 1:
            log(WARNING, "No evaluate_metrics_aggregation_fn provided")
        return loss_aggregated, metrics_aggregated
'''

SHIM["flwr/simulation/__init__.py"] = '''
from .app import start_simulation
'''

SHIM["flwr/simulation/ray_transport/__init__.py"] = ""

SHIM["flwr/simulation/ray_transport/ray_actor.py"] = '''
import contextlib
import io


class ClientAppActor:
    def __init__(self, pid):
        self.pid = pid

    def run(self, client_fn, cid, method, ins):
        buf = io.StringIO()
        try:
            with contextlib.redirect_stdout(buf):
                client = client_fn(cid)
                if hasattr(client, "to_client"):
                    client = client.to_client()
                out = getattr(client, method)(ins)
        finally:
            for line in buf.getvalue().splitlines():
                print(f"(ClientAppActor pid={self.pid}) {line}", flush=True)
        return out
'''

SHIM["flwr/simulation/ray_transport/ray_client_proxy.py"] = '''
import traceback
from logging import ERROR
from flwr.common.logger import log
from flwr.server.client_proxy import ClientProxy


class RayActorClientProxy(ClientProxy):
    def __init__(self, client_fn, cid, actor_pool):
        super().__init__(cid)
        self.client_fn = client_fn
        self.actor_pool = actor_pool

    def _submit_job(self, method, ins):
        actor = self.actor_pool[int(self.cid) % len(self.actor_pool)]
        try:
            return actor.run(self.client_fn, self.cid, method, ins)
        except Exception as ex:
            log(ERROR, traceback.format_exc())
            log(ERROR, ex)
            raise ex

    def fit(self, ins, timeout=None, group_id=None):
        return self._submit_job("fit", ins)

    def evaluate(self, ins, timeout=None, group_id=None):
        return self._submit_job("evaluate", ins)
'''

SHIM["flwr/simulation/app.py"] = '''
import datetime
import io
import random
import sys
import timeit
from logging import INFO, WARNING

from flwr.common.logger import log
from flwr.server import ServerConfig
from flwr.server.history import History
from .ray_transport.ray_actor import ClientAppActor
from .ray_transport.ray_client_proxy import RayActorClientProxy


class SimpleClientManager:
    def __init__(self, proxies):
        self.clients = {p.cid: p for p in proxies}

    def num_available(self):
        return len(self.clients)

    def sample(self, num_clients, min_num_clients=None):
        available_cids = list(self.clients)
        sampled_cids = random.sample(available_cids, num_clients)
        return [self.clients[cid] for cid in sampled_cids]


def _run_clients(instructions, method):
    results, failures = [], []
    for proxy, ins in instructions:
        try:
            res = getattr(proxy, method)(ins)
            results.append((proxy, res))
        except Exception as ex:
            failures.append(ex)
    return results, failures


def start_simulation(*, client_fn, num_clients=None, clients_ids=None, client_resources=None,
                     server=None, config=None, strategy=None, client_manager=None,
                     ray_init_args=None, keep_initialised=False, actor_type=None,
                     actor_kwargs=None, actor_scheduling="DEFAULT"):
    config = config or ServerConfig()
    client_resources = client_resources or {"num_cpus": 2, "num_gpus": 0.0}
    num_cpus = 8.0
    log(INFO, "Starting Flower simulation, config: num_rounds=%s, no round_timeout", config.num_rounds)
    now = datetime.datetime.now()
    print(now.strftime("%Y-%m-%d %H:%M:%S,") + f"{now.microsecond // 1000:03d}"
          + "\\tINFO worker.py:1771 -- Started a local Ray instance.", flush=True)
    log(INFO, "Flower VCE: Ray initialized with resources: %s",
        {"node:__internal_head__": 1.0, "CPU": num_cpus, "object_store_memory": 4107832934.0,
         "memory": 8215665869.0, "node:127.0.0.1": 1.0})
    log(INFO, "Optimize your simulation with Flower VCE: "
              "https://flower.ai/docs/framework/how-to-run-simulations.html")
    log(INFO, "Flower VCE: Resources for each Virtual Client: %s", client_resources)
    n_actors = max(1, int(num_cpus // max(client_resources.get("num_cpus", 1), 1)))
    log(INFO, "Flower VCE: Creating VirtualClientEngineActorPool with %s actors", n_actors)
    pid_rng = random.Random(num_clients * 1009 + config.num_rounds)
    base_pid = pid_rng.randint(20000, 90000)
    pool = [ClientAppActor(base_pid + 7 * i + pid_rng.randint(0, 5)) for i in range(n_actors)]
    proxies = [RayActorClientProxy(client_fn, str(i), pool) for i in range(num_clients)]
    cm = SimpleClientManager(proxies)

    history = History()
    log(INFO, "")
    log(INFO, "[INIT]")
    parameters = strategy.initialize_parameters(client_manager=cm)
    if parameters is not None:
        log(INFO, "Using initial global parameters provided by strategy")
    else:
        log(INFO, "Requesting initial parameters from one random client")
        proxy = random.choice(proxies)
        client = client_fn(proxy.cid)
        from flwr.common import ndarrays_to_parameters
        parameters = ndarrays_to_parameters(client.get_parameters({}))
        log(INFO, "Received initial parameters from one random client")
    log(INFO, "Starting evaluation of initial global parameters")
    res = strategy.evaluate(0, parameters=parameters)
    if res is not None:
        log(INFO, "initial parameters (loss, other metrics): %s, %s", res[0], res[1])
        history.add_loss_centralized(server_round=0, loss=res[0])
        history.add_metrics_centralized(server_round=0, metrics=res[1])
    else:
        log(INFO, "Evaluation returned no results (`None`)")

    start_time = timeit.default_timer()
    for current_round in range(1, config.num_rounds + 1):
        log(INFO, "")
        log(INFO, "[ROUND %s]", current_round)
        instructions = strategy.configure_fit(current_round, parameters, cm)
        if not instructions:
            log(INFO, "configure_fit: no clients selected, cancel")
        else:
            log(INFO, "configure_fit: strategy sampled %s clients (out of %s)",
                len(instructions), cm.num_available())
            results, failures = _run_clients(instructions, "fit")
            log(INFO, "aggregate_fit: received %s results and %s failures", len(results), len(failures))
            parameters_prime, fit_metrics = strategy.aggregate_fit(current_round, results, failures)
            if parameters_prime:
                parameters = parameters_prime
            history.add_metrics_distributed_fit(server_round=current_round, metrics=fit_metrics)

        res_cen = strategy.evaluate(current_round, parameters=parameters)
        if res_cen is not None:
            loss_cen, metrics_cen = res_cen
            log(INFO, "fit progress: (%s, %s, %s, %s)", current_round, loss_cen, metrics_cen,
                timeit.default_timer() - start_time)
            history.add_loss_centralized(server_round=current_round, loss=loss_cen)
            history.add_metrics_centralized(server_round=current_round, metrics=metrics_cen)

        instructions = strategy.configure_evaluate(current_round, parameters, cm)
        if not instructions:
            log(INFO, "configure_evaluate: no clients selected, skipping evaluation")
            continue
        log(INFO, "configure_evaluate: strategy sampled %s clients (out of %s)",
            len(instructions), cm.num_available())
        results, failures = _run_clients(instructions, "evaluate")
        log(INFO, "aggregate_evaluate: received %s results and %s failures", len(results), len(failures))
        loss_fed, evaluate_metrics_fed = strategy.aggregate_evaluate(current_round, results, failures)
        if loss_fed is not None:
            history.add_loss_distributed(server_round=current_round, loss=loss_fed)
            history.add_metrics_distributed(server_round=current_round, metrics=evaluate_metrics_fed)

    elapsed = timeit.default_timer() - start_time
    log(INFO, "")
    log(INFO, "[SUMMARY]")
    log(INFO, "Run finished %s round(s) in %.2fs", config.num_rounds, elapsed)
    for line in io.StringIO(str(history)):
        log(INFO, "\\t%s", line.strip("\\n"))
    log(INFO, "")
    return history
'''


# --------------------------------------------------------------------------------------------
# Synthetic data sets (numpy only, seeded)
# --------------------------------------------------------------------------------------------
class BlobTask:
    """Gaussian class clusters in d dims, mixed by a random linear map (make_classification-like)."""

    def __init__(self, seed, d, k, sep=2.0, noise=1.0):
        r = np.random.default_rng(seed)
        self.k = k
        self.centers = r.normal(0.0, sep, (k, d))
        self.mix = np.eye(d) + 0.3 * r.normal(0.0, 1.0, (d, d)) / np.sqrt(d)
        self.noise = noise

    def sample(self, rng, n, classes=None, probs=None):
        if classes is None:
            y = rng.integers(0, self.k, n)
        else:
            y = rng.choice(np.asarray(classes), size=n, p=probs)
        x = self.centers[y] + rng.normal(0.0, self.noise, (n, self.centers.shape[1]))
        x = x @ self.mix
        return x.astype(np.float32), y.astype(np.int64)


def shapes_images(rng, n, size=12, noise=0.3):
    """1-channel size x size images of 4 classes: horizontal bar, vertical bar, diagonal, box."""
    x = rng.normal(0.0, noise, (n, 1, size, size)).astype(np.float32)
    y = rng.integers(0, 4, n)
    for i in range(n):
        a = rng.uniform(1.2, 2.0)
        r0, c0 = rng.integers(1, size - 5, 2)
        L = rng.integers(4, 7)
        if y[i] == 0:
            x[i, 0, r0 + 2, c0:c0 + L] += a
        elif y[i] == 1:
            x[i, 0, r0:r0 + L, c0 + 2] += a
        elif y[i] == 2:
            for t in range(min(L, size - max(r0, c0))):
                x[i, 0, r0 + t, c0 + t] += a
        else:
            x[i, 0, r0, c0:c0 + 4] += a
            x[i, 0, r0 + 3, c0:c0 + 4] += a
            x[i, 0, r0:r0 + 4, c0] += a
            x[i, 0, r0:r0 + 4, c0 + 3] += a
    return x, y.astype(np.int64)


def iid_split(rng, n, parts):
    idx = rng.permutation(n)
    return np.array_split(idx, parts)


def dirichlet_split(rng, y, parts, alpha, min_size=10):
    k = int(y.max()) + 1
    while True:
        buckets = [[] for _ in range(parts)]
        for c in range(k):
            idx = rng.permutation(np.where(y == c)[0])
            p = rng.dirichlet(alpha * np.ones(parts))
            cuts = (np.cumsum(p) * len(idx)).astype(int)[:-1]
            for b, chunk in zip(buckets, np.split(idx, cuts)):
                b.extend(chunk.tolist())
        if min(len(b) for b in buckets) >= min_size:
            return [np.array(rng.permutation(b)) for b in buckets]


def save_npz(folder, name, **arrays):
    os.makedirs(folder, exist_ok=True)
    np.savez(os.path.join(folder, name), **arrays)


RUNS = {}


def register(name, **spec):
    RUNS[name] = spec


# ============================================================================================
# run01: overfitting.  128x128 MLP, 60-sample client shards, 40 local epochs per round.
# ============================================================================================
def _data_run01(folder):
    rng = np.random.default_rng(101)
    task = BlobTask(101, d=10, k=3, sep=0.7, noise=1.0)
    for cid in range(6):
        x, y = task.sample(rng, 60)
        xv, yv = task.sample(rng, 40)
        save_npz(os.path.join(folder, "data"), f"client_{cid}.npz", x_train=x, y_train=y, x_val=xv, y_val=yv)
    xt, yt = task.sample(rng, 2000)
    save_npz(os.path.join(folder, "data"), "val.npz", x=xt, y=yt)


_CFG_run01 = '''
# FedAvg, small cohorts
num_clients: 6
num_rounds: 25
clients_per_round: 6
local_epochs: 40
batch_size: 32
client_optimizer:
  name: adam
  lr: 0.001
model:
  name: mlp
  hidden_sizes: [128, 128]
  dropout: 0.0
seed: 3
'''

_SCRIPT_run01 = '''
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
cfg = yaml.safe_load(open("conf/base.yaml"))
random.seed(cfg["seed"]); np.random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])


def net():
    h1, h2 = cfg["model"]["hidden_sizes"]
    return nn.Sequential(nn.Linear(10, h1), nn.ReLU(), nn.Dropout(cfg["model"]["dropout"]),
                         nn.Linear(h1, h2), nn.ReLU(), nn.Linear(h2, 3))


def get_params(m):
    return [p.detach().cpu().numpy() for p in m.state_dict().values()]


def put_params(m, params):
    m.load_state_dict(OrderedDict({k: torch.tensor(v) for k, v in zip(m.state_dict().keys(), params)}))


def run_eval(m, loader):
    m.eval()
    tot, corr, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            o = m(x)
            tot += nn.functional.cross_entropy(o, y, reduction="sum").item()
            corr += (o.argmax(1) == y).sum().item()
            n += len(y)
    return tot / n, corr / n


class C(fl.client.NumPyClient):
    def __init__(self, cid):
        d = np.load(f"data/client_{cid}.npz")
        self.cid = cid
        self.tl = DataLoader(TensorDataset(torch.tensor(d["x_train"]), torch.tensor(d["y_train"])),
                             batch_size=cfg["batch_size"], shuffle=True)
        self.vl = DataLoader(TensorDataset(torch.tensor(d["x_val"]), torch.tensor(d["y_val"])), batch_size=64)
        self.m = net()

    def fit(self, parameters, config):
        put_params(self.m, parameters)
        opt = torch.optim.Adam(self.m.parameters(), lr=cfg["client_optimizer"]["lr"])
        for e in range(cfg["local_epochs"]):
            self.m.train()
            for x, y in self.tl:
                opt.zero_grad()
                nn.functional.cross_entropy(self.m(x), y).backward()
                opt.step()
        tr_loss, tr_acc = run_eval(self.m, self.tl)
        print(f"[client {self.cid}] round {config['server_round']} local_epochs={cfg['local_epochs']} "
              f"train_loss={tr_loss:.5f} train_acc={tr_acc:.3f}")
        return get_params(self.m), len(self.tl.dataset), {"train_loss": tr_loss, "train_acc": tr_acc}

    def evaluate(self, parameters, config):
        put_params(self.m, parameters)
        loss, acc = run_eval(self.m, self.vl)
        return loss, len(self.vl.dataset), {"acc": acc}


val = np.load("data/val.npz")
val_loader = DataLoader(TensorDataset(torch.tensor(val["x"]), torch.tensor(val["y"])), batch_size=500)


def evaluate_fn(server_round, parameters, config):
    m = net()
    put_params(m, parameters)
    loss, acc = run_eval(m, val_loader)
    return loss, {"val_acc": acc}


def avg(metrics):
    n = sum(k for k, _ in metrics)
    keys = metrics[0][1].keys()
    return {key: sum(k * m[key] for k, m in metrics) / n for key in keys}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=cfg["clients_per_round"] / cfg["num_clients"],
    fraction_evaluate=1.0,
    min_available_clients=cfg["num_clients"],
    evaluate_fn=evaluate_fn,
    on_fit_config_fn=lambda r: {"server_round": r},
    fit_metrics_aggregation_fn=avg,
    evaluate_metrics_aggregation_fn=avg,
    initial_parameters=ndarrays_to_parameters(get_params(net())),
)
fl.simulation.start_simulation(
    client_fn=lambda cid: C(cid).to_client(),
    num_clients=cfg["num_clients"],
    config=fl.server.ServerConfig(num_rounds=cfg["num_rounds"]),
    strategy=strategy,
)
'''

register(
    "run01",
    truth="overfitting",
    symptom="Validation accuracy is best after the first couple of rounds and then slowly gets worse while the validation loss keeps going up; the clients' training loss is basically zero.",
    how="local_epochs: 40 with Adam on 60-sample client shards and a 128x128 MLP: every round each client memorises its shard; "
        "server val loss bottoms out after round 1 (0.37) and climbs every round to 1.40 at round 25 while val accuracy slides from 0.863 to 0.851.",
    project="/home/tomasz/fedavg-small",
    data=_data_run01,
    files={"conf/base.yaml": _CFG_run01},
    executions=[(_SCRIPT_run01, "train_log.txt", ["train.py"])],
    ship=["conf/base.yaml"],
)


# ============================================================================================
# run02: healthy but noisy/slow.  Non-IID (Dirichlet 0.3), 5 of 20 clients per round, plain SGD.
# ============================================================================================
def _data_run02(folder):
    rng = np.random.default_rng(202)
    task = BlobTask(202, d=32, k=10, sep=0.55, noise=1.0)
    x, y = task.sample(rng, 6000)
    xt, yt = task.sample(rng, 2000)
    save_npz(os.path.join(folder, "data"), "pool.npz", x=x, y=y)
    save_npz(os.path.join(folder, "data"), "test.npz", x=xt, y=yt)


_RUNSH_run02 = '''
#!/usr/bin/env bash
set -e
python train.py \\
  --num-clients 20 \\
  --fraction-fit 0.25 \\
  --rounds 60 \\
  --local-epochs 1 \\
  --batch-size 32 \\
  --lr 0.05 \\
  --alpha 0.3 \\
  --seed 1 2>&1 | tee run.log
'''

_SCRIPT_run02 = '''
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
'''

register(
    "run02",
    truth="healthy",
    symptom="Accuracy zig-zags a lot from round to round and climbs really slowly compared to my centralized baseline. Is something wrong with my FedAvg setup?",
    how="No fault: label-skewed Dirichlet(0.3) partitions, 5 of 20 clients sampled per round, plain SGD lr 0.05, 1 local epoch. "
        "Round-to-round swings come from which clients are sampled; the trend is steadily up.",
    project="/home/sam/fl-noniid",
    data=_data_run02,
    files={"run.sh": _RUNSH_run02},
    executions=[(_SCRIPT_run02, "run.log", ["train.py", "--num-clients", "20", "--fraction-fit", "0.25",
                                            "--rounds", "60", "--local-epochs", "1", "--batch-size", "32",
                                            "--lr", "0.05", "--alpha", "0.3", "--seed", "1"])],
    ship=["run.sh", "train.py"],
)


# ============================================================================================
# run03: nan_in_data.  Tabular sensor MLP, 12 clients, one client's shard holds NaN readings.
# ============================================================================================
_NAN_CLIENT_run03 = 7


def _data_run03(folder):
    rng = np.random.default_rng(303)
    task = BlobTask(303, d=12, k=3, sep=1.2, noise=1.0)
    scale = np.array([20.0, 1.0, 5.0, 0.5, 60.0, 2.0, 1.0, 10.0, 3.0, 1.0, 8.0, 0.2], np.float32)
    offset = np.array([25.0, 0.0, 101.0, 3.0, 480.0, 12.0, 0.0, 55.0, 7.0, 1.0, 30.0, 0.5], np.float32)
    cols = ["temp", "vib_x", "pressure", "current", "rpm", "torque", "vib_y", "humidity",
            "voltage", "vib_z", "flow", "duty"]
    for cid in range(12):
        n = int(rng.integers(260, 420))
        x, y = task.sample(rng, n)
        x = x * scale + offset
        if cid == _NAN_CLIENT_run03:
            rows = rng.choice(n, size=5, replace=False)
            x[rows, cols.index("humidity")] = np.nan
        save_npz(os.path.join(folder, "data"), f"site_{cid:02d}.npz", x=x, y=y)
    xt, yt = task.sample(rng, 1200)
    save_npz(os.path.join(folder, "data"), "holdout.npz", x=xt * scale + offset, y=yt)
    # population statistics published with the data set
    xs, _ = task.sample(np.random.default_rng(1), 20000)
    xs = xs * scale + offset
    np.savez(os.path.join(folder, "data", "feature_stats.npz"), mean=xs.mean(0), std=xs.std(0))


_CFG_run03 = '''
[project]
name = "predictive-maintenance-fl"
version = "0.3.0"
dependencies = ["flwr[simulation]==1.9.0", "torch>=2.1", "numpy"]

[tool.flwr.app.config]
num-server-rounds = 20
fraction-fit = 0.5
fraction-evaluate = 0.0
local-epochs = 2
batch-size = 32
lr = 0.01
momentum = 0.9
hidden-dim = 64

[tool.flwr.federations.local-simulation]
options.num-supernodes = 12
'''

_SCRIPT_run03 = '''
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
cfg = tomllib.load(open("pyproject.toml", "rb"))["tool"]["flwr"]
run_cfg = cfg["app"]["config"]
N_CLIENTS = cfg["federations"]["local-simulation"]["options"]["num-supernodes"]
random.seed(42)
np.random.seed(42)
torch.manual_seed(42)

stats = np.load("data/feature_stats.npz")
MEAN = torch.tensor(stats["mean"], dtype=torch.float32)
STD = torch.tensor(stats["std"], dtype=torch.float32)


def model_fn():
    h = run_cfg["hidden-dim"]
    return nn.Sequential(nn.Linear(12, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 3))


def to_loader(x, y, bs, shuffle):
    x = (torch.from_numpy(x) - MEAN) / STD
    return DataLoader(TensorDataset(x, torch.from_numpy(y)), batch_size=bs, shuffle=shuffle)


def get_w(m):
    return [v.numpy() for v in m.state_dict().values()]


def set_w(m, w):
    m.load_state_dict(OrderedDict((k, torch.tensor(v)) for k, v in zip(m.state_dict(), w)))


class SiteClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = int(cid)
        d = np.load(f"data/site_{self.cid:02d}.npz")
        self.loader = to_loader(d["x"], d["y"], run_cfg["batch-size"], True)
        self.model = model_fn()

    def fit(self, parameters, config):
        set_w(self.model, parameters)
        opt = torch.optim.SGD(self.model.parameters(), lr=config["lr"], momentum=run_cfg["momentum"])
        lossf = nn.CrossEntropyLoss()
        self.model.train()
        for ep in range(config["local_epochs"]):
            tot, correct, n = 0.0, 0, 0
            for xb, yb in self.loader:
                opt.zero_grad()
                out = self.model(xb)
                loss = lossf(out, yb)
                loss.backward()
                opt.step()
                tot += loss.item() * len(yb)
                correct += (out.argmax(1) == yb).sum().item()
                n += len(yb)
            print(f"site {self.cid:02d} | round {config['round']} | epoch {ep+1}/{config['local_epochs']} | "
                  f"loss {tot/n:.4f} | acc {correct/n:.3f}")
        return get_w(self.model), n, {"loss": tot / n, "acc": correct / n}


def client_fn(cid):
    return SiteClient(cid).to_client()


hold = np.load("data/holdout.npz")
hold_loader = to_loader(hold["x"], hold["y"], 256, False)


def server_eval(rnd, parameters, config):
    m = model_fn()
    set_w(m, parameters)
    m.eval()
    loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for xb, yb in hold_loader:
            out = m(xb)
            loss += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(1) == yb).sum().item()
            n += len(yb)
    return loss / n, {"accuracy": correct / n}


def agg_fit(metrics):
    n = sum(k for k, _ in metrics)
    return {"train_loss": sum(k * m["loss"] for k, m in metrics) / n,
            "train_acc": sum(k * m["acc"] for k, m in metrics) / n}


sizes = [len(np.load(f"data/site_{i:02d}.npz")["y"]) for i in range(N_CLIENTS)]
print(f"loaded {N_CLIENTS} sites, samples per site: {sizes}")

strategy = fl.server.strategy.FedAvg(
    fraction_fit=run_cfg["fraction-fit"],
    fraction_evaluate=run_cfg["fraction-evaluate"],
    min_available_clients=N_CLIENTS,
    evaluate_fn=server_eval,
    on_fit_config_fn=lambda r: {"round": r, "lr": run_cfg["lr"], "local_epochs": run_cfg["local-epochs"]},
    fit_metrics_aggregation_fn=agg_fit,
    initial_parameters=ndarrays_to_parameters(get_w(model_fn())),
)
fl.simulation.start_simulation(
    client_fn=client_fn,
    num_clients=N_CLIENTS,
    config=fl.server.ServerConfig(num_rounds=run_cfg["num-server-rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
'''

register(
    "run03",
    truth="nan_in_data",
    symptom="Server-side loss suddenly turns into nan a few rounds in and never comes back; accuracy drops to about a third and stays there.",
    how=f"Five rows of site {_NAN_CLIENT_run03:02d}'s shard have NaN in the humidity column; the first round that site is "
        "sampled its local loss is nan, and the averaged model becomes NaN for every later round.",
    project="/home/priya/pm-federated",
    data=_data_run03,
    files={"pyproject.toml": _CFG_run03},
    executions=[(_SCRIPT_run03, "output.txt", ["train.py"])],
    ship=["pyproject.toml"],
)


# ============================================================================================
# run04: frozen_parameters.  Clients train, but the strategy hands back the server's own
#        (never updated) weights instead of the average.
# ============================================================================================
def _data_run04(folder):
    rng = np.random.default_rng(404)
    x, y = shapes_images(rng, 2400)
    xt, yt = shapes_images(rng, 800)
    for cid, idx in enumerate(iid_split(rng, len(y), 8)):
        save_npz(os.path.join(folder, "data"), f"client_{cid}.npz", x=x[idx], y=y[idx])
    save_npz(os.path.join(folder, "data"), "test.npz", x=xt, y=yt)


_CFG_run04 = '''
[tool.flwr.app.config]
num-server-rounds = 15
fraction-fit = 0.5
fraction-evaluate = 0.5
local-epochs = 3
batch-size = 32
learning-rate = 0.05
checkpoint-dir = "checkpoints"

[tool.flwr.federations.local-simulation]
options.num-supernodes = 8
'''

_SCRIPT_run04 = '''
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
'''

register(
    "run04",
    truth="frozen_parameters",
    symptom="The global model doesn't improve at all: test loss and accuracy are the same every single round, even though every client's training loss goes down during its local epochs.",
    how="Custom FedAvgWithCheckpoints.aggregate_fit writes the averaged arrays into the dict returned by net.state_dict() "
        "(which does not load them into the module) and then returns get_weights(self.net), i.e. the untouched initial "
        "weights. The server never applies the average; every round starts from the initial model.",
    project="/home/jo/fl-shapes-ckpt",
    data=_data_run04,
    files={"pyproject.toml": _CFG_run04},
    executions=[(_SCRIPT_run04, "flwr_run.log", ["train.py"])],
    ship=["pyproject.toml", "train.py"],
)


# ============================================================================================
# run05: lr_too_high.  MLP on 20-d blobs, client Adam lr 0.1.  Hydra-style main.log only.
# ============================================================================================
def _data_run05(folder):
    rng = np.random.default_rng(505)
    task = BlobTask(505, d=20, k=5, sep=0.6, noise=1.0)
    for cid in range(10):
        x, y = task.sample(rng, 240)
        save_npz(os.path.join(folder, "data"), f"client_{cid}.npz", x=x, y=y)
    xt, yt = task.sample(rng, 1500)
    save_npz(os.path.join(folder, "data"), "server_test.npz", x=xt, y=yt)


_CFG_run05 = '''
---
num_clients: 10
num_rounds: 25
num_clients_per_round_fit: 10
num_clients_per_round_eval: 5
seed: 17

dataset:
  name: blobs20
  num_classes: 5
  input_dim: 20

config_fit:
  optimizer: adam
  lr: 0.1
  local_epochs: 2
  batch_size: 32

model:
  _target_: model.MLP
  hidden: [64, 64]

strategy:
  _target_: flwr.server.strategy.FedAvg
  fraction_fit: 0.00001
  min_fit_clients: ${num_clients_per_round_fit}
  fraction_evaluate: 0.00001
  min_evaluate_clients: ${num_clients_per_round_eval}
  min_available_clients: ${num_clients}
'''


_SCRIPT_run05 = '''
import logging
import os
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
RUN_DIR = "."
os.makedirs(os.path.join(RUN_DIR, ".hydra"), exist_ok=True)
_fh = logging.FileHandler(os.path.join(RUN_DIR, "main.log"), mode="w")
_fh.setFormatter(logging.Formatter("[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"))
logging.getLogger("flwr").addHandler(_fh)
log = logging.getLogger("flwr")

with open("conf/base.yaml") as f:
    cfg = yaml.safe_load(f)
with open(os.path.join(RUN_DIR, ".hydra", "config.yaml"), "w") as f:
    yaml.safe_dump(cfg, f, sort_keys=False)

random.seed(cfg["seed"])
np.random.seed(cfg["seed"])
torch.manual_seed(cfg["seed"])


class MLP(nn.Module):
    def __init__(self, input_dim, hidden, num_classes):
        super().__init__()
        layers, d = [], input_dim
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU()]
            d = h
        layers.append(nn.Linear(d, num_classes))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def make_model():
    return MLP(cfg["dataset"]["input_dim"], cfg["model"]["hidden"], cfg["dataset"]["num_classes"])


def get_params(model):
    return [v.cpu().numpy() for v in model.state_dict().values()]


def set_params(model, params):
    sd = OrderedDict((k, torch.tensor(v)) for k, v in zip(model.state_dict().keys(), params))
    model.load_state_dict(sd, strict=True)


def train(model, loader, epochs, lr):
    if cfg["config_fit"]["optimizer"] == "adam":
        opt = torch.optim.Adam(model.parameters(), lr=lr)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    model.train()
    total_loss, n, max_gn = 0.0, 0, 0.0
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = crit(model(x), y)
            loss.backward()
            gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item()
            max_gn = max(max_gn, gn)
            opt.step()
            total_loss += loss.item() * len(y)
            n += len(y)
    return total_loss / n, max_gn


def test(model, loader):
    crit = nn.CrossEntropyLoss(reduction="sum")
    model.eval()
    loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            loss += crit(out, y).item()
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    return loss / n, correct / n


class FlowerClient(fl.client.NumPyClient):
    def __init__(self, trainloader, valloader):
        self.model = make_model()
        self.trainloader = trainloader
        self.valloader = valloader

    def fit(self, parameters, config):
        set_params(self.model, parameters)
        loss, gn = train(self.model, self.trainloader, config["local_epochs"], config["lr"])
        return get_params(self.model), len(self.trainloader.dataset), {"train_loss": loss, "max_grad_norm": gn}

    def evaluate(self, parameters, config):
        set_params(self.model, parameters)
        loss, acc = test(self.model, self.valloader)
        return float(loss), len(self.valloader.dataset), {"accuracy": acc}


def generate_client_fn():
    def client_fn(cid: str):
        d = np.load(f"data/client_{cid}.npz")
        x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
        n_val = len(y) // 10
        trainloader = DataLoader(TensorDataset(x[n_val:], y[n_val:]),
                                 batch_size=cfg["config_fit"]["batch_size"], shuffle=True)
        valloader = DataLoader(TensorDataset(x[:n_val], y[:n_val]), batch_size=64)
        return FlowerClient(trainloader, valloader).to_client()
    return client_fn


def get_on_fit_config():
    def fit_config_fn(server_round: int):
        return {"lr": cfg["config_fit"]["lr"], "local_epochs": cfg["config_fit"]["local_epochs"]}
    return fit_config_fn


def get_evaluate_fn():
    d = np.load("data/server_test.npz")
    testloader = DataLoader(TensorDataset(torch.from_numpy(d["x"]), torch.from_numpy(d["y"])), batch_size=256)

    def evaluate_fn(server_round, parameters, config):
        model = make_model()
        set_params(model, parameters)
        loss, acc = test(model, testloader)
        return loss, {"accuracy": acc}
    return evaluate_fn


def fit_metrics_agg(metrics):
    n = sum(k for k, _ in metrics)
    return {"train_loss": sum(k * m["train_loss"] for k, m in metrics) / n,
            "max_grad_norm": max(m["max_grad_norm"] for _, m in metrics)}


def eval_metrics_agg(metrics):
    n = sum(k for k, _ in metrics)
    return {"accuracy": sum(k * m["accuracy"] for k, m in metrics) / n}


s = cfg["strategy"]
strategy = fl.server.strategy.FedAvg(
    fraction_fit=s["fraction_fit"],
    min_fit_clients=cfg["num_clients_per_round_fit"],
    fraction_evaluate=s["fraction_evaluate"],
    min_evaluate_clients=cfg["num_clients_per_round_eval"],
    min_available_clients=cfg["num_clients"],
    on_fit_config_fn=get_on_fit_config(),
    evaluate_fn=get_evaluate_fn(),
    fit_metrics_aggregation_fn=fit_metrics_agg,
    evaluate_metrics_aggregation_fn=eval_metrics_agg,
    initial_parameters=ndarrays_to_parameters(get_params(make_model())),
)

history = fl.simulation.start_simulation(
    client_fn=generate_client_fn(),
    num_clients=cfg["num_clients"],
    config=fl.server.ServerConfig(num_rounds=cfg["num_rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 2, "num_gpus": 0.0},
)
'''

register(
    "run05",
    truth="lr_too_high",
    symptom="Global test loss dropped in the first rounds, then bounced around and kept climbing (0.37 at round 2, ~1.8 by round 25), and the clients' average train loss goes up too instead of down.",
    how="Client Adam lr 0.1 (config_fit.lr in conf/base.yaml), about 100x a sane Adam lr; fresh Adam every round, 2 local epochs.",
    project="/home/lukas/fl-baselines/fedavg_blobs",
    data=_data_run05,
    files={"conf/base.yaml": _CFG_run05},
    executions=[(_SCRIPT_run05, None, ["train.py"])],
    ship=["conf/base.yaml", "main.log"],
)


# ============================================================================================
# run06: metric_changed.  Same seed/data/model twice; the refactor replaced the example-weighted
#        accuracy aggregation by a plain mean over clients.
# ============================================================================================
_SIZES_run06 = [900, 750, 650, 600, 70, 60, 50, 40]


def _data_run06(folder):
    rng = np.random.default_rng(606)
    task = BlobTask(606, d=20, k=5, sep=0.7, noise=1.0)
    hard = BlobTask(606, d=20, k=5, sep=0.7, noise=2.6)
    for cid, n in enumerate(_SIZES_run06):
        src = task if n > 100 else hard
        x, y = src.sample(rng, n)
        save_npz(os.path.join(folder, "data"), f"device_{cid}.npz", x=x, y=y)


_CFG_run06 = '''
[tool.flwr.app.config]
num-server-rounds = 20
fraction-fit = 1.0
fraction-evaluate = 1.0
local-epochs = 1
batch-size = 32
lr = 0.05
val-fraction = 0.2
seed = 1234

[tool.flwr.federations.local-simulation]
options.num-supernodes = 8
'''

_SCRIPT_run06_after = '''
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
'''

_SCRIPT_run06_before = _SCRIPT_run06_after.replace('''def aggregate_accuracy(metrics: List[Tuple[int, Metrics]]) -> Metrics:
    accuracies = [m["accuracy"] for _, m in metrics]
    return {"accuracy": float(np.mean(accuracies))}''', '''def weighted_average(metrics: List[Tuple[int, Metrics]]) -> Metrics:
    accuracies = [num_examples * m["accuracy"] for num_examples, m in metrics]
    examples = [num_examples for num_examples, _ in metrics]
    return {"accuracy": sum(accuracies) / sum(examples)}''').replace(
    "evaluate_metrics_aggregation_fn=aggregate_accuracy,", "evaluate_metrics_aggregation_fn=weighted_average,")
assert _SCRIPT_run06_before != _SCRIPT_run06_after and "weighted_average," in _SCRIPT_run06_before

register(
    "run06",
    truth="metric_changed",
    symptom="After I cleaned up the server code, federated accuracy dropped from ~0.90 to ~0.76 with the same seed, same data and same config. What broke in the model?",
    how="The refactor replaced the example-weighted evaluate_metrics_aggregation_fn (weighted_average) by "
        "aggregate_accuracy = plain np.mean over clients. Device sizes are very unequal (900..40) and the small devices "
        "are harder, so the unweighted mean is lower. Training is bit-identical: both logs have the same losses.",
    project="/home/marta/edge-fl",
    data=_data_run06,
    files={"pyproject.toml": _CFG_run06},
    executions=[(_SCRIPT_run06_before, "logs/before_refactor.log", ["train.py"]),
                (_SCRIPT_run06_after, "logs/after_refactor.log", ["train.py"])],
    ship=["pyproject.toml", "train.py"],
)


# ============================================================================================
# run07: label_noise.  MLP on 16-d blobs, 8 clients; 4 clients have 70% of labels flipped c->c+1.
# ============================================================================================
_NOISY_run07 = (1, 3, 4, 6)
_FLIP_run07 = 0.7


def _data_run07(folder):
    rng = np.random.default_rng(707)
    task = BlobTask(707, d=16, k=4, sep=0.8, noise=1.0)
    for cid in range(8):
        x, y = task.sample(rng, 500)
        if cid in _NOISY_run07:
            m = rng.random(len(y)) < _FLIP_run07
            y = y.copy()
            y[m] = (y[m] + 1) % 4
        save_npz(os.path.join(folder, "data"), f"clinic{cid}.npz", x=x, y=y)
    xt, yt = task.sample(rng, 2000)
    save_npz(os.path.join(folder, "data"), "test.npz", x=xt, y=yt)


_CFG_run07 = '''
experiment: fedavg-mlp-4class
seed: 7
data_dir: data
num_clients: 8
server:
  num_rounds: 30
  fraction_fit: 1.0
  fraction_evaluate: 1.0
client:
  local_epochs: 2
  batch_size: 50
  optimizer: sgd
  lr: 0.02
  momentum: 0.9
  weight_decay: 0.0
model:
  hidden: 64
  layers: 2
'''

_SCRIPT_run07 = '''
import json
import random

import numpy as np
import torch
import torch.nn as nn
import yaml
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
random.seed(cfg["seed"])
np.random.seed(cfg["seed"])
torch.manual_seed(cfg["seed"])


def build_model():
    h = cfg["model"]["hidden"]
    return nn.Sequential(nn.Linear(16, h), nn.ReLU(), nn.Linear(h, h), nn.ReLU(), nn.Linear(h, 4))


def weights_of(model):
    return [t.detach().numpy().copy() for t in model.state_dict().values()]


def load_weights(model, weights):
    keys = list(model.state_dict().keys())
    model.load_state_dict({k: torch.from_numpy(np.array(w)) for k, w in zip(keys, weights)})


def evaluate_model(model, loader):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            logits = model(x)
            loss_sum += nn.functional.cross_entropy(logits, y, reduction="sum").item()
            correct += (logits.argmax(-1) == y).sum().item()
            n += y.numel()
    return loss_sum / n, correct / n


class Client(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = cid
        arr = np.load(f"{cfg['data_dir']}/clinic{cid}.npz")
        x, y = torch.tensor(arr["x"]), torch.tensor(arr["y"])
        n_val = int(0.2 * len(y))
        self.train_loader = DataLoader(TensorDataset(x[n_val:], y[n_val:]),
                                       batch_size=cfg["client"]["batch_size"], shuffle=True)
        self.val_loader = DataLoader(TensorDataset(x[:n_val], y[:n_val]), batch_size=200)
        self.model = build_model()

    def fit(self, parameters, config):
        load_weights(self.model, parameters)
        c = cfg["client"]
        opt = torch.optim.SGD(self.model.parameters(), lr=c["lr"], momentum=c["momentum"],
                              weight_decay=c["weight_decay"])
        for epoch in range(c["local_epochs"]):
            self.model.train()
            for x, y in self.train_loader:
                opt.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                opt.step()
        train_loss, train_acc = evaluate_model(self.model, self.train_loader)
        print(f"Client {self.cid} round {config['round']}: train_loss={train_loss:.4f} train_acc={train_acc:.4f}")
        return weights_of(self.model), len(self.train_loader.dataset), {"train_loss": train_loss,
                                                                         "train_acc": train_acc}

    def evaluate(self, parameters, config):
        load_weights(self.model, parameters)
        loss, acc = evaluate_model(self.model, self.val_loader)
        return loss, len(self.val_loader.dataset), {"val_acc": acc}


def weighted(key):
    def agg(metrics):
        total = sum(n for n, _ in metrics)
        return {key: sum(n * m[key] for n, m in metrics) / total}
    return agg


def fit_agg(metrics):
    total = sum(n for n, _ in metrics)
    return {k: sum(n * m[k] for n, m in metrics) / total for k in ("train_loss", "train_acc")}


test = np.load(f"{cfg['data_dir']}/test.npz")
test_loader = DataLoader(TensorDataset(torch.tensor(test["x"]), torch.tensor(test["y"])), batch_size=500)


def central_eval(server_round, parameters, config):
    model = build_model()
    load_weights(model, parameters)
    loss, acc = evaluate_model(model, test_loader)
    return loss, {"test_acc": acc}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=cfg["server"]["fraction_fit"],
    fraction_evaluate=cfg["server"]["fraction_evaluate"],
    min_available_clients=cfg["num_clients"],
    on_fit_config_fn=lambda rnd: {"round": rnd},
    evaluate_fn=central_eval,
    fit_metrics_aggregation_fn=fit_agg,
    evaluate_metrics_aggregation_fn=weighted("val_acc"),
    initial_parameters=ndarrays_to_parameters(weights_of(build_model())),
)
hist = fl.simulation.start_simulation(
    client_fn=lambda cid: Client(cid).to_client(),
    num_clients=cfg["num_clients"],
    config=fl.server.ServerConfig(num_rounds=cfg["server"]["num_rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1},
)
with open("history.json", "w") as f:
    json.dump({"loss_centralized": hist.losses_centralized,
               "loss_distributed": hist.losses_distributed,
               "metrics_centralized": hist.metrics_centralized,
               "metrics_distributed_fit": hist.metrics_distributed_fit,
               "metrics_distributed": hist.metrics_distributed}, f, indent=1)
'''

register(
    "run07",
    truth="label_noise",
    symptom="Training plateaus: aggregated train accuracy is stuck around 0.82 and the test loss won't go below ~0.37, even after 30 rounds. More rounds don't help.",
    how=f"Clients {list(_NOISY_run07)} have {int(_FLIP_run07*100)}% of their training labels flipped to the next class "
        "(c -> c+1 mod 4), data-side only; code and config are clean and the server test set is clean.",
    project="/home/ana/fl-tabular",
    data=_data_run07,
    files={"config.yaml": _CFG_run07},
    executions=[(_SCRIPT_run07, "log.txt", ["train.py"])],
    ship=["config.yaml", "history.json"],
)


# ============================================================================================
# run08: healthy, converges well.  Small CNN on 12x12 shape images, 10 IID clients.
# ============================================================================================
def _data_run08(folder):
    rng = np.random.default_rng(808)
    x, y = shapes_images(rng, 3000)
    xt, yt = shapes_images(rng, 1000)
    for cid, idx in enumerate(iid_split(rng, len(y), 10)):
        n_val = len(idx) // 10
        save_npz(os.path.join(folder, "data"), f"partition_{cid}.npz",
                 x_train=x[idx[n_val:]], y_train=y[idx[n_val:]],
                 x_val=x[idx[:n_val]], y_val=y[idx[:n_val]])
    save_npz(os.path.join(folder, "data"), "test.npz", x=xt, y=yt)


_CFG_run08 = '''
[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "shapes-fedavg"
version = "1.0.0"
description = "FedAvg on a small shapes dataset"
dependencies = [
    "flwr[simulation]>=1.9.0",
    "torch==2.2.1",
    "numpy",
]

[tool.hatch.build.targets.wheel]
packages = ["."]

[tool.flwr.app]
publisher = "kwame"

[tool.flwr.app.config]
num-server-rounds = 15
fraction-fit = 1.0
fraction-evaluate = 0.5
local-epochs = 2
lr = 0.05
momentum = 0.9
batch-size = 32

[tool.flwr.federations]
default = "local-simulation"

[tool.flwr.federations.local-simulation]
options.num-supernodes = 10
'''

_SCRIPT_run08 = '''
import random
import tomllib
from collections import OrderedDict
from typing import List, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import Metrics, ndarrays_to_parameters

torch.set_num_threads(1)

with open("pyproject.toml", "rb") as f:
    pyproject = tomllib.load(f)
cfg = pyproject["tool"]["flwr"]["app"]["config"]
NUM_CLIENTS = pyproject["tool"]["flwr"]["federations"]["local-simulation"]["options"]["num-supernodes"]

random.seed(0)
np.random.seed(0)
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(16 * 3 * 3, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def get_weights(net):
    return [val.cpu().numpy() for _, val in net.state_dict().items()]


def set_weights(net, parameters):
    params_dict = zip(net.state_dict().keys(), parameters)
    state_dict = OrderedDict({k: torch.tensor(v) for k, v in params_dict})
    net.load_state_dict(state_dict, strict=True)


def load_datasets(partition_id: int):
    d = np.load(f"data/partition_{partition_id}.npz")
    trainset = TensorDataset(torch.from_numpy(d["x_train"]), torch.from_numpy(d["y_train"]))
    valset = TensorDataset(torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"]))
    trainloader = DataLoader(trainset, batch_size=cfg["batch-size"], shuffle=True)
    valloader = DataLoader(valset, batch_size=64)
    return trainloader, valloader


def train(net, trainloader, epochs: int, lr: float):
    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=cfg["momentum"])
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
            correct += (torch.max(outputs.data, 1)[1] == labels).sum().item()
        epoch_loss /= total
        epoch_acc = correct / total
        print(f"Epoch {epoch+1}: train loss {epoch_loss}, accuracy {epoch_acc}")
    return epoch_loss


def test(net, testloader):
    criterion = torch.nn.CrossEntropyLoss(reduction="sum")
    correct, total, loss = 0, 0, 0.0
    net.eval()
    with torch.no_grad():
        for images, labels in testloader:
            outputs = net(images)
            loss += criterion(outputs, labels).item()
            _, predicted = torch.max(outputs.data, 1)
            total += labels.size(0)
            correct += (predicted == labels).sum().item()
    return loss / total, correct / total


class FlowerClient(fl.client.NumPyClient):
    def __init__(self, cid, net, trainloader, valloader):
        self.cid = cid
        self.net = net
        self.trainloader = trainloader
        self.valloader = valloader

    def get_parameters(self, config):
        print(f"[Client {self.cid}] get_parameters")
        return get_weights(self.net)

    def fit(self, parameters, config):
        print(f"[Client {self.cid}] fit, config: {config}")
        set_weights(self.net, parameters)
        train_loss = train(self.net, self.trainloader, epochs=config["local_epochs"], lr=config["lr"])
        return get_weights(self.net), len(self.trainloader.dataset), {"train_loss": train_loss}

    def evaluate(self, parameters, config):
        print(f"[Client {self.cid}] evaluate, config: {config}")
        set_weights(self.net, parameters)
        loss, accuracy = test(self.net, self.valloader)
        return float(loss), len(self.valloader.dataset), {"accuracy": float(accuracy)}


def client_fn(cid: str):
    net = Net()
    trainloader, valloader = load_datasets(int(cid))
    return FlowerClient(cid, net, trainloader, valloader).to_client()


def weighted_average(metrics: List[Tuple[int, Metrics]]) -> Metrics:
    accuracies = [num_examples * m["accuracy"] for num_examples, m in metrics]
    examples = [num_examples for num_examples, _ in metrics]
    return {"accuracy": sum(accuracies) / sum(examples)}


def fit_config(server_round: int):
    return {"server_round": server_round, "local_epochs": cfg["local-epochs"], "lr": cfg["lr"]}


test_npz = np.load("data/test.npz")
testloader = DataLoader(TensorDataset(torch.from_numpy(test_npz["x"]), torch.from_numpy(test_npz["y"])),
                        batch_size=128)


def evaluate(server_round, parameters, config):
    net = Net()
    set_weights(net, parameters)
    loss, accuracy = test(net, testloader)
    return loss, {"accuracy": accuracy}


strategy = fl.server.strategy.FedAvg(
    fraction_fit=cfg["fraction-fit"],
    fraction_evaluate=cfg["fraction-evaluate"],
    min_fit_clients=2,
    min_evaluate_clients=2,
    min_available_clients=NUM_CLIENTS,
    initial_parameters=ndarrays_to_parameters(get_weights(Net())),
    on_fit_config_fn=fit_config,
    evaluate_fn=evaluate,
    evaluate_metrics_aggregation_fn=weighted_average,
)

fl.simulation.start_simulation(
    client_fn=client_fn,
    num_clients=NUM_CLIENTS,
    config=fl.server.ServerConfig(num_rounds=cfg["num-server-rounds"]),
    strategy=strategy,
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
'''

register(
    "run08",
    truth="healthy",
    symptom="First FedAvg run on my shapes data, 10 clients, 15 rounds. Is this run ok before I scale it up?",
    how="No fault: IID partitions, SGD lr 0.05 momentum 0.9, batch 32, 2 local epochs, weighted FedAvg.",
    project="/home/kwame/shapes-fedavg",
    data=_data_run08,
    files={"pyproject.toml": _CFG_run08},
    executions=[(_SCRIPT_run08, "simulation.log", ["train.py"])],
    ship=["pyproject.toml"],
)


# ============================================================================================
# run09: preprocessing_mismatch.  Clients standardise their features, the server-side test set
#        is fed raw.
# ============================================================================================
_FEATS_run09 = ["hr_mean", "hr_std", "steps", "skin_temp", "eda", "acc_energy", "spo2", "resp_rate"]


def _data_run09(folder):
    import pandas as pd
    rng = np.random.default_rng(909)
    task = BlobTask(909, d=8, k=4, sep=1.0, noise=1.0)
    scale = np.array([12.0, 4.0, 900.0, 0.8, 2.5, 40.0, 1.5, 3.0], np.float32)
    offset = np.array([72.0, 9.0, 4200.0, 33.5, 6.0, 150.0, 96.5, 16.0], np.float32)
    os.makedirs(os.path.join(folder, "data"), exist_ok=True)

    def write(path, x, y):
        df = pd.DataFrame(np.round(x * scale + offset, 3), columns=_FEATS_run09)
        df["label"] = y
        df.to_csv(path, index=False)

    for cid in range(6):
        x, y = task.sample(rng, int(rng.integers(300, 500)))
        write(os.path.join(folder, "data", f"wearable_client{cid}.csv"), x, y)
    x, y = task.sample(rng, 1500)
    write(os.path.join(folder, "data", "server_test.csv"), x, y)


_CFG_run09 = '''
num_clients: 6
num_rounds: 12
fraction_fit: 1.0
fraction_evaluate: 1.0
local_epochs: 2
batch_size: 32
optimizer: adam
lr: 0.003
val_split: 0.15
hidden: [64, 32]
num_classes: 4
'''

_SCRIPT_run09 = '''
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
'''

register(
    "run09",
    truth="preprocessing_mismatch",
    symptom="Every client reports ~0.8 validation accuracy, but the server-side test accuracy is stuck at 0.23 and the centralized loss is in the thousands. The test set comes from the same devices.",
    how="load_client_data() z-scores the features (per-client mean/std) before training and client evaluation; "
        "load_test_data() on the server feeds the raw features (steps ~4000, acc_energy ~150, ...) to the same model.",
    project="/home/irene/wearables-fl",
    data=_data_run09,
    files={"fl_config.yaml": _CFG_run09},
    executions=[(_SCRIPT_run09, "sim_output.txt", ["train.py"])],
    ship=["fl_config.yaml", "train.py"],
)


# ============================================================================================
# run10: exploding_gradients.  ReLU RNN forecaster on long sequences, no gradient clipping.
# ============================================================================================
_T_run10 = 80


def _data_run10(folder):
    rng = np.random.default_rng(1010)

    def series(n):
        t = np.arange(_T_run10 + 1)[None, :]
        f1 = rng.uniform(0.02, 0.08, (n, 1))
        f2 = rng.uniform(0.1, 0.25, (n, 1))
        ph = rng.uniform(0, 2 * np.pi, (n, 2))
        level = rng.uniform(0.5, 2.0, (n, 1))
        s = level + np.sin(2 * np.pi * f1 * t + ph[:, :1]) + 0.5 * np.sin(2 * np.pi * f2 * t + ph[:, 1:])
        s = s + 0.05 * rng.normal(size=s.shape)
        return s.astype(np.float32)

    for cid in range(4):
        s = series(240)
        save_npz(os.path.join(folder, "data"), f"meter_{cid}.npz", x=s[:, :-1, None],
                 y=s[:, :-1].mean(1, keepdims=True))
    s = series(400)
    save_npz(os.path.join(folder, "data"), "holdout.npz", x=s[:, :-1, None], y=s[:, :-1].mean(1, keepdims=True))


_CFG_run10 = '''
model:
  cell: rnn
  nonlinearity: relu
  hidden_size: 32
  num_layers: 1
data:
  window: 80
  target: window_mean
federated:
  num_clients: 4
  num_rounds: 20
  fraction_fit: 1.0
  fraction_evaluate: 0.0
train:
  local_epochs: 2
  batch_size: 16
  lr: 0.05
  momentum: 0.9
'''

_SCRIPT_run10 = '''
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
                                "grad_norm": [round(g, 4) for g in norms]}) + "\\n")
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
'''

register(
    "run10",
    truth="exploding_gradients",
    symptom="The server MSE was going down nicely for 7 rounds, then in round 8 it turned into nan and stayed there. Nothing changed in the data.",
    how="Vanilla ReLU RNN (nn.RNN nonlinearity='relu') over 80-step windows, SGD with momentum, no gradient clipping: "
        "recurrent weights grow past spectral radius 1 and the per-client grad norm grows by orders of magnitude "
        "over a few rounds until the loss is inf/nan.",
    project="/home/felix/smartmeter-fl",
    data=_data_run10,
    files={"config.yaml": _CFG_run10},
    executions=[(_SCRIPT_run10, "fl_console.log", ["train.py"])],
    ship=["config.yaml", "train.py", "grad_norms.jsonl"],
)


# ============================================================================================
# run11: batch_size_too_small.  MLP with BatchNorm, batch size 2 with a normal lr.
# ============================================================================================
def _data_run11(folder):
    rng = np.random.default_rng(1111)
    task = BlobTask(1111, d=24, k=6, sep=0.8, noise=1.0)
    for cid in range(8):
        x, y = task.sample(rng, 300)
        save_npz(os.path.join(folder, "data"), f"part{cid}.npz", x=x, y=y)
    xt, yt = task.sample(rng, 1800)
    save_npz(os.path.join(folder, "data"), "central_test.npz", x=xt, y=yt)


_CFG_run11 = '''
run_name: bn-mlp-fedavg
num_clients: 8
rounds: 25
fraction_fit: 1.0
fraction_evaluate: 0.5
local_epochs: 1
batch_size: 2
lr: 0.01
momentum: 0.9
model:
  hidden: 96
  batchnorm: true
'''

_SCRIPT_run11 = '''
import json
import random
from collections import OrderedDict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.data import DataLoader, TensorDataset

import flwr as fl
from flwr.common import ndarrays_to_parameters

torch.set_num_threads(1)
with open("config.yaml") as fh:
    cfg = yaml.safe_load(fh)
SEED = 11
random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)


class BNMLP(nn.Module):
    def __init__(self, d_in=24, hidden=96, n_classes=6, bn=True):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.bn1 = nn.BatchNorm1d(hidden) if bn else nn.Identity()
        self.fc2 = nn.Linear(hidden, hidden)
        self.bn2 = nn.BatchNorm1d(hidden) if bn else nn.Identity()
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.fc1(x)))
        x = F.relu(self.bn2(self.fc2(x)))
        return self.out(x)


def make():
    return BNMLP(hidden=cfg["model"]["hidden"], bn=cfg["model"]["batchnorm"])


def state_to_list(m):
    return [v.cpu().numpy() for v in m.state_dict().values()]


def list_to_state(m, arrs):
    sd = OrderedDict()
    for (k, v), a in zip(m.state_dict().items(), arrs):
        sd[k] = torch.tensor(a, dtype=v.dtype)
    m.load_state_dict(sd)


def evaluate(m, loader):
    m.eval()
    loss, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            o = m(x)
            loss += F.cross_entropy(o, y, reduction="sum").item()
            correct += (o.argmax(1) == y).sum().item()
            n += len(y)
    return loss / n, correct / n


class FedClient(fl.client.NumPyClient):
    def __init__(self, cid):
        self.cid = cid
        d = np.load(f"data/part{cid}.npz")
        x, y = torch.from_numpy(d["x"]), torch.from_numpy(d["y"])
        self.train_dl = DataLoader(TensorDataset(x[:250], y[:250]), batch_size=cfg["batch_size"],
                                   shuffle=True, drop_last=True)
        self.val_dl = DataLoader(TensorDataset(x[250:], y[250:]), batch_size=50)
        self.model = make()

    def fit(self, parameters, config):
        list_to_state(self.model, parameters)
        opt = torch.optim.SGD(self.model.parameters(), lr=cfg["lr"], momentum=cfg["momentum"])
        self.model.train()
        losses = []
        for _ in range(cfg["local_epochs"]):
            for x, y in self.train_dl:
                opt.zero_grad()
                loss = F.cross_entropy(self.model(x), y)
                loss.backward()
                opt.step()
                losses.append(loss.item())
        l = np.array(losses)
        print(f"client={self.cid} rnd={config['rnd']} steps={len(l)} loss_mean={l.mean():.4f} "
              f"loss_std={l.std():.4f} loss_min={l.min():.4f} loss_max={l.max():.4f}")
        return state_to_list(self.model), len(self.train_dl.dataset), {"loss": float(l.mean())}

    def evaluate(self, parameters, config):
        list_to_state(self.model, parameters)
        loss, acc = evaluate(self.model, self.val_dl)
        return loss, len(self.val_dl.dataset), {"acc": acc}


t = np.load("data/central_test.npz")
test_dl = DataLoader(TensorDataset(torch.from_numpy(t["x"]), torch.from_numpy(t["y"])), batch_size=600)


def central(rnd, parameters, config):
    m = make()
    list_to_state(m, parameters)
    loss, acc = evaluate(m, test_dl)
    return loss, {"acc": acc}


def wavg(ms):
    n = sum(k for k, _ in ms)
    key = list(ms[0][1].keys())[0]
    return {key: sum(k * m[key] for k, m in ms) / n}


hist = fl.simulation.start_simulation(
    client_fn=lambda cid: FedClient(cid).to_client(),
    num_clients=cfg["num_clients"],
    config=fl.server.ServerConfig(num_rounds=cfg["rounds"]),
    strategy=fl.server.strategy.FedAvg(
        fraction_fit=cfg["fraction_fit"],
        fraction_evaluate=cfg["fraction_evaluate"],
        min_available_clients=cfg["num_clients"],
        evaluate_fn=central,
        on_fit_config_fn=lambda r: {"rnd": r},
        fit_metrics_aggregation_fn=wavg,
        evaluate_metrics_aggregation_fn=wavg,
        initial_parameters=ndarrays_to_parameters(state_to_list(make())),
    ),
    client_resources={"num_cpus": 1, "num_gpus": 0.0},
)
json.dump({"centralized_loss": hist.losses_centralized, "centralized_acc": hist.metrics_centralized["acc"],
           "distributed_loss": hist.losses_distributed}, open("metrics.json", "w"), indent=2)
'''

register(
    "run11",
    truth="batch_size_too_small",
    symptom="The centralized test loss jumps up and down from round to round and never settles, and the clients' training loss is all over the place.",
    how="batch_size: 2 (config.yaml) for a BatchNorm MLP with SGD lr 0.01 / momentum 0.9: BatchNorm statistics over two samples "
        "and very noisy gradients; central loss floors near 0.8-1.0 and jumps round to round. The same setup with batch 32 falls smoothly to 0.15 (acc 0.97).",
    project="/home/wei/fl-bn",
    data=_data_run11,
    files={"config.yaml": _CFG_run11},
    executions=[(_SCRIPT_run11, "console.log", ["train.py"])],
    ship=["config.yaml", "metrics.json"],
)


# ============================================================================================
# run12: label_out_of_range.  One site exported its labels 1-based (1..4) for a 4-class model.
# ============================================================================================
_BAD_SITE_run12 = 4


def _waveforms(rng, n, L=64):
    t = np.linspace(0, 1, L, dtype=np.float32)[None, :]
    y = rng.integers(0, 4, n)
    f = rng.uniform(2, 4, (n, 1))
    ph = rng.uniform(0, 1, (n, 1))
    base = np.where(y[:, None] == 0, np.sin(2 * np.pi * f * t + 2 * np.pi * ph), 0)
    base = base + np.where(y[:, None] == 1, np.sin(2 * np.pi * 3 * f * t + 2 * np.pi * ph), 0)
    base = base + np.where(y[:, None] == 2, np.sign(np.sin(2 * np.pi * f * t + 2 * np.pi * ph)), 0)
    base = base + np.where(y[:, None] == 3, 2 * (((f * t + ph) % 1.0) - 0.5), 0)
    x = base * rng.uniform(0.6, 1.4, (n, 1)) + 0.4 * rng.normal(size=(n, L))
    return x[:, None, :].astype(np.float32), y.astype(np.int64)


def _data_run12(folder):
    rng = np.random.default_rng(1212)
    for cid in range(6):
        x, y = _waveforms(rng, int(rng.integers(250, 400)))
        if cid == _BAD_SITE_run12:
            y = y + 1
        save_npz(os.path.join(folder, "data"), f"site_{cid}.npz", signals=x, labels=y)
    x, y = _waveforms(rng, 1000)
    save_npz(os.path.join(folder, "data"), "global_test.npz", signals=x, labels=y)


_CFG_run12 = '''
[project]
name = "wavefed"
version = "0.1.0"
dependencies = ["flwr[simulation]>=1.8", "torch>=2.0", "numpy"]

[tool.flwr.app.config]
num-server-rounds = 10
fraction-fit = 1.0
fraction-evaluate = 1.0
local-epochs = 2
batch-size = 32
lr = 0.01
num-classes = 4

[tool.flwr.federations.local-simulation]
options.num-supernodes = 6
'''

_SCRIPT_run12 = '''
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
'''

register(
    "run12",
    truth="label_out_of_range",
    symptom="One of my six sites errors out every single round (fit and evaluate), the other five train fine. Can I just ignore it, and why does it fail?",
    how=f"Site {_BAD_SITE_run12}'s label array is 1-based (1..4) while the model has num-classes = 4 outputs: the first batch "
        "holding label 4 raises 'IndexError: Target 4 is out of bounds.' in cross_entropy; Flower counts it as a failure "
        "every round and FedAvg continues with 5 sites.",
    project="/home/nadia/wavefed",
    data=_data_run12,
    files={"pyproject.toml": _CFG_run12},
    executions=[(_SCRIPT_run12, "simulation_output.log", ["train.py"])],
    ship=["pyproject.toml", "train.py"],
)


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------
VENV_SITE = os.path.join("lib", "python3.11", "site-packages")


LICENSE_HEADER = """# Copyright 2024 Flower Labs GmbH. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
\"\"\"Flower.\"\"\"

"""


def write_shim(libdir):
    for rel, src in SHIM.items():
        path = os.path.join(libdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(LICENSE_HEADER + textwrap.dedent(src).lstrip("\n"))


def scrub(text, scratch, libdir, project):
    """Replace machine paths by the user's (fictional) project paths."""
    site = project + "/.venv/" + VENV_SITE.replace(os.sep, "/")
    text = text.replace(libdir, site)
    text = text.replace(scratch, project)
    for p in sorted(set(sys.path), key=len, reverse=True):
        if p.endswith("site-packages"):
            text = text.replace(p, site)
    return text


def run_one(name, spec, tmp, libdir):
    scratch = os.path.join(tmp, name)
    os.makedirs(scratch)
    spec["data"](scratch)
    for rel, text in spec["files"].items():
        path = os.path.join(scratch, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(text).lstrip("\n"))
    env = dict(os.environ, PYTHONPATH=libdir, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1",
               PYTHONHASHSEED="0")
    outdir = os.path.join(RUNS_DIR, name)
    if os.path.exists(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    for script_text, log_rel, cmd in spec["executions"]:
        with open(os.path.join(scratch, "train.py"), "w") as f:
            f.write(textwrap.dedent(script_text).lstrip("\n"))
        proc = subprocess.run([sys.executable] + cmd, cwd=scratch, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0 and spec.get("expect_rc", 0) != proc.returncode:
            print(proc.stdout[-3000:])
        if log_rel is None:
            print(f"  {name}: rc={proc.returncode}")
            continue
        log = scrub(proc.stdout, scratch, libdir, spec["project"])
        dst = os.path.join(outdir, log_rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "w") as f:
            f.write(log)
        print(f"  {name}: {log_rel} rc={proc.returncode} ({len(log.splitlines())} lines)")
    for rel in spec["ship"]:
        src = os.path.join(scratch, rel)
        dst = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src) as f:
            text = f.read()
        with open(dst, "w") as f:
            f.write(scrub(text, scratch, libdir, spec["project"]))


def main(argv):
    names = argv or sorted(RUNS)
    tmp = tempfile.mkdtemp(prefix="fedgen_")
    libdir = os.path.join(tmp, "_lib")
    try:
        write_shim(libdir)
        for name in names:
            print(f"[{name}] {RUNS[name]['truth']}")
            run_one(name, RUNS[name], tmp, libdir)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]}
             for n, s in sorted(RUNS.items())}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1:])
