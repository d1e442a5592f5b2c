"""Config / environment facts and config signals on real files and real tool output."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mltdbg.analyzers.config import config_signals, extract_facts
from mltdbg.analyzers.curves import curve_signals
from mltdbg.analyzers.model import Run, TextArtifact

FIX = Path(__file__).parent / "fixtures" / "config"
TEXT_FIX = Path(__file__).parent / "fixtures" / "text_signals"
KINDS = {".yaml": "config", ".yml": "config", ".json": "config", ".py": "code", ".log": "log"}


def run_of(*paths: Path) -> Run:
    run = Run(root=Path("."))
    for p in paths:
        run.texts.append(TextArtifact(p.name, p, KINDS.get(p.suffix, "text"), p.read_text()))
    extract_facts(run)
    return run


def facts(run: Run, source: str | None = None) -> dict[str, list]:
    d: dict[str, list] = {}
    for f in run.facts:
        if source is None or f.source == source:
            d.setdefault(f.name, []).append(f.value)
    return d


def check_citations(run: Run) -> None:
    """Each fact's quote is the artifact's text at its line."""
    for f in run.facts:
        assert f.line is not None and f.quote, f
        assert run.text(f.source).line(f.line)[:300] == f.quote, f


def test_yaml_nested_config():
    run = run_of(FIX / "train.yaml")
    d = facts(run)
    assert d["lr"] == [3e-4] and d["optimizer"] == ["adamw"] and d["weight_decay"] == [0.01]
    assert d["batch_size"] == [64] and d["num_workers"] == [8] and d["seed"] == [1234]
    assert d["precision"] == ["fp16"] and d["amp"] == [True]
    assert d["grad_clip"] == [None] and d["warmup_steps"] == [0] and d["scheduler"] == ["cosine"]
    assert d["num_classes"] == [5] and d["epochs"] == [10] and d["dropout"] == [0.1]
    lr = next(f for f in run.facts if f.name == "lr")
    assert lr.line == 8 and lr.quote == "  lr: 3e-4"
    check_citations(run)
    kinds = {s.kind: s for s in config_signals(run)}
    assert set(kinds) == {"config:fp16", "config:no_grad_clip", "config:warmup_zero"}
    assert kinds["config:warmup_zero"].data["scheduler"] == "cosine"
    assert kinds["config:no_grad_clip"].evidence[0].line == 15


def test_json_config_hf_names():
    run = run_of(FIX / "hparams.json")
    d = facts(run)
    assert d["lr"] == [0.1] and d["batch_size"] == [32] and d["grad_clip"] == [1.0]
    assert d["precision"] == ["fp16"] and d["optimizer"] == ["adamw"] and d["warmup_ratio"] == [0.06]
    assert d["resume_from"] == ["out/checkpoint-1500"] and d["scheduler"] == ["linear"]
    check_citations(run)
    kinds = {s.kind for s in config_signals(run)}
    assert kinds == {"config:fp16"}     # clipping on, warm-up set


def test_lightning_code_read_with_ast():
    run = run_of(FIX / "train_lightning.py")
    d = facts(run)
    assert d["seed"] == [42] and d["batch_size"] == [128] and d["optimizer"] == ["adamw"]
    assert d["lr"] == [3e-4, 1e-3]       # AdamW lr, then OneCycleLR max_lr
    assert d["scheduler"] == ["OneCycleLR"] and d["warmup_ratio"] == [0.0] and d["max_steps"] == [10000]
    assert d["precision"] == ["bf16"] and d["grad_clip"] == [0.0] and d["epochs"] == [20] and d["num_workers"] == [4]
    check_citations(run)
    kinds = {s.kind for s in config_signals(run)}
    assert kinds == {"config:no_grad_clip", "config:warmup_zero"}   # bf16 is not fp16


def test_hf_code_multiline_call_lines():
    run = run_of(FIX / "train_hf.py")
    by = {(f.name, f.value): f for f in run.facts}
    assert by[("lr", 5e-5)].line == 7 and by[("lr", 5e-5)].quote.strip() == "learning_rate=5e-5,"
    assert by[("optimizer", "sgd")].line == 13 and by[("lr", 0.1)].line == 13
    assert by[("warmup_steps", 0)].line == 14 and by[("tokenizer", "roberta-base")].line == 4
    assert by[("grad_clip", 1.0)].line == 16 and by[("amp", True)].line in (9, 15)
    check_citations(run)


def test_code_that_does_not_parse_gets_warning_and_regex():
    run = run_of(FIX / "broken.py")
    assert any(w.startswith("broken.py:1: code does not parse") for w in run.warnings)
    d = facts(run)
    assert d["lr"] == [0.001] and d["batch_size"] == [32]


def test_log_namespace_environment_git():
    run = run_of(FIX / "run.log")
    d = facts(run)
    assert d["batch_size"] == [256] and d["lr"] == [0.1] and d["epochs"] == [90] and d["num_workers"] == [8]
    assert d["torch_version"] == ["2.1.0+cu121"] and d["cuda_version"] == ["12.1"]
    assert d["python_version"] == ["3.10.12"] and d["gpu"] == ["NVIDIA A100-SXM4-80GB"]
    assert d["git_sha"] == ["3f2a9c1d5e7b8a0c4d6e2f1a9b3c5d7e8f0a1b2c"]
    assert "seed" not in d          # seed=None says nothing
    check_citations(run)


def test_hf_training_arguments_repr_in_log():
    run = run_of(TEXT_FIX / "clean_train.log")
    d = facts(run)
    assert d["lr"] == [2e-5] and d["grad_clip"] == [1.0] and d["seed"] == [42] and d["warmup_ratio"] == [0.1]
    assert d["max_steps"] == [2346] and 32 in d["batch_size"] and d["resume_from"] == [None]
    check_citations(run)
    assert config_signals(run) == []


def test_nvidia_smi_and_requirements():
    run = run_of(FIX / "nvidia_smi.txt", FIX / "requirements.txt")
    d = facts(run)
    assert d["cuda_version"] == ["12.2"] and d["gpu"] == ["NVIDIA H100 80GB HBM3"] and d["torch_version"] == ["2.2.1"]


def test_order_config_code_log():
    run = run_of(FIX / "run.log", FIX / "train_lightning.py", FIX / "train.yaml")
    lrs = [(f.source, f.value) for f in run.facts if f.name == "lr"]
    assert lrs == [("train.yaml", 3e-4), ("train_lightning.py", 3e-4), ("train_lightning.py", 1e-3), ("run.log", 0.1)]
    assert run.fact("lr").source == "train.yaml"


def test_metric_lines_are_not_settings(tmp_path):
    p = tmp_path / "train.log"
    p.write_text("step 10 | loss 2.31 | lr: 1.2e-06\nlearning_rate: 0.001\n")
    run = run_of(p)
    assert facts(run)["lr"] == [0.001]


def test_real_git_sha_and_pip_freeze(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t", "-C", str(repo)]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "train.py").write_text("lr = 0.1\n")
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    sha = subprocess.run(git + ["rev-parse", "HEAD"], check=True, capture_output=True, text=True).stdout
    log = subprocess.run(git + ["log", "-1"], check=True, capture_output=True, text=True).stdout
    freeze = subprocess.run([sys.executable, "-m", "pip", "freeze"], capture_output=True, text=True).stdout
    (tmp_path / "sha.txt").write_text(sha)
    (tmp_path / "gitlog.txt").write_text(log)
    (tmp_path / "freeze.txt").write_text(freeze)
    run = run_of(tmp_path / "sha.txt", tmp_path / "gitlog.txt", tmp_path / "freeze.txt")
    by = {(f.source, f.name): f.value for f in run.facts}
    assert by[("sha.txt", "git_sha")] == sha.strip() == by[("gitlog.txt", "git_sha")]
    import torch
    assert by[("freeze.txt", "torch_version")] == torch.__version__
    check_citations(run)


def test_bad_config_warns_and_continues(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("lr: [0.1\nbatch_size: 3\n")
    good = tmp_path / "good.yaml"
    good.write_text("lr: 0.2\n")
    run = run_of(bad, good)
    assert any(w.startswith("bad.yaml:") for w in run.warnings)
    assert facts(run)["lr"] == [0.2]


def test_a_json_file_cut_off_mid_write_is_named_by_its_json_error(tmp_path):
    cut = tmp_path / "config.json"
    cut.write_text('{"lr": 0.1,\n "batch_size": ')
    run = run_of(cut)
    assert run.warnings == ["config.json:2: not valid JSON, not read (Expecting value at column 16)"]


@pytest.mark.parametrize("text,name,value", [
    ("mixed_precision: bf16\n", "precision", "bf16"),
    ("precision: 32\n", "precision", "fp32"),
    ("trainer:\n  precision: 16\n", "amp", True),
    ("optimizer:\n  _target_: torch.optim.SGD\n  lr: 0.01\n", "optimizer", "sgd"),
    ("train_micro_batch_size_per_gpu: 4\ngradient_clipping: 1.0\n", "grad_clip", 1.0),
    ("lr: '1e-3'\n", "lr", 1e-3),
    ("max_steps: 1,000\n", "max_steps", 1000),
    # camelCase keys (TF Playground's state, JavaScript / Java / Julia configs) read as their snake_case names
    ("learningRate: 0.3\nbatchSize: 2\n", "lr", 0.3),
    ("learningRate: 0.3\nbatchSize: 2\n", "batch_size", 2),
    ("weightDecay: 0.5\nmaxGradNorm: 1.0\n", "weight_decay", 0.5),
    ("weightDecay: 0.5\nmaxGradNorm: 1.0\n", "grad_clip", 1.0),
    ("trainer:\n  baseLR: 0.02\n", "lr", 0.02),
])
def test_config_spellings(tmp_path, text, name, value):
    p = tmp_path / "c.yaml"
    p.write_text(text)
    assert value in facts(run_of(p))[name]


def test_config_without_clipping_and_transformer_without_warmup(tmp_path):
    p = tmp_path / "gpt.yaml"
    p.write_text("model: gpt2-medium\ntokenizer: gpt2\noptimizer: adamw\nlr: 0.003\n")
    run = run_of(p)
    kinds = {s.kind: s for s in config_signals(run)}
    assert kinds["config:no_grad_clip"].strength < 0.5
    assert kinds["config:warmup_zero"].data == {"warmup": None, "lr": 0.003}
    assert kinds["config:warmup_zero"].evidence[0].quote == "lr: 0.003"


@pytest.mark.parametrize("call, lr", [
    ("model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=5.0), loss='mse')", 5.0),   # Keras keyword
    ("opt = keras.optimizers.Adam(0.5)", 0.5),                                                   # Keras: lr first
    ("tx = optax.adam(1e-3)", 1e-3),                                                             # optax: lr first
    ("opt = torch.optim.SGD(model.parameters(), 0.1)", 0.1),                                     # torch: params first
    ("opt = torch.optim.AdamW(model.parameters(), lr=3e-4)", 3e-4),
])
def test_the_optimizer_lr_in_each_frameworks_spelling(tmp_path, call, lr):
    p = tmp_path / "train.py"
    p.write_text("import torch\n" + call + "\n")
    run = run_of(p)
    assert facts(run)["lr"] == [lr]
    check_citations(run)


def test_a_keras_sgd_with_lr_5_is_flagged_high(tmp_path):
    p = tmp_path / "model.py"
    p.write_text("model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=5.0), loss='sparse_categorical_crossentropy')\n")
    # no lr series in the run: the configured lr is what the lr check reads
    assert any(s.kind == "lr_high" and s.data["lr"] == 5.0 for s in curve_signals(run_of(p)))


def test_deepspeed_precision_blocks_are_facts(tmp_path):
    """DeepSpeed's config switches precision with a block: `"fp16": {"enabled": true, ...}` (also "bf16",
    "amp"). Read before as nothing, so a post's NaN with fp16 on had no config:fp16 to cite."""
    p = tmp_path / "ds_config.json"
    p.write_text('{\n  "train_batch_size": 2,\n  "fp16": {"enabled": true, "loss_scale": 0, "initial_scale_power": 32},\n'
                 '  "optimizer": {"type": "AdamW", "params": {"lr": 3e-5}}\n}\n')
    run = run_of(p)
    f = facts(run)
    assert f["precision"] == ["fp16"] and f["amp"] == [True] and f["lr"] == [3e-5]
    (sig,) = [s for s in config_signals(run) if s.kind == "config:fp16"]
    assert sig.evidence[0].line == 3
    p.write_text('{\n  "fp16": {"enabled": false},\n  "bf16": {"enabled": true}\n}\n')
    assert facts(run_of(p))["precision"] == ["bf16"]


