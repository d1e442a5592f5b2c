#!/usr/bin/env python
"""Generator for the llm_sft benchmark runs (round 17).

Trains a tiny word-level chat LM ("tinychat-base") once, then fine-tunes it with LoRA
in twelve differently-configured runs, each produced by a self-contained script that is
executed with sys.executable in a scratch folder (.work/<run>).  What a user would hand
over (console logs, configs, trainer_state.json, and for half of the runs train.py) is
copied to runs/<run>/.  Ground truth goes to truth.json.

Usage:  python gen.py            # everything
        python gen.py run05 run09  # only these runs (base model / data are cached)
Everything is seeded; only wall-clock fields of the plain user scripts vary.
"""
import json, math, os, random, shutil, signal, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(HERE, "runs")
CACHE = os.path.join(HERE, ".cache")
WORK = os.path.join(HERE, ".work")
PY = sys.executable

# ----------------------------------------------------------------------------------------
# vocabulary / knowledge base
# ----------------------------------------------------------------------------------------
NOUNS = ("cat dog fox owl bear wolf frog duck goat lion mouse horse tiger sheep crow bee ant deer "
         "seal crab eel hawk moth pig rat yak toad swan mole lynx hare newt wasp orca puma ibis").split()
COLORS = "red blue green brown black white gray yellow".split()
PLACES = "forest river desert farm city cave lake field".split()
FOODS = "fish grass seeds nuts honey bugs fruit meat".split()
AGES = "one two three four five six seven eight nine ten".split()
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>", "<|user|>", "<|assistant|>"]
OTHER = ("the a is are in lives live eats eat what color does do where which who tell me of about animal "
         "it has have name hello hi thanks thank you how can i help ? . , ! sure yes no old years age place "
         "food and or with to good morning bye see later fine am great welcome").split()
WORDS = sorted(set(NOUNS + COLORS + PLACES + FOODS + AGES + OTHER))


def make_kb():
    r = random.Random(1234)
    return {n: dict(color=r.choice(COLORS), place=r.choice(PLACES), food=r.choice(FOODS)) for n in NOUNS}


KB = make_kb()
QC = ["what color is the {n} ?", "what is the color of the {n} ?", "tell me the color of the {n} .", "which color does the {n} have ?"]
QP = ["where does the {n} live ?", "where is the {n} ?", "tell me where the {n} lives .", "which place does the {n} live in ?"]
QF = ["what does the {n} eat ?", "what is the food of the {n} ?", "tell me what the {n} eats .", "which food does the {n} eat ?"]
QN = ["name a {c} animal .", "which animal is {c} ?", "tell me a {c} animal ."]
QA = ["how old is the {n} ?", "what is the age of the {n} ?", "tell me how old the {n} is ."]


def qa_example(rng, kind, n=None):
    n = n or rng.choice(NOUNS)
    f = KB[n]
    if kind == "color":
        return rng.choice(QC).format(n=n), rng.choice([f"the {n} is {f['color']} .", f"it is {f['color']} ."])
    if kind == "place":
        return rng.choice(QP).format(n=n), rng.choice([f"the {n} lives in the {f['place']} .", f"in the {f['place']} ."])
    if kind == "food":
        return rng.choice(QF).format(n=n), rng.choice([f"the {n} eats {f['food']} .", f"it eats {f['food']} ."])
    # name an animal of a colour (several right answers)
    while True:
        c = rng.choice(COLORS)
        cands = [m for m in NOUNS if KB[m]["color"] == c]
        if cands:
            break
    m = rng.choice(cands)
    return rng.choice(QN).format(c=c), rng.choice([f"the {m} is {c} .", f"the {m} ."])


def row(q, a):
    return {"instruction": q, "input": "", "output": a}


# ----------------------------------------------------------------------------------------
# code pieces shared by the run scripts (each script is self-contained)
# ----------------------------------------------------------------------------------------
P_HEAD = r'''import json, math, os, random, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader

torch.set_num_threads(1)
'''

P_TOK = r'''

class WordTokenizer:
    def __init__(self, vocab):
        self.vocab = vocab
        self.inv = {i: t for t, i in vocab.items()}
        self.pad_token_id = vocab["<pad>"]
        self.bos_token_id = vocab["<s>"]
        self.eos_token_id = vocab["</s>"]
        self.unk_token_id = vocab["<unk>"]

    @classmethod
    def from_pretrained(cls, path):
        with open(os.path.join(path, "tokenizer.json")) as f:
            return cls(json.load(f)["model"]["vocab"])

    def encode(self, text):
        return [self.vocab.get(w, self.unk_token_id) for w in text.split()]

    def decode(self, ids, skip_special_tokens=True):
        toks = [self.inv.get(i, "<unk>") for i in ids]
        if skip_special_tokens:
            toks = [t for t in toks if t not in ("<pad>", "<s>", "</s>")]
        return " ".join(toks)

    def __len__(self):
        return len(self.vocab)
'''

P_MODEL = r'''

class Attention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.q_proj = nn.Linear(d, d)
        self.k_proj = nn.Linear(d, d)
        self.v_proj = nn.Linear(d, d)
        self.o_proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = (p(x).view(B, T, self.n_head, D // self.n_head).transpose(1, 2)
                   for p in (self.q_proj, self.k_proj, self.v_proj))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, D))


class MLP(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up_proj = nn.Linear(d, 4 * d)
        self.down_proj = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.down_proj(F.relu(self.up_proj(x)))


class DecoderLayer(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.input_layernorm = nn.LayerNorm(d)
        self.self_attn = Attention(d, n_head)
        self.post_attention_layernorm = nn.LayerNorm(d)
        self.mlp = MLP(d)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class TinyLM(nn.Module):
    def __init__(self, vocab_size, d_model=64, n_layer=2, n_head=4, max_position_embeddings=32):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.embed_positions = nn.Embedding(max_position_embeddings, d_model)
        self.layers = nn.ModuleList([DecoderLayer(d_model, n_head) for _ in range(n_layer)])
        self.norm = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        self.gradient_checkpointing = False

    @classmethod
    def from_pretrained(cls, path):
        with open(os.path.join(path, "config.json")) as f:
            c = json.load(f)
        model = cls(c["vocab_size"], c["d_model"], c["n_layer"], c["n_head"], c["max_position_embeddings"])
        model.load_state_dict(torch.load(os.path.join(path, "pytorch_model.bin"), weights_only=True))
        return model

    def forward(self, input_ids):
        pos = torch.arange(input_ids.shape[1])
        x = self.embed_tokens(input_ids) + self.embed_positions(pos)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                x.requires_grad_(True)  # reentrant checkpointing needs an input that requires grad
                x = checkpoint(layer, x, use_reentrant=True)
            else:
                x = layer(x)
        return self.lm_head(self.norm(x))
'''

P_LORA = r'''

class LoraLinear(nn.Module):
    def __init__(self, base, r, alpha, dropout):
        super().__init__()
        self.base_layer = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.lora_dropout = nn.Dropout(dropout)
        self.scaling = alpha / r
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling


def inject_lora(model, target_modules, r, alpha, dropout):
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if name in target_modules and isinstance(child, nn.Linear):
                setattr(module, name, LoraLinear(child, r, alpha, dropout))
    for name, p in model.named_parameters():
        p.requires_grad = "lora_" in name
    return model


def print_trainable_parameters(model):
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    total = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {trainable:,} || all params: {total:,} || trainable%: {100 * trainable / total:.4f}")


def save_adapter(model, out_dir, lora_cfg):
    os.makedirs(out_dir, exist_ok=True)
    state = {"base_model.model." + k: v for k, v in model.state_dict().items() if "lora_" in k}
    torch.save(state, os.path.join(out_dir, "adapter_model.bin"))
    with open(os.path.join(out_dir, "adapter_config.json"), "w") as f:
        json.dump({"peft_type": "LORA", "task_type": "CAUSAL_LM", **lora_cfg}, f, indent=2)


def load_adapter(model, path):
    state = torch.load(os.path.join(path, "adapter_model.bin"), weights_only=True)
    state = {k[len("base_model.model."):]: v for k, v in state.items()}
    return model.load_state_dict(state, strict=False)
'''

P_DATA = r'''

PROMPT = "<s> <|user|> {instruction} <|assistant|>"


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def build_example(tok, ex, max_len=32):
    instruction = ex["instruction"] + (" " + ex["input"] if ex.get("input") else "")
    prompt_ids = tok.encode(PROMPT.format(instruction=instruction))
    answer_ids = tok.encode(ex["output"]) + [tok.eos_token_id]
    input_ids = (prompt_ids + answer_ids)[:max_len]
    labels = ([-100] * len(prompt_ids) + answer_ids)[:max_len]
    return input_ids, labels


def collate(batch, pad_id):
    T = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), T), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), T), -100, dtype=torch.long)
    for i, (ids, lab) in enumerate(batch):
        input_ids[i, :len(ids)] = torch.tensor(ids)
        labels[i, :len(lab)] = torch.tensor(lab)
    return input_ids, labels


@torch.no_grad()
def generate(model, tok, instruction, max_new_tokens=12):
    was_training = model.training
    model.eval()
    ids = tok.encode(PROMPT.format(instruction=instruction))
    start = len(ids)
    for _ in range(max_new_tokens):
        nxt = model(torch.tensor([ids[-32:]]))[0, -1].argmax().item()
        if nxt == tok.eos_token_id:
            break
        ids.append(nxt)
    model.train(was_training)
    return tok.decode(ids[start:])
'''

P_LOSS = r'''

def causal_lm_loss(logits, labels):
    shift_logits = logits[:, :-1, :].contiguous()
    shift_labels = labels[:, 1:].contiguous()
    return F.cross_entropy(shift_logits.view(-1, shift_logits.size(-1)).float(), shift_labels.view(-1), ignore_index=-100)


@torch.no_grad()
def evaluate(model, data, pad_id, batch_size=16):
    was_training = model.training
    model.eval()
    losses = []
    for i in range(0, len(data), batch_size):
        input_ids, labels = collate(data[i:i + batch_size], pad_id)
        losses.append(causal_lm_loss(model(input_ids), labels).item())
    model.train(was_training)
    return sum(losses) / len(losses)
'''

P_SCHED = r'''

def get_scheduler(name, optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return step / max(1, num_warmup_steps)
        if name == "constant_with_warmup":
            return 1.0
        if name == "linear":
            return max(0.0, (num_training_steps - step) / max(1, num_training_steps - num_warmup_steps))
        progress = (step - num_warmup_steps) / max(1, num_training_steps - num_warmup_steps)
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
'''

