#!/usr/bin/env python3
"""Generate 12 ML-debugging scenario runs (R / Julia flavoured) from real tiny torch trainings.

Every number printed into a run's files comes from the training performed here; the R / Julia
look is only formatting. Writes runs/runNN/* and truth.json next to this file.
"""
import copy
import json
import math
import os
import shutil
import sys
import time
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
from fmt import (jl_f32, jl_f64, jl_round4_f32, keras_bar, r_crosstab, r_str_df,  # noqa: E402
                 r_summary_df, r_summary_vec, r_table)

torch.set_num_threads(1)
SEED = 20240611
OUT = os.path.join(HERE, "runs")
TRUTH = {}


# ------------------------------------------------------------------ helpers
def rng_for(i):
    return np.random.default_rng(SEED + 101 * i)


def teacher_data(rng, n, d, k, hidden=32, temp=0.0, gain=2.0):
    X = rng.standard_normal((n, d)).astype(np.float32)
    W1 = rng.standard_normal((d, hidden)) / math.sqrt(d)
    W2 = rng.standard_normal((hidden, k))
    logits = np.tanh(gain * X @ W1) @ W2
    logits = logits - logits.mean(0)
    if temp > 0:
        logits = logits + temp * rng.gumbel(size=logits.shape)
    return X, logits.argmax(1).astype(np.int64)


def cluster_data(rng, n, d, k, sep=1.0, sub=2):
    """k classes, each a union of `sub` Gaussian blobs."""
    C = rng.standard_normal((k * sub, d)) * sep
    lab = np.repeat(np.arange(k), sub)
    z = rng.integers(0, k * sub, n)
    X = (C[z] + rng.standard_normal((n, d))).astype(np.float32)
    return X, lab[z].astype(np.int64)


def mlp(dims, act=nn.ReLU, dropout=0.0):
    layers = []
    for i in range(len(dims) - 1):
        layers.append(nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(act())
            if dropout:
                layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)


def batches(n, bs, gen, shuffle=True):
    idx = torch.randperm(n, generator=gen) if shuffle else torch.arange(n)
    for s in range(0, n, bs):
        yield idx[s:s + bs]


@torch.no_grad()
def evaluate(model, X, y, prob_input=False):
    model.eval()
    out = model(X)
    loss = (F.nll_loss(torch.log(out), y) if prob_input else F.cross_entropy(out, y)).item()
    acc = (out.argmax(1) == y).double().mean().item()
    model.train()
    return loss, acc


def write_run(name, files, truth, symptom, how):
    d = os.path.join(OUT, name)
    os.makedirs(d, exist_ok=True)
    for fn, txt in files.items():
        with open(os.path.join(d, fn), "w") as f:
            f.write(txt.rstrip("\n") + "\n")
    TRUTH[name] = {"truth": truth, "symptom": symptom, "how": how}


def tt(a, dtype=None):
    return torch.tensor(a, dtype=dtype)


SESSION_R = """R version 4.3.2 (2023-10-31)
Platform: x86_64-pc-linux-gnu (64-bit)
Running under: Ubuntu 22.04.3 LTS

Matrix products: default
BLAS:   /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3
LAPACK: /usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblasp-r0.3.20.so;  LAPACK version 3.10.0

locale:
 [1] LC_CTYPE=en_US.UTF-8       LC_NUMERIC=C               LC_TIME=en_US.UTF-8
 [4] LC_COLLATE=en_US.UTF-8     LC_MONETARY=en_US.UTF-8    LC_MESSAGES=en_US.UTF-8

time zone: Etc/UTC
tzcode source: system (glibc)

attached base packages:
[1] stats     graphics  grDevices utils     datasets  methods   base
"""


# ============================================================ run01: resume
def run01():
    rng = rng_for(1)
    torch.manual_seed(SEED + 1)
    gen = torch.Generator().manual_seed(SEED + 1)
    X, y = cluster_data(rng, 10000, 32, 10, sep=0.6)
    Xtr, ytr, Xva, yva = tt(X[:9000]), tt(y[:9000]), tt(X[9000:]), tt(y[9000:])
    n, bs, E = 9000, 128, 30
    nb = math.ceil(n / bs)
    model = mlp([32, 128, 128, 10])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.1)
    job1 = ["R version 4.3.2 -- torch 0.12.0 (libtorch 2.0.1), device = cuda",
            "train: 9000 x 32   valid: 1000 x 32   classes: 10",
            "starting fresh run (no checkpoint found in checkpoints/)", ""]
    ckpt = {}
    crash_epoch = 24
    for ep in range(1, E + 1):
        lr = opt.param_groups[0]["lr"]
        run_l = []
        for bi, idx in enumerate(batches(n, bs, gen), 1):
            opt.zero_grad()
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            run_l.append(loss.item())
            if bi % 10 == 0:
                job1.append(f"[epoch {ep:2d}] batch {bi:2d}/{nb}  loss {np.mean(run_l[-10:]):.4f}")
            if ep == crash_epoch and bi == 47:
                break
        if ep == crash_epoch:
            break
        sched.step()
        vl, va = evaluate(model, Xva, yva)
        job1.append(f"Epoch {ep:2d}/{E}  train_loss: {np.mean(run_l):.4f}  val_loss: {vl:.4f}  "
                    f"val_acc: {va:.4f}  lr: {lr:.4f}")
        ckpt[ep] = copy.deepcopy(model.state_dict())
        job1.append(f"  saved checkpoints/epoch_{ep:03d}.pt")
    job1.append("slurmstepd: error: *** JOB 4417823 ON gpu-node07 CANCELLED AT 2024-05-14T03:12:41 "
                "DUE TO TIME LIMIT ***")
    last = crash_epoch - 1
    # ---- resumed job: weights only, fresh optimizer + scheduler
    model2 = mlp([32, 128, 128, 10])
    model2.load_state_dict(ckpt[last])
    vl0, va0 = evaluate(model2, Xva, yva)
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    sched2 = torch.optim.lr_scheduler.StepLR(opt2, step_size=10, gamma=0.1)
    job2 = ["R version 4.3.2 -- torch 0.12.0 (libtorch 2.0.1), device = cuda",
            "train: 9000 x 32   valid: 1000 x 32   classes: 10",
            f"found checkpoint checkpoints/epoch_{last:03d}.pt -> resuming at epoch {last + 1}",
            f"check after load: val_loss: {vl0:.4f}  val_acc: {va0:.4f}", ""]
    resumed = []
    for ep in range(last + 1, E + 1):
        lr = opt2.param_groups[0]["lr"]
        run_l = []
        for bi, idx in enumerate(batches(n, bs, gen), 1):
            opt2.zero_grad()
            loss = F.cross_entropy(model2(Xtr[idx]), ytr[idx])
            loss.backward()
            opt2.step()
            run_l.append(loss.item())
            if bi % 10 == 0:
                job2.append(f"[epoch {ep:2d}] batch {bi:2d}/{nb}  loss {np.mean(run_l[-10:]):.4f}")
        sched2.step()
        vl, va = evaluate(model2, Xva, yva)
        resumed.append((ep, np.mean(run_l), vl, va, lr))
        job2.append(f"Epoch {ep:2d}/{E}  train_loss: {np.mean(run_l):.4f}  val_loss: {vl:.4f}  "
                    f"val_acc: {va:.4f}  lr: {lr:.4f}")
        job2.append(f"  saved checkpoints/epoch_{ep:03d}.pt")
    job2.append("done.")
    post = f"""# Loss jumps right after resuming from checkpoint - is torch_save() corrupting the weights?

I train a small MLP with R torch on our cluster. The first job hit the Slurm time limit during epoch {crash_epoch},
so I resubmitted and the script picked up the last checkpoint. Right after resuming the loss shot back up
(see the two job logs attached) and the final model is worse than what I had at epoch {last}. I suspect the
.pt file gets corrupted when the job is killed while writing, or that `torch_load()` picks up the wrong file.
Any ideas?

The relevant part of the script:

```r
model <- mlp(n_in = 32, n_hidden = 128, n_out = 10)$to(device = device)
optimizer <- optim_sgd(model$parameters, lr = 0.1, momentum = 0.9, weight_decay = 5e-4)
scheduler <- lr_step(optimizer, step_size = 10, gamma = 0.1)

start_epoch <- 1
ckpts <- sort(list.files("checkpoints", pattern = "^epoch_.*\\\\.pt$", full.names = TRUE))
if (length(ckpts) > 0) {{
  last <- tail(ckpts, 1)
  model$load_state_dict(torch_load(last))
  start_epoch <- as.integer(gsub("\\\\D", "", basename(last))) + 1
  cat("found checkpoint", last, "-> resuming at epoch", start_epoch, "\\n")
  v <- evaluate(model, valid_dl)
  cat(sprintf("check after load: val_loss: %.4f  val_acc: %.4f\\n", v$loss, v$acc))
}}

for (epoch in start_epoch:n_epochs) {{
  model$train()
  coro::loop(for (b in train_dl) {{
    optimizer$zero_grad()
    loss <- nnf_cross_entropy(model(b$x$to(device = device)), b$y$to(device = device))
    loss$backward()
    optimizer$step()
    # ... logging every 10 batches ...
  }})
  scheduler$step()
  # ... validation ...
  torch_save(model$state_dict(), sprintf("checkpoints/epoch_%03d.pt", epoch))
}}
```
"""
    write_run("run01", {"post.md": post, "slurm-4417823.out": "\n".join(job1),
                        "slurm-4419102.out": "\n".join(job2)},
              "resume_mismatch",
              f"After the Slurm job was cancelled I resumed from the epoch-{last} checkpoint and the loss "
              "jumped right back up. I think torch_save() corrupts the file when the job gets killed, or "
              "torch_load() reads the wrong one.",
              f"Checkpoints hold only model$state_dict(); on resume a fresh SGD optimizer (no momentum buffers) "
              f"and a fresh lr_step scheduler start again at lr 0.1 instead of 0.001 at epoch {last + 1}. The log "
              f"shows the lr column jumping 0.001 -> 0.1 and the train loss rising, while the val check right "
              f"after loading ({va0:.4f}) equals the epoch-{last} value, so the weights loaded correctly.")
    return {"pre_val": va0, "resumed": resumed}


