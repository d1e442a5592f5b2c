"""Run a user script for real, capture stdout/stderr, wall time, peak RSS, CPU time.
To avoid re-importing torch (slow on the shared 2-core box) each script runs in a fork of this process that
already has torch imported; the script is executed as __main__ from its own file, so its tracebacks point at
its own lines (the one harness frame is dropped). `-m` commands (torchrun) run as real subprocesses.
Optionally kill a run like a cgroup OOM (mem_limit_mb) or like a SLURM time limit (stop_when on a stdout line)."""
import io, os, resource, signal, subprocess, sys, threading, time, traceback

import torch

torch.set_num_threads(1)
os.environ.update({"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"})


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _child(cmd, cwd, out_w, err_w):
    os.dup2(out_w, 1); os.dup2(err_w, 2)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
    os.chdir(cwd)
    torch.set_num_threads(1)
    script = os.path.abspath(cmd[1])
    sys.argv = [cmd[1]] + list(cmd[2:])
    sys.path[0] = cwd
    rc = 0
    try:
        code = compile(open(script).read(), script, "exec")
        exec(code, {"__name__": "__main__", "__file__": script, "__builtins__": __builtins__})
    except SystemExit as e:
        rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:
        tb = e.__traceback__.tb_next  # drop this harness frame
        sys.stderr.write("".join(traceback.format_exception(type(e), e, tb)))
        rc = 1
    sys.stdout.flush(); sys.stderr.flush()
    os._exit(rc)


def run(cmd, cwd, python, mem_limit_mb=None, stop_when=None):
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out_lines, err_lines = [], []
    state = {"killed": None, "peak": 0.0}
    t0 = time.time()
    if cmd[1] == "-m":
        env = dict(os.environ)
        p = subprocess.Popen([python] + cmd[1:], cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        pid, fo, fe = p.pid, p.stdout, p.stderr
    else:
        out_r, out_w = os.pipe(); err_r, err_w = os.pipe()
        sys.stdout.flush(); sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            os.close(out_r); os.close(err_r)
            _child(cmd, cwd, out_w, err_w)
        os.close(out_w); os.close(err_w)
        fo, fe = os.fdopen(out_r, "r"), os.fdopen(err_r, "r")

    def rd_out():
        for line in fo:
            out_lines.append(line)
            if stop_when and state["killed"] is None and stop_when(line):
                state["killed"] = "TIMEOUT"
                os.kill(pid, signal.SIGTERM)

    def rd_err():
        for line in fe:
            err_lines.append(line)

    th = [threading.Thread(target=rd_out), threading.Thread(target=rd_err)]
    for t in th:
        t.start()
    status = None
    while status is None:
        wpid, st = os.waitpid(pid, os.WNOHANG)
        if wpid == pid:
            status = st
            break
        r = _rss_mb(pid)
        state["peak"] = max(state["peak"], r)
        if mem_limit_mb and r >= mem_limit_mb and state["killed"] is None:
            state["killed"] = "OUT_OF_MEMORY"
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)
    for t in th:
        t.join()
    elapsed = time.time() - t0
    rc = os.waitstatus_to_exitcode(status)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return {"out": "".join(out_lines), "err": "".join(err_lines), "rc": rc, "elapsed": elapsed,
            "maxrss_mb": state["peak"], "cpu_s": cpu, "killed": state["killed"]}
