"""Build the fairseq / Megatron-style benchmark runs by really training tiny language models on CPU.

Out: runs/<name>/{train.log, run.sh?, train.py?} and truth.json next to this file.
Scratch (data, scripts actually executed, checkpoints) goes to work/ and is not part of a run.

Every run is produced by executing a standalone script (a copy of templates/fs_train.py or
templates/mg_train.py, for some runs with one planted code change) with exactly the flags that the
run's run.sh shows; the script's stdout+stderr is the run's train.log. Where a run ships train.py,
it is byte-for-byte the script that was executed.
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus import corpus  # noqa: E402

WORK = os.path.join(HERE, "work")
RUNS = os.path.join(HERE, "runs")
DATA = os.path.join(WORK, "data")
PY = sys.executable


def read(p):
    with open(p) as f:
        return f.read()


def patch(src, old, new):
    assert src.count(old) == 1, f"patch anchor not found exactly once: {old!r}"
    return src.replace(old, new)


FS = read(os.path.join(HERE, "templates", "fs_train.py"))
MG = read(os.path.join(HERE, "templates", "mg_train.py"))

# ---------------------------------------------------------------------------- planted code variants
# scheduler advanced once per micro-batch instead of once per optimizer step
MG_SCHED_PER_MICRO = patch(
    patch(MG, """            (loss * scaler.scale / num_micro).backward()
            losses.append(loss.detach())
""", """            (loss * scaler.scale / num_micro).backward()
            losses.append(loss.detach())
            scheduler.step(1)
"""),
    """        if not skipped:
            scheduler.step(1)
""", "")
# attention normalised with a hand-written exp / sum (overflows the fp16 range once scores pass ~11)
MG_EXP_SOFTMAX = patch(MG, "        probs = torch.softmax(scores, dim=-1)\n",
                       "        probs = scores.exp()\n        probs = probs / probs.sum(dim=-1, keepdim=True)\n")
# gradients never cleared between optimizer steps
MG_NO_ZERO_GRAD = patch(MG, "        optimizer.zero_grad(set_to_none=True)\n", "")
# resume restores only the weights (optimizer moments and lr-scheduler position start fresh)
MG_RESUME_WEIGHTS_ONLY = patch(MG, """    model.load_state_dict(sd["model"])
    optimizer.load_state_dict(sd["optimizer"])
    scheduler.load_state_dict(sd["opt_param_scheduler"])
