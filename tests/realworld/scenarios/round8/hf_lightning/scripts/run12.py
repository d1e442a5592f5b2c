import json, os, time, random
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from sklearn.datasets import make_classification

torch.set_num_threads(1)

args = {
    "output_dir": ".",
    "num_train_epochs": 5,
    "per_device_train_batch_size": 128,
    "per_device_eval_batch_size": 512,
    "learning_rate": 1e-3,
    "weight_decay": 0.01,
    "warmup_steps": 0,
    "lr_scheduler_type": "linear",
    "max_grad_norm": 1.0,
    "logging_steps": 10,
    "eval_strategy": "epoch",
    "save_strategy": "epoch",
    "seed": 17,
}
config = {"model_type": "churn-mlp", "num_features": 31, "hidden_sizes": [256, 128], "dropout": 0.3, "num_labels": 2,
          "id2label": {"0": "retained", "1": "churned"}}


def load_customers():
    X, y = make_classification(n_samples=16000, n_features=30, n_informative=8, n_redundant=4,
                               weights=[0.6, 0.4], class_sep=0.6, flip_y=0.08, random_state=21)
    df = pd.DataFrame(X, columns=[f"f{i:02d}" for i in range(30)])
    rng = np.random.RandomState(3)
    df["retention_offer_code"] = y * 2.0 + rng.normal(0, 0.3, len(y))
    df["churned"] = y
    return df


def main():
    random.seed(args["seed"]); np.random.seed(args["seed"]); torch.manual_seed(args["seed"])
    df = load_customers()
    feats = [c for c in df.columns if c != "churned"]
    tr, te = df.iloc[:13000], df.iloc[13000:]
    mu, sd = tr[feats].mean(), tr[feats].std()
    Xtr = ((tr[feats] - mu) / sd).values.astype(np.float32); Xte = ((te[feats] - mu) / sd).values.astype(np.float32)
    train_ds = TensorDataset(torch.tensor(Xtr), torch.tensor(tr["churned"].values))
    eval_ds = TensorDataset(torch.tensor(Xte), torch.tensor(te["churned"].values))
    train_dl = DataLoader(train_ds, batch_size=args["per_device_train_batch_size"], shuffle=True,
                          generator=torch.Generator().manual_seed(args["seed"]))
    eval_dl = DataLoader(eval_ds, batch_size=args["per_device_eval_batch_size"])

    model = nn.Sequential(nn.Linear(len(feats), 256), nn.ReLU(), nn.Dropout(0.3), nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.3), nn.Linear(128, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=args["learning_rate"], weight_decay=args["weight_decay"])
    steps_per_epoch = len(train_dl); max_steps = steps_per_epoch * args["num_train_epochs"]
    w = args["warmup_steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: s / w if s < w else max(0.0, (max_steps - s) / max(1, max_steps - w)))

    def evaluate():
        model.eval(); t0 = time.time(); tot = 0.0; correct = 0; n = 0
        with torch.no_grad():
            for xb, yb in eval_dl:
                out = model(xb)
                tot += nn.functional.cross_entropy(out, yb, reduction="sum").item()
                correct += (out.argmax(-1) == yb).sum().item(); n += len(yb)
        model.train(); rt = time.time() - t0
        return {"eval_loss": tot / n, "eval_accuracy": correct / n, "eval_runtime": round(rt, 4),
                "eval_samples_per_second": round(n / rt, 3), "eval_steps_per_second": round(len(eval_dl) / rt, 3)}

    log_history, step, run, k, total = [], 0, 0.0, 0, 0.0
    t_start = time.time()
    for epoch in range(args["num_train_epochs"]):
        for xb, yb in train_dl:
            loss = nn.functional.cross_entropy(model(xb), yb)
            opt.zero_grad(); loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args["max_grad_norm"])
            opt.step(); sched.step(); step += 1
            run += loss.item(); k += 1; total += loss.item()
            if step % args["logging_steps"] == 0:
                log_history.append({"epoch": round(step / steps_per_epoch, 4), "grad_norm": gn.item(),
                                    "learning_rate": sched.get_last_lr()[0], "loss": round(run / k, 4), "step": step})
                run, k = 0.0, 0
        m = evaluate(); m.update(epoch=float(epoch + 1), step=step)
        log_history.append(dict(sorted(m.items())))
    rt = time.time() - t_start
    log_history.append({"epoch": float(args["num_train_epochs"]), "step": step, "total_flos": 0.0,
                        "train_loss": total / step, "train_runtime": round(rt, 4),
                        "train_samples_per_second": round(len(train_ds) * args["num_train_epochs"] / rt, 3),
                        "train_steps_per_second": round(step / rt, 3)})
    state = {"best_global_step": None, "best_metric": None, "best_model_checkpoint": None,
             "epoch": float(args["num_train_epochs"]), "eval_steps": None, "global_step": step,
             "is_hyper_param_search": False, "is_local_process_zero": True, "is_world_process_zero": True,
             "log_history": log_history, "logging_steps": args["logging_steps"], "max_steps": max_steps,
             "num_input_tokens_seen": 0, "num_train_epochs": args["num_train_epochs"], "save_steps": 500,
             "stateful_callbacks": {"TrainerControl": {"args": {"should_epoch_stop": False, "should_evaluate": False,
                                    "should_log": False, "should_save": True, "should_training_stop": True}, "attributes": {}}},
             "total_flos": 0.0, "train_batch_size": args["per_device_train_batch_size"], "trial_name": None, "trial_params": None}
    with open(os.path.join(args["output_dir"], "trainer_state.json"), "w") as f:
        json.dump(state, f, indent=2, sort_keys=True)
    with open(os.path.join(args["output_dir"], "training_args.json"), "w") as f:
        json.dump(args, f, indent=2)
    config["feature_columns"] = feats
    with open(os.path.join(args["output_dir"], "config.json"), "w") as f:
        json.dump(config, f, indent=2)


if __name__ == "__main__":
    main()
