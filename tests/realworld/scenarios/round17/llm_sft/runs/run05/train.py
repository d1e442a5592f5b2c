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
