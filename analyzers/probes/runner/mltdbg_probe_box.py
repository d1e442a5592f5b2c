"""The `box` probe: the machine a run used, read-only and without root. Every item is a value read
from the system or `unavailable` with the reason; nothing is guessed. Stdlib only (no torch needed).
Runs in the USER's interpreter; never imports mltdbg.
"""
from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
from pathlib import Path
from typing import Any

# Docker's default /dev/shm is 64 MiB; DataLoader workers pass batches through it and die with
# "bus error" when it fills. Below this size it is worth raising (--shm-size / --ipc=host).
SHM_SMALL_BYTES = 512 * 2**20
# Free space below either bound where checkpoints are written is a crash waiting for the next save.
DISK_LOW_BYTES = 2 * 2**30
DISK_LOW_SHARE = 0.02
# DataLoader with file_system sharing or many workers opens many descriptors; soft limits below this
# often end in "Too many open files".
NOFILE_LOW = 4096
OOM_RX = re.compile(r"out of memory|oom-kill|oom_reaper|killed process|invoked oom-killer|memory cgroup out of memory", re.IGNORECASE)
XID_RX = re.compile(r"NVRM: Xid", re.IGNORECASE)
CMD_TIMEOUT_S = 10
MAX_LINES = 20


def _run(cmd: list[str]) -> tuple[int | None, str, str]:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=CMD_TIMEOUT_S, stdin=subprocess.DEVNULL)
        return r.returncode, r.stdout, r.stderr
    except FileNotFoundError:
        return None, "", f"{cmd[0]}: not found"
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "", f"{cmd[0]}: {type(e).__name__}: {e}"


def _unavailable(why: str) -> dict[str, Any]:
    return {"available": False, "unavailable": " ".join(why.split())[:300]}


def kernel_log() -> dict[str, Any]:
    """Kernel messages from the first readable source: dmesg, journalctl -k, /var/log/kern.log."""
    tried = []
    rc, out, err = _run(["dmesg", "--ctime"])
    if rc != 0:
        rc, out, err2 = _run(["dmesg"])
        err = err2 or err
    if rc == 0 and out.strip():
        return {"available": True, "source": "dmesg", "lines": out.splitlines()}
    tried.append(f"dmesg: {(err or 'no output').strip().splitlines()[0] if (err or '').strip() else 'no output'}")
    if shutil.which("journalctl"):
        rc, out, err = _run(["journalctl", "-k", "-q", "--no-pager", "-o", "short-iso", "-n", "20000"])
        if rc == 0 and out.strip() and "No entries" not in out:
            return {"available": True, "source": "journalctl -k", "lines": out.splitlines()}
        tried.append(f"journalctl -k: {(err or out or 'no entries').strip().splitlines()[0]}")
    else:
        tried.append("journalctl: not found")
    for p in ("/var/log/kern.log", "/var/log/messages", "/var/log/syslog"):
        try:
            with open(p, encoding="utf-8", errors="replace") as f:
                return {"available": True, "source": p, "lines": f.read()[-4_000_000:].splitlines()}
        except OSError as e:
            tried.append(f"{p}: {e.strerror or e}")
    try:
        restrict = Path("/proc/sys/kernel/dmesg_restrict").read_text().strip()
        tried.append(f"kernel.dmesg_restrict={restrict}")
    except OSError:
        pass
    return _unavailable("; ".join(tried))


def oom_lines(klog: dict[str, Any]) -> dict[str, Any]:
    if not klog.get("available"):
        return _unavailable(klog["unavailable"])
    lines = [ln for ln in klog["lines"] if OOM_RX.search(ln)]
    return {"available": True, "source": klog["source"], "count": len(lines), "lines": lines[-MAX_LINES:]}


def xid_lines(klog: dict[str, Any]) -> dict[str, Any]:
    if not klog.get("available"):
        return _unavailable(klog["unavailable"])
    lines = [ln for ln in klog["lines"] if XID_RX.search(ln)]
    return {"available": True, "source": klog["source"], "count": len(lines), "lines": lines[-MAX_LINES:]}


