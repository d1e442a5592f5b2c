"""Detectors for the taxonomy-v2 causes (bad_initialization, optimizer_misconfigured,
batch_size_too_small, label_noise, unnormalized_inputs, data_leakage) on small, known inputs:
config facts and signals, the training-setup code checks, and the curve shapes."""
from __future__ import annotations

import pytest

import json
import math
from pathlib import Path

import numpy as np
from mltdbg.analyzers.code import code_signals
from mltdbg.analyzers.config import config_signals, extract_facts
from mltdbg.analyzers.curves import curve_signals
from mltdbg.analyzers.model import Fact, Run, Series, TextArtifact
from mltdbg.playbooks.diagnose import diagnose

KINDS = {".yaml": "config", ".json": "config", ".py": "code", ".log": "log"}


def run_of(tmp_path: Path, files: dict[str, str]) -> Run:
    run = Run(root=tmp_path)
    for name, text in files.items():
        p = tmp_path / name
        p.write_text(text)
        run.texts.append(TextArtifact(name, p, KINDS.get(p.suffix, "text"), text))
    extract_facts(run)
    return run


def facts(run: Run) -> dict[str, list]:
    d: dict[str, list] = {}
    for f in run.facts:
        d.setdefault(f.name, []).append(f.value)
    return d


def signals(run: Run) -> dict[str, object]:
    return {s.kind: s for s in config_signals(run) + code_signals(run)}


# ---------------------------------------------------------------- config facts and signals

def test_optimizer_facts_from_config_and_code(tmp_path):
    run = run_of(tmp_path, {
        "config.yaml": "optimizer:\n  name: adam\n  betas: [0.9, 0.98]\n  eps: 1.0e-6\ngradient_accumulation_steps: 8\n",
        "train.py": "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
    })
    d = facts(run)
    assert d["beta1"] == [0.9] and d["beta2"] == [0.98] and d["eps"] == [1e-6] and d["grad_accum"] == [8]
    assert d["momentum"] == [0.0]           # an SGD call without momentum runs without it


def test_launch_command_in_a_log_gives_facts(tmp_path):
    run = run_of(tmp_path, {"train.log": "$ python train.py --batch_size 2 --lr=0.1 --fp16\nstep 1 loss 2.3\n"})
    d = facts(run)
    assert d["batch_size"] == [2] and d["lr"] == [0.1]
    f = next(f for f in run.facts if f.name == "batch_size")
    assert f.line == 1 and "--batch_size 2" in f.quote


@pytest.mark.parametrize("post, want", [
    ("I am tuning with the command torchrun --master_port=7777 --nproc_per_node=1 train.py -c x.yml --use-amp\n",
     {"amp": [True]}),
    ("When I run `python train.py --gpu=0 --lr 0.5 --batch_size 3`, the loss is nan\n", {"lr": [0.5], "batch_size": [3]}),
    ("训练指令：CUDA_VISIBLE_DEVICES=0 python src/train_bash.py --stage sft --learning_rate 5e-3 --fp16\n",
     {"lr": [0.005], "precision": ["fp16"], "amp": [True]}),
    ("nohup python train.py --lr=0.1, --batch-size 2 &\n", {"lr": [0.1], "batch_size": [2]}),
    ('I ran "python -m torch.distributed.launch --nproc_per_node 4 main.py --lr 1e-3" and got\n', {"lr": [0.001]}),
    ("I use python 3.10 and I pass --lr 0.1 to it\n", {}),     # no script after python: no command
    ("I tried deepspeed but with --lr 0.5 it diverges\n", {}),    # no script or module run: no command
    ("When I run `python train.py --lr 0.5` the loss explodes; with --lr 0.001 it trains fine\n", {"lr": [0.5]}),
    ("I launch with torchrun x.py --use-amp.\n", {"amp": [True]}),
    ('python train.py --lr "0.1" --optimizer "sgd" --weight_decay=\'0.01\'\n',
     {"lr": [0.1], "optimizer": ["sgd"], "weight_decay": [0.01]}),
])
def test_a_launch_command_quoted_inside_a_sentence_gives_facts(tmp_path, post, want):
    """Posts quote their command mid-sentence, in backticks or quotes, after `nohup` or an env variable."""
    assert facts(run_of(tmp_path, {"question.txt": post})) == want


def test_adam_eps_of_one_is_flagged(tmp_path):
    run = run_of(tmp_path, {"config.yaml": "lr: 0.001\nadam_eps: 1.0\n",
                            "train.py": "import torch\nopt = torch.optim.Adam(m.parameters(), lr=cfg['lr'], eps=cfg['adam_eps'])\n"})
    s = signals(run)["config:eps_large"]
    assert s.strength >= 0.8 and s.data["eps"] == 1.0 and s.evidence[0].line == 2


def test_an_optimizers_own_eps_and_betas_are_read_in_torch_and_keras_spellings(tmp_path):
    """Adam(eps=1.0) and keras' Adam(epsilon=1.0, beta_1=..., beta_2=...) written in the call itself
    (no config key): the optimizer's arguments are its settings. A LayerNorm's eps stays unread."""
    run = run_of(tmp_path, {"train.py": "import torch\nnorm = torch.nn.LayerNorm(64, eps=1.0)\n"
                                        "opt = torch.optim.Adam(m.parameters(), lr=1e-3, eps=1.0)\n"})
    assert signals(run)["config:eps_large"].evidence[0].line == 3
    run = run_of(tmp_path, {"train.py": "from tensorflow import keras\n"
                                        "opt = keras.optimizers.Adam(learning_rate=1e-3, beta_1=0.9, beta_2=0.3,\n"
                                        "                            epsilon=1.0)\n"})
    sig = signals(run)
    assert sig["config:eps_large"].data["eps"] == 1.0 and sig["config:eps_large"].evidence[0].line == 3
    assert sig["config:betas_odd"].data == {"beta1": 0.9, "beta2": 0.3}
    # swapped, beta1 0.999 (a first moment averaged over ~1000 steps): read stronger than a plain swap
    run = run_of(tmp_path, {"config.yaml": "optimizer:\n  name: adam\n  lr: 1.0e-3\n  betas: [0.999, 0.9]\n"})
    assert signals(run)["config:betas_odd"].strength == 0.8
    run = run_of(tmp_path, {"config.yaml": "optimizer:\n  name: adam\n  lr: 1.0e-3\n  betas: [0.95, 0.9]\n"})
    assert signals(run)["config:betas_odd"].strength == 0.6
    # a lone beta1 of 0.9999 against the default beta2: odd, not shown swapped
    run = run_of(tmp_path, {"config.yaml": "optimizer:\n  name: adam\n  lr: 1.0e-3\n  beta1: 0.9999\n"})
    assert signals(run)["config:betas_odd"].strength == 0.6 and "swapped" not in signals(run)["config:betas_odd"].summary
    run = run_of(tmp_path, {"train.py": "import torch\nnorm = torch.nn.LayerNorm(64, eps=1.0)\n"
                                        "opt = torch.optim.Adam(m.parameters(), lr=1e-3)\n"})
    assert "config:eps_large" not in signals(run)


