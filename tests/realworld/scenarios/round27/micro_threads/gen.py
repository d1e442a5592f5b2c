#!/usr/bin/env python3
"""Generate 12 ML-debugging scenario runs in the style of social-media threads.
Every number in runs/ comes from the small CPU trainings performed here."""
import json, math, os, shutil, sys, tempfile, time, warnings
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_support.common import teacher_data, fake_module, run_script, Thread, write_run  # noqa
from gen_support import scripts as S  # noqa

torch.set_num_threads(1)
T0 = time.time()
OUT = HERE
RUNS = os.path.join(OUT, "runs")
shutil.rmtree(RUNS, ignore_errors=True)
os.makedirs(RUNS)
TRUTH = {}
WORK = tempfile.mkdtemp(prefix="gen_work_")
SITE = "/home/{u}/miniconda3/envs/{e}/lib/python3.11/site-packages"


def seed_all(s):
    torch.manual_seed(s)
    np.random.seed(s)


def T(x):
    return torch.from_numpy(np.ascontiguousarray(x))


def in_dir(name):
    d = os.path.join(WORK, name)
    os.makedirs(d, exist_ok=True)
    os.chdir(d)
    return d


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


# ---------------------------------------------------------------- run01: data_not_shuffled
def run01():
    K, PER = 8, 2000
    X, y = teacher_data(101, K * PER * 3, 40, K, noise=0.3)
    # balance: take PER train + 150 val per class
    tr_idx, va_idx = [], []
    for c in range(K):
        idx = np.where(y == c)[0]
        tr_idx += list(idx[:PER]); va_idx += list(idx[PER:PER + 150])
    tr_idx, va_idx = np.array(tr_idx), np.array(va_idx)  # grouped by species, like a folder walk
    species = ["amerob", "blujay", "carwre", "comgra", "houfin", "mallar3", "norcar", "sonspa"]

    def load_folder(path):
        idx = tr_idx if path.endswith("train") else va_idx
        return T(X[idx]), T(y[idx]), species

    fake_module("birdfeats", load_folder=load_folder)
    in_dir("run01")
    seed_all(0)
    out, exc, _ = run_script(S.BIRD_TRAIN, "/home/kofi/birdsong/train.py", SITE.format(u="kofi", e="bird"))
    assert exc is None, exc
    lines = out.splitlines()
    steps = [(int(l.split()[3]), float(l.split()[5])) for l in lines if l.startswith("ep ")]
    vals = [l for l in lines if l.startswith("==")]
    spe = len(tr_idx) // 32 + (len(tr_idx) % 32 > 0)
    ep3 = [s for s in steps if 2 * spe < s[0] <= 3 * spe]
    th = Thread("mastodon", "@kofi_a@sigmoid.social", "Kofi A.", "Mastodon, Tue 11 Mar", 500)
    th.post(f"""
        weekend project: classifying 8 backyard bird species from song embeddings 🐦 tiny MLP, Adam 1e-3, bs 32, {len(tr_idx)} clips.
        the loss curve looks like a saw blade and val acc is crawling. thread 🧵 #MachineLearning #birding #PyTorch""", "Sat 10:12")
    th.post(f"""
        loss every 20 steps, epoch 3:
        {chr(10).join(f'  step {s:4d} loss {l:.4f}' for s, l in ep3[::2][:10])}
        goes down to almost nothing, then shoots back up, then down again. over and over""", "Sat 10:15",
            alt=f"Line chart 'train loss' vs step 0-{steps[-1][0]}. Regular teeth: the loss drops to ~{min(l for _, l in ep3):.2f}, jumps to ~{max(l for _, l in ep3):.1f}, drops again, about every {PER // 32} steps, {K} teeth per epoch ({spe} steps), identical each epoch.")
    th.post(f"""
        val acc per epoch:
        {chr(10).join('  ' + v.replace('== ', '') for v in vals)}
        8 classes so chance is 0.125 😬""", "Sat 10:18")
    th.post("""
        things I already checked: labels look right when I plot a few clips per species, embeddings are unit norm, no NaNs.
        full script in the gist. is the saw pattern normal for small data? is bs 32 too small?""", "Sat 10:24",
            link="https://gist.github.com/kofi-a/3f9c1e0b7d  (train.py, log.txt)")
    th.reply("@mlnotes@fosstodon.org", "have you tried a lower lr? 1e-3 can be a lot for Adam on tiny MLPs, I'd go 3e-4 and add cosine decay", "Sat 10:40")
    th.reply("@quinn@hachyderm.io", "maybe the embeddings of different species are just too similar? what does a t-SNE look like", "Sat 11:02")
    th.reply("@kofi_a@sigmoid.social", "t-SNE shows pretty clear clusters for most species tbh. will try lower lr", "Sat 11:20", to="@quinn")
    write_run(OUT, "run01", {"thread.txt": th.render(), "train.py": S.BIRD_TRAIN, "log.txt": out})
    TRUTH["run01"] = dict(truth="data_not_shuffled",
        symptom="The loss curve looks like a saw blade and val accuracy is crawling; is the saw pattern normal for small data, or is batch size 32 too small?",
        how=f"Training clips are loaded grouped by species and the DataLoader has no shuffle=True, so each epoch walks class after class; the loss drops within a class block and jumps at each class boundary every ~{PER // 32} steps (one species block; {K} teeth per {spe}-step epoch, same pattern each epoch), and val acc stays near chance (the model predicts the last class seen).")
    log(f"run01 done vals={vals}")