""", """    model.load_state_dict(sd["model"])
""")


# ---------------------------------------------------------------------------- data
def write_fs(name, train, valid):
    d = os.path.join(DATA, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "train.tokens"), "w") as f:
        f.write("\n".join(train) + "\n")
    with open(os.path.join(d, "valid.tokens"), "w") as f:
        f.write("\n".join(valid) + "\n")
    c = collections.Counter(" ".join(train).split())
    with open(os.path.join(d, "dict.txt"), "w") as f:
        f.write("".join(f"{w} {n}\n" for w, n in c.most_common()))
    return d


def prepare_data():
    os.makedirs(DATA, exist_ok=True)
    docs = corpus(11, 2600)
    write_fs("stories", docs[:2400], docs[2400:])
    docs = corpus(23, 360)
    write_fs("fables_small", docs[:160], docs[160:])
    docs = corpus(31, 520)
    # "valid" = first 70 lines of the same file that is used, whole, as train
    write_fs("tales", docs[:280], docs[:70])
    write_fs("tales_heldout", docs[:280], docs[280:])  # only for the generator's own check
    docs = corpus(7, 3000)
    with open(os.path.join(DATA, "stories_text_document"), "w") as f:
        f.write("\n".join(docs) + "\n")
    chars = sorted(set("".join(docs)))
    with open(os.path.join(DATA, "char.model"), "w") as f:
        f.write("\n".join(["<eod>"] + chars) + "\n")


# ---------------------------------------------------------------------------- run specs
def flags(*pairs):
    out = []
    for p in pairs:
        out += p.split() if isinstance(p, str) else list(p)
    return out


MG_DATA = ["--data-path", "data/stories_text_document", "--split", "949,50,1",
           "--tokenizer-type", "SentencePieceTokenizer", "--tokenizer-model", "tokenizer/char.model"]


def gpt(hidden=64, layers=2, heads=4, seq=64):
    return flags(f"--num-layers {layers} --hidden-size {hidden} --num-attention-heads {heads} "
                 f"--seq-length {seq} --max-position-embeddings {seq}")


SPECS = [
    dict(name="run01", kind="mg", script=MG_SCHED_PER_MICRO, ship_train=True, ship_sh=True,
         entry="train.py",
         argv=gpt() + flags("--micro-batch-size 4 --global-batch-size 32 --train-iters 400",
                            "--lr 1e-3 --min-lr 1e-5 --lr-decay-style cosine --lr-warmup-iters 40",
                            "--weight-decay 0.01 --adam-beta1 0.9 --adam-beta2 0.999 --clip-grad 1.0",
                            "--attention-dropout 0.1 --hidden-dropout 0.1 --seed 1234")
         + MG_DATA + flags("--log-interval 10 --eval-interval 100 --eval-iters 10"),
         truth="lr_schedule_bug",
         symptom="Loss drops quickly for the first ~50 iterations and then hardly moves for the remaining 350; "
                 "I expected it to keep improving over the whole run.",
         how="train.py calls scheduler.step(1) inside the micro-batch loop (8 micro-batches per step), so the "
             "40-iteration warm-up and the 400-iteration cosine decay both run 8x too fast: lr reaches "
             "--min-lr 1e-5 at iteration 50 and stays there."),
    dict(name="run02", kind="fs", script=FS, ship_train=True, ship_sh=True, entry="train.py",
         data=("data/stories", "stories"),
         argv=flags("data/stories --task language_modeling --arch transformer_lm",
                    "--decoder-layers 2 --decoder-embed-dim 64 --decoder-ffn-embed-dim 256",
                    "--decoder-attention-heads 4 --share-decoder-input-output-embed --dropout 0.1",
                    "--optimizer adam --adam-betas", ["(0.9, 0.98)"], "--weight-decay 0.01 --clip-norm 0.0",
                    "--lr 1e-3 --lr-scheduler inverse_sqrt --warmup-updates 100",
                    "--tokens-per-sample 64 --sample-break-mode none --max-tokens 1024 --max-epoch 7",
                    "--log-format simple --log-interval 25 --seed 1 --save-dir checkpoints/stories_tlm",
                    "--no-epoch-checkpoints"),
         truth="healthy",
         symptom="Is this run OK? I want to scale it up and would like a second opinion on the curves first.",
         how="No fault: small transformer LM, Adam with inverse-sqrt warm-up, trains and validates normally."),
    dict(name="run03", kind="mg", script=MG_EXP_SOFTMAX, ship_train=False, ship_sh=True,
         entry="pretrain_gpt.py",
         argv=gpt(heads=2) + flags("--micro-batch-size 8 --global-batch-size 16 --train-iters 500",
                                   "--lr 2.5e-3 --lr-decay-style constant --lr-warmup-iters 20",
                                   "--weight-decay 0.01 --clip-grad 1.0 --fp16 --seed 2024")
         + MG_DATA + flags("--log-interval 10 --eval-interval 100 --eval-iters 10"),
         truth="mixed_precision_overflow",
         symptom="Around iteration 250 the lm loss disappears from the log, every iteration is counted as "
                 "skipped and the validation loss turns into NAN; before that it was training fine.",
         how="Real fp16 forward/backward (half model, fp32 master weights, Megatron-style dynamic loss scaler). "
             "The model's attention normalises with exp()/sum() in fp16; once attention scores pass ~11 "
             "exp overflows 65504, the scaler sees inf/NaN grads, halves the scale to 1.0 within ~20 "
             "iterations and then skips every step (lm loss missing from most lines, validation NAN from iteration "
             "300). The same script and flags without --fp16 train normally (final valid loss 1.15)."),
    dict(name="run04", kind="fs", script=FS, ship_train=False, ship_sh=True, entry="fairseq-train",
         data=("data-bin/tales", "tales"),
         argv=flags("data-bin/tales --task language_modeling --arch transformer_lm",
                    "--decoder-layers 2 --decoder-embed-dim 128 --decoder-ffn-embed-dim 512",
                    "--decoder-attention-heads 4 --dropout 0.1",
                    "--optimizer adam --adam-betas", ["(0.9, 0.98)"], "--clip-norm 0.0",
                    "--lr 2e-3 --lr-scheduler inverse_sqrt --warmup-updates 50",
                    "--tokens-per-sample 64 --max-tokens 1024 --max-epoch 30",
                    "--log-interval 50 --seed 3 --save-dir checkpoints/tales --no-epoch-checkpoints"),
         pre=["TEXT=data/tales",
              "head -n 70 $TEXT/tales.all.tokens > $TEXT/valid.tokens",
              "tail -n +1 $TEXT/tales.all.tokens > $TEXT/train.tokens",
              "fairseq-preprocess --only-source --trainpref $TEXT/train.tokens --validpref $TEXT/valid.tokens \\\n"
              "    --destdir data-bin/tales --workers 4"],
         truth="data_leakage",
         symptom="Validation perplexity is well below training perplexity for the whole run and keeps "
                 "improving every epoch (ppl ~4.3 at the end) - is the model really this good?",
         how="The valid split is the first 70 lines of tales.all.tokens and the train split is the whole file "
             "(tail -n +1 instead of +71), so every validation document is also trained on. A held-out set "
             "from the same generator scores 4.35 bits/token on the final checkpoint vs 2.12 on this 'valid' "
             "and 2.61 for the epoch's train loss."),
    dict(name="run05", kind="mg", script=MG_NO_ZERO_GRAD, ship_train=True, ship_sh=True, entry="train.py",
         argv=gpt() + flags("--micro-batch-size 4 --global-batch-size 16 --train-iters 300",
                            "--lr 1e-3 --min-lr 0.0 --lr-decay-style cosine --lr-warmup-iters 20",
                            "--weight-decay 0.01 --clip-grad 0.0 --seed 77")
         + MG_DATA + flags("--log-interval 10 --eval-interval 100 --eval-iters 10"),
         truth="missing_zero_grad",
         symptom="grad norm is 30-120 instead of around 1, and the loss starts getting worse again after "
                 "iteration 50 and ends up around 3.0.",
         how="optimizer.zero_grad() was dropped from the training loop, so .grad keeps the sum of every "
             "previous step's gradient (accumulation across micro-batches is intended, across steps is not); "
             "no gradient clipping, so the summed gradient's norm is reported and keeps growing."),
    dict(name="run06", kind="fs", script=FS, ship_train=False, ship_sh=True, entry="fairseq-train",
         data=("data-bin/stories", "stories"),
         argv=flags("data-bin/stories --task language_modeling --arch lstm_lm",
                    "--decoder-layers 2 --decoder-embed-dim 128 --decoder-hidden-size 256 --dropout 0.1",
                    "--criterion label_smoothed_cross_entropy --label-smoothing 0.1",
                    "--optimizer adam --adam-betas", ["(0.9, 0.98)"], "--clip-norm 1.0",
                    "--lr 1e-5 --lr-scheduler fixed",
                    "--tokens-per-sample 64 --max-tokens 1024 --max-epoch 6",
                    "--log-interval 50 --seed 11 --save-dir checkpoints/stories_lstm --no-epoch-checkpoints"),
         pre=["TEXT=data/stories",
              "fairseq-preprocess --only-source --trainpref $TEXT/train.tokens --validpref $TEXT/valid.tokens \\\n"
              "    --destdir data-bin/stories --workers 4"],
         truth="lr_too_low",
         symptom="After 6 epochs the LSTM LM is still at perplexity ~80 on valid; it is barely learning.",
         how="Adam with a fixed lr of 1e-5, about 100x too small for this LSTM: loss creeps from 7.17 to 6.48 "
             "bits in 6 epochs; the same flags with lr 1e-3 give valid 4.94 / 4.23 bits after epochs 1 / 2."),
    dict(name="run07", kind="mg", script=MG, ship_train=False, ship_sh=False, entry="pretrain_gpt.py",
         argv=gpt() + flags("--micro-batch-size 2 --global-batch-size 4 --train-iters 600",
                            "--lr 5e-4 --min-lr 0.0 --lr-decay-style cosine --lr-warmup-iters 20",
                            "--weight-decay 0.01 --clip-grad 1.0 --seed 99")
         + MG_DATA + flags("--log-interval 5 --eval-interval 100 --eval-iters 10"),
         truth="healthy",
         symptom="The loss curve is quite noisy and it converges slowly with this small batch - is this run "
                 "fine or should I be worried?",
         how="No fault: global batch of 4 sequences with a moderate lr; the loss is noisy line to line but "
             "falls steadily and the validation loss improves at every evaluation."),
    dict(name="run08", kind="fs", script=FS, ship_train=True, ship_sh=True, entry="train.py",
         data=("data/stories", "stories"),
         argv=flags("data/stories --task language_modeling --arch rnn_lm --rnn-nonlinearity relu",
                    "--decoder-layers 1 --decoder-embed-dim 64 --decoder-hidden-size 256 --dropout 0.1",
                    "--optimizer sgd --lr 0.03 --clip-norm 0.0",
                    "--tokens-per-sample 128 --max-tokens 1024 --max-epoch 5",
                    "--log-interval 4 --seed 5 --save-dir checkpoints/stories_rnn --no-epoch-checkpoints"),
         truth="exploding_gradients",
         symptom="The loss was going down for the first ~40 updates, then jumped, and since then training has "
                 "been stuck around 6.3 (ppl ~78) for all 5 epochs.",
         how="ReLU Elman RNN unrolled over 128 steps, trained with plain SGD and no gradient clipping "
             "(--clip-norm 0.0): gnorm creeps from 0.28 to 0.67 and 1.6 while the loss is still falling, then "
             "averages 169 over updates 45-48; the loss jumps to 9.6 bits and the RNN is left stuck near the "
             "unigram level (~6.3 bits) for the rest of the run."),
    dict(name="run09", kind="mg", script=MG, ship_train=False, ship_sh=True, entry="pretrain_gpt.py",
         argv=gpt() + flags("--micro-batch-size 8 --global-batch-size 16 --train-iters 400",
                            "--lr 1e-3 --min-lr 0.0 --lr-decay-style cosine --lr-warmup-iters 20",
                            "--weight-decay 0.01 --adam-beta1 0.9 --adam-beta2 0.999 --adam-eps 1e-1",
                            "--clip-grad 1.0 --seed 4321")
         + MG_DATA + flags("--log-interval 20 --eval-interval 100 --eval-iters 10"),
         truth="optimizer_misconfigured",
         symptom="Loss goes down but very slowly: after 400 iterations it is still at about 3.1 while my other "
                 "runs of this model get to about 2.0 in 300.",
         how="--adam-eps 1e-1 (default 1e-8): the eps dominates sqrt(v) for these gradients (~1e-3 per "
             "element), so Adam's steps are ~100x smaller than intended with an otherwise normal lr of 1e-3. "
             "The same flags with eps 1e-8 reach loss 1.98 / valid 1.92 (vs 3.10 / 3.09)."),
    dict(name="run10", kind="fs", script=FS, ship_train=True, ship_sh=True, entry="train.py",
         data=("data/fables_small", "fables_small"),
         argv=flags("data/fables_small --task language_modeling --arch transformer_lm",
                    "--decoder-layers 2 --decoder-embed-dim 128 --decoder-ffn-embed-dim 512",
                    "--decoder-attention-heads 4 --dropout 0.0",
                    "--optimizer adam --adam-betas", ["(0.9, 0.98)"], "--clip-norm 0.0 --lr 1e-3",
                    "--tokens-per-sample 64 --max-tokens 1024 --max-epoch 40",
                    "--log-interval 20 --seed 8 --save-dir checkpoints/fables --no-epoch-checkpoints"),
         truth="overfitting",
         symptom="Validation loss was best around epoch 8 and has been getting worse ever since, while the "
                 "training loss keeps going down.",
         how="160 training documents (~7.5k tokens) for a 0.4M-parameter transformer with dropout 0 trained 40 "
             "epochs: train loss falls to ~0.25 bits while valid loss bottoms out at epoch 8 and climbs to ~7."),
    dict(name="run11", kind="mg", script=MG_RESUME_WEIGHTS_ONLY, ship_train=True, ship_sh=True,
         entry="train.py", launches=2,
         argv=gpt() + flags("--micro-batch-size 8 --global-batch-size 16 --train-iters 600",
                            "--lr 3e-3 --min-lr 1e-4 --lr-decay-style cosine --lr-warmup-iters 20",
                            "--weight-decay 0.01 --clip-grad 1.0 --seed 31")
         + MG_DATA + flags("--log-interval 10 --eval-interval 50 --eval-iters 10",
                           "--save checkpoints/gpt-char --load checkpoints/gpt-char --save-interval 150",
                           "--exit-interval 450"),
         truth="resume_mismatch",
         symptom="The job stopped at iteration 450 and I restarted it from the checkpoint; after the restart "
                 "the loss stopped improving for a while and the validation loss at 500 was worse than at 450.",
         how="load_checkpoint() in train.py restores the model weights and the iteration but not the optimizer "
             "or the lr-scheduler state, although both are saved: Adam moments start from zero and the "
             "schedule restarts warm-up/cosine from step 0, so lr jumps from 5.5e-4 back to 3e-3 at 460-470."),
    dict(name="run12", kind="mg", script=MG, ship_train=False, ship_sh=False, entry="pretrain_gpt.py",
         argv=gpt() + flags("--micro-batch-size 8 --global-batch-size 16 --train-iters 300",
                            "--optimizer sgd --sgd-momentum 0.9",
                            "--lr 1.5 --min-lr 0.15 --lr-decay-style cosine --lr-warmup-iters 60",
                            "--weight-decay 0.0 --clip-grad 1.0 --seed 5")
         + MG_DATA + flags("--log-interval 10 --eval-interval 50 --eval-iters 10"),
         truth="lr_too_high",
         symptom="Loss went down at first, then climbed to 6-7 around iterations 100-140 with big "
                 "grad-norm spikes, and the final loss is much worse than expected.",
         how="SGD (momentum 0.9) with peak lr 1.5; the same flags with lr 0.3 train steadily to valid 1.96 "
             "(vs 2.81 here). The loss "
             "falls while the warm-up lr is small, rises and oscillates once lr passes ~1, and recovers only "
             "partly as cosine decay lowers it."),
]


# ---------------------------------------------------------------------------- execution
def shell_quote(a):
    if a == "" or any(c in a for c in " ()$'\"*;&|<>"):
        return "'" + a.replace("'", "'\\''") + "'"
    return a


def render_fs_sh(spec):
    lines = ["#!/usr/bin/env bash", "set -e", ""]
    if spec.get("pre"):
        lines += spec["pre"] + [""]
    argv = spec["argv"]
    cmd = ("python train.py" if spec["entry"] == "train.py" else "fairseq-train") + " " + argv[0] + " \\"
    body, cur = [], []
    for a in argv[1:]:
        if a.startswith("--") and cur:
            body.append(" ".join(cur))
            cur = []
        cur.append(shell_quote(a))
    body.append(" ".join(cur))
    # group a few flags per line
    grouped, line = [], []
    for item in body:
        line.append(item)
        if len(" ".join(line)) > 70:
            grouped.append(" ".join(line))
            line = []
    if line:
        grouped.append(" ".join(line))
    lines.append(cmd)
    lines += ["    " + g + " \\" for g in grouped]
    lines.append("    2>&1 | tee train.log")
    return "\n".join(lines) + "\n"


def render_mg_sh(spec):
    argv = spec["argv"]
    pairs, i = [], 0
    while i < len(argv):
        if i + 1 < len(argv) and not argv[i + 1].startswith("--"):
            pairs.append((argv[i], argv[i + 1]))
            i += 2
        else:
            pairs.append((argv[i], None))
            i += 1
    data_keys = {"--data-path", "--split", "--tokenizer-type", "--tokenizer-model"}
    out_keys = {"--log-interval", "--eval-interval", "--eval-iters", "--save", "--load", "--save-interval",
                "--exit-interval"}

    def block(name, ps):
        s = [f'{name}="']
        for k, v in ps:
            s.append(f"    {k}" + (f" {v}" if v is not None else "") + " \\")
        s[-1] = s[-1][:-2]
        s.append('"')
        return s

    gpt_ps = [p for p in pairs if p[0] not in data_keys | out_keys]
    data_ps = [p for p in pairs if p[0] in data_keys]
    out_ps = [p for p in pairs if p[0] in out_keys]
    lines = ["#!/bin/bash", "", "export CUDA_DEVICE_MAX_CONNECTIONS=1", "GPUS_PER_NODE=1", ""]
    lines += block("GPT_ARGS", gpt_ps) + [""] + block("DATA_ARGS", data_ps) + [""] + block("OUTPUT_ARGS", out_ps)
    lines += ["", f"torchrun --nproc_per_node $GPUS_PER_NODE {spec['entry']} \\",
              "    $GPT_ARGS \\", "    $DATA_ARGS \\", "    $OUTPUT_ARGS \\",
              "    --distributed-backend nccl \\", "    2>&1 | tee -a train.log"]
    return "\n".join(lines) + "\n"


def link(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    if os.path.lexists(dst):
        os.remove(dst)
    os.symlink(src, dst)


def run_one(spec):
    name = spec["name"]
    wd = os.path.join(WORK, name)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    if spec["kind"] == "fs":
        rel, ds = spec["data"]
        link(os.path.join(DATA, ds), os.path.join(wd, rel))
    else:
        link(os.path.join(DATA, "stories_text_document"), os.path.join(wd, "data", "stories_text_document"))
        link(os.path.join(DATA, "char.model"), os.path.join(wd, "tokenizer", "char.model"))
    with open(os.path.join(wd, "train.py"), "w") as f:
        f.write(spec["script"])
    out = os.path.join(RUNS, name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t0 = time.time()
    with open(os.path.join(out, "train.log"), "w") as log:
        for _ in range(spec.get("launches", 1)):
            rc = subprocess.run([PY, "train.py"] + spec["argv"], cwd=wd, stdout=log, stderr=subprocess.STDOUT,
                                env=env).returncode
            log.flush()
    print(f"{name}: {spec['truth']:26s} rc={rc} {time.time() - t0:.1f}s", flush=True)
    if spec["ship_train"]:
        shutil.copy(os.path.join(wd, "train.py"), os.path.join(out, "train.py"))
    if spec["ship_sh"]:
        sh = render_fs_sh(spec) if spec["kind"] == "fs" else render_mg_sh(spec)
        with open(os.path.join(out, "run.sh"), "w") as f:
            f.write(sh)


def main():
    truth_only = "--truth-only" in sys.argv
    only = set(a for a in sys.argv[1:] if not a.startswith("--"))
    if not truth_only:
        prepare_data()
        os.makedirs(RUNS, exist_ok=True)
        for spec in SPECS:
            if not only or spec["name"] in only:
                run_one(spec)
    truth = {s["name"]: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for s in SPECS}
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)


if __name__ == "__main__":
    main()
