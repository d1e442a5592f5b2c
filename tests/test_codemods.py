"""Codemods: proposed diffs apply with git exactly, revert byte for byte, keep the code valid, and fix the bug."""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mltdbg.analyzers.code import code_signals
from mltdbg.analyzers.model import Fact, Run, TextArtifact
from mltdbg.analyzers.common.patch import Patch, PatchError, apply_patch, revert_patch, unified_diff
from mltdbg.playbooks.codemods import propose
from repo_helpers import git, make_repo

BAD = Path(__file__).parent / "fixtures" / "code" / "bad"


def run_of(root: Path, kinds: dict[str, str] | None = None) -> Run:
    run = Run(root=root)
    for p in sorted(root.rglob("*")):
        if p.is_file() and ".git" not in p.parts:
            rel = p.relative_to(root).as_posix()
            kind = (kinds or {}).get(rel) or ("code" if p.suffix == ".py" else "config")
            run.texts.append(TextArtifact(path=rel, abspath=p, kind=kind, text=p.read_text()))
    return run


def hunks(diff: str) -> str:
    """The diff without git's index line and the function context after @@."""
    out = []
    for line in diff.splitlines():
        if line.startswith(("index ", "diff --git")):
            continue
        m = re.match(r"^(@@ [^@]+ @@)", line)
        out.append(m.group(1) if m else line)
    return "\n".join(out)


def roundtrip(root: Path, patch) -> None:
    """Apply: git diff == patch, files still parse. Revert: bytes as before."""
    before = {f: (root / f).read_bytes() for f in patch.files}
    apply_patch(root, patch)
    assert hunks(git(root, "diff", "--no-color")) == hunks(patch.diff)
    for f in patch.files:
        if f.endswith(".py"):
            ast.parse((root / f).read_text())
    revert_patch(root, patch)
    assert {f: (root / f).read_bytes() for f in patch.files} == before
    assert git(root, "status", "--porcelain") == ""


CASES = [
    ("add_zero_grad", "missing_zero_grad.py", "code:missing_zero_grad", "        optimizer.zero_grad()\n        pred = model("),
    ("add_zero_grad", "zero_grad_misplaced.py", "code:missing_zero_grad", "            opt.zero_grad()\n            loss.backward()"),
    ("log_softmax", "log_softmax.py", "code:log_softmax_unstable", "log_probs = F.log_softmax(logits, dim=-1)"),
    ("add_eval", "no_eval.py", "code:no_eval_at_inference", "    model.eval()\n    with torch.no_grad():"),
    ("add_eval", "no_eval_val_loop.py", "code:no_eval_at_inference", "        model.eval()\n        with torch.no_grad():"),
    ("add_eval", "no_eval_script.py", "code:no_eval_at_inference", "model.eval()\nlogits = model(images)"),
    ("add_grad_clip", "no_clip.py", "code:no_grad_clip", "    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    optimizer.step()"),
    ("add_grad_clip", "hf_no_clip.py", "code:no_grad_clip", "max_grad_norm=1.0"),
    ("remove_softmax_before_ce", "softmax_ce.py", "code:softmax_before_ce", "probs = model(images)\n"),
    ("remove_softmax_before_ce", "softmax_model.py", "code:softmax_before_ce", "        return x\n"),
    ("remove_softmax_before_ce", "softmax_sequential.py", "code:softmax_before_ce", "nn.Linear(512, 10))\n"),
]


