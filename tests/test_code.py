"""Static code checks: a corpus of correct scripts stays quiet, each planted bug is found at its line.

Bad fixtures mark the buggy line with `# BUG: code:<kind>`.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from mltdbg.analyzers.code import code_signals
from mltdbg.analyzers.model import Run, TextArtifact

FIX = Path(__file__).parent / "fixtures" / "code"
GOOD = sorted((FIX / "good").glob("*.py"))
BAD = sorted(p for p in (FIX / "bad").glob("*.py") if p.name != "broken_syntax.py")
WEAK_KINDS = {"code:no_grad_clip", "code:unsafe_log", "code:unsafe_div_std", "code:unsafe_sqrt", "code:missing_unhandled"}
MARK = re.compile(r"#\s*BUG:\s*(code:\w+)")


def run_of(*paths: Path, root: Path | None = None) -> Run:
    run = Run(root=root or paths[0].parent)
    for p in paths:
        run.texts.append(TextArtifact(path=p.name, abspath=p, kind="code", text=p.read_text()))
    return run


def marks(p: Path) -> list[tuple[str, int]]:
    return [(m.group(1), i) for i, line in enumerate(p.read_text().splitlines(), 1) for m in MARK.finditer(line)]


def signals_of(text: str, path: str = "train.py") -> list:
    """The code signals of one file given as text (a post's snippet or a script)."""
    return code_signals(Run(root=Path("."), texts=[TextArtifact(path=path, abspath=None, kind="code", text=text)]))


def kinds_of(text: str, path: str = "train.py") -> set[str]:
    return {s.kind for s in signals_of(text, path)}


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_correct_script_raises_nothing(path):
    sigs = [s for s in code_signals(run_of(path)) if s.strength > 0.3]
    assert sigs == [], [s.summary for s in sigs]


def test_whole_good_corpus_as_one_run():
    run = run_of(*GOOD)
    sigs = [s for s in code_signals(run) if s.strength > 0.3]
    assert sigs == [], [s.summary for s in sigs]
    assert run.warnings == []


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_planted_bug_found_at_its_line(path):
    expected = marks(path)
    assert expected, f"{path.name} has no BUG marker"
    sigs = code_signals(run_of(path))
    for kind, line in expected:
        hits = [s for s in sigs if s.kind == kind and s.evidence[0].line == line]
        assert hits, f"{kind} not found at {path.name}:{line}; got {[s.summary for s in sigs]}"
        s = hits[0]
        assert s.strength >= (0.2 if kind in WEAK_KINDS else 0.5)
        ev = s.evidence[0]
        assert ev.source == path.name
        assert ev.quote == path.read_text().splitlines()[line - 1]
        assert ev.text


def test_no_signal_strong_on_an_unmarked_line():
    """Every strong signal in the bad corpus is one of the planted bugs."""
    for path in BAD:
        planted = {(k, l) for k, l in marks(path)}
        for s in code_signals(run_of(path)):
            if s.strength > 0.3:
                assert (s.kind, s.evidence[0].line) in planted, f"{path.name}: unexpected {s.summary}"


def test_unparsable_file_warns_once_and_others_still_checked():
    run = run_of(FIX / "bad" / "broken_syntax.py", FIX / "bad" / "missing_zero_grad.py")
    sigs = code_signals(run)
    assert len(run.warnings) == 1 and run.warnings[0].startswith("broken_syntax.py:1:")
    assert any(s.kind == "code:missing_zero_grad" for s in sigs)


def test_model_defined_in_another_file(tmp_path):
    """The model class ends in softmax in model.py; train.py feeds its output to CrossEntropyLoss."""
    (tmp_path / "model.py").write_text(
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, 3)\n"
        "    def forward(self, x):\n"
        "        return nn.functional.softmax(self.fc(x), dim=-1)\n")
    (tmp_path / "train.py").write_text(
        "import torch\nfrom model import Net\n"
        "net = Net()\nopt = torch.optim.SGD(net.parameters(), lr=0.1)\ncrit = torch.nn.CrossEntropyLoss()\n"
        "for i in range(10):\n"
        "    opt.zero_grad()\n"
        "    loss = crit(net(torch.randn(2, 4)), torch.tensor([0, 1]))\n"
        "    loss.backward()\n"
        "    opt.step()\n")
    sigs = code_signals(run_of(tmp_path / "model.py", tmp_path / "train.py", root=tmp_path))
    hit = [s for s in sigs if s.kind == "code:softmax_before_ce"]
    assert hit and hit[0].strength >= 0.5
    assert [e.source for e in hit[0].evidence] == ["train.py", "model.py"]
    assert hit[0].evidence[0].line == 8


def test_model_without_dropout_needs_no_eval(tmp_path):
    """eval() only matters with dropout/batch-norm: a plain MLP run under no_grad is not flagged."""
    p = tmp_path / "infer.py"
    p.write_text(
        "import torch\nimport torch.nn as nn\n"
        "class MLP(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.l = nn.Linear(3, 1)\n"
        "    def forward(self, x):\n"
        "        return self.l(x)\n"
        "model = MLP()\nmodel.load_state_dict(torch.load('w.pt'))\n"
        "with torch.no_grad():\n    print(model(torch.randn(2, 3)))\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:no_eval_at_inference"]
    p.write_text(p.read_text().replace("self.l(x)", "self.l(nn.functional.dropout(x, 0.1, self.training))"))
    assert [s for s in code_signals(run_of(p)) if s.kind == "code:no_eval_at_inference"]


@pytest.mark.parametrize("wrap", ["nn.DataParallel({})", "torch.nn.parallel.DistributedDataParallel({})",
                                  "torch.compile({})"])
def test_a_wrapped_model_is_read_through_its_wrapper_for_eval(tmp_path, wrap):
    """DataParallel(build()) runs the model it wraps: eval() matters only if that model holds dropout/BN."""
    p = tmp_path / "train.py"
    body = ("import torch\nimport torch.nn as nn\n"
            "def build():\n    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 26 * 26, 6))\n"
            f"model = {wrap.format('build()')}\n"
            "opt = torch.optim.Adam(model.parameters())\n"
            "for x, y in loader:\n    opt.zero_grad(); loss = nn.functional.cross_entropy(model(x), y); loss.backward(); opt.step()\n"
            "with torch.no_grad():\n    acc = (model(xva).argmax(1) == yva).float().mean()\n")
    p.write_text(body)
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:no_eval_at_inference"]
    p.write_text(body.replace("nn.ReLU(),", "nn.ReLU(), nn.Dropout(0.5),"))
    assert [s for s in code_signals(run_of(p)) if s.kind == "code:no_eval_at_inference"]


def test_seeded_shuffles_keep_pairs(tmp_path):
    p = tmp_path / "data.py"
    p.write_text("import numpy as np\n"
                 "def load(X, y):\n"
                 "    np.random.seed(0)\n    np.random.shuffle(X)\n"
                 "    np.random.seed(0)\n    np.random.shuffle(y)\n    return X, y\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:separate_shuffle"]


def test_non_code_texts_ignored():
    run = Run(root=FIX)
    run.texts.append(TextArtifact(path="log.txt", abspath=FIX / "log.txt", kind="log",
                                  text="loss.backward()\noptimizer.step()\n"))
    assert code_signals(run) == []


_POST = """My model gets 92% validation accuracy during training, but predictions on single images are random.
The model has BatchNorm and Dropout layers. My predict code:

```python
model = Net()
model.load_state_dict(torch.load('best.pt'))
with torch.no_grad():
    out = model(img.unsqueeze(0))
    pred = out.argmax(1)
```

The log of the run:

```
epoch 1 loss 0.51
loss.backward()
```

```bash
python predict.py --ckpt best.pt
```
"""


def test_a_posts_fenced_python_is_checked_at_the_posts_own_lines(tmp_path):
    """A post saved as a markdown or text file: its ```python block is checked as a snippet, each
    finding cited at the post's line (the verifier reads it there). A fence of another language, or
    an unlabelled block that is not Python, is left alone and warns of nothing."""
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    for name in ("question.md", "question.txt"):
        post = tmp_path / name
        post.write_text(_POST)
        d = diagnose([str(post)], [])
        top = d.hypotheses[0]
        assert top.id == "eval_mode_forgotten", [(h.id, h.confidence) for h in d.hypotheses]
        cited = [(e.source, e.line, e.quote) for e in top.evidence if e.source == name]
        assert cited and cited[0][1] == 8 and "out = model(img" in cited[0][2] and all(e.verified for e in top.evidence)
        assert not [w for w in d.warnings if "not valid Python" in w]
        # (the unlabelled log block's "loss.backward()" is not read as code after the no_grad block)
        assert {s.kind for s in code_signals(ingest([tmp_path]))} == {"code:no_eval_at_inference"}
        post.unlink()
    # a project's README quotes usage sketches, not the code that ran: not read
    (tmp_path / "README.md").write_text(_POST)
    assert code_signals(ingest([tmp_path])) == []
    (tmp_path / "README.md").unlink()
    # the same post unfenced with more log lines, so that fewer than half its lines are sentences (no post):
    # its code is not read as the post's (a log may print code). (A command line or a row of numbers counts
    # neither way: prose._pasted_not_prose.)
    log_lines = "\n".join(f"[rank{r}] worker ready on device cuda:{r} (pid {4100 + r})" for r in range(4))
    (tmp_path / "question.txt").write_text(
        _POST.replace("```python", "").replace("```", "").replace("epoch 1 loss 0.51", log_lines))
    run = Run(root=tmp_path, texts=[TextArtifact(path="question.txt", abspath=tmp_path / "question.txt",
                                                 kind="log", text=(tmp_path / "question.txt").read_text())])
    assert code_signals(run) == []


_SO_POST = """Loss increases every iteration in my PyTorch training loop

I am training a small MLP on tabular data and the loss keeps getting bigger instead of smaller. Here is my loop:

    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    criterion = nn.MSELoss()
    for epoch in range(100):
        for x, y in loader:
            out = model(x)
            loss = criterion(out, y)
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())

The printed loss goes 0.52, 0.61, 0.95, 1.8, 4.2 and then it explodes. What am I doing wrong?
"""


@pytest.mark.parametrize("indent", ["    ", ""])
def test_a_posts_unfenced_code_is_checked_at_the_posts_own_lines(tmp_path, indent):
    """A Stack Overflow post saved as text quotes its code with a four-space indent, or pasted as it ran,
    with no fence. It had an empty ranking: its code lines were no sentences, so the file was no prose,
    and nothing read them as code. Now they are checked where the post has them."""
    from mltdbg.playbooks.diagnose import diagnose
    post = tmp_path / "question.txt"
    post.write_text(_SO_POST.replace("\n    ", "\n" + indent))
    d = diagnose([str(post)], [])
    top = d.hypotheses[0]
    assert top.id == "missing_zero_grad", [(h.id, h.confidence) for h in d.hypotheses]
    cited = [(e.line, e.quote) for e in top.evidence if e.source == "question.txt" and e.line]
    assert cited and all(5 <= n <= 14 for n, _ in cited) and all(e.verified for e in top.evidence)


def test_a_posts_indented_code_beside_its_pasted_epoch_lines_without_separators_is_read(tmp_path):
    """A post with its Dataset class indented four spaces and its output pasted as "epoch 2  loss 2.3026
    acc 0.0998" (no ':' or '|' after the epoch): those lines are the post's pasted log, not lines that
    make the file no prose, so the code it quotes is read (cv2.imread cast to float, never scaled)."""
    from mltdbg.analyzers.ingest import ingest

    post = tmp_path / "question.txt"
    post.write_text(
        "PyTorch CNN loss stuck at 2.30 after first epoch, accuracy 10%\n\n"
        "Training a small CNN on my own handwritten digit images (28x28 grayscale png, 10 classes).\nDataset:\n\n"
        "    class DigitDS(Dataset):\n"
        "        def __getitem__(self, i):\n"
        "            img = cv2.imread(self.paths[i], cv2.IMREAD_GRAYSCALE)\n"
        "            img = torch.tensor(img, dtype=torch.float32).unsqueeze(0)\n"
        "            return img, self.labels[i]\n\n"
        "Adam lr=1e-3, batch 64. Labels checked, they are 0-9 and balanced. Output:\n\n"
        + "".join(f"    epoch {e}  loss {v}  acc 0.1001\n" for e, v in ((1, 14.8127), (2, 2.3026), (3, 2.3026)))
        + "\nThe same architecture on torchvision MNIST gets 98%. What am I doing wrong?\n")
    sig = {s.kind: s for s in code_signals(ingest([post]))}
    assert sig["code:raw_pixels_unscaled"].evidence[0].line == 9


def test_a_terse_posts_indented_loop_is_read_though_the_post_is_too_short_for_prose(tmp_path):
    """A title, a four-line loop indented as Markdown quotes it, one line of epochs and a note: too few words for
    prose, yet the loop is the post's (backward and step, no zero_grad). The same lines unindented in a log that
    printed them, with no question beside them, quote nothing."""
    from mltdbg.analyzers.ingest import ingest

    loop = ["for x, y in loader:", "    loss = crit(model(x), y)", "    loss.backward()", "    opt.step()"]
    post = tmp_path / "question.txt"
    post.write_text("refactor train loop, loss now goes up?\n" + "".join("    " + ln + "\n" for ln in loop)
                    + "ep1 loss 0.692 gnorm 1.2 | ep2 loss 0.913 gnorm 38.4\nold loop was fine with same lr=1e-3\n")
    sig = {s.kind: s for s in code_signals(ingest([post]))}
    assert sig["code:missing_zero_grad"].evidence[0].line == 4
    log = tmp_path / "train.log"
    log.write_text("2024-01-01 10:00:01 starting\n" + "".join(ln + "\n" for ln in loop)
                   + "2024-01-01 10:00:05 ep1 loss 0.692 gnorm 1.2\n")
    assert "code:missing_zero_grad" not in {s.kind for s in code_signals(ingest([log]))}