# ============================================================ run02: healthy (dropout, val < train)
def run02():
    rng = rng_for(2)
    torch.manual_seed(SEED + 2)
    gen = torch.Generator().manual_seed(SEED + 2)
    X, y = teacher_data(rng, 7500, 20, 3, hidden=24, temp=0.05, gain=1.5)
    Xtr, ytr, Xva, yva = tt(X[:6000]), tt(y[:6000]), tt(X[6000:]), tt(y[6000:])
    model = mlp([20, 64, 64, 3], dropout=0.5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    E, bs = 30, 32
    steps = math.ceil(6000 / bs)
    lines = []
    hist = []
    for ep in range(1, E + 1):
        t0 = time.time()
        ls, cs, ns = 0.0, 0, 0
        for idx in batches(6000, bs, gen):
            opt.zero_grad()
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            loss.backward()
            opt.step()
            ls += loss.item() * len(idx)
            cs += (out.argmax(1) == ytr[idx]).sum().item()
            ns += len(idx)
        vl, va = evaluate(model, Xva, yva)
        secs = time.time() - t0
        hist.append((ls / ns, cs / ns, vl, va))
        lines.append(f"Epoch {ep}/{E}")
        lines.append(keras_bar(steps, secs, [("loss", ls / ns), ("accuracy", cs / ns),
                                             ("val_loss", vl), ("val_accuracy", va)]))
    nparams = [20 * 64 + 64, 0, 64 * 64 + 64, 0, 64 * 3 + 3]
    summ = f"""> summary(model)
Model: "sequential"
________________________________________________________________________________
 Layer (type)                       Output Shape                    Param #
================================================================================
 dense (Dense)                      (None, 64)                      {nparams[0]}
 dropout (Dropout)                  (None, 64)                      0
 dense_1 (Dense)                    (None, 64)                      {nparams[2]}
 dropout_1 (Dropout)                (None, 64)                      0
 dense_2 (Dense)                    (None, 3)                       {nparams[4]}
================================================================================
Total params: {sum(nparams):,}
Trainable params: {sum(nparams):,}
Non-trainable params: 0
________________________________________________________________________________"""
    last = hist[-1]
    n_vl_lower = sum(h[2] < h[0] for h in hist)
    n_va_higher = sum(h[3] > h[1] for h in hist)
    vl_txt = "in every single epoch" if n_vl_lower == E else f"in {n_vl_lower} of {E} epochs"
    va_txt = ("higher too" if n_va_higher == E else
              f"higher in {n_va_higher} of the {E} epochs" if n_va_higher > E // 2 else "about the same")
    console = f"""> library(keras)
> dim(x_train); dim(x_val)
[1] 6000   20
[1] 1500   20
> table(y_train)
y_train
{r_table(ytr.numpy())[1:]}
{summ}
> model %>% compile(optimizer = optimizer_adam(learning_rate = 1e-3),
+                   loss = "sparse_categorical_crossentropy", metrics = "accuracy")
> history <- model %>% fit(x_train, y_train, epochs = 30, batch_size = 32,
+                          validation_data = list(x_val, y_val))
""" + "\n".join(lines) + f"""
> history

Final epoch (plot to see history):
        loss: {last[0]:.4f}
    accuracy: {last[1]:.4f}
    val_loss: {last[2]:.4f}
val_accuracy: {last[3]:.4f} """
    post = f"""Hi all, first keras-in-R project (sensor data, 3 classes). My validation loss is *lower* than my
training loss {vl_txt} and val accuracy is {va_txt} (final: loss {last[0]:.4f} vs
val_loss {last[2]:.4f}). Everywhere I read that val should be worse than train. Did I somehow
leak the validation set into training? x_val comes from a separate file (`sensors_holdout.csv`),
I checked that there are no duplicate rows between the two.

```r
model <- keras_model_sequential(input_shape = 20) %>%
  layer_dense(64, activation = "relu") %>%
  layer_dropout(0.5) %>%
  layer_dense(64, activation = "relu") %>%
  layer_dropout(0.5) %>%
  layer_dense(3, activation = "softmax")
```

Full console output attached (console.txt).
"""
    write_run("run02", {"post.md": post, "console.txt": console}, "healthy",
              f"My validation loss is lower than the training loss {vl_txt} and val accuracy is {va_txt} - "
              "did I leak the validation set into training?",
              "Healthy run: keras' reported training loss/accuracy is averaged over the epoch with two "
              "dropout(0.5) layers active, while validation runs without dropout, so val loss sits below the "
              f"train loss ({n_vl_lower}/{E} epochs) and accuracies are about equal (final train {last[1]:.3f}, "
              f"val {last[3]:.3f}); val is not near-perfect, improves gradually and does not degrade.")
    return hist


# ============================================================ run03: double softmax (Julia)
class SoftmaxHead(nn.Module):
    def __init__(self, body):
        super().__init__()
        self.body = body

    def forward(self, x):
        return torch.softmax(self.body(x), dim=1)


def run03():
    rng = rng_for(3)
    torch.manual_seed(SEED + 3)
    gen = torch.Generator().manual_seed(SEED + 3)
    X, y = cluster_data(rng, 5000, 20, 5, sep=0.8)
    Xtr, ytr, Xva, yva = tt(X[:4000]), tt(y[:4000]), tt(X[4000:]), tt(y[4000:])
    model = SoftmaxHead(mlp([20, 64, 64, 5]))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    E, bs = 40, 64
    log = []
    for ep in range(1, E + 1):
        ls = []
        for idx in batches(4000, bs, gen):
            opt.zero_grad()
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])  # logitcrossentropy on probabilities
            loss.backward()
            opt.step()
            ls.append(loss.item())
        with torch.no_grad():
            tr_acc = (model(Xtr).argmax(1) == ytr).double().mean().item()
            va_acc = (model(Xva).argmax(1) == yva).double().mean().item()
            vloss = F.cross_entropy(model(Xva), yva).item()
        log.append(f"Epoch {ep}: loss = {jl_round4_f32(np.mean(ls))}, val_loss = {jl_round4_f32(vloss)}, "
                   f"train_acc = {jl_f64(tr_acc)}, val_acc = {jl_f64(va_acc)}")
    head = ["$ julia --project=. train.jl",
            "[ Info: loaded data/train.csv: 4000 rows, 20 features, 5 classes",
            "[ Info: loaded data/val.csv: 1000 rows",
            "Chain(",
            "  Dense(20 => 64, relu),                # 1_344 parameters",
            "  Dense(64 => 64, relu),                # 4_160 parameters",
            "  Dense(64 => 5),                       # 325 parameters",
            "  NNlib.softmax,",
            ")                   # Total: 6 arrays, 5_829 parameters, 23.137 KiB."]
    train_jl = """using Flux, CSV, DataFrames, Statistics, Printf
using Flux: onehotbatch, onecold

function load(path)
    df = CSV.read(path, DataFrame)
    X = Float32.(Matrix(select(df, Not(:class))))'
    y = onehotbatch(df.class, 0:4)
    return X, y
end

Xtr, ytr = load("data/train.csv")
Xva, yva = load("data/val.csv")
@info "loaded data/train.csv: $(size(Xtr, 2)) rows, $(size(Xtr, 1)) features, 5 classes"
@info "loaded data/val.csv: $(size(Xva, 2)) rows"

model = Chain(
    Dense(20 => 64, relu),
    Dense(64 => 64, relu),
    Dense(64 => 5),
    softmax,
)
display(model)

loader = Flux.DataLoader((Xtr, ytr), batchsize = 64, shuffle = true)
opt_state = Flux.setup(Adam(1e-3), model)

accuracy(m, X, y) = mean(onecold(m(X)) .== onecold(y))

for epoch in 1:40
    losses = Float32[]
    for (x, y) in loader
        l, grads = Flux.withgradient(m -> Flux.logitcrossentropy(m(x), y), model)
        Flux.update!(opt_state, model, grads[1])
        push!(losses, l)
    end
    val_loss = Flux.logitcrossentropy(model(Xva), yva)
    println("Epoch $epoch: loss = $(round(mean(losses), digits=4)), val_loss = $(round(val_loss, digits=4)), ",
            "train_acc = $(accuracy(model, Xtr, ytr)), val_acc = $(accuracy(model, Xva, yva))")
end
"""
    post = """**Flux: loss plateaus around 0.9-1.0 no matter how long I train**

5-class tabular problem, 4000 training rows. The loss drops for a few epochs and then sits at roughly
the same value for the remaining 30+ epochs, although accuracy is still creeping up. I think Adam with
1e-3 is just too slow for this, should I go to 1e-2 or use a scheduler? Script and output attached.

```
(tabclass) pkg> st
Project tabclass v0.1.0
Status `~/tabclass/Project.toml`
  [336ed68f] CSV v0.10.12
  [a93c6f00] DataFrames v1.6.1
  [587475ba] Flux v0.14.11
  [10745b16] Statistics v1.10.0
```
"""
    write_run("run03", {"post.md": post, "train.jl": train_jl, "output.txt": "\n".join(head + log)},
              "double_softmax",
              "The loss plateaus around 0.9-1.0 no matter how long I train while accuracy still creeps up; I think "
              "Adam with 1e-3 is too slow, should I raise the learning rate?",
              "The Flux Chain ends in softmax and the loss is Flux.logitcrossentropy, which applies log-softmax "
              "again (trained as cross_entropy on softmax outputs). The loss floors near 0.9 (the minimum of "
              "CE on probabilities for 5 classes is 0.904) while accuracy keeps rising.")
    return log[-1]