# ---------------------------------------------------------------- run02: healthy (benign warning)
def run02():
    K = 10
    X, y = teacher_data(202, 24000, 48, K, noise=0.25)
    Xtr, ytr, Xva, yva = X[:20000], y[:20000], X[20000:], y[20000:]
    fn = os.path.join(in_dir("run02"), "feats.npy")
    np.save(fn, Xtr)
    mm = np.load(fn, mmap_mode="r")
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        xt = torch.from_numpy(mm)
    wmsg = str(w[0].message) if w else ""
    assert "not writable" in wmsg, wmsg
    xt = xt.clone()
    seed_all(2)
    model = nn.Sequential(nn.Linear(48, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, K))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    crit = nn.CrossEntropyLoss()
    ytt = T(ytr)
    bs, epochs = 256, 6
    spe = math.ceil(len(xt) / bs)
    g = torch.Generator().manual_seed(2)
    lines = [f"/home/ines/kws/train.py:31: UserWarning: {wmsg}",
             "  X = torch.from_numpy(np.load(args.feats, mmap_mode=\"r\"))",
             f"[train] samples={len(xt)} val={len(Xva)} classes={K} steps/epoch={spe} epochs={epochs}"]
    step = 0
    hist = []
    t = 0.0
    for ep in range(1, epochs + 1):
        perm = torch.randperm(len(xt), generator=g)
        model.train()
        for i in range(spe):
            idx = perm[i * bs:(i + 1) * bs]
            loss = crit(model(xt[idx]), ytt[idx])
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9).item()
            opt.step(); step += 1
            t += 0.0118 + 0.0004 * ((step * 7919) % 13)
            if step % 10 == 0:
                lines.append(f"[train] ep {ep:2d} step {step:5d}/{spe * epochs} loss {loss.item():.4f} gnorm {gn:.3f} lr 1.0e-03 {step / t:.1f}it/s")
        model.eval()
        with torch.no_grad():
            out = model(T(Xva)); vl = crit(out, T(yva)).item(); va = (out.argmax(1) == T(yva)).float().mean().item()
        hist.append((ep, vl, va))
        lines.append(f"[eval]  ep {ep:2d} val_loss {vl:.4f} val_acc {va:.4f}")
    lines.append("[done] saved checkpoints/last.pt")
    logtxt = "\n".join(lines) + "\n"
    first = [l for l in lines if l.startswith("[train] ep  1 step    10")][0]
    th = Thread("bsky", "@ines-codes.bsky.social", "Inês", "Bluesky, Thu 6 Feb", 300)
    th.post("""
        first time training my own keyword-spotting classifier from scratch (10 words, MFCC stats → MLP). it runs! but the very first thing it printed is a scary UserWarning 🫠 #PyTorch #MLtwitter""", "21:03")
    th.post(f"""
        the warning:
        train.py:31: UserWarning: The given NumPy array is not writable, and PyTorch does not support non-writable tensors. This means writing to this tensor will result in undefined behavior…""", "21:04")
    th.post(f"""
        line 31 is
        X = torch.from_numpy(np.load(args.feats, mmap_mode="r"))
        features are 20k×48 so I memory-map them""", "21:05")
    th.post(f"""
        training then looks like this:
        {first.replace('[train] ', '')}
        ...
        {lines[-2].replace('[eval]  ', '')}""", "21:07",
            alt=f"Two charts. Left: train loss from {float(first.split()[6]):.2f} at step 10 falling smoothly to ~{float(lines[-3].split()[6]):.2f} at step {int(lines[-3].split()[4].split('/')[0])}. Right: val acc by epoch {hist[0][2]:.3f} → {hist[-1][2]:.3f}.")
    th.post("""
        is my run compromised by that warning? do I need to re-run everything? full log in the gist 👇""", "21:09",
            link="https://gist.github.com/ines-codes/a81c  (train_log.txt)")
    th.reply("@tensorgoblin.bsky.social", "undefined behaviour sounds bad, I'd np.array(...) copy it to be safe. 20k×48 floats is tiny anyway", "21:30")
    th.reply("@drkwon.bsky.social", "could also be why your val acc stops climbing at the end?", "21:41")
    write_run(OUT, "run02", {"thread.txt": th.render(), "train_log.txt": logtxt})
    TRUTH["run02"] = dict(truth="healthy",
        symptom="The first thing my run printed is a scary 'NumPy array is not writable' UserWarning; is my run compromised, do I need to re-run everything?",
        how=f"Nothing planted: the warning comes from torch.from_numpy on a read-only memmap that is never written to; loss falls smoothly and val acc rises to {hist[-1][2]:.3f} with val loss tracking train.")
    log(f"run02 done hist={hist[-1]}")