def meminfo() -> dict[str, Any]:
    try:
        text = Path("/proc/meminfo").read_text()
    except OSError as e:
        return _unavailable(f"/proc/meminfo: {e.strerror or e}")
    vals = {}
    for line in text.splitlines():
        m = re.match(r"(\w+):\s+(\d+) kB", line)
        if m and m.group(1) in ("MemTotal", "MemAvailable", "SwapTotal", "SwapFree"):
            vals[m.group(1)] = int(m.group(2)) * 1024
    return {"available": True, "source": "/proc/meminfo", **vals}


def cgroup_memory() -> dict[str, Any]:
    """The container's memory limit and its OOM-kill count (cgroup v2, else v1)."""
    base = Path("/sys/fs/cgroup")
    try:
        rel = ""
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                rel = line[3:].strip().lstrip("/")
        d = base / rel if rel and (base / rel / "memory.max").exists() else base
        if (d / "memory.max").exists():
            out: dict[str, Any] = {"available": True, "source": str(d), "version": 2}
            mx = (d / "memory.max").read_text().strip()
            out["limit_bytes"] = None if mx == "max" else int(mx)
            if (d / "memory.current").exists():
                out["current_bytes"] = int((d / "memory.current").read_text().strip())
            if (d / "memory.peak").exists():
                out["peak_bytes"] = int((d / "memory.peak").read_text().strip())
            if (d / "memory.events").exists():
                ev = dict(line.split() for line in (d / "memory.events").read_text().splitlines() if line.strip())
                out["oom_events"] = int(ev.get("oom", 0))
                out["oom_kill_events"] = int(ev.get("oom_kill", 0))
            return out
        v1 = base / "memory"
        if (v1 / "memory.limit_in_bytes").exists():
            lim = int((v1 / "memory.limit_in_bytes").read_text().strip())
            out = {"available": True, "source": str(v1), "version": 1,
                   "limit_bytes": None if lim >= 2**60 else lim}
            if (v1 / "memory.max_usage_in_bytes").exists():
                out["peak_bytes"] = int((v1 / "memory.max_usage_in_bytes").read_text().strip())
            if (v1 / "memory.failcnt").exists():
                out["failcnt"] = int((v1 / "memory.failcnt").read_text().strip())
            if (v1 / "memory.oom_control").exists():
                oc = dict(line.split() for line in (v1 / "memory.oom_control").read_text().splitlines() if line.strip())
                out["oom_kill_events"] = int(oc.get("oom_kill", 0))
            return out
    except (OSError, ValueError) as e:
        return _unavailable(f"cgroup memory files: {e}")
    return _unavailable("no cgroup memory controller found under /sys/fs/cgroup")


def nvidia() -> dict[str, Any]:
    if not shutil.which("nvidia-smi"):
        return _unavailable("nvidia-smi not found (no NVIDIA driver on this machine, or not on PATH)")
    fields = ["index", "name", "memory.used", "memory.total", "ecc.errors.uncorrected.volatile.total",
              "ecc.errors.corrected.volatile.total", "temperature.gpu"]
    rc, out, err = _run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
    if rc != 0:
        return _unavailable(f"nvidia-smi failed: {(err or out).strip()[:200]}")
    gpus = []
    for line in out.strip().splitlines():
        cells = [c.strip() for c in line.split(",")]
        g: dict[str, Any] = {}
        for f, c in zip(fields, cells):
            if c in ("[N/A]", "N/A", "[Not Supported]"):
                g[f] = None
            else:
                try:
                    g[f] = int(c) if f != "name" else c
                except ValueError:
                    g[f] = c
        for f in ("memory.used", "memory.total"):
            if isinstance(g.get(f), int):
                g[f + "_bytes"] = g.pop(f) * 2**20
        gpus.append(g)
    return {"available": True, "source": "nvidia-smi", "gpus": gpus}


def disk(path: str) -> dict[str, Any]:
    try:
        u = shutil.disk_usage(path)
    except OSError as e:
        return _unavailable(f"{path}: {e.strerror or e}")
    return {"available": True, "path": os.path.abspath(path), "total_bytes": u.total, "free_bytes": u.free}


