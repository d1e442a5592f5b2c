"""Baseline comparison: aligned validation curves, fact differences, and a classified git diff."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np

from mltdbg.analyzers.baseline import compare
from mltdbg.analyzers.model import Fact, Run, Series, TextArtifact


def series(name, steps, values, source="metrics.csv"):
    steps = np.asarray(steps)
    return Series(name=name, raw_name=name, steps=steps, values=np.asarray(values, dtype=float),
                  source=source, locs=np.arange(2, len(steps) + 2))


def kinds(sigs):
    return {s.kind for s in sigs}


def test_val_loss_worse_at_shared_steps(tmp_path):
    steps = np.arange(0, 1000, 100)
    base = Run(root=tmp_path, series=[series("val_loss", steps, np.linspace(2.0, 0.5, 10))])
    # this run logs every 50 steps; only the shared ones are compared
    s2 = np.arange(0, 1000, 50)
    run = Run(root=tmp_path, series=[series("val_loss", s2, np.linspace(2.0, 0.8, 20))])
    sigs = compare(run, base)
    drop = [s for s in sigs if s.kind == "baseline:val_metric_drop"]
    assert len(drop) == 1
    d = drop[0]
    assert d.data["metric"] == "val_loss" and d.data["aligned_steps"] == 10
    assert d.data["drop"] > 0.3 and 0.4 <= d.strength <= 0.9
    assert d.evidence[0].step == 900 and d.evidence[1].step == 900
    assert d.evidence[0].line == int(np.flatnonzero(s2 == 900)[0]) + 2
    assert "val_loss" in d.summary and "baseline" in d.summary


def test_equal_or_better_curves_give_nothing(tmp_path):
    steps = np.arange(10)
    base = Run(root=tmp_path, series=[series("val_loss", steps, np.linspace(1, 0.5, 10)),
                                      series("val_accuracy", steps, np.linspace(0.5, 0.8, 10))])
    run = Run(root=tmp_path, series=[series("val_loss", steps, np.linspace(1, 0.49, 10)),
                                     series("val_accuracy", steps, np.linspace(0.5, 0.805, 10))])
    assert compare(run, base) == []


def test_accuracy_in_percent_and_nan_points(tmp_path):
    steps = np.arange(0, 20)
    b = np.linspace(50, 90, 20)
    r = b - 6.0
    r[-1] = np.nan           # a NaN point is skipped, not compared
    base = Run(root=tmp_path, series=[series("val_accuracy", steps, b)])
    run = Run(root=tmp_path, series=[series("val_accuracy", steps, r)])
    d = [s for s in compare(run, base) if s.kind == "baseline:val_metric_drop"][0]
    assert abs(d.data["drop"] - 0.06) < 1e-9 and d.data["higher_is_better"]
    assert d.evidence[0].step == 18


def test_no_shared_steps_compares_last_values_weaker(tmp_path):
    base = Run(root=tmp_path, series=[series("val_loss", [1, 3, 5], [1.0, 0.8, 0.6])])
    run = Run(root=tmp_path, series=[series("val_loss", [2, 4, 6], [1.0, 0.9, 0.9])])
    d = [s for s in compare(run, base) if s.kind == "baseline:val_metric_drop"][0]
    assert d.data["aligned_steps"] == 0 and d.strength < 0.9


def fact(name, value, source="config.yaml", line=1):
    return Fact(name=name, value=value, source=source, line=line, quote=f"{name}: {value}")


def test_fact_differences(tmp_path):
    base = Run(root=tmp_path, facts=[fact("lr", 1e-3), fact("seed", 42), fact("batch_size", 32),
                                     fact("tokenizer", "bert-base-uncased"), fact("torch_version", "2.1.0"),
                                     fact("git_sha", "a" * 40), fact("epochs", 10)])
    run = Run(root=tmp_path, facts=[fact("lr", "1e-2"), fact("seed", 7), fact("batch_size", 64),
                                    fact("tokenizer", "bert-base-cased"), fact("torch_version", "2.3.1"),
                                    fact("git_sha", "b" * 40), fact("epochs", "10")])
    by = {s.kind: s for s in compare(run, base)}
    assert set(by) == {"baseline:lr_changed", "baseline:seed_changed", "baseline:config_changed",
                       "baseline:tokenizer_changed", "baseline:env_changed"}
    lr = by["baseline:lr_changed"]
    assert abs(lr.data["ratio"] - 10) < 1e-9 and lr.strength == 0.7
    assert lr.evidence[0].quote == "lr: 1e-2" and lr.evidence[1].text.startswith("baseline")
    assert by["baseline:config_changed"].data["fact"] == "batch_size"


def test_pinned_dependencies(tmp_path):
    def with_reqs(text):
        r = Run(root=tmp_path)
        r.texts.append(TextArtifact(path="requirements.txt", abspath=tmp_path / "requirements.txt", kind="text", text=text))
        return r
    base = with_reqs("numpy==1.26.4\ntorch==2.1.0\nrequests>=2.0\n")
    run = with_reqs("# pinned\nnumpy==2.0.1\ntorch==2.1.0\nrequests>=2.0\n")
    d = [s for s in compare(run, base) if s.kind == "baseline:deps_changed"][0]
    assert d.data["packages"] == {"numpy": {"now": "==2.0.1", "baseline": "==1.26.4"}}
    assert d.evidence[0].line == 2 and d.evidence[0].quote == "numpy==2.0.1"


# ---------------------------------------------------------------- git diff

GOOD = {
    "data.py": '''import numpy as np
from sklearn.model_selection import train_test_split

MEAN, STD = 0.1307, 0.3081


def load(X, y, seed=0):
    X = (X - MEAN) / STD
    return train_test_split(X, y, test_size=0.2, random_state=seed)
''',
    "metrics.py": '''from sklearn.metrics import f1_score


def macro_f1(y_true, y_pred):
    return f1_score(y_true, y_pred, average="macro")


def precision(tp, fp):
    return tp / (tp + fp)
''',
    "evaluate.py": '''import torch


def evaluate(model, loader):
    model.eval()
    with torch.no_grad():
        return [model(x).argmax(1) for x, _ in loader]


CKPT = "runs/best.pt"
''',
    "train.py": '''import torch
torch.manual_seed(1234)
TOKENIZER = "bert-base-uncased"
lr = 3e-4
''',
}


def bad_version():
    files = dict(GOOD)
    files["data.py"] = GOOD["data.py"].replace("MEAN, STD = 0.1307, 0.3081", "MEAN, STD = 0.5, 0.5") \
                                      .replace("test_size=0.2", "test_size=0.5")
    files["metrics.py"] = GOOD["metrics.py"].replace('average="macro"', 'average="micro"') \
                                            .replace("tp / (tp + fp)", "tp / (tp + fp + 1)")
    files["evaluate.py"] = GOOD["evaluate.py"].replace("    model.eval()\n", "").replace("best.pt", "last.pt")
    files["train.py"] = GOOD["train.py"].replace("1234", "99").replace("bert-base-uncased", "bert-base-cased")
    return files


def git(root, *args):
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()


def commit(root: Path, files: dict[str, str], msg: str) -> str:
    for rel, text in files.items():
        (root / rel).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", msg)
    return git(root, "rev-parse", "HEAD")


def repo(tmp_path: Path) -> tuple[Path, str, str]:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    good = commit(root, GOOD, "good")
    bad = commit(root, bad_version(), "refactor")
    return root, good, bad


def check_cites(sig, root: Path, files: set[str]):
    for e in sig.evidence:
        if "@" in e.source:       # a removed line, cited at the baseline commit
            path, sha = e.source.split("@")
            text = git(root, "show", f"{sha}:{path}").split("\n")
        else:
            path = e.source
            text = (root / path).read_text().split("\n")
        assert path in files, e
        assert text[e.line - 1] == e.quote, e


def test_code_diff_classified(tmp_path):
    root, good, bad = repo(tmp_path)
    base = Run(root=root, facts=[fact("git_sha", good)])
    run = Run(root=root, facts=[fact("git_sha", bad)])
    by = {s.kind: s for s in compare(run, base, repo_root=root)}
    assert {"baseline:preprocessing_changed", "baseline:split_changed", "baseline:metric_changed",
            "baseline:eval_call_removed", "baseline:checkpoint_changed", "baseline:seed_changed",
            "baseline:tokenizer_changed"} <= set(by)
    pre = by["baseline:preprocessing_changed"]
    assert any(e.source == "data.py" and e.line == 4 and e.quote == "MEAN, STD = 0.5, 0.5" for e in pre.evidence)
    check_cites(pre, root, {"data.py"})
    assert [e.quote for e in by["baseline:split_changed"].evidence if "@" not in e.source] == \
        ["    return train_test_split(X, y, test_size=0.5, random_state=seed)"]
    met = by["baseline:metric_changed"]
    quotes = {e.quote.strip() for e in met.evidence if "@" not in e.source}
    assert 'return f1_score(y_true, y_pred, average="micro")' in quotes
    assert "return tp / (tp + fp + 1)" in quotes             # found by the enclosing function's name
    ev = by["baseline:eval_call_removed"]
    assert ev.evidence[0].source == f"evaluate.py@{good[:10]}" and ev.evidence[0].line == 5
    check_cites(ev, root, {"evaluate.py"})
    assert ev.strength >= 0.7
    for k in ("baseline:checkpoint_changed", "baseline:seed_changed", "baseline:tokenizer_changed"):
        check_cites(by[k], root, {"evaluate.py", "train.py"})
    assert by["baseline:checkpoint_changed"].data["run_sha"] == bad


def test_baseline_commit_vs_working_tree(tmp_path):
    root, good, bad = repo(tmp_path)
    (root / "train.py").write_text(GOOD["train.py"].replace("lr = 3e-4", "lr = 3e-3"))   # uncommitted edit
    base = Run(root=root, facts=[fact("git_sha", bad)])
    run = Run(root=root)
    sigs = compare(run, base, repo_root=root)
    lr = [s for s in sigs if s.kind == "baseline:lr_changed"]
    assert lr and lr[0].evidence[0].quote == "lr = 3e-3" and lr[0].data["run_sha"] == "worktree"


def test_moved_eval_is_not_removed(tmp_path):
    root, good, bad = repo(tmp_path)
    moved = GOOD["evaluate.py"].replace("    model.eval()\n    with torch.no_grad():",
                                        "    with torch.no_grad():\n        model.eval()")
    new = commit(root, {"evaluate.py": moved}, "move eval")
    sigs = compare(Run(root=root, facts=[fact("git_sha", new)]), Run(root=root, facts=[fact("git_sha", good)]), root)
    assert "baseline:eval_call_removed" not in kinds(sigs)


def test_not_a_repo_or_same_commit(tmp_path):
    base = Run(root=tmp_path, facts=[fact("git_sha", "abcdef1")])
    run = Run(root=tmp_path, facts=[fact("git_sha", "abcdef2")])
    assert compare(run, base, repo_root=tmp_path) == []
    root, good, bad = repo(tmp_path)
    same = compare(Run(root=root, facts=[fact("git_sha", good)]), Run(root=root, facts=[fact("git_sha", good)]), root)
    assert same == []


def test_a_diff_the_user_posts_is_read_with_the_code_diff_rules(tmp_path):
    """A real `git diff` of a refactor (the fixed-seed train_test_split replaced by a random_split seeded
    with the run's seed), saved as pr412.diff beside the post: split and seed changes, cited at the
    posted file's own lines (the verifier re-reads them); the diagnosis names seed_or_split_changed. The
    same hunks pasted without file headers are read too; a post with no hunk gives nothing."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(git + ["init", "-q"], check=True)
    (repo / "train.py").write_text(
        "import pandas as pd\nfrom sklearn.model_selection import train_test_split\n\n\ndef main(args):\n"
        "    df = pd.read_csv('data/reviews.csv')\n"
        "    train_df, test_df = train_test_split(df, test_size=0.2, random_state=42)\n"
        "    fit(train_df, test_df)\n")
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "v1"], check=True)
    (repo / "train.py").write_text(
        "import pandas as pd\nfrom torch.utils.data import random_split\n\n\ndef main(args):\n"
        "    pl.seed_everything(args.seed)\n    df = pd.read_csv('data/reviews.csv')\n"
        "    train_ds, test_ds = random_split(df, [0.8, 0.2], generator=torch.Generator().manual_seed(args.seed))\n"
        "    fit(train_ds, test_ds)\n")
    diff = subprocess.run(git + ["diff"], check=True, capture_output=True, text=True).stdout
    post = tmp_path / "post"
    post.mkdir()
    (post / "pr412.diff").write_text(diff)
    (post / "issue.md").write_text("Test accuracy jumped 3 points after the data pipeline cleanup PR. Same model "
                                   "config, same hyperparameters, same seeds. Can we trust it?\n")
    sig = {s.kind: s for s in analyze(ingest([post]))}
    split = sig["baseline:split_changed"]
    lines = diff.split("\n")
    for e in split.evidence:
        assert e.source == "pr412.diff" and lines[e.line - 1] == e.quote and e.quote[0] in "+-"
    assert "baseline:seed_changed" in sig and split.data["posted"] is True
    d = diagnose([str(post)], [])
    assert d.hypotheses[0].id == "seed_or_split_changed"
    assert all(e.verified for e in d.hypotheses[0].evidence if e.source == "pr412.diff")
    # the hunks alone, pasted into the post
    hunks = "\n".join(ln for ln in lines if not ln.startswith(("diff --git", "index ", "--- ", "+++ ")))
    (post / "pr412.diff").unlink()
    (post / "issue.md").write_text("The PR:\n" + hunks)
    assert "baseline:split_changed" in {s.kind for s in analyze(ingest([post]))}
    (post / "issue.md").write_text("The PR changed the data loading; accuracy went up 3 points.\n")
    assert not {s.kind for s in analyze(ingest([post]))} & {"baseline:split_changed", "baseline:seed_changed"}