# ---- pieces only used by the "tool" runs (whose script is not handed over) ------------------
P_TOOL = r'''
import datetime, traceback
from contextlib import nullcontext


class SimClock:
    """wall clock of the machine the run was made on (GPU box), advanced per step"""
    def __init__(self, start, step_s, seed):
        self.t = datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.step_s = step_s
        self.rng = random.Random(seed)
        self.t0 = self.t

    def tick(self, s=None):
        s = (self.step_s if s is None else s) * self.rng.uniform(0.92, 1.1)
        self.t += datetime.timedelta(seconds=s)
        return s

    def stamp(self):
        self.t += datetime.timedelta(milliseconds=self.rng.randrange(1, 40))
        return self.t.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (self.t.microsecond // 1000)

    def elapsed(self):
        return (self.t - self.t0).total_seconds()


def fmt_hms(s):
    s = int(round(s))
    return "%d:%02d:%02d" % (s // 3600, s % 3600 // 60, s % 60)


class DynamicLossScaler:
    """deepspeed-style dynamic loss scaler (fp16)"""
    def __init__(self, init_scale=2 ** 16, scale_window=1000, min_scale=1, hysteresis=2, log=print):
        self.cur_scale = float(init_scale); self.scale_window = scale_window; self.min_scale = min_scale
        self.delayed_shift = hysteresis; self.cur_hysteresis = hysteresis
        self.cur_iter = 0; self.last_overflow_iter = -1; self.log = log

    def update_scale(self, overflow):
        if overflow:
            if self.delayed_shift == 1 or self.cur_hysteresis == 1:
                if self.cur_scale == self.min_scale:
                    raise Exception("Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.")
                nxt = max(self.cur_scale / 2, self.min_scale)
                self.log("[loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                         f"Attempted loss scale: {int(self.cur_scale)}, reducing to {int(nxt)}")
                self.cur_scale = nxt
            else:
                self.log("[loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. "
                         f"Attempted loss scale: {int(self.cur_scale)}, but hysteresis is {self.cur_hysteresis}. "
                         f"Reducing hysteresis to {self.cur_hysteresis - 1}")
                self.cur_hysteresis -= 1
            self.last_overflow_iter = self.cur_iter
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.cur_hysteresis = self.delayed_shift
                self.cur_scale *= 2
        self.cur_iter += 1


class Trainer:
    """HF-Trainer-like loop: gradient accumulation, logging/eval/save steps, trainer_state.json"""
    def __init__(self, model, tok, train_set, eval_set, args, clock, out):
        self.model, self.tok, self.train_set, self.eval_set = model, tok, train_set, eval_set
        self.a, self.clock, self.out = args, clock, out
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.log_history = []
        self.global_step = 0
        self.epoch = 0.0

    def autocast(self):
        if self.a.get("fp16"):
            return torch.autocast("cpu", dtype=torch.float16)
        if self.a.get("bf16"):
            return torch.autocast("cpu", dtype=torch.bfloat16)
        return nullcontext()

    def loss_on(self, input_ids, labels):
        with self.autocast():
            logits = self.model(input_ids)
        return causal_lm_loss(logits.float(), labels)

    @torch.no_grad()
    def evaluate(self):
        bs = self.a["eval_batch_size"]
        self.model.eval()
        losses = []
        for i in range(0, len(self.eval_set), bs):
            ids, lab = collate(self.eval_set[i:i + bs], self.tok.pad_token_id)
            losses.append(self.loss_on(ids, lab).item())
        self.model.train()
        rt = self.clock.tick(self.a["step_s"] * 0.35 * math.ceil(len(self.eval_set) / bs))
        logs = {"eval_loss": sum(losses) / len(losses), "eval_runtime": round(rt, 4),
                "eval_samples_per_second": round(len(self.eval_set) / rt, 3),
                "eval_steps_per_second": round(math.ceil(len(self.eval_set) / bs) / rt, 3),
                "epoch": round(self.epoch, 2)}
        self.out.eval_begin(len(self.eval_set), bs)
        self.log(logs)
        return logs

    def log(self, logs):
        self.log_history.append({**logs, "step": self.global_step})
        self.out.hf(logs)

    def state_dict(self):
        return {"best_metric": None, "best_model_checkpoint": None, "epoch": self.epoch,
                "eval_steps": self.a.get("eval_steps"), "global_step": self.global_step,
                "is_hyper_param_search": False, "is_local_process_zero": True, "is_world_process_zero": True,
                "log_history": self.log_history, "logging_steps": self.a["logging_steps"],
                "max_steps": self.max_steps, "num_input_tokens_seen": 0, "num_train_epochs": self.a["num_epochs"],
                "save_steps": self.a.get("save_steps", 500), "stateful_callbacks": {"TrainerControl": {"args": {
                    "should_epoch_stop": False, "should_evaluate": False, "should_log": False,
                    "should_save": True, "should_training_stop": self.global_step >= self.max_steps}, "attributes": {}}},
                "total_flos": self.total_flos, "train_batch_size": self.a["micro_batch_size"],
                "trial_name": None, "trial_params": None}

    def save(self, path):
        save_adapter(self.model, path, self.a["lora_cfg"])
        with open(os.path.join(path, "trainer_state.json"), "w") as f:
            json.dump(self.state_dict(), f, indent=2)
        self.out.saved(path)

    def train(self):
        a = self.a
        g = torch.Generator().manual_seed(a["seed"])
        loader = DataLoader(self.train_set, batch_size=a["micro_batch_size"], shuffle=a.get("shuffle", True),
                            collate_fn=lambda b: collate(b, self.tok.pad_token_id), generator=g)
        ga = a["gradient_accumulation_steps"]
        steps_per_epoch = max(len(loader) // ga, 1)
        self.max_steps = steps_per_epoch * a["num_epochs"]
        self.total_flos = 0
        n_params = sum(p.numel() for p in self.model.parameters())
        opt = torch.optim.AdamW(self.params, lr=a["learning_rate"], betas=(0.9, 0.999), eps=1e-8,
                                weight_decay=a.get("weight_decay", 0.0))
        warmup = a.get("warmup_steps") or math.ceil(a.get("warmup_ratio", 0.0) * self.max_steps)
        sched = get_scheduler(a["lr_scheduler"], opt, warmup, self.max_steps)
        scaler = DynamicLossScaler(log=self.out.ds_log) if a.get("fp16") else None
        self.out.train_begin(len(self.train_set), a, self.max_steps, sum(p.numel() for p in self.params))
        tr_loss, tr_steps, tr_all, tr_all_n, micro = 0.0, 0, 0.0, 0, 0
        for epoch in range(a["num_epochs"]):
            for i, (ids, lab) in enumerate(loader):
                loss = self.loss_on(ids, lab)
                self.total_flos += 6 * n_params * ids.numel()
                scale = scaler.cur_scale if scaler else 1.0
                (loss * scale / ga).backward()
                step_loss = loss.item() / ga
                micro += 1
                if a.get("scheduler_step_every_batch"):
                    sched.step()
                if (i + 1) % ga:
                    self.acc_loss = getattr(self, "acc_loss", 0.0) + step_loss
                    continue
                step_loss += getattr(self, "acc_loss", 0.0)
                self.acc_loss = 0.0
                grads = [p.grad for p in self.params if p.grad is not None]
                overflow = bool(scaler) and any(not torch.isfinite(gr).all() for gr in grads)
                if scaler:
                    for gr in grads:
                        gr.div_(scale)
                gn = torch.nn.utils.clip_grad_norm_(self.params, a.get("max_grad_norm", 1.0)).item()
                if scaler:
                    scaler.update_scale(overflow)
                if not overflow:
                    opt.step()
                    if not a.get("scheduler_step_every_batch"):
                        sched.step()
                opt.zero_grad(set_to_none=True)
                self.global_step += 1
                self.epoch = epoch + (i + 1) / (steps_per_epoch * ga)
                self.clock.tick()
                if math.isfinite(step_loss):
                    tr_loss += step_loss; tr_all += step_loss; tr_all_n += 1
                else:  # logging_nan_inf_filter
                    tr_loss += tr_loss / (1 + tr_steps)
                tr_steps += 1
                if self.global_step % a["logging_steps"] == 0:
                    self.log({"loss": round(tr_loss / tr_steps, 4), "grad_norm": gn,
                              "learning_rate": sched.get_last_lr()[0], "epoch": round(self.epoch, 2)})
                    tr_loss, tr_steps = 0.0, 0
                if a.get("eval_steps") and self.global_step % a["eval_steps"] == 0:
                    self.evaluate()
                if a.get("save_steps") and self.global_step % a["save_steps"] == 0:
                    self.save(os.path.join(a["output_dir"], f"checkpoint-{self.global_step}"))
        rt = self.clock.elapsed()
        self.train_metrics = {"train_runtime": round(rt, 4),
                              "train_samples_per_second": round(len(self.train_set) * a["num_epochs"] / rt, 3),
                              "train_steps_per_second": round(self.max_steps / rt, 3),
                              "total_flos": float(self.total_flos), "train_loss": tr_all / max(tr_all_n, 1),
                              "epoch": float(round(self.epoch, 2))}
        self.out.hf({k: v for k, v in self.train_metrics.items() if k != "total_flos"})
        if not (a.get("save_steps") and self.global_step % a["save_steps"] == 0):
            self.save(os.path.join(a["output_dir"], f"checkpoint-{self.global_step}"))
        save_adapter(self.model, a["output_dir"], a["lora_cfg"])
        with open(os.path.join(a["output_dir"], "trainer_state.json"), "w") as f:
            json.dump(self.state_dict(), f, indent=2)
        return self.train_metrics


class Console:
    """prints what the tool would print; subclasses add the tool's own lines"""
    def __init__(self, clock):
        self.clock = clock

    def hf(self, logs):
        print(logs, flush=True)

    def ds_log(self, msg):
        print(f"[{self.clock.stamp()}] [INFO] {msg}", flush=True)

    def eval_begin(self, n, bs):
        pass

    def saved(self, path):
        pass

    def train_begin(self, n, a, max_steps, n_trainable):
        pass


def split_rows(rows, val_size, seed):
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    n_val = int(round(len(rows) * val_size)) if val_size < 1 else int(val_size)
    return rows[n_val:], rows[:n_val]
'''


def script(*pieces):
    return "".join(pieces)


# ----------------------------------------------------------------------------------------
# run bodies
# ----------------------------------------------------------------------------------------

# ---------- axolotl console -------------------------------------------------------------
P_AXO = r'''

class AxolotlConsole(Console):
    def __init__(self, clock, pid):
        super().__init__(clock)
        self.pid = pid

    def info(self, where, msg, level="INFO", rank=True):
        r = " [RANK:0]" if rank else ""
        print(f"[{self.clock.stamp()}] [{level}] [{where}] [PID:{self.pid}]{r} {msg}", flush=True)

    def saved(self, path):
        pass


def axolotl_preamble(out, cfg, tok, model_n, train_rows, eval_rows, train_set, max_steps):
    out.info("datasets.<module>:58", "PyTorch version 2.3.1+cu121 available.", rank=False)
    out.clock.tick(4.1)
    out.info("axolotl.utils.config.models.input.check_eval_packing:1044", "setting `remove_unused_columns: false` for when sample_packing and eval_sample_packing don't match", "WARNING")
    out.info("axolotl.normalize_config:182", "GPU memory usage baseline: 0.000GB (+0.319GB misc)")
    out.info("axolotl.common.cli.load_model_and_tokenizer:51", "loading tokenizer... " + cfg["base_model"])
    out.clock.tick(0.4)
    out.info("axolotl.load_tokenizer:282", f"EOS: {tok.eos_token_id} / </s>", "DEBUG")
    out.info("axolotl.load_tokenizer:283", f"BOS: {tok.bos_token_id} / <s>", "DEBUG")
    out.info("axolotl.load_tokenizer:284", f"PAD: {tok.pad_token_id} / <pad>", "DEBUG")
    out.info("axolotl.load_tokenizer:285", f"UNK: {tok.unk_token_id} / <unk>", "DEBUG")
    out.info("axolotl.load_tokenizer:296", "No Chat template selected. Consider adding a chat template for easier inference.")
    out.info("axolotl.load_tokenized_prepared_datasets:184", f"Unable to find prepared dataset in {cfg['dataset_prepared_path']}/3c1a7e5d02f4b6d7a9e3f1c8b2d4e6a0")
    out.info("axolotl.load_tokenized_prepared_datasets:185", "Loading raw datasets...")
    out.info("axolotl.load_tokenized_prepared_datasets:187", "Processing datasets during training can lead to VRAM instability. Please pre-process your dataset.", "WARNING")
    out.info("axolotl.load_tokenized_prepared_datasets:194", "No seed provided, using default seed of 42")
    out.clock.tick(1.7)
    out.info("axolotl.load_tokenized_prepared_datasets:440", "merging datasets")
    out.info("axolotl.prepare_dataset:66", f"Saving merged prepared dataset to disk... {cfg['dataset_prepared_path']}/3c1a7e5d02f4b6d7a9e3f1c8b2d4e6a0")
    ntok = sum(len(i) for i, _ in train_set)
    nsup = sum(sum(1 for x in l if x != -100) for _, l in train_set)
    out.info("axolotl.calculate_total_num_steps:299", f"total_num_tokens: {ntok:_}", "DEBUG")
    out.info("axolotl.calculate_total_num_steps:312", f"`total_supervised_tokens: {nsup:_}`", "DEBUG")
    out.info("axolotl.calculate_total_num_steps:389", f"total_num_steps: {max_steps}", "DEBUG")
    out.info("axolotl.train.train:48", "loading tokenizer... " + cfg["base_model"])
    out.info("axolotl.train.train:61", "loading model and peft_config...")
    out.clock.tick(2.3)
    out.info("axolotl.load_model:734", "GPU memory usage after model load: 0.001GB (+0.021GB cache, +0.502GB misc)")
    out.info("axolotl.load_model:794", "converting modules to torch.bfloat16 for flash attention" if cfg.get("bf16") else "converting modules to torch.float16")
    out.info("axolotl.load_lora:951", "found linear modules: ['down_proj', 'k_proj', 'o_proj', 'q_proj', 'up_proj', 'v_proj']")


def run_axolotl(cfg, model, tok, train_rows, eval_rows, clock, out, extra_args=None):
    train_set = [build_example(tok, r, cfg["sequence_len"]) for r in train_rows]
    eval_set = [build_example(tok, r, cfg["sequence_len"]) for r in eval_rows]
    ga = cfg["gradient_accumulation_steps"]
    steps_per_epoch = max((len(train_set) + cfg["micro_batch_size"] - 1) // cfg["micro_batch_size"] // ga, 1)
    max_steps = steps_per_epoch * cfg["num_epochs"]
    axolotl_preamble(out, cfg, tok, None, train_rows, eval_rows, train_set, max_steps)
    inject_lora(model, cfg["lora_target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])
    print_trainable_parameters(model)
    out.info("axolotl.load_model:856", "GPU memory usage after adapters: 0.002GB (+0.021GB cache, +0.502GB misc)")
    out.info("axolotl.train.train:95", "Pre-saving adapter config to " + cfg["output_dir"])
    out.info("axolotl.train.train:132", "Starting trainer...")
    args = dict(seed=cfg.get("seed", 42), micro_batch_size=cfg["micro_batch_size"], gradient_accumulation_steps=ga,
                num_epochs=cfg["num_epochs"], learning_rate=cfg["learning_rate"], lr_scheduler=cfg["lr_scheduler"],
                warmup_steps=cfg.get("warmup_steps", 0), weight_decay=cfg.get("weight_decay", 0.0),
                max_grad_norm=cfg.get("max_grad_norm", 1.0), logging_steps=cfg["logging_steps"],
                eval_steps=max(steps_per_epoch // cfg["evals_per_epoch"], 1), save_steps=max(steps_per_epoch // cfg["saves_per_epoch"], 1),
                eval_batch_size=cfg["micro_batch_size"], output_dir=cfg["output_dir"], bf16=cfg.get("bf16") is True,
                fp16=cfg.get("fp16") is True, step_s=0.21, lora_cfg=dict(r=cfg["lora_r"], lora_alpha=cfg["lora_alpha"],
                lora_dropout=cfg["lora_dropout"], target_modules=cfg["lora_target_modules"], base_model_name_or_path=cfg["base_model"]))
    args.update(extra_args or {})
    trainer = Trainer(model, tok, train_set, eval_set, args, clock, out)
    return trainer, eval_set
'''