def test_default_eps_and_common_settings_are_not_flagged(tmp_path):
    run = run_of(tmp_path, {"config.yaml": "optimizer: adamw\nlr: 3.0e-4\nweight_decay: 0.1\nbetas: [0.9, 0.95]\n"
                                           "adam_epsilon: 1.0e-8\nbatch_size: 32\n"})
    assert not {"config:eps_large", "config:weight_decay_high", "config:betas_odd", "config:batch_size_tiny",
                "config:momentum_odd"} & set(signals(run))


def test_weight_decay_threshold_depends_on_coupling(tmp_path):
    sgd = run_of(tmp_path, {"config.yaml": "optimizer: sgd\nweight_decay: 0.5\n"})
    assert signals(sgd)["config:weight_decay_high"].data["weight_decay"] == 0.5
    adamw = run_of(tmp_path, {"config.yaml": "optimizer: adamw\nweight_decay: 0.5\n"})
    assert "config:weight_decay_high" not in signals(adamw)
    # coupled L2 100x the usual 5e-4 (SGD at 0.05 floors a digits MLP at ~80 %): flagged; the recipes' 5e-4 and a
    # small-data 5e-3 are not
    assert "config:weight_decay_high" in signals(run_of(tmp_path, {"config.yaml": "optimizer: sgd\nweight_decay: 0.05\n"}))
    for usual in ("0.0005", "0.005"):
        assert "config:weight_decay_high" not in signals(run_of(tmp_path, {"config.yaml": f"optimizer: sgd\nweight_decay: {usual}\n"}))


def test_configured_momentum_the_sgd_call_does_not_pass(tmp_path):
    run = run_of(tmp_path, {"config.yaml": "optimizer: sgd\nmomentum: 0.9\n",
                            "train.py": "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.01)\n"})
    s = signals(run)["config:momentum_odd"]
    assert s.data["detail"] == "not_passed" and s.strength >= 0.7
    assert {e.source for e in s.evidence} == {"config.yaml", "train.py"}


def test_momentum_off_in_the_users_args_where_the_reference_config_sets_it(tmp_path):
    """A reproduction: the user's args dump says momentum=0.0, the authors' config momentum: 0.9 (same SGD, same lr):
    config:momentum_odd citing both files. The args alone are the weak 'SGD without momentum' reading."""
    ref = "optim:\n  name: sgd\n  lr: 0.02\n  momentum: 0.9\n"
    args = "Namespace(arch='mlp', batch_size=128, lr=0.02, momentum=0.0, nesterov=False, seed=0)\n"
    s = signals(run_of(tmp_path, {"official_config.yaml": ref, "args.txt": args}))["config:momentum_odd"]
    assert s.data["detail"] == "differs" and s.strength == 0.6
    assert {e.source for e in s.evidence} == {"official_config.yaml", "args.txt"}
    (tmp_path / "official_config.yaml").unlink()
    alone = signals(run_of(tmp_path, {"args.txt": args + "optimizer: sgd\n"}))["config:momentum_odd"]
    assert alone.data["detail"] == "zero" and alone.strength < 0.5


def test_sgd_momentum_next_to_one(tmp_path):
    # Ray Tune's params.json with SGD at momentum 0.999: ~1000 gradients in every step; the loss climbs back up
    s = signals(run_of(tmp_path, {"params.json": '{"lr": 0.01, "momentum": 0.999, "optimizer": "sgd"}'}))["config:momentum_odd"]
    assert s.data["detail"] == "near_one" and s.strength == 0.8 and s.evidence[0].source == "params.json"
    # nnU-Net's SGD at 0.99 is a recipe; a bare 0.999 with no SGD named is as often a Keras BatchNormalization's
    assert "config:momentum_odd" not in signals(run_of(tmp_path, {"params.json": '{"momentum": 0.99, "optimizer": "sgd"}'}))
    assert "config:momentum_odd" not in signals(run_of(tmp_path, {"params.json": '{"momentum": 0.999, "optimizer": "adam"}'}))


def test_configured_momentum_a_posts_sgd_call_does_not_pass(tmp_path):
    """The same in a post: its LightningModule's configure_optimizers builds SGD without momentum (torch's
    default 0) while the attached config says 0.9; the optimizer's printed repr says momentum 0 too."""
    post = ("Lightning port trains slower than the old script\n\n```python\n"
            "def configure_optimizers(self):\n    o = self.cfg['optim']\n"
            "    return torch.optim.SGD(self.parameters(), lr=o['lr'], weight_decay=o['weight_decay'])\n```\n\n"
            "```\nSGD (\nParameter Group 0\n    lr: 0.1\n    momentum: 0\n    weight_decay: 0.0005\n)\n```\n")
    run = run_of(tmp_path, {"config.yaml": "optim:\n  name: sgd\n  lr: 0.1\n  momentum: 0.9\n", "question.txt": post})
    s = signals(run)["config:momentum_odd"]
    assert s.data["detail"] == "not_passed" and s.strength >= 0.8 and {e.source for e in s.evidence} == {"config.yaml", "question.txt"}


def test_swapped_betas(tmp_path):
    run = run_of(tmp_path, {"config.yaml": "optimizer: adam\nbetas: [0.999, 0.9]\n"})
    assert "swapped" in signals(run)["config:betas_odd"].summary


def test_tiny_batch_with_batch_norm_and_accumulation(tmp_path):
    code = "import torch.nn as nn\nnet = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8))\n" \
           "val_loader = DataLoader(val_ds, batch_size=256)\n"
    run = run_of(tmp_path, {"config.yaml": "batch_size: 2\n", "train.py": code})
    s = signals(run)["config:batch_size_tiny"]
    assert s.data == {"batch_size": 2, "batchnorm": True}      # the eval loader's 256 is not the training batch
    accumulated = run_of(tmp_path, {"config.yaml": "batch_size: 2\ngradient_accumulation_steps: 16\n"})
    assert "config:batch_size_tiny" not in signals(accumulated)


def test_an_openmmlab_configs_train_loader_is_the_training_batch_and_its_bn_is_batch_norm(tmp_path):
    """An mmseg config: train_dataloader = dict(batch_size=2), val_dataloader = dict(batch_size=1) and
    norm_cfg = dict(type='BN'): the training batch is 2 (the evaluation loader's 1 is no training batch),
    with batch norm in the model."""
    cfg = ("_base_ = ['./deeplabv3plus_r50-d8_4xb2-80k_cityscapes-512x1024.py']\n"
           "norm_cfg = dict(type='BN', requires_grad=True)\n"
           "model = dict(backbone=dict(norm_cfg=norm_cfg))\n"
           "train_dataloader = dict(batch_size=2, num_workers=4)\n"
           "val_dataloader = dict(batch_size=1, num_workers=4)\n")
    s = signals(run_of(tmp_path, {"my_config.py": cfg}))["config:batch_size_tiny"]
    assert s.data == {"batch_size": 2, "batchnorm": True} and s.evidence[0].line == 4
    # GroupNorm instead: no batch norm
    s = signals(run_of(tmp_path, {"my_config.py": cfg.replace("type='BN'", "type='GN', num_groups=32")}))
    assert s["config:batch_size_tiny"].data["batchnorm"] is False


# ---------------------------------------------------------------- training-setup code checks