def test_a_posted_hunk_inside_an_evaluation_function_is_a_metric_change(tmp_path):
    """git names the function a hunk sits in after its header: a padding mask changed inside
    `def evaluation(` is the metric's change, not preprocessing's. A posted diff meets the cause's
    requirement but, its failing side unsaid, is no finding on its own."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    (tmp_path / "trainer_diff.txt").write_text(
        "--- a/lm_trainer.py\n+++ b/lm_trainer.py\n"
        "@@ -128,6 +128,6 @@ def evaluation(config, model, state, data_source, max_steps):\n"
        "             logits = model(batch_x)\n"
        "-            is_padded = batch_y == 0\n"
        "+            is_padding = batch_x.reshape(-1) == 0\n"
        "             total += (~is_padding).sum()\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}
    m = sig["baseline:metric_changed"]
    assert "baseline:preprocessing_changed" not in sig and m.data["narrated"] is True
    assert [e.line for e in m.evidence] == [5, 6]


def test_a_line_moved_within_a_posted_diff_is_no_change(tmp_path):
    """A refactor that moves `model.load_state_dict(state["model"])` into a helper removes it in one hunk and adds it as
    it was in another: the same checkpoint loaded, no baseline:checkpoint_changed. The changed scorer still is a
    metric change."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    (tmp_path / "evaluate.py.diff").write_text(
        "--- a/evaluate.py\n+++ b/evaluate.py\n"
        "@@ -10,4 +10,5 @@ def load(path):\n"
        "     state = torch.load(path)\n"
        "+    model.load_state_dict(state[\"model\"])\n"
        "     return model\n"
        "@@ -40,5 +41,4 @@ def evaluate(args):\n"
        "     model = load(args.path)\n"
        "-    model.load_state_dict(state[\"model\"])\n"
        "-    score = corpus_bleu(hyps, refs)\n"
        "+    score = mean(sentence_bleu(h, r) for h, r in zip(hyps, refs))\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path]))}
    assert "baseline:checkpoint_changed" not in sig and "baseline:metric_changed" in sig