# ============================================================ run04: label out of range (R 1-based)
def run04():
    rng = rng_for(4)
    torch.manual_seed(SEED + 4)
    gen = torch.Generator().manual_seed(SEED + 4)
    X, y = teacher_data(rng, 2000, 8, 5, hidden=16, temp=0.1)
    Xt, yt = tt(X), tt(y)
    model = mlp([8, 32, 5])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    err = None
    for bi, idx in enumerate(batches(2000, 50, gen), 1):
        opt.zero_grad()
        try:
            # R torch targets are 1-based and shifted by -1 internally: 0-based labels become -1
            loss = F.cross_entropy(model(Xt[idx]), yt[idx] - 1)
        except IndexError as e:
            err = (bi, str(e))
            break
        loss.backward()
        opt.step()
    cols = [(f"x{i + 1}", X[:, i], "num") for i in range(8)] + [("label", y, "int")]
    str_out = r_str_df(cols, 2000)
    tab = r_table(y)
    train_r = """library(torch)

df <- read.csv("data/parts_features.csv")   # export from the data team

x <- torch_tensor(as.matrix(df[, paste0("x", 1:8)]), dtype = torch_float())
y <- torch_tensor(df$label, dtype = torch_long())

ds <- tensor_dataset(x, y)
dl <- dataloader(ds, batch_size = 50, shuffle = TRUE)

net <- nn_sequential(
  nn_linear(8, 32),
  nn_relu(),
  nn_linear(32, 5)
)
opt <- optim_adam(net$parameters, lr = 1e-3)

for (epoch in 1:20) {
  coro::loop(for (b in dl) {
    opt$zero_grad()
    loss <- nnf_cross_entropy(net(b[[1]]), b[[2]])
    loss$backward()
    opt$step()
  })
  cat("epoch", epoch, "done\\n")
}
"""
    msg = err[1]
    post = f"""Getting an error I don't understand in R torch, the very first batch dies:

```
> source("train.R")
Error in (function (self, target, weight, reduction, ignore_index, label_smoothing)  :
  {msg}
Exception raised from nll_loss_out_frame at ../aten/src/ATen/native/LossNLL.cpp:230 (most recent call first):
frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x6b (0x7f3ac1a2d86b in /home/mk/R/x86_64-pc-linux-gnu-library/4.3/torch/lib/libc10.so)
> str(df)
{str_out}
> table(df$label)
{tab}
```

No idea what it means, the data looks fine to me. train.R attached.
"""
    write_run("run04", {"post.md": post, "train.R": train_r}, "label_out_of_range",
              "My R torch script dies on the very first batch with an error I don't understand; the data looks "
              "fine to me.",
              "Labels 0..4 exported from Python are passed as-is to R torch's nnf_cross_entropy, which expects "
              f"1-based class indices and shifts them by -1; the real run failed at batch {err[0]} with "
              f"'{msg}'. str()/table() show the 0-based label column.")
    return err