# ---------------------------------------------------------------- run03: nan_in_data
def run03():
    rng = np.random.default_rng(303)
    N, D = 48000, 16
    cols = ["t_in", "t_out", "rh_1", "rh_2", "co2", "lux", "occ", "wind", "press", "t_sup", "t_ret", "valve", "fan", "dew", "hour_sin", "hour_cos"]
    Z = rng.standard_normal((N, D))
    w = rng.standard_normal(D) / np.sqrt(D)
    target = np.tanh(Z @ w) * 2 + 0.3 * (Z[:, 0] * Z[:, 1]) + 0.1 * rng.standard_normal(N)
    raw = Z * rng.uniform(0.5, 20, D) + rng.uniform(-5, 400, D)
    ntr = 40000
    bs = 128
    spe = ntr // bs + (ntr % bs > 0)
    g = torch.Generator().manual_seed(3)
    perms = [torch.randperm(ntr, generator=g) for _ in range(3)]
    # the two rows with a missing rh_2 reading: wherever they sit in the file, the first epoch's order decides
    pos = perms[0].numpy()
    bad = [int(pos[bs * 291 + 17]), int(pos[bs * 302 + 101])]
    raw[bad, 3] = np.nan
    mean = np.nanmean(raw[:ntr], 0); std = np.nanstd(raw[:ntr], 0)
    Xn = ((raw - mean) / std).astype(np.float32)
    yt = ((target - target[:ntr].mean()) / target[:ntr].std()).astype(np.float32)
    count = np.sum(~np.isnan(raw[:ntr]), 0)

    def train(clip, maxep):
        seed_all(3)
        model = nn.Sequential(nn.Linear(D, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(), nn.Linear(128, 1))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        Xt, Yt = T(Xn[:ntr]), T(yt[:ntr])
        lines, first_nan, step = [], None, 0
        for ep in range(maxep):
            model.train()
            for i in range(spe):
                idx = perms[ep][i * bs:(i + 1) * bs]
                loss = F.mse_loss(model(Xt[idx]).squeeze(1), Yt[idx])
                opt.zero_grad(); loss.backward()
                if clip:
                    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
                else:
                    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf")).item()
                opt.step(); step += 1
                if first_nan is None and not math.isfinite(loss.item()):
                    first_nan = step
                if step % 10 == 0 or step == first_nan:
                    lines.append(f"{ep:>5d} {step:>6d} {loss.item():>10.5f} {gn:>9.4f} {1e-3:>9.1e}")
            model.eval()
            with torch.no_grad():
                vl = F.mse_loss(model(T(Xn[ntr:])).squeeze(1), T(yt[ntr:])).item()
            lines.append(f"# epoch {ep} done  val_mse={vl:.5f}")
        return lines, first_nan

    lines_noclip, nan_noclip = train(False, 1)
    lines, nan_step = train(True, 2)
    hdr = ["hvac-surrogate  |  run 2025-01-19_0931  |  torch 2.13.0  |  device cpu",
           f"data: sensors_2024.parquet  rows={N}  train={ntr}  val={N - ntr}  features={D}",
           "model: MLP(16-128-128-1, SiLU)  opt: Adam(lr=1e-3)  clip_grad_norm=1.0  bs=128",
           f"{'epoch':>5} {'step':>6} {'loss':>10} {'gnorm':>9} {'lr':>9}"]
    logtxt = "\n".join(hdr + lines) + "\n^C\nKeyboardInterrupt\n"
    idx = [i for i, l in enumerate(lines) if l.split()[1:2] == [str(nan_step)]][0]
    snippet = "\n".join("  " + l.strip() for l in lines[idx - 3: idx + 2])
    pre = [l for l in lines[:idx] if not l.startswith("#")]
    gns = [float(l.split()[3]) for l in pre]
    desc = "        " + "  ".join(f"{c:>6}" for c in cols[:5]) + "\n  count " + "  ".join(f"{int(c):>6}" for c in count[:5])
    th = Thread("x", "@paulo_builds", "Paulo R.", "X, Sun 19 Jan", 280)
    th.post("""
        ok I need help. small MLP surrogate for our building HVAC sensors, regression, nothing fancy. loss is fine for ~300 steps and then NaN forever. #MachineLearning #PyTorch #DeepLearning""", "10:02")
    th.post(f"""
        around the blow-up (epoch step loss gnorm lr):
{snippet}""", "10:04")
    th.post(f"""
        my guess was exploding gradients, so I added clip_grad_norm_(…, 1.0). exact same thing: without clipping NaN at step {nan_noclip}, with clipping NaN at step {nan_step}. lr is 1e-3, Adam""", "10:07",
            alt=f"W&B panel 'grad_norm'. Values between {min(gns):.2f} and {max(gns):.2f} for steps 10-{int(pre[-1].split()[1])}, line ends abruptly at step {nan_step}.")
    th.post(f"""
        data is normalized (z-score), and I checked it with df.describe() before training:
{desc}
        …all 16 columns look sane, mean≈0 std≈1 after scaling""", "10:11")
    th.post("""
        should I drop lr to 1e-4? switch to Huber loss? gradient clipping at 0.1? full log in the gist""", "10:12",
            link="https://gist.github.com/paulo-builds/77e0d  (train_log.txt)")
    th.reply("@gradsmith", "grad norm was ~0.3 right before and then NaN in one step, that's not a slow explosion. Adam eps maybe? try eps=1e-6", "10:20")
    th.reply("@lena_dl", "lower lr + bf16 off + Huber is my usual recipe for NaN regressions 🤷", "10:33")
    write_run(OUT, "run03", {"thread.txt": th.render(), "train_log.txt": logtxt})
    TRUTH["run03"] = dict(truth="nan_in_data",
        symptom="Loss is fine for ~300 steps and then NaN forever; I think it's exploding gradients but gradient clipping at 1.0 didn't help. Should I lower the lr or switch to Huber loss?",
        how=f"Two training rows have a missing rh_2 reading (NaN) that survives the nan-aware z-scoring; the loss is finite with grad norm <{max(gns):.1f} until the batch holding the first one (step {nan_step}, same step with and without clipping), then NaN forever; df.describe count for rh_2 is {int(count[3])} vs {ntr}.")
    log(f"run03 done nan at {nan_step}/{nan_noclip}")


# ---------------------------------------------------------------- run04: wrong_checkpoint
def run04():
    K, V = 12, 2000
    rng = np.random.default_rng(404)
    N = 9000
    topics = rng.dirichlet(np.full(V, 0.05), size=K)
    y = rng.integers(0, K, N)
    X = np.zeros((N, V), np.float32)
    for i in range(N):
        mix = 0.55 * topics[y[i]] + 0.45 * topics[rng.integers(0, K)]
        X[i] = np.log1p(rng.multinomial(60, mix / mix.sum()))
    Xtr, ytr, Xte, yte = X[:7500], y[:7500], X[7500:], y[7500:]

    class TopicMLP(nn.Module):
        def __init__(self, vocab, hidden, n_classes):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(vocab, hidden), nn.ReLU(), nn.Dropout(0.2))
            self.classifier = nn.Linear(hidden, n_classes)

        def forward(self, x):
            return self.classifier(self.encoder(x))

    in_dir("run04")
    os.makedirs("runs/exp14", exist_ok=True)
    seed_all(4)
    model = nn.DataParallel(TopicMLP(V, 256, K))
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    Xt, Yt = T(Xtr), T(ytr)
    tlog = []
    best = 0
    for ep in range(1, 7):
        model.train()
        perm = torch.randperm(len(Xt))
        for i in range(0, len(Xt), 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xt[idx]), Yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
        model.eval()
        with torch.no_grad():
            va = (model(T(Xte)).argmax(1) == T(yte)).float().mean().item()
        tlog.append(f"epoch {ep} loss {loss.item():.4f} val_acc {va:.4f}" + ("  *saved best*" if va > best else ""))
        if va > best:
            best = va
            torch.save(model.state_dict(), "runs/exp14/best.pt")
    fake_module("net", TopicMLP=TopicMLP)
    fake_module("data", load_split=lambda s: (T(Xte), T(yte)))
    sys.argv = ["eval.py"]
    seed_all(44)
    out_strict, exc_strict, _ = run_script(S.TOPIC_EVAL.replace(", strict=False", ""), "/home/yuki/topics/eval.py", SITE.format(u="yuki", e="topics"))
    seed_all(44)
    out, exc, _ = run_script(S.TOPIC_EVAL, "/home/yuki/topics/eval.py", SITE.format(u="yuki", e="topics"))
    assert exc is None and exc_strict is not None
    acc = float(out.split("test acc ")[1].split()[0])
    el = exc_strict.strip().splitlines()
    k = [i for i, l in enumerate(el) if l.startswith("RuntimeError")][0]
    short_err = "\n".join(l.strip()[:96] + ("…" if len(l.strip()) > 96 else "") for l in el[k:k + 3])
    th = Thread("x", "@yuki_nlp", "Yuki T.", "X, Wed 2 Apr", 280)
    th.post(f"""
        sanity check pls 🙏 topic classifier (12 classes), trained on the lab box yesterday, log at the end said best val_acc {best:.4f}. #NLProc #PyTorch""", "09:15")
    th.post(f"""
        today I run my eval script on the test split on my laptop and get:
        {out.strip().splitlines()[-1]}
        that's basically 1/12. same data files.""", "09:17")
    th.post(f"""
        first attempt eval.py didn't even load:
        {short_err}
        so I passed strict=False and then it ran""", "09:20")
    th.post("""
        training loop was the usual, wrapped the model in nn.DataParallel for the 2 GPUs, torch.save(model.state_dict(), …) on best val. eval.py in the gist. did the training just not converge and the log lied??""", "09:24",
            link="https://gist.github.com/yuki-nlp/0c4e  (eval.py, train_tail.log)")
    th.reply("@bayes_barista", "laptop vs GPU box, different torch versions? I've seen pickles break across versions", "09:40")
    th.reply("@m_okafor", "are you sure the test split is from the same tokenizer/vocab build?", "09:52")
    th.reply("@yuki_nlp", "same repo, same vocab.json, same torch 2.13 on both", "09:58", to="@m_okafor")
    write_run(OUT, "run04", {"thread.txt": th.render(), "eval.py": S.TOPIC_EVAL, "train_tail.log": "\n".join(tlog) + "\n"})
    TRUTH["run04"] = dict(truth="wrong_checkpoint",
        symptom=f"Training log said best val_acc {best:.4f} but my eval script gives {acc:.4f} on the test split with the same data; did training just not converge and the log lied?",
        how="The model was saved from an nn.DataParallel wrapper so every key has a 'module.' prefix; eval.py loads with strict=False, which silently skips every weight, so the test accuracy is that of a random init (~1/12); the strict load error the user quotes lists the missing/unexpected keys.")
    log(f"run04 done best={best} acc={acc}")