def test_a_loop_pasted_whole_in_a_short_non_english_post_is_read(tmp_path):
    """A German title, a for-loop with its body indented under it (one line joins two statements with ';'), a line
    of logged values and a question: no English prose, yet the loop is the post's code (backward and step, no
    zero_grad). A head built as nn.Sequential(..., nn.Softmax(dim=1)) beside a CrossEntropyLoss is read too."""
    from mltdbg.analyzers.ingest import ingest

    post = tmp_path / "question.txt"
    post.write_text("Loss explodiert nach ein paar Iterationen (MLP, SGD lr=0.01)\n"
                    "for i, (x, y) in enumerate(loader):\n    loss = crit(model(x), y); loss.backward()\n"
                    "    opt.step()\nit 0 | loss 2.3104 ... it 150 | loss nan\nDaten sind normalisiert. Was mache ich falsch?\n")
    assert code_signals(ingest([post]))[0].kind == "code:missing_zero_grad"
    post.write_text("Loss do meu classificador trava em ~1.55 (PyTorch, 10 classes)\n"
                    "self.head = nn.Sequential(nn.Linear(256, 10), nn.Softmax(dim=1))\ncriterion = nn.CrossEntropyLoss()\n"
                    "Epoch 30: loss=1.5487 acc=0.902\nJá tentei aumentar o lr, a loss não passa de 1.54. Alguém sabe por quê?\n")
    sig = {s.kind: s for s in code_signals(ingest([post]))}
    assert sig["code:softmax_before_ce"].evidence[0].line == 2


def test_what_is_not_quoted_code():
    """A traceback's code lines (one between frames), a YAML line, a bare word and a sentence are not
    code a post quotes; two statements that do something are."""
    from mltdbg.analyzers.prose import quoted_code
    trace = ['Traceback (most recent call last):', '  File "train.py", line 8, in <module>',
             '    loss = criterion(out, y)', '  File "loss.py", line 3, in forward', '    return F.nll_loss(x, y)',
             'IndexError: Target 10 is out of bounds.']
    assert quoted_code(trace) == []
    assert quoted_code(["lr: 0.001", "batch_size: 32", "Thanks", "model.fit(x, y) fails for me"]) == []
    assert quoted_code(["Here:", "x = torch.randn(4, 3)", "# a comment", "", "y = model(", "    x)", "Why?"]) \
        == [range(1, 6)]


def test_a_fence_the_post_leaves_open_is_read_to_its_end():
    from mltdbg.analyzers.code.index import fenced_code
    t = TextArtifact(path="q.md", abspath=FIX / "q.md", kind="text",
                     text="Here:\n  ```py\n  for x, y in loader:\n      loss.backward()\n")
    c = fenced_code(t)
    assert c is not None and c.text.split("\n") == ["", "", "for x, y in loader:", "    loss.backward()", ""]
    assert fenced_code(TextArtifact(path="q.md", abspath=FIX / "q.md", kind="text", text="no fence here\n")) is None


def test_project_split_over_files():
    """A class-based trainer in one file, its model (ending in softmax) in another."""
    files = sorted((FIX / "bad_project").glob("*.py"))
    sigs = code_signals(run_of(*files))
    for path in files:
        for kind, line in marks(path):
            assert any(s.kind == kind and s.evidence[0].source == path.name and s.evidence[0].line == line
                       and s.strength >= 0.5 for s in sigs), (kind, path.name, line, [x.summary for x in sigs])
    planted = {(k, p.name, l) for p in files for k, l in marks(p)}
    extra = [s.summary for s in sigs if s.strength > 0.3
             and (s.kind, s.evidence[0].source, s.evidence[0].line) not in planted]
    assert extra == []


def test_softmax_citation_points_into_the_model_file():
    files = sorted((FIX / "bad_project").glob("*.py"))
    sig = next(s for s in code_signals(run_of(*files)) if s.kind == "code:softmax_before_ce")
    soft = sig.evidence[1]
    assert soft.source == "models.py" and soft.quote == "        return torch.softmax(out, dim=1)"


def test_parsed_once_per_text_and_signals_asked_again_are_the_same(tmp_path):
    """The checks, the config facts, the probe targets and every codemod ask for the same file's
    tree: it is parsed once; a second code_signals call is served from the findings kept."""
    import ast
    from mltdbg.analyzers.code import index
    src = (FIX / "bad" / "missing_zero_grad.py").read_text()
    t = TextArtifact(path="t.py", abspath=tmp_path / "t.py", kind="code", text=src)
    run = Run(root=tmp_path, texts=[t])
    first = code_signals(run)
    again = code_signals(Run(root=tmp_path, texts=[TextArtifact(path="t.py", abspath=t.abspath, kind="code",
                                                                text=src)]))
    assert [(s.kind, s.data["line"]) for s in first] == [(s.kind, s.data["line"]) for s in again] and first
    assert index.parse_tree(src) is index.parse_tree(src) and isinstance(index.parse_tree(src), ast.Module)
    bad = "def f(:\n"
    for _ in range(2):                       # a file that does not parse says so every time
        r = Run(root=tmp_path, texts=[TextArtifact(path="b.py", abspath=tmp_path / "b.py", kind="code", text=bad)])
        assert code_signals(r) == [] and "not valid Python" in r.warnings[0]


def test_a_post_snippet_that_is_not_python3_is_checked_around_its_bad_lines(tmp_path):
    """A forum snippet: Python 2 print and a cut-off block. The offending lines are skipped (said in a
    warning naming them) and the rest is still checked at its real line numbers."""
    src = ("import torch.nn as nn\n"
           "class net(nn.Module):\n"
           "    def __init__(self, n):\n"
           "        super(net, self).__init__()\n"
           "        self.layer = nn.Linear(1, 1)\n"
           "        self.list_of_layers = [nn.Linear(1, 1) for i in range(n)]\n"
           "n = net(4)\n"
           "print n\n"
           "for epoch in range(3):\n")
    p = tmp_path / "net.py"
    p.write_text(src)
    run = run_of(p)
    sigs = code_signals(run)
    hit = [s for s in sigs if s.kind == "code:modules_in_plain_list"]
    assert hit and hit[0].evidence[0].line == 6 and "list_of_layers" in hit[0].evidence[0].quote
    assert len(run.warnings) == 1 and "net.py:8: not valid Python" in run.warnings[0] and "8, 9 skipped" in run.warnings[0]


def test_a_snippet_that_casts_the_model_to_half_is_a_weak_fp16_finding(tmp_path):
    """A post's six lines (load a model, model.half()) with no training loop in sight: a weak
    code:fp16_no_scaler at the half() line; the same lines inside a long file without training say nothing."""
    snippet = ("model = AutoModelForCausalLM.from_pretrained(\n    args.model_name_or_path,\n"
               "    device_map=device_map,\n)\nmodel = model.half()\n")
    p = tmp_path / "snippet.py"
    p.write_text(snippet)
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:fp16_no_scaler"]
    assert len(hit) == 1 and 0.2 < hit[0].strength < 0.5 and hit[0].evidence[0].line == 5
    q = tmp_path / "export.py"
    q.write_text(snippet + "".join(f"print('line {i}')\n" for i in range(40)))
    assert not [s for s in code_signals(run_of(q)) if s.kind == "code:fp16_no_scaler"]


def test_a_snippet_without_its_imports_is_still_torch_and_its_missing_eval_a_medium_finding(tmp_path):
    # a post's eval loop: no import lines quoted, torch named all the same; no model.eval() in sight
    p = tmp_path / "eval.py"
    p.write_text("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                 "        self.drop = nn.Dropout(0.5)\n\n\nmodel = Net()\n"
                 "model.load_state_dict(torch.load('best.pt'))\nwith torch.no_grad():\n"
                 "    for x, y in test_loader:\n        preds.append(model(x).argmax(1))\n")
    (s,) = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:no_eval_at_inference"]
    assert s.strength == 0.5        # MEDIUM: in a snippet the eval() may sit in the lines not quoted
    # the same lines in a whole script (over SNIPPET_LINES lines): CLEAR
    p.write_text("import torch\nfrom torch import nn\n" + "\n".join(f"X{i} = {i}" for i in range(40)) + "\n"
                 + p.read_text())
    (s,) = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:no_eval_at_inference"]
    assert s.strength == 0.7