# ============================================================ run05: label noise (keras R)
def run05():
    rng = rng_for(5)
    torch.manual_seed(SEED + 5)
    gen = torch.Generator().manual_seed(SEED + 5)
    X, y_clean = cluster_data(rng, 8000, 24, 4, sep=0.9)
    y = y_clean.copy()
    flip = rng.random(8000) < 0.40
    y[flip] = rng.integers(0, 4, flip.sum())
    wrong = float((y != y_clean).mean())
    Xtr, ytr, Xva, yva = tt(X[:6400]), tt(y[:6400]), tt(X[6400:]), tt(y[6400:])
    outs = {}
    blocks = []
    for tag, dims, E in (("small", [24, 64, 64, 4], 30), ("big", [24, 256, 256, 4], 25)):
        model = mlp(dims)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        steps = 200
        lines, hist = [], []
        for ep in range(1, E + 1):
            t0 = time.time()
            ls, cs, ns = 0.0, 0, 0
            for idx in batches(6400, 32, gen):
                opt.zero_grad()
                out = model(Xtr[idx])
                loss = F.cross_entropy(out, ytr[idx])
                loss.backward()
                opt.step()
                ls += loss.item() * len(idx)
                cs += (out.argmax(1) == ytr[idx]).sum().item()
                ns += len(idx)
            vl, va = evaluate(model, Xva, yva)
            hist.append((ls / ns, cs / ns, vl, va))
            lines.append(f"Epoch {ep}/{E}")
            lines.append(keras_bar(steps, time.time() - t0, [("loss", ls / ns), ("accuracy", cs / ns),
                                                             ("val_loss", vl), ("val_accuracy", va)]))
        with torch.no_grad():
            pred = model(Xtr).argmax(1).numpy()
        outs[tag] = (hist, pred)
        blocks.append(lines)
    pred_small = outs["small"][1]
    ctab = r_crosstab(pred_small, ytr.numpy(), ["pred", "label"], [0, 1, 2, 3])
    console = f"""> dim(x_train)
[1] 8000   24
> table(y_train)
y_train
{r_table(y)[1:]}
> model <- keras_model_sequential(input_shape = 24) %>%
+   layer_dense(64, activation = "relu") %>%
+   layer_dense(64, activation = "relu") %>%
+   layer_dense(4, activation = "softmax")
> model %>% compile(optimizer = "adam", loss = "sparse_categorical_crossentropy", metrics = "accuracy")
> history <- model %>% fit(x_train, y_train, epochs = 30, batch_size = 32, validation_split = 0.2)
""" + "\n".join(blocks[0]) + f"""
> pred <- model %>% predict(x_train[1:6400, ]) %>% k_argmax() %>% as.integer()
> table(pred, label = y_train[1:6400])
{ctab}
> # bigger model
> model2 <- keras_model_sequential(input_shape = 24) %>%
+   layer_dense(256, activation = "relu") %>%
+   layer_dense(256, activation = "relu") %>%
+   layer_dense(4, activation = "softmax")
> model2 %>% compile(optimizer = "adam", loss = "sparse_categorical_crossentropy", metrics = "accuracy")
> history2 <- model2 %>% fit(x_train, y_train, epochs = 25, batch_size = 32, validation_split = 0.2)
""" + "\n".join(blocks[1])
    hs, hb = outs["small"][0], outs["big"][0]
    post = f"""Keras in R: training accuracy stuck around {hs[-1][1]:.2f}

24 numeric features from our QC station, 4 defect classes. The labels were assigned by the line
operators during the last two quarters. No matter what I do, train accuracy gets stuck at about
{hs[-1][1]:.2f} and val at {hs[-1][3]:.2f}. I figured the model is too small, so I tried 2 x 256
units: the training accuracy then slowly climbs to {hb[-1][1]:.2f} but validation gets *worse*
({hb[-1][3]:.2f}). Is this just a capacity problem that needs an even bigger/different architecture?
Console attached.
"""
    write_run("run05", {"post.md": post, "console.txt": console}, "label_noise",
              f"Training accuracy is stuck around {hs[-1][1]:.2f}; a bigger model only slowly raises train "
              "accuracy while validation gets worse. Does this need an even bigger architecture?",
              f"40% of the labels were resampled uniformly at random ({wrong:.0%} actually wrong) on a clean, "
              f"learnable teacher problem. The small model's train acc plateaus at {hs[-1][1]:.2f} with a high "
              f"loss floor and errors spread evenly over the off-diagonal of table(pred, label); the big model "
              f"memorises late (train acc {hb[-1][1]:.2f}) while val acc stays capped/declines.")
    return hs[-1], hb[-1]


# ============================================================ run06: lr scheduler stepped per batch (R torch)
def run06():
    rng = rng_for(6)
    torch.manual_seed(SEED + 6)
    gen = torch.Generator().manual_seed(SEED + 6)
    X, y = teacher_data(rng, 4000, 16, 6, hidden=32, temp=0.0, gain=2.5)
    Xtr, ytr, Xva, yva = tt(X[:3200]), tt(y[:3200]), tt(X[3200:]), tt(y[3200:])
    model = mlp([16, 128, 128, 6])
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=30, gamma=0.5)
    E = 40
    lines = ["> source(\"train.R\")", "using device: cpu", "train 3200 / valid 800"]
    for ep in range(1, E + 1):
        ls = []
        for idx in batches(3200, 64, gen):
            opt.zero_grad()
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            sched.step()
            ls.append(loss.item())
        vl, va = evaluate(model, Xva, yva)
        lr = opt.param_groups[0]["lr"]
        lines.append(f"epoch {ep:2d} | train loss {np.mean(ls):.4f} | valid loss {vl:.4f} | valid acc {va:.3f}"
                     f" | lr {lr:.2e}")
    # reference: same model with the schedule stepped per epoch, as intended (printed to nobody)
    train_r = """library(torch)
source("R/data.R")     # make_datasets() -> list(train, valid)

set.seed(42); torch_manual_seed(42)
device <- if (cuda_is_available()) "cuda" else "cpu"
cat("using device:", device, "\\n")

dsets <- make_datasets("data/signals.rds")
train_dl <- dataloader(dsets$train, batch_size = 64, shuffle = TRUE)
valid_dl <- dataloader(dsets$valid, batch_size = 256)
cat("train", length(dsets$train), "/ valid", length(dsets$valid), "\\n")

net <- nn_module(
  initialize = function() {
    self$fc1 <- nn_linear(16, 128)
    self$fc2 <- nn_linear(128, 128)
    self$out <- nn_linear(128, 6)
  },
  forward = function(x) {
    x %>% self$fc1() %>% nnf_relu() %>% self$fc2() %>% nnf_relu() %>% self$out()
  }
)
model <- net()$to(device = device)

n_epochs  <- 40
optimizer <- optim_sgd(model$parameters, lr = 0.05, momentum = 0.9)
scheduler <- lr_step(optimizer, step_size = 30, gamma = 0.5)   # halve every 30 epochs

for (epoch in 1:n_epochs) {
  model$train()
  tl <- c()
  coro::loop(for (b in train_dl) {
    optimizer$zero_grad()
    out  <- model(b$x$to(device = device))
    loss <- nnf_cross_entropy(out, b$y$to(device = device))
    loss$backward()
    optimizer$step()
    scheduler$step()
    tl <- c(tl, loss$item())
  })

  model$eval()
  vl <- c(); correct <- 0; n <- 0
  with_no_grad({
    coro::loop(for (b in valid_dl) {
      out <- model(b$x$to(device = device))
      vl <- c(vl, nnf_cross_entropy(out, b$y$to(device = device))$item() * b$y$size(1))
      correct <- correct + (out$argmax(dim = 2) == b$y$to(device = device))$sum()$item()
      n <- n + b$y$size(1)
    })
  })
  cat(sprintf("epoch %2d | train loss %.4f | valid loss %.4f | valid acc %.3f | lr %.2e\\n",
              epoch, mean(tl), sum(vl) / n, correct / n, optimizer$param_groups[[1]]$lr))
}
"""
    post = """R torch: validation accuracy stops improving after ~5 epochs

My 2-hidden-layer net on a 6-class signal data set stops improving after the first handful of epochs
and then sits there for the remaining 35 epochs. Is the network simply too small for 6 classes? I can
add layers but I wanted to check first. train.R and the log are attached.

```
> sessionInfo()
""" + SESSION_R + """
other attached packages:
[1] torch_0.12.0

loaded via a namespace (and not attached):
 [1] processx_3.8.3  bit_4.0.5       compiler_4.3.2  magrittr_2.0.3  R6_2.5.1
 [6] cli_3.6.2       tools_4.3.2     Rcpp_1.0.12     bit64_4.0.5     coro_1.0.3
[11] callr_3.7.3     ps_1.7.6        rlang_1.1.3
```
"""
    write_run("run06", {"post.md": post, "train.R": train_r, "train_log.txt": "\n".join(lines)},
              "lr_schedule_bug",
              "Validation accuracy stops improving after about 5 epochs and sits there for the rest of the run; "
              "is the network too small for 6 classes?",
              "lr_step(step_size = 30, gamma = 0.5) is meant per epoch but scheduler$step() is called inside the "
              "batch loop (50 batches/epoch), so the lr halves every 30 batches: the lr column falls from 0.05 "
              f"to {lr:.1e} by epoch 40 and loss/accuracy freeze after the first few epochs.")
    return lines[-1]