def test_keras_kernel_initializers_at_a_constant_or_a_large_stddev(tmp_path):
    """Keras layers with kernel_initializer="zeros" (through a constant KINIT) on every layer: one
    constant init; RandomNormal(stddev=1.0) on two layers: a large std. The default glorot, or zeros on
    the output layer alone, says nothing."""
    code = ('KINIT = "zeros"\nmodel = keras.Sequential([\n    layers.Input((784,)),\n'
            '    layers.Dense(256, activation="relu", kernel_initializer=KINIT),\n'
            '    layers.Dense(10, activation="softmax", kernel_initializer=KINIT),\n])\n')
    s = signals(run_of(tmp_path, {"train.py": code}))
    assert s["code:init_constant_weights"].evidence[0].line == 4
    big = code.replace('KINIT = "zeros"', "KINIT = keras.initializers.RandomNormal(mean=0.0, stddev=1.0)")
    s = signals(run_of(tmp_path, {"train.py": big}))
    assert (s["code:init_std_large"].data["std"], s["code:init_std_large"].data["every_layer"]) == (1.0, True)
    assert "code:init_constant_weights" not in s
    plain = code.replace('KINIT = "zeros"', 'KINIT = "glorot_uniform"')
    assert not {"code:init_std_large", "code:init_constant_weights"} & set(signals(run_of(tmp_path, {"train.py": plain})))
    last_only = code.replace('activation="relu", kernel_initializer=KINIT', 'activation="relu"')
    assert "code:init_constant_weights" not in signals(run_of(tmp_path, {"train.py": last_only}))


def test_a_posts_indented_keras_model_opening_two_brackets_on_one_line_is_quoted_code():
    """`model = keras.Sequential([` leaves '[' open inside '(': closed as "])" it parses (closed as "))"
    it did not, and the block was no quoted code)."""
    from mltdbg.analyzers.prose import quoted_code
    lines = ["my model:", '    KINIT = "zeros"', "    model = keras.Sequential([",
             '        layers.Dense(10, kernel_initializer=KINIT),', "    ])", '    model.compile(optimizer="adam")', "why?"]
    assert quoted_code(lines) == [range(1, 6)]


def test_init_std_one_in_a_module_loop(tmp_path):
    code = ("import torch.nn as nn\n"
            "for m in model.modules():\n"
            "    if isinstance(m, nn.Linear):\n"
            "        nn.init.normal_(m.weight, mean=0.0, std=1.0)\n"
            "        nn.init.zeros_(m.bias)\n")
    s = signals(run_of(tmp_path, {"train.py": code}))["code:init_std_large"]
    assert s.data["std"] == 1.0 and s.data["every_layer"] and s.evidence[0].line == 4


def test_init_std_one_in_a_loop_over_a_layer_stack_the_file_builds(tmp_path):
    """`for fc in self.fcs:` where `self.fcs = nn.ModuleList(...)`: every layer, as a loop over model.modules() is; a
    loop over some other list (`for w in extra_weights:`) is not."""
    code = ("import torch.nn as nn\n"
            "class MLP(nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.fcs = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))\n"
            "        for fc in self.fcs:\n"
            "            nn.init.normal_(fc.weight, mean=0.0, std=1.0)\n")
    s = signals(run_of(tmp_path, {"train.py": code}))["code:init_std_large"]
    assert s.data["every_layer"] and s.evidence[0].line == 7
    other = code.replace("for fc in self.fcs:", "for fc in extra_weights:")
    assert not signals(run_of(tmp_path, {"train.py": other}))["code:init_std_large"].data["every_layer"]


def test_init_std_read_through_a_function_and_the_config(tmp_path):
    code = ("import torch.nn as nn\n"
            "def init_weights(model, std):\n"
            "    for name, p in model.named_parameters():\n"
            "        if p.dim() > 1:\n"
            "            nn.init.normal_(p, mean=0.0, std=std)\n"
            "init_weights(model, cfg['init_std'])\n")
    run = run_of(tmp_path, {"train.py": code, "config.yaml": "init_std: 1.0\n"})
    assert signals(run)["code:init_std_large"].data["std"] == 1.0
    small = run_of(tmp_path, {"train.py": code, "config.yaml": "init_std: 0.02\n"})
    assert "code:init_std_large" not in signals(small)


def test_standard_inits_biases_and_embeddings_are_not_flagged(tmp_path):
    code = ("import torch.nn as nn\n"
            "for m in model.modules():\n"
            "    if isinstance(m, nn.Linear):\n"
            "        nn.init.kaiming_normal_(m.weight, nonlinearity='relu')\n"
            "        nn.init.normal_(m.bias, std=1.0)\n"
            "        nn.init.constant_(m.bias, 0.0)\n"
            "    elif isinstance(m, nn.Embedding):\n"
            "        nn.init.normal_(m.embedding.weight, std=1.0)\n"
            "nn.init.normal_(model.head.weight, std=0.02)\n")
    found = signals(run_of(tmp_path, {"train.py": code}))
    assert "code:init_std_large" not in found and "code:init_constant_weights" not in found


def test_constant_weights_for_every_layer(tmp_path):
    code = "import torch.nn as nn\nfor m in model.modules():\n    if isinstance(m, nn.Linear):\n        nn.init.constant_(m.weight, 0.1)\n"
    assert signals(run_of(tmp_path, {"train.py": code}))["code:init_constant_weights"].evidence[0].line == 4


def test_weight_decay_in_the_momentum_slot(tmp_path):
    code = "import torch\nopt = torch.optim.SGD(model.parameters(), cfg['lr'], cfg['weight_decay'])\n"
    s = signals(run_of(tmp_path, {"train.py": code}))["code:optimizer_arg_mismatch"]
    assert s.data == {"file": "train.py", "line": 2, "optimizer": "SGD", "slot": "momentum", "given": "weight_decay"}
    ok = "import torch\nopt = torch.optim.SGD(model.parameters(), cfg['lr'], cfg['momentum'], weight_decay=wd)\n"
    assert "code:optimizer_arg_mismatch" not in signals(run_of(tmp_path, {"train.py": ok}))


def test_optimizer_subclass_passing_weight_decay_positionally(tmp_path):
    code = ("import torch\n"
            "class PolyOptimizer(torch.optim.SGD):\n"
            "    def __init__(self, params, lr, weight_decay, max_step):\n"
            "        super().__init__(params, lr, weight_decay)\n")
    s = signals(run_of(tmp_path, {"optim.py": code}))["code:optimizer_arg_mismatch"]
    assert s.data["slot"] == "momentum" and s.evidence[0].line == 4


def test_uint8_images_cast_to_float_without_scaling(tmp_path):
    code = ("import torch\n"
            "images = torch.zeros(10, 1, 8, 8, dtype=torch.uint8)\n"
            "def get(i):\n"
            "    img = images[i].float()\n"
            "    return img\n")
    s = signals(run_of(tmp_path, {"data.py": code}))["code:raw_pixels_unscaled"]
    assert s.data["uint8"] is True and s.evidence[0].line == 4
    for scaled in (code.replace("images[i].float()", "images[i].float() / 255.0"),
                   code + "tf = transforms.Normalize((0.5,), (0.25,))\n"):
        assert "code:raw_pixels_unscaled" not in signals(run_of(tmp_path, {"data.py": scaled}))


