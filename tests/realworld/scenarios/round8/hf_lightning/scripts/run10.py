import json, os, time, random
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import load_digits

torch.set_num_threads(1)

args = {
    "output_dir": ".",
    "num_train_epochs": 15,
    "per_device_train_batch_size": 32,
    "per_device_eval_batch_size": 32,
    "learning_rate": 1e-3,
    "weight_decay": 0.0,
    "lr_scheduler_type": "constant",
    "max_grad_norm": 1.0,
    "logging_steps": 10,
    "eval_strategy": "epoch",
    "save_strategy": "no",
    "seed": 0,
}


class DigitNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.5), nn.Linear(64 * 16, 128), nn.BatchNorm1d(128), nn.ReLU(),
                                  nn.Dropout(0.5), nn.Linear(128, 10))
    def forward(self, x):
        return self.head(self.conv(x))


def split_per_class(X, y, frac=0.2):
    tr_idx, va_idx = [], []
    for c in range(10):
        idx = np.where(y == c)[0]
        n_va = int(len(idx) * frac)
        va_idx.extend(idx[-n_va:]); tr_idx.extend(idx[:-n_va])
    return np.array(tr_idx), np.array(va_idx)


def compute_metrics(logits, labels):
    return {"accuracy": (logits.argmax(-1) == labels).float().mean().item()}


def evaluate(model, dl):
    t0 = time.time(); losses, all_logits, all_labels = [], [], []
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            losses.append(nn.functional.cross_entropy(out, yb).item())
            all_logits.append(out); all_labels.append(yb)
    rt = time.time() - t0
    m = {"eval_loss": float(np.mean(losses))}
    m.update({f"eval_{k}": v for k, v in compute_metrics(torch.cat(all_logits), torch.cat(all_labels)).items()})
    m.update({"eval_runtime": round(rt, 4), "eval_samples_per_second": round(len(dl.dataset) / rt, 3),
              "eval_steps_per_second": round(len(dl) / rt, 3)})
    return m


def main():
    random.seed(args["seed"]); np.random.seed(args["seed"]); torch.manual_seed(args["seed"])
    digits = load_digits()
    X = (digits.images / 16.0).astype(np.float32)[:, None]
    y = digits.target
    tr_idx, va_idx = split_per_class(X, y)
    train_ds = TensorDataset(torch.tensor(X[tr_idx]), torch.tensor(y[tr_idx]))
    eval_ds = TensorDataset(torch.tensor(X[va_idx]), torch.tensor(y[va_idx]))
    train_dl = DataLoader(train_ds, batch_size=args["per_device_train_batch_size"], shuffle=True,
                          generator=torch.Generator().manual_seed(args["seed"]))
    eval_dl = DataLoader(eval_ds, batch_size=args["per_device_eval_batch_size"])

    model = DigitNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=args["learning_rate"], weight_decay=args["weight_decay"])
    steps_per_epoch = len(train_dl)
    log_history, global_step, tr, k, total = [], 0, 0.0, 0, 0.0
    t_start = time.time()
    model.train()
    for epoch in range(args["num_train_epochs"]):
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            optimizer.step()
            global_step += 1; tr += loss.item(); k += 1; total += loss.item()
            if global_step % args["logging_steps"] == 0:
                log_history.append({"epoch": round(global_step / steps_per_epoch, 4), "grad_norm": gn.item(),
                                    "learning_rate": optimizer.param_groups[0]["lr"], "loss": round(tr / k, 4), "step": global_step})
                tr, k = 0.0, 0
        m = evaluate(model, eval_dl)
        m.update(epoch=float(epoch + 1), step=global_step)
        log_history.append(dict(sorted(m.items())))
    runtime = time.time() - t_start
    log_history.append({"epoch": float(args["num_train_epochs"]), "step": global_step, "total_flos": 0.0,
                        "train_loss": total / global_step, "train_runtime": round(runtime, 4),
                        "train_samples_per_second": round(len(train_ds) * args["num_train_epochs"] / runtime, 3),
                        "train_steps_per_second": round(global_step / runtime, 3)})
    state = {"best_global_step": None, "best_metric": None, "best_model_checkpoint": None,
             "epoch": float(args["num_train_epochs"]), "eval_steps": args["logging_steps"], "global_step": global_step,
             "is_hyper_param_search": False, "is_local_process_zero": True, "is_world_process_zero": True,
             "log_history": log_history, "logging_steps": args["logging_steps"], "max_steps": steps_per_epoch * args["num_train_epochs"],
             "num_input_tokens_seen": 0, "num_train_epochs": args["num_train_epochs"], "save_steps": 500,
             "stateful_callbacks": {"TrainerControl": {"args": {"should_epoch_stop": False, "should_evaluate": False,
                                    "should_log": False, "should_save": True, "should_training_stop": True}, "attributes": {}}},
             "total_flos": 0.0, "train_batch_size": args["per_device_train_batch_size"], "trial_name": None, "trial_params": None}
    with open(os.path.join(args["output_dir"], "trainer_state.json"), "w") as f:
        json.dump(state, f, indent=2, sort_keys=True)
    with open(os.path.join(args["output_dir"], "training_args.json"), "w") as f:
        json.dump(args, f, indent=2)


if __name__ == "__main__":
    main()
