"""Shared pieces of the probe tests: small real torch models written to a temp project as a file the
probe imports (as a user's model.py), and one call that runs a probe through the real launcher."""
from __future__ import annotations

import json
from pathlib import Path

from mltdbg.sessions.probes import ProbeRun, run_probe

# The user's project: each builder is a finding's textbook case. Sizes are chosen so the numbers are
# known: TinyLM has 79 % of its parameters in the embeddings (the spec's case), its head tied.
MODELS = '''
import time
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyLM(nn.Module):
    """Embedding-heavy: vocab 5850 x 64 + positions, a 2-layer transformer body, head tied to the embedding."""

    def __init__(self, vocab=5850, d=64, layers=2, max_len=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, 4, dim_feedforward=256, batch_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.embed.weight

    def forward(self, x):
        h = self.embed(x) + self.pos(torch.arange(x.shape[1], device=x.device))
        return self.lm_head(self.norm(self.body(h)))


def deep_sigmoid():
    layers = []
    for _ in range(12):
        layers += [nn.Linear(32, 32), nn.Sigmoid()]
    return nn.Sequential(*layers, nn.Linear(32, 4))


class RNNNoClip(nn.Module):
    """A ReLU RNN whose recurrent matrix has spectral radius 1.6: gradients grow 1.6x per time step."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(8, 32, nonlinearity="relu", batch_first=True)
        with torch.no_grad():
            self.rnn.weight_hh_l0.copy_(torch.eye(32) * 1.6)
        self.head = nn.Linear(32, 2)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


def dead_relu():
    m = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    with torch.no_grad():
        m[0].bias.fill_(-20.0)
    return m


def healthy():
    return nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))


class FrozenEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32))
        self.head = nn.Linear(32, 3)
        for p in self.encoder.parameters():
            p.requires_grad_(False)

    def forward(self, x):
        return self.head(F.relu(self.encoder(x)))


class LogLayer(nn.Module):
    def forward(self, x):
        return torch.log(x)


class LogNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.log = LogLayer()
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        return self.out(self.log(self.fc(x).abs() + x[:, :1]))


def batches():
    """8 batches; batch 5 holds one value that makes LogLayer's input negative."""
    g = torch.Generator().manual_seed(0)
    out = []
    for i in range(8):
        x = torch.rand(16, 4, generator=g) + 1.0
        if i == 5:
            x[3, 0] = -50.0
        out.append((x, torch.randint(0, 2, (16,), generator=g)))
    return out


def nan_batches():
    out = batches()
    out[2][0][0, 1] = float("nan")
    return out


def loss_fn(model, batch):
    x, y = batch
    return {"ce": F.cross_entropy(model(x), y), "l2": 1e-4 * sum(p.pow(2).sum() for p in model.parameters())}


def big10b():
    return nn.Sequential(*[nn.Linear(8192, 8192) for _ in range(150)])


def needs_gpu():
    return nn.Linear(4, 4).cuda()


class Hog(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        waste = torch.ones(2**40)          # 4 TiB: more than any machine lets one process allocate
        return self.fc(x) + waste[0]


class Hang(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        print("forward started", flush=True)
        time.sleep(600)
        return self.fc(x)
'''


def project(tmp_path: Path) -> Path:
    """A user's project folder holding models.py."""
    d = tmp_path / "proj"
    d.mkdir(exist_ok=True)
    (d / "models.py").write_text(MODELS, encoding="utf-8")
    return d


def probe(proj: Path, name: str, *args: str, timeout_s: float = 180, **kw) -> ProbeRun:
    return run_probe(name, list(args), cwd=proj, out=proj.parent / f"{name}-{len(list(proj.parent.glob('*.json')))}.json",
                     timeout_s=timeout_s, **kw)


def kinds(r: ProbeRun) -> list[str]:
    assert r.result is not None, r.error
    return [f.kind for f in r.result.findings]


def doc(r: ProbeRun) -> dict:
    return json.loads(Path(r.out).read_text(encoding="utf-8"))
