"""Time the probes: `params` on a 1B-parameter model built on the meta device, and the overhead of the
`gradients` probe (hooks on every module, per-layer norms, the update/weight snapshot, the result file
rewritten after each stage) over a plain forward/backward/optimizer step of the same model. CPU only.

Prints: params end to end (`mltdbg probe params`, a fresh interpreter importing torch) and inside the
runner (meta build + counting); gradients probe vs plain step, median of repeats, for a 16-layer MLP
and a 4-layer transformer. Run: .venv/bin/python benchmarks/bench_probes.py
"""
from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from mltdbg.sessions.probes import run_probe, runner_path
from torch import nn

sys.path.insert(0, str(runner_path().parent))
import mltdbg_probe_model as M
from mltdbg_probe_util import Doc

GPT_1B = '''
import torch.nn as nn


class GPT(nn.Module):
    """GPT-2-style, 1.04B parameters: vocab 50257, d 1536, 36 layers (no flash tricks: a size, not a model zoo)."""

    def __init__(self, vocab=50257, d=1536, layers=36, ctx=2048):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.h = nn.ModuleList(nn.TransformerEncoderLayer(d, 16, 4 * d, batch_first=True, norm_first=True)
                               for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
'''


def bench_params(repeats: int = 3) -> None:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "gpt.py").write_text(GPT_1B)
        walls, inner = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "mltdbg.app.cli", "probe", "params", "gpt.py:GPT", "--out",
                                str(Path(d) / "p.json")], cwd=d, capture_output=True, text=True)
            walls.append(time.perf_counter() - t0)
            assert r.returncode == 0, r.stderr
            import json
            doc = json.loads((Path(d) / "p.json").read_text())
            inner.append(doc["elapsed_s"])
        total = doc["result"]["params"]["total"]
        print(f"params probe, {total / 1e9:.2f}B parameters on meta: end to end {statistics.median(walls):.2f} s "
              f"(new interpreter + torch import), inside the runner {statistics.median(inner):.2f} s "
              f"(torch import, gpt.py, meta build, counting); median of {repeats}")
        t0 = time.perf_counter()
        r = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
        print(f"  (for scale: `python -c 'import torch'` alone takes {time.perf_counter() - t0:.2f} s here)")
        ns: dict = {}
        exec(compile(GPT_1B, "gpt.py", "exec"), ns)  # noqa: S102 - this file's own model source
        builds, counts = [], []
        for _ in range(repeats):
            t0 = time.perf_counter()
            model = M.build(ns["GPT"], {}, "meta")
            t1 = time.perf_counter()
            M.params_summary(model)
            builds.append(t1 - t0)
            counts.append(time.perf_counter() - t1)
        print(f"  in process: meta build {1000 * statistics.median(builds):.0f} ms, counting and classifying "
              f"{1000 * statistics.median(counts):.0f} ms")


def mlp() -> nn.Module:
    layers = []
    for _ in range(16):
        layers += [nn.Linear(512, 512), nn.ReLU()]
    return nn.Sequential(*layers, nn.Linear(512, 10))


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(8000, 256)
        self.body = nn.TransformerEncoder(nn.TransformerEncoderLayer(256, 8, 1024, batch_first=True), 4,
                                          enable_nested_tensor=False)
        self.head = nn.Linear(256, 8000)

    def forward(self, x):
        return self.head(self.body(self.emb(x)))


def _plain_step(model, batch, opt) -> float:
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss, _, _ = M.loss_terms(None, model, batch)
    loss.backward()
    opt.step()
    return time.perf_counter() - t0


def _probed_step(model, batch, opt, out: Path) -> float:
    doc = Doc(str(out), "gradients", [])
    t0 = time.perf_counter()
    M.gradients(model, M._repeat(batch), None, opt, 1, doc)
    doc.save()
    return time.perf_counter() - t0


def bench_gradients(repeats: int = 9) -> None:
    """Plain and probed steps interleaved (so load on a shared machine hits both alike), one thread."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    cases = [("MLP 16x512, batch 256", mlp(), torch.randn(256, 512)),
             ("transformer 4x256, batch 8x64 tokens", Tiny(), torch.randint(0, 8000, (8, 64)))]
    with tempfile.TemporaryDirectory() as tmp:
        for name, model, batch in cases:
            opt = torch.optim.Adam(model.parameters(), 1e-3)
            _plain_step(model, batch, opt)                      # warm-up
            _probed_step(model, batch, opt, Path(tmp) / "w.json")
            plain, probed = [], []
            for i in range(repeats):
                plain.append(_plain_step(model, batch, opt))
                probed.append(_probed_step(model, batch, opt, Path(tmp) / f"g{i}.json"))
            p, q = statistics.median(plain), statistics.median(probed)
            print(f"gradients probe, {name}: plain step {1000 * p:.1f} ms, probed step {1000 * q:.1f} ms "
                  f"({q / p:.2f}x; medians of {repeats}, interleaved, 1 thread)")
    print("  (the probe's whole process adds the interpreter start and torch import: see the params line)")


def bench_gradients_cli() -> None:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "m.py").write_text("import torch.nn as nn\n\ndef mlp():\n    layers = []\n    for _ in range(16):\n"
                                      "        layers += [nn.Linear(512, 512), nn.ReLU()]\n    return nn.Sequential(*layers, nn.Linear(512, 10))\n")
        t0 = time.perf_counter()
        r = run_probe("gradients", ["m.py:mlp", "--batch", "randn:256,512"], cwd=d, out=Path(d) / "g.json")
        print(f"gradients probe end to end (MLP 16x512, `mltdbg probe gradients`): {time.perf_counter() - t0:.2f} s, "
              f"status {r.status}, runner {r.result.elapsed_s:.2f} s")


if __name__ == "__main__":
    bench_params()
    bench_gradients()
    bench_gradients_cli()