def test_images_a_loop_collects_then_cast_with_np_array_and_never_scaled(tmp_path):
    """`X.append(img)` of cv2.imread images, then `X = np.array(X, dtype="float32")` fed to fit(): the
    list holds the images whatever it is called. A /255 after it, or a list of labels, says nothing."""
    code = ("X = []\nfor p in paths:\n    img = cv2.imread(p)\n    img = cv2.resize(img, (128, 128))\n"
            "    X.append(img)\nX = np.array(X, dtype='float32')\nmodel.fit(X, y, epochs=15)\n")
    s = signals(run_of(tmp_path, {"train.py": code}))["code:raw_pixels_unscaled"]
    assert s.evidence[0].line == 6 and s.data["uint8"] is True
    scaled = code.replace("model.fit(X", "X = X / 255.0\nmodel.fit(X")
    assert "code:raw_pixels_unscaled" not in signals(run_of(tmp_path, {"train.py": scaled}))
    labels = ("Y = []\nfor p in paths:\n    Y.append(label_of(p))\nY = np.array(Y, dtype='float32')\n")
    assert "code:raw_pixels_unscaled" not in signals(run_of(tmp_path, {"train.py": labels}))


def test_pil_to_tensor_images_fed_to_the_model_as_floats_without_scaling(tmp_path):
    """PILToTensor yields uint8 tensors: a `model(x.float())` with no scaling anywhere is the raw pixels,
    whatever the batch is called; ToTensor (which scales to 0..1) in its place is fine."""
    code = ("from torchvision import transforms\n"
            "tf = transforms.Compose([transforms.PILToTensor()])\n"
            "for x, y in loader:\n"
            "    loss = F.cross_entropy(model(x.float()), y)\n")
    s = signals(run_of(tmp_path, {"train.py": code}))["code:raw_pixels_unscaled"]
    assert s.data["uint8"] is True and s.evidence[0].line == 4
    scaled = code.replace("transforms.PILToTensor()", "transforms.ToTensor()")
    assert "code:raw_pixels_unscaled" not in signals(run_of(tmp_path, {"train.py": scaled}))


@pytest.mark.parametrize("tok,model,differ", [
    ("bert-base-cased", "./finetuned-bert-base-uncased", True),      # casing
    ("roberta-base", "bert-base-uncased", True),                      # family
    ("gpt2", "meta-llama/Llama-2-7b-hf", True),
    ("distilbert-base-uncased", "distilbert-base-uncased", False),
    ("bert-base-uncased", "./out", False),                            # a local dir names no family
    ("./out", "./out", False)])
def test_a_tokenizer_loaded_from_another_checkpoint_than_the_model(tmp_path, tok, model, differ):
    code = (f"tok = AutoTokenizer.from_pretrained({tok!r})\n"
            f"config = AutoConfig.from_pretrained({tok!r})\n"
            f"model = AutoModelForSequenceClassification.from_pretrained({model!r})\n")
    s = signals(run_of(tmp_path, {"infer.py": code})).get("code:tokenizer_model_differ")
    assert (s is not None) is differ
    if differ:
        assert s.evidence[0].line == 1 and s.data["model"] == model


def test_tokens_added_in_training_and_a_base_tokenizer_at_serving(tmp_path):
    """train.py adds tokens and resizes the embeddings; serve.py loads the tokenizer from the base
    checkpoint and the model from the fine-tuned directory (a module constant): the added tokens are
    split into pieces the model never saw. Serving with the tokenizer saved beside the model, or a
    training run that adds no tokens, says nothing."""
    train = ("BASE = 'roberta-base'\ntokenizer = AutoTokenizer.from_pretrained(BASE)\n"
             "tokenizer.add_tokens(['<SKU>', '<ERR>'], special_tokens=True)\n"
             "model = AutoModelForSequenceClassification.from_pretrained(BASE, num_labels=14)\n"
             "model.resize_token_embeddings(len(tokenizer))\n")
    serve = ("MODEL_DIR = '/models/ticket-router-v3'\n"
             "tokenizer = AutoTokenizer.from_pretrained('roberta-base')\n"
             "model = AutoModelForSequenceClassification.from_pretrained(MODEL_DIR)\n")
    s = signals(run_of(tmp_path, {"train.py": train, "serve.py": serve}))["code:tokenizer_model_differ"]
    assert s.evidence[0].source == "serve.py" and s.evidence[0].line == 2
    assert (s.data["tokenizer"], s.data["model"]) == ("roberta-base", "/models/ticket-router-v3") and "train.py:3" in s.summary
    same_dir = serve.replace("from_pretrained('roberta-base')", "from_pretrained(MODEL_DIR)")
    assert "code:tokenizer_model_differ" not in signals(run_of(tmp_path, {"train.py": train, "serve.py": same_dir}))
    no_tokens = train.replace("tokenizer.add_tokens(['<SKU>', '<ERR>'], special_tokens=True)\n", "")
    assert "code:tokenizer_model_differ" not in signals(run_of(tmp_path, {"train.py": no_tokens, "serve.py": serve}))


def test_a_post_that_says_which_checkpoint_it_trained_from_beside_a_tokenizer_of_another_family(tmp_path):
    """The post says it fine-tuned roberta-base; its serving code loads the model from the Trainer's folder
    (no family in "ckpt/final") and a tokenizer from bert-base-cased. The same code in a script, or a post
    that names the tokenizer's own family, says nothing."""
    code = ("tok = AutoTokenizer.from_pretrained('bert-base-cased')\n"
            "model = AutoModelForSequenceClassification.from_pretrained('ckpt/final').eval()\n")
    post = "fine-tuned roberta-base on 3-class sentiment w/ Trainer, eval f1 was 0.89. in the service I do:\n```py\n" + code + "```\n"
    s = signals(run_of(tmp_path, {"question.txt": post}))["code:tokenizer_model_differ"]
    assert s.evidence[0].line == 3 and "roberta" in s.summary
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert "code:tokenizer_model_differ" not in signals(run_of(tmp_path / "a", {"serve.py": code}))
    same = post.replace("roberta-base", "bert-base-cased")
    assert "code:tokenizer_model_differ" not in signals(run_of(tmp_path / "b", {"question.txt": same}))


def test_an_inference_script_that_leaves_out_the_training_normalization(tmp_path):
    """train.py normalizes with ImageNet's mean/std; infer_onnx.py reads images with cv2, divides by 255
    and feeds them to an ONNX session: the mean/std is missing at inference. An inference script that
    subtracts the mean itself, or uses a transform object, says nothing; nor does one in a run whose
    training does not normalize."""
    train = ("from torchvision import transforms\nMEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]\n"
             "val_tf = transforms.Compose([transforms.Resize(256), transforms.ToTensor(),\n"
             "                             transforms.Normalize(MEAN, STD)])\n")
    infer = ("import cv2\nimport numpy as np\nimport onnxruntime as ort\n"
             "sess = ort.InferenceSession('model.onnx')\n"
             "def preprocess(path):\n    img = cv2.imread(path)\n    img = cv2.resize(img, (224, 224))\n"
             "    return np.transpose(img.astype(np.float32) / 255.0, (2, 0, 1))[None]\n"
             "print(sess.run(None, {'input': preprocess('a.jpg')}))\n")
    s = signals(run_of(tmp_path, {"train.py": train, "infer_onnx.py": infer}))["code:eval_preprocessing_differs"]
    assert s.evidence[0].source == "infer_onnx.py" and s.evidence[0].line == 6 and "train.py:4" in s.summary
    by_hand = infer.replace("img.astype(np.float32) / 255.0", "(img / 255.0 - np.array(MEAN)) / np.array(STD)")
    assert "code:eval_preprocessing_differs" not in signals(run_of(tmp_path, {"train.py": train, "infer_onnx.py": by_hand}))
    with_tf = infer.replace("    img = cv2.resize(img, (224, 224))\n", "    img = val_tf(img)\n")
    assert "code:eval_preprocessing_differs" not in signals(run_of(tmp_path, {"train.py": train, "infer_onnx.py": with_tf}))
    plain = train.replace(",\n                             transforms.Normalize(MEAN, STD)", "")
    assert "code:eval_preprocessing_differs" not in signals(run_of(tmp_path, {"train.py": plain, "infer_onnx.py": infer}))


