import json, math, os, time, random
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.set_num_threads(1)

args = {
    "output_dir": ".",
    "num_train_epochs": 10,
    "per_device_train_batch_size": 32,
    "per_device_eval_batch_size": 256,
    "learning_rate": 3e-3,
    "weight_decay": 0.0,
    "warmup_ratio": 0.1,
    "lr_scheduler_type": "cosine",
    "max_grad_norm": 1.0,
    "logging_steps": 20,
    "eval_strategy": "epoch",
    "save_strategy": "no",
    "seed": 7,
}
model_config = {"model_type": "conv1d-waveform", "in_channels": 1, "channels": [16, 32, 64], "kernel_size": 5,
                "num_labels": 4, "seq_len": 128, "id2label": {"0": "sine", "1": "square", "2": "sawtooth", "3": "chirp"}}


def make_waveforms(n, rng, T=128):
    t = np.linspace(0, 1, T)
    X = np.zeros((n, 1, T), np.float32); y = rng.randint(0, 4, n)
    for i in range(n):
        f = rng.uniform(2, 6); ph = rng.uniform(0, 2 * np.pi)
        if y[i] == 0:
            s = np.sin(2 * np.pi * f * t + ph)
        elif y[i] == 1:
            s = np.sign(np.sin(2 * np.pi * f * t + ph))
        elif y[i] == 2:
            s = 2 * ((f * t + ph / (2 * np.pi)) % 1.0) - 1
        else:
            s = np.sin(2 * np.pi * (f * t + 3 * t ** 2) + ph)
        X[i, 0] = s * rng.uniform(0.5, 1.5) + rng.normal(0, 0.6, T)
    return X, y


class WaveCNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        layers, c_in = [], cfg["in_channels"]
        for c in cfg["channels"]:
            layers += [nn.Conv1d(c_in, c, cfg["kernel_size"], padding=cfg["kernel_size"] // 2), nn.ReLU(), nn.MaxPool1d(2)]
            c_in = c
        self.features = nn.Sequential(*layers)
        self.head = nn.Linear(c_in, cfg["num_labels"])
    def forward(self, x):
        return self.head(self.features(x).mean(-1))


def cosine_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step) / float(max(1, num_warmup_steps))
        progress = float(step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def evaluate(model, dl):
    model.eval(); t0 = time.time(); tot = 0.0; correct = 0; n = 0
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            tot += nn.functional.cross_entropy(out, yb, reduction="sum").item()
            correct += (out.argmax(-1) == yb).sum().item(); n += len(yb)
    model.train(); rt = time.time() - t0
    return {"eval_loss": tot / n, "eval_accuracy": correct / n, "eval_runtime": round(rt, 4),
            "eval_samples_per_second": round(n / rt, 3), "eval_steps_per_second": round(len(dl) / rt, 3)}


def main():
    random.seed(args["seed"]); np.random.seed(args["seed"]); torch.manual_seed(args["seed"])
    rng = np.random.RandomState(1)
    X, y = make_waveforms(3000, rng)
    train_ds = TensorDataset(torch.tensor(X[:2400]), torch.tensor(y[:2400]))
    eval_ds = TensorDataset(torch.tensor(X[2400:]), torch.tensor(y[2400:]))
    train_dl = DataLoader(train_ds, batch_size=args["per_device_train_batch_size"], shuffle=True,
                          generator=torch.Generator().manual_seed(args["seed"]))
    eval_dl = DataLoader(eval_ds, batch_size=args["per_device_eval_batch_size"])

    model = WaveCNN(model_config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"], weight_decay=args["weight_decay"])
    num_training_steps = len(train_ds) * args["num_train_epochs"]
    num_warmup_steps = int(args["warmup_ratio"] * num_training_steps)
    scheduler = cosine_with_warmup(optimizer, num_warmup_steps, num_training_steps)

    steps_per_epoch = len(train_dl)
    log_history = []; global_step = 0; tr, k, total = 0.0, 0, 0.0
    t_start = time.time()
    for epoch in range(args["num_train_epochs"]):
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            optimizer.step(); scheduler.step(); optimizer.zero_grad()
            global_step += 1; tr += loss.item(); k += 1; total += loss.item()
            if global_step % args["logging_steps"] == 0:
                log_history.append({"epoch": round(global_step / steps_per_epoch, 4), "grad_norm": grad_norm.item(),
                                    "learning_rate": scheduler.get_last_lr()[0], "loss": round(tr / k, 4), "step": global_step})
                tr, k = 0.0, 0
        metrics = evaluate(model, eval_dl)
        metrics.update(epoch=float(epoch + 1), step=global_step)
        log_history.append(dict(sorted(metrics.items())))
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
    with open(os.path.join(args["output_dir"], "config.json"), "w") as f:
        json.dump(model_config, f, indent=2)


if __name__ == "__main__":
    main()
