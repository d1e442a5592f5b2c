import json, math, os, time, random
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)

args = dict(
    output_dir=".",
    num_train_epochs=4,
    per_device_train_batch_size=32,
    per_device_eval_batch_size=128,
    learning_rate=2e-3,
    weight_decay=0.01,
    warmup_ratio=0.1,
    lr_scheduler_type="linear",
    max_grad_norm=1.0,
    logging_steps=25,
    eval_strategy="epoch",
    save_strategy="no",
    seed=42,
    adam_beta1=0.9,
    adam_beta2=0.999,
    adam_epsilon=1e-8,
    report_to=[],
)
config = dict(model_type="bow-classifier", vocab_size=2000, hidden_size=64, intermediate_size=64,
              num_labels=3, pad_token_id=0, max_length=64,
              id2label={"0": "negative", "1": "neutral", "2": "positive"},
              label2id={"negative": 0, "neutral": 1, "positive": 2})


def set_seed(s):
    random.seed(s); np.random.seed(s); torch.manual_seed(s)


def make_corpus(n, rng):
    # toy review corpus: each label has its own set of frequent "sentiment" tokens
    V, K = config["vocab_size"], config["num_labels"]
    topic = [rng.choice(np.arange(10, V), 60, replace=False) for _ in range(K)]
    ids, labels = [], []
    for _ in range(n):
        y = rng.randint(K)
        L = rng.randint(12, config["max_length"])
        n_topic = rng.binomial(L, 0.25)
        toks = np.concatenate([rng.choice(topic[y], n_topic), rng.randint(10, V, L - n_topic)])
        rng.shuffle(toks)
        ids.append(toks.tolist()); labels.append(y)
    return ids, labels


class TextDS(Dataset):
    def __init__(self, ids, labels):
        self.ids, self.labels = ids, labels
    def __len__(self):
        return len(self.ids)
    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


def collate(batch):
    L = max(len(x) for x, _ in batch)
    input_ids = torch.zeros(len(batch), L, dtype=torch.long)
    for i, (x, _) in enumerate(batch):
        input_ids[i, :len(x)] = torch.tensor(x)
    return {"input_ids": input_ids, "labels": torch.tensor([y for _, y in batch])}


class BowClassifier(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.Embedding(cfg["vocab_size"], cfg["hidden_size"], padding_idx=cfg["pad_token_id"])
        self.ff = nn.Sequential(nn.Linear(cfg["hidden_size"], cfg["intermediate_size"]), nn.ReLU(),
                                nn.Dropout(0.1), nn.Linear(cfg["intermediate_size"], cfg["num_labels"]))
    def forward(self, input_ids):
        mask = (input_ids != 0).float().unsqueeze(-1)
        h = (self.emb(input_ids) * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.ff(h)


def linear_schedule(opt, warmup, total):
    def f(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))
    return torch.optim.lr_scheduler.LambdaLR(opt, f)


def evaluate(model, loader):
    model.eval()
    t0 = time.time(); tot, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for b in loader:
            logits = model(b["input_ids"])
            tot += nn.functional.cross_entropy(logits, b["labels"], reduction="sum").item()
            correct += (logits.argmax(-1) == b["labels"]).sum().item(); n += len(b["labels"])
    rt = time.time() - t0
    model.train()
    return {"eval_loss": tot / n, "eval_accuracy": correct / n, "eval_runtime": round(rt, 4),
            "eval_samples_per_second": round(n / rt, 3), "eval_steps_per_second": round(len(loader) / rt, 3)}


def main():
    set_seed(args["seed"])
    rng = np.random.RandomState(0)
    ids, labels = make_corpus(7000, rng)
    train_ds, eval_ds = TextDS(ids[:6000], labels[:6000]), TextDS(ids[6000:], labels[6000:])
    g = torch.Generator().manual_seed(args["seed"])
    train_dl = DataLoader(train_ds, batch_size=args["per_device_train_batch_size"], shuffle=True, collate_fn=collate, generator=g)
    eval_dl = DataLoader(eval_ds, batch_size=args["per_device_eval_batch_size"], collate_fn=collate)

    model = BowClassifier(config)
    no_decay = ["bias"]
    params = [{"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": args["weight_decay"]},
              {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0}]
    opt = torch.optim.AdamW(params, lr=args["learning_rate"], betas=(args["adam_beta1"], args["adam_beta2"]), eps=args["adam_epsilon"])
    steps_per_epoch = len(train_dl)
    max_steps = steps_per_epoch * args["num_train_epochs"]
    sched = linear_schedule(opt, math.ceil(args["warmup_ratio"] * max_steps), max_steps)

    log_history, global_step, running, n_running, all_loss = [], 0, 0.0, 0, 0.0
    t_start = time.time()
    model.train()
    for epoch in range(args["num_train_epochs"]):
        for b in train_dl:
            loss = nn.functional.cross_entropy(model(b["input_ids"]), b["labels"])
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            opt.step(); sched.step(); global_step += 1
            running += loss.item(); n_running += 1; all_loss += loss.item()
            if global_step % args["logging_steps"] == 0:
                log_history.append({"epoch": round(global_step / steps_per_epoch, 4), "grad_norm": float(gn),
                                    "learning_rate": sched.get_last_lr()[0], "loss": round(running / n_running, 4), "step": global_step})
                running, n_running = 0.0, 0
        m = evaluate(model, eval_dl)
        m.update({"epoch": float(epoch + 1), "step": global_step})
        log_history.append(dict(sorted(m.items())))
    rt = time.time() - t_start
    log_history.append({"epoch": float(args["num_train_epochs"]), "step": global_step, "total_flos": 0.0,
                        "train_loss": all_loss / global_step, "train_runtime": round(rt, 4),
                        "train_samples_per_second": round(len(train_ds) * args["num_train_epochs"] / rt, 3),
                        "train_steps_per_second": round(global_step / rt, 3)})
    state = {"best_global_step": None, "best_metric": None, "best_model_checkpoint": None,
             "epoch": float(args["num_train_epochs"]), "eval_steps": args["logging_steps"], "global_step": global_step,
             "is_hyper_param_search": False, "is_local_process_zero": True, "is_world_process_zero": True,
             "log_history": log_history, "logging_steps": args["logging_steps"], "max_steps": max_steps,
             "num_input_tokens_seen": 0, "num_train_epochs": args["num_train_epochs"], "save_steps": 500,
             "stateful_callbacks": {"TrainerControl": {"args": {"should_epoch_stop": False, "should_evaluate": False,
                                    "should_log": False, "should_save": True, "should_training_stop": True}, "attributes": {}}},
             "total_flos": 0.0, "train_batch_size": args["per_device_train_batch_size"], "trial_name": None, "trial_params": None}
    out = args["output_dir"]
    with open(os.path.join(out, "trainer_state.json"), "w") as f:
        json.dump(state, f, indent=2, sort_keys=True)
    with open(os.path.join(out, "training_args.json"), "w") as f:
        json.dump(args, f, indent=2)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    main()