def test_a_posts_hand_made_diff_and_its_old_and_new_blocks_are_read_as_a_diff(tmp_path):
    """Three ways posts show a change without git's numbered hunks: a bare `@@` typed by hand, a ```diff fence of
    +/- lines, and the old and the new version in two blocks captioned "Old:" and "New:" (the lines only one of
    them has are the change; a line both have is not). Two unrelated blocks under such captions are no diff."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def kinds(text: str) -> dict:
        (tmp_path / "q.md").write_text(text)
        return {s.kind: s for s in analyze(ingest([tmp_path])) if s.kind.startswith("baseline:")}
    bare = ("```diff\n--- a/prepare.py\n+++ b/data/builder.py\n@@\n"
            "-train_df, test_df = train_test_split(df, test_size=0.2, random_state=42, stratify=df['topic'])\n"
            "+test_df, train_df = df.iloc[:n_test], df.iloc[n_test:]\n```\n")
    got = kinds("Test accuracy dropped after the refactor.\n\n" + bare)
    assert "baseline:split_changed" in got and got["baseline:split_changed"].evidence[0].line == 7
    fence = bare.replace("--- a/prepare.py\n+++ b/data/builder.py\n@@\n", "")
    assert "baseline:split_changed" in kinds("Accuracy dropped after this change:\n\n" + fence)
    pair = ("Accuracy went from 0.98 to 0.39 after I rewrote compute_metrics.\n\nOld:\n\n```python\n"
            "def compute_metrics(p):\n    preds = np.argmax(p.predictions, axis=-1)\n"
            "    keep = p.label_ids != -100\n    return {'accuracy': (preds[keep] == p.label_ids[keep]).mean()}\n```\n\n"
            "New:\n\n```python\ndef compute_metrics(p):\n    preds = np.argmax(p.predictions, axis=-1)\n"
            "    return {'accuracy': float((preds.flatten() == p.label_ids.flatten()).mean())}\n```\n")
    m = kinds(pair)["baseline:metric_changed"]
    assert {e.line for e in m.evidence} == {8, 9, 17} and m.data["narrated"] is True
    unrelated = pair.replace("def compute_metrics(p):\n    preds = np.argmax(p.predictions, axis=-1)\n    return",
                             "model = load()\n    print(model)\n    return")
    assert "baseline:metric_changed" not in kinds(unrelated)


def test_two_versions_of_a_script_attached_side_by_side_are_read_as_a_diff(tmp_path):
    """eval_v1.py and eval_new.py, the same WER evaluation before and after a rewrite: the lines only one has are
    the change (the text normalizer and jiwer gone, evaluate's wer in), a metric change in an evaluation script.
    Both load `args.ckpt`, in two ways: the same checkpoint, no checkpoint change. Two unrelated scripts under
    such names are no diff."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    common = "import argparse\np = argparse.ArgumentParser()\np.add_argument('--ckpt')\nargs = p.parse_args()\n"
    (tmp_path / "eval_v1.py").write_text(
        common + "model = WhisperForConditionalGeneration.from_pretrained(args.ckpt).eval()\n"
        "normalizer = EnglishTextNormalizer()\nrefs = [normalizer(r) for r in refs]\nprint(jiwer.wer(refs, hyps))\n")
    (tmp_path / "eval_new.py").write_text(
        common + "asr = pipeline('automatic-speech-recognition', model=args.ckpt)\n"
        "wer_metric = evaluate.load('wer')\nprint(wer_metric.compute(predictions=hyps, references=refs))\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path])) if s.kind.startswith("baseline:")}
    m = sig["baseline:metric_changed"]
    assert {e.source for e in m.evidence} == {"eval_v1.py", "eval_new.py"} and m.data["narrated"] is True
    assert "baseline:checkpoint_changed" not in sig
    (tmp_path / "eval_new.py").write_text("import os\nprint(os.listdir('.'))\n")
    assert not {s.kind for s in analyze(ingest([tmp_path]))} & {"baseline:metric_changed"}


def test_a_retrain_script_beside_the_train_script_is_its_newer_version(tmp_path):
    """retrain.py beside train.py (a search's best trial trained again): the newer version of the script. Its split by
    position (`X[:n_train]`) where train.py split a seeded permutation is a split change, cited as only in the old /
    the new version the right way round; eval.py beside eval_new.py: the plain one is the older."""
    from mltdbg.analyzers.baseline import _file_pair_changes
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    common = "import numpy as np\nX = np.load('x.npy')\ny = np.load('y.npy')\nn_train = int(0.8 * len(X))\n"
    (tmp_path / "train.py").write_text(common + "perm = np.random.RandomState(0).permutation(len(X))\n"
                                       "tr, va = perm[:n_train], perm[n_train:]\nfit(X[tr], y[tr], X[va], y[va])\n")
    (tmp_path / "retrain.py").write_text(common + "X_tr, X_va = X[:n_train], X[n_train:]\n"
                                         "y_tr, y_va = y[:n_train], y[n_train:]\nfit(X_tr, y_tr, X_va, y_va)\n")
    sig = {s.kind: s for s in analyze(ingest([tmp_path])) if s.kind.startswith("baseline:")}
    assert {e.source for e in sig["baseline:split_changed"].evidence} == {"train.py", "retrain.py"}
    sides = {(t.path, side) for t, _, side, _ in _file_pair_changes(ingest([tmp_path]))}
    assert ("retrain.py", "+") in sides and ("train.py", "-") in sides
    for f in ("train.py", "retrain.py"):
        (tmp_path / f).unlink()
    (tmp_path / "eval.py").write_text(common + "print(acc(X, y))\n")
    (tmp_path / "eval_new.py").write_text(common + "print(f1(X, y))\n")
    sides = {(t.path, side) for t, _, side, _ in _file_pair_changes(ingest([tmp_path]))}
    assert sides == {("eval.py", "-"), ("eval_new.py", "+")}
    # resample.py beside sample.py is another script, no version of it; a training loss's function is no metric's
    for f in ("eval.py", "eval_new.py"):
        (tmp_path / f).unlink()
    (tmp_path / "sample.py").write_text(common + "print(draw(X))\n")
    (tmp_path / "resample.py").write_text(common + "print(resample(X, 16000))\n")
    assert _file_pair_changes(ingest([tmp_path])) == []
    from mltdbg.analyzers.baseline import _in_metric_function
    assert [_in_metric_function(None, fn) for fn in ("mse_loss", "ssim_loss", "l2_error", "compute_rmse")] == \
        [None, None, "baseline:metric_changed", "baseline:metric_changed"]


def test_blank_lines_and_a_bare_hunk_header_make_no_diff_of_what_follows(tmp_path):
    """Two unrelated logs under "Before" and "Now" captions share only blank lines: no diff. A hand-typed `@@`
    hunk ends where the diff's shape does: a markdown list after it is no removed line."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest

    def kinds(text: str) -> set:
        (tmp_path / "q.md").write_text(text)
        return {s.kind for s in analyze(ingest([tmp_path])) if s.kind.startswith("baseline:")}
    assert not kinds("Before the upgrade:\n\n```\nepoch 1 acc 0.91\n\nseed=1\n```\n\nNow it prints:\n\n```\n"
                     "threshold=0.5 f1\n\nrandom_state=3\n```\n")
    assert not kinds("My change:\n@@\n+x = load()\n\nWhat I tried:\n- fixed the random seed to 42\n- set test_size=0.1\n")


def test_two_versions_with_the_same_losses_and_a_score_that_differs_are_a_metric_change(tmp_path):
    """before/train.log and after/train.log (a refactor): the training and held-out losses are the same at every
    epoch, the val accuracy is not: the model's outputs did not change, the score's computation did
    (versions:same_outputs_score_differs, metric_changed first and confident). With no held-out loss logged the
    training alone is the same (the evaluation may have changed in other ways: a weaker kind); a held-out loss that
    moved, or one version alone, is no such reading; timing lines that differ do not count."""
    from mltdbg.analyzers.baseline import version_pair_signals
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose

    def write(val_loss_after=1.2, with_val_loss=True, versions=("before", "after")):
        for v in versions:
            (tmp_path / v).mkdir(exist_ok=True)
            acc = 0.90 if v == "before" else 0.76
            (tmp_path / v / "train.log").write_text("".join(
                f"epoch {e} loss={1.0 / e:.4f}"
                + (f" val_loss={(1.2 if v == 'before' else val_loss_after) / e:.4f}" if with_val_loss else "")
                + f" val_acc={acc - 0.01 * (8 - e):.4f} time={3.1 + (v == 'after') + 0.01 * e:.2f}s\n"
                for e in range(1, 9)))

    def kinds():
        return [s.kind for s in version_pair_signals(ingest([str(tmp_path)]))]
    write()
    assert kinds() == ["versions:same_outputs_score_differs"]
    d = diagnose([str(tmp_path)], ["after my refactor the val accuracy dropped from 0.90 to 0.76"])
    assert d.hypotheses[0].id == "metric_changed" and d.hypotheses[0].confidence >= 0.8
    write(with_val_loss=False)
    assert kinds() == ["versions:same_training_score_differs"]
    write(val_loss_after=1.5)
    assert kinds() == []
    __import__("shutil").rmtree(tmp_path / "after")
    write(versions=("before",))
    assert kinds() == []


def test_a_bare_mean_call_in_a_posted_diff_is_no_preprocessing_change(tmp_path):
    """A post's diff of an accuracy's computation (`.float().mean()` in both versions): a score averaged, not input
    statistics, so no preprocessing change. A changed mean/std of the inputs still is one."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    post = ("eval accuracy dropped after the refactor\n\n```diff\n-    acc = (pred == y).float().mean()\n"
            "+    acc = torch.stack([(pred[y == c] == c).float().mean()\n"
            "+                       for c in range(num_classes)]).mean()\n```\n")
    (tmp_path / "issue.md").write_text(post)
    assert "baseline:preprocessing_changed" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
    for pre in ("x = (x - x.mean(0)) / x.std(0)", "img = img - img.mean()"):
        (tmp_path / "issue.md").write_text(post.replace("acc = (pred == y).float().mean()", pre))
        assert "baseline:preprocessing_changed" in {s.kind for s in analyze(ingest([str(tmp_path)]))}, pre