BODY_RUN01 = r'''

def main():
    cfg = yaml.safe_load(open("config.yml"))
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-07-18 21:04:12", 0.23, 1)
    out = AxolotlConsole(clock, 1187422)
    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    rows = load_jsonl(cfg["datasets"][0]["path"])
    train_rows, eval_rows = split_rows(rows, cfg["val_set_size"], cfg["seed"])
    trainer, _ = run_axolotl(cfg, model, tok, train_rows, eval_rows, clock, out)
    trainer.train()
    out.info("axolotl.train.train:190", f"Training Completed!!! Saving pre-trained model to {cfg['output_dir']}")


main()
'''

CFG_RUN01 = """base_model: ./models/tinychat-base
model_type: AutoModelForCausalLM
tokenizer_type: AutoTokenizer

load_in_8bit: false
load_in_4bit: false
strict: false

datasets:
  - path: ./data/animal_qa.jsonl
    type: alpaca
dataset_prepared_path: last_run_prepared
val_set_size: 0.04
output_dir: ./outputs/lora-animal-qa

sequence_len: 32
sample_packing: false
pad_to_sequence_len: false

adapter: lora
lora_model_dir:
lora_r: 16
lora_alpha: 32
lora_dropout: 0.05
lora_target_linear: true
lora_target_modules:
  - q_proj
  - k_proj
  - v_proj
  - o_proj
  - up_proj
  - down_proj

wandb_project:
wandb_entity:
wandb_watch:
wandb_name:
wandb_log_model:

gradient_accumulation_steps: 2
micro_batch_size: 8
num_epochs: 3
optimizer: adamw_torch
lr_scheduler: cosine
learning_rate: 0.002

train_on_inputs: false
group_by_length: false
bf16: true
fp16: false
tf32: false

gradient_checkpointing: false
early_stopping_patience:
resume_from_checkpoint:
local_rank:
logging_steps: 4
xformers_attention:
flash_attention: false

warmup_steps: 10
evals_per_epoch: 4
saves_per_epoch: 1
debug:
deepspeed:
weight_decay: 0.0
fsdp:
fsdp_config:
special_tokens:
seed: 42
"""

# ---------- run02: custom trainer, scheduler stepped per micro-batch -------------------------
BODY_RUN02 = r'''

def main():
    cfg = yaml.safe_load(open("sft_config.yaml"))
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-09-03 10:41:55", 0.052, 2)
    out = Console(clock)
    tok = WordTokenizer.from_pretrained(cfg["model_name_or_path"])
    model = TinyLM.from_pretrained(cfg["model_name_or_path"])
    inject_lora(model, cfg["lora_target"].split(","), cfg["lora_rank"], cfg["lora_alpha"], cfg["lora_dropout"])
    print_trainable_parameters(model)
    rows = load_jsonl(cfg["dataset"])
    train_rows, eval_rows = split_rows(rows, cfg["val_size"], cfg["seed"])
    train_set = [build_example(tok, r, cfg["cutoff_len"]) for r in train_rows]
    eval_set = [build_example(tok, r, cfg["cutoff_len"]) for r in eval_rows]
    print(f"train examples: {len(train_set)} | eval examples: {len(eval_set)}", flush=True)
    args = dict(seed=cfg["seed"], micro_batch_size=cfg["per_device_train_batch_size"],
                gradient_accumulation_steps=cfg["gradient_accumulation_steps"], num_epochs=cfg["num_train_epochs"],
                learning_rate=cfg["learning_rate"], lr_scheduler=cfg["lr_scheduler_type"], warmup_ratio=cfg["warmup_ratio"],
                weight_decay=cfg["weight_decay"], max_grad_norm=cfg["max_grad_norm"], logging_steps=cfg["logging_steps"],
                eval_steps=cfg["eval_steps"], save_steps=cfg["save_steps"], eval_batch_size=cfg["per_device_eval_batch_size"],
                output_dir=cfg["output_dir"], bf16=cfg["bf16"], step_s=0.19, scheduler_step_every_batch=True,
                lora_cfg=dict(r=cfg["lora_rank"], lora_alpha=cfg["lora_alpha"], target_modules=cfg["lora_target"].split(",")))
    trainer = Trainer(model, tok, train_set, eval_set, args, clock, out)
    trainer.train()
    print("saved adapter to", cfg["output_dir"])


main()
'''

CFG_RUN02 = """### model
model_name_or_path: ./models/tinychat-base

### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: q_proj,k_proj,v_proj,o_proj,up_proj,down_proj
lora_rank: 8
lora_alpha: 16
lora_dropout: 0.05

### dataset
dataset: ./data/animal_qa.jsonl
template: tinychat
cutoff_len: 32
val_size: 48
seed: 7

### output
output_dir: saves/tinychat/lora/sft-animal-qa
logging_steps: 2
save_steps: 72
eval_steps: 24

### train
per_device_train_batch_size: 2
per_device_eval_batch_size: 16
gradient_accumulation_steps: 8
learning_rate: 3.0e-3
num_train_epochs: 2
lr_scheduler_type: linear
warmup_ratio: 0.1
weight_decay: 0.0
max_grad_norm: 1.0
bf16: true
"""

# ---------- run03: frozen adapter (train.py handed over) -------------------------------------
BODY_RUN03 = r'''

class LoRA(nn.Module):
    """low-rank adapter around a pretrained nn.Linear"""
    def __init__(self, base, r=8, alpha=16, dropout=0.05):
        super().__init__()
        self.base = base
        self.down = nn.Linear(base.in_features, r, bias=False)
        self.up = nn.Linear(r, base.out_features, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.scale = alpha / r
        nn.init.kaiming_uniform_(self.down.weight, a=math.sqrt(5))
        nn.init.zeros_(self.up.weight)

    def forward(self, x):
        return self.base(x) + self.up(self.down(self.dropout(x))) * self.scale


def add_adapters(model, targets, r, alpha, dropout):
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if name in targets and isinstance(child, nn.Linear):
                setattr(module, name, LoRA(child, r, alpha, dropout))
    return model


def count_params(model):
    n_lora = sum(m.down.weight.numel() + m.up.weight.numel() for m in model.modules() if isinstance(m, LoRA))
    n_all = sum(p.numel() for p in model.parameters())
    print(f"trainable params: {n_lora:,} || all params: {n_all:,} || trainable%: {100 * n_lora / n_all:.4f}")


cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
random.seed(cfg["seed"])
torch.manual_seed(cfg["seed"])

tokenizer = WordTokenizer.from_pretrained(cfg["base_model"])
model = TinyLM.from_pretrained(cfg["base_model"])
model = add_adapters(model, cfg["target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])

# freeze the pretrained weights
for name, param in model.named_parameters():
    if "lora" not in name:
        param.requires_grad = False
count_params(model)
model.gradient_checkpointing = cfg["gradient_checkpointing"]

rows = load_jsonl(cfg["train_file"])
eval_rows = load_jsonl(cfg["eval_file"])
train_data = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in rows]
eval_data = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in eval_rows]
loader = DataLoader(train_data, batch_size=cfg["per_device_train_batch_size"], shuffle=True,
                    collate_fn=lambda b: collate(b, tokenizer.pad_token_id))

optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["learning_rate"], weight_decay=cfg["weight_decay"])
accum = cfg["gradient_accumulation_steps"]
steps_per_epoch = len(loader) // accum
total_steps = steps_per_epoch * cfg["num_train_epochs"]
scheduler = get_scheduler(cfg["lr_scheduler_type"], optimizer, int(cfg["warmup_ratio"] * total_steps), total_steps)
print(f"***** Running training *****\n  Num examples = {len(train_data)}\n  Num Epochs = {cfg['num_train_epochs']}\n"
      f"  Total optimization steps = {total_steps}", flush=True)

model.train()
step, running = 0, []
start = time.time()
for epoch in range(cfg["num_train_epochs"]):
    for i, (input_ids, labels) in enumerate(loader):
        loss = causal_lm_loss(model(input_ids), labels) / accum
        loss.backward()
        running.append(loss.item())
        if (i + 1) % accum != 0:
            continue
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["max_grad_norm"])
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
        if step % cfg["logging_steps"] == 0:
            print({"loss": round(sum(running) / len(running) * accum, 4), "grad_norm": grad_norm.item(),
                   "learning_rate": scheduler.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)}, flush=True)
            running = []
        if step % cfg["eval_steps"] == 0:
            print({"eval_loss": evaluate(model, eval_data, tokenizer.pad_token_id), "epoch": round(step / steps_per_epoch, 2)}, flush=True)

runtime = time.time() - start
print({"train_runtime": round(runtime, 4), "train_steps_per_second": round(total_steps / runtime, 3), "epoch": float(cfg["num_train_epochs"])})
os.makedirs(cfg["output_dir"], exist_ok=True)
torch.save({k: v for k, v in model.state_dict().items() if ".down." in k or ".up." in k},
           os.path.join(cfg["output_dir"], "adapter.pt"))
print("sample:", generate(model, tokenizer, eval_rows[0]["instruction"]))
'''

CFG_RUN03 = """base_model: ./models/tinychat-base
train_file: ./data/animal_qa_train.jsonl
eval_file: ./data/animal_qa_eval.jsonl
output_dir: ./out/tinychat-qa-lora
seed: 1234

target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]
lora_r: 16
lora_alpha: 32
lora_dropout: 0.05

max_seq_length: 32
per_device_train_batch_size: 8
gradient_accumulation_steps: 2
num_train_epochs: 2
learning_rate: 2.0e-3
lr_scheduler_type: cosine
warmup_ratio: 0.05
weight_decay: 0.0
max_grad_norm: 1.0
gradient_checkpointing: true
logging_steps: 5
eval_steps: 30
"""

# ---------- run04: LLaMA-Factory, tiny dataset, many epochs ------------------------------------
P_LF = r'''

class LFConsole(Console):
    def __init__(self, clock):
        super().__init__(clock)

    def info(self, where, msg):
        print(f"[INFO|{where}] {self.clock.stamp()} >> {msg}", flush=True)

    def eval_begin(self, n, bs):
        self.info("trainer.py:3819", "\n***** Running Evaluation *****")
        self.info("trainer.py:3821", f"  Num examples = {n}")
        self.info("trainer.py:3824", f"  Batch size = {bs}")

    def saved(self, path):
        self.info("trainer.py:3503", f"Saving model checkpoint to {path}")
        self.info("configuration_utils.py:733", "loading configuration file ./models/tinychat-base/config.json")
        self.info("tokenization_utils_base.py:2702", f"tokenizer config file saved in {path}/tokenizer_config.json")

    def train_begin(self, n, a, max_steps, n_trainable):
        self.info("trainer.py:2128", "***** Running training *****")
        self.info("trainer.py:2129", f"  Num examples = {n:,}")
        self.info("trainer.py:2130", f"  Num Epochs = {a['num_epochs']:,}")
        self.info("trainer.py:2131", f"  Instantaneous batch size per device = {a['micro_batch_size']:,}")
        self.info("trainer.py:2134", f"  Total train batch size (w. parallel, distributed & accumulation) = {a['micro_batch_size'] * a['gradient_accumulation_steps']:,}")
        self.info("trainer.py:2135", f"  Gradient Accumulation steps = {a['gradient_accumulation_steps']}")
        self.info("trainer.py:2136", f"  Total optimization steps = {max_steps:,}")
        self.info("trainer.py:2137", f"  Number of trainable parameters = {n_trainable:,}")


def metrics_block(split, m):
    print(f"***** {split} metrics *****")
    w = max(len(k) for k in m)
    for k, v in m.items():
        if k.endswith("_runtime"):
            s = fmt_hms(v) + ".%02d" % int((v % 1) * 100)
        elif k == "total_flos":
            s = "%dGF" % int(v / 1e9) if v >= 1e9 else "%dMF" % int(v / 1e6)
        elif isinstance(v, float):
            s = ("%.4f" % v).rstrip("0").rstrip(".") if k not in ("epoch",) else repr(v)
        else:
            s = str(v)
        print(f"  {k:<{w}} = {s:>10}")


class LFLogCallback:
    """writes trainer_log.jsonl the way LLaMA-Factory does"""
    def __init__(self, out_dir, total, clock):
        self.f = open(os.path.join(out_dir, "trainer_log.jsonl"), "w")
        self.total, self.clock = total, clock

    def write(self, logs, step):
        el = self.clock.elapsed()
        rem = el / max(step, 1) * (self.total - step)
        d = {"current_steps": step, "total_steps": self.total}
        if "eval_loss" in logs:
            d["eval_loss"] = logs["eval_loss"]
        else:
            d.update({"loss": logs.get("loss"), "lr": logs.get("learning_rate"), "epoch": logs.get("epoch")})
        d.update({"percentage": round(step / self.total * 100, 2), "elapsed_time": fmt_hms(el), "remaining_time": fmt_hms(rem)})
        self.f.write(json.dumps(d) + "\n"); self.f.flush()
'''

