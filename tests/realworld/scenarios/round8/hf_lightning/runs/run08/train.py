import argparse, json, math, os, time, random
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--output_dir", default=".")
parser.add_argument("--resume_from_checkpoint", default=None)
cli = parser.parse_args()

args = {
    "output_dir": cli.output_dir,
    "num_train_epochs": 12,
    "per_device_train_batch_size": 64,
    "per_device_eval_batch_size": 512,
    "learning_rate": 3e-3,
    "weight_decay": 0.01,
    "warmup_steps": 0,
    "lr_scheduler_type": "linear",
    "max_grad_norm": 1.0,
    "logging_steps": 25,
    "eval_strategy": "epoch",
    "save_strategy": "steps",
    "save_steps": 250,
    "seed": 123,
    "resume_from_checkpoint": cli.resume_from_checkpoint,
}


class TabularMLP(nn.Module):
    def __init__(self, d_in, n_classes):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 256), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(256, 256), nn.ReLU(), nn.Dropout(0.1),
                                 nn.Linear(256, n_classes))
    def forward(self, x):
        return self.net(x)


def get_scheduler(optimizer, warmup, total):
    def f(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total - step) / max(1, total - warmup))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)


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


def trainer_state(log_history, global_step, epoch, max_steps):
    return {"best_global_step": None, "best_metric": None, "best_model_checkpoint": None, "epoch": epoch,
            "eval_steps": args["logging_steps"], "global_step": global_step, "is_hyper_param_search": False,
            "is_local_process_zero": True, "is_world_process_zero": True, "log_history": log_history,
            "logging_steps": args["logging_steps"], "max_steps": max_steps, "num_input_tokens_seen": 0,
            "num_train_epochs": args["num_train_epochs"], "save_steps": args["save_steps"],
            "stateful_callbacks": {"TrainerControl": {"args": {"should_epoch_stop": False, "should_evaluate": False,
                                   "should_log": False, "should_save": True, "should_training_stop": False}, "attributes": {}}},
            "total_flos": 0.0, "train_batch_size": args["per_device_train_batch_size"], "trial_name": None, "trial_params": None}


def save_checkpoint(model, optimizer, scheduler, log_history, global_step, steps_per_epoch, max_steps):
    d = os.path.join(args["output_dir"], f"checkpoint-{global_step}")
    os.makedirs(d, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(d, "pytorch_model.bin"))
    torch.save(optimizer.state_dict(), os.path.join(d, "optimizer.pt"))
    torch.save(scheduler.state_dict(), os.path.join(d, "scheduler.pt"))
    with open(os.path.join(d, "trainer_state.json"), "w") as f:
        json.dump(trainer_state(log_history, global_step, global_step / steps_per_epoch, max_steps), f, indent=2, sort_keys=True)


def main():
    random.seed(args["seed"]); np.random.seed(args["seed"]); torch.manual_seed(args["seed"])
    X, y = make_classification(n_samples=10000, n_features=40, n_informative=16, n_redundant=8, n_classes=4,
                               n_clusters_per_class=3, class_sep=1.0, flip_y=0.02, random_state=11)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.2, random_state=0)
    sc = StandardScaler().fit(X_tr)
    X_tr, X_te = sc.transform(X_tr).astype(np.float32), sc.transform(X_te).astype(np.float32)
    train_ds = TensorDataset(torch.tensor(X_tr), torch.tensor(y_tr))
    eval_dl = DataLoader(TensorDataset(torch.tensor(X_te), torch.tensor(y_te)), batch_size=args["per_device_eval_batch_size"])
    train_dl = DataLoader(train_ds, batch_size=args["per_device_train_batch_size"], shuffle=True,
                          generator=torch.Generator().manual_seed(args["seed"]))

    model = TabularMLP(X.shape[1], 4)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"], weight_decay=args["weight_decay"])
    steps_per_epoch = len(train_dl)
    max_steps = steps_per_epoch * args["num_train_epochs"]
    scheduler = get_scheduler(optimizer, args["warmup_steps"], max_steps)

    log_history, global_step, start_epoch = [], 0, 0
    if args["resume_from_checkpoint"]:
        ckpt = args["resume_from_checkpoint"]
        model.load_state_dict(torch.load(os.path.join(ckpt, "pytorch_model.bin")))
        with open(os.path.join(ckpt, "trainer_state.json")) as f:
            st = json.load(f)
        log_history, global_step = st["log_history"], st["global_step"]
        start_epoch = global_step // steps_per_epoch
        print(f"resuming from {ckpt} at step {global_step}")

    tr, k, total, steps_this_run = 0.0, 0, 0.0, 0
    t_start = time.time()
    model.train()
    for epoch in range(start_epoch, args["num_train_epochs"]):
        for i, (xb, yb) in enumerate(train_dl):
            if epoch * steps_per_epoch + i < global_step:
                continue
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            optimizer.step(); scheduler.step()
            global_step += 1; steps_this_run += 1; tr += loss.item(); k += 1; total += loss.item()
            if global_step % args["logging_steps"] == 0:
                log_history.append({"epoch": round(global_step / steps_per_epoch, 4), "grad_norm": gn.item(),
                                    "learning_rate": scheduler.get_last_lr()[0], "loss": round(tr / k, 4), "step": global_step})
                tr, k = 0.0, 0
            if i == steps_per_epoch - 1:
                m = evaluate(model, eval_dl)
                m.update(epoch=float(epoch + 1), step=global_step)
                log_history.append(dict(sorted(m.items())))
            if global_step % args["save_steps"] == 0:
                save_checkpoint(model, optimizer, scheduler, log_history, global_step, steps_per_epoch, max_steps)

    runtime = time.time() - t_start
    log_history.append({"epoch": float(args["num_train_epochs"]), "step": global_step, "total_flos": 0.0,
                        "train_loss": total / max(1, steps_this_run), "train_runtime": round(runtime, 4),
                        "train_samples_per_second": round(len(train_ds) * args["num_train_epochs"] / runtime, 3),
                        "train_steps_per_second": round(steps_this_run / runtime, 3)})
    st = trainer_state(log_history, global_step, float(args["num_train_epochs"]), max_steps)
    st["stateful_callbacks"]["TrainerControl"]["args"]["should_training_stop"] = True
    with open(os.path.join(args["output_dir"], "trainer_state.json"), "w") as f:
        json.dump(st, f, indent=2, sort_keys=True)
    with open(os.path.join(args["output_dir"], "training_args.json"), "w") as f:
        json.dump(args, f, indent=2)


if __name__ == "__main__":
    main()