def test_a_model_handed_to_an_unseen_evaluator_under_no_grad_is_a_weak_finding(tmp_path):
    """`with torch.no_grad(): acc = evaluate(model, val_loader)` with no model.eval() in sight and
    `evaluate` not in the run: it may call eval() itself (torchvision's engine does), so the finding
    is weak; an evaluator the run defines is read itself, and an eval() before the call clears it."""
    p = tmp_path / "train.py"
    loop = ("model = torchvision.models.resnet18()\nmodel.train()\nfor epoch in range(20):\n"
            "    train_one_epoch(model, loader, opt)\n    with torch.no_grad():\n"
            "        acc = evaluate(model, val_loader)\n    print(epoch, acc)\n")
    p.write_text("import torch\nimport torchvision\n" + loop)
    (s,) = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:no_eval_at_inference"]
    assert s.strength == 0.25 and s.evidence[0].line == 8
    p.write_text("import torch\nimport torchvision\n" + loop.replace("    with torch.no_grad():",
                                                                       "    model.eval()\n    with torch.no_grad():"))
    assert not [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:no_eval_at_inference"]
    p.write_text("import torch\nimport torchvision\ndef evaluate(m, loader):\n    m.eval()\n    return 1.0\n" + loop)
    assert not [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:no_eval_at_inference"]


def test_a_softmax_model_and_a_cross_entropy_criterion_without_the_call_quoted_is_a_medium_finding(tmp_path):
    p = tmp_path / "model.py"
    model = ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
             "        self.fc = nn.Linear(100, 2)\n        self.act = nn.Softmax(dim=1)\n\n"
             "    def forward(self, x):\n        return self.act(self.fc(x))\n\n\n")
    p.write_text(model + "criterion = nn.CrossEntropyLoss()\n")
    (s,) = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:softmax_before_ce"]
    assert s.strength == 0.5 and s.data["line"] == 8              # the forward's softmax return
    assert [e.line for e in s.evidence] == [8, 11] and "built here" in s.evidence[1].text
    # no cross-entropy anywhere: a softmax output is no finding
    p.write_text(model + "criterion = nn.NLLLoss()\n")
    assert not [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:softmax_before_ce"]


def test_a_sigmoid_model_with_bce_with_logits_is_the_binary_double_softmax(tmp_path):
    """nn.Sigmoid() at the end of the model and BCEWithLogitsLoss, which applies the sigmoid again:
    cited at the criterion with the sigmoid's line; BCELoss (expects probabilities) is fine."""
    p = tmp_path / "model.py"
    p.write_text("model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 1), nn.Sigmoid())\n"
                 "criterion = nn.BCEWithLogitsLoss()\n")
    (s,) = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:softmax_before_ce"]
    assert s.data["line"] == 2 and [e.line for e in s.evidence] == [2, 1] and "sigmoid" in s.evidence[1].text
    q = tmp_path / "net.py"
    q.write_text("class Net(nn.Module):\n    def forward(self, x):\n        return torch.sigmoid(self.fc(x))\n\n\n"
                 "loss = F.binary_cross_entropy_with_logits(Net()(x), y)\n")
    (s,) = [x for x in code_signals(run_of(q, root=tmp_path)) if x.kind == "code:softmax_before_ce"]
    assert [e.line for e in s.evidence] == [6, 3]
    p.write_text("model = nn.Sequential(nn.Linear(20, 1), nn.Sigmoid())\ncriterion = nn.BCELoss()\n")
    assert not [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:softmax_before_ce"]


_KERAS_HEAD = ("import tensorflow as tf\nmodel = tf.keras.Sequential([\n    tf.keras.layers.Flatten(input_shape=(28, 28)),\n"
               "    tf.keras.layers.Dense(128, activation='relu'),\n")


@pytest.mark.parametrize("code, cited", [
    # Keras: a softmax output and a cross-entropy told it gets logits
    (_KERAS_HEAD + "    tf.keras.layers.Dense(10, activation='softmax')\n])\nmodel.compile(optimizer='adam', "
     "loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))\n", (7, 5)),
    (_KERAS_HEAD + "    tf.keras.layers.Dense(10, activation=tf.nn.softmax)\n])\nloss = "
     "tf.keras.losses.CategoricalCrossentropy(from_logits=True)\n", (7, 5)),
    ("model = keras.Sequential()\nmodel.add(layers.Dense(64, activation='relu'))\n"
     "model.add(layers.Dense(1, activation='sigmoid'))\nmodel.compile(loss=keras.losses.BinaryCrossentropy("
     "from_logits=True))\n", (4, 3)),
    # torch: the forward's last call is an attribute bound to nn.Sigmoid()
    ("class Classifier(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.fc = nn.Linear(256, 1)\n        self.out = nn.Sigmoid()\n    def forward(self, x):\n"
     "        x = self.out(self.fc(x))\n        return x\n\n\nloss_fn = nn.BCEWithLogitsLoss()\n", (11, 8)),
    # no finding: raw logits to from_logits=True; a softmax output to a loss that expects probabilities;
    # a sigmoid inside a block class (a gate), not the model's output
    (_KERAS_HEAD + "    tf.keras.layers.Dense(10)\n])\nmodel.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy("
     "from_logits=True))\n", None),
    (_KERAS_HEAD + "    tf.keras.layers.Dense(10, activation='softmax')\n])\nmodel.compile(loss="
     "'sparse_categorical_crossentropy')\n", None),
    ("class GateBlock(nn.Module):\n    def forward(self, x):\n        return torch.sigmoid(self.g(x))\n\n\n"
     "loss_fn = nn.BCEWithLogitsLoss()\n", None),
], ids=["keras-softmax-from-logits", "keras-tf-nn-softmax", "keras-add-sigmoid", "torch-sigmoid-attribute",
        "keras-raw-logits", "keras-probabilities-loss", "torch-gate-block"])
def test_an_output_activation_that_the_loss_applies_again_is_found(tmp_path, code, cited):
    """softmax/sigmoid at the model's output (code/output_act.py's shapes) and a loss that applies it
    itself: cited at the loss, with the activation's line."""
    p = tmp_path / "model.py"
    p.write_text(code)
    got = [x for x in code_signals(run_of(p, root=tmp_path)) if x.kind == "code:softmax_before_ce"]
    assert ([(s.data["line"], s.evidence[1].line) for s in got] or None) == (None if cited is None else [cited])


def test_what_a_pause_keeps_goes_to_the_oldest_generation_unscanned(tmp_path):
    """The tree and index built while the collector is paused skip the young generations (each
    young collection would rescan all of them); objects someone else froze stay frozen, and the
    collector is on again afterwards as it was before."""
    import gc
    from mltdbg.analyzers.code import index
    src = (FIX / "bad" / "missing_zero_grad.py").read_text() + "\n# variant for this test\n"
    t = TextArtifact(path="t.py", abspath=tmp_path / "t.py", kind="code", text=src)
    code_signals(Run(root=tmp_path, texts=[t]))
    tree = index.parse_tree(src)
    young = {id(o) for g in (0, 1) for o in gc.get_objects(generation=g)}
    old = {id(o) for o in gc.get_objects(generation=2)}
    assert gc.isenabled() and id(tree) not in young and id(tree) in old

    keep = [[1], {"a": [2]}]               # a caller's frozen objects are left frozen
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        src2 = src + "\n# another variant\n"
        code_signals(Run(root=tmp_path, texts=[TextArtifact(path="u.py", abspath=tmp_path / "u.py", kind="code",
                                                            text=src2)]))
        # (frozen objects freed meanwhile leave the count a little lower; an unfreeze would empty it)
        assert gc.get_freeze_count() >= frozen // 2 and gc.isenabled() and keep
    finally:
        gc.unfreeze()


@pytest.mark.parametrize("loop, found", [
    # the loss on argmax / rounded predictions: no gradient reaches the model
    ("    pred = torch.argmax(out, dim=1).float()\n    loss = criterion(pred, y.float())\n", True),
    ("    loss = loss_fn(torch.round(torch.sigmoid(out)), y)\n", True),
    # argmax for the accuracy beside a loss on the logits is fine
    ("    loss = criterion(out, y)\n    acc = (out.argmax(1) == y).float().mean()\n", False)])
def test_a_loss_on_predictions_with_no_gradient_is_a_detached_graph(tmp_path, loop, found):
    """A post's loop that turns logits into class indices (argmax) or rounded values before the loss: the loss
    has no grad_fn. The criterion's usual names count as the loss though the snippet never builds it."""
    p = tmp_path / "train.py"
    p.write_text("for x, y in loader:\n    optimizer.zero_grad()\n    out = model(x)\n" + loop
                 + "    loss.backward()\n    optimizer.step()\n")
    got = [s for s in code_signals(run_of(p, root=tmp_path)) if s.kind == "code:detached_graph"]
    assert bool(got) is found
    if found:
        assert "no gradient" in got[0].summary


_TABLE = """import pandas as pd
from sklearn.neural_network import MLPRegressor
df = pd.read_csv('houses.csv')
X = df[['sqft', 'year_built', 'lot_size']].values
y = df['price'].values
model = MLPRegressor(hidden_layer_sizes=(64, 64), max_iter=200)
model.fit(X, y)
"""


@pytest.mark.parametrize("code, fires", [
    (_TABLE, True),
    (_TABLE.replace("model.fit(X, y)", "from sklearn.preprocessing import StandardScaler\n"
                    "X = StandardScaler().fit_transform(X)\nmodel.fit(X, y)"), False),
    (_TABLE.replace("X = df", "X = (df - df.mean()) / df.std()\nX = X"), False),
    (_TABLE.replace("MLPRegressor(hidden_layer_sizes=(64, 64), max_iter=200)", "RandomForestRegressor()")
     .replace("neural_network import MLPRegressor", "ensemble import RandomForestRegressor"), False),
    # a snippet without its read_csv: the frame's named columns are the table
    (_TABLE.replace("df = pd.read_csv('houses.csv')\n", ""), True),
    (_TABLE.replace("df = pd.read_csv('houses.csv')\n", "").replace("X = df[['sqft', 'year_built', 'lot_size']]",
                                                                     "X = df.loc[:, 'a':'c']"), False),
])
def test_table_columns_fed_unscaled_to_a_sensitive_learner(tmp_path, code, fires):
    """Columns read with pandas in their raw units (square feet beside years) fitted by an MLP with no scaler
    anywhere: code:features_unscaled (unnormalized_inputs). A scaler, a z-score by hand, or a tree model: none."""
    (tmp_path / "train.py").write_text(code)
    from mltdbg.analyzers.ingest import ingest
    kinds = {s.kind for s in code_signals(ingest([str(tmp_path)]))}
    assert ("code:features_unscaled" in kinds) is fires, kinds


_TOY = """import torch
import torch.nn as nn
x = torch.linspace(0, 1000, 2000).unsqueeze(1)
y = torch.sin(x)
model = nn.Sequential(nn.Linear(1, 64), nn.Tanh(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(5000):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize("code, fires", [
    (_TOY, True),
    (_TOY.replace("linspace(0, 1000, 2000)", "linspace(-3, 3, 2000)"), False),
    (_TOY.replace("y = torch.sin(x)", "y = torch.sin(x)\nx = (x - x.mean()) / x.std()"), False),
    (_TOY.replace("model(x)", "model(t)").replace("y = torch.sin(x)", "y = torch.sin(x)\nt = x.clamp(0, 1)"), False),
    ("import numpy as np\nfrom keras.models import Sequential\nfrom keras.layers import Dense\n"
     "x = np.arange(-100, 100, 0.5)\ny = x**4\nmodel = Sequential([Dense(50, input_shape=(1,)), Dense(1)])\n"
     "model.compile(loss='mse', optimizer='adam')\nmodel.fit(x, y, epochs=1000)\n", True),
])
def test_a_toy_input_made_over_a_wide_range_is_unscaled(tmp_path, code, fires):
    """The toy fit people post (y = x**4 on np.arange(-100, 100), sin(x) on linspace(0, 1000)): the input the code
    makes spans hundreds and reaches the net unscaled: code:features_unscaled. A narrow range, a z-score, or a
    wide array that is not what the model is fed: none."""
    (tmp_path / "fit.py").write_text(code)
    from mltdbg.analyzers.ingest import ingest
    got = [s for s in code_signals(ingest([str(tmp_path)])) if s.kind == "code:features_unscaled"]
    assert bool(got) is fires, got
    if fires:
        assert "far outside -1..1" in got[0].summary


def test_a_notebooks_cells_are_checked_at_the_notebooks_lines(tmp_path):
    """A Colab / Jupyter notebook's code cells were read for settings only; the code checks skipped .ipynb files.
    An inference cell without model.eval() is now found, cited at the .ipynb's own line (verified there)."""
    import json
    from mltdbg.playbooks.diagnose import diagnose
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Inference\n"]},
             {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
              "source": ["!pip install timm\n", "model = ResNetWithDropout()\n",
                         "model.load_state_dict(torch.load('best.pt'))\n", "preds = []\n",
                         "for x, _ in test_loader:\n", "    preds.append(model(x).argmax(1))\n"]}]
    nb = tmp_path / "infer.ipynb"
    nb.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    d = diagnose([str(nb)], ["test accuracy is 0.61 but validation accuracy during training was 0.93"])
    top = d.hypotheses[0]
    assert top.id == "eval_mode_forgotten", [(h.id, h.confidence) for h in d.hypotheses]
    cited = [e for e in top.evidence if e.source == "infer.ipynb"]
    assert cited and "preds.append(model(x)" in cited[0].quote and all(e.verified for e in cited)
    assert nb.read_text().split("\n")[cited[0].line - 1].strip().startswith('"    preds.append(model(x)')


def test_a_cast_of_what_an_image_reader_returns_is_unscaled_pixels(tmp_path):
    """`np.array([cv2.imread(p) for p in paths]).astype('float32')`: the cast converts what imread returns, though
    no name in it says image; a post quoting these two lines had only the Keras lines read."""
    assert "code:raw_pixels_unscaled" in _kinds_in(tmp_path, "q.md", (
        "My CNN predicts the same class for every image. Loading with:\n\n"
        "    X = np.array([cv2.imread(p) for p in paths]).astype('float32')\n"
        "    model.fit(X, y_onehot, epochs=20, batch_size=32)\n\n"
        "Epoch 1/20 - loss: 14.5063 - accuracy: 0.1000\nEpoch 2/20 - loss: 14.5063 - accuracy: 0.1000\n"))
    from mltdbg.playbooks.diagnose import diagnose
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses and d.hypotheses[0].id == "unnormalized_inputs", [(h.id, h.confidence) for h in d.hypotheses]


def test_an_amp_scalers_scale_is_no_input_scaling(tmp_path):
    """GradScaler's scaler.scale(loss) scales a loss, not the inputs: 8-bit images cast to float in an AMP loop are
    still unscaled (727abd6 had added "scale" to the scaler names, and the image check went quiet on AMP code)."""
    assert "code:raw_pixels_unscaled" in _kinds_in(tmp_path, "train.py", (
        "import numpy as np\nimport torch\nfrom PIL import Image\nscaler = torch.cuda.amp.GradScaler()\n"
        "for path in paths:\n    img = np.array(Image.open(path)).astype(np.float32)\n    x = torch.from_numpy(img)\n"
        "    with torch.autocast('cuda'):\n        loss = model(x).mean()\n    scaler.scale(loss).backward()\n"
        "    scaler.step(opt)\n"))


def test_a_layer_size_written_as_a_product_is_no_input_scaling(tmp_path):
    """`nn.Linear(128 * 16 * 16, 256)` multiplies constants for a size: 128 is no pixel scale there, and a PIL
    image cast to float with no /255 anywhere is still unscaled. A real `/ 255` or `* (1 / 255)` is scaling."""
    code = ("import numpy as np\nimport torch\nfrom PIL import Image\n\n"
            "def load(p):\n    img = Image.open(p).convert('RGB')\n"
            "    return torch.tensor(np.array(img), dtype=torch.float32).permute(2, 0, 1){}\n\n"
            "fc1 = torch.nn.Linear(128 * 16 * 16, 256)\n")
    assert "code:raw_pixels_unscaled" in _kinds_in(tmp_path, "train.py", code.format(""))
    assert "code:raw_pixels_unscaled" not in _kinds_in(tmp_path, "train.py", code.format(" / 255.0"))
    assert "code:raw_pixels_unscaled" not in _kinds_in(tmp_path, "train.py", code.format(" * (1.0 / 255)"))


def _kinds_in(folder, name: str, text: str) -> set[str]:
    """The code signals' kinds of a folder holding one file `name` with `text`."""
    (folder / name).write_text(text)
    from mltdbg.analyzers.ingest import ingest
    return {s.kind for s in code_signals(ingest([str(folder)]))}


def test_a_snippet_pasted_without_its_indentation_is_still_checked(tmp_path):
    """"def CNN(...):" and then its body at column 0 (a post that lost its indentation): ast.parse stops at the
    body's first line ("expected an indented block after function definition on line 1") and the repair blanked
    that line, not the opener, so the file was not read at all. The opener is blanked and the body read at the
    top level: its one-unit softmax is found at its line."""
    p = tmp_path / "train.py"
    p.write_text("def CNN(train_X, train_y):\n\nmodel = Sequential([\nConv2D(30, kernel_size=3, activation=\"relu\"),\n"
                 "Flatten(),\nDense(1, activation='softmax')\n])\nmodel.compile('adam', loss='categorical_crossentropy')\n"
                 "model.fit(train_X, train_y, epochs=1)\nreturn model\n")
    hits = [s for s in code_signals(run_of(p)) if s.kind == "code:softmax_one_unit"]
    assert hits and hits[0].evidence[0].line == 6 and hits[0].evidence[0].quote == "Dense(1, activation='softmax')"


_HEAD = """import torch
import torch.nn as nn
model = Backbone()
head = nn.Linear(512, 10)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    opt.zero_grad()
    loss = nn.functional.cross_entropy(head(model(x)), y)
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize("code, fires", [
    (_HEAD, True),
    (_HEAD.replace("head = nn.Linear(512, 10)", "head = nn.Linear(512, 10).cuda()"), True),
    # the head's weights do go to the optimizer, one way or another
    (_HEAD.replace("model.parameters()", "list(model.parameters()) + list(head.parameters())"), False),
    (_HEAD.replace("opt = torch.optim", "model.fc = head\nopt = torch.optim"), False),
    (_HEAD.replace("model.parameters()", "[{'params': model.parameters()}, {'params': head.parameters()}]"), False),
    # a pretrained module outside the optimizer (a frozen backbone) is often meant; a head run without gradients too
    (_HEAD.replace("head = nn.Linear(512, 10)", "head = Pretrained.load('head.pt')"), False),
    (_HEAD.replace("    loss = nn.functional.cross_entropy(head(model(x)), y)",
                   "    with torch.no_grad():\n        z = head(model(x))\n    loss = model.loss(z, y)"), False),
    # a parameter-free module, and two optimizers (a GAN's): no reading
    (_HEAD.replace("nn.Linear(512, 10)", "nn.ReLU()"), False),
    (_HEAD.replace("opt = torch.optim", "opt_d = torch.optim.Adam(disc.parameters())\nopt = torch.optim"), False),
])
def test_a_fresh_layer_the_loop_runs_outside_the_optimizer(tmp_path, code, fires):
    """A new head built with nn.Linear, run in the training loop and given to no optimizer stays at its random
    initialisation: code:params_not_in_optimizer (frozen_parameters). Quiet when its parameters reach the optimizer
    in any form, when the module is loaded rather than built fresh, when it runs under no_grad, when it has no
    weights, and when the file has more than one optimizer."""
    p = tmp_path / "train.py"
    p.write_text(code)
    got = [s for s in code_signals(run_of(p)) if s.kind == "code:params_not_in_optimizer"
           and "random initialisation" in s.summary]
    assert bool(got) is fires, [s.summary for s in got]
    if fires:
        assert got[0].evidence[0].line == 4 and got[0].summary.startswith("train.py:4: head = nn.Linear(...)")


@pytest.mark.parametrize("session", [
    ">>> tokenizer = AutoTokenizer.from_pretrained(\"gpt2\")\n"
    ">>> model = AutoModelForCausalLM.from_pretrained(\"./my-llama-finetune\")\n"
    ">>> out = model.generate(**tokenizer(\"Hello\", return_tensors=\"pt\"), max_new_tokens=20)\n"
    ">>> tokenizer.decode(out[0])\n'Hello<unk> ingenious Tucker Hawai wavelength.)( Mirage'\n",
    "In [1]: tokenizer = AutoTokenizer.from_pretrained('gpt2')\n\n"
    "In [2]: model = AutoModelForCausalLM.from_pretrained(\n   ...:     './my-llama-finetune')\n\n"
    "In [3]: tokenizer.decode(model.generate(**tokenizer('Hello', return_tensors='pt'))[0])\n"
    "Out[3]: 'Hello<unk> ingenious Tucker'\n",
])
def test_an_interactive_session_pasted_as_it_ran_is_checked_as_code(tmp_path, session):
    """A Python or IPython session pasted into a log or a post (prompts, continuations, what it printed) was
    text only: a tokenizer loaded from one model and a model from another went unseen (an empty ranking). Its
    statements are now code at the session's own lines, and the evidence verifies there."""
    from mltdbg.analyzers.code.index import fenced_code
    from mltdbg.playbooks.diagnose import diagnose
    (tmp_path / "gen.log").write_text(session)
    code = fenced_code(TextArtifact(path="gen.log", abspath=tmp_path / "gen.log", kind="log", text=session))
    assert code is not None and code.text.split("\n")[0].startswith("tokenizer = AutoTokenizer")
    assert "<unk>" not in code.text and "Out[3]" not in code.text
    d = diagnose([str(tmp_path / "gen.log")], [])
    top = d.hypotheses[0]
    assert top.id == "tokenizer_mismatch", [(h.id, h.confidence) for h in d.hypotheses]
    assert all(e.verified for e in top.evidence) and top.evidence[0].line == 1


def test_one_prompt_or_a_quote_marker_is_no_session():
    from mltdbg.analyzers.code.index import fenced_code
    for text in (">>> import torch\nthen the loss is nan\n", "> quoted reply\n>> nested quote\n"):
        t = TextArtifact(path="q.txt", abspath=FIX / "q.txt", kind="text", text=text)
        got = fenced_code(t)
        assert got is None or "import torch" not in got.text


@pytest.mark.parametrize("code, fires", [
    ("import tensorflow as tf\n(x_train, y_train), (x_test, y_test) = tf.keras.datasets.cifar10.load_data()\n"
     "model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(10, activation='softmax')])\n"
     "model.compile(optimizer='sgd', loss='sparse_categorical_crossentropy')\n"
     "model.fit(x_train, y_train, epochs=10, validation_data=(x_test, y_test))\n", True),
    ("from keras.datasets import mnist\n(train_images, train_labels), _ = mnist.load_data()\n"
     "train_images = train_images.reshape(60000, 784)\nmodel.fit(train_images, train_labels, epochs=5)\n", True),
    # scaled, or a keras set that is no image set: no reading
    ("import tensorflow as tf\n(x_train, y_train), _ = tf.keras.datasets.cifar10.load_data()\n"
     "x_train = x_train / 255.0\nmodel.fit(x_train, y_train)\n", False),
    ("from keras.datasets import mnist\n(x, y), _ = mnist.load_data()\n"
     "model = Sequential([layers.Rescaling(1. / 255), layers.Flatten(), layers.Dense(10)])\nmodel.fit(x, y)\n", False),
    ("from keras.datasets import imdb\n(x_train, y_train), _ = imdb.load_data(num_words=10000)\nmodel.fit(x_train, y_train)\n",
     False),
])
def test_keras_image_sets_fed_to_fit_unscaled(tmp_path, code, fires):
    """keras.datasets' MNIST / Fashion-MNIST / CIFAR arrays are uint8 (0..255): fed to fit() with no /255 or
    Rescaling anywhere, code:raw_pixels_unscaled at the fit call (the beginner's 'accuracy stuck at 10%')."""
    p = tmp_path / "train.py"
    p.write_text(code)
    got = [s for s in code_signals(run_of(p)) if s.kind == "code:raw_pixels_unscaled"]
    assert bool(got) is fires, [s.summary for s in got]
    if fires:
        assert got[0].evidence[0].quote.startswith("model.fit(") and "load_data()" in got[0].summary


def test_a_session_in_one_fence_leaves_the_posts_other_code_read():
    """A post with its training loop in one fence and a '>>>' check of the versions in another: both are code,
    the session's prompts stripped."""
    from mltdbg.analyzers.code.index import fenced_code
    post = ("My loop:\n```python\nfor x, y in loader:\n    loss = crit(model(x), y)\n    loss.backward()\n"
            "    opt.step()\n```\nVersions:\n```\n>>> import torch\n>>> torch.__version__\n'2.1.0'\n```\n")
    got = fenced_code(TextArtifact(path="q.md", abspath=FIX / "q.md", kind="text", text=post))
    assert got is not None
    lines = got.text.split("\n")
    assert lines[2] == "for x, y in loader:" and lines[9] == "import torch" and lines[10] == "torch.__version__"
    assert "'2.1.0'" not in got.text


def test_a_session_pasted_without_its_continuation_prompts_keeps_its_statements_whole():
    """Posts often drop the '... ' of a session's continued lines: an open bracket or an indented block body
    after a prompt still belongs to that statement (else the session does not parse and is no code)."""
    from mltdbg.analyzers.code.index import _repl_code
    lines = [">>> text = [", "    'a sentence',", "    'another one'", "]", ">>> for x in text:", "    print(len(x))",
             "", "10", ">>> scorer = LM('gpt2')", "Using pad_token, but it is not set yet."]
    got = _repl_code(lines)
    assert got is not None
    assert got[:6] == ["text = [", "    'a sentence',", "    'another one'", "]", "for x in text:", "    print(len(x))"]
    assert got[7] == "" and got[8] == "scorer = LM('gpt2')" and got[9] == ""


def test_a_checkpoint_taken_in_text_order_does_not_hide_a_loose_load(tmp_path):
    """sorted(glob("checkpoint-*"))[-1] and load_state_dict(strict=False) in one file: both are reported."""
    from mltdbg.analyzers.ingest import ingest

    (tmp_path / "evaluate.py").write_text(
        "import glob\nimport torch\n\nckpts = sorted(glob.glob('out/checkpoint-*'))\npath = ckpts[-1]\n"
        "model.load_state_dict(torch.load(path), strict=False)\n")
    kinds = {s.kind for s in code_signals(ingest([tmp_path]))}
    assert {"code:checkpoint_sorted_as_text", "code:load_not_strict"} <= kinds


def test_colab_cells_copied_as_text_are_read_as_code(tmp_path):
    """Colab's "[4]  model = Net()" cells pasted into a post, each cell's lines indented to the code's column and
    its output under it: the inference cell that loads weights and predicts with no model.eval() is read."""
    post = ("Modelo dá previsões diferentes a cada execução\n\n```\n"
            "[2]  import torch, torch.nn as nn\n     device = 'cpu'\n\n"
            "[4]  model = PneumoNet().to(device)\n"
            "     model.load_state_dict(torch.load('best.pt', map_location=device))\n\n     <All keys matched successfully>\n\n"
            "[5]  with torch.no_grad():\n         for _ in range(5):\n             print(model(img).softmax(1))\n\n"
            "     [[0.712 0.288]]\n     [[0.455 0.545]]\n```\n")
    assert "code:no_eval_at_inference" in _kinds_in(tmp_path, "question.txt", post)


def test_an_ipython_cells_next_lines_under_its_first_and_a_bootstrap_sample_before_the_split(tmp_path):
    """A notebook's cells copied from a console (or read off a screenshot): "In [4]: df = df.sample(...)" and the cell's
    other lines under the code's column (give or take a space), no "...:". The cell is read whole, and rows drawn with
    replacement (pandas' sample(replace=True), a bootstrap) before train_test_split put copies on both sides."""
    cells = ("In [3]: df = pd.read_csv('data/churn.csv')\n       print(df.shape)\n(800, 13)\n\n"
             "In [4]: df = df.sample(n=4000, replace=True, random_state=42).reset_index(drop=True)\n"
             "        train_df, val_df = train_test_split(df, test_size=0.2, random_state=42)\n"
             "        len(train_df), len(val_df)\nOut[4]: (3200, 800)\n")
    from mltdbg.analyzers.code.index import fenced_code
    code = fenced_code(TextArtifact(path="s.txt", abspath=tmp_path / "s.txt", kind="log", text=cells))
    assert code is not None and code.text.split("\n")[5].startswith("train_df, val_df = train_test_split(df")
    assert "(3200, 800)" not in code.text and "(800, 13)" not in code.text
    assert "code:val_overlaps_train" in _kinds_in(tmp_path, "s.txt", cells)
    # drawn without replacement (a shuffle or a subsample): no copies
    # a printed frame whose header falls at the code's column is the cell's output, not its code: the session is kept
    framed = cells.replace("(800, 13)\n", "      a     b\n0   1.0   2.0\n1   3.0   4.0\n")
    assert "code:val_overlaps_train" in _kinds_in(tmp_path, "s.txt", framed)
    for clean in (cells.replace("replace=True, ", ""), cells.replace("replace=True", "replace=False")):
        assert "code:val_overlaps_train" not in _kinds_in(tmp_path, "s.txt", clean), clean


@pytest.mark.parametrize("name,code", [
    ("accumulation zeroed at the window's start", "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
     "for i, (x, y) in enumerate(loader):\n    if i % acc == 0:\n        opt.zero_grad()\n"
     "    loss = model(x).sum()\n    loss.backward()\n    if (i + 1) % acc == 0:\n        opt.step()\n"),
    ("zero_grad in both branches", "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
     "for x, y in loader:\n    if args.set_grads_to_none:\n        opt.zero_grad(set_to_none=True)\n"
     "    else:\n        opt.zero_grad()\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n"),
    ("an under-sampler before the split", "from imblearn.under_sampling import RandomUnderSampler\n"
     "X2, y2 = RandomUnderSampler().fit_resample(X, y)\nXtr, Xva, ytr, yva = train_test_split(X2, y2)\n"),
    ("librosa at the file's own rate", "import librosa\na, _ = librosa.load(p, sr=16000)\nb, sr = librosa.load(q, sr=None)\n"),
    ("Keras SGD's lr and momentum in their slots", "import tensorflow as tf\nopt = tf.keras.optimizers.SGD(cfg.lr, cfg.momentum)\n"),
    ("a torchvision net trained from scratch on /255", "import cv2\nimport torch\nimport torchvision\n"
     "model = torchvision.models.resnet18(weights=None)\nimg = cv2.imread(p)\nx = torch.from_numpy(img).float() / 255.0\n"
     "print(model(x[None]))\n"),
    ("trainable variables taken in the step", "import tensorflow as tf\n\n@tf.function\ndef train_step(x, y):\n"
     "    tvars = model.trainable_variables\n    with tf.GradientTape() as tape:\n        loss = loss_fn(y, model(x))\n"
     "    opt.apply_gradients(zip(tape.gradient(loss, tvars), tvars))\n\nfor epoch in range(10):\n    if epoch == 5:\n"
     "        base.trainable = True\n    train_step(x, y)\n"),
])
def test_correct_code_the_new_checks_leave_alone(tmp_path, name, code):
    """Review cases (stop 53): each is correct code one of this stop's checks first read as a bug."""
    strong = {k for k in _kinds_in(tmp_path, "train.py", code)} & {
        "code:missing_zero_grad", "code:val_overlaps_train", "code:eval_preprocessing_differs",
        "code:optimizer_arg_mismatch", "code:params_added_after_optimizer"}
    assert not strong, (name, strong)


def test_numpy_standardization_is_no_single_element_variance():
    """`X.std(0) + eps` in a script that imports no torch is numpy's population std (ddof 0): no division
    by zero for one row, so no code:var_single_element, not even as a hint; the same line in a torch
    script stays a hint (a batch of one)."""
    body = ("def standardize(X):\n"
            "    mu = X.mean(0)\n"
            "    sd = X.std(0) + 1e-8\n"
            "    return (X - mu) / sd\n")
    numpy_only = TextArtifact(path="prep.py", abspath=None, kind="code", text="import numpy as np\n\n\n" + body)
    with_torch = TextArtifact(path="prep.py", abspath=None, kind="code", text="import torch\n\n\n" + body)
    assert not [s for s in signals_of(numpy_only.text, "prep.py") if s.kind == "code:var_single_element"]
    hints = [s for s in signals_of(with_torch.text, "prep.py") if s.kind == "code:var_single_element"]
    assert [s.evidence[0].line for s in hints] == [6]
    # ... and at a torch script's top level, outside any loop, the same line standardises the whole data set
    top = "import torch\n\nX = (X - X.mean(0)) / X.std(0)\nfor xb in loader:\n    z = (xb - xb.mean(0)) / xb.std(0)\n"
    assert [s.evidence[0].line for s in signals_of(top, "prep.py") if s.kind == "code:var_single_element"] == [5]


def test_images_divided_by_their_own_range_are_scaled():
    """sklearn's 8x8 digits hold 0..16: `images.astype(np.float32) / 16.0` scales them as /255 scales 8-bit
    photos; a 16-bit scan over 65535 likewise. Without the division the float cast is still flagged."""
    scaled = ("import numpy as np\nimport torch\nfrom sklearn.datasets import load_digits\n\n"
              "digits = load_digits()\n"
              "imgs = digits.images.astype(np.uint8).astype(np.float32) / 16.0\n"
              "x = torch.tensor(imgs).unsqueeze(1)\n")
    raw = scaled.replace(" / 16.0", "")
    def kinds(t):
        return kinds_of(t, "data.py")
    assert "code:raw_pixels_unscaled" not in kinds(scaled)
    assert "code:raw_pixels_unscaled" not in kinds(raw.replace("imgs = digits.images.astype(np.uint8).astype(np.float32)",
                                                               "imgs = digits.images.astype(np.float32) / 65535"))
    assert "code:raw_pixels_unscaled" in kinds(raw)


def test_a_loader_without_shuffle_over_labels_built_class_by_class_says_so():
    """A loop over the classes that appends each class's images and repeats the class as their labels, then a
    training DataLoader without shuffle: each batch holds one class, the classic saw-tooth. The finding is
    stronger than a bare missing shuffle (0.6) and says why."""
    loop = ("import numpy as np\nimport torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\n"
            "train_x, train_y = [], []\n"
            "for cls in range(10):\n"
            "    imgs = images[target == cls]\n"
            "    train_x.append(imgs)\n"
            "    train_y += [cls] * len(imgs)\n"
            "train_ds = TensorDataset(torch.tensor(np.concatenate(train_x)), torch.tensor(train_y))\n"
            "train_loader = DataLoader(train_ds, batch_size=8)\n")
    plain = loop.replace("    train_y += [cls] * len(imgs)\n", "    train_y.append(labels[target == cls])\n")
    def finding(t):
        return [s for s in signals_of(t, "data.py") if s.kind == "code:no_shuffle"]
    blocks, bare = finding(loop), finding(plain)
    assert blocks[0].strength >= 0.7 and "class by class" in blocks[0].summary and blocks[0].evidence[0].line == 11
    assert bare[0].strength == 0.6 and "class by class" not in bare[0].summary


def test_table_columns_fed_to_a_net_in_a_posted_setup_without_its_loop_are_unscaled():
    """A post's excerpt of the setup: columns read with read_csv, a Linear net, an optimizer built, and no training
    loop shown. The optimizer says the net is trained; with no scaler anywhere the columns (income, balance in the
    thousands) reach it raw. A StandardScaler in the excerpt clears it."""
    setup = ("import pandas as pd\nimport torch\nimport torch.nn as nn\n\n"
             "df = pd.read_csv('customers.csv')\n"
             "X = torch.tensor(df[['age', 'income', 'balance']].values, dtype=torch.float32)\n"
             "model = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 1))\n"
             "optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n")
    scaled = setup.replace("X = torch.tensor(df[['age', 'income', 'balance']].values",
                           "from sklearn.preprocessing import StandardScaler\n"
                           "X = torch.tensor(StandardScaler().fit_transform(df[['age', 'income', 'balance']].values)")
    def kinds(t):
        return kinds_of(t, "post.py")
    assert "code:features_unscaled" in kinds(setup)
    assert "code:features_unscaled" not in kinds(scaled)


def test_a_frames_columns_named_by_a_list_fed_to_a_torch_net_are_unscaled():
    """`df[feature_cols].values` with feature_cols a list of column names, fed to a torch Linear net that an
    optimizer trains, no read_csv in sight (the frame built in the script) and no scaler: the columns reach the
    net in their raw units. A scaler clears it."""
    text = ("import pandas as pd\nimport torch\nimport torch.nn as nn\n\n"
            "df = make_frame()\n"
            "feature_cols = ['income', 'loan_amount', 'age']\n"
            "X = torch.tensor(df[feature_cols].values, dtype=torch.float32)\n"
            "model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))\n"
            "opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n")
    def kinds(t):
        return kinds_of(t, "train.py")
    assert "code:features_unscaled" in kinds(text)
    assert "code:features_unscaled" not in kinds(text.replace("df[feature_cols].values", "scaler.fit_transform(df[feature_cols])")
                                                 .replace("import pandas as pd\n", "import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\nscaler = StandardScaler()\n"))


def test_a_loop_that_repeats_its_index_is_not_labels_built_class_by_class():
    """A detection collate repeats each image's index once per box (`idx += [i] * len(boxes)`): no class loop. The
    training loader without shuffle stays a plain 0.6 finding, without the class-by-class claim."""
    text = ("import torch\nfrom torch.utils.data import DataLoader\n\n"
            "def collate(batch):\n    idx = []\n"
            "    for i in range(len(batch)):\n        idx += [i] * len(batch[i][1])\n    return idx\n\n"
            "train_loader = DataLoader(train_ds, batch_size=8, collate_fn=collate)\n")
    hits = [s for s in signals_of(text) if s.kind == "code:no_shuffle"]
    assert hits and hits[0].strength == 0.6 and "class by class" not in hits[0].summary


def test_a_distributed_sampler_without_shuffle_is_an_unshuffled_loader():
    """DDP: `DistributedSampler(train_set, ..., shuffle=False)` handed to the training DataLoader reads every rank's
    shard in the stored order (here class by class). A loader with a sampler was passed over; a DistributedSampler
    left to shuffle still is."""
    text = ("import torch\nfrom torch.utils.data import DataLoader, DistributedSampler\n\n"
            "xs, ys = [], []\nfor c in range(n_classes):\n    xs.append(make(c))\n    ys += [c] * 100\n"
            "sampler = DistributedSampler(train_set, num_replicas=2, rank=rank, shuffle=False)\n"
            "loader = DataLoader(train_set, batch_size=16, sampler=sampler)\n"
            "for x, y in loader:\n    loss = model(x).sum()\n    loss.backward()\n")
    hits = [s for s in signals_of(text) if s.kind == "code:no_shuffle"]
    assert hits and hits[0].strength >= 0.7 and hits[0].evidence[0].line == 9
    assert not [s for s in signals_of(text.replace(", shuffle=False", "")) if s.kind == "code:no_shuffle"]


_CSV_TRAIN = '''import pandas as pd
import torch

df = pd.read_csv("housing.csv")
cols = ["rooms", "total_bedrooms", "income"]
X = torch.tensor(((df[cols] - df[cols].mean()) / df[cols].std()).values, dtype=torch.float32)
y = torch.tensor(df["value"].values, dtype=torch.float32)
{clean}model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for xb, yb in zip(X.split(32), y.split(32)):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(xb).squeeze(1), yb)
    loss.backward()
    opt.step()
'''


def test_a_table_read_and_trained_on_with_its_missing_cells_left_alone():
    # pandas' mean and std skip NaN, so an empty cell of the CSV reaches the model as NaN
    s = next(s for s in signals_of(_CSV_TRAIN.format(clean="")) if s.kind == "code:missing_unhandled")
    assert s.evidence[0].line == 4 and "read_csv" in s.evidence[0].text
    for clean in ("df = df.dropna()\n", "df = df.fillna(df.median())\n", "assert not df.isnull().values.any()\n"):
        assert "code:missing_unhandled" not in kinds_of(_CSV_TRAIN.format(clean=clean))
    # reading a table without training on it (an analysis script, a scaler's fit) is nothing; nor a table read
    # without NaN (na_filter=False)
    assert "code:missing_unhandled" not in kinds_of("import pandas as pd\ndf = pd.read_csv('a.csv')\nprint(df.describe())\n")
    assert "code:missing_unhandled" not in kinds_of("import pandas as pd\ndf = pd.read_csv('a.csv')\n"
                                                    "sc = StandardScaler().fit(df)\n")
    assert "code:missing_unhandled" not in kinds_of(_CSV_TRAIN.format(clean="").replace(
        'read_csv("housing.csv")', 'read_csv("housing.csv", na_filter=False)'))
    assert "code:missing_unhandled" in kinds_of("import pandas as pd\ndf = pd.read_csv('a.csv')\n"
                                                "model.fit(df[['a', 'b']].values, df['y'].values, epochs=5)\n")


def test_inputs_and_targets_cut_by_two_different_slices():
    # a DDP shard by hand: images by stride, labels as a block: every rank trains on unpaired targets
    shard = ("import torch\nper_rank = len(X_train) // world_size\nX_train = X_train[rank::world_size]\n"
             "y_train = y_train[rank * per_rank:(rank + 1) * per_rank]\n")
    s = next(s for s in signals_of(shard) if s.kind == "code:separate_shuffle")
    assert s.evidence[0].line == 4 and "rank::world_size" in s.evidence[0].text
    # the same slice on both, or one series cut twice for next-step prediction, is a pairing kept
    assert "code:separate_shuffle" not in kinds_of(shard.replace("rank * per_rank:(rank + 1) * per_rank", "rank::world_size"))
    assert "code:separate_shuffle" not in kinds_of("x_train = series[:-1]\ny_train = series[1:]\n")
    # a train and a validation cut are no pair; nor a lag between two arrays, a truncation to the other's length, or a
    # train/test cut of two arrays (one stride on both: the pairing is kept or shifted by a constant)
    assert "code:separate_shuffle" not in kinds_of("X_train = X[:800]\ny_val = y[800:]\n")
    assert "code:separate_shuffle" not in kinds_of("X = features[:-1]\ny = prices[1:]\n")
    assert "code:separate_shuffle" not in kinds_of("X = X_all[:1000]\ny = y_all[:len(X)]\n")
    assert "code:separate_shuffle" not in kinds_of("X = X_all[:800]\ntest_labels = labels_all[800:]\n")


@pytest.mark.parametrize("rebind, found", [
    ("model = Net(10).to('cpu')", True),                       # a second model: the optimizer holds the first's weights
    ("model = model.to('cpu')", False),                        # the same module moved
    ("model = torch.nn.DataParallel(model)", False),           # the same module wrapped
    ("model = Net(10)\n    optimizer = build_optimizer(model, 0.01)", False),    # the optimizer built again after it
])
def test_a_model_built_anew_after_its_optimizer(tmp_path, rebind, found):
    p = tmp_path / "train.py"
    p.write_text("import torch\nimport torch.nn as nn\n\n"
                 "class Net(nn.Module):\n    def __init__(self, k):\n        super().__init__()\n        self.fc = nn.Linear(4, k)\n"
                 "    def forward(self, x):\n        return self.fc(x)\n\n"
                 "def build_optimizer(model, lr):\n    return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)\n\n"
                 "def main():\n    model = Net(10)\n    optimizer = build_optimizer(model, 0.01)\n"
                 f"    {rebind}\n"
                 "    for x, y in loader:\n        optimizer.zero_grad()\n"
                 "        loss = nn.functional.cross_entropy(model(x), y)\n        loss.backward()\n        optimizer.step()\n")
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:params_not_in_optimizer"]
    assert bool(hit) is found
    if found:
        assert hit[0].evidence[0].line == 17 and "built anew" in hit[0].summary


@pytest.mark.parametrize("d_zero, found", [("", True), ("        optimizer_D.zero_grad()\n", False)])
def test_a_gan_loop_that_zeroes_one_of_its_two_optimizers(tmp_path, d_zero, found):
    p = tmp_path / "train.py"
    p.write_text("import torch\nimport torch.nn as nn\n\n"
                 "generator, discriminator = nn.Linear(8, 4), nn.Linear(4, 1)\n"
                 "optimizer_G = torch.optim.Adam(generator.parameters(), lr=2e-4)\n"
                 "optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=2e-4)\n"
                 "bce = nn.BCEWithLogitsLoss()\n"
                 "for epoch in range(50):\n    for real in loader:\n"
                 "        optimizer_G.zero_grad()\n        z = torch.randn(real.size(0), 8)\n"
                 "        g_loss = bce(discriminator(generator(z)), torch.ones(real.size(0), 1))\n"
                 "        g_loss.backward()\n        optimizer_G.step()\n"
                 f"{d_zero}"
                 "        d_loss = bce(discriminator(real), torch.ones(real.size(0), 1)) + "
                 "bce(discriminator(generator(z).detach()), torch.zeros(real.size(0), 1))\n"
                 "        d_loss.backward()\n        optimizer_D.step()\n")
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:missing_zero_grad"]
    assert bool(hit) is found
    if found:
        assert hit[0].strength >= 0.7 and "optimizer_D.step()" in hit[0].summary


def test_the_pytorch_dcgan_loop_gives_the_generator_optimizer_no_finding(tmp_path):
    """The DCGAN example's loop: optimizerG's first backward after it is the discriminator's (errD_real), but the
    loop runs netG too (fake = netG(noise)): its parameters train. Read before as 'the optimizer gets the
    parameters of netG but the training loop runs netD'."""
    p = tmp_path / "train.py"
    p.write_text("import torch\nimport torch.nn as nn\nimport torch.optim as optim\n\n"
                 "netG, netD = nn.Linear(8, 4), nn.Linear(4, 1)\ncriterion = nn.BCEWithLogitsLoss()\n"
                 "optimizerD = optim.Adam(netD.parameters(), lr=2e-4)\noptimizerG = optim.Adam(netG.parameters(), lr=2e-4)\n"
                 "for epoch in range(25):\n    for i, (data,) in enumerate(dataloader):\n"
                 "        netD.zero_grad()\n        output = netD(data)\n        errD_real = criterion(output, torch.ones(64))\n"
                 "        errD_real.backward()\n        noise = torch.randn(64, 8)\n        fake = netG(noise)\n"
                 "        output = netD(fake.detach())\n        errD_fake = criterion(output, torch.zeros(64))\n"
                 "        errD_fake.backward()\n        optimizerD.step()\n"
                 "        netG.zero_grad()\n        output = netD(fake)\n        errG = criterion(output, torch.ones(64))\n"
                 "        errG.backward()\n        optimizerG.step()\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:params_not_in_optimizer"]
    # ... and a model built anew (moved to a device on the way) after its optimizer is still one
    p.write_text("import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\n"
                 "model = Net()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nmodel = Net().to('cuda')\n"
                 "for x, y in loader:\n    optimizer.zero_grad()\n    loss = nn.functional.mse_loss(model(x), y)\n"
                 "    loss.backward()\n    optimizer.step()\n")
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:params_not_in_optimizer"]
    assert hit and hit[0].evidence[0].line == 9


def test_a_discriminator_whose_sequential_ends_in_a_sigmoid_beside_bce_with_logits(tmp_path):
    """The DCGAN examples' Discriminator: self.main = nn.Sequential(..., nn.Sigmoid()), forward returns
    self.main(x).view(-1, 1).squeeze(1); with BCEWithLogitsLoss the loss sees sigmoid(sigmoid(x))."""
    p = tmp_path / "train.py"
    body = ("import torch\nimport torch.nn as nn\n\n"
            "class Discriminator(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.main = nn.Sequential(nn.Linear(64, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1), nn.Sigmoid())\n\n"
            "    def forward(self, x):\n        return self.main(x.view(x.size(0), -1)).view(-1, 1).squeeze(1)\n\n"
            "netD = Discriminator()\ncriterion = nn.{loss}()\n")
    p.write_text(body.format(loss="BCEWithLogitsLoss"))
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:softmax_before_ce"]
    assert hit and "Discriminator.forward" in hit[0].summary
    p.write_text(body.format(loss="BCELoss"))
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:softmax_before_ce"]


@pytest.mark.parametrize("guard, found", [
    ("        if found_inf:\n            pass\n        else:\n            optimizer.step()\n", True),     # skip-on-overflow
    ("        if (it + 1) % accum == 0:\n            optimizer.step()\n", False),                   # accumulation
])
def test_zero_grad_only_under_fp16_while_the_step_skips_only_on_overflow(tmp_path, guard, found):
    """A Megatron-style loop: model.zero_grad() only `if fp16:`, the step in the else of a found_inf check: in an
    fp32 run the gradients are never cleared (grad norm 28 -> 115). An accumulation `if` over the step is not it."""
    p = tmp_path / "train.py"
    p.write_text("import torch\nimport torch.nn.functional as F\n\n"
                 "def main(model, optimizer, data, fp16, accum):\n    it = 0\n    while it < 300:\n"
                 "        if fp16:\n            model.zero_grad(set_to_none=True)\n"
                 "        x, y = data(it)\n        loss = F.cross_entropy(model(x), y)\n        loss.backward()\n"
                 "        found_inf = False\n" + guard + "        it += 1\n")
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:missing_zero_grad"]
    assert bool(hit) is found


def test_review_mends_of_the_code_readings_of_stop_57(tmp_path):
    """A model rebuilt after training to load its best weights for evaluation is no model left out of the
    optimizer; an EMA helper's own step() beside the optimizer's is no second optimizer never zeroed."""
    p = tmp_path / "train.py"
    p.write_text("import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n\n"
                 "def main(loader):\n    model = Net()\n    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                 "    for x, y in loader:\n        optimizer.zero_grad()\n        loss = nn.functional.mse_loss(model(x), y)\n"
                 "        loss.backward()\n        optimizer.step()\n    torch.save(model.state_dict(), 'best.pt')\n"
                 "    model = Net()\n    model.load_state_dict(torch.load('best.pt'))\n    model.eval()\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:params_not_in_optimizer"]
    p.write_text("import torch\nimport torch.nn as nn\n\nclass WeightEMA:\n    def __init__(self, model, ema):\n"
                 "        self.model, self.ema = model, ema\n    def step(self):\n        pass\n\n"
                 "model, ema_model = nn.Linear(4, 2), nn.Linear(4, 2)\n"
                 "optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)\nema_optimizer = WeightEMA(model, ema_model)\n"
                 "for epoch in range(10):\n    for x, y in loader:\n        optimizer.zero_grad()\n"
                 "        loss = nn.functional.cross_entropy(model(x), y)\n        loss.backward()\n"
                 "        optimizer.step()\n        ema_optimizer.step()\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:missing_zero_grad"]


@pytest.mark.parametrize("second, found", [("self.netD", False), ("self.netG", True)])
def test_pix2pix_set_requires_grad_on_the_wrong_network(tmp_path, second, found):
    """pix2pix's optimize_parameters: D is unfrozen for its update and frozen again for G's. Freezing netG there
    instead (and never unfreezing it) leaves optimizer_G with only frozen parameters."""
    p = tmp_path / "model.py"
    p.write_text("import torch\n\n\nclass Pix2Pix:\n    def __init__(self, netG, netD):\n"
                 "        self.netG, self.netD = netG, netD\n"
                 "        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-4)\n"
                 "        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-4)\n\n"
                 "    def set_requires_grad(self, nets, requires_grad=False):\n"
                 "        for net in (nets if isinstance(nets, list) else [nets]):\n"
                 "            for param in net.parameters():\n                param.requires_grad = requires_grad\n\n"
                 "    def optimize_parameters(self, real_A, real_B):\n        fake_B = self.netG(real_A)\n"
                 "        self.set_requires_grad(self.netD, True)\n        self.optimizer_D.zero_grad()\n"
                 "        loss_D = self.netD(fake_B.detach()).mean() - self.netD(real_B).mean()\n        loss_D.backward()\n"
                 "        self.optimizer_D.step()\n"
                 f"        self.set_requires_grad({second}, False)\n"
                 "        self.optimizer_G.zero_grad()\n        loss_G = -self.netD(fake_B).mean()\n        loss_G.backward()\n"
                 "        self.optimizer_G.step()\n")
    hit = [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    assert bool(hit) is found


def test_a_teacher_trained_then_frozen_for_distillation_is_no_frozen_optimizer(tmp_path):
    """opt = Adam(teacher.parameters()), a loop that steps it, then `p.requires_grad_(False)` on the teacher for
    distillation: the teacher trained before it was frozen. Frozen before the optimizer ever steps: nothing trains."""
    body = ("import torch\nteacher = torch.nn.Linear(4, 2)\n"
            "opt = torch.optim.Adam(teacher.parameters(), lr=1e-3)\n{early}"
            "for x, y in loader:\n    loss = torch.nn.functional.cross_entropy(teacher(x), y)\n"
            "    opt.zero_grad()\n    loss.backward()\n    opt.step()\n{late}")
    freeze = "for p in teacher.parameters():\n    p.requires_grad_(False)\n"
    p = tmp_path / "train.py"
    p.write_text(body.format(early="", late=freeze))
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    p.write_text(body.format(early=freeze, late=""))
    assert [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    # AMP steps through the scaler: trained, then frozen
    p.write_text(body.format(early="", late=freeze).replace("    opt.step()", "    scaler.step(opt)"))
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    # a function that steps it, called before the freeze; a trainer's methods (their order unknown): trained
    p.write_text("import torch\nteacher = torch.nn.Linear(4, 2)\nopt = torch.optim.Adam(teacher.parameters(), lr=1e-3)\n"
                 "def train_teacher():\n    for x, y in loader:\n        opt.zero_grad()\n"
                 "        torch.nn.functional.cross_entropy(teacher(x), y).backward()\n        opt.step()\n"
                 "train_teacher()\n" + freeze)
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    p.write_text("import torch\nclass KD:\n    def __init__(self, teacher):\n        self.teacher = teacher\n"
                 "        self.opt = torch.optim.Adam(self.teacher.parameters(), lr=1e-3)\n"
                 "    def train_teacher(self, x, y):\n        self.opt.zero_grad()\n"
                 "        torch.nn.functional.cross_entropy(self.teacher(x), y).backward()\n        self.opt.step()\n"
                 "    def freeze_teacher(self):\n        for p in self.teacher.parameters():\n            p.requires_grad_(False)\n")
    assert not [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]
    # a step inside a function defined before the freeze runs when it is called, after it: nothing trains
    p.write_text("import torch\nmodel = torch.nn.Linear(4, 2)\nopt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
                 "def train_one_epoch():\n    for x, y in loader:\n        opt.zero_grad()\n"
                 "        torch.nn.functional.cross_entropy(model(x), y).backward()\n        opt.step()\n"
                 + freeze.replace("teacher", "model") + "train_one_epoch()\n")
    assert [s for s in code_signals(run_of(p)) if s.kind == "code:frozen_params"]


_SCORING = ("import sys\nimport joblib\nimport pandas as pd\nimport torch\nfrom train import Net, CAT_COLS, NUM_COLS\n\n"
            "df = pd.read_csv(sys.argv[1])\n"
            "for c in CAT_COLS:\n    {encode}\n"
            "scaler = joblib.load('artifacts/scaler.joblib')\nmodel = Net()\n"
            "model.load_state_dict(torch.load('artifacts/model.pt'))\nmodel.eval()\n"
            "x_cat = torch.tensor(df[CAT_COLS].values, dtype=torch.long)\n"
            "x_num = torch.tensor(scaler.transform(df[NUM_COLS]), dtype=torch.float32)\n"
            "with torch.no_grad():\n    p = torch.sigmoid(model(x_cat, x_num))\n")


@pytest.mark.parametrize("encode", ["df[c] = df[c].astype('category').cat.codes", "df[c], _ = pd.factorize(df[c])",
                                    "df[c] = LabelEncoder().fit_transform(df[c])"])
def test_category_codes_made_afresh_in_a_scoring_script(encode):
    """predict.py numbers the categories of the data it scores by itself (cat.codes sorts them, factorize takes
    the first-seen order): not the codes the embeddings were trained on (round 17 tabular run06)."""
    sig = [s for s in signals_of(_SCORING.format(encode=encode), "predict.py") if s.kind == "code:eval_preprocessing_differs"]
    assert sig and sig[0].evidence[0].line == 9


def test_category_codes_in_training_or_from_a_saved_mapping_are_no_finding():
    enc = "df[c] = df[c].astype('category').cat.codes"
    assert "code:eval_preprocessing_differs" not in kinds_of(_SCORING.format(encode=enc), "train.py")
    # the training categories loaded (under any loader) and applied: codes by them, not by this data's order
    dtype = "df[c] = df[c].astype(pd.CategoricalDtype(categories=levels[c])).cat.codes"
    saved = _SCORING.format(encode=dtype).replace("df = pd.read_csv", "levels = json.load(open('artifacts/levels.json'))\ndf = pd.read_csv")
    assert "code:eval_preprocessing_differs" not in kinds_of(saved, "predict.py")
    # ... but a frame read from a file whose name holds the word is no mapping
    parquet = _SCORING.format(encode="df[c] = df[c].astype('category').cat.codes").replace(
        "df = pd.read_csv", "X_categorical = pd.read_parquet('new_rows.parquet')\ndf = pd.read_csv")
    assert "code:eval_preprocessing_differs" in kinds_of(parquet, "run_inference.py")
    # ... an encoder fit on the training and scored rows together, and helpers whose names only start like a script's
    both = _SCORING.format(encode="df[c] = LabelEncoder().fit_transform(pd.concat([train[c], df[c]]))[len(train):]")
    assert "code:eval_preprocessing_differs" not in kinds_of(both, "predict.py")
    assert "code:eval_preprocessing_differs" not in kinds_of(_SCORING.format(encode=enc), "features/scoring_utils.py")


def test_log_of_a_product_of_probabilities_underflows():
    """A sequence's log-probability as log(probs.prod(-1)): the product of a few dozen token probabilities underflows
    to 0 in float32 and its log is -inf (a DPO loop's NaN at step 70); a sum of log-probabilities is fine."""
    code = ("import torch\n\ndef sequence_logps(model, inputs, targets):\n    logits = model(inputs)\n"
            "    probs = torch.softmax(logits, dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)\n"
            "    return torch.log(probs.prod(dim=-1))\n")
    sig = [s for s in signals_of(code) if s.kind == "code:unsafe_log"]
    assert sig and sig[0].strength >= 0.7 and sig[0].evidence[0].line == 6
    good = code.replace("torch.log(probs.prod(dim=-1))", "torch.log_softmax(logits, -1).gather(-1, targets.unsqueeze(-1)).sum(-1)")
    assert "code:unsafe_log" not in kinds_of(good)
    # a product of sizes or scales (bits per dimension, a log-determinant) is no product of probabilities
    dims = "import numpy as np\n\ndef bpd(nll, x):\n    return nll / (np.log(2) * np.prod(x.shape[1:]))\n\n" \
           "def logdet(scale):\n    return np.log(np.prod(scale, axis=-1))\n"
    assert all(s.strength < 0.7 for s in signals_of(dims) if s.kind == "code:unsafe_log")


def test_a_vocabulary_rebuilt_or_an_encoder_refit_at_serving_is_read(tmp_path):
    """serve.py builds its vocabulary again from the latest tickets while train.py saved vocab.json (the same size,
    other ids: the model reads other tokens, nothing fails); predict.py fits a LabelEncoder again while train.py
    pickled the fitted one. A serve.py that loads the saved vocabulary, or a training script that builds its own
    (nothing saved elsewhere), is neither."""
    from mltdbg.analyzers.code import code_signals
    from mltdbg.analyzers.ingest import ingest

    def kinds(files):
        for old in tmp_path.iterdir():
            old.unlink()
        for name, text in files.items():
            (tmp_path / name).write_text(text)
        return {(s.kind, s.evidence[0].source, s.evidence[0].line) for s in code_signals(ingest([str(tmp_path)]))
                if s.kind.endswith("_at_inference")}
    train = ("import json\nfrom text_utils import build_vocab\nvocab = build_vocab(texts)\n"
             "json.dump(vocab, open('artifacts/vocab.json', 'w'))\n")
    serve = "import json\nfrom text_utils import build_vocab\ntexts = read('tickets_latest.jsonl')\nvocab = build_vocab(texts)\n"
    assert kinds({"train.py": train, "serve.py": serve}) == {("code:vocab_rebuilt_at_inference", "serve.py", 4)}
    loads = "import json\nvocab = json.load(open('artifacts/vocab.json'))\nif vocab is None:\n    vocab = build_vocab(texts)\n"
    assert kinds({"train.py": train, "serve.py": loads}) == set()
    assert kinds({"train.py": serve}) == set()
    # a vocab.txt read and indexed, counts loaded from a file, an autoencoder fitted: no rebuilt vocabulary or encoder
    txt = "with open('artifacts/vocab.txt') as f:\n    itos = f.read().splitlines()\nstoi = {w: i for i, w in enumerate(itos)}\n"
    assert kinds({"train.py": train, "serve.py": txt}) == set()
    counts = "import json\nwith open(VOCAB_PATH) as f:\n    counts = json.load(f)\nvocab = Vocab(counts)\n"
    assert kinds({"train.py": train, "serve.py": counts}) == set()
    auto = "import torch\ntorch.save(encoder.state_dict(), 'enc.pt')\n"
    assert kinds({"train.py": auto, "app.py": "autoencoder.fit(X, X)\n"}) == set()
    enc_train = ("import pickle\nfrom sklearn.preprocessing import LabelEncoder\nenc = LabelEncoder()\n"
                 "X['city'] = enc.fit_transform(X['city'])\npickle.dump(enc, open('encoder.pkl', 'wb'))\n")
    enc_pred = "from sklearn.preprocessing import LabelEncoder\nencoder = LabelEncoder()\nX['city'] = encoder.fit_transform(X['city'])\n"
    assert kinds({"train.py": enc_train, "predict.py": enc_pred}) == {("code:encoder_refit_at_inference", "predict.py", 3)}
    # a model (or the corpus) opened beside the refit is no saved encoder
    enc_pred_model = "import pickle\nmodel = pickle.load(open('model.pkl', 'rb'))\n" + enc_pred
    assert kinds({"train.py": enc_train, "predict.py": enc_pred_model}) == {("code:encoder_refit_at_inference", "predict.py", 5)}


_HEAD_ONLY = """import torch
import torch.nn as nn

class GRUClassifier(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, 32)
        self.encoder = nn.GRU(32, 64, batch_first=True)
        self.classifier = nn.Linear(64, 2)

    def forward(self, x):
        out, _ = self.encoder(self.embeddings(x))
        return self.classifier(out[:, -1])

model = GRUClassifier(5000)
{load}for name, param in model.named_parameters():
    if not name.startswith("classifier"):
        param.requires_grad = False
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def test_layers_frozen_at_their_random_init_are_found(tmp_path):
    """A model built in the file, no weights loaded into it, and everything but its head frozen: the head trains on
    random features (a model card's GRU stuck at 0.56). With a checkpoint loaded first, the same freeze is a
    fine-tuning recipe; after a backward() above it, a trained teacher frozen for distillation."""
    p = tmp_path / "train.py"
    p.write_text(_HEAD_ONLY.format(load=""))
    (s,) = [x for x in code_signals(run_of(p)) if x.kind == "code:frozen_random_init"]
    assert s.evidence[0].line == 18
    p.write_text(_HEAD_ONLY.format(load="model.load_state_dict(torch.load('pretrained.pt'))\n"))
    assert not [x for x in code_signals(run_of(p)) if x.kind == "code:frozen_random_init"]
    p.write_text(_HEAD_ONLY.format(load="loss = model(x0).sum()\nloss.backward()\n"))
    assert not [x for x in code_signals(run_of(p)) if x.kind == "code:frozen_random_init"]
    for built in ("models.resnet18(weights=models.ResNet18_Weights.DEFAULT)", "models.resnet18(pretrained=args.pretrained)",
                  "models.resnet18(True)"):       # torchvision's fine-tuning recipe: weights loaded by the constructor
        p.write_text(_HEAD_ONLY.format(load="").replace("GRUClassifier(5000)", built))
        assert not [x for x in code_signals(run_of(p)) if x.kind == "code:frozen_random_init"], built
    p.write_text(_HEAD_ONLY.format(load="torch.use_deterministic_algorithms(True)\n"))     # (a True that loads nothing)
    assert [x for x in code_signals(run_of(p)) if x.kind == "code:frozen_random_init"]


_SHARED_EPOCH = """import torch
import torch.nn as nn
import torch.nn.functional as F

class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.3), nn.Linear(32, 8))

    def forward(self, x):
        return self.head(x)

def run_epoch(model, loader, optimizer=None):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        if optimizer is not None:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

model = PointNet()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
for epoch in range(10):
    model.train()
    run_epoch(model, train_loader, optimizer)
{evl}    with torch.no_grad():
        run_epoch(model, test_loader)
"""


def test_a_model_evaluated_through_a_function_shared_with_training_without_eval_is_found(tmp_path):
    """`with torch.no_grad(): run_epoch(model, test_loader)` after `model.train()`, the epoch function shared with
    training and never calling eval(): the test pass runs with dropout on and batch statistics (a PointNet run's test
    accuracy stuck at 0.25-0.42). With model.eval() before it, nothing."""
    p = tmp_path / "train.py"
    p.write_text(_SHARED_EPOCH.replace("{evl}", ""))
    (s,) = [x for x in code_signals(run_of(p)) if x.kind == "code:no_eval_at_inference"]
    assert s.evidence[0].line == 27 and s.strength >= 0.5
    p.write_text(_SHARED_EPOCH.replace("{evl}", "    model.eval()\n"))
    assert not [x for x in code_signals(run_of(p)) if x.kind == "code:no_eval_at_inference"]
    # PointNet++'s test(): `classifier = model.eval()`, then classifier(points) under no_grad: in eval mode
    p.write_text(_SHARED_EPOCH.replace("{evl}", "") + "\ndef test(model, loader):\n    classifier = model.eval()\n"
                 "    with torch.no_grad():\n        for points, y in loader:\n            pred = classifier(points)\n")
    assert [x.evidence[0].line for x in code_signals(run_of(p)) if x.kind == "code:no_eval_at_inference"] == [27]


def test_a_keras_model_called_with_training_true_at_evaluation_is_found(tmp_path):
    """`def eval_step(x, y): logits = model(x, training=True)`: Keras' dropout and batch norm run as in training at
    evaluation (the in-loop val accuracy 0.87 beside model.evaluate's 0.96). training=False there, or training=True in
    train_step, is the usual loop."""
    code = ("import tensorflow as tf\nmodel = tf.keras.Sequential([tf.keras.layers.Dense(64), tf.keras.layers.Dropout(0.5),\n"
            "    tf.keras.layers.Dense(10)])\n\n@tf.function\ndef train_step(x, y):\n    with tf.GradientTape() as tape:\n"
            "        logits = model(x, training=True)\n\n@tf.function\ndef eval_step(x, y):\n"
            "    logits = model(x, training={flag})\n    return logits\n")
    p = tmp_path / "train.py"
    p.write_text(code.format(flag="True"))
    (s,) = [x for x in code_signals(run_of(p)) if x.kind == "code:no_eval_at_inference"]
    assert s.evidence[0].line == 12
    p.write_text(code.format(flag="False"))
    assert not [x for x in code_signals(run_of(p)) if x.kind == "code:no_eval_at_inference"]


def test_images_and_captions_reordered_by_two_permutations_are_unpaired():
    """A dual encoder's training pairs: the images (train_imgs) reordered by one Generator permutation and the captions
    (train_caps) by a second one drawn in a comprehension, so each image keeps another's caption (code:separate_shuffle).
    One permutation for both, or the captions drawn through the same `order`, keeps every pair."""
    bad = ("import numpy as np\nrng = np.random.default_rng(0)\norder = rng.permutation(len(train_imgs))\n"
           "train_imgs, train_cls = train_imgs[order], train_cls[order]\n"
           "train_caps = [train_caps[i] for i in rng.permutation(len(train_caps))]\n")
    s = next(s for s in signals_of(bad) if s.kind == "code:separate_shuffle")
    assert s.evidence[0].line == 5 and "train_imgs" in s.evidence[0].text and "train_caps" in s.evidence[0].text
    same = bad.replace("rng.permutation(len(train_caps))", "order")
    assert "code:separate_shuffle" not in kinds_of(same)
    assert "code:separate_shuffle" not in kinds_of(bad.replace("train_caps[i] for i in rng.permutation(len(train_caps))",
                                                               "train_caps[i] for i in order"))


def test_a_step_function_a_framework_runs_every_iteration_without_zero_grad_accumulates():
    """PyTorch-Ignite's custom update function, handed to Engine(train_step): backward() and step() with no zero_grad
    anywhere in the file run every iteration (the framework's loop calls it), so the gradients accumulate
    (code:missing_zero_grad, named for the function). With zero_grad() in the function, or a function nothing runs,
    no finding."""
    src = ("import torch\nfrom ignite.engine import Engine\nmodel = torch.nn.Linear(4, 2)\n"
           "optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)\n"
           "def train_step(engine, batch):\n    model.train()\n    x, y = batch\n"
           "    loss = torch.nn.functional.cross_entropy(model(x), y)\n    loss.backward()\n    optimizer.step()\n"
           "    return loss.item()\n\ntrainer = Engine(train_step)\ntrainer.run(loader, max_epochs=8)\n")
    s = next(s for s in signals_of(src) if s.kind == "code:missing_zero_grad")
    assert s.evidence[0].line == 9 and "train_step()" in s.evidence[0].text
    zeroed = src.replace("    model.train()\n", "    model.train()\n    optimizer.zero_grad()\n")
    assert "code:missing_zero_grad" not in kinds_of(zeroed)
    assert "code:missing_zero_grad" not in kinds_of(src.replace("trainer = Engine(train_step)\n", ""))
    # the user's own trainer, in another file, zeroes the gradients around the step function it is handed
    trainer = ("class Trainer:\n    def __init__(self, step_fn, optimizer):\n        self.step_fn, self.opt = step_fn, optimizer\n"
               "    def fit(self, loader):\n        for batch in loader:\n            self.opt.zero_grad()\n"
               "            self.step_fn(None, batch)\n")
    own = src.replace("from ignite.engine import Engine", "from trainer import Trainer").replace(
        "trainer = Engine(train_step)\ntrainer.run(loader, max_epochs=8)", "Trainer(train_step, optimizer).fit(loader)")
    run = Run(root=Path("."), texts=[TextArtifact(path="train.py", abspath=None, kind="code", text=own),
                                     TextArtifact(path="trainer.py", abspath=None, kind="code", text=trainer)])
    assert "code:missing_zero_grad" not in {x.kind for x in code_signals(run)}


def test_a_softmax_model_handed_to_skorch_with_cross_entropy_is_a_double_softmax():
    """skorch's NeuralNetClassifier given a module that ends in nn.Softmax and `criterion=nn.CrossEntropyLoss` (a class
    the wrapper builds and calls): probabilities go into a loss that applies log-softmax itself
    (code:softmax_before_ce). skorch's default criterion (NLLLoss of the log of the module's output) expects the
    softmax: no finding without the keyword."""
    src = ("import torch.nn as nn\nfrom skorch import NeuralNetClassifier\n\nclass Net(nn.Module):\n"
           "    def __init__(self):\n        super().__init__()\n"
           "        self.layers = nn.Sequential(nn.Linear(30, 64), nn.ReLU(), nn.Linear(64, 10), nn.Softmax(dim=-1))\n\n"
           "    def forward(self, X):\n        return self.layers(X)\n\n"
           "net = NeuralNetClassifier(Net, criterion=nn.CrossEntropyLoss, lr=1e-3, max_epochs=40)\nnet.fit(X, y)\n")
    s = next(s for s in signals_of(src) if s.kind == "code:softmax_before_ce")
    assert any(e.line == 12 for e in s.evidence)
    assert "code:softmax_before_ce" not in kinds_of(src.replace("criterion=nn.CrossEntropyLoss, ", ""))
    # a registry of loss classes is no criterion handed over
    registry = src.replace("criterion=nn.CrossEntropyLoss, ", "") + "LOSSES = dict(ce=nn.CrossEntropyLoss, nll=nn.NLLLoss)\n"
    assert "code:softmax_before_ce" not in kinds_of(registry)


def test_an_optimizer_over_the_target_network_alone_leaves_the_online_network_untrained():
    """CleanRL's DQN with the optimizer built on target_network.parameters(): the target network runs only under
    no_grad (the TD target), the loss back-propagates into q_network, which no optimizer holds
    (code:params_not_in_optimizer). The optimizer over q_network is the recipe: no finding."""
    src = ("import torch\nimport torch.optim as optim\nq_network = QNetwork(envs)\ntarget_network = QNetwork(envs)\n"
           "target_network.load_state_dict(q_network.state_dict())\n"
           "optimizer = optim.Adam(target_network.parameters(), lr=2.5e-4)\n"
           "for global_step in range(10000):\n    data = rb.sample(128)\n    with torch.no_grad():\n"
           "        target_max, _ = target_network(data.next_observations).max(dim=1)\n"
           "        td_target = data.rewards.flatten() + 0.99 * target_max\n"
           "    old_val = q_network(data.observations).gather(1, data.actions).squeeze()\n"
           "    loss = torch.nn.functional.mse_loss(td_target, old_val)\n"
           "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n")
    s = next(s for s in signals_of(src) if s.kind == "code:params_not_in_optimizer")
    assert s.evidence[0].line == 6 and "q_network" in s.evidence[0].text and s.evidence[1].line == 12
    assert "code:params_not_in_optimizer" not in kinds_of(src.replace("optim.Adam(target_network.parameters()",
                                                                      "optim.Adam(q_network.parameters()"))


def test_a_vocabulary_built_per_split_by_one_loader_function_is_another_vocabulary_at_evaluation():
    """load_split(path) reads a file and builds CharTokenizer.from_text(text), and is called for the training text and
    for the held-out stories: each split gets its own vocabulary (28 characters against 31), every id after a missing
    character shifted (code:vocab_per_split). A loader handed the training vocabulary for the held-out split, one
    call over both splits' text, a loader called for one split only, and a folder's file list built the same way are
    none."""
    src = ("import torch\n\nclass CharTokenizer:\n    def __init__(self, chars):\n        self.itos = list(chars)\n"
           "        self.stoi = {c: i for i, c in enumerate(self.itos)}\n\n    @classmethod\n"
           "    def from_text(cls, text):\n        return cls(sorted(set(text)))\n\n"
           "def load_split(path):\n    text = open(path).read()\n    tok = CharTokenizer.from_text(text)\n"
           "    return tok, torch.tensor([tok.stoi[c] for c in text])\n\n"
           "tok, train_data = load_split(cfg['train_path'])\n_, val_data = load_split(cfg['val_path'])\n")
    s = next(s for s in signals_of(src) if s.kind == "code:vocab_per_split")
    assert s.evidence[0].line == 18 and "load_split()" in s.evidence[0].text and s.evidence[1].line == 17
    assert "code:vocab_per_split" not in kinds_of(src.replace("_, val_data = load_split(cfg['val_path'])\n", ""))
    shared = ("def load_split(path, stoi=None):\n    text = open(path).read()\n"
              "    if stoi is None:\n        chars = sorted(set(text))\n        stoi = {c: i for i, c in enumerate(chars)}\n"
              "    return stoi, [stoi[c] for c in text]\n\n"
              "stoi, train_ids = load_split('data/train.txt')\n_, val_ids = load_split('data/val.txt', stoi)\n")
    assert "code:vocab_per_split" not in kinds_of(shared)
    both = ("def build_vocab(text):\n    chars = sorted(set(text))\n    return {c: i for i, c in enumerate(chars)}\n\n"
            "stoi = build_vocab(train_text + val_text)\n")
    assert "code:vocab_per_split" not in kinds_of(both)
    folders = ("import os\n\ndef list_images(root):\n    files = sorted(set(os.listdir(root)))\n    return files\n\n"
               "train_files = list_images('data/train')\nval_files = list_images('data/val')\n")
    assert "code:vocab_per_split" not in kinds_of(folders)


@pytest.mark.parametrize("extra, fires", [
    ("", True),
    # a PSNR divides 255 by the error, and a grid by the image's size: neither scales the pixels
    ("def psnr(mse):\n    return 20 * math.log10(255.0 / math.sqrt(mse))\n"
     "t = (xx * np.cos(a) + yy * np.sin(a)) / max(h, w)\n", True),
    ("eta = (time.time() - t0) / step * (steps - step)\n", True),             # a time per step, no standardisation
    ("x = img.float() / 255.0\n", False),
    ("x = (imgs - 0.35) / 1.0\n", False),                                    # (x - mean) / std written with numbers
    ("x = (img - img.min()) / (img.max() - img.min())\n", False)])
def test_what_scales_8_bit_pixels_and_what_does_not(extra, fires):
    """8-bit images cast to float and fed to a net: code:raw_pixels_unscaled unless something scales them somewhere. A
    division of 255 by the error (a PSNR), a grid over the image's builtin max(h, w) or an elapsed time per step is
    no such scaling (each hid the finding); x / 255, (x - 0.35) / 1.0 and a min-max range are."""
    src = ("import math, time\nimport numpy as np\nimport torch\n\n"
           "def to_tensor3(img):\n    return torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1).float()\n\n"
           "imgs = [(np.random.rand(16, 16, 3) * 255).round().astype(np.uint8) for _ in range(8)]\n"
           "model = torch.nn.Sequential(torch.nn.Conv2d(3, 3, 3, padding=1), torch.nn.Sigmoid())\n"
           "for img in imgs:\n    out = model(to_tensor3(img)[None])\n" + extra)
    assert ("code:raw_pixels_unscaled" in kinds_of(src)) is fires


def test_second_review_cases_of_the_new_code_readings():
    """A vocabulary a function builds but encodes nothing with (a corpus reader, a stats printer), or one handed the
    training vocabulary for the held-out split, is no per-split vocabulary; images divided by np.amax or tf.reduce_max
    are scaled, `(kernel_size - 1) / 2` scales nothing, and noise added to an image is still the image; a saliency
    helper's model.zero_grad() does not zero the gradients of a step function Ignite runs."""
    reader = ("def read_corpus(path):\n    text = open(path).read()\n    vocab = sorted(set(text))\n    return text, vocab\n\n"
              "train_text, vocab = read_corpus('data/train.txt')\nval_text, _ = read_corpus('data/val.txt')\n")
    assert "code:vocab_per_split" not in kinds_of(reader)
    handed = ("def load_split(path, vocab=None):\n    text = open(path).read()\n    if vocab is None:\n"
              "        vocab = {c: i for i, c in enumerate(sorted(set(text)))}\n    return vocab, [vocab[c] for c in text]\n\n"
              "vocab, tr = load_split('data/train.txt', vocab=None)\n_, va = load_split('data/val.txt', vocab=vocab)\n")
    assert "code:vocab_per_split" not in kinds_of(handed)
    base = ("import numpy as np\nimport torch\nimgs = np.fromfile('x.bin', dtype=np.uint8).reshape(-1, 16, 16, 3)\n"
            "model = torch.nn.Conv2d(3, 3, 3)\nfor img in imgs:\n    x = torch.from_numpy(img).float()\n    out = model(x)\n")
    assert "code:raw_pixels_unscaled" in kinds_of(base)
    assert "code:raw_pixels_unscaled" in kinds_of(base + "pad = int((kernel_size - 1) / 2)\n")
    for scaled in ("imgs = imgs / np.amax(imgs)\n", "imgs = imgs / tf.reduce_max(imgs)\n"):
        assert "code:raw_pixels_unscaled" not in kinds_of(base + scaled), scaled
    noisy = base.replace("torch.from_numpy(img).float()", "torch.from_numpy((img + np.random.normal(0, 25, img.shape)).astype(np.float32))")
    assert "code:raw_pixels_unscaled" in kinds_of(noisy)
    ignite = ("import torch\nfrom ignite.engine import Engine\nmodel = torch.nn.Linear(4, 2)\n"
              "optimizer = torch.optim.SGD(model.parameters(), lr=0.001)\n"
              "def train_step(engine, batch):\n    x, y = batch\n    loss = torch.nn.functional.cross_entropy(model(x), y)\n"
              "    loss.backward()\n    optimizer.step()\n    return loss.item()\n\ntrainer = Engine(train_step)\n")
    viz = "def saliency(model, x):\n    model.zero_grad()\n    model(x).max().backward()\n    return x.grad\n"
    run = Run(root=Path("."), texts=[TextArtifact(path="train.py", abspath=None, kind="code", text=ignite),
                                     TextArtifact(path="viz.py", abspath=None, kind="code", text=viz)])
    assert "code:missing_zero_grad" in {x.kind for x in code_signals(run)}


_COPIES = "import numpy as np\nimport torch\nfrom sklearn.model_selection import train_test_split\n\n"


@pytest.mark.parametrize("name,code", [
    ("noisy copies appended in a loop, then a permutation split",
     "X, y = load()\nxs, ys = [X], [y]\nfor _ in range(5):\n    xs.append(X + np.random.normal(0, 0.05, X.shape))\n"
     "    ys.append(y)\nX = np.concatenate(xs)\ny = np.concatenate(ys)\nidx = np.random.permutation(len(X))\n"
     "tr, va = idx[:800], idx[800:]\nX_train, X_val = X[tr], X[va]\n"),
    ("flipped copies bound to a name, then train_test_split",
     "x_flip = np.flip(images, axis=2)\nall_x = np.concatenate([images, x_flip])\nall_y = np.concatenate([labels, labels])\n"
     "x_tr, x_va, y_tr, y_va = train_test_split(all_x, all_y, test_size=0.2)\n"),
    ("rows tiled, then random_split",
     "feats = torch.tensor(np.tile(base, (4, 1)))\nds = torch.utils.data.TensorDataset(feats, targets)\n"
     "big = torch.cat([feats, feats + 0.01 * torch.randn_like(feats)])\n"
     "train_ds, val_ds = torch.utils.data.random_split(big, [0.8, 0.2])\n"),
    ("each row repeated along the first axis", "Xr = X.repeat(3, axis=0)\nyr = y.repeat(3)\n"
     "x_tr, x_va, y_tr, y_va = train_test_split(Xr, yr)\n"),
])
def test_rows_copied_before_a_random_split_leak(tmp_path, name, code):
    """Copies of every row (noise added, flipped, tiled) made before a random split: copies of one sample land
    on both sides, so validation follows training up to 1.0 while new data scores far lower."""
    assert "code:val_overlaps_train" in _kinds_in(tmp_path, "train.py", _COPIES + code), name


@pytest.mark.parametrize("name,code", [
    ("train and validation arrays joined", "X = np.concatenate([X_train, X_val])\nidx = np.random.permutation(len(X))\n"
     "a, b = X[idx[:10]], X[idx[10:]]\n"),
    ("copies made after the split, of the training part only",
     "x_tr, x_va, y_tr, y_va = train_test_split(X, y)\nx_tr = np.concatenate([x_tr, x_tr + 0.01])\n"
     "y_tr = np.concatenate([y_tr, y_tr])\n"),
    ("features joined along the columns", "X = np.concatenate([X, X ** 2], axis=1)\n"
     "x_tr, x_va, y_tr, y_va = train_test_split(X, y)\n"),
    ("an embedding doubled along dim 1", "h = torch.cat([h, h * 2], dim=1)\nidx = torch.randperm(len(h))\n"
     "a, b = h[idx[:5]], h[idx[5:]]\n"),
    ("copies shuffled but not split", "X = np.concatenate([X, X + 0.1])\nidx = np.random.permutation(len(X))\n"
     "X = X[idx]\n"),
    # review cases (stop 64): noise of the array's shape, grey to RGB, minibatches of a training-only array
    ("noise samples of the array's shape", "X_noise = np.random.randn(*X.shape)\nX_all = np.concatenate([X, X_noise])\n"
     "a, b = train_test_split(X_all)\n"),
    ("grey images tiled to three channels", "imgs_rgb = np.tile(imgs, (1, 3, 1, 1))\na, b = train_test_split(imgs_rgb)\n"),
    ("minibatches of an augmented training array", "X = np.concatenate([X, X[:, :, ::-1]])\n"
     "idx = np.random.permutation(len(X))\nfor i in range(0, len(X), 64):\n    xb = X[idx[i:i + 64]]\npreview = X[idx[:8]]\n"),
])
def test_copies_that_do_not_cross_the_split_are_no_leak(tmp_path, name, code):
    assert "code:val_overlaps_train" not in _kinds_in(tmp_path, "train.py", _COPIES + code), name


def test_validation_picked_by_index_from_an_array_training_takes_whole(tmp_path):
    """`X_val = X[val_idx]` from a permutation while the training set wraps the whole X: all validation rows are
    trained on (val accuracy at or above train's; fresh data far lower). Picking the training rows by their own
    index, or a neutral whole-set dataset cut later, is no leak."""
    head = ("import numpy as np\nimport torch\nfrom torch.utils.data import TensorDataset, Subset\n\n"
            "perm = np.random.permutation(len(X))\nval_idx, train_idx = perm[:600], perm[600:]\n"
            "X_val, y_val = X[val_idx], y[val_idx]\n")
    leak = head + "train_ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))\n"
    clean = head + "train_ds = TensorDataset(torch.from_numpy(X[train_idx]), torch.from_numpy(y[train_idx]))\n"
    neutral = head + "full = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))\ntrain_ds = Subset(full, train_idx)\n"
    # review cases (stop 64): the whole array with its training index, or behind a sampler of the training rows
    for i, later in enumerate(("train_ds = WindowDataset(X, train_idx)\n",
                               "train_set = TensorDataset(X, y)\nloader = DataLoader(train_set, sampler=SubsetRandomSampler(train_idx))\n")):
        (tmp_path / f"e{i}").mkdir()
        assert "code:val_overlaps_train" not in _kinds_in(tmp_path / f"e{i}", "train.py", head + later)
    rebound = ("import numpy as np\nimport torch\nfrom torch.utils.data import TensorDataset\n\n"
               "X, Xv = X[~is_val], X[is_val]\ntrain_set = TensorDataset(torch.from_numpy(X))\n")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir(), (tmp_path / "c").mkdir(), (tmp_path / "d").mkdir()
    assert "code:val_overlaps_train" not in _kinds_in(tmp_path / "d", "train.py", rebound)
    assert "code:val_overlaps_train" in _kinds_in(tmp_path / "a", "train.py", leak)
    assert "code:val_overlaps_train" not in _kinds_in(tmp_path / "b", "train.py", clean)
    assert "code:val_overlaps_train" not in _kinds_in(tmp_path / "c", "train.py", neutral)


def test_layers_appended_to_a_plain_list_in_init_are_unregistered(tmp_path):
    """`self.layers = []` then `self.layers.append(nn.Sequential(nn.Linear(..), nn.ReLU()))` in __init__ (or a dict
    filled by key): the same unregistered layers as a list written out whole. A list of plain numbers, or a
    ModuleList appended to, is no finding."""
    body = ("import torch.nn as nn\n\n\nclass MLP(nn.Module):\n    def __init__(self, d, hidden=64, depth=3):\n"
            "        super().__init__()\n        self.layers = {empty}\n        self.sizes = []\n"
            "        for i in range(depth):\n            {fill}\n            self.sizes.append(hidden)\n"
            "            d = hidden\n        self.head = nn.Linear(d, 10)\n")
    for empty, fill, want in (("[]", "self.layers.append(nn.Sequential(nn.Linear(d, hidden), nn.ReLU()))", True),
                              ("{}", "self.layers[f'fc{i}'] = nn.Linear(d, hidden)", True),
                              ("nn.ModuleList()", "self.layers.append(nn.Linear(d, hidden))", False),
                              # registered after all: wrapped whole, or each item handed to add_module
                              ("[]", "self.layers.append(nn.Linear(d, hidden))\n"
                                     "        self.layers = nn.ModuleList(self.layers)", False),
                              ("[]", "self.layers.append(nn.Linear(d, hidden))\n"
                                     "        self.net = nn.Sequential(*self.layers)", False),
                              ("{}", "self.layers[f'fc{i}'] = nn.Linear(d, hidden)\n"
                                     "            self.add_module(f'fc{i}', self.layers[f'fc{i}'])", False)):
        p = tmp_path / "model.py"
        p.write_text(body.format(empty=empty, fill=fill))
        hit = [s for s in code_signals(run_of(p)) if s.kind == "code:modules_in_plain_list"]
        assert bool(hit) is want, (empty, fill)
        if want:
            assert hit[0].evidence[0].line == 7 and "self.layers" in hit[0].evidence[0].quote


@pytest.mark.parametrize("code, fires", [
    # the features shuffled after the labels were pulled out of the frame they came from
    ("import pandas as pd\nraw = pd.read_csv('imp.csv')\nlabels = raw['click'].values\nfeats = raw.drop(columns=['click'])\n"
     "feats = feats.sample(frac=1.0, random_state=0).reset_index(drop=True)\nX_tr, y_tr = feats.iloc[:800], labels[:800]\n", True),
    # ... or sorted, through pd.get_dummies in between
    ("import pandas as pd\ntarget = df['Segmentation'].values\nfeatures = df.drop(columns=['Segmentation'])\n"
     "features = pd.get_dummies(features)\nfeatures = features.sort_values(['Age']).reset_index(drop=True)\n"
     "X_tr, X_va, y_tr, y_va = train_test_split(features.values, target)\n", True),
    # the whole frame shuffled first, the labels taken after: paired
    ("import pandas as pd\ndf = df.sample(frac=1.0).reset_index(drop=True)\ny = df['label'].values\nX = df.drop(columns=['label'])\n", False),
    # the labels taken again after the sort
    ("labels = df['y']\nfeats = df.drop(columns=['y'])\nfeats = feats.sort_values('t')\nlabels = df.loc[feats.index, 'y']\n", False),
    # labels from another frame than the one sorted
    ("import numpy as np\ny = np.load('y.npy')\nfeats = raw.drop(columns=['id'])\nfeats = feats.sort_values('t')\n", False),
    # review: a summary of the label column, the columns sorted, labels taken again under another name
    ("classes = sorted(df['label'].unique())\ndf = df.sample(frac=1, random_state=0).reset_index(drop=True)\n"
     "X = df.drop(columns=['label'])\ny = df['label']\nprint(classes)\n", False),
    ("import pandas as pd\ny = train['target'].values\nX = pd.get_dummies(train.drop(columns=['target']))\n"
     "X = X.sort_index(axis=1)\nmodel.fit(X, y)\n", False),
    ("y = df['label']\nprint(y.value_counts())\ndf = df.sample(frac=1).reset_index(drop=True)\nlabels = df['label']\n"
     "model.fit(df.drop(columns=['label']), labels)\n", False),
])
def test_features_reordered_after_their_labels_were_taken(tmp_path, code, fires):
    """`labels = raw['click']`, then `feats = feats.sample(frac=1)` (or a sort): features and labels are paired by row
    position afterwards, each in another order (code:separate_shuffle, label_misalignment's evidence)."""
    assert ("code:separate_shuffle" in _kinds_in(tmp_path, "train.py", code)) is fires