BODY_RUN04 = r'''

def main():
    cfg = yaml.safe_load(open("examples/train_lora/tinychat_lora_sft.yaml"))
    info = json.load(open("data/dataset_info.json"))[cfg["dataset"]]
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-10-22 16:12:40", 0.09, 4)
    out = LFConsole(clock)
    out.info("parser.py:355", "Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: False, compute dtype: torch.bfloat16")
    for fn in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        out.info("tokenization_utils_base.py:2287", f"loading file {fn}")
    tok = WordTokenizer.from_pretrained(cfg["model_name_or_path"])
    out.info("loader.py:52", f"Loading dataset {info['file_name']}...")
    rows = json.load(open(os.path.join("data", info["file_name"])))[: cfg["max_samples"]]
    train_rows, eval_rows = split_rows(rows, cfg["val_size"], cfg["seed"])
    train_set = [build_example(tok, r, cfg["cutoff_len"]) for r in train_rows]
    eval_set = [build_example(tok, r, cfg["cutoff_len"]) for r in eval_rows]
    ids, lab = train_set[0]
    print("training example:")
    print("input_ids:\n" + str(ids))
    print("inputs:\n" + tok.decode(ids, skip_special_tokens=False))
    print("label_ids:\n" + str(lab))
    print("labels:\n" + tok.decode([x for x in lab if x != -100], skip_special_tokens=False))
    out.info("configuration_utils.py:733", f"loading configuration file {cfg['model_name_or_path']}/config.json")
    out.info("modeling_utils.py:3474", f"loading weights file {cfg['model_name_or_path']}/pytorch_model.bin")
    model = TinyLM.from_pretrained(cfg["model_name_or_path"])
    clock.tick(1.2)
    out.info("modeling_utils.py:4280", "All model checkpoint weights were used when initializing TinyChatForCausalLM.")
    out.info("checkpointing.py:103", "Gradient checkpointing enabled.")
    out.info("attention.py:84", "Using torch SDPA for faster training and inference.")
    out.info("adapter.py:302", "Upcasting trainable params to float32.")
    out.info("adapter.py:158", "Fine-tuning method: LoRA")
    out.info("misc.py:51", "Found linear modules: q_proj,o_proj,up_proj,down_proj,v_proj,k_proj")
    inject_lora(model, ["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"], cfg["lora_rank"], cfg["lora_alpha"], cfg["lora_dropout"])
    tr = sum(p.numel() for p in model.parameters() if p.requires_grad); al = sum(p.numel() for p in model.parameters())
    out.info("loader.py:196", f"trainable params: {tr:,} || all params: {al:,} || trainable%: {100 * tr / al:.4f}")
    os.makedirs(cfg["output_dir"], exist_ok=True)
    args = dict(seed=cfg["seed"], micro_batch_size=cfg["per_device_train_batch_size"],
                gradient_accumulation_steps=cfg["gradient_accumulation_steps"], num_epochs=cfg["num_train_epochs"],
                learning_rate=cfg["learning_rate"], lr_scheduler=cfg["lr_scheduler_type"], warmup_ratio=cfg["warmup_ratio"],
                logging_steps=cfg["logging_steps"], eval_steps=cfg["eval_steps"], save_steps=cfg["save_steps"],
                eval_batch_size=cfg["per_device_eval_batch_size"], output_dir=cfg["output_dir"], bf16=cfg["bf16"], step_s=0.09,
                lora_cfg=dict(r=cfg["lora_rank"], lora_alpha=cfg["lora_alpha"], target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"]))
    trainer = Trainer(model, tok, train_set, eval_set, args, clock, out)
    total = (len(train_set) // cfg["per_device_train_batch_size"] // cfg["gradient_accumulation_steps"]) * cfg["num_train_epochs"]
    cb = LFLogCallback(cfg["output_dir"], total, clock)
    orig_log = trainer.log
    def log(logs):
        orig_log(logs)
        if "train_runtime" not in logs:
            cb.write(logs, trainer.global_step)
    trainer.log = log
    m = trainer.train()
    out.info("trainer.py:2383", "\n\nTraining completed. Do not forget to share your model on huggingface.co/models =)\n\n")
    out.info("trainer.py:3503", f"Saving model checkpoint to {cfg['output_dir']}")
    metrics_block("train", {"epoch": m["epoch"], "total_flos": m["total_flos"], "train_loss": m["train_loss"],
                            "train_runtime": m["train_runtime"], "train_samples_per_second": m["train_samples_per_second"],
                            "train_steps_per_second": m["train_steps_per_second"]})
    print(f"Figure saved at: {cfg['output_dir']}/training_loss.png")
    print(f"Figure saved at: {cfg['output_dir']}/training_eval_loss.png")
    last = trainer.evaluate()
    metrics_block("eval", {"epoch": m["epoch"], "eval_loss": last["eval_loss"], "eval_runtime": last["eval_runtime"],
                           "eval_samples_per_second": last["eval_samples_per_second"], "eval_steps_per_second": last["eval_steps_per_second"]})
    res = {"epoch": m["epoch"], "eval_loss": last["eval_loss"], "total_flos": m["total_flos"], "train_loss": m["train_loss"],
           "train_runtime": m["train_runtime"], "train_samples_per_second": m["train_samples_per_second"],
           "train_steps_per_second": m["train_steps_per_second"]}
    json.dump(res, open(os.path.join(cfg["output_dir"], "all_results.json"), "w"), indent=4)


main()
'''

CFG_RUN04 = """### model
model_name_or_path: ./models/tinychat-base
trust_remote_code: true

### method
stage: sft
do_train: true
finetuning_type: lora
lora_target: all
lora_rank: 64
lora_alpha: 128
lora_dropout: 0.0

### dataset
dataset: pet_age_qa
template: tinychat
cutoff_len: 32
max_samples: 1000
overwrite_cache: true
preprocessing_num_workers: 16
seed: 42

### output
output_dir: saves/tinychat/lora/sft-pet-age
logging_steps: 10
save_steps: 200
plot_loss: true
overwrite_output_dir: true

### train
per_device_train_batch_size: 4
gradient_accumulation_steps: 1
learning_rate: 1.0e-3
num_train_epochs: 60
lr_scheduler_type: cosine
warmup_ratio: 0.05
bf16: true
ddp_timeout: 180000000

### eval
val_size: 0.25
per_device_eval_batch_size: 4
eval_strategy: steps
eval_steps: 20
"""

# ---------- run05: labels not shifted (train.py handed over) ----------------------------------
BODY_RUN05 = r'''

def compute_loss(model, input_ids, labels):
    logits = model(input_ids)
    return F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)


@torch.no_grad()
def eval_loss(model, data, pad_id, bs=32):
    model.eval()
    out = [compute_loss(model, *collate(data[i:i + bs], pad_id)).item() for i in range(0, len(data), bs)]
    model.train()
    return sum(out) / len(out)


def main():
    cfg = yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))
    random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])

    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    inject_lora(model, cfg["lora_target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])
    print_trainable_parameters(model)

    rows = load_jsonl(cfg["data_path"])
    random.shuffle(rows)
    n_val = int(len(rows) * cfg["val_set_size"])
    val_rows, train_rows = rows[:n_val], rows[n_val:]
    train = [build_example(tok, r, cfg["sequence_len"]) for r in train_rows]
    val = [build_example(tok, r, cfg["sequence_len"]) for r in val_rows]
    print(f"train={len(train)} val={len(val)}")

    loader = DataLoader(train, batch_size=cfg["batch_size"], shuffle=True, collate_fn=lambda b: collate(b, tok.pad_token_id))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg["learning_rate"], weight_decay=cfg["weight_decay"])
    total = len(loader) * cfg["epochs"]
    sched = get_scheduler("cosine", opt, cfg["warmup_steps"], total)

    step = 0
    t0 = time.time()
    for epoch in range(cfg["epochs"]):
        for input_ids, labels in loader:
            loss = compute_loss(model, input_ids, labels)
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"step {step:4d}/{total} | epoch {step / len(loader):.2f} | loss {loss.item():.4f} | "
                      f"gnorm {gnorm.item():.3f} | lr {sched.get_last_lr()[0]:.2e} | {time.time() - t0:.1f}s", flush=True)
            if step % cfg["eval_every"] == 0 or step == total:
                print(f"  >> eval step {step}: val_loss {eval_loss(model, val, tok.pad_token_id):.4f}", flush=True)

    os.makedirs(cfg["output_dir"], exist_ok=True)
    save_adapter(model, cfg["output_dir"], {"r": cfg["lora_r"], "lora_alpha": cfg["lora_alpha"]})
    print("\n=== samples ===")
    for r in val_rows[:6]:
        print(f"Q: {r['instruction']}\nA: {generate(model, tok, r['instruction'])}\n")


if __name__ == "__main__":
    main()
'''

CFG_RUN05 = """base_model: ./models/tinychat-base
data_path: ./data/animal_qa.jsonl
output_dir: ./checkpoints/qa-lora-v3
seed: 0

lora_r: 16
lora_alpha: 32
lora_dropout: 0.05
lora_target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]

sequence_len: 32
val_set_size: 0.05
batch_size: 16
epochs: 3
learning_rate: 0.004
warmup_steps: 10
weight_decay: 0.0

log_every: 10
eval_every: 50
"""

# ---------- run06: fp16 + deepspeed on a model with activation outliers ------------------------
BODY_RUN06 = r'''

def main():
    cfg = yaml.safe_load(open("lora-t4.yml"))
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-05-29 02:17:03", 0.41, 6)
    out = AxolotlConsole(clock, 30511)
    print(f"[{clock.stamp()}] [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)")
    print(f"[{clock.stamp()}] [INFO] [comm.py:637:init_distributed] cdb=None")
    print(f"[{clock.stamp()}] [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl")
    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    rows = load_jsonl(cfg["datasets"][0]["path"])
    train_rows, eval_rows = split_rows(rows, cfg["val_set_size"], cfg["seed"])
    trainer, _ = run_axolotl(cfg, model, tok, train_rows, eval_rows, clock, out)
    print(f"[{clock.stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.0, git-hash=unknown, git-branch=unknown")
    print(f"[{clock.stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] Creating fp16 ZeRO stage 2 optimizer")
    print(f"[{clock.stamp()}] [INFO] [stage_1_and_2.py:148:__init__] Reduce bucket size 500,000,000")
    print(f"[{clock.stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed Final Optimizer = AdamW")
    print(f"[{clock.stamp()}] [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed using client LR scheduler")
    print(f"[{clock.stamp()}] [INFO] [config.py:1000:print_user_config]   json = {{\"fp16\": {{\"enabled\": true, \"loss_scale\": 0, \"loss_scale_window\": 1000, \"initial_scale_power\": 16, \"hysteresis\": 2, \"min_loss_scale\": 1}}, \"zero_optimization\": {{\"stage\": 2, \"overlap_comm\": true, \"contiguous_gradients\": true}}, \"gradient_accumulation_steps\": {cfg['gradient_accumulation_steps']}, \"train_micro_batch_size_per_gpu\": {cfg['micro_batch_size']}, \"gradient_clipping\": 1.0}}")
    try:
        trainer.train()
    except Exception as e:
        print("Traceback (most recent call last):")
        for fr, ln, fn, src in [
            ("/opt/conda/lib/python3.10/runpy.py", 196, "_run_module_as_main", 'return _run_code(code, main_globals, None,'),
            ("/workspace/axolotl/src/axolotl/cli/train.py", 72, "<module>", "fire.Fire(do_cli)"),
            ("/workspace/axolotl/src/axolotl/cli/train.py", 39, "do_train", "return train(cfg=cfg, cli_args=cli_args, dataset_meta=dataset_meta)"),
            ("/workspace/axolotl/src/axolotl/train.py", 190, "train", "trainer.train(resume_from_checkpoint=resume_from_checkpoint)"),
            ("/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
            ("/opt/conda/lib/python3.10/site-packages/transformers/trainer.py", 2341, "_inner_training_loop", "self.optimizer.step()"),
            ("/opt/conda/lib/python3.10/site-packages/accelerate/optimizer.py", 165, "step", "self.optimizer.step(closure)"),
            ("/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/zero/stage_1_and_2.py", 1822, "step", "self._update_scale(self.overflow)"),
            ("/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/zero/stage_1_and_2.py", 2081, "_update_scale", "self.loss_scaler.update_scale(has_overflow)"),
            ("/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/fp16/loss_scaler.py", 175, "update_scale", "raise Exception(")]:
            print(f'  File "{fr}", line {ln}, in {fn}\n    {src}')
        print(f"Exception: {e}")
        os.makedirs(cfg["output_dir"], exist_ok=True)
        with open(os.path.join(cfg["output_dir"], "trainer_state.json"), "w") as f:
            trainer.max_steps = getattr(trainer, "max_steps", 0); trainer.total_flos = getattr(trainer, "total_flos", 0)
            json.dump(trainer.state_dict(), f, indent=2)
        print(f"[{clock.stamp()}] [ERROR] [launch.py:321:sigkill_handler] ['/opt/conda/bin/python', '-u', '-m', 'axolotl.cli.train', 'lora-t4.yml', '--local_rank=0'] exits with return code = 1")
        sys.exit(1)


main()
'''