# ---------------------------------------------------------------- run05: lr_schedule_bug
def run05():
    X, y = teacher_data(505, 10000, 32, 10, noise=0.2)
    fake_module("prep", load_shapes=lambda: (T(X[:8000]), T(y[:8000]), T(X[8000:]), T(y[8000:])))
    in_dir("run05")
    seed_all(5)
    out, exc, _ = run_script(S.SHAPES_TRAIN, "/home/mira/shapes/train.py", SITE.format(u="mira", e="torch"))
    assert exc is None, exc
    seed_all(5)
    out512, exc, _ = run_script(S.SHAPES_TRAIN, "/home/mira/shapes/train.py", SITE.format(u="mira", e="torch"),
                                replace=[("HIDDEN = 128", "HIDDEN = 512")])
    assert exc is None, exc
    L = out.strip().splitlines(); L5 = out512.strip().splitlines()
    f = lambda l: (float(l.split()[3]), float(l.split()[5]))
    th = Thread("bsky", "@mira-learns.bsky.social", "Mira", "Bluesky, Mon 17 Feb", 300)
    th.post("""
        learning PyTorch by doing: 10-class MLP on my synthetic 'shapes' features. it learns for a bit and then just… stops. #PyTorch #100DaysOfML""", "19:40")
    th.post(f"""
        {L[0]}
        {L[1]}
        {L[4]}
        {L[9]}
        {L[14]}""", "19:42",
            alt=f"Chart of train loss per epoch: {f(L[0])[0]:.2f}, {f(L[1])[0]:.2f}, then a dead flat line at {f(L[14])[0]:.2f} until epoch 14. val acc flat at ~{f(L[14])[1]:.2f}.")
    th.post(f"""
        my guess: the model is too small for 10 classes? so I went HIDDEN=128 → 512:
        {L5[0]}
        {L5[14]}
        a bit better but the same dead flat line after the first epoch 🙃""", "19:50")
    th.post("""
        SGD lr 0.1 momentum 0.9 + StepLR halving every 5 epochs, bs 64, 8000 samples. script in the gist. do I need more layers? batchnorm?""", "19:52",
            link="https://gist.github.com/mira-learns/9a2b  (train.py)")
    th.reply("@ferns-and-floats.bsky.social", "try Adam, SGD is picky. and add BatchNorm after each Linear", "20:05")
    th.reply("@petr.bsky.social", "width isn't your problem if 512 does the same. maybe the data just isn't separable past ~that acc?", "20:31")
    write_run(OUT, "run05", {"thread.txt": th.render(), "train.py": S.SHAPES_TRAIN})
    TRUTH["run05"] = dict(truth="lr_schedule_bug",
        symptom="It learns for a bit and then just stops; I think the model is too small, but going from 128 to 512 hidden units still gives the same flat line after the first epoch. Do I need more layers or batchnorm?",
        how=f"StepLR(step_size=5, gamma=0.5) is meant per epoch but sched.step() is called every batch (125/epoch), so the lr is halved every 5 batches and is {L[0].split()[-1]} after epoch 0 ({L[14].split()[-1]} at the end); training freezes after the first epoch at the same loss for both widths.")
    log(f"run05 done {L[14]}")


