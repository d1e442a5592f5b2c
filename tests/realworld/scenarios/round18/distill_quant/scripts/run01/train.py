import argparse
import json
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)

p = argparse.ArgumentParser()
p.add_argument("--output_dir", default="outputs/gru-distill")
p.add_argument("--num_train_epochs", type=int, default=6)
p.add_argument("--per_device_train_batch_size", type=int, default=32)
p.add_argument("--learning_rate", type=float, default=0.3)
p.add_argument("--weight_decay", type=float, default=0.01)
p.add_argument("--warmup_steps", type=int, default=60)
p.add_argument("--max_grad_norm", type=float, default=1.0)
p.add_argument("--logging_steps", type=int, default=5)
p.add_argument("--alpha_kd", type=float, default=0.5)
p.add_argument("--temperature", type=float, default=2.0)
p.add_argument("--seed", type=int, default=42)
args = p.parse_args()
os.makedirs(args.output_dir, exist_ok=True)
torch.manual_seed(args.seed)

VOCAB, SEQ, K = 32, 24, 4


def make_sequences(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, K, (n,), generator=g)
    base = torch.randint(2, VOCAB, (n, SEQ), generator=g)
    keyword = 2 + 5 * y[:, None] + torch.randint(0, 5, (n, SEQ), generator=g)
    use_kw = torch.rand(n, SEQ, generator=g) < 0.28
    return torch.where(use_kw, keyword, base), y


class GRUClassifier(nn.Module):
    def __init__(self, emb, hidden, layers):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, emb)
        self.rnn = nn.GRU(emb, hidden, num_layers=layers, batch_first=True)
        self.head = nn.Linear(hidden, K)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.head(out[:, -1])


def evaluate(model, x, y):
    model.eval()
    with torch.no_grad():
        logits = model(x)
    model.train()
    return F.cross_entropy(logits, y).item(), (logits.argmax(1) == y).float().mean().item()


x_train, y_train = make_sequences(3200, 1)
x_eval, y_eval = make_sequences(800, 2)

# teacher (pretrained in a previous stage; re-trained here for self-containment)
teacher = GRUClassifier(32, 96, 2)
opt = torch.optim.AdamW(teacher.parameters(), lr=3e-3)
for epoch in range(6):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), 32):
        idx = perm[i:i + 32]
        loss = F.cross_entropy(teacher(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(teacher.parameters(), 1.0)
        opt.step()
teacher.eval()
t_loss, t_acc = evaluate(teacher, x_eval, y_eval)
teacher.eval()
print(f"***** teacher eval: eval_loss = {t_loss:.4f}, eval_accuracy = {t_acc:.4f}")

student = GRUClassifier(16, 32, 1)
json.dump(vars(args), open(os.path.join(args.output_dir, "training_args.json"), "w"), indent=2)
steps_per_epoch = math.ceil(len(x_train) / args.per_device_train_batch_size)
max_steps = steps_per_epoch * args.num_train_epochs
decay, no_decay = [], []
for n, prm in student.named_parameters():
    (no_decay if n.endswith("bias") else decay).append(prm)
optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay},
                               {"params": no_decay, "weight_decay": 0.0}], lr=args.learning_rate)


def lr_lambda(step):
    if step < args.warmup_steps:
        return float(step) / float(max(1, args.warmup_steps))
    return max(0.0, float(max_steps - step) / float(max(1, max_steps - args.warmup_steps)))


scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
print("***** Running distillation *****")
print(f"  Num examples = {len(x_train)}")
print(f"  Num Epochs = {args.num_train_epochs}")
print(f"  Instantaneous batch size per device = {args.per_device_train_batch_size}")
print(f"  Total optimization steps = {max_steps}")
print(f"  Number of trainable parameters = {sum(p.numel() for p in student.parameters())}")
log_history = []
T, a = args.temperature, args.alpha_kd
step = 0
acc_loss = acc_kd = acc_ce = 0.0
acc_n = 0
t_start = time.time()
best = None
for epoch in range(args.num_train_epochs):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), args.per_device_train_batch_size):
        idx = perm[i:i + args.per_device_train_batch_size]
        ids, labels = x_train[idx], y_train[idx]
        with torch.no_grad():
            t_logits = teacher(ids)
        s_logits = student(ids)
        ce_loss = F.cross_entropy(s_logits, labels)
        kd_loss = F.kl_div(F.log_softmax(s_logits / T, -1), F.softmax(t_logits / T, -1),
                           reduction="batchmean") * T ** 2
        loss = a * kd_loss + (1 - a) * ce_loss
        loss.backward()
        grad_norm = nn.utils.clip_grad_norm_(student.parameters(), args.max_grad_norm)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        step += 1
        acc_loss += loss.item()
        acc_kd += kd_loss.item()
        acc_ce += ce_loss.item()
        acc_n += 1
        if step % args.logging_steps == 0:
            rec = {"loss": round(acc_loss / acc_n, 4), "kd_loss": round(acc_kd / acc_n, 4),
                   "ce_loss": round(acc_ce / acc_n, 4), "grad_norm": round(float(grad_norm), 4),
                   "learning_rate": scheduler.get_last_lr()[0], "epoch": round(step / steps_per_epoch, 2)}
            print(rec)
            log_history.append({**rec, "step": step})
            acc_loss = acc_kd = acc_ce = 0.0
            acc_n = 0
    e_loss, e_acc = evaluate(student, x_eval, y_eval)
    rec = {"eval_loss": round(e_loss, 4), "eval_student_accuracy": round(e_acc, 4),
           "eval_teacher_accuracy": round(t_acc, 4), "epoch": float(epoch + 1)}
    print(rec)
    log_history.append({**rec, "step": step})
    if best is None or e_acc > best[0]:
        best = (e_acc, f"{args.output_dir}/checkpoint-{step}")
runtime = time.time() - t_start
final = {"train_runtime": round(runtime, 2), "train_samples_per_second": round(len(x_train) * args.num_train_epochs / runtime, 2),
         "train_steps_per_second": round(step / runtime, 3), "train_loss": round(sum(r["loss"] for r in log_history if "loss" in r) / sum(1 for r in log_history if "loss" in r), 4),
         "epoch": float(args.num_train_epochs)}
print(final)
log_history.append({**final, "step": step})
state = {"best_metric": best[0], "best_model_checkpoint": best[1], "epoch": float(args.num_train_epochs),
         "global_step": step, "max_steps": max_steps, "logging_steps": args.logging_steps,
         "num_train_epochs": args.num_train_epochs, "train_batch_size": args.per_device_train_batch_size,
         "log_history": log_history}
json.dump(state, open(os.path.join(args.output_dir, "trainer_state.json"), "w"), indent=2)