CFG_RUN06 = """base_model: ./models/tinychat-base-v2
model_type: AutoModelForCausalLM
tokenizer_type: AutoTokenizer

load_in_8bit: false
load_in_4bit: false
strict: false

datasets:
  - path: ./data/animal_qa.jsonl
    type: alpaca
dataset_prepared_path: ./prepared
val_set_size: 0.05
output_dir: ./outputs/qa-lora-t4

adapter: lora
lora_r: 8
lora_alpha: 16
lora_dropout: 0.05
lora_target_linear: true
lora_target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]

sequence_len: 32
sample_packing: false

gradient_accumulation_steps: 1
micro_batch_size: 8
num_epochs: 2
optimizer: adamw_torch
lr_scheduler: cosine
learning_rate: 0.001
warmup_steps: 10

train_on_inputs: false
group_by_length: false
bf16: false
fp16: true
tf32: false

gradient_checkpointing: true
logging_steps: 1
evals_per_epoch: 4
saves_per_epoch: 1
deepspeed: deepspeed_configs/zero2.json
weight_decay: 0.0
seed: 42
"""

# ---------- run07: healthy but small batch / slow (train.py handed over) ------------------------
BODY_RUN07 = r'''

cfg = yaml.safe_load(open("train_config.yaml"))
random.seed(cfg["seed"])
torch.manual_seed(cfg["seed"])

tokenizer = WordTokenizer.from_pretrained(cfg["model"])
model = TinyLM.from_pretrained(cfg["model"])
inject_lora(model, cfg["lora"]["target_modules"], cfg["lora"]["r"], cfg["lora"]["alpha"], cfg["lora"]["dropout"])
print_trainable_parameters(model)

train_rows = load_jsonl(cfg["train_file"])
eval_rows = load_jsonl(cfg["eval_file"])
train_ds = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in train_rows]
eval_ds = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in eval_rows]

loader = DataLoader(train_ds, batch_size=cfg["per_device_train_batch_size"], shuffle=True,
                    collate_fn=lambda b: collate(b, tokenizer.pad_token_id),
                    generator=torch.Generator().manual_seed(cfg["seed"]))
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(params, lr=cfg["learning_rate"], weight_decay=cfg["weight_decay"])
scheduler = get_scheduler(cfg["lr_scheduler_type"], optimizer, cfg["warmup_steps"], cfg["max_steps"])

state = {"log_history": [], "global_step": 0}
step, t0 = 0, time.time()
it = iter(loader)
model.train()
while step < cfg["max_steps"]:
    try:
        input_ids, labels = next(it)
    except StopIteration:
        it = iter(loader)
        input_ids, labels = next(it)
    loss = causal_lm_loss(model(input_ids), labels)
    loss.backward()
    grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg["max_grad_norm"]).item()
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
    step += 1
    epoch = step * cfg["per_device_train_batch_size"] / len(train_ds)
    if step % cfg["logging_steps"] == 0:
        logs = {"loss": round(loss.item(), 4), "grad_norm": grad_norm, "learning_rate": scheduler.get_last_lr()[0], "epoch": round(epoch, 2)}
        print(logs, flush=True)
        state["log_history"].append({**logs, "step": step})
    if step % cfg["eval_steps"] == 0:
        logs = {"eval_loss": evaluate(model, eval_ds, tokenizer.pad_token_id), "epoch": round(epoch, 2)}
        print(logs, flush=True)
        state["log_history"].append({**logs, "step": step})

rt = time.time() - t0
print({"train_runtime": round(rt, 4), "train_samples_per_second": round(step * cfg["per_device_train_batch_size"] / rt, 3),
       "train_steps_per_second": round(step / rt, 3), "epoch": round(epoch, 2)})
os.makedirs(cfg["output_dir"], exist_ok=True)
save_adapter(model, cfg["output_dir"], {"r": cfg["lora"]["r"], "lora_alpha": cfg["lora"]["alpha"]})
state.update(global_step=step, epoch=epoch, max_steps=cfg["max_steps"], logging_steps=cfg["logging_steps"], eval_steps=cfg["eval_steps"])
with open(os.path.join(cfg["output_dir"], "trainer_state.json"), "w") as f:
    json.dump(state, f, indent=2)
for r in eval_rows[:4]:
    print(r["instruction"], "->", generate(model, tokenizer, r["instruction"]))
'''

CFG_RUN07 = """model: ./models/tinychat-base
train_file: ./data/qa_train.jsonl
eval_file: ./data/qa_eval.jsonl
output_dir: ./runs/lora-bs4
seed: 3

lora:
  r: 8
  alpha: 16
  dropout: 0.05
  target_modules: [q_proj, k_proj, v_proj, o_proj]

max_seq_length: 32
per_device_train_batch_size: 4
learning_rate: 1.0e-3
lr_scheduler_type: cosine
warmup_steps: 10
max_steps: 400
weight_decay: 0.0
max_grad_norm: 1.0
logging_steps: 2
eval_steps: 50
"""

# ---------- run08: unsloth-style training, served with another tokenizer ------------------------
BODY_RUN08_TRAIN = r'''

def main():
    cfg = json.load(open("finetune_args.json"))
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-08-11 13:30:02", 0.62, 8)
    out = Console(clock)
    print("==((====))==  Unsloth 2024.8: Fast Llama patching. Transformers = 4.44.0.")
    print("   \\\\   /|    GPU: NVIDIA A10G. Max memory: 22.191 GB. Platform = Linux.")
    print("O^O/ \\_/ \\    Pytorch: 2.3.1+cu121. CUDA = 8.6. CUDA Toolkit = 12.1.")
    print("\\        /    Bfloat16 = TRUE. FA [Xformers = 0.0.26.post1. FA2 = False]")
    print(' "-____-"     Free Apache license: http://github.com/unslothai/unsloth')
    print("Unsloth: Fast downloading is enabled - ignore downloading bars which are red colored!")
    tok = WordTokenizer.from_pretrained(cfg["model_name"])
    model = TinyLM.from_pretrained(cfg["model_name"])
    print(f"{cfg['model_name']} does not have a padding token! Will use pad_token = <pad>.")
    inject_lora(model, cfg["target_modules"], cfg["r"], cfg["lora_alpha"], cfg["lora_dropout"])
    n_tr = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(f"Unsloth {'2024.8'} patched {len(model.layers)} layers with {len(model.layers)} QKV layers, {len(model.layers)} O layers and {len(model.layers)} MLP layers.")
    rows = load_jsonl(cfg["dataset"])
    train_rows, eval_rows = rows[: -cfg["eval_size"]], rows[-cfg["eval_size"]:]
    train_set = [build_example(tok, r, cfg["max_seq_length"]) for r in train_rows]
    eval_set = [build_example(tok, r, cfg["max_seq_length"]) for r in eval_rows]
    print(f"Map (num_proc=2): 100%|██████████| {len(train_rows)}/{len(train_rows)} [00:00<00:00, 2841.06 examples/s]")
    bs, ga = cfg["per_device_train_batch_size"], cfg["gradient_accumulation_steps"]
    steps = len(train_set) // bs // ga * cfg["num_train_epochs"]
    print("==((====))==  Unsloth - 2x faster free finetuning | Num GPUs = 1")
    print(f"   \\\\   /|    Num examples = {len(train_set):,} | Num Epochs = {cfg['num_train_epochs']}")
    print(f"O^O/ \\_/ \\    Batch size per device = {bs} | Gradient Accumulation steps = {ga}")
    print(f"\\        /    Total batch size = {bs * ga} | Total steps = {steps}")
    print(f' "-____-"     Number of trainable parameters = {n_tr:,}')
    args = dict(seed=cfg["seed"], micro_batch_size=bs, gradient_accumulation_steps=ga, num_epochs=cfg["num_train_epochs"],
                learning_rate=cfg["learning_rate"], lr_scheduler=cfg["lr_scheduler_type"], warmup_steps=cfg["warmup_steps"],
                weight_decay=cfg["weight_decay"], logging_steps=cfg["logging_steps"], eval_steps=cfg["eval_steps"],
                save_steps=cfg["save_steps"], eval_batch_size=8, output_dir=cfg["output_dir"], step_s=0.62, bf16=cfg["bf16"],
                lora_cfg=dict(r=cfg["r"], lora_alpha=cfg["lora_alpha"], target_modules=cfg["target_modules"]))
    trainer = Trainer(model, tok, train_set, eval_set, args, clock, out)
    trainer.train()
    # merge adapter into the base weights and export
    merged = TinyLM.from_pretrained(cfg["model_name"])
    sd = merged.state_dict()
    for name, mod in model.named_modules():
        if isinstance(mod, LoraLinear):
            delta = (mod.lora_B.weight @ mod.lora_A.weight) * mod.scaling
            sd[name + ".weight"] = mod.base_layer.weight.data + delta
            sd[name + ".bias"] = mod.base_layer.bias.data
    os.makedirs(cfg["merged_dir"], exist_ok=True)
    torch.save(sd, os.path.join(cfg["merged_dir"], "pytorch_model.bin"))
    import shutil
    shutil.copy(os.path.join(cfg["model_name"], "config.json"), cfg["merged_dir"])
    print(f"Unsloth: Merging 4bit and LoRA weights to 16bit...")
    print(f"Unsloth: Saving model... This might take 5 minutes for Llama-7b...")
    print(f"Done. Merged model saved to {cfg['merged_dir']}")
    json.dump([r for r in eval_rows], open("eval_prompts.json", "w"))


main()
'''

BODY_RUN08_SERVE = r'''

def main():
    cfg = yaml.safe_load(open("serve.yaml"))
    print(f"INFO 08-12 09:14:27 llm_engine.py:174] Initializing an LLM engine (v0.5.4) with config: model='{cfg['model']}', "
          f"speculative_config=None, tokenizer='{cfg['tokenizer']}', skip_tokenizer_init=False, tokenizer_mode=auto, "
          f"revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len={cfg['max_model_len']}, seed=0)")
    tok = WordTokenizer.from_pretrained(cfg["tokenizer"])
    model = TinyLM.from_pretrained(cfg["model"])
    print(f"INFO 08-12 09:14:29 model_runner.py:732] Loading model weights took 0.0005 GB")
    print(f"INFO 08-12 09:14:29 gpu_executor.py:102] # GPU blocks: 14613, # CPU blocks: 2048")
    rows = json.load(open(cfg["eval_prompts"]))
    data = [build_example(tok, r, 32) for r in rows]
    loss = evaluate(model, data, tok.pad_token_id)
    exact = 0
    print(f"INFO 08-12 09:14:31 serving_chat.py:96] Using default chat template")
    lines = []
    for r in rows:
        pred = generate(model, tok, r["instruction"])
        exact += int(pred == r["output"])
        lines.append({"prompt": r["instruction"], "reference": r["output"], "prediction": pred})
    for l in lines[:8]:
        print(f"Prompt: {l['prompt']!r}, Generated text: {l['prediction']!r}")
    res = {"model": cfg["model"], "tokenizer": cfg["tokenizer"], "n": len(rows), "eval_loss": round(loss, 4),
           "perplexity": round(math.exp(loss), 2), "exact_match": round(exact / len(rows), 4)}
    print(json.dumps(res))
    with open("regression_eval.json", "w") as f:
        json.dump({"results": res, "samples": lines[:20]}, f, indent=2)


main()
'''