# ---------------------------------------------------------------- run06: data_leakage
def run06():
    rng = np.random.default_rng(606)
    N = 14000
    feats = ["tenure_months", "monthly_charges", "n_logins_30d", "support_tickets_90d", "plan_tier", "autopay", "discount_pct", "last_nps", "refund_amount_90d"]
    Z = rng.standard_normal((N, 8))
    w = np.array([-1.0, 0.6, -0.8, 0.7, -0.3, -0.5, 0.2, -0.6])
    p = 1 / (1 + np.exp(-(Z @ w * 0.9 - 1.0)))
    y = (rng.random(N) < p).astype(np.int64)
    refund = np.where(y == 1, rng.lognormal(3.0, 0.6, N) * (rng.random(N) < 0.96), rng.lognormal(2.0, 0.5, N) * (rng.random(N) < 0.01))
    X = np.column_stack([Z, refund]).astype(np.float32)
    X = (X - X.mean(0)) / X.std(0)
    perm = rng.permutation(N)
    tr, va = perm[:11200], perm[11200:]
    seed_all(6)
    model = nn.Sequential(nn.Linear(9, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 64), nn.ReLU(), nn.Dropout(0.3), nn.Linear(64, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    Xt, Yt = T(X[tr]), T(y[tr])
    lines = []
    for ep in range(1, 6):
        model.train()
        pr = torch.randperm(len(Xt)); tl = tc = 0.0
        for i in range(0, len(Xt), 64):
            idx = pr[i:i + 64]
            out = model(Xt[idx]); loss = F.cross_entropy(out, Yt[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            tl += loss.item() * len(idx); tc += (out.argmax(1) == Yt[idx]).sum().item()
        model.eval()
        with torch.no_grad():
            out = model(T(X[va])); vl = F.cross_entropy(out, T(y[va])).item()
            pv = out.argmax(1).numpy(); va_acc = (pv == y[va]).mean()
            tp = ((pv == 1) & (y[va] == 1)).sum(); f1 = 2 * tp / ((pv == 1).sum() + (y[va] == 1).sum())
        lines.append(f"Epoch {ep}/5 - loss: {tl / len(Xt):.4f} - acc: {tc / len(Xt):.4f} - val_loss: {vl:.4f} - val_acc: {va_acc:.4f} - val_f1: {f1:.4f}")
    churn = y.mean()
    th = Thread("x", "@dataDev_ro", "Radu | data dev", "X, Fri 28 Feb", 280)
    th.post(f"""
        ok either I'm a genius or something is off 😅 churn model for our SaaS, 14k customers, {churn * 100:.0f}% churn, tiny MLP #DataScience #MachineLearning #churn""", "16:20")
    th.post(f"""
        {lines[0]}
        after ONE epoch. our old gradient boosting model in prod never got close to this""", "16:21")
    th.post(f"""
        features (9): {', '.join(feats)}
        all z-scored, 80/20 random split by customer""", "16:23")
    th.post(f"""
        final:
        {lines[-1]}
        val was higher than train for {sum(float(l.split('val_acc: ')[1].split()[0]) > float(l.split(' acc: ')[1].split()[0]) for l in lines)} of 5 epochs lol. dropout 0.3 so I guess that's why?""", "16:25",
            alt=f"Keras-style curves: train acc {float(lines[0].split('acc: ')[1].split()[0]):.3f}→{float(lines[-1].split('acc: ')[1].split()[0]):.3f}, val acc flat at ~{float(lines[-1].split('val_acc: ')[1].split()[0]):.3f} from epoch 1.")
    th.post("""
        boss wants it in prod next sprint. anything I should double check before I ship? 🚀""", "16:26")
    th.reply("@kaggle_karen", "random split by customer is fine if there's one row per customer. looks legit, ship it 🚢", "16:40")
    th.reply("@sre_mo", "make sure the prod features are computed the same way as in training (same scaler)", "17:02")
    write_run(OUT, "run06", {"thread.txt": th.render()})
    TRUTH["run06"] = dict(truth="data_leakage",
        symptom="Either I'm a genius or something is off: 97% val accuracy after one epoch on churn, val higher than train for most epochs. Anything I should double check before I ship?",
        how="One input feature, refund_amount_90d, is only non-zero for customers who already churned (it is recorded after the outcome), so the target leaks into the inputs; val accuracy is near-perfect from epoch 1 and above train accuracy, far beyond what the honest features allow.")
    log(f"run06 done {lines[0]} | {lines[-1]}")


# ---------------------------------------------------------------- run07: zero_variance_statistic
def run07():
    X, y = teacher_data(707, 6025, 11, 3, noise=0.4)
    rng = np.random.default_rng(707)
    X = (X * rng.uniform(0.01, 60, 11) + rng.uniform(0, 150, 11)).astype(np.float32)
    fake_module("wine_data", load_wine_quality=lambda: (T(X), T(y)))
    in_dir("run07")
    seed_all(7)
    out, exc, _ = run_script(S.WINE_TRAIN, "/home/jt/wine/train.py", SITE.format(u="jt", e="wine"))
    assert exc is None, exc
    seed_all(7)
    out_lo, exc, _ = run_script(S.WINE_TRAIN, "/home/jt/wine/train.py", SITE.format(u="jt", e="wine"), replace=[("LR = 3e-3", "LR = 3e-4")])
    L = out.strip().splitlines()
    nanline = [l for l in L if l.startswith("epoch") and "nan" in l][0]
    nan_lo = [l for l in out_lo.splitlines() if l.startswith("epoch") and "nan" in l][0]
    ep1 = [l for l in L[:L.index(nanline)] if l.startswith("epoch 1 ")]
    wline = [i for i, l in enumerate(L) if "UserWarning" in l][0]
    th = Thread("mastodon", "@jtorres@mastodon.social", "J. Torres", "Mastodon, Sun 9 Mar", 500)
    th.post("""
        weird one. wine-quality classifier (3 bins), 11 features, 3-layer MLP. the loss goes NaN at the exact same step every run. not "around", exactly. #PyTorch #MachineLearning #DataScience""", "14:10")
    th.post(f"""
        {chr(10).join(ep1[-3:])}
        {nanline}
        and it's nan for everything after. {nanline.split()[3]} is the last step of epoch 1.""", "14:12")
    th.post(f"""
        thought lr 3e-3 was too hot for Adam, dropped to 3e-4:
        {nan_lo}
        same step. re-ran both twice, same step every time.""", "14:15")
    th.post("""
        there's also a UserWarning somewhere in the middle of my output but it's just a torch warning about degrees of freedom, I assume harmless? full log + train.py in the gist""", "14:18",
            link="https://gist.github.com/jtorres/e51a7  (train.py, out.txt)")
    th.reply("@numerically_fine@sigmoid.social", "same step every time screams bad sample. grep your csv for empty cells", "14:30")
    th.reply("@jtorres@mastodon.social", "did that, pandas isna().sum() is 0 for every column", "14:44", to="@numerically_fine")
    th.reply("@adamw_enjoyer@hachyderm.io", "Adam + exactly-reproducible NaN... try eps=1e-7? or gradient clipping", "15:05")
    write_run(OUT, "run07", {"thread.txt": th.render(), "train.py": S.WINE_TRAIN, "out.txt": out})
    TRUTH["run07"] = dict(truth="zero_variance_statistic",
        symptom="The loss goes NaN at exactly the same step every run (last step of epoch 1), regardless of lr or seed; there's a torch warning about degrees of freedom that I assume is harmless.",
        how=f"The script standardises each batch with xb.std(0); the training split has 5121 = 80*64+1 rows, so the last batch of an epoch holds a single sample, std() of one element is NaN ('std(): degrees of freedom is <= 0' warning), the inputs and loss become NaN at step {nanline.split()[3]} and the weights stay NaN.")
    log(f"run07 done {nanline} | {nan_lo}")


# ---------------------------------------------------------------- run08: healthy (small gap)
def run08():
    X, y = teacher_data(808, 15000, 24, 5, noise=0.45)
    fake_module("dataset", get_splits=lambda: ((T(X[:12000]), T(y[:12000])), (T(X[12000:]), T(y[12000:]))))
    in_dir("run08")
    seed_all(8)
    out, exc, _ = run_script(S.HEALTHY_TRAIN, "/home/sam/tab/train.py", SITE.format(u="sam", e="tab"))
    assert exc is None, exc
    L = out.strip().splitlines()
    P = lambda l, k: float(l.split(k + " ")[1].split()[0])
    th = Thread("x", "@sam_trains_models", "Sam K.", "X, Tue 14 Jan", 280)
    th.post("""
        quick q for ML twitter: my val loss sits above my train loss for the whole run. is that overfitting already? 5-class tabular problem, MLP w/ dropout 0.1, AdamW wd 0.05, cosine. #MachineLearning #PyTorch""", "08:31")
    th.post(f"""
        {L[0]}
        {L[7]}
        {L[15]}
        {L[-1]}""", "08:33",
            alt=f"Loss chart: train {P(L[0], 'train_loss'):.3f}→{P(L[-1], 'train_loss'):.3f}, val {P(L[0], 'val_loss'):.3f}→{P(L[-1], 'val_loss'):.3f}; the two lines run close, val a bit above train from epoch ~{next(i + 1 for i, l in enumerate(L) if P(l, 'val_loss') > P(l, 'train_loss'))} on.")
    th.post(f"""
        gap at the end is {P(L[-1], 'val_loss') - P(L[-1], 'train_loss'):.3f} in loss, {P(L[-1], 'train_acc') - P(L[-1], 'val_acc'):+.3f} in acc. every tutorial says 'val loss above train = overfitting' so now I'm paranoid. should I crank dropout to 0.5?""", "08:36")
    th.post("script + full log in the gist. 24 epochs, ~12k train / 3k val", "08:37",
            link="https://gist.github.com/samk/1d0f  (train.py, train.log)")
    th.reply("@overfit_oracle", "any gap = overfitting imo. add more dropout + early stopping", "08:50")
    th.reply("@tabular_tim", "gbdt would crush this anyway tbh", "09:12")
    write_run(OUT, "run08", {"thread.txt": th.render(), "train.py": S.HEALTHY_TRAIN, "train.log": out})
    TRUTH["run08"] = dict(truth="healthy",
        symptom="My val loss sits a bit above my train loss for the whole run; is that overfitting already, should I crank dropout to 0.5?",
        how=f"Nothing planted: val loss falls with train loss and flattens without rising (final train {P(L[-1], 'train_loss'):.3f} / val {P(L[-1], 'val_loss'):.3f}); the small gap is the normal generalisation gap on noisy labels.")
    log("run08 done\n" + out)


# ---------------------------------------------------------------- run09: resume_mismatch
def run09():
    X, y = teacher_data(909, 22000, 32, 10, noise=0.2)
    Xtr, ytr, Xva, yva = T(X[:19200]), T(y[:19200]), T(X[19200:]), T(y[19200:])
    EPOCHS, BS, PEAK, WARM, KILL = 20, 128, 3e-3, 50, 15
    spe = len(Xtr) // BS
    total = EPOCHS * spe

    def lr_lambda(s):
        if s < WARM:
            return (s + 1) / WARM
        return 0.5 * (1 + math.cos(math.pi * (s - WARM) / (total - WARM)))

    def make():
        m = nn.Sequential(nn.Linear(32, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 10))
        o = torch.optim.AdamW(m.parameters(), lr=PEAK, weight_decay=0.05)
        s = torch.optim.lr_scheduler.LambdaLR(o, lr_lambda)
        return m, o, s

    lines = []
    clock = [3600 * 13 + 60 * 2 + 11]

    def ts():
        clock[0] += 3
        h, r = divmod(clock[0], 3600); mnt, sec = divmod(r, 60)
        return f"2025-03-04 {h:02d}:{mnt:02d}:{sec:02d}"

    def train(model, opt, sched, start_ep, stop_ep, gstep):
        g = torch.Generator().manual_seed(900 + start_ep)
        for ep in range(start_ep, stop_ep + 1):
            model.train()
            perm = torch.randperm(len(Xtr), generator=g)
            for i in range(spe):
                idx = perm[i * BS:(i + 1) * BS]
                loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
                opt.zero_grad(); loss.backward(); opt.step(); sched.step(); gstep += 1
                if gstep % 20 == 0:
                    lines.append(f"{ts()} | INFO | epoch {ep:02d} step {gstep:5d}/{total} | loss {loss.item():.4f} | lr {sched.get_last_lr()[0]:.3e}")
            model.eval()
            with torch.no_grad():
                out = model(Xva); vl = F.cross_entropy(out, yva).item(); va = (out.argmax(1) == yva).float().mean().item()
            lines.append(f"{ts()} | INFO | epoch {ep:02d} done | val_loss {vl:.4f} | val_acc {va:.4f}")
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(), "epoch": ep, "step": gstep}, "ckpt_last.pt")
            lines.append(f"{ts()} | INFO | saved ckpt_last.pt (epoch {ep}, step {gstep})")
        return gstep

    in_dir("run09")
    seed_all(9)
    model, opt, sched = make()
    lines.append(f"{ts()} | INFO | start: epochs={EPOCHS} bs={BS} steps/epoch={spe} peak_lr={PEAK} warmup={WARM} sched=cosine")
    gstep = train(model, opt, sched, 1, KILL, 0)
    pre = len(lines)
    lines.append("slurmstepd: error: *** JOB 4471203 ON gpu-node-17 CANCELLED AT 2025-03-04T14:21:07 DUE TO PREEMPTION ***")
    lines.append("")
    lines.append("===== requeued: job 4471203, restart 1 =====")
    clock[0] += 1800
    ck = torch.load("ckpt_last.pt")
    model, opt, sched = make()
    model.load_state_dict(ck["model"])
    start = ck["epoch"] + 1
    lines.append(f"{ts()} | INFO | start: epochs={EPOCHS} bs={BS} steps/epoch={spe} peak_lr={PEAK} warmup={WARM} sched=cosine")
    lines.append(f"{ts()} | INFO | resuming from ckpt_last.pt: epoch {ck['epoch']}, step {ck['step']}")
    train(model, opt, sched, start, EPOCHS, ck["step"])
    logtxt = "\n".join(lines) + "\n"
    ep12 = [l for l in lines[:pre] if f"epoch {KILL} done" in l][0]
    post = lines[pre + 5: pre + 5 + 40]
    after = [l for l in post if "| loss" in l]
    ep13 = [l for l in lines[pre:] if f"epoch {KILL + 1} done" in l][0]
    ep_last = [l for l in lines if f"epoch {EPOCHS} done" in l][0]
    last_before = [l for l in lines[:pre] if "| loss" in l][-1]
    fmt = lambda l: l.split(" | ", 2)[2]
    th = Thread("mastodon", "@hanna_b@scholar.social", "Hanna B.", "Mastodon, Wed 5 Mar", 500)
    th.post(f"""
        PSA / question: my cluster job got preempted at epoch {KILL + 1} of {EPOCHS}, slurm requeued it, my script auto-resumes from ckpt_last.pt. and the resumed run is visibly worse than where it left off. #HPC #PyTorch #MachineLearning""", "09:01")
    th.post(f"""
        before the kill:
        {fmt(last_before)}
        {fmt(ep12)}
        right after restart:
        {fmt(after[1])}
        {fmt(after[3])}
        {fmt(after[7])}""", "09:03",
            alt=f"Train-loss chart, steps 0-{total}. Smooth fall to ~{float(last_before.split('loss ')[1].split()[0]):.2f} at step {int(last_before.split('step ')[1].split('/')[0])}, then a bump up to ~{max(float(l.split('loss ')[1].split()[0]) for l in after):.2f} right after step {ck['step']}, then falls again.")
    th.post(f"""
        {fmt(ep13)}
        it does recover somewhat, final: {fmt(ep_last)}
        but I've seen the uninterrupted run do better.""", "09:06")
    th.post("""
        my theory: the checkpoint got partially written when the job was killed (it was saving every epoch) and I loaded a half-corrupted file? should I write to a tmp file + os.replace? full log in the gist""", "09:09",
            link="https://gist.github.com/hannab/c0ffee12  (train_log.txt)")
    th.reply("@lustre_admin@hpc.social", "atomic writes are always a good idea on shared fs. tmp + rename, yes", "09:20")
    th.reply("@k_s@fediscience.org", "could also be the data order: after requeue your sampler starts from the beginning of the epoch again", "09:48")
    write_run(OUT, "run09", {"thread.txt": th.render(), "train_log.txt": logtxt})
    TRUTH["run09"] = dict(truth="resume_mismatch",
        symptom="After my job was preempted and auto-resumed from ckpt_last.pt, the resumed run is visibly worse than where it left off; I think the checkpoint got half-written when the job was killed.",
        how=f"The resume path loads only the model weights; the AdamW state and the LambdaLR (warm-up + cosine) scheduler are rebuilt from scratch although both are in the checkpoint, so at step {ck['step']} the lr restarts the warm-up toward the 3e-3 peak instead of continuing the decayed cosine, and the loss jumps up before recovering.")
    log(f"run09 done {last_before} || {after[:3]} || {ep_last}")


# ---------------------------------------------------------------- run10: label_out_of_range
def run10():
    rng = np.random.default_rng(1010)
    X, y = teacher_data(1010, 4000, 64, 5, noise=0.5)
    d = in_dir("run10")
    np.savez("reviews_emb.npz", emb=X, stars=(y + 1).astype(np.int64))
    seed_all(10)
    out, exc, _ = run_script(S.RATINGS_TRAIN, "/home/dev/reviews/train.py", SITE.format(u="dev", e="reviews"))
    assert exc is not None
    tb = exc.strip().splitlines()
    th = Thread("x", "@night_shift_dev", "ale", "X, Sat 22 Mar", 280)
    th.post("""
        why does PyTorch hate me. 5-class star-rating classifier on review embeddings, NUM_CLASSES = 5, crashes on the very first batch #PyTorch #100DaysOfCode""", "01:12")
    th.post(f"""
        {out.strip()}
{tb[0]}
{chr(10).join(tb[[i for i, l in enumerate(tb) if 'train.py' in l][-1]:][:2])}
  [...]
{tb[-1]}""", "01:13")
    th.post("""
        5 classes, 5 outputs. I literally printed model[-1] and it's Linear(in_features=128, out_features=5). is this a torch 2.13 bug??""", "01:15")
    th.reply("@pt_helper", "probably your model output and labels have different batch sizes? print xb.shape and yb.shape", "01:30")
    th.reply("@night_shift_dev", "both 32 🤷", "01:34", to="@pt_helper")
    write_run(OUT, "run10", {"thread.txt": th.render()})
    TRUTH["run10"] = dict(truth="label_out_of_range",
        symptom="My 5-class star-rating classifier crashes on the very first batch even though the model has 5 outputs; is this a torch 2.13 bug?",
        how="Targets are the raw star ratings 1..5 while CrossEntropyLoss with 5 outputs expects 0..4; the first batch containing a 5-star review raises 'IndexError: Target 5 is out of bounds.' (real traceback pasted).")
    log(f"run10 done {tb[-1]}")


# ---------------------------------------------------------------- run11: optimizer_misconfigured
def run11():
    X, y = teacher_data(1111, 12000, 40, 10, noise=0.2)
    Xtr, ytr, Xva, yva = T(X[:10000]), T(y[:10000]), T(X[10000:]), T(y[10000:])

    def train(lr, epochs=12):
        seed_all(11)
        model = nn.Sequential(nn.Linear(40, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, 10))
        opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.999), weight_decay=0.5)
        lines = []
        for ep in range(1, epochs + 1):
            model.train(); perm = torch.randperm(len(Xtr)); tl = 0.0
            for i in range(0, len(Xtr), 128):
                idx = perm[i:i + 128]
                loss = F.cross_entropy(model(Xtr[idx]), ytr[idx])
                opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item() * len(idx)
            model.eval()
            with torch.no_grad():
                out = model(Xva); va = (out.argmax(1) == yva).float().mean().item(); vl = F.cross_entropy(out, yva).item()
            wn = torch.sqrt(sum((p ** 2).sum() for p in model.parameters())).item()
            lines.append(f"[ep {ep:02d}] train_loss={tl / len(Xtr):.4f} val_loss={vl:.4f} val_acc={va:.4f} |w|={wn:.3f}")
        return lines

    A = train(1e-3)
    B = train(3e-3)
    cfg = """# configs/mlp_base.yaml
experiment: synth10-mlp
seed: 11
data:
  n_train: 10000
  n_val: 2000
  features: 40
  classes: 10
model:
  type: mlp
  hidden: [256, 256]
  activation: relu
train:
  epochs: 12
  batch_size: 128
optim:
  name: adam
  lr: 1.0e-3
  betas: [0.9, 0.999]
  weight_decay: 5.0e-1
"""
    th = Thread("bsky", "@tomasz-ml.bsky.social", "Tomasz", "Bluesky, Thu 20 Mar", 300)
    th.post("""
        my 10-class MLP baseline refuses to learn. loss barely moves off ln(10)=2.30 and val acc is stuck. Adam lr 1e-3, 2×256 hidden. #MachineLearning #PyTorch""", "13:02")
    th.post(f"""
        {A[0]}
        {A[5]}
        {A[-1]}""", "13:04",
            alt=f"Two lines (lr 1e-3 and 3e-3), train loss per epoch, both nearly flat: {float(A[0].split('train_loss=')[1].split()[0]):.2f}→{float(A[-1].split('train_loss=')[1].split()[0]):.2f} and {float(B[0].split('train_loss=')[1].split()[0]):.2f}→{float(B[-1].split('train_loss=')[1].split()[0]):.2f}.")
    th.post(f"""
        figured lr is too low so 3× it:
        {B[-1]}
        meh. going to try 1e-2 next unless someone stops me""", "13:09")
    th.post("config attached (alt: screenshot of yaml). same config file I use for the CNN baselines, just swapped the model block", "13:11",
            alt="Screenshot of configs/mlp_base.yaml; full text in the attached file.")
    th.reply("@relu-rachel.bsky.social", "2x256 for 40 features might be too small if the boundary is complex? try 1024", "13:25")
    th.reply("@gd-grandpa.bsky.social", "1e-2 with Adam will just blow up. lr finder?", "13:41")
    write_run(OUT, "run11", {"thread.txt": th.render(), "config.yaml": cfg})
    TRUTH["run11"] = dict(truth="optimizer_misconfigured",
        symptom="My 10-class MLP baseline refuses to learn, the loss barely moves off ln(10); I figured the lr is too low, but 3x it didn't help, so I'm going to try 1e-2.",
        how="The shared config sets weight_decay: 5.0e-1 for torch.optim.Adam (coupled L2), which pins the weights near zero (|w| shrinks every epoch) and keeps the loss near chance for both lr 1e-3 and 3e-3; a normal weight decay (~1e-4) trains fine.")
    log(f"run11 done {A[-1]} | {B[-1]}")


