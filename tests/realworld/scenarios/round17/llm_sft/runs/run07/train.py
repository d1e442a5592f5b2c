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