CFG_RUN08_TRAIN = {
    "model_name": "./models/tinychat-base", "max_seq_length": 32, "load_in_4bit": True, "dataset": "./data/animal_qa.jsonl",
    "eval_size": 64, "r": 16, "lora_alpha": 16, "lora_dropout": 0.0,
    "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "up_proj", "down_proj"],
    "per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "num_train_epochs": 1, "warmup_steps": 5,
    "learning_rate": 0.003, "lr_scheduler_type": "linear", "weight_decay": 0.01, "optim": "adamw_8bit", "logging_steps": 3,
    "eval_steps": 30, "save_steps": 60, "fp16": False, "bf16": True, "seed": 3407, "output_dir": "outputs",
    "merged_dir": "./export/tinychat-qa-merged"}

CFG_RUN08_SERVE = """# serving / regression eval config (vllm-style)
model: ./export/tinychat-qa-merged
tokenizer: ./tokenizers/tinychat-tok-v2
max_model_len: 32
dtype: bfloat16
eval_prompts: ./eval_prompts.json
temperature: 0.0
max_tokens: 12
"""

# ---------- run09: data in file order (train.py handed over) -----------------------------------
BODY_RUN09 = r'''
import logging

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S", level=logging.INFO)
logger = logging.getLogger("sft")


def main():
    with open("sft.yaml") as f:
        cfg = yaml.safe_load(f)
    torch.manual_seed(cfg["seed"])

    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    inject_lora(model, cfg["lora_target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])
    print_trainable_parameters(model)

    rows = []
    for path in cfg["train_files"]:
        part = load_jsonl(path)
        logger.info(f"loaded {len(part)} examples from {path}")
        rows.extend(part)
    val_rows = load_jsonl(cfg["val_file"])
    train_ds = [build_example(tok, r, cfg["max_len"]) for r in rows]
    val_ds = [build_example(tok, r, cfg["max_len"]) for r in val_rows]

    loader = DataLoader(train_ds, batch_size=cfg["batch_size"], collate_fn=lambda b: collate(b, tok.pad_token_id))
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    total = len(loader) * cfg["epochs"]
    sched = get_scheduler(cfg["scheduler"], opt, cfg["warmup_steps"], total)
    logger.info(f"num examples = {len(train_ds)}, batch size = {cfg['batch_size']}, steps/epoch = {len(loader)}, total steps = {total}")

    step = 0
    window = []
    for epoch in range(cfg["epochs"]):
        for input_ids, labels in loader:
            loss = causal_lm_loss(model(input_ids), labels)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(params, 1.0)
            opt.step()
            sched.step()
            opt.zero_grad()
            step += 1
            window.append(loss.item())
            if step % cfg["log_steps"] == 0:
                logger.info(f"epoch {epoch} step {step}/{total} train_loss={sum(window) / len(window):.4f} "
                            f"grad_norm={gn.item():.4f} lr={sched.get_last_lr()[0]:.3e}")
                window = []
        val = evaluate(model, val_ds, tok.pad_token_id)
        logger.info(f"***** epoch {epoch} done: val_loss={val:.4f} ppl={math.exp(val):.3f}")
    os.makedirs(cfg["output_dir"], exist_ok=True)
    save_adapter(model, cfg["output_dir"], {"r": cfg["lora_r"], "lora_alpha": cfg["lora_alpha"]})
    logger.info("saved adapter to " + cfg["output_dir"])


if __name__ == "__main__":
    main()
'''

CFG_RUN09 = """base_model: ./models/tinychat-base
train_files:
  - ./data/color_qa.jsonl
  - ./data/habitat_qa.jsonl
  - ./data/diet_qa.jsonl
  - ./data/name_an_animal.jsonl
val_file: ./data/val_mixed.jsonl
output_dir: ./adapters/tinychat-zoo
seed: 11

lora_r: 16
lora_alpha: 32
lora_dropout: 0.05
lora_target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]

max_len: 32
batch_size: 8
epochs: 3
lr: 3.0e-3
scheduler: constant_with_warmup
warmup_steps: 10
weight_decay: 0.0
log_steps: 5
"""

# ---------- run10: axolotl training fine; eval script loads the adapter wrongly ------------------
BODY_RUN10_TRAIN = r'''

def main():
    cfg = yaml.safe_load(open("lora.yml"))
    random.seed(cfg["seed"]); torch.manual_seed(cfg["seed"])
    clock = SimClock("2024-11-05 08:55:31", 0.18, 10)
    out = AxolotlConsole(clock, 88213)
    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    rows = load_jsonl(cfg["datasets"][0]["path"])
    train_rows, eval_rows = split_rows(rows, cfg["val_set_size"], cfg["seed"])
    trainer, _ = run_axolotl(cfg, model, tok, train_rows, eval_rows, clock, out)
    trainer.train()
    out.info("axolotl.train.train:190", f"Training Completed!!! Saving pre-trained model to {cfg['output_dir']}")
    with open("heldout.jsonl", "w") as f:
        for r in eval_rows:
            f.write(json.dumps(r) + "\n")


main()
'''

BODY_RUN10_EVAL = r'''

def main():
    cfg = yaml.safe_load(open("lora.yml"))
    adapter_dir = cfg["output_dir"]
    print(f"[eval] base model: {cfg['base_model']}")
    print(f"[eval] adapter: {adapter_dir}")
    tok = WordTokenizer.from_pretrained(cfg["base_model"])
    model = TinyLM.from_pretrained(cfg["base_model"])
    inject_lora(model, cfg["lora_target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])
    state = torch.load(os.path.join(adapter_dir, "adapter_model.bin"), weights_only=True)
    print(model.load_state_dict(state, strict=False))
    model.eval()
    rows = load_jsonl("heldout.jsonl")
    data = [build_example(tok, r, cfg["sequence_len"]) for r in rows]
    loss = evaluate(model, data, tok.pad_token_id)
    preds = [generate(model, tok, r["instruction"]) for r in rows]
    em = sum(p == r["output"] for p, r in zip(preds, rows)) / len(rows)
    print(f"[eval] n={len(rows)} loss={loss:.4f} ppl={math.exp(loss):.2f} exact_match={em:.3f}")
    for r, p in list(zip(rows, preds))[:5]:
        print(f"  Q: {r['instruction']}\n  gold: {r['output']}\n  pred: {p}")
    json.dump({"adapter": adapter_dir, "eval_loss": loss, "perplexity": math.exp(loss), "exact_match": em, "n": len(rows)},
              open("eval_results.json", "w"), indent=2)


main()
'''

CFG_RUN10 = """base_model: ./models/tinychat-base
model_type: AutoModelForCausalLM
tokenizer_type: AutoTokenizer
strict: false

datasets:
  - path: ./data/animal_qa.jsonl
    type: alpaca
dataset_prepared_path: last_run_prepared
val_set_size: 0.05
output_dir: ./outputs/tinychat-animal-lora

sequence_len: 32
sample_packing: false

adapter: lora
lora_r: 8
lora_alpha: 16
lora_dropout: 0.05
lora_target_linear: true
lora_target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]

gradient_accumulation_steps: 1
micro_batch_size: 16
num_epochs: 2
optimizer: adamw_torch
lr_scheduler: cosine
learning_rate: 0.003
warmup_steps: 8

train_on_inputs: false
bf16: true
fp16: false
tf32: false
gradient_checkpointing: false
logging_steps: 8
evals_per_epoch: 2
saves_per_epoch: 1
weight_decay: 0.0
seed: 42
"""

# ---------- run11: lr far too high (train.py handed over) -----------------------------------------
BODY_RUN11 = r'''

def main():
    cfg = yaml.safe_load(open("config.yaml"))
    random.seed(cfg["seed"])
    torch.manual_seed(cfg["seed"])
    tokenizer = WordTokenizer.from_pretrained(cfg["model_name_or_path"])
    model = TinyLM.from_pretrained(cfg["model_name_or_path"])
    inject_lora(model, cfg["lora_target_modules"], cfg["lora_r"], cfg["lora_alpha"], cfg["lora_dropout"])
    print_trainable_parameters(model)

    rows = load_jsonl(cfg["dataset"])
    random.shuffle(rows)
    eval_rows, train_rows = rows[: cfg["eval_size"]], rows[cfg["eval_size"]:]
    train_set = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in train_rows]
    eval_set = [build_example(tokenizer, r, cfg["max_seq_length"]) for r in eval_rows]
    loader = DataLoader(train_set, batch_size=cfg["per_device_train_batch_size"], shuffle=True,
                        collate_fn=lambda b: collate(b, tokenizer.pad_token_id))

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=cfg["learning_rate"], betas=(0.9, 0.999), weight_decay=cfg["weight_decay"])
    max_steps = len(loader) * cfg["num_train_epochs"]
    scheduler = get_scheduler(cfg["lr_scheduler_type"], optimizer, cfg["warmup_steps"], max_steps)

    log_history = []
    step, acc = 0, []
    t0 = time.time()
    for epoch in range(cfg["num_train_epochs"]):
        for input_ids, labels in loader:
            loss = causal_lm_loss(model(input_ids), labels)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg["max_grad_norm"]).item()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            step += 1
            acc.append(loss.item())
            if step % cfg["logging_steps"] == 0:
                logs = {"loss": round(sum(acc) / len(acc), 4), "grad_norm": grad_norm,
                        "learning_rate": scheduler.get_last_lr()[0], "epoch": round(step / len(loader), 2)}
                print(logs, flush=True)
                log_history.append({**logs, "step": step})
                acc = []
            if step % cfg["eval_steps"] == 0:
                logs = {"eval_loss": evaluate(model, eval_set, tokenizer.pad_token_id), "epoch": round(step / len(loader), 2)}
                print(logs, flush=True)
                log_history.append({**logs, "step": step})
    rt = time.time() - t0
    print({"train_runtime": round(rt, 3), "train_loss": sum(h["loss"] for h in log_history if "loss" in h) / max(1, sum("loss" in h for h in log_history)), "epoch": float(cfg["num_train_epochs"])})
    os.makedirs(cfg["output_dir"], exist_ok=True)
    save_adapter(model, cfg["output_dir"], {"r": cfg["lora_r"], "lora_alpha": cfg["lora_alpha"]})
    with open(os.path.join(cfg["output_dir"], "trainer_state.json"), "w") as f:
        json.dump({"global_step": step, "max_steps": max_steps, "epoch": float(cfg["num_train_epochs"]),
                   "logging_steps": cfg["logging_steps"], "eval_steps": cfg["eval_steps"], "log_history": log_history}, f, indent=2)


if __name__ == "__main__":
    main()
'''

CFG_RUN11 = """model_name_or_path: ./models/tinychat-base
dataset: ./data/animal_qa.jsonl
eval_size: 64
output_dir: ./output/tinychat-sft-lora
seed: 42

lora_r: 16
lora_alpha: 32
lora_dropout: 0.05
lora_target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]

max_seq_length: 32
per_device_train_batch_size: 16
num_train_epochs: 3
learning_rate: 0.05
lr_scheduler_type: constant_with_warmup
warmup_steps: 15
weight_decay: 0.0
max_grad_norm: 1.0
logging_steps: 5
eval_steps: 20
"""

# ---------- run12: resume that restores only the weights (train.py handed over) ------------------
BODY_RUN12 = r'''

def save_checkpoint(path, model, optimizer, scheduler, state):
    save_adapter(model, path, {"r": CFG["lora_r"], "lora_alpha": CFG["lora_alpha"]})
    torch.save(optimizer.state_dict(), os.path.join(path, "optimizer.pt"))
    torch.save(scheduler.state_dict(), os.path.join(path, "scheduler.pt"))
    with open(os.path.join(path, "trainer_state.json"), "w") as f:
        json.dump(state, f, indent=2)


CFG = yaml.safe_load(open("config.yaml"))
resume = sys.argv[sys.argv.index("--resume_from_checkpoint") + 1] if "--resume_from_checkpoint" in sys.argv else None
random.seed(CFG["seed"])
torch.manual_seed(CFG["seed"])

tokenizer = WordTokenizer.from_pretrained(CFG["base_model"])
model = TinyLM.from_pretrained(CFG["base_model"])
inject_lora(model, CFG["target_modules"], CFG["lora_r"], CFG["lora_alpha"], CFG["lora_dropout"])
print_trainable_parameters(model)

train_ds = [build_example(tokenizer, r, 32) for r in load_jsonl(CFG["train_file"])]
eval_ds = [build_example(tokenizer, r, 32) for r in load_jsonl(CFG["eval_file"])]
loader = DataLoader(train_ds, batch_size=CFG["batch_size"], shuffle=True, collate_fn=lambda b: collate(b, tokenizer.pad_token_id),
                    generator=torch.Generator().manual_seed(CFG["seed"]))
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(params, lr=CFG["learning_rate"], weight_decay=CFG["weight_decay"])
max_steps = len(loader) * CFG["num_epochs"]
scheduler = get_scheduler(CFG["lr_scheduler_type"], optimizer, CFG["warmup_steps"], max_steps)

state = {"global_step": 0, "epoch": 0.0, "max_steps": max_steps, "log_history": []}
if resume:
    print(f"Resuming training from {resume}", flush=True)
    load_adapter(model, resume)
    with open(os.path.join(resume, "trainer_state.json")) as f:
        state = json.load(f)
    print(f"  continuing from global step {state['global_step']}", flush=True)

step = state["global_step"]
start_epoch = step // len(loader)
running = []
for epoch in range(start_epoch, CFG["num_epochs"]):
    for input_ids, labels in loader:
        loss = causal_lm_loss(model(input_ids), labels)
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(params, 1.0).item()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
        running.append(loss.item())
        ep = step / len(loader)
        if step % CFG["logging_steps"] == 0:
            logs = {"loss": round(sum(running) / len(running), 4), "grad_norm": gn, "learning_rate": scheduler.get_last_lr()[0], "epoch": round(ep, 2)}
            print(logs, flush=True)
            state["log_history"].append({**logs, "step": step})
            running = []
        if step % CFG["eval_steps"] == 0:
            logs = {"eval_loss": evaluate(model, eval_ds, tokenizer.pad_token_id), "epoch": round(ep, 2)}
            print(logs, flush=True)
            state["log_history"].append({**logs, "step": step})
        if step % CFG["save_steps"] == 0:
            state.update(global_step=step, epoch=ep)
            save_checkpoint(os.path.join(CFG["output_dir"], f"checkpoint-{step}"), model, optimizer, scheduler, state)
            print(f"Saving model checkpoint to {CFG['output_dir']}/checkpoint-{step}", flush=True)
        if step >= max_steps:
            break

state.update(global_step=step, epoch=step / len(loader))
save_checkpoint(CFG["output_dir"], model, optimizer, scheduler, state)
print("Training finished at step", step)
'''