# ============================================================ run07: data leakage (Julia)
def run07():
    rng = rng_for(7)
    torch.manual_seed(SEED + 7)
    gen = torch.Generator().manual_seed(SEED + 7)
    n = 5000
    tenure = rng.integers(1, 73, n).astype(float)
    monthly = np.round(rng.normal(70, 25, n).clip(18, 120), 2)
    total = np.round(tenure * monthly * rng.uniform(0.9, 1.05, n), 2)
    calls = rng.poisson(1.5, n).astype(float)
    contract = rng.choice([1, 12, 24], n, p=[0.5, 0.3, 0.2]).astype(float)
    products = rng.integers(1, 6, n).astype(float)
    age = rng.integers(18, 80, n).astype(float)
    late = rng.poisson(0.6, n).astype(float)
    z = (-0.04 * (tenure - 30) + 0.02 * (monthly - 70) + 0.45 * (calls - 1.5) - 0.06 * (contract - 8)
         + 0.5 * (late - 0.6) + rng.normal(0, 1.2, n))
    churned = (z > 0.6).astype(float)
    cid = np.arange(100001, 100001 + n)
    cols = ["tenure_months", "monthly_charges", "total_charges", "support_calls", "contract_months",
            "num_products", "age", "late_payments", "churned"]
    M = np.stack([tenure, monthly, total, calls, contract, products, age, late, churned], 1)
    Xn = (M - M.mean(0)) / M.std(0, ddof=1)
    perm = rng.permutation(n)
    ntr = 4000
    tr, va = perm[:ntr], perm[ntr:]
    Xt = tt(Xn.astype(np.float32))
    yt = tt(churned.astype(np.int64))
    model = mlp([9, 32, 32, 2])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    log = ["julia> include(\"train.jl\")",
           f"[ Info: customers_2023.csv: {n} rows x {len(cols) + 1} columns",
           f"[ Info: train = {ntr}, val = {n - ntr}, positive rate = {jl_f64(churned.mean())}"]
    hist = []
    for ep in range(1, 16):
        ls = []
        for idx in batches(ntr, 64, gen):
            idx = torch.as_tensor(tr)[idx]
            opt.zero_grad()
            loss = F.cross_entropy(model(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
            ls.append(loss.item())
        trl, tra = evaluate(model, Xt[tr], yt[tr])
        vl, vacc = evaluate(model, Xt[va], yt[va])
        hist.append((trl, tra, vl, vacc))
        log.append(f"┌ Info: epoch {ep}")
        log.append(f"│   train_loss = {jl_f32(trl)}")
        log.append(f"│   train_acc = {jl_f64(tra)}")
        log.append(f"│   val_loss = {jl_f32(vl)}")
        log.append(f"└   val_acc = {jl_f64(vacc)}")
    # baseline the user mentions: always predict "stays"
    base = 1 - churned[va].mean()
    log.append(f"julia> mean(yva .== 0)   # majority baseline")
    log.append(jl_f64(base))
    # DataFrame preview
    hdr = ["customer_id"] + cols
    types = ["Int64"] + ["Int64", "Float64", "Float64", "Int64", "Int64", "Int64", "Int64", "Int64", "Int64"]
    rows = []
    for i in range(5):
        vals = [str(cid[i]), str(int(tenure[i])), str(monthly[i]), str(total[i]), str(int(calls[i])),
                str(int(contract[i])), str(int(products[i])), str(int(age[i])), str(int(late[i])),
                str(int(churned[i]))]
        rows.append(vals)
    widths = [max(len(h), len(t), max(len(r[j]) for r in rows)) for j, (h, t) in enumerate(zip(hdr, types))]
    pv = [f"{len(rows)}×{len(hdr)} DataFrame",
          " Row │ " + "  ".join(h.ljust(w) for h, w in zip(hdr, widths)),
          "     │ " + "  ".join(t.ljust(w) for t, w in zip(types, widths)),
          "─────┼" + "─" * (sum(widths) + 2 * (len(widths) - 1) + 1)]
    for i, r in enumerate(rows, 1):
        pv.append(f"{i:4d} │ " + "  ".join(v.rjust(w) for v, w in zip(r, widths)))
    train_jl = """using CSV, DataFrames, Flux, Statistics, Random
using Flux: onehotbatch, onecold

Random.seed!(7)
df = CSV.read("data/customers_2023.csv", DataFrame)
@info "customers_2023.csv: $(nrow(df)) rows x $(ncol(df)) columns"

# features: everything except the id
X = Float32.(Matrix(select(df, Not(:customer_id))))'
X = (X .- mean(X, dims=2)) ./ std(X, dims=2)
y = onehotbatch(df.churned, 0:1)

idx = shuffle(1:nrow(df))
tr, va = idx[1:4000], idx[4001:end]
Xtr, ytr, Xva, yva = X[:, tr], y[:, tr], X[:, va], y[:, va]
@info "train = $(length(tr)), val = $(length(va)), positive rate = $(mean(df.churned))"

model = Chain(Dense(size(X, 1) => 32, relu), Dense(32 => 32, relu), Dense(32 => 2))
opt_state = Flux.setup(Adam(1e-3), model)
loader = Flux.DataLoader((Xtr, ytr), batchsize=64, shuffle=true)

acc(m, X, y) = mean(onecold(m(X)) .== onecold(y))

for epoch in 1:15
    Flux.train!(model, loader, opt_state) do m, x, y
        Flux.logitcrossentropy(m(x), y)
    end
    @info "epoch $epoch" train_loss=Flux.logitcrossentropy(model(Xtr), ytr) train_acc=acc(model, Xtr, ytr) val_loss=Flux.logitcrossentropy(model(Xva), yva) val_acc=acc(model, Xva, yva)
end
"""
    post = f"""Churn model in Flux: {hist[0][3] * 100:.1f}% val accuracy after one epoch - am I overfitting?

First churn model for our telco data (5000 customers, 2023). Val accuracy is {hist[0][3]:.3f} after
the first epoch and ends at {hist[-1][3]:.3f}, val loss is basically the same as train loss. My manager
thinks a result this good must be overfitting and wants me to add dropout + early stopping. But how
can it overfit if the validation set is held out? Preview of the data:

```
julia> first(df, 5)
""" + "\n".join(pv) + """
```
Script + output attached.
"""
    write_run("run07", {"post.md": post, "train.jl": train_jl, "output.txt": "\n".join(log)}, "data_leakage",
              f"Val accuracy is {hist[0][3] * 100:.1f}% after one epoch; my manager says it must be overfitting and "
              "wants dropout and early stopping. Is it?",
              "select(df, Not(:customer_id)) keeps the target column churned among the input features, so the "
              f"label is an input: val acc {hist[0][3]:.3f} after epoch 1 and {hist[-1][3]:.3f} at the end "
              f"(majority baseline {base:.3f}), val loss tracking train loss.")
    return hist[0], hist[-1]


# ============================================================ run08: NaN in data (luz)
def run08():
    rng = rng_for(8)
    torch.manual_seed(SEED + 8)
    gen = torch.Generator().manual_seed(SEED + 8)
    n = 10000
    age = rng.integers(18, 76, n).astype(float)
    income = np.round(rng.lognormal(10.7, 0.45, n), -1)
    orders = rng.poisson(4, n).astype(float)
    basket = np.round(rng.gamma(3, 18, n), 2)
    days = rng.integers(0, 366, n).astype(float)
    returns = rng.poisson(0.4, n).astype(float)
    visits = rng.poisson(9, n).astype(float)
    tenure = np.round(rng.uniform(0, 10, n), 1)
    raw = np.stack([age, income, orders, basket, days, returns, visits, tenure], 1)
    names = ["age", "income", "n_orders", "avg_basket", "days_since", "n_returns", "web_visits", "tenure_yrs"]
    Z = (raw - raw.mean(0)) / raw.std(0)
    W = rng.standard_normal((8, 3))
    y = (Z @ W + 0.6 * rng.gumbel(size=(n, 3))).argmax(1)
    ntr = 8000
    # the loader permutation for epoch 1 is known from the generator seed: a few missing incomes
    perm1 = torch.randperm(ntr, generator=torch.Generator().manual_seed(SEED + 8)).numpy()
    na_rows = sorted(perm1[[64 * 86 + 17, 64 * 102 + 40, 64 * 119 + 5]].tolist() + [int(rng.integers(0, ntr))])
    raw_tr = raw[:ntr].copy()
    raw_tr[na_rows, 1] = np.nan
    mu = np.nanmean(raw_tr, 0)
    sd = np.nanstd(raw_tr, 0, ddof=1)
    Xtr = tt(((raw_tr - mu) / sd).astype(np.float32))
    Xva = tt(((raw[ntr:] - mu) / sd).astype(np.float32))
    ytr, yva = tt(y[:ntr]), tt(y[ntr:])
    model = mlp([8, 64, 32, 3])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    nb = math.ceil(ntr / 64)
    console = ["> fitted <- net %>%",
               "+   setup(loss = nn_cross_entropy_loss(), optimizer = optim_adam,",
               "+         metrics = list(luz_metric_accuracy())) %>%",
               "+   fit(train_dl, epochs = 20, valid_data = valid_dl,",
               "+       callbacks = list(print_every(10)))"]
    first_nan = None
    pre_nan = []
    for ep in range(1, 4):
        console.append(f"Epoch {ep}/20")
        ls, cs, ns = [], 0, 0
        for bi, idx in enumerate(batches(ntr, 64, gen), 1):
            opt.zero_grad()
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            loss.backward()
            opt.step()
            lv = loss.item()
            ls.append(lv)
            cs += (out.argmax(1) == ytr[idx]).sum().item()
            ns += len(idx)
            if math.isnan(lv) and first_nan is None:
                first_nan = (ep, bi)
            if first_nan is None:
                pre_nan.append(lv)
            if bi % 10 == 0 or (math.isnan(lv) and ep == 1 and first_nan == (ep, bi)):
                console.append(f"  iter {bi:3d}/{nb} - loss: {'NaN' if math.isnan(lv) else f'{lv:.4f}'}")
        vl, va = evaluate(model, Xva, yva)
        trl = np.mean(ls)
        fl = lambda v: "nan" if math.isnan(v) else f"{v:.4f}"  # noqa: E731
        console.append(f"Train metrics: Loss: {fl(trl)} - Acc: {cs / ns:.4f}")
        console.append(f"Valid metrics: Loss: {fl(vl)} - Acc: {va:.4f}")
    console.append("^C")
    console.append("> ")
    summ = r_summary_df([(nm, raw_tr[:, j], "num") for j, nm in enumerate(names)])
    post = f"""### luz: loss suddenly becomes NaN in the first epoch

Customer-segment classifier (3 classes) with luz. The loss goes down nicely for the first ~80
iterations and then turns into NaN out of nowhere, and it never recovers (I stopped after 3 epochs).
I suspect exploding gradients - would `nn_utils_clip_grad_norm_()` via a callback fix this, or
should I lower the learning rate? Data prep:

```r
train_df <- readRDS("data/customers_train.rds")
num_cols <- c("age", "income", "n_orders", "avg_basket", "days_since",
              "n_returns", "web_visits", "tenure_yrs")
train_df <- train_df %>%
  mutate(across(all_of(num_cols), ~ (.x - mean(.x, na.rm = TRUE)) / sd(.x, na.rm = TRUE)))
```

and `summary()` of the raw training data before scaling:

```
> summary(train_df[num_cols])
{summ}
```
Full console output attached. `print_every()` is a little callback of mine that prints the batch loss every
10 iterations and whenever it is NaN.
"""
    write_run("run08", {"post.md": post, "console.txt": "\n".join(console)}, "nan_in_data",
              "The loss goes down nicely for ~80 iterations and then suddenly becomes NaN and never recovers; I "
              "suspect exploding gradients, should I clip or lower the learning rate?",
              f"{len(na_rows)} training rows have a missing income (NA's : {len(na_rows)} in summary()); scaling "
              "with na.rm=TRUE keeps them NA, so the first batch containing one "
              f"(epoch {first_nan[0]}, iter {first_nan[1]}) gives a NaN loss right after finite, falling losses "
              f"(last ten before it average {np.mean(pre_nan[-10:]):.3f}, no growth) "
              "and the weights stay NaN.")
    return first_nan


# ============================================================ run09: healthy Julia long
def run09():
    rng = rng_for(9)
    torch.manual_seed(SEED + 9)
    gen = torch.Generator().manual_seed(SEED + 9)
    X, y = teacher_data(rng, 9000, 12, 3, hidden=24, temp=0.08, gain=1.8)
    Xtr, ytr, Xva, yva = tt(X[:7500]), tt(y[:7500]), tt(X[7500:]), tt(y[7500:])
    model = mlp([12, 48, 48, 3])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    E, bs = 50, 32
    nb = math.ceil(7500 / bs)
    log = ["julia> include(\"scripts/train.jl\")",
           "[ Info: Precompiling project...",
           "[ Info: data: 7500 train / 1500 val, 12 features, 3 classes",
           "Chain(",
           "  Dense(12 => 48, relu),                # 624 parameters",
           "  Dense(48 => 48, relu),                # 2_352 parameters",
           "  Dense(48 => 3),                       # 147 parameters",
           ")                   # Total: 6 arrays, 3_123 parameters, 12.574 KiB."]
    vls = []
    for ep in range(1, E + 1):
        ls = []
        for bi, idx in enumerate(batches(7500, bs, gen), 1):
            opt.zero_grad()
            loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            ls.append(loss.item())
            if bi % 60 == 0:
                log.append(f"  epoch {ep} iter {bi}/{nb}: batch loss = {jl_f32(loss.item())}")
        vl, va = evaluate(model, Xva, yva)
        vls.append(vl)
        log.append(f"┌ Info: Epoch {ep}")
        log.append(f"│   train_loss = {jl_f32(np.mean(ls))}")
        log.append(f"│   val_loss = {jl_f32(vl)}")
        log.append(f"└   val_acc = {jl_f64(va)}")
    ups = [i + 1 for i in range(1, E) if vls[i] > vls[i - 1]]
    best = int(np.argmin(vls)) + 1
    log.append(f"[ Info: saved model to checkpoints/model_epoch{E}.bson")
    pk = """(sensorclf) pkg> status
Project sensorclf v0.1.0
Status `~/projects/sensorclf/Project.toml`
  [336ed68f] CSV v0.10.14
  [a93c6f00] DataFrames v1.6.1
  [587475ba] Flux v0.14.15
  [f1d291b0] MLUtils v0.4.4
  [0b1bfda6] OneHotArrays v0.2.5
  [92933f4c] ProgressMeter v1.10.0
  [10745b16] Statistics v1.10.0

julia> versioninfo()
Julia Version 1.10.3
Commit 0b4590a5507 (2024-04-30 10:59 UTC)
Platform Info:
  OS: Linux (x86_64-linux-gnu)
  CPU: 8 × Intel(R) Core(TM) i7-10700 CPU @ 2.90GHz
  WORD_SIZE: 64
  LIBM: libopenlibm
  LLVM: libLLVM-15.0.7 (ORCJIT, skylake)
Threads: 1 default, 0 interactive, 1 GC (on 8 virtual cores)
"""
    sel = [u for u in ups][:4]
    ups_txt = ", ".join(str(u) for u in sel)
    post = f"""Flux: validation loss goes up every few epochs - LR too high?

Training a small classifier on our vibration sensor features with Adam(1e-3), batch size 32, 50 epochs.
Overall it looks fine I think, but the validation loss goes *up* at some epochs (e.g. {ups_txt}) before
coming down again. Is that a sign that the learning rate is too high and I should add a decay schedule,
or is this normal? Log and package versions attached.

```julia
model = Chain(Dense(12 => 48, relu), Dense(48 => 48, relu), Dense(48 => 3))
opt_state = Flux.setup(Adam(1e-3), model)
for epoch in 1:50
    losses = Float32[]
    for (i, (x, y)) in enumerate(train_loader)
        l, gs = Flux.withgradient(m -> Flux.logitcrossentropy(m(x), y), model)
        Flux.update!(opt_state, model, gs[1])
        push!(losses, l)
        i % 60 == 0 && println("  epoch $epoch iter $i/$(length(train_loader)): batch loss = $l")
    end
    val_loss = Flux.logitcrossentropy(model(Xva), yva)
    val_acc = mean(onecold(model(Xva)) .== onecold(yva))
    @info "Epoch $epoch" train_loss=mean(losses) val_loss val_acc
end
```
"""
    write_run("run09", {"post.md": post, "train_log.txt": "\n".join(log), "pkg_status.txt": pk}, "healthy",
              f"Validation loss goes up at some epochs (e.g. {ups_txt}) before coming down again; is the "
              "learning rate too high, should I add a decay schedule?",
              f"Healthy run: Adam 1e-3, batch 32, small MLP; val loss falls overall with small epoch-to-epoch "
              f"upticks from minibatch noise (best val loss at epoch {best} of {E}), train and val stay close, "
              "no divergence.")
    return ups, best, vls[0], vls[-1]


# ============================================================ run10: frozen (Flux implicit params + gpu copy)
def run10():
    rng = rng_for(10)
    torch.manual_seed(SEED + 10)
    gen = torch.Generator().manual_seed(SEED + 10)
    X, y = teacher_data(rng, 5000, 16, 4, hidden=24, temp=0.05, gain=1.5)
    Xtr, ytr, Xva, yva = tt(X[:4000]), tt(y[:4000]), tt(X[4000:]), tt(y[4000:])
    model = mlp([16, 64, 64, 4])
    ps = list(model.parameters())          # ps = Flux.params(model)
    opt = torch.optim.Adam(ps, lr=3e-4)
    model_gpu = copy.deepcopy(model)       # model = model |> gpu  (new arrays)
    log = ["julia> include(\"train.jl\")",
           "CUDA.functional() = true",
           "size(Xtr) = (16, 4000)",
           "size(Xva) = (16, 1000)"]
    for ep in range(1, 21):
        ls = []
        for idx in batches(4000, 64, gen):
            opt.zero_grad()
            loss = F.cross_entropy(model_gpu(Xtr[idx]), ytr[idx])
            loss.backward()
            opt.step()
            ls.append(loss.item())
        vl, va = evaluate(model_gpu, Xva, yva)
        wn = model_gpu[0].weight.detach().norm().item()
        log.append(f"epoch = {ep}")
        log.append(f"mean(losses) = {jl_f32(np.mean(ls))}")
        log.append(f"(val_loss, val_acc) = ({jl_f32(vl)}, {jl_f64(va)})")
        log.append(f"norm(model[1].weight) = {jl_f32(wn)}")
    train_jl = """using Flux, CUDA, Statistics, LinearAlgebra, JLD2
using Flux: onehotbatch, onecold

@show CUDA.functional()

data = JLD2.load("data/gestures.jld2")
Xtr, ytr = data["Xtr"], onehotbatch(data["ytr"], 1:4)
Xva, yva = data["Xva"], onehotbatch(data["yva"], 1:4)
@show size(Xtr) size(Xva)

model = Chain(Dense(16 => 64, relu), Dense(64 => 64, relu), Dense(64 => 4))
ps = Flux.params(model)
opt = Adam(3e-4)

model = model |> gpu
loader = Flux.DataLoader((Xtr, ytr), batchsize = 64, shuffle = true)
loss(x, y) = Flux.logitcrossentropy(model(x), y)

for epoch in 1:20
    losses = Float32[]
    for (x, y) in loader
        x, y = gpu(x), gpu(y)
        l, gs = Flux.withgradient(() -> loss(x, y), ps)
        Flux.Optimise.update!(opt, ps, gs)
        push!(losses, l)
    end
    xv, yv = gpu(Xva), gpu(yva)
    val_loss = loss(xv, yv)
    val_acc = mean(onecold(cpu(model(xv))) .== onecold(yva))
    @show epoch
    @show mean(losses)
    @show (val_loss, val_acc)
    @show norm(model[1].weight)
end
"""
    post = """Flux on GPU: loss does not move at all

I moved my gesture classifier to the lab's GPU machine and now the loss just hovers around 1.38 for 20
epochs and val accuracy stays at chance (4 classes). On my laptop (CPU) it trained fine last week. My
guess is that the DataLoader keeps giving me the same batch every time, or the shuffle doesn't work with
CuArrays? Flux v0.13.17, CUDA.jl v4.4.1, Julia 1.9.3. Script and REPL output attached.
"""
    write_run("run10", {"post.md": post, "train.jl": train_jl, "repl_output.txt": "\n".join(log)},
              "frozen_parameters",
              "On the GPU machine the loss just hovers around 1.38 for 20 epochs and val accuracy stays at chance; "
              "I think the DataLoader keeps giving the same batch or the shuffle doesn't work with CuArrays.",
              "ps = Flux.params(model) is taken before model = model |> gpu, so the gradient is taken w.r.t. the old "
              "CPU arrays the loss never uses and the GPU model is never updated (torch: optimizer over the "
              "original, loss through a deepcopy). Loss flat near ln 4, norm(model[1].weight) identical every epoch.")
    return log[-4:]


# ============================================================ run11: preprocessing mismatch (keras R)
def run11():
    rng = rng_for(11)
    torch.manual_seed(SEED + 11)
    gen = torch.Generator().manual_seed(SEED + 11)
    d, n, k = 12, 7500, 3
    means = np.round(rng.uniform(5, 120, d), 1)
    sds = np.round(rng.uniform(1, 30, d), 1)
    Zall, y_all = teacher_data(rng, n + 1500, d, k, hidden=16, temp=0.05, gain=1.3)
    raw = Zall * sds + means
    raw_tr, y_tr = raw[:n], y_all[:n]
    raw_new, y_new = raw[n:], y_all[n:]
    mu, sd = raw_tr.mean(0), raw_tr.std(0, ddof=1)
    Xs = tt(((raw_tr - mu) / sd).astype(np.float32))
    yt = tt(y_tr)
    Xtr, ytr, Xva, yva = Xs[:6000], yt[:6000], Xs[6000:], yt[6000:]
    model = mlp([d, 64, 64, k])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    E = 20
    lines = []
    for ep in range(1, E + 1):
        t0 = time.time()
        ls, cs, ns = 0.0, 0, 0
        for idx in batches(6000, 32, gen):
            opt.zero_grad()
            out = model(Xtr[idx])
            loss = F.cross_entropy(out, ytr[idx])
            loss.backward()
            opt.step()
            ls += loss.item() * len(idx)
            cs += (out.argmax(1) == ytr[idx]).sum().item()
            ns += len(idx)
        vl, va = evaluate(model, Xva, yva)
        lines.append(f"Epoch {ep}/{E}")
        lines.append(keras_bar(188, time.time() - t0, [("loss", ls / ns), ("accuracy", cs / ns),
                                                       ("val_loss", vl), ("val_accuracy", va)]))
    final_va = va
    with torch.no_grad():
        model.eval()
        pred_raw = model(tt(raw_new.astype(np.float32))).argmax(1).numpy()
        pred_ok = model(tt(((raw_new - mu) / sd).astype(np.float32))).argmax(1).numpy()
    acc_raw = float((pred_raw == y_new).mean())
    acc_ok = float((pred_ok == y_new).mean())
    feat = [f"m{i + 1:02d}" for i in range(d)]
    train_snip = """x_train <- as.matrix(train_df[, feature_cols])
x_train <- scale(x_train)
y_train <- train_df$grade

model <- keras_model_sequential(input_shape = length(feature_cols)) %>%
  layer_dense(64, activation = "relu") %>%
  layer_dense(64, activation = "relu") %>%
  layer_dense(3, activation = "softmax")
model %>% compile(optimizer = optimizer_adam(1e-3),
                  loss = "sparse_categorical_crossentropy", metrics = "accuracy")
history <- model %>% fit(x_train, y_train, epochs = 20, batch_size = 32, validation_split = 0.2)
save_model_tf(model, "models/grade_clf")"""
    predict_r = """# predict.R -- score a new month of measurements
library(keras)
library(readr)

feature_cols <- sprintf("m%02d", 1:12)
model <- load_model_tf("models/grade_clf")

score_file <- function(path) {
  new_df <- read_csv(path, show_col_types = FALSE)
  x_new <- as.matrix(new_df[, feature_cols])
  probs <- model %>% predict(x_new, batch_size = 256)
  new_df$pred_grade <- max.col(probs) - 1L
  new_df
}

scored <- score_file("data/measurements_2024_05.csv")
write_csv(scored, "out/scored_2024_05.csv")
"""
    tab_pred = r_table(pred_raw)
    console = ["> source(\"train_model.R\")"] + lines + [
        "> source(\"predict.R\")",
        "47/47 [==============================] - 0s 2ms/step",
        "> mean(scored$pred_grade == scored$grade_lab)   # lab re-graded this month by hand",
        f"[1] {acc_raw:.7g}",
        "> table(scored$pred_grade)",
        tab_pred,
        "> summary(scored$m01)",
        *r_summary_vec(raw_new[:, 0])]
    post = f"""**keras/R: model scores {final_va:.2f} val accuracy in training but only {acc_raw:.2f} on new data**

We grade parts into 3 quality grades from 12 measurements. Training looks good (val_accuracy {final_va:.4f} at the
end, see console.txt). For May the lab re-graded 1500 parts by hand to check the model, and the model only
agrees on {acc_raw * 100:.1f}% of them, and it predicts almost everything as one grade. Has the process drifted
that much since the training data was collected? The measurement distributions look similar to me.

Training part (train_model.R):

```r
{train_snip}
```

Scoring script attached (predict.R).
"""
    write_run("run11", {"post.md": post, "predict.R": predict_r, "console.txt": "\n".join(console)},
              "preprocessing_mismatch",
              f"The model gets {final_va:.2f} val accuracy in training but only {acc_raw:.2f} on a new month of "
              "hand-graded parts and predicts almost everything as one grade. Has the process drifted?",
              "Training inputs are z-scored with scale(x_train), but predict.R feeds the raw measurements (means "
              f"5-120, sds 1-30) to the model: accuracy {acc_raw:.3f} and a collapsed table(pred_grade); the same "
              f"data scaled with the training mean/sd gives {acc_ok:.3f}.")
    return final_va, acc_raw, acc_ok


# ============================================================ run12: zero variance (batch std over 1 row)
class BatchStandardize(nn.Module):
    def forward(self, x):
        return (x - x.mean(dim=0, keepdim=True)) / (x.std(dim=0, keepdim=True) + 1e-5)


def run12():
    rng = rng_for(12)
    torch.manual_seed(SEED + 12)
    gen = torch.Generator().manual_seed(SEED + 12)
    n = 1025
    X, y = teacher_data(rng, n, 10, 2, hidden=12, temp=0.1)
    X = X * rng.uniform(0.5, 40, 10).astype(np.float32) + rng.uniform(-5, 200, 10).astype(np.float32)
    Xt, yt = tt(X), tt(y)
    model = nn.Sequential(BatchStandardize(), nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    nb = math.ceil(n / 32)
    lines = ["> source(\"train.R\")"]
    warns = []
    for ep in range(1, 4):
        ls = []
        for bi, idx in enumerate(batches(n, 32, gen), 1):
            opt.zero_grad()
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                loss = F.cross_entropy(model(Xt[idx]), yt[idx])
            warns += [str(x.message) for x in w]
            loss.backward()
            opt.step()
            ls.append(loss.item())
            if bi % 8 == 0:
                lines.append(f"  batch {bi}/{nb}  loss = {ls[-1]:.4f}" if not math.isnan(ls[-1])
                             else f"  batch {bi}/{nb}  loss = NaN")
        m = np.mean(ls)
        lines.append(f"epoch {ep}: mean loss = {'NaN' if math.isnan(m) else f'{m:.4f}'}")
    wmsg = warns[0].replace("/__w/pytorch/pytorch/", "../")
    lines.append(f"There were {len(warns)} warnings (use warnings() to see them)")
    lines.append("> warnings()")
    lines.append("Warning messages:")
    for i in range(len(warns)):
        lines.append(f"{i + 1}: In (function (self, dim, correction, keepdim)  :")
        lines.append(f"  {wmsg}")
    lines.append("> sum(is.na(as.matrix(df[, feats])))")
    lines.append(f"[1] {int(np.isnan(X).sum())}")
    lines.append("> nrow(df)")
    lines.append(f"[1] {n}")
    train_r = """library(torch)
library(dplyr)

df <- readRDS("data/sessions_clean.rds") %>% filter(country == "DE")
feats <- grep("^f_", names(df), value = TRUE)

x <- torch_tensor(as.matrix(df[, feats]), dtype = torch_float())
y <- torch_tensor(df$converted + 1L, dtype = torch_long())
dl <- dataloader(tensor_dataset(x, y), batch_size = 32, shuffle = TRUE)

# features live on very different scales -> standardise inside the model
standardize <- nn_module(
  forward = function(x) {
    (x - x$mean(dim = 1, keepdim = TRUE)) / (x$std(dim = 1, keepdim = TRUE) + 1e-5)
  }
)

net <- nn_sequential(standardize(), nn_linear(length(feats), 32), nn_relu(), nn_linear(32, 2))
opt <- optim_adam(net$parameters, lr = 1e-3)

for (epoch in 1:3) {
  losses <- c(); i <- 0
  coro::loop(for (b in dl) {
    i <- i + 1
    opt$zero_grad()
    loss <- nnf_cross_entropy(net(b[[1]]), b[[2]])
    loss$backward()
    opt$step()
    losses <- c(losses, loss$item())
    if (i %% 8 == 0) cat(sprintf("  batch %d/%d  loss = %.4f\\n", i, length(dl), loss$item()))
  })
  cat(sprintf("epoch %d: mean loss = %.4f\\n", epoch, mean(losses)))
}
"""
    post = """Mean loss is NaN from the first epoch although the printed batch losses look fine?

Small R torch binary classifier (conversion yes/no). The batch losses I print look normal, but the
epoch mean is already NaN in epoch 1 and from epoch 2 on everything is NaN. There are no NAs in the
data (checked, see the end of the log). Console output and train.R attached.
"""
    write_run("run12", {"post.md": post, "train.R": train_r, "console.txt": "\n".join(lines)},
              "zero_variance_statistic",
              "The batch losses I print look normal but the epoch mean is already NaN in epoch 1 and everything is "
              "NaN afterwards; there are no NAs in my data.",
              f"The in-model standardize layer divides by x$std(dim = 1) over the batch; with {n} rows and batch 32 "
              "the last batch has 1 row, the std over one value is NaN ('std(): degrees of freedom is <= 0' "
              "warning), so the last step of epoch 1 makes the loss and all weights NaN.")
    return lines[:8]


def main():
    t0 = time.time()
    only = os.environ.get("GEN_ONLY")
    if os.path.isdir(OUT) and not only:
        shutil.rmtree(OUT)
    os.makedirs(OUT, exist_ok=True)
    info = {}
    fns = (run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12)
    if only:
        fns = [f for f in fns if f.__name__ in only.split(",")]
    for fn in fns:
        t = time.time()
        info[fn.__name__] = fn()
        print(f"{fn.__name__}: {time.time() - t:.1f}s", flush=True)
    if only:
        for k, v in info.items():
            print(k, v)
        return
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(dict(sorted(TRUTH.items())), f, indent=2, ensure_ascii=False)
    print(f"total {time.time() - t0:.1f}s")
    if os.environ.get("GEN_DEBUG"):
        for k, v in info.items():
            print(k, v)


if __name__ == "__main__":
    main()