def test_validation_rows_taken_from_the_training_array(tmp_path):
    code = ("def make(x, y, n_val):\n"
            "    x_val, y_val = x[:n_val], y[:n_val]\n"
            "    return TensorDataset(x, y), TensorDataset(x_val, y_val)\n")
    s = signals(run_of(tmp_path, {"data.py": code}))["code:val_overlaps_train"]
    assert s.evidence[0].line == 2 and s.evidence[1].line == 3
    clean = ("def make(x, y, n_val):\n"
             "    x_val, y_val = x[:n_val], y[:n_val]\n"
             "    x_train, y_train = x[n_val:], y[n_val:]\n"
             "    return TensorDataset(x_train, y_train), TensorDataset(x_val, y_val)\n")
    assert "code:val_overlaps_train" not in signals(run_of(tmp_path, {"data.py": clean}))
    same = "val_loader = DataLoader(train_ds, batch_size=64)\n"
    assert "code:val_overlaps_train" in signals(run_of(tmp_path, {"data.py": same}))


def test_label_column_among_the_features(tmp_path):
    code = ("import numpy as np\n"
            "arr = np.loadtxt('data.csv', delimiter=',')\n"
            "features = arr[:, 1:]\n"
            "labels = arr[:, -1]\n")
    s = signals(run_of(tmp_path, {"data.py": code}))["code:target_in_features"]
    assert s.evidence[0].line == 3 and s.evidence[1].line == 4
    clean = code.replace("arr[:, 1:]", "arr[:, 1:-1]")
    assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": clean}))
    frame = "y = df['churn']\nX = df.drop(columns=['customer_id'])\n"
    assert "code:target_in_features" in signals(run_of(tmp_path, {"data.py": frame}))
    dropped = "y = df['churn']\nX = df.drop(columns=['customer_id', 'churn'])\n"
    assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": dropped}))


def test_a_sliding_window_that_holds_the_step_it_predicts(tmp_path):
    """Forecasting windows: `X.append(series[t - window + 1 : t + 1])` beside `y.append(series[t])` puts the target in
    its own input (validation error far under a persistence baseline from epoch 1). The window that ends before the
    target (`series[t - window : t]`) is the clean one; forms that start at the target or end one past it are read too."""
    code = ("import numpy as np\nwindow = 24\nX, y = [], []\n"
            "for t in range(window, len(series)):\n"
            "    X.append(series[t - window + 1 : t + 1])\n"
            "    y.append(series[t])\n")
    s = signals(run_of(tmp_path, {"data.py": code}))["code:target_in_features"]
    assert s.evidence[0].line == 5 and s.evidence[1].line == 6
    clean = code.replace("series[t - window + 1 : t + 1]", "series[t - window : t]")
    assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": clean}))
    for feats, target in (("series[i : i + w]", "series[i]"), ("series[i : i + w]", "series[i + w - 1]"),
                          ("vals[i - w + 1 : i + 1, :]", "vals[i, 3]")):
        base = feats.split("[")[0]
        loop = (f"xs, ys = [], []\nfor i in range(n):\n    win = {feats}\n    xs.append(win)\n"
                f"    ys.append({target})\n")
        assert "code:target_in_features" in signals(run_of(tmp_path, {"data.py": loop})), (feats, target)
        other = loop.replace(f"ys.append({base}", "ys.append(targets")      # the target from another array
        assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": other})), other
    # the window's columns leave the target column out: the other features at the target's step are no leak
    cols = "xs, ys = [], []\nfor i in range(n):\n    xs.append(data[i : i + w, :-1])\n    ys.append(data[i + w - 1, -1])\n"
    assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": cols}))
    assert "code:target_in_features" in signals(run_of(tmp_path, {"data.py": cols.replace(":-1]", ":]")}))
    # the window's columns hold the target's when it is column 0 under :-1 (review: the width decides nothing there)
    assert "code:target_in_features" in signals(run_of(tmp_path, {"data.py": cols.replace(", -1])", ", 0])")}))
    ahead = code.replace("y.append(series[t])", "y.append(series[t + 1])")      # the next step: clean
    assert "code:target_in_features" not in signals(run_of(tmp_path, {"data.py": ahead}))


# ---------------------------------------------------------------- curves

def curve_run(num_classes: int | None = None, **series) -> Run:
    run = Run(root=Path("."))
    for name, (steps, vals) in series.items():
        v = np.asarray(vals, dtype=float)
        run.series.append(Series(name, name, np.asarray(steps), v, "m.csv", np.arange(len(v)) + 2, "line"))
    if num_classes:
        run.facts.append(Fact("num_classes", num_classes, "config.yaml", 1, f"num_classes: {num_classes}"))
    return run


def kinds(run: Run) -> dict[str, object]:
    return {s.kind: s for s in curve_signals(run)}


rng = np.random.default_rng(0)
N = 200
STEPS = np.arange(1, N + 1) * 10
FALLING = 2.3 * np.exp(-np.arange(N) / 40) + 0.2 + rng.normal(0, 0.01, N)


def test_huge_first_loss_against_chance_is_not_a_spike():
    v = FALLING.copy()
    v[:3] = [4000.0, 300.0, 20.0]
    k = kinds(curve_run(10, loss=(STEPS, v)))
    s = k["loss_huge_at_start"]
    assert s.data["first"] == 4000.0 and abs(s.data["chance"] - math.log(10)) < 1e-9
    assert "loss_spike" not in k and "healthy" not in k
    assert "loss_huge_at_start" not in kinds(curve_run(10, loss=(STEPS, FALLING)))


def test_nan_at_the_first_step_and_unknown_k():
    v = FALLING.copy()
    v[0] = np.nan
    assert kinds(curve_run(loss=(STEPS, v)))["loss_huge_at_start"].data["nonfinite"] is True
    # K unknown: a regression MSE of 20 is fine, a cross-entropy (accuracy logged) of 20 is not
    w = FALLING.copy()
    w[0] = 20.0
    assert "loss_huge_at_start" not in kinds(curve_run(loss=(STEPS, w)))
    assert "loss_huge_at_start" in kinds(curve_run(loss=(STEPS, w), accuracy=(STEPS, np.linspace(0.2, 0.9, N))))


def test_noisy_loss_of_a_tiny_batch():
    per_sample = np.abs(rng.standard_cauchy(N)) * 0.05 + rng.exponential(0.05, N)
    assert kinds(curve_run(loss=(STEPS, per_sample)))["loss_noisy"].data["ratio"] >= 1.0
    assert "loss_noisy" not in kinds(curve_run(loss=(STEPS, FALLING + rng.normal(0, 0.05, N))))