def test_an_hf_launch_command_implies_adamw_and_fine_tuning(tmp_path):
    """`accelerate launch train.py --learning_rate 5e-3 --per_device_train_batch_size 1 --model_name_or_path
    bert-base-uncased`: the flags are HF TrainingArguments' (its default optimizer is AdamW, no --optim
    given) and the checkpoint is a pretrained model, so 5e-3 is a high fine-tuning lr. Before, with no
    optimizer named, no lr_high at all. An --optim flag or LoRA flags change that."""
    from mltdbg.analyzers.analyze import prepare
    from mltdbg.analyzers.ingest import ingest
    p = tmp_path / "run.sh"

    def read(text):
        p.write_text(text)
        r = ingest([str(p)])
        prepare(r)
        return r
    cmd = ("#!/bin/bash\naccelerate launch --mixed_precision fp16 train.py \\\n"
           "  --learning_rate 5e-3 --per_device_train_batch_size 1 --model_name_or_path bert-base-uncased\n")
    run = read(cmd)
    assert facts(run)["optimizer"] == ["adamw"]
    (hi,) = [s for s in curve_signals(run) if s.kind == "lr_high"]
    assert "fine-tuning a pretrained model with adamw" in hi.summary and hi.evidence[0].line == 3
    lora = read(cmd.replace("--learning_rate", "--use_peft --lora_r 8 --learning_rate"))
    assert not [s for s in curve_signals(lora) if s.kind == "lr_high"]     # 5e-3 is usual for LoRA
    assert facts(read(cmd.replace("--learning_rate", "--optim sgd --learning_rate")))["optimizer"] == ["sgd"]
    # one of transformers' example scripts, with none of the TrainingArguments flags above
    glue = read("python run_glue.py --model_name_or_path bert-base-uncased --task_name sst2 --learning_rate 1e-2\n")
    assert facts(glue)["optimizer"] == ["adamw"] and [s for s in curve_signals(glue) if s.kind == "lr_high"]


