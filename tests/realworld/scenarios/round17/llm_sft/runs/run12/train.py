import json, math, os, random, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.utils.checkpoint import checkpoint
from torch.utils.data import DataLoader

torch.set_num_threads(1)


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