def test_first_layer_gradient_far_above_the_others():
    n = 20
    st = np.arange(1, n + 1) * 5
    k = kinds(curve_run(**{"grad_norm/layer0": (st, np.full(n, 3.0)), "grad_norm/layer1": (st, np.full(n, 0.4)),
                           "grad_norm/layer2": (st, np.full(n, 0.3)), "grad_norm/layer3": (st, np.full(n, 0.1))}))
    assert k["grad_first_layer_large"].data["ratio"] == 30.0
    healthy = kinds(curve_run(**{f"grad_norm/layer{i}": (st, np.full(n, g)) for i, g in enumerate((0.8, 2.0, 4.0, 2.5))}))
    assert "grad_first_layer_large" not in healthy


def test_gap_from_the_first_evaluation_is_not_overfitting():
    val_steps = STEPS[19::20]
    chance = math.log(4)
    val = chance + np.linspace(0.0, 0.3, len(val_steps))          # at chance and getting worse, never better
    k = kinds(curve_run(4, loss=(STEPS, FALLING * 0.5), val_loss=(val_steps, val)))
    assert "val_gap_from_start" in k and "train_val_divergence" not in k
    # a val curve that first improves and then rises is overfitting
    over = np.concatenate([np.linspace(1.2, 0.6, 5), np.linspace(0.65, 1.1, 5)])
    k = kinds(curve_run(4, loss=(STEPS, FALLING * 0.5), val_loss=(val_steps, over)))
    assert "train_val_divergence" in k and "val_gap_from_start" not in k


def test_a_run_whose_validation_never_left_its_first_value_is_not_healthy():
    """Training falls as a healthy curve does, but validation sits at chance from the first
    evaluation: the run is not "healthy" (that signal argues against every cause)."""
    val_steps = STEPS[19::20]
    k = kinds(curve_run(4, loss=(STEPS, FALLING * 0.5), val_loss=(val_steps, math.log(4) + np.linspace(0, 0.3, len(val_steps)))))
    assert "val_gap_from_start" in k and "healthy" not in k
    assert "healthy" in kinds(curve_run(4, loss=(STEPS, FALLING * 0.5)))


def test_validation_accuracy_at_chance_from_the_first_evaluation_is_a_gap_not_overfitting():
    val_steps = STEPS[19::20]
    acc = np.linspace(0.3, 0.98, N)
    at_chance = 0.1 + 0.004 * np.sin(np.arange(len(val_steps)))     # 10 classes, never better than its start
    k = kinds(curve_run(10, loss=(STEPS, FALLING), accuracy=(STEPS, acc), val_accuracy=(val_steps, at_chance)))
    assert k["val_gap_from_start"].data["by"] == "accuracy" and k["val_gap_from_start"].strength == 0.8
    # percent scale, classes unknown: far below train from the start
    k = kinds(curve_run(loss=(STEPS, FALLING), accuracy=(STEPS, acc * 100), val_accuracy=(val_steps, np.full(len(val_steps), 41.0))))
    assert k["val_gap_from_start"].strength == 0.6
    # validation that improves with training, or a train accuracy that does not climb, is no such gap
    rising = np.linspace(0.2, 0.8, len(val_steps))
    assert "val_gap_from_start" not in kinds(curve_run(10, loss=(STEPS, FALLING), accuracy=(STEPS, acc),
                                                       val_accuracy=(val_steps, rising)))
    assert "val_gap_from_start" not in kinds(curve_run(10, loss=(STEPS, FALLING), accuracy=(STEPS, np.full(N, 0.5)),
                                                       val_accuracy=(val_steps, at_chance)))


def test_capped_train_accuracy_with_better_validation():
    val_steps = STEPS[19::20]
    acc = 0.7 + rng.normal(0, 0.04, N)
    acc[:20] = np.linspace(0.3, 0.7, 20)
    k = kinds(curve_run(10, loss=(STEPS, 0.6 + 1.7 * np.exp(-np.arange(N) / 10)), accuracy=(STEPS, acc),
                        val_accuracy=(val_steps, np.full(len(val_steps), 0.93))))
    assert k["train_acc_capped"].strength >= 0.85 and k["val_above_train"].data["by"] == "accuracy"
    assert "healthy" not in k and "val_near_perfect" not in k


def test_validation_near_perfect_and_below_the_train_loss():
    val_steps = STEPS[19::20]
    k = kinds(curve_run(10, loss=(STEPS, FALLING), val_loss=(val_steps, np.full(len(val_steps), 0.005)),
                        val_accuracy=(val_steps, np.r_[0.995, np.full(len(val_steps) - 1, 1.0)])))
    assert k["val_near_perfect"].data["early"] is True
    assert k["val_above_train"].data["by"] == "loss"


def test_a_beta2_far_below_recipes_is_flagged_and_gan_betas_are_not(tmp_path):
    run = run_of(tmp_path, {"config.yaml": "optimizer:\n  name: adam\n  lr: 0.001\n  betas: [0.1, 0.1]\n"})
    s = signals(run)["config:betas_odd"]
    assert s.strength == 0.6 and s.evidence[0].line == 4
    for gan in ("[0.0, 0.9]", "[0.5, 0.999]", "[0.0, 0.99]"):
        assert "config:betas_odd" not in signals(run_of(tmp_path, {"config.yaml": f"optimizer: adam\nbetas: {gan}\n"}))


def test_a_deep_stack_of_saturating_activations_is_read_from_a_config_or_a_printed_model(tmp_path):
    import torch  # noqa: PLC0415 - a real print(model)

    cfg = run_of(tmp_path, {"config.yaml": "optimizer: sgd\nlr: 0.01\nmodel:\n  activation: Sigmoid\n"
                                           "  hidden_layers: [64, 64, 64, 64, 64, 64, 64, 64]\n"})
    assert facts(cfg)["num_layers"] == [8] and facts(cfg)["activation"] == ["sigmoid"]
    s = signals(cfg)["config:deep_saturating"]
    assert s.data == {"activation": "sigmoid", "layers": 8} and [e.line for e in s.evidence] == [4, 5]
    layers: list = [torch.nn.Linear(20, 64), torch.nn.Tanh()]
    for _ in range(5):
        layers += [torch.nn.Linear(64, 64), torch.nn.Tanh()]
    printed = run_of(tmp_path, {"model.log": str(torch.nn.Sequential(*layers, torch.nn.Linear(64, 4))) + "\n"})
    assert signals(printed)["config:deep_saturating"].data == {"activation": "tanh", "layers": 6}
    # not: a transformer's config (gelu, 12 layers), a normalised stack, a shallow one, a ReLU net
    bert = run_of(tmp_path, {"config.json": '{"hidden_act": "gelu", "num_hidden_layers": 12}'})
    normed = run_of(tmp_path, {"model.log": str(torch.nn.Sequential(*layers, torch.nn.BatchNorm1d(64))) + "\n"})
    shallow = run_of(tmp_path, {"config.yaml": "activation: tanh\nnum_layers: 3\n"})
    relu = run_of(tmp_path, {"config.yaml": "activation: relu\nnum_layers: 20\n"})
    for run in (bert, normed, shallow, relu):
        assert "config:deep_saturating" not in signals(run)


