"""Shared helpers: seeding, a clock that maps real elapsed time onto a log date,
and formatters that imitate cloud log exports."""
import datetime as _dt
import json
import math
import os
import random
import time

import numpy as np
import torch


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class Clock:
    """Timestamps = a fixed start date + the REAL elapsed wall time of the training."""

    def __init__(self, start):
        self.start = start
        self.t0 = time.perf_counter()
        self.extra = 0.0

    def skip(self, seconds):
        # for fixed platform delays before the user code starts (container pull etc.)
        self.extra += seconds

    def now(self):
        return self.start + _dt.timedelta(seconds=time.perf_counter() - self.t0 + self.extra)

    def elapsed(self):
        return time.perf_counter() - self.t0


def iso_z(dt, digits=6):
    s = dt.strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{dt.microsecond:06d}"[:digits]
    return f"{s}.{frac}Z" if digits else s + "Z"


def iso_nano(dt, rng):
    # Cloud Logging keeps nanoseconds; the last 3 digits are sub-microsecond noise
    return f"{dt.strftime('%Y-%m-%dT%H:%M:%S')}.{dt.microsecond:06d}{rng.randint(0, 999):03d}Z"


def pylog_time(dt):
    # python logging asctime: '2024-04-12 09:14:02,118'
    return dt.strftime("%Y-%m-%d %H:%M:%S") + f",{dt.microsecond // 1000:03d}"


def r(x, nd=4):
    """Round a real metric for printing (keeps NaN / inf as floats)."""
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return x
    return round(x, nd)


def jdump(obj):
    # python json.dumps default: NaN written as NaN (as python-json-logger does)
    return json.dumps(obj, ensure_ascii=False)


class GcpSink:
    """Entries as a Cloud Logging -> GCS sink writes them: one JSON object per line."""

    def __init__(self, project, job_id, task="workerpool0-0", region="us-central1", seed=0):
        self.project = project
        self.job_id = str(job_id)
        self.task = task
        self.region = region
        self.rng = random.Random(seed)
        self.lines = []
        self.resource_id = str(self.rng.randint(10**18, 9 * 10**18))
        self.resource_name = f"cmle-training-{self.rng.randint(10**17, 9 * 10**17)}"

    def _insert_id(self):
        return "".join(self.rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(14))

    def add(self, dt, severity, text=None, payload=None, log_area="user"):
        entry = {"insertId": self._insert_id()}
        if payload is not None:
            entry["jsonPayload"] = payload
        else:
            entry["textPayload"] = text
        entry["resource"] = {
            "type": "ml_job",
            "labels": {"job_id": self.job_id, "project_id": self.project, "task_name": self.task},
        }
        entry["timestamp"] = iso_nano(dt, self.rng)
        entry["severity"] = severity
        entry["labels"] = {
            "ml.googleapis.com/job_id/log_area": log_area,
            "ml.googleapis.com/tpu_worker_id": "",
            "ml.googleapis.com/trial_id": "",
            "compute.googleapis.com/resource_id": self.resource_id,
            "compute.googleapis.com/resource_name": self.resource_name,
            "compute.googleapis.com/zone": self.region + "-b",
        }
        entry["logName"] = f"projects/{self.project}/logs/{self.task}"
        rec = dt + __import__("datetime").timedelta(milliseconds=self.rng.randint(900, 4200))
        entry["receiveTimestamp"] = iso_nano(rec, self.rng)
        self.lines.append(jdump(entry))

    def platform(self, dt, text, severity="INFO"):
        # service messages ("Waiting for job to be provisioned.") live in the job's service log
        self.add(dt, severity, text=text, log_area="")

    def write(self, path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("\n".join(self.lines) + "\n")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def grad_norm(model):
    tot = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return math.sqrt(tot)


AZ_PREAMBLE = """[{t0}] Entering context manager injector.
[{t1}] context_manager_injector.py Command line Options: Namespace(inject=['ProjectPythonPath:context_managers.ProjectPythonPath', 'RunHistory:context_managers.RunHistory', 'TrackUserError:context_managers.TrackUserError'], invocation=['{script}'{args}])
Script type = None
[{t2}] Entering Run History Context Manager.
[{t3}] Current directory: /mnt/batch/tasks/shared/LS_root/jobs/{ws}/azureml/{run_id}/wd/azureml/{run_id}
[{t3}] Preparing to call script [{script}] with arguments:[{arglist}]
[{t3}] After variable expansion, calling script [{script}] with arguments:[{arglist}]

"""

AZ_EPILOGUE = """

[{t0}] The experiment {status}. Finalizing run...
Cleaning up all outstanding Run operations, waiting 900.0 seconds
2 items cleaning up...
Cleanup took {cleanup:.4f} seconds
[{t1}] Finished context manager injector{suffix}.
"""


def az_ts(dt):
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond:06d}"