def shm() -> dict[str, Any]:
    try:
        s = os.statvfs("/dev/shm")
    except OSError as e:
        return _unavailable(f"/dev/shm: {e.strerror or e}")
    return {"available": True, "path": "/dev/shm", "total_bytes": s.f_blocks * s.f_frsize, "free_bytes": s.f_bavail * s.f_frsize}


def limits() -> dict[str, Any]:
    out: dict[str, Any] = {"available": True, "source": "getrlimit"}
    for name in ("RLIMIT_NOFILE", "RLIMIT_NPROC", "RLIMIT_AS", "RLIMIT_MEMLOCK", "RLIMIT_STACK"):
        if hasattr(resource, name):
            soft, hard = resource.getrlimit(getattr(resource, name))
            inf = resource.RLIM_INFINITY
            out[name[7:].lower()] = {"soft": None if soft == inf else soft, "hard": None if hard == inf else hard}
    return out


def box(checkpoint_dir: str, doc) -> dict[str, Any]:
    doc.stage("reading the machine")
    klog = kernel_log()
    res: dict[str, Any] = {"oom_killer": oom_lines(klog), "gpu_xid": xid_lines(klog), "memory": meminfo(),
                           "cgroup_memory": cgroup_memory(), "nvidia_smi": nvidia(), "disk": disk(checkpoint_dir),
                           "shm": shm(), "limits": limits(), "cpus": os.cpu_count()}
    try:
        res["loadavg"] = list(os.getloadavg())
    except OSError:
        res["loadavg"] = None
    oom, cg = res["oom_killer"], res["cgroup_memory"]
    if oom.get("available") and oom["count"]:
        last = oom["lines"][-1]
        doc.finding("host_oom", f"the kernel log ({oom['source']}) has {oom['count']} OOM-killer lines; last: {last.strip()[:200]}",
                    "critical", count=oom["count"], source=oom["source"])
    elif cg.get("available") and cg.get("oom_kill_events"):
        doc.finding("host_oom", f"the container's memory cgroup ({cg['source']}) counted {cg['oom_kill_events']} OOM kills"
                    + (f" at a limit of {cg['limit_bytes'] / 2**30:.1f} GiB" if cg.get("limit_bytes") else ""),
                    "critical", count=cg["oom_kill_events"], source=cg["source"])
    x = res["gpu_xid"]
    if x.get("available") and x["count"]:
        doc.finding("gpu_errors", f"{x['count']} NVIDIA Xid errors in the kernel log; last: {x['lines'][-1].strip()[:200]}",
                    "high", count=x["count"])
    nv = res["nvidia_smi"]
    for g in nv.get("gpus", []) if nv.get("available") else []:
        unc = g.get("ecc.errors.uncorrected.volatile.total")
        if isinstance(unc, int) and unc > 0:
            doc.finding("gpu_errors", f"GPU {g.get('index')} ({g.get('name')}) reports {unc} uncorrected ECC errors",
                        "high", gpu=g.get("index"), ecc_uncorrected=unc)
    s = res["shm"]
    if s.get("available") and s["total_bytes"] < SHM_SMALL_BYTES:
        doc.finding("shm_small", f"/dev/shm is {s['total_bytes'] / 2**20:.0f} MiB: DataLoader workers can die with "
                    "'bus error' (raise it: docker --shm-size=8g or --ipc=host)", "medium", bytes=s["total_bytes"])
    dk = res["disk"]
    if dk.get("available") and (dk["free_bytes"] < DISK_LOW_BYTES or dk["free_bytes"] < DISK_LOW_SHARE * dk["total_bytes"]):
        doc.finding("disk_low", f"{dk['path']} has {dk['free_bytes'] / 2**30:.2f} GiB free of {dk['total_bytes'] / 2**30:.0f} GiB "
                    "where checkpoints are written", "medium", free_bytes=dk["free_bytes"])
    nf = res["limits"].get("nofile", {})
    if isinstance(nf.get("soft"), int) and nf["soft"] < NOFILE_LOW:
        doc.finding("nofile_low", f"open-file limit (ulimit -n) is {nf['soft']}: DataLoader workers can fail with "
                    "'Too many open files'", "low", soft=nf["soft"])
    return res
