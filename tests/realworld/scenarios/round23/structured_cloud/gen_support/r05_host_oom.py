"""kubectl logs + kubectl describe pod + train.py. The trainer caches a float64 copy of every tile in
Dataset.__getitem__; a real child process is SIGKILLed when its measured RSS crosses the 1Gi limit."""
import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time

from .common import write

LIMIT_MB = 1024
START = dt.datetime(2024, 7, 9, 14, 3, 15, 402000)

TRAIN_PY = '''import argparse

import numpy as np
import psutil
import structlog
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

structlog.configure(processors=[structlog.processors.add_log_level,
                                structlog.processors.TimeStamper(fmt="iso", utc=True),
                                structlog.processors.JSONRenderer()])
log = structlog.get_logger()
proc = psutil.Process()

MEAN = np.array([0.485, 0.456, 0.406]).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225]).reshape(3, 1, 1)


class TileDataset(Dataset):
    def __init__(self, images, labels, mean, std):
        self.images = images
        self.labels = labels
        self.mean = mean
        self.std = std
        self._cache = {}  # normalising every epoch was slow, keep the result

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        if i not in self._cache:
            x = (self.images[i].astype(np.float64) / 255.0 - self.mean) / self.std
            self._cache[i] = x
        return torch.from_numpy(self._cache[i]).float(), int(self.labels[i])


def build_model(k):
    return nn.Sequential(
        nn.Conv2d(3, 16, 5, stride=4), nn.ReLU(),
        nn.Conv2d(16, 32, 3, stride=2), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, k),
    )


def rss_mb():
    return round(proc.memory_info().rss / 2**20, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/data/tiles_v3.npz")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--val-size", type=int, default=400)
    args = ap.parse_args()

    d = np.load(args.data)
    images, labels = d["images"], d["labels"]
    tr_img, tr_lab = images[args.val_size:], labels[args.val_size:]
    log.info("dataset loaded", path=args.data, n_train=len(tr_img), n_val=args.val_size,
             shape=list(images.shape[1:]), dtype=str(images.dtype), nbytes_mb=round(images.nbytes / 2**20, 1))

    ds = TileDataset(tr_img, tr_lab, MEAN, STD)
    dl = DataLoader(ds, batch_size=args.batch_size, shuffle=True, num_workers=0)
    model = build_model(int(labels.max()) + 1)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    log.info("start training", epochs=args.epochs, batch_size=args.batch_size, lr=args.lr,
             steps_per_epoch=len(dl), mem_rss_mb=rss_mb())

    step = 0
    for epoch in range(1, args.epochs + 1):
        model.train()
        for x, y in dl:
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                log.info("train_step", epoch=epoch, step=step, loss=round(loss.item(), 4), mem_rss_mb=rss_mb())
        log.info("epoch done", epoch=epoch, step=step, mem_rss_mb=rss_mb())
        torch.save(model.state_dict(), f"/ckpt/epoch_{epoch:03d}.pt")


if __name__ == "__main__":
    main()
'''