def test_a_tokenizer_of_another_casing_leads_an_eval_regression(tmp_path):
    from mltdbg.playbooks.diagnose import diagnose  # noqa: PLC0415

    (tmp_path / "infer.py").write_text('tok = AutoTokenizer.from_pretrained("bert-base-cased")\n'
                                       'model = AutoModelForSequenceClassification.from_pretrained("./ft-bert-base-uncased")\n')
    d = diagnose([str(tmp_path)], ["great on validation during training (0.91) but near random at inference (0.52)"])
    assert d.hypotheses[0].id == "tokenizer_mismatch" and d.status == "needs_more_data"


_RELU_MODELS = {
    "torch_sequential": ("model = nn.Sequential(\n    nn.Linear(13, 64),\n    nn.ReLU(),\n    nn.Linear(64, 1),\n"
                         "    nn.ReLU(),\n)\n", 5),
    "keras_sequential": ("model = tf.keras.Sequential([\n    layers.Dense(64, activation='relu'),\n"
                         "    layers.Dense(1, activation='relu'),\n])\nmodel.compile(optimizer='adam', loss='mse')\n", 3),
    "keras_add": ("model = Sequential()\nmodel.add(Dense(12, activation='relu'))\nmodel.add(Dense(1, activation='relu'))\n", 3),
    "keras_functional": ("inp = Input(shape=(10,))\nh = Dense(32, activation='relu')(inp)\n"
                         "out = Dense(1, activation='relu')(h)\nmodel = Model(inputs=inp, outputs=out)\n", 3),
    "forward": ("class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                "        self.fc1 = nn.Linear(784, 128)\n        self.fc2 = nn.Linear(128, 10)\n"
                "    def forward(self, x):\n        x = F.relu(self.fc1(x))\n        x = F.relu(self.fc2(x))\n"
                "        return x\n", 9),
}
# the same models with their output left alone, and ReLUs that are normal: a block's, a feature stack's
_RELU_FINE = {
    "torch_sequential": _RELU_MODELS["torch_sequential"][0].replace("    nn.Linear(64, 1),\n    nn.ReLU(),\n",
                                                                    "    nn.Linear(64, 1),\n"),
    "keras_sequential": _RELU_MODELS["keras_sequential"][0].replace("Dense(1, activation='relu')", "Dense(1)"),
    "keras_add": _RELU_MODELS["keras_add"][0].replace("Dense(1, activation='relu')", "Dense(1, activation='sigmoid')"),
    "keras_functional": _RELU_MODELS["keras_functional"][0].replace("Dense(1, activation='relu')", "Dense(1)"),
    "forward": _RELU_MODELS["forward"][0].replace("x = F.relu(self.fc2(x))", "x = self.fc2(x)"),
    "block": ("class BasicBlock(nn.Module):\n    def forward(self, x):\n        return self.relu(self.conv(x) + x)\n"),
    "used_block": ("class Stage(nn.Module):\n    def forward(self, x):\n        return F.relu(self.conv(x))\n"
                   "class Net(nn.Module):\n    def __init__(self):\n        self.s = Stage()\n"
                   "    def forward(self, x):\n        return self.fc(self.s(x))\n"),
    "feature_stack": "self.features = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU())\n",
    "layer_loop": ("class MLP(nn.Module):\n    def forward(self, x):\n        for layer in self.hidden:\n"
                   "            x = torch.relu(layer(x))\n        return x\n"),
}


def _found_at(tmp_path: Path, kind: str, code: str) -> int | None:
    """The line `kind` cites in `code` (one file), None when it is not found."""
    s = signals(run_of(tmp_path, {"model.py": code})).get(kind)
    return s.evidence[0].line if s is not None else None


# (kind, code, the line cited or None): a pattern found, and its look-alikes that are fine
_FOUND = ([("code:relu_output", code, line) for code, line in _RELU_MODELS.values()]
          + [("code:relu_output", code, None) for code in _RELU_FINE.values()])


@pytest.mark.parametrize("kind, code, line", _FOUND)
def test_a_code_pattern_is_found_and_its_look_alikes_are_not(tmp_path, kind, code, line):
    assert _found_at(tmp_path, kind, code) == line


@pytest.mark.parametrize("code, strength", [
    ("model.load_state_dict(torch.load('best.pt'), strict=False)\nmodel.eval()\n", 0.7),
    ("model.load_weights('w.h5', by_name=True, skip_mismatch=True)\n", 0.7),
    # the missing/unexpected keys are kept: the code may look at them
    ("missing, unexpected = model.load_state_dict(sd, strict=False)\nprint(missing)\n", 0.25),
    ("model.load_state_dict(torch.load('best.pt'))\n", None),
    ("model.load_state_dict(sd, strict=True)\n", None)])
def test_weights_loaded_without_strict_key_matching(tmp_path, code, strength):
    s = signals(run_of(tmp_path, {"eval.py": code})).get("code:load_not_strict")
    assert (s.strength if s is not None else None) == strength
    if s is not None:
        assert s.evidence[0].line == 1


def test_a_loose_load_in_a_post_ranks_the_wrong_weights_first_below_the_bar(tmp_path):
    """strict=False is also how a head is swapped on purpose: it ranks wrong_checkpoint first, and
    alone it is no finding."""
    (tmp_path / "eval.py").write_text("model.load_state_dict(torch.load('best.pt'), strict=False)\nmodel.eval()\n")
    d = diagnose([str(tmp_path)], ["the loaded model's accuracy is 9.8% but it was 97% during training"])
    assert d.hypotheses[0].id == "wrong_checkpoint" and d.hypotheses[0].confidence < 0.8


_NORM = "transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))"
_PREP_DIFFERS = {
    "transform_without_normalize": (
        f"transform_train = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.ToTensor(), {_NORM}])\n"
        "transform_test = transforms.Compose([transforms.ToTensor()])\n", 2),
    "transform_other_constants": (
        f"train_tf = T.Compose([T.ToTensor(), {_NORM}])\n"
        "val_tf = T.Compose([T.ToTensor(), T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5))])\n", 2),
    "keras_divide": ("x_train = x_train / 255.0\nmodel.fit(x_train, y_train, epochs=10, validation_data=(x_test, y_test))\n", 1),
    "sklearn_scaler": ("X_train = scaler.fit_transform(X_train)\nclf.fit(X_train, y_train)\nprint(clf.score(X_test, y_test))\n", 1),
    "in_place": ("trainX /= 255\nmodel.fit(trainX, trainY)\nmodel.evaluate(testX, testY)\n", 1),
}
_PREP_SAME = {
    "same_normalize": f"train_tf = T.Compose([T.RandomHorizontalFlip(), T.ToTensor(), {_NORM}])\n"
                      f"test_tf = T.Compose([T.ToTensor(), {_NORM}])\n",
    "tuple": "x_train, x_test = x_train / 255.0, x_test / 255.0\nmodel.fit(x_train, y_train)\nmodel.evaluate(x_test, y_test)\n",
    "scaler_both": "X_train = scaler.fit_transform(X_train)\nX_test = scaler.transform(X_test)\nclf.fit(X_train, y_train)\n",
    "astype_both": "x_train = x_train.astype('float32') / 255\nx_test = x_test.astype('float32') / 255\nfit(x_train, x_test)\n",
    "scaled_where_used": "x_train = x_train / 255.0\nmodel.fit(x_train, y_train)\nmodel.evaluate(x_test / 255.0, y_test)\n",
    "a_loss_is_no_array": "train_loss = train_loss / len(train_loader)\nprint(train_loss, val_loss)\n",
    "a_helper_scales_it": "x_train = x_train / 255.0\nx_test = prepare_images(x_test)\nmodel.evaluate(x_test, y_test)\n",
}