def test_the_setup_a_config_states_is_read_and_cited(tmp_path):
    # a benchmark scenario's or a sweep's config: corrupted labels, shuffling and normalisation off,
    # a frozen backbone, an init far off scale
    p = tmp_path / "scenario.yaml"
    p.write_text("data:\n  label_noise: 40\n  shuffle: false\n  normalize: false\nmodel:\n  freeze_backbone: true\n"
                 "  init_std: 1.0\n  bias_init: -5.0\n")
    run = run_of(p)
    d = facts(run)
    assert d["label_noise"] == [0.4] and d["shuffle"] == [False] and d["normalize"] == [False]
    assert d["freeze"] == [True] and d["init_std"] == [1.0] and d["bias_init"] == [-5.0]
    check_citations(run)
    kinds = {s.kind: s for s in config_signals(run)}
    assert kinds["config:label_noise"].data["rate"] == 0.4 and kinds["config:label_noise"].evidence[0].line == 2
    assert {"config:shuffle_off", "config:normalize_off", "config:freeze", "config:init_std_large",
            "config:bias_init_negative"} <= set(kinds)
    # open_clip's lock flags hold a tower fixed
    lock = tmp_path / "clip.yaml"
    lock.write_text("lr: 0.001\nlock_image: true\nlock_text: true\n")
    assert facts(run_of(lock))["freeze"] == [True, True]
    assert "config:freeze" in {s.kind for s in config_signals(run_of(lock))}


def test_usual_setup_values_are_no_signal(tmp_path):
    p = tmp_path / "hparams.json"
    p.write_text('{"label_noise": 0.0, "shuffle": true, "normalize": true, "freeze_layers": 0, '
                 '"initializer_range": 0.02, "bias_init": 0.0, "noise_rate": "none"}\n')
    run = run_of(p)
    assert facts(run)["freeze"] == [False]
    assert not {s.kind for s in config_signals(run)} & {"config:label_noise", "config:shuffle_off", "config:normalize_off",
                                                      "config:freeze", "config:init_std_large", "config:bias_init_negative"}


def test_a_config_that_corrupts_labels_ranks_label_noise_over_overfitting(tmp_path):
    import math  # noqa: PLC0415

    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    (tmp_path / "config.json").write_text('{"optimizer": "sgd", "lr": 0.01, "label_noise_rate": 0.4}\n')
    rows = ["epoch,loss,accuracy,val_loss,val_accuracy"]
    for e in range(1, 31):      # the gap of a noisy-label run looks like plain overfitting at the end
        ta = 0.3 + 0.68 * (1 - math.exp(-e / 6))
        rows.append(f"{e},{2.0 * math.exp(-e / 6) + 0.05:.4f},{ta:.4f},{1.2 + 0.02 * e:.4f},{0.55:.4f}")
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    d = diagnose([str(tmp_path)], [])
    assert d.hypotheses[0].id == "label_noise"
    assert any(e.source == "config.json" and e.line == 1 for e in d.hypotheses[0].evidence)


def test_settings_that_share_a_name_with_the_setup_are_not_it(tmp_path):
    # an augmentation's flip probability and GradScaler's initial loss scale are no label noise or init
    p = tmp_path / "det.yaml"
    p.write_text("train_pipeline:\n  flip_prob: 0.5\namp:\n  init_scale: 65536.0\n")
    run = run_of(p)
    assert "label_noise" not in facts(run) and "init_std" not in facts(run)
    assert not {s.kind for s in config_signals(run)} & {"config:label_noise", "config:init_std_large"}


@pytest.mark.parametrize("command, long", [
    ("python run_clm.py --warmup_steps 100000 --max_steps 2000 --learning_rate 5e-5", True),
    ("python run_clm.py --warmup_ratio 1.5 --num_train_epochs 3 --learning_rate 5e-5", True),
    ("python run_clm.py --warmup_steps 500 --max_steps 2000 --learning_rate 5e-5", False),
    ("python run_clm.py --warmup_steps 500 --max_steps -1 --num_train_epochs 3", False),     # -1: use the epochs
    ("python run_clm.py --warmup_ratio 0.1 --learning_rate 5e-5", False)])
