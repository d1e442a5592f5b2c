import argparse
import json
import logging
import time

import numpy as np
import torch
import torch.nn as nn
import yaml
from google.cloud import storage
from torch.utils.data import DataLoader, Dataset

logging.basicConfig(format="%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s", level=logging.INFO)
log = logging.getLogger(__name__)

CATS = {
    "plan": ["basic", "plus", "pro", "family", "student"],
    "region": ["na", "emea", "apac", "latam"],
    "device": ["ios", "android", "web", "tv"],
    "channel": ["organic", "paid", "referral", "partner", "email", "other"],
}
N_NUM = 120


class EventsDataset(Dataset):
    """One JSON record per line, exported from BigQuery."""

    def __init__(self, path):
        with open(path) as f:
            self.lines = f.readlines()

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        rec = json.loads(self.lines[i])
        feats = []
        for j in range(N_NUM):
            v = rec["num"].get(f"f{j}")
            feats.append(0.0 if v is None else float(v))
        for name, values in CATS.items():
            onehot = [0.0] * len(values)
            onehot[values.index(rec[name])] = 1.0
            feats.extend(onehot)
        x = torch.tensor(feats, dtype=torch.float32)
        return x, torch.tensor(rec["label"], dtype=torch.long)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.yaml")
    p.add_argument("--train", default="gs://acme-growth-data/events/2024-05/train.jsonl")
    p.add_argument("--val", default="gs://acme-growth-data/events/2024-05/val.jsonl")
    args = p.parse_args()
    cfg = yaml.safe_load(open(args.config))

    train_ds = EventsDataset(download(args.train))
    val_ds = EventsDataset(download(args.val))
    train_dl = DataLoader(train_ds, batch_size=cfg["batch_size"], shuffle=True, num_workers=cfg["num_workers"])
    val_dl = DataLoader(val_ds, batch_size=cfg["batch_size"], num_workers=cfg["num_workers"])
    log.info("train rows=%d val rows=%d batch_size=%d steps/epoch=%d", len(train_ds), len(val_ds),
             cfg["batch_size"], len(train_dl))

    n_in = N_NUM + sum(len(v) for v in CATS.values())
    model = nn.Sequential(nn.Linear(n_in, cfg["hidden"]), nn.ReLU(), nn.Linear(cfg["hidden"], cfg["hidden"]),
                          nn.ReLU(), nn.Linear(cfg["hidden"], 2))
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    log.info("model params=%d", sum(p.numel() for p in model.parameters()))

    for epoch in range(1, cfg["epochs"] + 1):
        model.train()
        t_end = time.perf_counter()
        data_t = comp_t = 0.0
        for step, (x, y) in enumerate(train_dl, 1):
            t_data = time.perf_counter()
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            t_comp = time.perf_counter()
            data_t += t_data - t_end
            comp_t += t_comp - t_data
            if step % cfg["log_every"] == 0:
                n = cfg["log_every"]
                log.info("epoch=%d step=%d/%d loss=%.4f data_time=%.3fs compute_time=%.3fs throughput=%.1f samples/s",
                         epoch, step, len(train_dl), loss.item(), data_t / n, comp_t / n,
                         n * cfg["batch_size"] / (data_t + comp_t))
                data_t = comp_t = 0.0
            t_end = time.perf_counter()
        acc, t_eval = evaluate(model, val_dl)
        log.info("epoch=%d val_acc=%.4f eval_time=%.1fs", epoch, acc, t_eval)
        torch.save(model.state_dict(), f"/tmp/model_e{epoch}.pt")
    upload("/tmp/model_e%d.pt" % cfg["epochs"], "gs://acme-growth-models/churn-mlp/model.pt")


def evaluate(model, dl):
    t0 = time.perf_counter()
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in dl:
            correct += (model(x).argmax(1) == y).sum().item()
            total += len(y)
    return correct / total, time.perf_counter() - t0


def download(uri):
    bucket, _, blob = uri[len("gs://"):].partition("/")
    local = "/tmp/" + blob.replace("/", "_")
    storage.Client().bucket(bucket).blob(blob).download_to_filename(local)
    return local


def upload(local, uri):
    bucket, _, blob = uri[len("gs://"):].partition("/")
    storage.Client().bucket(bucket).blob(blob).upload_from_filename(local)


if __name__ == "__main__":
    main()
