"""Hand-written cases: failures a CPU box cannot produce (CUDA, NCCL, cluster OOM kills).

The text follows the formats the tools really print (torch 1.x/2.x OOM messages,
ProcessGroupNCCL watchdog lines, torchrun's ChildFailedError table, DataLoader
worker kills, slurm OOM events, CUDA device-side asserts), checked against
public issue reports. The two CI cases run real pytest on a tiny project.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from make_zoo import Ctx, case


def hw(name: str, **kw):
    return case(name, generated=False, **kw)


def put(c: Ctx, files: dict[str, str]) -> None:
    for rel, text in files.items():
        c.write(rel, textwrap.dedent(text).lstrip("\n"))


# =============================================================================
# cuda_oom
# =============================================================================

SEG_TRAIN = '''
"""Train a UNet for road segmentation."""
import argparse

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from data import RoadDataset
from unet import UNet


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batch_size", type=int, default=48)
    p.add_argument("--image_size", type=int, default=1024)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=40)
    args = p.parse_args()
    device = torch.device("cuda")
    ds = RoadDataset("data/train", size=args.image_size)
    loader = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=8, pin_memory=True)
    model = UNet(in_ch=3, n_classes=2, base=64).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(args.epochs):
        for img, mask in loader:
            img, mask = img.to(device), mask.to(device)
            logits = model(img)
            loss = F.cross_entropy(logits, mask)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                print(f"epoch={epoch} step={step} loss={loss.item():.4f} lr={args.lr} "
                      f"mem_alloc_gb={torch.cuda.memory_allocated() / 2**30:.2f}", flush=True)


if __name__ == "__main__":
    main()
'''


@hw("cuda_oom_unet_torch1_kv", split="tune", expected="cuda_oom",
    symptom="Crashes with CUDA out of memory after a few steps on a 16 GB card.", fmt="key=value log + torch 1.x OOM traceback",
    notes="Hand-written. UNet at 1024x1024 with batch 48 (args.json) on a 16 GB V100; torch 1.12 wording "
          "'RuntimeError: CUDA out of memory. Tried to allocate ... (GPU 0; ... total capacity; ...)'.")
def _(c: Ctx):
    lines = [f"epoch=0 step={s} loss={0.69 - s * 0.0021:.4f} lr=0.0003 mem_alloc_gb={12.1 + s * 0.004:.2f}"
             for s in range(10, 60, 10)]
    put(c, {"train.py": SEG_TRAIN, "args.json": '{"batch_size": 48, "image_size": 1024, "lr": 0.0003, "epochs": 40}\n',
            "train.log": "\n".join(lines) + "\n" + '''
Traceback (most recent call last):
  File "train.py", line 42, in <module>
    main()
  File "train.py", line 30, in main
    logits = model(img)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
  File "/workspace/roads/unet.py", line 61, in forward
    x = self.up1(x5, x4)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
  File "/workspace/roads/unet.py", line 27, in forward
    return self.conv(torch.cat([x2, x1], dim=1))
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/container.py", line 139, in forward
    input = module(input)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/module.py", line 1130, in _call_impl
    return forward_call(*input, **kwargs)
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/modules/batchnorm.py", line 168, in forward
    return F.batch_norm(
  File "/opt/conda/lib/python3.8/site-packages/torch/nn/functional.py", line 2438, in batch_norm
    return torch.batch_norm(
RuntimeError: CUDA out of memory. Tried to allocate 1.50 GiB (GPU 0; 15.78 GiB total capacity; 13.02 GiB already allocated; 1.17 GiB free; 13.52 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
'''.lstrip("\n")})


HF_TRAIN = '''
"""Fine-tune a causal LM on our support tickets with the HF Trainer."""
from datasets import load_from_disk
from transformers import (AutoModelForCausalLM, AutoTokenizer, DataCollatorForLanguageModeling, Trainer,
                          TrainingArguments)

MODEL = "EleutherAI/pythia-1.4b"


def main():
    tok = AutoTokenizer.from_pretrained(MODEL)
    tok.pad_token = tok.eos_token
    ds = load_from_disk("data/tickets_tokenized_2048")
    model = AutoModelForCausalLM.from_pretrained(MODEL)
    args = TrainingArguments(
        output_dir="output",
        per_device_train_batch_size=16,
        gradient_accumulation_steps=1,
        learning_rate=2e-5,
        num_train_epochs=3,
        logging_steps=10,
        bf16=True,
        gradient_checkpointing=False,
        report_to="none",
    )
    trainer = Trainer(model=model, args=args, train_dataset=ds["train"], tokenizer=tok,
                      data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
    trainer.train()


if __name__ == "__main__":
    main()
'''


@hw("cuda_oom_hf_trainer_torch21", split="tune", expected="cuda_oom",
    symptom="OutOfMemoryError when fine-tuning pythia-1.4b on a 24GB GPU, I already use bf16.",
    fmt="HF Trainer printed dicts + torch 2.1 OutOfMemoryError",
    notes="Hand-written. HF Trainer, 1.4B model, per_device_train_batch_size=16 at 2048 tokens without "
          "gradient checkpointing on a 24 GB card; torch 2.1 wording 'torch.cuda.OutOfMemoryError: ... GPU 0 "
          "has a total capacty of 23.69 GiB of which ... is free'.")
def _(c: Ctx):
    put(c, {"train.py": HF_TRAIN, "train.log": '''
[INFO|trainer.py:1760] 2024-05-01 12:00:11,417 >> ***** Running training *****
[INFO|trainer.py:1761] 2024-05-01 12:00:11,417 >>   Num examples = 41,220
[INFO|trainer.py:1762] 2024-05-01 12:00:11,417 >>   Num Epochs = 3
[INFO|trainer.py:1763] 2024-05-01 12:00:11,417 >>   Instantaneous batch size per device = 16
[INFO|trainer.py:1766] 2024-05-01 12:00:11,417 >>   Total train batch size (w. parallel, distributed & accumulation) = 16
[INFO|trainer.py:1767] 2024-05-01 12:00:11,417 >>   Gradient Accumulation steps = 1
[INFO|trainer.py:1768] 2024-05-01 12:00:11,417 >>   Total optimization steps = 7,731
[INFO|trainer.py:1769] 2024-05-01 12:00:11,418 >>   Number of trainable parameters = 1,414,647,808
  0%|          | 0/7731 [00:00<?, ?it/s]
  0%|          | 1/7731 [00:04<9:12:51,  4.29s/it]
Traceback (most recent call last):
  File "/home/maria/tickets-ft/train.py", line 35, in <module>
    main()
  File "/home/maria/tickets-ft/train.py", line 31, in main
    trainer.train()
  File "/home/maria/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 1591, in train
    return inner_training_loop(
  File "/home/maria/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 1892, in _inner_training_loop
    tr_loss_step = self.training_step(model, inputs)
  File "/home/maria/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 2776, in training_step
    loss = self.compute_loss(model, inputs)
  File "/home/maria/.venv/lib/python3.10/site-packages/transformers/trainer.py", line 2801, in compute_loss
    outputs = model(**inputs)
  File "/home/maria/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1518, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/maria/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1527, in _call_impl
    return forward_call(*args, **kwargs)
  File "/home/maria/.venv/lib/python3.10/site-packages/transformers/models/gpt_neox/modeling_gpt_neox.py", line 1011, in forward
    lm_logits = self.embed_out(hidden_states)
  File "/home/maria/.venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1527, in _call_impl
    return forward_call(*args, **kwargs)
  File "/home/maria/.venv/lib/python3.10/site-packages/torch/nn/modules/linear.py", line 114, in forward
    return F.linear(input, self.weight, self.bias)
torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 6.13 GiB. GPU 0 has a total capacty of 23.69 GiB of which 1.91 GiB is free. Including non-PyTorch memory, this process has 21.77 GiB memory in use. Of the allocated memory 20.94 GiB is allocated by PyTorch, and 512.45 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF
  0%|          | 1/7731 [00:09<20:41:37,  9.64s/it]
'''})


DDP_TRAIN_OOM = '''
"""DDP training of a ViT on our image corpus (torchrun --nproc_per_node 4 train.py)."""
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from data import build_loaders
from vit import vit_base


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    train_loader, val_loader = build_loaders(batch_size=128, rank=rank, world=dist.get_world_size())
    model = DDP(vit_base(num_classes=1000).cuda())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    val_losses = []
    for epoch in range(90):
        model.train()
        for it, (x, y) in enumerate(train_loader):
            loss = F.cross_entropy(model(x.cuda()), y.cuda())
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if it % 50 == 0 and rank == 0:
                print(f"ep {epoch} it {it} train_loss {loss.item():.3f} "
                      f"gpu_mem {torch.cuda.max_memory_allocated() / 2**30:.1f}G", flush=True)
        model.eval()
        for x, y in val_loader:
            out = model(x.cuda())
            val_losses.append(F.cross_entropy(out, y.cuda()))      # running average for the progress bar
        if rank == 0:
            print(f"ep {epoch} val_loss {torch.stack(val_losses).mean().item():.3f}", flush=True)


if __name__ == "__main__":
    main()
'''


@hw("cuda_oom_eval_graph_kept_torchrun", split="holdout", expected="cuda_oom", symptom=None,
    fmt="rank-prefixed torchrun output, torch 2.5 torch.OutOfMemoryError, ChildFailedError table",
    notes="Hand-written. The validation loop runs without torch.no_grad() and keeps every loss tensor "
          "(val_losses.append(loss), no .item()), so each batch's graph stays alive: gpu_mem grows every epoch "
          "until rank 1 raises torch.OutOfMemoryError (torch 2.5 wording) inside validation; torchrun reports "
          "the ChildFailedError table.")
def _(c: Ctx):
    mem = [21.4, 21.4, 21.4, 21.5]
    rows = []
    for ep in range(3):
        for it in (0, 50, 100, 150):
            rows.append(f"[rank0]:ep {ep} it {it} train_loss {6.9 - ep * 0.8 - it * 0.002:.3f} gpu_mem {mem[0] + ep * 9.7:.1f}G")
        rows.append(f"[rank0]:ep {ep} val_loss {6.1 - ep * 0.7:.3f}")
    put(c, {"train.py": DDP_TRAIN_OOM, "launch.sh": "torchrun --standalone --nproc_per_node 4 train.py 2>&1 | tee train.log\n",
            "train.log": '''
W0501 12:00:00.101000 140519 torch/distributed/run.py:793]
W0501 12:00:00.101000 140519 torch/distributed/run.py:793] *****************************************
W0501 12:00:00.101000 140519 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed.
W0501 12:00:00.101000 140519 torch/distributed/run.py:793] *****************************************
''' .lstrip("\n") + "\n".join(rows) + '''
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/kim/vit/train.py", line 44, in <module>
[rank1]:     main()
[rank1]:   File "/home/kim/vit/train.py", line 36, in main
[rank1]:     out = model(x.cuda())
[rank1]:           ^^^^^^^^^^^^^^^
[rank1]:   File "/home/kim/.venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
[rank1]:     return self._call_impl(*args, **kwargs)
[rank1]:   File "/home/kim/.venv/lib/python3.11/site-packages/torch/nn/parallel/distributed.py", line 1643, in forward
[rank1]:     else self._run_ddp_forward(*inputs, **kwargs)
[rank1]:   File "/home/kim/vit/vit.py", line 88, in forward
[rank1]:     attn = (q @ k.transpose(-2, -1)) * self.scale
[rank1]:            ~~^~~~~~~~~~~~~~~~~~~~~~
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 1 has a total capacity of 79.14 GiB of which 612.75 MiB is free. Including non-PyTorch memory, this process has 78.52 GiB memory in use. Of the allocated memory 76.31 GiB is allocated by PyTorch, and 1.48 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
W0501 12:41:07.935000 140519 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 140588 closing signal SIGTERM
W0501 12:41:07.936000 140519 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 140590 closing signal SIGTERM
W0501 12:41:07.936000 140519 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 140591 closing signal SIGTERM
E0501 12:41:08.401000 140519 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 1 (pid: 140589) of binary: /home/kim/.venv/bin/python
Traceback (most recent call last):
  File "/home/kim/.venv/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/home/kim/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 919, in main
    run(args)
  File "/home/kim/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 910, in run
    elastic_launch(
  File "/home/kim/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 138, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File "/home/kim/.venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_12:41:07
  host      : gpu-node-07
  rank      : 1 (local_rank: 1)
  exitcode  : 1 (pid: 140589)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
============================================================
'''})


# =============================================================================
# device_mismatch
# =============================================================================

@hw("device_mismatch_class_weights_kv", split="tune", expected="device_mismatch",
    symptom="RuntimeError: Expected all tensors to be on the same device. I did call model.to(device)!",
    fmt="key=value log + torch 2.0 traceback",
    notes="Hand-written. The class-weight tensor for CrossEntropyLoss is built on the CPU "
          "(torch.tensor(weights)) while logits and targets are on cuda:0: the loss raises on the first step.")
def _(c: Ctx):
    put(c, {"train.py": '''
        """Imbalanced defect classifier (ResNet-18) with class-weighted loss."""
        import torch
        import torch.nn as nn
        import torchvision
        import yaml

        from data import make_loaders


        def main():
            cfg = yaml.safe_load(open("config.yaml"))
            device = torch.device("cuda:0")
            train_loader, _ = make_loaders(cfg)
            model = torchvision.models.resnet18(num_classes=cfg["num_classes"]).to(device)
            counts = train_loader.dataset.class_counts()
            weights = torch.tensor([sum(counts) / c for c in counts], dtype=torch.float32)
            criterion = nn.CrossEntropyLoss(weight=weights)
            opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
            print(f"device={device} num_classes={cfg['num_classes']} class_counts={counts}")
            for epoch in range(cfg["epochs"]):
                for step, (x, y) in enumerate(train_loader):
                    x, y = x.to(device), y.to(device)
                    loss = criterion(model(x), y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                    if step % 20 == 0:
                        print(f"epoch={epoch} step={step} loss={loss.item():.4f}")


        if __name__ == "__main__":
            main()
        ''', "config.yaml": "num_classes: 4\nlr: 0.01\nepochs: 30\nbatch_size: 64\ndata_root: /data/defects\n",
        "train.log": '''
        device=cuda:0 num_classes=4 class_counts=[9120, 311, 150, 87]
        Traceback (most recent call last):
          File "/home/ana/defects/train.py", line 33, in <module>
            main()
          File "/home/ana/defects/train.py", line 24, in main
            loss = criterion(model(x), y)
                   ^^^^^^^^^^^^^^^^^^^^^^
          File "/home/ana/miniconda3/envs/cv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1501, in _call_impl
            return forward_call(*args, **kwargs)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "/home/ana/miniconda3/envs/cv/lib/python3.10/site-packages/torch/nn/modules/loss.py", line 1174, in forward
            return F.cross_entropy(input, target, weight=self.weight,
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
          File "/home/ana/miniconda3/envs/cv/lib/python3.10/site-packages/torch/nn/functional.py", line 3029, in cross_entropy
            return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)
                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
        RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument weight in method wrapper_CUDA_nll_loss_forward)
        '''})


@hw("device_mismatch_index_select_lightning", split="holdout", expected="device_mismatch", symptom=None,
    fmt="Lightning progress + torch 2.4 'index is on cpu' traceback",
    notes="Hand-written. A custom validation_step builds position ids with torch.arange(...) (CPU) and indexes "
          "the embedding on cuda:0: torch 2.4 wording 'Expected all tensors to be on the same device, but got "
          "index is on cpu, different from other tensors on cuda:0 (when checking argument in method "
          "wrapper_CUDA__index_select)'. Training steps ran; it fails in the first validation.")
def _(c: Ctx):
    put(c, {"model.py": '''
        import lightning as L
        import torch
        import torch.nn as nn
        import torch.nn.functional as F


        class TextClassifier(L.LightningModule):
            def __init__(self, vocab_size=32000, d=256, max_len=512, num_classes=3):
                super().__init__()
                self.save_hyperparameters()
                self.tok = nn.Embedding(vocab_size, d)
                self.pos = nn.Embedding(max_len, d)
                layer = nn.TransformerEncoderLayer(d, 8, 4 * d, batch_first=True)
                self.encoder = nn.TransformerEncoder(layer, 4)
                self.head = nn.Linear(d, num_classes)

            def forward(self, ids, pos):
                h = self.encoder(self.tok(ids) + self.pos(pos))
                return self.head(h.mean(1))

            def training_step(self, batch, _):
                ids, y = batch
                pos = torch.arange(ids.shape[1], device=ids.device).expand_as(ids)
                loss = F.cross_entropy(self(ids, pos), y)
                self.log("train_loss", loss, prog_bar=True)
                return loss

            def validation_step(self, batch, _):
                ids, y = batch
                pos = torch.arange(ids.shape[1]).expand_as(ids)
                self.log("val_loss", F.cross_entropy(self(ids, pos), y), prog_bar=True)

            def configure_optimizers(self):
                return torch.optim.AdamW(self.parameters(), lr=3e-4)
        ''', "train.py": '''
        import lightning as L

        from data import ReviewsDataModule
        from model import TextClassifier

        if __name__ == "__main__":
            trainer = L.Trainer(accelerator="gpu", devices=1, max_epochs=5, val_check_interval=200)
            trainer.fit(TextClassifier(), datamodule=ReviewsDataModule(batch_size=64))
        ''', "train.log": '''
        GPU available: True (cuda), used: True
        TPU available: False, using: 0 TPU cores
        HPU available: False, using: 0 HPUs
        LOCAL_RANK: 0 - CUDA_VISIBLE_DEVICES: [0]

          | Name    | Type               | Params | Mode
        -------------------------------------------------------
        0 | tok     | Embedding          | 8.2 M  | train
        1 | pos     | Embedding          | 131 K  | train
        2 | encoder | TransformerEncoder | 3.2 M  | train
        3 | head    | Linear             | 771    | train
        -------------------------------------------------------
        11.5 M    Trainable params
        0         Non-trainable params
        11.5 M    Total params
        45.839    Total estimated model params size (MB)
        Sanity Checking: |          | 0/? [00:00<?, ?it/s]
        Epoch 0:  12%|█▏        | 200/1688 [00:41<05:07,  4.84it/s, v_num=3, train_loss=0.912]
        Validation: |          | 0/? [00:00<?, ?it/s]
        Traceback (most recent call last):
          File "/home/omar/reviews/train.py", line 8, in <module>
            trainer.fit(TextClassifier(), datamodule=ReviewsDataModule(batch_size=64))
          File "/home/omar/.venv/lib/python3.11/site-packages/lightning/pytorch/trainer/trainer.py", line 538, in fit
            call._call_and_handle_interrupt(
          File "/home/omar/.venv/lib/python3.11/site-packages/lightning/pytorch/loops/evaluation_loop.py", line 396, in _evaluation_step
            output = call._call_strategy_hook(trainer, hook_name, *step_args)
          File "/home/omar/.venv/lib/python3.11/site-packages/lightning/pytorch/strategies/strategy.py", line 411, in validation_step
            return self.lightning_module.validation_step(*args, **kwargs)
          File "/home/omar/reviews/model.py", line 32, in validation_step
            self.log("val_loss", F.cross_entropy(self(ids, pos), y), prog_bar=True)
          File "/home/omar/reviews/model.py", line 19, in forward
            h = self.encoder(self.tok(ids) + self.pos(pos))
          File "/home/omar/.venv/lib/python3.11/site-packages/torch/nn/modules/sparse.py", line 190, in forward
            return F.embedding(
          File "/home/omar/.venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2551, in embedding
            return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
        RuntimeError: Expected all tensors to be on the same device, but got index is on cpu, different from other tensors on cuda:0 (when checking argument in method wrapper_CUDA__index_select)
        '''})


# =============================================================================
# host_oom
# =============================================================================

@hw("host_oom_dataloader_worker_killed", split="tune", expected="host_oom",
    symptom="Training dies after ~2 epochs with 'DataLoader worker is killed by signal: Killed'. GPU memory is fine.",
    fmt="Python logging file with RSS + DataLoader worker killed traceback",
    notes="Hand-written. The Dataset caches every decoded image in a dict (self.cache) and the DataLoader "
          "has num_workers=16 with persistent_workers: each worker grows its own cache; host RSS climbs "
          "epoch over epoch until the kernel OOM killer kills a worker.")
def _(c: Ctx):
    rss = [6.1, 18.4, 30.9, 43.2, 55.6, 61.8]
    rows = [f"2024-05-01 12:{10 + i * 7:02d}:0{i},112 INFO train: epoch {i // 3} iter {(i % 3) * 500} loss "
            f"{1.92 - i * 0.11:.4f} host_rss_gb {r:.1f} data_time 0.021" for i, r in enumerate(rss)]
    put(c, {"train.py": '''
        """Train an EfficientNet-B0 on product photos."""
        import logging

        import psutil
        import torch
        from PIL import Image
        from torch.utils.data import DataLoader, Dataset

        log = logging.getLogger("train")


        class Photos(Dataset):
            def __init__(self, paths, labels, transform):
                self.paths, self.labels, self.transform = paths, labels, transform
                self.cache = {}                       # decoded images, decode once

            def __len__(self):
                return len(self.paths)

            def __getitem__(self, i):
                if i not in self.cache:
                    self.cache[i] = Image.open(self.paths[i]).convert("RGB").copy()
                return self.transform(self.cache[i]), self.labels[i]


        def main(cfg):
            loader = DataLoader(Photos(*load_index(cfg), build_transform(cfg)), batch_size=cfg.batch_size,
                                shuffle=True, num_workers=16, persistent_workers=True, pin_memory=True)
            for epoch in range(cfg.epochs):
                for it, (x, y) in enumerate(loader):
                    loss = train_step(x, y)
                    if it % 500 == 0:
                        log.info("epoch %d iter %d loss %.4f host_rss_gb %.1f data_time %.3f", epoch, it, loss,
                                 psutil.Process().memory_info().rss / 2**30 * 17, 0.021)
        ''', "train.log": "\n".join(rows) + '''
Traceback (most recent call last):
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data
    data = self._data_queue.get(timeout=timeout)
  File "/usr/lib/python3.10/queue.py", line 180, in get
    self.not_empty.wait(remaining)
  File "/usr/lib/python3.10/threading.py", line 324, in wait
    gotit = waiter.acquire(True, timeout)
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler
    _error_if_any_worker_fails()
RuntimeError: DataLoader worker (pid 48213) is killed by signal: Killed. 

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "/home/lee/photos/train.py", line 61, in <module>
    main(parse_args())
  File "/home/lee/photos/train.py", line 36, in main
    for it, (x, y) in enumerate(loader):
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 631, in __next__
    data = self._next_data()
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1329, in _next_data
    idx, data = self._get_data()
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1295, in _get_data
    success, data = self._try_get_data()
  File "/home/lee/photos/.venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1146, in _try_get_data
    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e
RuntimeError: DataLoader worker (pid(s) 48213) exited unexpectedly
''', "dmesg.txt": '''
[1912833.113370] Out of memory: Killed process 48213 (python) total-vm:71542352kB, anon-rss:58734120kB, file-rss:71680kB, shmem-rss:0kB, UID:1004 pgtables:116112kB oom_score_adj:0
[1912833.942071] oom_reaper: reaped process 48213 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB
'''})


@hw("host_oom_slurm_exit137", split="holdout", expected="host_oom", symptom="job just dies, no python error at all",
    fmt="slurm job output: fairseq-style lines, oom_kill event, exit 137",
    notes="Hand-written. train.py loads the whole tokenised corpus with np.load (no mmap) in every one of 8 "
          "ranks on a 64 GB node; the job output has no traceback, only slurmstepd's oom_kill event, the "
          "wrapper's 'Killed' line and exit code 137.")
def _(c: Ctx):
    put(c, {"train.py": '''
        """Pretrain a small LM on the tokenised corpus (one process per GPU via srun)."""
        import os

        import numpy as np
        import torch


        def main():
            rank = int(os.environ["SLURM_PROCID"])
            tokens = np.load("/scratch/corpus/tokens_uint16.npy")       # 7.8 GB, loaded by every rank
            data = torch.from_numpy(tokens.astype(np.int64))            # int64 copy: 31 GB per rank
            train(data, rank)
        ''', "job.sbatch": '''
        #!/bin/bash
        #SBATCH --job-name=lm-pretrain
        #SBATCH --nodes=1
        #SBATCH --ntasks-per-node=8
        #SBATCH --gres=gpu:8
        #SBATCH --mem=64G
        #SBATCH --output=slurm-%j.out
        srun bash -c 'python train.py --config configs/small.yaml; echo "exit code $?"'
        ''', "slurm-734211.out": '''
        2024-05-01 12:00:03 | INFO | train | rank 0: loading /scratch/corpus/tokens_uint16.npy
        2024-05-01 12:00:03 | INFO | train | rank 3: loading /scratch/corpus/tokens_uint16.npy
        2024-05-01 12:00:03 | INFO | train | rank 5: loading /scratch/corpus/tokens_uint16.npy
        2024-05-01 12:00:41 | INFO | train | rank 0: 3,901,225,412 tokens
        2024-05-01 12:00:44 | INFO | train | rank 3: 3,901,225,412 tokens
        slurmstepd: error: Detected 1 oom_kill event in StepId=734211.0. Some of your processes may have been killed by the cgroup out-of-memory handler.
        bash: line 1: 91277 Killed                  python train.py --config configs/small.yaml
        exit code 137
        srun: error: gpu-node-07: task 5: Out Of Memory
        slurmstepd: error: *** STEP 734211.0 ON gpu-node-07 CANCELLED AT 2024-05-01T12:01:02 ***
        srun: Job step aborted: Waiting up to 32 seconds for job step to finish.
        '''})


# =============================================================================
# distributed_hang
# =============================================================================

@hw("nccl_timeout_rank0_only_collective", split="tune", expected="distributed_hang",
    symptom="Training hangs at the end of epoch 1 and then crashes with a NCCL timeout after 10 minutes.",
    fmt="rank-prefixed NCCL watchdog lines (torch 2.4) + ChildFailedError table",
    notes="Hand-written. evaluate() contains dist.all_reduce but is called only under `if rank == 0`: rank 0 "
          "waits in an ALLREDUCE the others never join while ranks 1-3 wait in the next training step's "
          "allreduce; the NCCL watchdog fires after 600000 ms and torchrun reports SIGABRT.")
def _(c: Ctx):
    rows = [f"[rank0]:epoch 0 step {s} loss {3.1 - s / 900:.3f} lr 2.0e-04" for s in range(100, 1100, 100)]
    put(c, {"train.py": '''
        """DDP fine-tuning, launched with torchrun --nproc_per_node 4 train.py."""
        import torch
        import torch.distributed as dist


        @torch.no_grad()
        def evaluate(model, loader):
            correct = torch.zeros(1, device="cuda")
            total = torch.zeros(1, device="cuda")
            for x, y in loader:
                correct += (model(x.cuda()).argmax(-1) == y.cuda()).sum()
                total += len(y)
            dist.all_reduce(correct)                # sum over ranks
            dist.all_reduce(total)
            return (correct / total).item()


        def main():
            dist.init_process_group("nccl")
            rank = dist.get_rank()
            model, opt, train_loader, val_loader = setup(rank)
            step = 0
            for epoch in range(10):
                for x, y in train_loader:
                    loss = train_step(model, opt, x, y)
                    step += 1
                    if rank == 0 and step % 100 == 0:
                        print(f"epoch {epoch} step {step} loss {loss:.3f} lr 2.0e-04", flush=True)
                if rank == 0:
                    print(f"epoch {epoch} val_acc {evaluate(model, val_loader):.4f}", flush=True)
                    torch.save(model.module.state_dict(), f"ckpt_{epoch}.pt")
        ''', "train.log": "\n".join(rows) + '''
[rank2]:[E501 12:31:44.201455621 ProcessGroupNCCL.cpp:607] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2207, OpType=ALLREDUCE, NumelIn=23891971, NumelOut=23891971, Timeout(ms)=600000) ran for 600044 milliseconds before timing out.
[rank1]:[E501 12:31:44.201502113 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2207, OpType=ALLREDUCE, NumelIn=23891971, NumelOut=23891971, Timeout(ms)=600000) ran for 600051 milliseconds before timing out.
[rank3]:[E501 12:31:44.201533907 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2207, OpType=ALLREDUCE, NumelIn=23891971, NumelOut=23891971, Timeout(ms)=600000) ran for 600049 milliseconds before timing out.
[rank0]:[E501 12:31:44.219871020 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2207, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600061 milliseconds before timing out.
[rank2]:[E501 12:31:44.205410988 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 2] Exception (either an error or timeout) detected by watchdog at work: 2207, last enqueued NCCL work: 2207, last completed NCCL work: 2206.
[rank0]:[E501 12:31:44.223342019 ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank 0] Exception (either an error or timeout) detected by watchdog at work: 2207, last enqueued NCCL work: 2207, last completed NCCL work: 2206.
[rank2]:[E501 12:31:44.205462001 ProcessGroupNCCL.cpp:621] [Rank 2] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
[rank2]:[E501 12:31:44.205470102 ProcessGroupNCCL.cpp:627] [Rank 2] To avoid data inconsistency, we are taking the entire process down.
[rank2]:[E501 12:31:44.210902344 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 2] Process group watchdog thread terminated with exception: [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2207, OpType=ALLREDUCE, NumelIn=23891971, NumelOut=23891971, Timeout(ms)=600000) ran for 600044 milliseconds before timing out.
[rank2]:terminate called after throwing an instance of 'c10::DistBackendError'
W0501 12:31:46.002000 139822 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 139901 closing signal SIGTERM
W0501 12:31:46.002000 139822 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 139902 closing signal SIGTERM
W0501 12:31:46.003000 139822 torch/distributed/elastic/multiprocessing/api.py:890] Sending process 139904 closing signal SIGTERM
E0501 12:31:46.718000 139822 torch/distributed/elastic/multiprocessing/api.py:862] failed (exitcode: -6) local_rank: 2 (pid: 139903) of binary: /opt/conda/bin/python
torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-01_12:31:46
  host      : gpu-node-07
  rank      : 2 (local_rank: 2)
  exitcode  : -6 (pid: 139903)
  error_file: <N/A>
  traceback : Signal 6 (SIGABRT) received by PID 139903
============================================================
'''})


@hw("nccl_uneven_shards_old_format", split="holdout", expected="distributed_hang", symptom=None,
    fmt="old-format [E ProcessGroupNCCL.cpp] watchdog lines + Lightning-style progress + torchrun table",
    notes="Hand-written. Each rank reads its own shard file with a different number of rows, so ranks run a "
          "different number of steps per epoch; the rank that finishes early enters the epoch-end BROADCAST "
          "while the others still run ALLREDUCEs: watchdog timeout after 1800000 ms (torch 1.13 format), exit -6.")
def _(c: Ctx):
    put(c, {"train.py": '''
        """Multi-GPU training; each rank streams its own shard (data/shard_{rank}.jsonl)."""
        import torch
        import torch.distributed as dist


        def main():
            dist.init_process_group("nccl", timeout=__import__("datetime").timedelta(minutes=30))
            rank, world = dist.get_rank(), dist.get_world_size()
            rows = open(f"data/shard_{rank}.jsonl").readlines()      # shards were split by file size
            model, opt = build(rank)
            for epoch in range(20):
                for batch in batches(rows, 32):
                    step(model, opt, batch)                          # DDP all-reduces the grads
                best = torch.tensor([score(model)], device="cuda")
                dist.broadcast(best, src=0)                          # share rank 0's checkpoint decision
        ''', "shard_sizes.txt": "data/shard_0.jsonl 418230\ndata/shard_1.jsonl 401877\ndata/shard_2.jsonl 426012\n"
                                   "data/shard_3.jsonl 399104\n", "train.log": '''
        Epoch 0:  96%|█████████▌| 12561/13069 [58:12<02:21,  3.60it/s, loss=1.84, v_num=12]
        [E ProcessGroupNCCL.cpp:475] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=100528, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800321 milliseconds before timing out.
        [E ProcessGroupNCCL.cpp:475] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=100528, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800342 milliseconds before timing out.
        [E ProcessGroupNCCL.cpp:475] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=100528, OpType=ALLREDUCE, NumelIn=11689512, NumelOut=11689512, Timeout(ms)=1800000) ran for 1800301 milliseconds before timing out.
        [E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=100528, OpType=ALLREDUCE, NumelIn=11689512, NumelOut=11689512, Timeout(ms)=1800000) ran for 1800298 milliseconds before timing out.
        [E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.
        [E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.
        terminate called after throwing an instance of 'std::runtime_error'
          what():  [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=100528, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800321 milliseconds before timing out.
        WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 20311 closing signal SIGTERM
        WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 20312 closing signal SIGTERM
        WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 20313 closing signal SIGTERM
        ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -6) local_rank: 3 (pid: 20314) of binary: /usr/bin/python3
        torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
        =======================================================
        train.py FAILED
        -------------------------------------------------------
        Failures:
          <NO_OTHER_FAILURES>
        -------------------------------------------------------
        Root Cause (first observed failure):
        [0]:
          time      : 2024-05-01_13:31:02
          host      : dgx-03
          rank      : 3 (local_rank: 3)
          exitcode  : -6 (pid: 20314)
          error_file: <N/A>
          traceback : Signal 6 (SIGABRT) received by PID 20314
        =======================================================
        '''})


# =============================================================================
# label_out_of_range (CUDA device-side assert)
# =============================================================================

@hw("label_oob_cuda_device_assert", split="holdout", expected="label_out_of_range",
    symptom="CUDA error: device-side assert triggered, the stack trace points at loss.item()",
    fmt="CUDA device-side assert (Loss.cu) + async traceback",
    notes="Hand-written. config num_labels: 5 but the label map has 6 entries (a 'neutral' class added to the "
          "data): the nll_loss kernel asserts `t >= 0 && t < n_classes`; the Python traceback points at a later "
          "line (loss.item()) because CUDA errors are reported asynchronously.")
def _(c: Ctx):
    put(c, {"config.yaml": "model: roberta-base\nnum_labels: 5\nlr: 2.0e-05\nbatch_size: 32\nepochs: 3\n",
            "labels.json": '{"very_negative": 0, "negative": 1, "neutral": 2, "positive": 3, "very_positive": 4, "mixed": 5}\n',
            "train.py": '''
        import json

        import torch
        import torch.nn.functional as F
        import yaml
        from transformers import AutoModelForSequenceClassification

        cfg = yaml.safe_load(open("config.yaml"))
        label2id = json.load(open("labels.json"))
        model = AutoModelForSequenceClassification.from_pretrained(cfg["model"], num_labels=cfg["num_labels"]).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
        for step, batch in enumerate(make_loader(label2id, cfg["batch_size"])):
            out = model(input_ids=batch["input_ids"].cuda(), attention_mask=batch["attention_mask"].cuda())
            loss = F.cross_entropy(out.logits, batch["labels"].cuda())
            loss.backward()
            opt.step()
            opt.zero_grad()
            if step % 50 == 0:
                print(f"step {step} loss {loss.item():.4f}")
        ''', "train.log": '''
        step 0 loss 1.6213
        step 50 loss 1.4471
        ../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [7,0,0] Assertion `t >= 0 && t < n_classes` failed.
        ../aten/src/ATen/native/cuda/Loss.cu:250: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [19,0,0] Assertion `t >= 0 && t < n_classes` failed.
        Traceback (most recent call last):
          File "/home/sam/sentiment/train.py", line 21, in <module>
            print(f"step {step} loss {loss.item():.4f}")
                                      ^^^^^^^^^^^
        RuntimeError: CUDA error: device-side assert triggered
        CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.
        For debugging consider passing CUDA_LAUNCH_BLOCKING=1.
        Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.

        '''})


# =============================================================================
# ci_environment_drift (real pytest runs)
# =============================================================================

def _pytest(project: dict[str, str], args: list[str]) -> str:
    """Run real pytest on a throwaway project; returns its combined output."""
    with tempfile.TemporaryDirectory() as td:
        for rel, text in project.items():
            p = Path(td) / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(textwrap.dedent(text).lstrip("\n"))
        r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=td,
                           capture_output=True, text=True, timeout=120,
                           env={"PATH": "/usr/bin:/bin", "PYTHONHASHSEED": "0", "HOME": td, "COLUMNS": "100"})
        out = (r.stdout + r.stderr).replace(td, "/home/runner/work/augment/augment")
    import re
    import sysconfig
    paths = sysconfig.get_paths()
    out = out.replace(paths["purelib"], "/opt/hostedtoolcache/Python/3.11.7/x64/lib/python3.11/site-packages")
    out = out.replace(paths["stdlib"], "/opt/hostedtoolcache/Python/3.11.7/x64/lib/python3.11")
    out = re.sub(r"(?m)^plugins: .*\n", "", out)                     # our dev plugins, not the user's
    return re.sub(r" in \d+\.\d+s\b", " in 3.21s", out)            # wall time varies run to run


def _gh(lines: list[str], t0: int = 0) -> str:
    """GitHub Actions raw log: every line gets an ISO timestamp."""
    out = []
    for i, line in enumerate(lines):
        t = t0 + 0.37 * i                              # seconds since 12:00:00, increasing
        out.append(f"2024-05-01T12:{int(t) // 60:02d}:{int(t) % 60:02d}.{int(t % 1 * 1e7):07d}Z {line}\n")
    return "".join(out)


AUG_PROJECT = {
    "augment/__init__.py": '"""Image augmentations."""\n',
    "augment/ops.py": '''
        import torch


        def mixup(x, y, alpha=0.2):
            lam = torch.distributions.Beta(alpha, alpha).sample()
            idx = torch.randperm(len(x))
            return lam * x + (1 - lam) * x[idx], y, y[idx], lam
    ''',
    "augment/clip.py": '''
        from torch._six import inf          # removed in torch 2.0


        def clip_grad_norm(parameters, max_norm, norm_type=2.0):
            parameters = [p for p in parameters if p.grad is not None]
            if norm_type == inf:
                return max(p.grad.abs().max() for p in parameters)
            return sum(p.grad.norm(norm_type) ** norm_type for p in parameters) ** (1.0 / norm_type)
    ''',
    "tests/test_ops.py": '''
        import torch

        from augment.ops import mixup


        def test_mixup_shapes():
            x, y = torch.randn(8, 3), torch.arange(8)
            xm, ya, yb, lam = mixup(x, y)
            assert xm.shape == x.shape and 0 <= lam <= 1
    ''',
    "tests/test_clip.py": '''
        import torch

        from augment.clip import clip_grad_norm


        def test_clip_matches_torch():
            w = torch.nn.Parameter(torch.randn(4))
            w.grad = torch.randn(4)
            assert torch.allclose(clip_grad_norm([w], 1.0), w.grad.norm())
    ''',
}


@hw("ci_torch_six_removed_github", split="tune", expected="ci_environment_drift",
    symptom="All tests pass on my laptop but CI fails with ModuleNotFoundError. I didn't change anything!",
    fmt="GitHub Actions raw log with real pytest output",
    notes="Generated pytest output, hand-written CI wrapper. requirements.txt has an unpinned `torch>=1.12`; "
          "the laptop has torch 1.13, CI installs torch 2.x where torch._six no longer exists: real pytest run "
          "shows 'ModuleNotFoundError: No module named 'torch._six'' during collection.")
def _(c: Ctx):
    out = _pytest(AUG_PROJECT, ["-q", "tests"])
    put(c, {**AUG_PROJECT, "requirements.txt": "torch>=1.12\nnumpy\npytest\n",
            ".github/workflows/ci.yml": '''
        name: ci
        on: [push, pull_request]
        jobs:
          test:
            runs-on: ubuntu-latest
            steps:
              - uses: actions/checkout@v4
              - uses: actions/setup-python@v5
                with:
                  python-version: "3.11"
              - run: pip install -r requirements.txt
              - run: pytest -q tests
        ''', "local_env.txt": "torch==1.13.1\nnumpy==1.24.4\npytest==7.4.0\n"})
    head = ["##[group]Run pip install -r requirements.txt", "pip install -r requirements.txt",
            "shell: /usr/bin/bash -e {0}", "##[endgroup]", "Collecting torch>=1.12 (from -r requirements.txt (line 1))",
            "  Downloading torch-2.3.0-cp311-cp311-manylinux1_x86_64.whl.metadata (26 kB)",
            "Collecting numpy (from -r requirements.txt (line 2))",
            "  Downloading numpy-1.26.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl.metadata (61 kB)",
            "Successfully installed filelock-3.14.0 fsspec-2024.3.1 jinja2-3.1.3 mpmath-1.3.0 networkx-3.3 numpy-1.26.4 "
            "pytest-8.4.2 sympy-1.12 torch-2.3.0 typing-extensions-4.11.0",
            "##[group]Run pytest -q tests", "pytest -q tests", "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    tail = ["##[error]Process completed with exit code 2."]
    c.write("ci_log.txt", _gh(head + out.rstrip("\n").split("\n") + tail))


KERNEL_PROJECT = {
    "fused/__init__.py": "",
    "fused/layernorm.py": '''
        import torch


        def fused_layer_norm(x, weight, bias, eps=1e-5):
            """Reference path on CPU; on CUDA the Triton kernel is used."""
            if x.is_cuda:
                from fused._triton_ln import layer_norm_fwd
                return layer_norm_fwd(x, weight, bias, eps)
            mu = x.mean(-1, keepdim=True)
            var = x.var(-1, keepdim=True, unbiased=False)
            return (x - mu) / torch.sqrt(var + eps) * weight + bias
    ''',
    "tests/conftest.py": '''
        import pytest
        import torch

        requires_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
    ''',
    "tests/test_layernorm.py": '''
        import pytest
        import torch

        from conftest import requires_cuda
        from fused.layernorm import fused_layer_norm


        def test_cpu_matches_torch():
            x, w, b = torch.randn(4, 64), torch.ones(64), torch.zeros(64)
            ref = torch.nn.functional.layer_norm(x, (64,), w, b)
            assert torch.allclose(fused_layer_norm(x, w, b), ref, atol=1e-5)


        @requires_cuda
        @pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
        @pytest.mark.parametrize("n", [64, 1024, 4096])
        def test_cuda_matches_torch(dtype, n):
            x = torch.randn(8, n, device="cuda", dtype=dtype)
            w, b = torch.ones(n, device="cuda", dtype=dtype), torch.zeros(n, device="cuda", dtype=dtype)
            ref = torch.nn.functional.layer_norm(x, (n,), w, b)
            assert torch.allclose(fused_layer_norm(x, w, b), ref, atol=1e-2)
    ''',
}


@hw("ci_gpu_tests_skipped_gitlab", split="holdout", expected="ci_environment_drift",
    symptom="CI is green but the fused layernorm is broken on our GPUs, how did the tests not catch it?",
    fmt="GitLab CI job log with real pytest -rs output",
    notes="Generated pytest output, hand-written CI wrapper. The CI runner has no GPU (nvidia-smi not found) "
          "and the CUDA tests are marked skipif(not torch.cuda.is_available()): 9 of 10 tests are silently "
          "SKIPPED, the job passes, the Triton path is never tested.")
def _(c: Ctx):
    out = _pytest(KERNEL_PROJECT, ["-rs", "tests"])
    put(c, {**KERNEL_PROJECT, ".gitlab-ci.yml": '''
        test:
          image: python:3.11
          script:
            - nvidia-smi || true
            - pip install torch pytest
            - pytest -rs tests
        ''', "requirements.txt": "torch\npytest\ntriton\n"})
    log = ["Running with gitlab-runner 16.11.0 (91a27b2a)", "  on shared-runner-small-3 xS6Vzpd3, system ID: r_8ZK1",
           "Preparing the \"docker+machine\" executor", "Using Docker executor with image python:3.11 ...",
           "$ nvidia-smi || true", "/usr/bin/bash: line 146: nvidia-smi: command not found",
           "$ pip install torch pytest", "Successfully installed torch-2.3.0+cpu pytest-8.4.2",
           "$ pytest -rs tests"] + out.rstrip("\n").split("\n") + ["Cleaning up project directory and file based variables",
                                                                    "Job succeeded"]
    c.write("job.log", "\n".join(log) + "\n")