@pytest.mark.parametrize("name,fixture,kind,expect", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_codemod_fixes_the_planted_bug(tmp_path, name, fixture, kind, expect):
    root = make_repo(tmp_path / "repo", {f"src/{fixture}": (BAD / fixture).read_text()})
    run = run_of(root)
    sig = next(s for s in code_signals(run) if s.kind == kind)
    patch = propose(name, root, run, sig)
    assert patch is not None and patch.files == [f"src/{fixture}"] and patch.summary
    assert patch.diff.startswith(f"diff --git a/src/{fixture} b/src/{fixture}\n--- a/src/{fixture}\n+++ b/src/{fixture}\n")
    # without the signal the codemod finds the same spot itself
    assert propose(name, root, run, None).diff == patch.diff
    roundtrip(root, patch)
    apply_patch(root, patch)
    new = (root / "src" / fixture).read_text()
    assert expect in new
    fixed = run_of(root)
    left = [s for s in code_signals(fixed) if s.kind == kind and s.evidence[0].quote == sig.evidence[0].quote]
    assert not left, [s.summary for s in left]


def test_no_patch_when_the_shape_is_absent(tmp_path):
    root = make_repo(tmp_path / "r", {"ok.py": "import torch\nx = torch.log(torch.tensor(2.0))\n"})
    run = run_of(root)
    for name in ("add_zero_grad", "log_softmax", "add_eval", "remove_softmax_before_ce", "add_grad_clip"):
        assert propose(name, root, run, None) is None
    assert propose("no_such_codemod", root, run, None) is None


@pytest.mark.parametrize("text,expect", [
    ("model: resnet\nlr: 0.1  # tuned\nepochs: 3\n", "lr: 0.05  # tuned\n"),
    ("optimizer:\n  name: adam\n  learning_rate: 1e-3\n", "  learning_rate: 5e-4\n"),
    ("optim:\n  lr: 3.0e-04\n", "  lr: 1.5e-04\n"),
])
def test_halve_lr_in_yaml_keeps_formatting(tmp_path, text, expect):
    root = make_repo(tmp_path / "r", {"cfg/train.yaml": text})
    run = run_of(root)
    run.facts.append(Fact(name="lr", value=0.1, source="cfg/train.yaml", line=None))
    patch = propose("halve_lr", root, run, None)
    roundtrip(root, patch)
    apply_patch(root, patch)
    new = (root / "cfg/train.yaml").read_text()
    assert expect in new
    assert len(new.splitlines()) == len(text.splitlines())


def test_halve_lr_in_json(tmp_path):
    text = '{\n  "model": "gpt2",\n  "learning_rate": 6e-4,\n  "batch_size": 32\n}\n'
    root = make_repo(tmp_path / "r", {"config.json": text})
    patch = propose("halve_lr", root, run_of(root), None)
    apply_patch(root, patch)
    assert '"learning_rate": 3e-4,' in (root / "config.json").read_text()


def test_halve_lr_in_argparse_default(tmp_path):
    code = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--lr', type=float, default=0.002)\n"
    root = make_repo(tmp_path / "r", {"train.py": code})
    patch = propose("halve_lr", root, run_of(root), None)
    roundtrip(root, patch)
    assert "+p.add_argument('--lr', type=float, default=0.001)" in patch.diff


def test_grad_clip_in_config_and_lightning(tmp_path):
    root = make_repo(tmp_path / "r", {
        "conf.yaml": "trainer:\n  max_epochs: 3\n  gradient_clip_val: 0\n",
        "fit.py": "import lightning as L\ntrainer = L.Trainer(max_epochs=3,\n                    precision='16-mixed')\n"})
    run = run_of(root)
    p = propose("add_grad_clip", root, run, None)
    roundtrip(root, p)
    assert "+  gradient_clip_val: 1.0" in p.diff
    (root / "conf.yaml").unlink()
    git(root, "commit", "-qam", "drop conf")
    p = propose("add_grad_clip", root, run_of(root), None)
    roundtrip(root, p)
    apply_patch(root, p)
    assert "precision='16-mixed', gradient_clip_val=1.0)" in (root / "fit.py").read_text()


def test_grad_clip_with_scaler_unscales_first_and_imports_torch(tmp_path):
    code = ('"""Train."""\nfrom torch.cuda.amp import GradScaler\n\n'
            "def train(net, opt, loader):\n    scaler = GradScaler()\n    for x, y in loader:\n"
            "        opt.zero_grad()\n        loss = net(x).sum()\n        scaler.scale(loss).backward()\n"
            "        scaler.step(opt)\n        scaler.update()\n")
    root = make_repo(tmp_path / "r", {"t.py": code})
    p = propose("add_grad_clip", root, run_of(root), None)
    roundtrip(root, p)
    apply_patch(root, p)
    new = (root / "t.py").read_text()
    assert new.startswith('"""Train."""\nimport torch\n')
    assert ("        scaler.unscale_(opt)\n        torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)\n"
            "        scaler.step(opt)\n") in new


def test_pure_python_apply_outside_git(tmp_path):
    root = tmp_path / "plain"
    root.mkdir()
    original = (BAD / "missing_zero_grad.py").read_bytes().rstrip(b"\n")   # no newline at the end
    (root / "train.py").write_bytes(original)
    run = run_of(root)
    patch = propose("add_zero_grad", root, run, None)
    assert "\\ No newline at end of file" in patch.diff or not patch.diff.endswith("optimizer.step()\n")
    apply_patch(root, patch)
    ast.parse((root / "train.py").read_text())
    assert b"optimizer.zero_grad()\n        pred = model" in (root / "train.py").read_bytes()
    revert_patch(root, patch)
    assert (root / "train.py").read_bytes() == original
    # context that no longer matches: refused, file untouched
    (root / "train.py").write_bytes(original.replace(b"pred = model", b"out = model"))
    changed = (root / "train.py").read_bytes()
    with pytest.raises(PatchError):
        apply_patch(root, patch)
    assert (root / "train.py").read_bytes() == changed


def test_git_apply_refuses_stale_patch(tmp_path):
    root = make_repo(tmp_path / "r", {"a.py": "x = 1\ny = 2\n"})
    p = Patch(diff=unified_diff("a.py", "x = 1\ny = 3\n", "x = 1\ny = 4\n"), files=["a.py"])
    with pytest.raises(PatchError):
        apply_patch(root, p)
    assert (root / "a.py").read_text() == "x = 1\ny = 2\n"


def test_crlf_file_round_trips(tmp_path):
    code = (BAD / "log_softmax.py").read_text().replace("\n", "\r\n").encode()
    root = make_repo(tmp_path / "r", {"l.py": code})
    p = propose("log_softmax", root, run_of(root), None)
    roundtrip(root, p)


TRAIN = '''import torch
torch.manual_seed(0)
X = torch.randn(256, 8)
w_true = torch.randn(8, 1)
Y = X @ w_true
model = torch.nn.Linear(8, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
for step in range(300):
    i = (step * 32) % 256
    pred = model(X[i:i + 32])
    loss = ((pred - Y[i:i + 32]) ** 2).mean()
    loss.backward()
    optimizer.step()
print(f"final_loss={((model(X) - Y) ** 2).mean().item():.6g}")
'''


def _final_loss(root: Path) -> float:
    r = subprocess.run([sys.executable, "train.py"], cwd=root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return float(r.stdout.split("final_loss=")[1])


def test_patched_torch_script_trains(tmp_path):
    """A real tiny torch run: without zero_grad the loss blows up; the patched script converges."""
    root = make_repo(tmp_path / "r", {"train.py": TRAIN})
    broken = _final_loss(root)
    run = run_of(root)
    patch = propose("add_zero_grad", root, run, None)
    apply_patch(root, patch)
    fixed = _final_loss(root)
    assert fixed < 1e-3
    assert not broken < 1e-2          # NaN or large


def test_zero_grad_for_accumulation_goes_after_the_step(tmp_path):
    code = ("import torch\n\ndef train(model, loader, opt, accum=4):\n    for i, (x, y) in enumerate(loader):\n"
            "        loss = torch.nn.functional.mse_loss(model(x), y) / accum\n        loss.backward()\n"
            "        if (i + 1) % accum == 0:\n            opt.step()\n        print(i)\n")
    root = make_repo(tmp_path / "r", {"acc.py": code})
    p = propose("add_zero_grad", root, run_of(root), None)
    roundtrip(root, p)
    apply_patch(root, p)
    assert "            opt.step()\n            opt.zero_grad()\n        print(i)\n" in (root / "acc.py").read_text()
    assert not [s for s in code_signals(run_of(root)) if s.kind == "code:missing_zero_grad"]


def test_repo_root_below_the_git_top_uses_strict_apply(tmp_path):
    top = make_repo(tmp_path / "top", {"proj/train.py": (BAD / "missing_zero_grad.py").read_text()})
    root = top / "proj"
    p = propose("add_zero_grad", root, run_of(root), None)
    assert p.files == ["train.py"]
    before = (root / "train.py").read_bytes()
    apply_patch(root, p)
    assert "optimizer.zero_grad()" in git(top, "diff")
    revert_patch(root, p)
    assert (root / "train.py").read_bytes() == before