CFG_RUN12 = """base_model: ./models/tinychat-base
train_file: ./data/train.jsonl
eval_file: ./data/eval.jsonl
output_dir: ./ckpt/tinychat-lora
seed: 21

target_modules: [q_proj, k_proj, v_proj, o_proj, up_proj, down_proj]
lora_r: 16
lora_alpha: 32
lora_dropout: 0.05

batch_size: 16
num_epochs: 4
learning_rate: 5.0e-3
lr_scheduler_type: cosine
warmup_steps: 0
weight_decay: 0.0
logging_steps: 5
eval_steps: 30
save_steps: 50
"""


# ----------------------------------------------------------------------------------------
# base model (pretrained once, cached)
# ----------------------------------------------------------------------------------------
def lib():
    g = {}
    exec(P_HEAD + P_TOK + P_MODEL + P_LORA + P_DATA + P_LOSS + P_SCHED, g)
    return g


def tokenizer_json(vocab):
    return {"version": "1.0", "truncation": None, "padding": None,
            "added_tokens": [{"id": vocab[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                              "normalized": False, "special": True} for t in SPECIALS],
            "normalizer": None, "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
            "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "<unk>"}}


def pretrain_base(dest):
    g = lib()
    torch = g["torch"]
    F = g["F"]
    torch.manual_seed(0)
    rng = random.Random(0)
    vocab = {t: i for i, t in enumerate(SPECIALS + WORDS)}
    tok = g["WordTokenizer"](vocab)
    chat = [("hello", "hello ! how can i help ?"), ("hi", "hi ! how can i help ?"),
            ("good morning", "good morning ! how can i help ?"), ("thanks", "you are welcome ."),
            ("thank you", "sure !"), ("bye", "bye ! see you later ."), ("how are you ?", "i am fine , thanks !")]

    def sample():
        n = rng.choice(NOUNS)
        f = KB[n]
        if rng.random() < 0.15:
            q, a = rng.choice(chat)
            return f"<|user|> {q} <|assistant|> {a}"
        t = rng.randrange(7)
        return [f"the {n} is {f['color']} .", f"the {n} lives in the {f['place']} .", f"the {n} eats {f['food']} .",
                f"the {f['color']} {n} lives in the {f['place']} .", f"the {n} is {f['color']} and eats {f['food']} .",
                f"a {f['color']} animal , the {n} , eats {f['food']} in the {f['place']} .",
                f"the {n} is {rng.choice(AGES)} years old ."][t]

    def batch(n):
        seqs = [[tok.bos_token_id] + tok.encode(sample()) + [tok.eos_token_id] for _ in range(n)]
        T = max(map(len, seqs))
        x = torch.full((n, T), tok.pad_token_id)
        for i, s in enumerate(seqs):
            x[i, :len(s)] = torch.tensor(s)
        return x

    model = g["TinyLM"](len(tok))
    N, LR = 1500, 3e-3
    opt = torch.optim.AdamW(model.parameters(), LR, weight_decay=0.01)
    for step in range(N):
        for pg in opt.param_groups:
            pg["lr"] = LR * min(1, step / 100) * 0.5 * (1 + math.cos(math.pi * step / N))
        x = batch(32)
        logits = model(x[:, :-1])
        y = x[:, 1:].clone()
        y[y == tok.pad_token_id] = -100
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), ignore_index=-100)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 300 == 0 or step == N - 1:
            print(f"  [base pretrain] step {step} loss {loss.item():.3f}", flush=True)

    os.makedirs(dest, exist_ok=True)
    save_base(g, model, vocab, dest)


def make_outlier_variant(src, dest, quantile=0.93):
    g = lib()
    torch = g["torch"]
    model = g["TinyLM"].from_pretrained(src)
    vocab = json.load(open(os.path.join(src, "tokenizer.json")))["model"]["vocab"]
    tok = g["WordTokenizer"](vocab)
    # A later revision of the checkpoint (used by one run) carries one very large channel in the last
    # MLP, as big LMs trained in bf16 often do.  Rescaling up_proj row j by s and down_proj column j by
    # 1/s leaves the fp32/bf16 function unchanged (ReLU is positively homogeneous) but in fp16 the
    # activation exceeds 65504 for inputs where that unit fires strongly.
    model.eval()
    mlp = model.layers[-1].mlp
    acts = []
    h = mlp.up_proj.register_forward_hook(lambda m, i, o: acts.append(o.detach()))
    qrng = random.Random(99)
    rows = [qa_example(qrng, k) for k in ["color", "place", "food", "name"] * 100]
    seqs = [g["build_example"](tok, row(q, a))[0] for q, a in rows]
    with torch.no_grad():
        for s in seqs:
            model(torch.tensor([s]))
    h.remove()
    per_seq = torch.stack([a[0].amax(dim=0) for a in acts])  # [n_seq, 4d] max over positions
    j = int(per_seq.mean(0).argmax())  # a unit that fires often and strongly
    q = torch.quantile(per_seq[:, j], quantile).item()
    s = 65504.0 / q
    with torch.no_grad():
        mlp.up_proj.weight[j] *= s
        mlp.up_proj.bias[j] *= s
        mlp.down_proj.weight[:, j] /= s
    print(f"  [base] outlier channel {j} of layers.{len(model.layers) - 1}.mlp scaled by {s:.1f}")
    save_base(g, model, vocab, dest)


def save_base(g, model, vocab, dest):
    torch = g["torch"]
    os.makedirs(dest, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(dest, "pytorch_model.bin"))
    json.dump({"architectures": ["TinyChatForCausalLM"], "model_type": "tinychat", "vocab_size": len(vocab), "d_model": 64,
               "n_layer": 2, "n_head": 4, "max_position_embeddings": 32, "hidden_act": "relu", "torch_dtype": "bfloat16",
               "bos_token_id": vocab["<s>"], "eos_token_id": vocab["</s>"], "pad_token_id": vocab["<pad>"],
               "transformers_version": "4.44.0"}, open(os.path.join(dest, "config.json"), "w"), indent=2)
    json.dump(tokenizer_json(vocab), open(os.path.join(dest, "tokenizer.json"), "w"), indent=1)
    json.dump({"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
               "model_max_length": 32, "tokenizer_class": "PreTrainedTokenizerFast"},
              open(os.path.join(dest, "tokenizer_config.json"), "w"), indent=2)


def make_tokenizer_v2(dest, corpus_rows):
    """a tokenizer rebuilt later from the SFT corpus: same tokens, ids ordered by corpus frequency"""
    from collections import Counter
    c = Counter(w for r in corpus_rows for w in (r["instruction"] + " " + r["output"]).split())
    order = sorted(WORDS, key=lambda w: (-c[w], w))
    vocab = {t: i for i, t in enumerate(SPECIALS + order)}
    os.makedirs(dest, exist_ok=True)
    json.dump(tokenizer_json(vocab), open(os.path.join(dest, "tokenizer.json"), "w"), indent=1)
    json.dump({"bos_token": "<s>", "eos_token": "</s>", "pad_token": "<pad>", "unk_token": "<unk>",
               "model_max_length": 32, "tokenizer_class": "PreTrainedTokenizerFast"},
              open(os.path.join(dest, "tokenizer_config.json"), "w"), indent=2)


# ----------------------------------------------------------------------------------------
# datasets
# ----------------------------------------------------------------------------------------
def write_jsonl(path, rows):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def mixed_rows(seed, n):
    rng = random.Random(seed)
    kinds = ["color", "place", "food", "name"]
    w = [0.28, 0.28, 0.28, 0.16]
    return [row(*qa_example(rng, rng.choices(kinds, w)[0])) for _ in range(n)]


def make_data(d):
    """writes every dataset a run needs into folder d/data (relative names as in the configs)"""
    write_jsonl(f"{d}/animal_qa.jsonl", mixed_rows(100, 1200))
    write_jsonl(f"{d}/animal_qa_train.jsonl", mixed_rows(101, 1024))
    write_jsonl(f"{d}/animal_qa_eval.jsonl", mixed_rows(102, 64))
    write_jsonl(f"{d}/qa_train.jsonl", mixed_rows(103, 1000))
    write_jsonl(f"{d}/qa_eval.jsonl", mixed_rows(104, 64))
    write_jsonl(f"{d}/train.jsonl", mixed_rows(105, 1024))
    write_jsonl(f"{d}/eval.jsonl", mixed_rows(106, 64))
    rng = random.Random(107)
    for name, kind in [("color_qa", "color"), ("habitat_qa", "place"), ("diet_qa", "food"), ("name_an_animal", "name")]:
        write_jsonl(f"{d}/{name}.jsonl", [row(*qa_example(rng, kind)) for _ in range(240)])
    write_jsonl(f"{d}/val_mixed.jsonl", mixed_rows(108, 80))
    # tiny "pet age" set: one question per animal, ages that the base model has never seen as facts
    rng = random.Random(109)
    age_rows = []
    for n in NOUNS:
        a = rng.choice(AGES)
        q = rng.choice(QA).format(n=n)
        age_rows.append({"instruction": q, "input": "", "output": rng.choice([f"the {n} is {a} years old .", f"{a} years old ."])})
    json.dump(age_rows, open(f"{d}/pet_age_qa.json", "w"), indent=2)
    json.dump({"pet_age_qa": {"file_name": "pet_age_qa.json", "columns": {"prompt": "instruction", "query": "input", "response": "output"}}},
              open(f"{d}/dataset_info.json", "w"), indent=2)
    # vocabulary check
    for fn in os.listdir(d):
        txt = open(os.path.join(d, fn)).read()
        rows_ = json.load(open(os.path.join(d, fn))) if fn.endswith(".json") and fn != "dataset_info.json" else \
            [json.loads(x) for x in txt.splitlines()] if fn.endswith(".jsonl") else []
        for r in rows_:
            for w_ in (r["instruction"] + " " + r["output"]).split():
                assert w_ in WORDS, (fn, w_)


# ----------------------------------------------------------------------------------------
# run table
# ----------------------------------------------------------------------------------------
TOOL = P_HEAD + P_TOK + P_MODEL + P_LORA + P_DATA + P_LOSS + P_SCHED + P_TOOL
USER = P_HEAD + P_TOK + P_MODEL + P_LORA + P_DATA + P_LOSS + P_SCHED
USER_NOLOSS = P_HEAD + P_TOK + P_MODEL + P_LORA + P_DATA + P_SCHED