def test_a_warm_up_as_long_as_the_run_is_a_schedule_bug(tmp_path, command, long):
    """warmup_steps >= max_steps (or a warmup_ratio >= 1): the lr climbs all run and never reaches its value.
    A post with such a command and an lr log still in its warm-up (1e-7 .. 5e-7) had read lr_too_low at
    0.99, a finding; the schedule is the cause."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    from mltdbg.playbooks.diagnose import diagnose
    (tmp_path / "command.sh").write_text(command + "\n")
    (tmp_path / "trainer.log").write_text("".join(
        f"{{'loss': {3.41 - 0.005 * i:.3f}, 'learning_rate': {i + 1}e-07, 'epoch': {0.1 * (i + 1):.1f}}}\n" for i in range(5)))
    assert ("config:warmup_exceeds_run" in {s.kind for s in analyze(ingest([str(tmp_path)]))}) is long
    d = diagnose([str(tmp_path)], [])
    if long:
        assert d.hypotheses[0].id == "lr_schedule_bug"
        assert all(h.confidence < 0.1 for h in d.hypotheses if h.id == "lr_too_low")


def test_a_setting_in_a_sentence_that_names_the_loss_is_read(tmp_path):
    """A post's one line, "Using AdamW with weight_decay=1.0 ... the loss stays high", names the loss, so its
    key=value pairs were skipped as a progress line's (whose lr is the schedule's value at a step, not the
    setting). A sentence is no progress line: weight_decay 1.0 is read and is off for AdamW."""
    post = tmp_path / "post.txt"
    post.write_text("Using AdamW with weight_decay=1.0 (I thought it was a ratio) the model doesn't learn, all weights "
                    "shrink to almost zero and the loss stays high.\n")
    run = run_of(post)
    assert facts(run)["weight_decay"] == [1.0]
    assert "config:weight_decay_high" in {s.kind for s in config_signals(run)}
    check_citations(run)
    # a progress line still sets nothing
    log = tmp_path / "train.log"
    log.write_text("step 100 | loss=0.512 | lr=0.00031 | weight_decay=0.05 | it/s 3.1\n"
                   "epoch 2 step 200 the loss is 0.43 and lr=0.00029 after the warmup of the model\n")
    assert "lr" not in facts(run_of(log)) and "weight_decay" not in facts(run_of(log))


def test_the_code_a_post_quotes_sets_facts(tmp_path):
    """A post's quoted code (fenced, indented or pasted) is read as code for its settings too: the optimizer
    its lr belongs to, and the momentum it leaves at 0, had been read by key=value regexes only."""
    post = tmp_path / "question.txt"
    post.write_text("My loss goes up every epoch and I do not understand why. Here is the loop:\n\n"
                    "    model = Net()\n    optimizer = torch.optim.SGD(model.parameters(), lr=5.0)\n"
                    "    for x, y in loader:\n        loss = criterion(model(x), y)\n        loss.backward()\n"
                    "        optimizer.step()\n")
    run = run_of(post)
    got = facts(run)
    assert got["optimizer"] == ["sgd"] and got["lr"] == [5.0]
    assert got["momentum"] == [0.0]        # (torch's default where the call passes none: read from the code only)
    check_citations(run)


@pytest.mark.parametrize("line, lr", [("learn.fit_one_cycle(5, lr_max=1.0)", 1.0), ("learn.fit_one_cycle(10, 3e-2)", 3e-2),
                                      ("learn.fine_tune(3, base_lr=0.5)", 0.5)])
def test_a_fastai_fit_names_its_lr_and_adam(tmp_path, line, lr):
    """fastai's Learner trains with Adam unless told otherwise, and its fit calls take the lr second: an lr of
    1.0 for fit_one_cycle had no optimizer to be judged against (within some optimizer's range)."""
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(line + "\n")
    run = run_of(cmd)
    got = facts(run)
    assert got["lr"] == [lr] and got["optimizer"] == ["adam"]
    check_citations(run)


def test_a_printed_dict_in_a_log_is_read_as_settings(tmp_path):
    """A training script's config printed as a Python dict ("train_config: {'lr': 5e-06, 'use_fp16': True, ...}"):
    its quoted keys were not read, so a run that trained in fp16 had no config:fp16 (a fine-tune that turned NaN
    in fp16 read nothing from its log)."""
    p = tmp_path / "train.log"
    p.write_text("[2025-06-04 22:34:59][root][INFO] - train_config: {'model_name': 'tts', 'batch_size_training': 4, "
                 "'num_epochs': 50, 'warmup_steps': 1000, 'lr': 5e-06, 'seed': 42, 'use_fp16': True, "
                 "'mixed_precision': True}\n"
                 "{'loss': 2.1, 'learning_rate': 1e-06, 'epoch': 0.1}\n")
    run = run_of(p)
    d = facts(run)
    assert d["lr"] == [5e-06] and d["epochs"] == [50] and d["seed"] == [42] and d["precision"] == ["fp16"]
    assert "config:fp16" in {s.kind for s in config_signals(run)}
    check_citations(run)


def test_the_lr_of_a_posted_call_line_that_names_the_loss_is_the_setting(tmp_path):
    """`model.compile(optimizer=Adam(learning_rate=1e-6), loss=...)` on its own in a post: the line names the
    loss, yet it is a call, not a progress line, so its lr is the configured one (a progress line's is not)."""
    p = tmp_path / "question.txt"
    p.write_text("Keras MLP on MNIST learns very slowly\n"
                 "model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=1e-6), loss='sparse_categorical_crossentropy')\n"
                 "Epoch 1/8 - loss: 2.2918 - accuracy: 0.1204\n")
    assert facts(run_of(p))["lr"] == [1e-6]
    p.write_text("Keras MLP on MNIST learns very slowly\nstep 100 loss 2.29 lr=1e-6\n")
    assert "lr" not in facts(run_of(p))


def test_a_config_key_that_misspells_an_optimizer_setting_is_found(tmp_path):
    """`momemtum: 0.9` is a key no code asks for: the optimizer runs with momentum 0. Known keys, and keys that are
    merely near another word (`momentum_warmup`, `decay`), are not misspellings."""
    p = tmp_path / "config.yaml"
    p.write_text("optimizer:\n  name: sgd\n  lr: 0.1\n  momemtum: 0.9\n  weight_decay: 5.0e-4\n")
    sig = {s.kind: s for s in config_signals(run_of(p))}["config:key_misspelled"]
    assert sig.data == {"key": "momemtum", "meant": "momentum"} and sig.evidence[0].line == 4
    p.write_text("optimizer:\n  name: sgd\n  momentum: 0.9\n  weight_decay: 5.0e-4\n  momentum_warmup: 10\n  decay: 0.1\n")
    assert "config:key_misspelled" not in {s.kind for s in config_signals(run_of(p))}
    j = tmp_path / "hparams.json"
    j.write_text('{"optim": {"lr": 3e-4, "weight_deacy": 0.05}}')
    sig = {s.kind: s for s in config_signals(run_of(j))}["config:key_misspelled"]
    assert sig.data["meant"] == "weight_decay"


def test_a_launch_script_with_every_flag_on_continued_lines_and_pasted_trainer_dicts(tmp_path):
    """`python train_nli.py \\` with each `--flag value \\` on a line of its own: the flags are the command's. A
    post's pasted trainer log dicts ({'loss': ..., 'learning_rate': 9.87e-4}) are the schedule's values, no setting."""
    sh = tmp_path / "run_nli.sh"
    sh.write_text("#!/bin/bash\npython train_nli.py \\\n  --model_name_or_path roberta-base \\\n"
                  "  --learning_rate 1e-3 \\\n  --warmup_ratio 0.0 \\\n  --fp16 \\\n  --output_dir out\n")
    got = facts(run_of(sh))
    assert got["lr"] == [0.001] and got["warmup_ratio"] == [0.0] and got["precision"] == ["fp16"]
    post = tmp_path / "question.txt"
    post.write_text("My NLI fine-tune diverges.\n```\n{'loss': 1.1012, 'grad_norm': 2.87, 'learning_rate': 0.000987, "
                    "'epoch': 0.04}\n{'loss': 1.0874, 'grad_norm': 3.44, 'learning_rate': 0.000974, 'epoch': 0.08}\n```\n")
    assert "lr" not in facts(run_of(post))


def test_a_nohup_launch_script_sets_what_its_scripts_argparse_defaults(tmp_path):
    """`nohup python -u train.py \\` (output redirected, sent to the background) is a launch command like any other;
    its `--weight_decay 1.0` is the run's setting, not the script's argparse default of 0.0: Adam at 1.0 is high."""
    sh = tmp_path / "run.sh"
    sh.write_text("#!/bin/bash\nnohup python -u train.py \\\n  --learning_rate 1e-3 \\\n  --weight_decay 1.0 \\\n"
                  "  --output_dir ./results > train.out 2>&1 &\n")
    assert facts(run_of(sh))["weight_decay"] == [1.0]
    for prefix in ("CUDA_VISIBLE_DEVICES=0,1 ", "time ", "env OMP_NUM_THREADS=1 "):
        sh.write_text(f"{prefix}python train.py --weight_decay 1.0\n")
        assert facts(run_of(sh))["weight_decay"] == [1.0], prefix
    py = tmp_path / "train.py"
    py.write_text("import argparse, torch\np = argparse.ArgumentParser()\n"
                  "p.add_argument('--weight_decay', type=float, default=0.0)\nargs = p.parse_args()\n"
                  "opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=args.weight_decay)\n")
    sh.write_text("nohup python -u train.py --weight_decay 1.0 > train.out 2>&1 &\n")
    s = {x.kind: x for x in config_signals(run_of(sh, py))}["config:weight_decay_high"]
    assert s.data["weight_decay"] == 1.0 and s.evidence[0].source == "run.sh"
    # ... and the default alone is the script's setting
    assert "config:weight_decay_high" not in {x.kind for x in config_signals(run_of(py))}
    # the same for the first-fact readers (the curves' configured lr) and the momentum: the flag wins
    py.write_text("import argparse, torch\np = argparse.ArgumentParser()\np.add_argument('--lr', default=1.0)\n"
                  "p.add_argument('--momentum', type=float, default=0.999)\nargs = p.parse_args()\n"
                  "opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)\n")
    sh.write_text("nohup python -u train.py --lr 0.0001 --momentum 0.9 > train.out 2>&1 &\n")
    run = run_of(sh, py)
    assert run.fact("lr").value == 0.0001 and "config:momentum_odd" not in {x.kind for x in config_signals(run)}


def test_batch_size_from_openmmlab_data_dicts_module_constants_and_keras_loaders(tmp_path):
    """OpenMMLab's `data = dict(samples_per_gpu=1)` is the batch per GPU; `batch_size=BATCH` with `BATCH = 2` at the
    file's top is 2; Keras' image_dataset_from_directory takes the batch size. A validation loader's shuffle=False
    is no training data left unshuffled."""
    mm = tmp_path / "deeplab_mine.py"
    mm.write_text("norm_cfg = dict(type='BN', requires_grad=True)\ndata = dict(\n    samples_per_gpu=1,\n"
                  "    workers_per_gpu=2)\n")
    assert facts(run_of(mm))["batch_size"] == [1]
    k = tmp_path / "train.py"
    k.write_text("import tensorflow as tf\nBATCH = 2\n"
                 "train_ds = tf.keras.utils.image_dataset_from_directory('data/train', batch_size=BATCH, seed=42)\n"
                 "val_ds = tf.keras.utils.image_dataset_from_directory('data/val', batch_size=BATCH, shuffle=False)\n")
    run = run_of(k)
    assert facts(run)["batch_size"][0] == 2
    assert "config:shuffle_off" not in {s.kind for s in config_signals(run)}
    k.write_text("from torch.utils.data import DataLoader\n"
                 "train_loader = DataLoader(train_set, batch_size=64, shuffle=False)\n")
    assert "config:shuffle_off" in {s.kind for s in config_signals(run_of(k))}


def test_review_mends_of_the_config_readers(tmp_path):
    """A config dict with a "loss" key (a setting, not a logged step) keeps its facts; a name bound anew in the
    function that uses it is read there (BATCH = 256 inside main() over BATCH = 2 at the top); Keras' beta_1 is
    no misspelling, nor is a key the code asks for as it is spelt."""
    p = tmp_path / "train.py"
    p.write_text("config = {'loss': 'mse', 'lr': 0.5, 'batch_size': 2}\n")
    got = facts(run_of(p))
    assert got["lr"] == [0.5] and got["batch_size"] == [2]
    p.write_text("from torch.utils.data import DataLoader\nBATCH = 2\n\n\ndef main(ds):\n    BATCH = 256\n"
                 "    return DataLoader(ds, batch_size=BATCH, shuffle=True)\n")
    assert 2 not in facts(run_of(p)).get("batch_size", [])
    y = tmp_path / "config.yaml"
    y.write_text("optimizer:\n  beta_1: 0.9\n  momemtum: 0.9\n")
    assert [s.data["key"] for s in config_signals(run_of(y)) if s.kind == "config:key_misspelled"] == ["momemtum"]
    c = tmp_path / "opt.py"
    c.write_text("opt = SGD(params, lr=0.1, momentum=cfg['momemtum'])\n")
    assert "config:key_misspelled" not in {s.kind for s in config_signals(run_of(y, c))}


def test_a_posts_own_count_of_classes_is_a_default_num_classes(tmp_path):
    """"error_rate ~0.79 (5 classes)" in a post's title: num_classes 5, where no code or config names one.
    A post that names two counts, or code that passes num_classes, decides otherwise."""
    p = tmp_path / "question.txt"
    p.write_text("fastai resnet34 on knee X-rays: error_rate ~0.79 (5 classes), valid_loss goes UP\n\nI'm at chance.\n")
    run = run_of(p)
    assert facts(run)["num_classes"] == [5] and run.fact("num_classes").line == 1
    p.write_text("CIFAR-100 has 100 classes; I train on a 10-class subset\n")
    assert "num_classes" not in facts(run_of(p))
    p.write_text("a 3-class model\n```python\nmodel = make(num_classes=4)\n```\n")
    assert facts(run_of(p))["num_classes"] == [4]


def test_a_notebook_pasted_with_bare_cell_markers_is_read_as_code_and_its_optimizer_named(tmp_path):
    """A post pastes a notebook as text: "In [2]:" alone on a line, the cell's code under it, then what it
    printed (a tuple, a model summary). The code is read; `model.compile(optimizer=opt)` names a variable,
    not another optimizer, so Adam's epsilon=1.0 stays Adam's."""
    p = tmp_path / "question.txt"
    p.write_text("slow training, need BatchNorm?\n\n```\nIn [1]:\nimport tensorflow as tf\n"
                 "x_train = x_train / 255.0\nprint(x_train.shape, x_train.max())\n\n(60000, 28, 28, 1) 1.0\n\n"
                 "In [2]:\nopt = keras.optimizers.Adam(learning_rate=1e-3, epsilon=1.0)\n"
                 "model.compile(optimizer=opt,\n              loss='sparse_categorical_crossentropy')\nmodel.summary()\n\n"
                 "Model: \"sequential\"\n_________________\n Layer (type)   Output Shape   Param #\n"
                 "=================\nTotal params: 421642 (1.61 MB)\n```\n")
    run = run_of(p)
    assert facts(run)["eps"] == [1.0] and run.fact("eps").line == 12
    eps = next(s for s in config_signals(run) if s.kind == "config:eps_large")
    assert eps.data["optimizer"] == "adam"


def test_a_class_count_given_to_any_call_is_num_classes(tmp_path):
    """timm's reset_classifier(num_classes=37) or create_model(..., num_classes=5): the model's output size."""
    p = tmp_path / "train.py"
    p.write_text("import timm\nmodel = timm.create_model('resnet50', pretrained=True)\nmodel.reset_classifier(num_classes=37)\n")
    run = run_of(p)
    assert facts(run)["num_classes"] == [37] and run.fact("num_classes").line == 3


def test_a_dict_nested_under_a_key_names_its_settings_by_that_key(tmp_path):
    """CONFIG = {"optimizer": {"name": "adam", "lr": 1e-3, "eps": 1.0}} in a script: the nested dict's `eps` is
    the optimizer's epsilon (a bare `eps` key is as often a norm layer's, so it is not read alone), and `name` the
    optimizer. Adam with eps 1.0 divides every step by ~1: config:eps_large."""
    p = tmp_path / "train.py"
    p.write_text('CONFIG = {\n    "seed": 1,\n'
                 '    "optimizer": {"name": "adam", "lr": 1e-3, "betas": [0.9, 0.999], "eps": 1.0},\n'
                 '    "model": {"norm": {"eps": 1e-5}},\n}\n')
    run = run_of(p)
    got = facts(run)
    assert got["eps"] == [1.0] and got["optimizer"] == ["adam"] and got["lr"] == [1e-3]
    check_citations(run)
    assert "config:eps_large" in {s.kind for s in config_signals(run)}


def test_a_hydra_output_folders_composed_config_is_read(tmp_path):
    """Hydra writes the run's composed settings to `.hydra/config.yaml` (and the command line's to overrides.yaml)
    in the run's output folder. Hidden folders are skipped, but not this one: its optim.name / optim.betas are the
    run's optimizer and betas (swapped here: config:betas_odd). Hydra's own hydra.yaml is not read."""
    from mltdbg.analyzers.ingest import ingest
    hy = tmp_path / "outputs" / "2024-05-01" / "12-00-00" / ".hydra"
    hy.mkdir(parents=True)
    (hy / "config.yaml").write_text("seed: 17\noptim:\n  name: adam\n  lr: 0.001\n  betas:\n  - 0.999\n  - 0.9\n"
                                    "data:\n  batch_size: 64\n")
    (hy / "overrides.yaml").write_text("- optim.betas=[0.999,0.9]\n")
    (hy / "hydra.yaml").write_text("hydra:\n  job:\n    name: train\n  runtime:\n    version: 1.3.2\nseed: 99\n")
    (hy.parent / "train.log").write_text("step 10 loss 1.2\nstep 20 loss 0.9\n")
    run = ingest([str(tmp_path)])
    assert {t.path.rsplit("/", 1)[-1] for t in run.texts} >= {"config.yaml", "overrides.yaml", "train.log"}
    assert not any(t.path.endswith("hydra.yaml") for t in run.texts)
    extract_facts(run)
    got = facts(run)
    assert got["optimizer"] == ["adam"] and got["beta1"] == [0.999] and got["seed"] == [17] and got["batch_size"] == [64]
    assert "config:betas_odd" in {s.kind for s in config_signals(run)}


def test_settings_nested_two_levels_deep_are_named_by_their_whole_path(tmp_path):
    """A DeepSpeed-style dict in a script: {"optimizer": {"type": "AdamW", "params": {"eps": 1.0}}} holds the
    optimizer's epsilon two levels down, as the same JSON file does."""
    p = tmp_path / "train.py"
    p.write_text('ds_config = {\n    "optimizer": {\n        "type": "AdamW",\n        "params": {"lr": 1e-3, "eps": 1.0},\n'
                 '    },\n}\n')
    got = facts(run_of(p))
    assert got["eps"] == [1.0] and got["lr"] == [1e-3]


def test_openmmlab_python_config_dicts_are_settings(tmp_path):
    """OpenMMLab's configs are Python: `optim_wrapper = dict(optimizer=dict(type='SGD', lr=0.1, weight_decay=0.05))`
    names its settings as a nested dict literal would; the evaluation loader's batch size and sampler are not
    training's."""
    p = tmp_path / "convnet_glyphs_30e.py"
    p.write_text("train_dataloader = dict(\n    batch_size=32,\n    sampler=dict(type='DefaultSampler', shuffle=True),\n)\n"
                 "val_dataloader = dict(\n    batch_size=100,\n    sampler=dict(type='DefaultSampler', shuffle=False),\n)\n"
                 "optim_wrapper = dict(\n    type='OptimWrapper',\n"
                 "    optimizer=dict(type='SGD', lr=0.1, momentum=0.9, weight_decay=0.05),\n"
                 "    clip_grad=dict(max_norm=10.0, norm_type=2),\n)\n"
                 "param_scheduler = [dict(type='LinearLR', start_factor=0.001, by_epoch=False, begin=0, end=500)]\n"
                 "train_cfg = dict(by_epoch=True, max_epochs=30, val_interval=1)\n")
    run = run_of(p)
    f = facts(run)
    assert f["batch_size"] == [32] and f["shuffle"] == [True]
    assert f["optimizer"] == ["sgd"] and f["lr"] == [0.1] and f["weight_decay"] == [0.05] and f["momentum"] == [0.9]
    check_citations(run)
    assert "config:weight_decay_high" in {s.kind for s in config_signals(run)}    # SGD's coupled decay at 0.05


@pytest.mark.parametrize("name, text, fact, value, kind", [
    # ultralytics' args.yaml: batch is the batch size
    ("args.yaml", "task: detect\nmode: train\nepochs: 30\nbatch: 2\nimgsz: 32\noptimizer: SGD\nlr0: 0.02\n",
     "batch_size", 2, "config:batch_size_tiny"),
    # a nested init section
    ("config.yaml", "seed: 5\nlr: 0.0002\ninit:\n  type: normal\n  std: 1.0\n", "init_std", 1.0, "config:init_std_large"),
])
def test_config_keys_of_other_tools(tmp_path, name, text, fact, value, kind):
    p = tmp_path / name
    p.write_text(text)
    run = run_of(p)
    assert facts(run)[fact] == [value]
    assert kind in {s.kind for s in config_signals(run)}


def test_flags_kept_in_a_shell_variable_are_read(tmp_path):
    """Megatron's launch scripts keep the flags in a variable the command expands (GPT_ARGS="...")."""
    p = tmp_path / "run.sh"
    p.write_text('#!/bin/bash\nGPUS_PER_NODE=1\n\nGPT_ARGS="\n    --num-layers 2 \\\n    --micro-batch-size 8 \\\n'
                 '    --lr 1e-3 \\\n    --adam-eps 1e-1 \\\n    --fp16\n"\n\n'
                 'torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py $GPT_ARGS --save ckpt\n')
    run = Run(root=Path("."))
    run.texts.append(TextArtifact("run.sh", p, "code", p.read_text()))
    extract_facts(run)
    f = facts(run)
    assert f["lr"] == [0.001] and f["eps"] == [0.1] and f["batch_size"] == [8]
    check_citations(run)
    assert "config:eps_large" in {s.kind for s in config_signals(run)}


def test_review_mends_of_the_config_readers_of_stop_57(tmp_path):
    """Flags of a shell variable no command expands (or an evaluation's) are no training settings; a dict() under a
    name that only starts like one of the sets (value_optimizer) keeps its settings; ultralytics' batch: -1 (auto)
    is no batch size."""
    p = tmp_path / "run.sh"
    p.write_text('EVAL_ARGS="--eval-iters 10 --lr 0 --micro-batch-size 1"\nUNUSED="--lr 5"\n'
                 'TRAIN_ARGS="--lr 3e-4 --micro-batch-size 16"\ntorchrun pretrain_gpt.py $TRAIN_ARGS\n')
    run = Run(root=Path("."))
    run.texts.append(TextArtifact("run.sh", p, "code", p.read_text()))
    extract_facts(run)
    assert facts(run)["lr"] == [0.0003] and facts(run)["batch_size"] == [16]
    q = tmp_path / "cfg.py"
    q.write_text("value_optimizer = dict(type='Adam', lr=5.0)\n")
    assert facts(run_of(q))["lr"] == [5.0]
    y = tmp_path / "args.yaml"
    y.write_text("task: detect\nbatch: -1\n")
    assert "batch_size" not in facts(run_of(y))


def test_a_gin_files_bindings_are_config_facts(tmp_path):
    """A gin file ("trainer.adam.epsilon = 1.0", a scope before '/') is a config, not a log whose bindings are one-point
    metrics: its optimizer epsilon of 1.0 is config:eps_large, cited at its line."""
    p = tmp_path / "ranking_mlp.gin"
    p.write_text("# Ported from the TF1 baseline.\nimport trainer\n\ntrainer.train.batch_size = 128\n"
                 "trainer.adam.learning_rate = 1e-3\ntrainer.adam.epsilon = 1.0  # as before\n"
                 "eval/trainer.train.batch_size = 512\n")
    run = run_of(p)
    got = facts(run)
    assert got["eps"] == [1.0] and got["lr"] == [1e-3] and 128 in got["batch_size"] and run.fact("eps").line == 6
    assert not run.series
    assert "config:eps_large" in {s.kind for s in config_signals(run)}


def test_a_config_whose_eval_section_prepares_inputs_otherwise_is_read(tmp_path):
    """`train_transform.sample_rate: 16000` beside `val_transform.sample_rate: 8000` (and `data.train_mean` beside
    `data.val_mean`): the model is scored on features made unlike the ones it learnt from. Augmentation, batch sizes
    and per-split statistics within 5 % are no such difference."""
    p = tmp_path / "hparams.yaml"
    p.write_text("train_transform:\n  sample_rate: 16000\n  n_mels: 40\n  time_mask: 20\n"
                 "val_transform:\n  sample_rate: 8000\n  n_mels: 40\n")
    sig = {s.kind: s for s in config_signals(run_of(p))}["config:eval_preprocessing_differs"]
    assert sig.data["detail"] == "train_transform.sample_rate=16000 vs val_transform.sample_rate=8000"
    assert sig.evidence[0].line == 6
    j = tmp_path / "config.json"
    j.write_text('{"data": {"train_mean": [0.485, 0.456, 0.406], "val_mean": [0.5, 0.5, 0.5], "train_batch_size": 64,'
                 ' "val_batch_size": 256}}')
    sig = {s.kind: s for s in config_signals(run_of(j))}["config:eval_preprocessing_differs"]
    assert "data.train_mean=" in sig.data["detail"] and "data.val_mean=" in sig.data["detail"]
    p.write_text("data:\n  train:\n    mean: 0.131\n    batch_size: 64\n    random_crop: true\n"
                 "  val:\n    mean: 0.129\n    batch_size: 512\n    random_crop: false\n")
    assert "config:eval_preprocessing_differs" not in {s.kind for s in config_signals(run_of(p))}
    for text in ("train_transform:\n  gaussian_noise:\n    std: 0.01\nval_transform:\n  gaussian_noise:\n    std: 0.0\n",
                 "data:\n  train:\n    image_size: 224\n  test:\n    image_size: 288\n",
                 "train_sample_rate: 0.2\nval_sample_rate: 1.0\n", "train:\n  mean: .nan\nval:\n  mean: .nan\n"):
        p.write_text(text)      # augmentation, a larger test resolution, a share of the data set, NaN both sides
        assert "config:eval_preprocessing_differs" not in {s.kind for s in config_signals(run_of(p))}, text
    q = tmp_path / "mm.py"
    q.write_text("train_pipeline = [dict(type='Normalize', mean=[123.675, 116.28, 103.53])]\n"
                 "test_pipeline = [dict(type='Normalize', mean=(123.675, 116.28, 103.53))]\n")
    assert "config:eval_preprocessing_differs" not in {s.kind for s in config_signals(run_of(q))}


def test_a_best_checkpoint_chosen_the_wrong_way_round_is_read(tmp_path):
    """TrainingArguments(load_best_model_at_end=True, metric_for_best_model="loss", greater_is_better=True): the
    highest loss counts as the best, so the Trainer keeps and loads its worst evaluation (a card whose header shows
    epoch 1's numbers). A loss with greater_is_better=False, or accuracy with True, is the usual recipe."""
    code = ("from transformers import TrainingArguments\nargs = TrainingArguments(output_dir='out', learning_rate=2e-5,\n"
            "    load_best_model_at_end=True,\n    metric_for_best_model={m!r},\n    greater_is_better={g},\n)\n")
    p = tmp_path / "train.py"
    p.write_text(code.format(m="loss", g=True))
    sig = {s.kind: s for s in config_signals(run_of(p))}["config:best_model_inverted"]
    assert sig.data == {"metric": "loss", "greater_is_better": True, "load_best": True} and sig.strength == 0.9
    for m, g in (("loss", False), ("eval_accuracy", True), ("f1", True), ("eval_answer_f1", True), ("eval_power", True),
                 ("eval_logloss", False), ("valLoss", False), ("eval_wer", False)):
        p.write_text(code.format(m=m, g=g))
        assert "config:best_model_inverted" not in {s.kind for s in config_signals(run_of(p))}, (m, g)
    y = tmp_path / "args.yaml"
    p.unlink()
    y.write_text("metric_for_best_model: eval_wer\ngreater_is_better: true\n")
    assert {s.kind: s for s in config_signals(run_of(y))}["config:best_model_inverted"].strength == 0.6


def test_an_openmmlab_pipeline_whose_eval_twin_samples_otherwise_is_read(tmp_path):
    """MMAction2's `train_pipeline = [dict(type='SampleFrames', clip_len=8, frame_interval=4), ...]` beside a
    `val_pipeline` with frame_interval=1: the clips are sampled at another rate at evaluation. Resize scales and
    test_mode flags that differ by design are not compared."""
    p = tmp_path / "c3d_drone.py"
    p.write_text("train_pipeline = [\n    dict(type='SampleFrames', clip_len=8, frame_interval=4, num_clips=1),\n"
                 "    dict(type='Resize', scale=(-1, 36)),\n]\nval_pipeline = [\n"
                 "    dict(type='SampleFrames', clip_len=8, frame_interval={fi}, num_clips=1, test_mode=True),\n"
                 "    dict(type='Resize', scale=(-1, 32)),\n]\ntest_pipeline = val_pipeline\n".replace("{fi}", "1"))
    sig = {s.kind: s for s in config_signals(run_of(p))}["config:eval_preprocessing_differs"]
    assert "train_pipeline.SampleFrames.frame_interval=4 vs val_pipeline.SampleFrames.frame_interval=1" == sig.data["detail"]
    p.write_text(p.read_text().replace("frame_interval=1", "frame_interval=4"))
    assert "config:eval_preprocessing_differs" not in {s.kind for s in config_signals(run_of(p))}


@pytest.mark.parametrize("name, text, long", [
    ("tiny.yaml", "optimizer:\n  learning_rate: 3.0e-3\nscheduler:\n  name: cosine_with_warmup\n  t_warmup: 5000\n"
                  "max_duration: 300\n", True),                    # OLMo: a 5000-step warm-up in a 300-step run
    ("tiny.yaml", "scheduler:\n  t_warmup: 100\nmax_duration: 300\n", False),
    ("tiny.yaml", "scheduler:\n  t_warmup: 5000\nmax_duration: 2ep\n", False),          # Composer's unit: no step count
    # lhotse's --max-duration is seconds of audio a batch holds, no run length
    ("command.sh", "python3 bin/trainer.py --max-duration 40 --base-lr 0.05 --warmup-steps 200 --num-epochs 201\n", False)])
def test_olmo_s_warm_up_and_run_length_are_read(tmp_path, name, text, long):
    """OLMo's config names its warm-up t_warmup and its run length max_duration (steps where it is an int): a warm-up
    longer than the run is config:warmup_exceeds_run; a batch's max duration in seconds on a command line is none."""
    p = tmp_path / name
    p.write_text(text)
    assert ("config:warmup_exceeds_run" in {s.kind for s in config_signals(run_of(p))}) is long


def test_a_gpt_neox_config_s_fractional_warm_up_and_deepspeed_adam_are_read_as_they_mean(tmp_path):
    """GPT-NeoX's `"warmup": 0.01` is a share of the run (warmup_ratio 0.01), not a warm-up of 0 steps
    (config:warmup_zero); DeepSpeed's `"optimizer": {"type": "Adam", "params": {...}}` runs FusedAdam in AdamW mode, so
    `"weight_decay": 0.1` beside it is the usual decoupled decay (it read as a coupled L2 five times too strong). A
    Keras or torch `Adam` with 0.1 is still that."""
    p = tmp_path / "neox.yml"
    p.write_text('{\n  "optimizer": {\n    "type": "Adam",\n    "params": {"lr": 0.00003}\n  },\n  "warmup": 0.01,\n'
                 '  "lr_decay_style": "cosine",\n  "weight_decay": 0.1,\n  "train_iters": 400\n}\n')
    run = run_of(p)
    assert facts(run).get("warmup_ratio") == [0.01] and "warmup_steps" not in facts(run)
    kinds = {s.kind for s in config_signals(run)}
    assert "config:warmup_zero" not in kinds and "config:weight_decay_high" not in kinds
    q = tmp_path / "train.py"
    q.write_text("opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=0.1)\n")
    assert "config:weight_decay_high" in {s.kind for s in config_signals(run_of(q))}


def test_nemo_s_max_duration_is_seconds_of_audio_and_a_template_s_adam_is_torch_s(tmp_path):
    """NeMo's `max_duration: 16.7` (seconds of audio) beside `warmup_steps: 10000` and `max_steps: 100000` is no
    16-step run; pytorch-template's `"optimizer": {"type": "Adam", "args": {"weight_decay": 0.1}}` is torch's coupled
    Adam (no DeepSpeed key in the file), so its weight decay of 0.1 stays high."""
    nemo = tmp_path / "conformer.yaml"
    nemo.write_text("model:\n  train_ds:\n    max_duration: 16.7\n  optim:\n    sched:\n      warmup_steps: 10000\n"
                    "trainer:\n  max_steps: 100000\n")
    assert "config:warmup_exceeds_run" not in {s.kind for s in config_signals(run_of(nemo))}
    tpl = tmp_path / "config.json"
    tpl.write_text('{\n  "optimizer": {\n    "type": "Adam",\n    "args": {\n      "lr": 0.001,\n'
                   '      "weight_decay": 0.1\n    }\n  }\n}\n')
    assert "config:weight_decay_high" in {s.kind for s in config_signals(run_of(tpl))}


def test_a_deepspeed_config_s_adam_is_decoupled_by_its_zero_optimization_block(tmp_path):
    """A DeepSpeed config whose only DeepSpeed mark is its zero_optimization block (no fact of its own): its
    {"type": "Adam", "params": {"weight_decay": 0.1}} runs in AdamW mode, so 0.1 is no coupled L2 too strong."""
    p = tmp_path / "ds_config.json"
    p.write_text('{\n  "optimizer": {\n    "type": "Adam",\n    "params": {\n      "lr": 0.0003,\n      "weight_decay": 0.1\n'
                 '    }\n  },\n  "zero_optimization": {\n    "stage": 2\n  }\n}\n')
    assert "config:weight_decay_high" not in {s.kind for s in config_signals(run_of(p))}


def test_a_settings_line_that_names_the_loss_sets_things(tmp_path):
    """A note's "params: optimizer=sgd lr=1.3 momentum=0.9 ... Pasted from the metrics table (train loss / grad_norm):"
    names the loss without a value: no progress line, so its settings are read, each pair by its own key (the
    `params:` label does not swallow `optimizer=sgd`). A progress line with the loss's value keeps its lr unread,
    and the run's lr of 1.3 under SGD is high."""
    p = tmp_path / "note.md"
    p.write_text("Aim run `b07e41c9`, params: optimizer=sgd lr=1.3 momentum=0.9 batch_size=256 epochs=10. Pasted from "
                 "the metrics table (train loss / grad_norm):\n\nepoch 1 step 20 loss: 1.2392 lr=0.5\n")
    run = run_of(p)
    got = facts(run)
    assert got["optimizer"] == ["sgd"] and got["lr"] == [1.3] and got["momentum"] == [0.9], got
    assert any(s.kind == "lr_high" for s in curve_signals(run))


def test_a_progress_line_whose_loss_is_nan_keeps_its_lr_unread(tmp_path):
    """Review case (stop 64): a diverged run's progress line prints the loss as nan; it is still a progress line, and
    its lr is the schedule's value at that step, no setting."""
    p = tmp_path / "train.log"
    p.write_text("".join(f"Epoch {e}: loss: nan, grad_norm: nan, lr: {3e-7 * e:.1e}\n" for e in range(1, 4)))
    assert "lr" not in facts(run_of(p)), facts(run_of(p))