# ---------------------------------------------------------------- run12: eval_mode_forgotten
def run12():
    X, y = teacher_data(1212, 10000, 32, 6, noise=0.25)
    Xtr, ytr, Xva, yva, Xte, yte = X[:7000], y[:7000], X[7000:8500], y[7000:8500], X[8500:], y[8500:]

    class Classifier(nn.Module):
        def __init__(self, in_dim, n_classes, h=128, p=0.5):
            super().__init__()
            self.net = nn.Sequential(
                nn.Linear(in_dim, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p),
                nn.Linear(h, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p),
                nn.Linear(h, n_classes))

        def forward(self, x):
            return self.net(x)

    in_dir("run12")
    os.makedirs("checkpoints", exist_ok=True)
    seed_all(12)
    model = Classifier(32, 6)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    Xt, Yt = T(Xtr), T(ytr)
    tlog, best = [], 0
    for ep in range(1, 16):
        model.train(); perm = torch.randperm(len(Xt)); tl = 0.0
        for i in range(0, len(Xt), 128):
            idx = perm[i:i + 128]
            loss = F.cross_entropy(model(Xt[idx]), Yt[idx])
            opt.zero_grad(); loss.backward(); opt.step(); tl += loss.item() * len(idx)
        model.eval()
        with torch.no_grad():
            va = (model(T(Xva)).argmax(1) == T(yva)).float().mean().item()
        mark = ""
        if va > best:
            best = va; torch.save(model.state_dict(), "checkpoints/best.pt"); mark = "  -> checkpoints/best.pt"
        tlog.append(f"epoch {ep:2d}/15  train_loss {tl / len(Xt):.4f}  val_acc {va:.4f}{mark}")
    fake_module("model", Classifier=Classifier)
    fake_module("data", load_test=lambda: (T(Xte), T(yte)))
    outs = []
    for s in (1201, 1202):
        torch.manual_seed(s)
        o, exc, _ = run_script(S.PREDICT, "/home/lucia/sensors/predict.py", SITE.format(u="lucia", e="har"))
        assert exc is None, exc
        outs.append(o)
    model.load_state_dict(torch.load("checkpoints/best.pt")); model.eval()
    with torch.no_grad():
        ref = (model(T(Xte)).argmax(1) == T(yte)).float().mean().item()
    accs = [o.strip().splitlines()[-1] for o in outs]
    th = Thread("x", "@lucia_har", "Lucía M.", "X, Mon 24 Feb", 280)
    th.post(f"""
        activity recognition from wrist IMU features, 6 classes. training says best val acc {best:.4f} 🎉 then I run my predict script on the held-out test users and get way less #MachineLearning #PyTorch #wearables""", "18:40")
    th.post(f"""
        tail of train log:
        {tlog[-2]}
        {tlog[-1]}
        predict.py, twice in a row, nothing changed in between:
        $ python predict.py
        {accs[0]}
        $ python predict.py
        {accs[1]}""", "18:44")
    th.post("""
        so (a) way lower and (b) not even the same number twice?! test users are different people than train/val so some drop is expected, but this much??""", "18:46")
    th.post("""
        my bet: the best.pt on disk isn't the best epoch, maybe it's overwritten by a later worse one? predict.py in the gist, the load prints all keys matched""", "18:48",
            link="https://gist.github.com/lucia-har/5b3e  (predict.py, train.log)")
    th.reply("@imu_ian", "cross-subject drop is brutal in HAR, that's normal. do leave-one-subject-out CV", "19:02")
    th.reply("@seedsofdoubt", "the randomness: are you seeding torch in predict.py? no seed → different numbers", "19:10")
    write_run(OUT, "run12", {"thread.txt": th.render(), "predict.py": S.PREDICT, "train.log": "\n".join(tlog) + "\n"})
    TRUTH["run12"] = dict(truth="eval_mode_forgotten",
        symptom="Training says best val acc is high, but my predict script gets way less on the test users and not even the same number twice; I bet best.pt got overwritten by a worse epoch.",
        how=f"predict.py never calls model.eval(): Dropout(0.5) stays active and BatchNorm normalises with the statistics of 8-sample batches, so test accuracy drops and changes from call to call; the same checkpoint in eval mode gives {ref:.4f} on the test set (not shown to the user).")
    log(f"run12 done best={best} accs={accs} ref_eval={ref:.4f}")


if __name__ == "__main__":
    only = sys.argv[1:]
    for fn in [run01, run02, run03, run04, run05, run06, run07, run08, run09, run10, run11, run12]:
        if not only or fn.__name__ in only:
            fn()
    os.chdir(OUT)
    shutil.rmtree(WORK, ignore_errors=True)
    if not only:
        with open(os.path.join(OUT, "truth.json"), "w") as f:
            json.dump(dict(sorted(TRUTH.items())), f, indent=2)
    log("all done")