def _rss_of(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except FileNotFoundError:
        return None
    return 0.0


def k8s_time(t):
    return t.strftime("%a, %d %b %Y %H:%M:%S +0000")


def make(out):
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gen_support.oom_child", START.isoformat(), repr(t0)], cwd=here,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []

    def reader():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    th = threading.Thread(target=reader)
    th.start()
    peak = 0.0
    killed_at = None
    while proc.poll() is None:
        m = _rss_of(proc.pid)
        if m is None:
            break
        peak = max(peak, m)
        if m > LIMIT_MB:
            os.kill(proc.pid, signal.SIGKILL)
            killed_at = time.perf_counter() - t0
            break
        time.sleep(0.003)
        if time.perf_counter() - t0 > 120:
            os.kill(proc.pid, signal.SIGKILL)
            raise RuntimeError("oom child did not reach the limit")
    rc = proc.wait()
    th.join()
    err = proc.stderr.read()
    if killed_at is None:
        raise RuntimeError(f"child exited rc={rc} without hitting the limit: {err[-2000:]}")
    exit_code = 128 - rc if rc < 0 else rc  # -9 -> 137
    finished = START + dt.timedelta(seconds=killed_at)
    write(f"{out}/kubectl_logs_tile-clf-train-7k2xq.txt", "\n".join(lines) + "\n")
    describe = f"""$ kubectl describe pod tile-clf-train-7k2xq -n ml-team
Name:             tile-clf-train-7k2xq
Namespace:        ml-team
Priority:         0
Service Account:  default
Node:             gke-ml-pool-n2-standard-8-3f9c2a1e-x7pl/10.128.0.41
Start Time:       {k8s_time(START - dt.timedelta(seconds=6))}
Labels:           batch.kubernetes.io/controller-uid=8d0f4c5e-2a1b-4b8e-9a3f-6c2d1e7f0a94
                  batch.kubernetes.io/job-name=tile-clf-train
                  controller-uid=8d0f4c5e-2a1b-4b8e-9a3f-6c2d1e7f0a94
                  job-name=tile-clf-train
Annotations:      <none>
Status:           Failed
IP:               10.52.3.17
IPs:
  IP:           10.52.3.17
Controlled By:  Job/tile-clf-train
Containers:
  trainer:
    Container ID:  containerd://5be1a0c3f7d24e0b9b8a6a3c1e2f4d5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e
    Image:         us-docker.pkg.dev/acme-geo/train/tile-clf:0.4.2
    Image ID:      us-docker.pkg.dev/acme-geo/train/tile-clf@sha256:0f5e3a7c9d1b2e4f6a8c0e2d4f6b8a0c2e4d6f8a0b2c4e6d8f0a2c4e6b8d0f2a
    Port:          <none>
    Host Port:     <none>
    Command:
      python
      train.py
    Args:
      --data=/data/tiles_v3.npz
      --epochs=20
      --batch-size=32
      --lr=0.001
    State:          Terminated
      Reason:       OOMKilled
      Exit Code:    {exit_code}
      Started:      {k8s_time(START)}
      Finished:     {k8s_time(finished)}
    Ready:          False
    Restart Count:  0
    Limits:
      cpu:     4
      memory:  {LIMIT_MB // 1024}Gi
    Requests:
      cpu:        4
      memory:     {LIMIT_MB // 1024}Gi
    Environment:  <none>
    Mounts:
      /ckpt from ckpt (rw)
      /data from data (ro)
      /var/run/secrets/kubernetes.io/serviceaccount from kube-api-access-9xq2d (ro)
Conditions:
  Type                        Status
  PodReadyToStartContainers   False
  Initialized                 True
  Ready                       False
  ContainersReady             False
  PodScheduled                True
Volumes:
  data:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  tiles-v3
    ReadOnly:   true
  ckpt:
    Type:       PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)
    ClaimName:  tile-clf-ckpt
    ReadOnly:   false
  kube-api-access-9xq2d:
    Type:                    Projected (a volume that contains injected data from multiple sources)
    TokenExpirationSeconds:  3607
    ConfigMapName:           kube-root-ca.crt
    ConfigMapOptional:       <nil>
    DownwardAPI:             true
QoS Class:                   Guaranteed
Node-Selectors:              cloud.google.com/gke-nodepool=ml-pool
Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s
                             node.kubernetes.io/unreachable:NoExecute op=Exists for 300s
Events:
  Type    Reason     Age   From               Message
  ----    ------     ----  ----               -------
  Normal  Scheduled  4m    default-scheduler  Successfully assigned ml-team/tile-clf-train-7k2xq to gke-ml-pool-n2-standard-8-3f9c2a1e-x7pl
  Normal  Pulled     4m    kubelet            Container image "us-docker.pkg.dev/acme-geo/train/tile-clf:0.4.2" already present on machine
  Normal  Created    4m    kubelet            Created container trainer
  Normal  Started    4m    kubelet            Started container trainer
"""
    write(f"{out}/kubectl_describe_pod.txt", describe)
    write(f"{out}/train.py", TRAIN_PY)
    last = [l for l in lines if "mem_rss_mb" in l]
    return {
        "truth": "host_oom",
        "symptom": "Our training pod just dies partway through the first epoch with no Python error at all, the logs simply stop. "
                   "What is killing it?",
        "how": f"TileDataset.__getitem__ keeps a float64 copy of every normalised uint8 tile in a dict (8x the bytes); the trainer's RSS "
               f"climbs linearly in the log until the process was SIGKILLed at a measured {peak:.0f} MB > the {LIMIT_MB // 1024}Gi limit: "
               f"describe shows OOMKilled, exit code {exit_code}.",
        "_hist": last[-3:],
    }