@pytest.mark.parametrize("kind, code, line", [("code:eval_preprocessing_differs", code, line) for code, line in
                                               _PREP_DIFFERS.values()]
                         + [("code:eval_preprocessing_differs", code, None) for code in _PREP_SAME.values()])
def test_evaluation_data_prepared_unlike_training_data(tmp_path, kind, code, line):
    assert _found_at(tmp_path, kind, code) == line


def test_a_test_transform_without_the_training_normalization_ranks_preprocessing_first(tmp_path):
    (tmp_path / "data.py").write_text(_PREP_DIFFERS["transform_without_normalize"][0])
    d = diagnose([str(tmp_path)], ["train accuracy is 95% but test accuracy is only 40%"])
    assert d.hypotheses[0].id == "preprocessing_mismatch"


@pytest.mark.parametrize("call, on", [
    ("F.dropout(F.relu(self.fc1(x)), 0.5)", True),
    ("nn.functional.dropout2d(x, p=0.2)", True),
    ("F.dropout(x, p=0.5, training=self.training)", False),
    ("F.dropout(x, 0.5, self.training)", False),
    ("self.drop(x)", False)])
def test_functional_dropout_that_eval_cannot_turn_off(tmp_path, call, on):
    code = ("class Net(nn.Module):\n    def forward(self, x):\n"
            f"        x = {call}\n        return self.fc2(x)\n")
    s = signals(run_of(tmp_path, {"model.py": code})).get("code:dropout_always_on")
    assert (s is not None) is on
    if on:
        assert s.evidence[0].line == 3


_LOOP = ("total_loss = 0\nlosses = []\nfor x, y in loader:\n    optimizer.zero_grad()\n    loss = criterion(model(x), y)\n"
         "    loss.backward()\n    optimizer.step()\n    {keep}\n")


@pytest.mark.parametrize("keep, kept", [
    ("total_loss += loss", True), ("losses.append(loss)", True),
    ("total_loss += loss.item()", False), ("losses.append(loss.detach())", False), ("n += 1", False),
    ("loss = loss.item()\n    total_loss += loss", False)])
def test_a_loop_that_keeps_each_steps_loss_tensor(tmp_path, keep, kept):
    s = signals(run_of(tmp_path, {"train.py": _LOOP.format(keep=keep)})).get("code:loss_kept_with_graph")
    assert (s is not None) is kept
    if kept:
        assert s.evidence[0].line == 8


def test_a_kept_loss_explains_an_out_of_memory_and_offers_nothing_alone(tmp_path):
    (tmp_path / "train.py").write_text(_LOOP.format(keep="total_loss += loss"))
    assert not diagnose([str(tmp_path)], ["the loss becomes nan after 3 epochs"]).hypotheses[0].id.endswith("oom")
    (tmp_path / "err.txt").write_text("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\n")
    h = diagnose([str(tmp_path)], []).hypotheses[0]
    assert h.id == "cuda_oom" and any(e.source == "train.py" and e.line == 8 for e in h.evidence)


@pytest.mark.parametrize("cfg, narrow", [
    ("data:\n  num_classes: 5\nmodel:\n  hidden:\n  - 2\n", True),           # 2 units before 5 classes
    ("num_classes: 10\nhidden_layer_sizes: [64, 8]\n", True),              # sklearn's MLP: 8 < 10 classes
    ("hidden_size: 2\n", True),
    ("num_classes: 10\nhidden_dim: 16\n", False),
    ("hidden_size: 768\nnum_hidden_layers: 2\n", False),                  # a count of layers is no width
    ('{"hidden": "4", "dropout": "0.5"}\n', True),                        # half of 4 units drop out each step
    ('{"hidden": "4", "dropout": "0.1"}\n', False),
    ("hidden_size: 256\ndropout: 0.5\n", False),
])
def test_a_hidden_layer_narrower_than_its_output_needs_is_read(tmp_path, cfg, narrow):
    sigs = signals(run_of(tmp_path, {"config.yaml": cfg}))
    assert ("config:hidden_narrow" in sigs) is narrow


def test_a_plateau_under_a_two_unit_hidden_layer_is_a_model_too_small(tmp_path):
    """A 5-class MLP with one hidden layer of 2 units (a real CPU run's numbers): train accuracy stops at 0.62, val
    at 0.59, loss at 0.9. Read before as label_noise 0.45 (its training accuracy capped)."""
    acc = [0.278, 0.578, 0.604, 0.612, 0.617, 0.62, 0.619, 0.622, 0.621, 0.616]
    loss = [1.529, 1.11, 1.003, 0.959, 0.939, 0.925, 0.917, 0.911, 0.906, 0.9]
    (tmp_path / "history.json").write_text(json.dumps({
        "loss": loss, "accuracy": acc, "val_loss": [x + 0.04 for x in loss], "val_accuracy": [a - 0.03 for a in acc]}))
    (tmp_path / "config.yaml").write_text("data:\n  num_classes: 5\nmodel:\n  hidden:\n  - 2\n  activation: tanh\n"
                                          "train:\n  optimizer: adam\n  lr: 0.003\n")
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "plateau_underfitting"


def test_training_behind_validation_through_batch_norm_on_a_batch_of_two_is_the_batch(tmp_path):
    """Batch 2 with BatchNorm1d (a real CPU run's numbers): train accuracy 0.41-0.45 while validation is 0.56-0.62,
    and the input layer's gradients spike. Read before as unnormalized_inputs 0.39 first; the gap is the batch
    statistics' (training uses each batch's own, evaluation the running ones), not wrong training labels."""
    from mltdbg.analyzers.analyze import analyze
    from mltdbg.analyzers.ingest import ingest
    tr = [0.41, 0.43, 0.44, 0.45, 0.44, 0.45, 0.43, 0.45, 0.44, 0.45, 0.44, 0.45]
    va = [0.56, 0.58, 0.60, 0.59, 0.61, 0.62, 0.57, 0.60, 0.62, 0.58, 0.61, 0.62]
    (tmp_path / "metrics.csv").write_text("epoch,train_loss,train_acc,val_loss,val_acc\n" + "".join(
        f"{e + 1},{1.45 - 0.01 * e:.3f},{a},{1.10 - 0.01 * e:.3f},{b}\n" for e, (a, b) in enumerate(zip(tr, va))))
    (tmp_path / "config.json").write_text('{"batch_size": 2, "num_classes": 5, "lr": 0.001, "optimizer": "adam"}\n')
    (tmp_path / "train.py").write_text("import torch.nn as nn\nnet = nn.Sequential(nn.Linear(16, 64), nn.BatchNorm1d(64), "
                                       "nn.ReLU(), nn.Linear(64, 5))\n")
    kinds = {s.kind for s in analyze(ingest([str(tmp_path)]))}
    assert "batchnorm_train_behind" in kinds
    assert diagnose([str(tmp_path)], []).hypotheses[0].id == "batch_size_too_small"
    (tmp_path / "train.py").write_text("import torch.nn as nn\nnet = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), "
                                       "nn.Linear(64, 5))\n")     # no batch norm: nothing to blame the batch for
    assert "batchnorm_train_behind" not in {s.kind for s in analyze(ingest([str(tmp_path)]))}