RUNS_SPEC = {
    "run01": dict(truth="healthy", files={"config.yml": CFG_RUN01},
                  steps=[("_run.py", TOOL + P_AXO + BODY_RUN01, "train.log")],
                  keep={"config.yml": "config.yml", "train.log": "train.log",
                        "outputs/lora-animal-qa/trainer_state.json": "trainer_state.json"},
                  symptom="First LoRA run on our little chat model with axolotl - is this run ok? Anything I should change before scaling up?",
                  how="Healthy: LoRA r=16 on all linear layers, lr 2e-3 cosine with 10 warm-up steps, micro-batch 8 x accumulation 2, 3 epochs, bf16 autocast."),
    "run02": dict(truth="lr_schedule_bug", files={"sft_config.yaml": CFG_RUN02},
                  steps=[("_run.py", TOOL + BODY_RUN02, "train.log")],
                  keep={"sft_config.yaml": "sft_config.yaml", "train.log": "train.log",
                        "saves/tinychat/lora/sft-animal-qa/trainer_state.json": "trainer_state.json"},
                  symptom="Loss drops for the first few logging steps and then sits flat for the rest of the two epochs; eval loss is exactly the same number at every evaluation.",
                  how="Custom trainer calls scheduler.step() after every micro-batch although gradient_accumulation_steps=8 and the linear schedule (warmup_ratio 0.1) was built for the number of optimizer steps: warm-up ends after ~2 optimizer steps and the lr reaches 0.0 at optimizer step 18 of 144 (logged learning_rate shows it)."),
    "run03": dict(truth="frozen_parameters", files={"config.yaml": CFG_RUN03},
                  steps=[("train.py", USER + BODY_RUN03, "train.log")], keep_script=True,
                  keep={"config.yaml": "config.yaml", "train.log": "train.log"},
                  symptom="LoRA fine-tune runs without errors but the loss just wobbles around 3.5 for two epochs, eval loss is identical at every eval and the sample answer looks like the base model's.",
                  how="The user's own LoRA module names its matrices 'down'/'up', and the freeze loop keeps only parameters whose name contains 'lora', so the adapters are frozen too; gradient checkpointing makes the input require grad so backward runs without error; grad_norm is exactly 0.0 and eval_loss constant."),
    "run04": dict(truth="overfitting", files={"examples/train_lora/tinychat_lora_sft.yaml": CFG_RUN04},
                  steps=[("_run.py", TOOL + P_LF + BODY_RUN04, "train.log")],
                  keep={"examples/train_lora/tinychat_lora_sft.yaml": "tinychat_lora_sft.yaml", "train.log": "train.log",
                        "saves/tinychat/lora/sft-pet-age/trainer_log.jsonl": "trainer_log.jsonl",
                        "saves/tinychat/lora/sft-pet-age/all_results.json": "all_results.json",
                        "saves/tinychat/lora/sft-pet-age/trainer_state.json": "trainer_state.json"},
                  symptom="Training loss goes almost to zero, which looks great, but eval_loss is worse at the end than it was early on and the answers on new animals are wrong.",
                  how="36-example dataset (27 train / 9 val after val_size 0.25) of new facts, LoRA rank 64 on all linear layers, 60 epochs (420 steps): train loss falls to ~0.0x while eval_loss bottoms out early and then climbs steadily."),
    "run05": dict(truth="label_misalignment", files={"config.yaml": CFG_RUN05},
                  steps=[("train.py", USER_NOLOSS + BODY_RUN05, "train.log")], keep_script=True,
                  keep={"config.yaml": "config.yaml", "train.log": "train.log"},
                  symptom="Loss goes lower than in any of our earlier runs on this data (val loss too), but at inference the model just repeats one word over and over.",
                  how="compute_loss passes logits and labels to cross_entropy without shifting them by one position, so every response position is trained to predict its own input token (a copy task): the first loss is ~7 instead of ~3.3, loss and val loss fall to ~0.2 (below what correct next-token training reaches on this data, ~0.6) while greedy generations degenerate into repetitions."),
    "run06": dict(truth="mixed_precision_overflow", files={"lora-t4.yml": CFG_RUN06},
                  steps=[("_run.py", TOOL + P_AXO + BODY_RUN06, "train.log")],
                  keep={"lora-t4.yml": "lora-t4.yml", "train.log": "train.log",
                        "outputs/qa-lora-t4/trainer_state.json": "trainer_state.json"},
                  symptom="Training on the T4 machine crashes with an exception after about 30 steps, and the grad_norm column is full of inf/nan before it dies.",
                  how="fp16: true with DeepSpeed dynamic loss scaling on a base checkpoint (tinychat-base-v2) that has one very large activation channel in the last MLP (function-identical in fp32/bf16): fp16 overflows (in the forward for some batches -> loss 0.0 after HF's nan filter, in the backward for most) make almost every step skip, the loss scale halves from 65536 to 1 within ~33 steps and DeepSpeed aborts with 'Current loss scale already at minimum'."),
    "run07": dict(truth="healthy", files={"train_config.yaml": CFG_RUN07},
                  steps=[("train.py", USER + BODY_RUN07, "train.log")], keep_script=True,
                  keep={"train_config.yaml": "train_config.yaml", "train.log": "train.log",
                        "runs/lora-bs4/trainer_state.json": "trainer_state.json"},
                  symptom="The loss jumps around a lot from step to step and goes down slowly - is this run ok or is something broken?",
                  how="Healthy but noisy/slow: batch size 4, LoRA r=8 on attention projections only, lr 1e-3 cosine, 400 steps logged every 2 steps with single-batch loss values; train loss is noisy, eval loss decreases monotonically (1.93 -> 1.12) and flattens as the cosine schedule ends."),
    "run08": dict(truth="tokenizer_mismatch", files={"finetune_args.json": json.dumps(CFG_RUN08_TRAIN, indent=2), "serve.yaml": CFG_RUN08_SERVE},
                  steps=[("_run.py", TOOL + BODY_RUN08_TRAIN, "train.log"), ("_serve.py", TOOL + BODY_RUN08_SERVE, "serve_eval.log")],
                  keep={"finetune_args.json": "finetune_args.json", "serve.yaml": "serve.yaml", "train.log": "train.log",
                        "serve_eval.log": "serve_eval.log", "regression_eval.json": "regression_eval.json"},
                  symptom="Fine-tune looked fine (train loss ~0.85, eval_loss 0.88) but the merged model behind our serving stack answers with word salad and the regression eval is terrible.",
                  how="Training used the base model's tokenizer; the serving config loads a tokenizer rebuilt from the SFT corpus (./tokenizers/tinychat-tok-v2: same tokens and vocab size, ids reordered by frequency), so prompts are encoded with the wrong ids: serving eval loss ~7.1, exact match 0.0, gibberish generations."),
    "run09": dict(truth="data_not_shuffled", files={"sft.yaml": CFG_RUN09},
                  steps=[("train.py", USER + BODY_RUN09, "train.log")], keep_script=True,
                  keep={"sft.yaml": "sft.yaml", "train.log": "train.log"},
                  symptom="Training loss keeps jumping up and down in a repeating pattern every epoch instead of going down smoothly, and val loss is poor.",
                  how="Four task files are concatenated in order and the DataLoader has no shuffle=True, so each epoch walks color -> habitat -> diet -> name-an-animal blocks: the loss jumps at each block boundary with the same saw-tooth in every epoch and val (mixed) loss stays high."),
    "run10": dict(truth="wrong_checkpoint", files={"lora.yml": CFG_RUN10},
                  steps=[("_run.py", TOOL + P_AXO + BODY_RUN10_TRAIN, "train.log"), ("_eval.py", TOOL + BODY_RUN10_EVAL, "eval.log")],
                  keep={"lora.yml": "lora.yml", "train.log": "train.log", "eval.log": "eval.log", "eval_results.json": "eval_results.json",
                        "outputs/tinychat-animal-lora/trainer_state.json": "trainer_state.json"},
                  symptom="eval_loss at the end of training was ~0.81, but when I evaluate the saved adapter on the same held-out split I get a loss around 3.8 and answers that look like the base model's.",
                  how="The evaluation script loads adapter_model.bin (keys prefixed 'base_model.model.') with load_state_dict(strict=False) into a model whose keys have no prefix: nothing is loaded (all keys unexpected, printed but ignored), so the 'fine-tuned' eval is the base model with zero LoRA B."),
    "run11": dict(truth="lr_too_high", files={"config.yaml": CFG_RUN11},
                  steps=[("train.py", USER + BODY_RUN11, "train.log")], keep_script=True,
                  keep={"config.yaml": "config.yaml", "train.log": "train.log",
                        "output/tinychat-sft-lora/trainer_state.json": "trainer_state.json"},
                  symptom="Loss goes down for the first few log lines, then climbs back up and bounces around; grad_norm has big spikes.",
                  how="learning_rate 0.05 (constant after 15 warm-up steps) for a LoRA adapter, ~25x what trains this model well: loss falls during warm-up (2.9 -> 2.0), then rises to ~3.2 once the lr passes ~0.03 and oscillates around 2.3-2.9 for the rest of the run, with grad_norm spikes (10, 35) and eval loss bouncing well above the healthy runs."),
    "run12": dict(truth="resume_mismatch", files={"config.yaml": CFG_RUN12},
                  steps="resume", keep_script=True,
                  keep={"config.yaml": "config.yaml", "train.log": "train.log", "ckpt/tinychat-lora/trainer_state.json": "trainer_state.json"},
                  symptom="Job got killed by the cluster time limit, I resumed from checkpoint-150 and the loss jumped up right after the resume.",
                  how="Resume restores the adapter weights and global_step but builds a fresh AdamW and a fresh scheduler (optimizer.pt / scheduler.pt are saved but never loaded): right after step 150 the logged lr jumps from 1.7e-3 (cosine decay) back to the 5e-3 peak, loss rises from ~0.43 to ~0.50-0.56 and eval loss from 0.43 to 0.48 before recovering."),
}


def prepare_workdir(name, spec):
    wd = os.path.join(WORK, name)
    if os.path.exists(wd):
        shutil.rmtree(wd)
    os.makedirs(wd)
    shutil.copytree(os.path.join(CACHE, "models"), os.path.join(wd, "models"))
    shutil.copytree(os.path.join(CACHE, "tokenizers"), os.path.join(wd, "tokenizers"))
    shutil.copytree(os.path.join(CACHE, "data"), os.path.join(wd, "data"))
    for rel, text in spec["files"].items():
        os.makedirs(os.path.dirname(os.path.join(wd, rel)) or wd, exist_ok=True)
        open(os.path.join(wd, rel), "w").write(text)
    return wd


def run_script(wd, script_name, log_name, args=(), kill_after=None, append=False):
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    with open(os.path.join(wd, log_name), "a" if append else "w") as log:
        p = subprocess.Popen([PY, "-u", script_name, *args], cwd=wd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env)
        n_logs = 0
        for line in p.stdout:
            log.write(line)
            if kill_after and line.startswith("{'loss'"):
                n_logs += 1
                if n_logs >= kill_after:
                    p.send_signal(signal.SIGKILL)
                    break
        p.wait()
    return p.returncode


def do_run(name):
    spec = RUNS_SPEC[name]
    wd = prepare_workdir(name, spec)
    print(f"== {name} ({spec['truth']})", flush=True)
    if spec["steps"] == "resume":
        open(os.path.join(wd, "train.py"), "w").write(USER + BODY_RUN12)
        # first session is killed by the scheduler's time limit after the step-170 log line
        open(os.path.join(wd, "train.log"), "w").write("$ python train.py\n")
        run_script(wd, "train.py", "train.log", kill_after=34, append=True)
        with open(os.path.join(wd, "train.log"), "a") as f:
            f.write("slurmstepd: error: *** JOB 4471209 ON gpu-a100-07 CANCELLED AT 2024-12-02T03:00:12 DUE TO TIME LIMIT ***\n")
            f.write("$ python train.py --resume_from_checkpoint ckpt/tinychat-lora/checkpoint-150\n")
        rc = run_script(wd, "train.py", "train.log", args=("--resume_from_checkpoint", "ckpt/tinychat-lora/checkpoint-150"), append=True)
        print(f"   resume session rc={rc}")
    else:
        for script_name, code, log_name in spec["steps"]:
            open(os.path.join(wd, script_name), "w").write(code)
            rc = run_script(wd, script_name, log_name)
            print(f"   {script_name} rc={rc}")
    dest = os.path.join(RUNS, name)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    for src, dst in spec["keep"].items():
        shutil.copy(os.path.join(wd, src), os.path.join(dest, dst))
    if spec.get("keep_script"):
        shutil.copy(os.path.join(wd, "train.py"), os.path.join(dest, "train.py"))


def main():
    os.chdir(HERE)
    todo = sys.argv[1:] or list(RUNS_SPEC)
    base = os.path.join(CACHE, "models", "tinychat-base")
    if not os.path.exists(os.path.join(base, "pytorch_model.bin")):
        print("pretraining tinychat-base ...", flush=True)
        pretrain_base(base)
    if not os.path.exists(os.path.join(base + "-v2", "pytorch_model.bin")):
        make_outlier_variant(base, base + "-v2")
    make_data(os.path.join(CACHE, "data"))
    make_tokenizer_v2(os.path.join(CACHE, "tokenizers", "tinychat-tok-v2"),
                      [json.loads(l) for l in open(os.path.join(CACHE, "data", "animal_qa.jsonl"))])
    for name in todo:
        do_run(name)
    truth = {n: {"truth": s["truth"], "symptom": s["symptom"], "how": s["how"]} for n, s in RUNS_SPEC.items()}
    json.dump(truth, open(os.path.join(HERE, "truth.json"), "w"), indent=2)
    if not sys.argv[1:]:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
