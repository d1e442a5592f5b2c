"""Formatting helpers imitating SLURM / Lmod output. Only layout lives here; numbers come from real runs."""
import datetime as dt


def hms(sec):
    sec = int(round(sec))
    return f"{sec // 3600:02d}:{sec % 3600 // 60:02d}:{sec % 60:02d}"


def stamp(t):
    return t.strftime("%a %b %d %H:%M:%S %Z%Y").replace("  ", " ")


def date_line(t):
    return t.strftime("%a %b %e %H:%M:%S CET %Y")


def iso(t):
    return t.strftime("%Y-%m-%dT%H:%M:%S")


def sacct(rows, nodelist_w=10):
    """rows: list of dicts JobID, JobName, Partition, State, ExitCode, MaxRSS, Elapsed, NodeList."""
    cols = [("JobID", 12), ("JobName", 10), ("Partition", 10), ("State", 13), ("ExitCode", 8),
            ("MaxRSS", 10), ("Elapsed", 10), ("NodeList", nodelist_w)]
    head = " ".join(f"{c:>{w}}" if c not in ("JobID",) else f"{c:<{w}}" for c, w in cols)
    sep = " ".join("-" * w for _, w in cols)
    lines = [head, sep]
    for r in rows:
        vals = []
        for c, w in cols:
            v = str(r.get(c, ""))
            if len(v) > w:
                v = v[:w - 1] + "+"
            vals.append(f"{v:<{w}}" if c == "JobID" else f"{v:>{w}}")
        lines.append(" ".join(vals))
    return "\n".join(lines) + "\n"


def job_rows(jobid, name, part, state, exitcode, maxrss_kb, elapsed, node, batch_state=None,
             batch_exit=None, extern=True):
    rows = [dict(JobID=jobid, JobName=name, Partition=part, State=state, ExitCode=exitcode,
                 MaxRSS="", Elapsed=hms(elapsed), NodeList=node),
            dict(JobID=f"{jobid}.batch", JobName="batch", Partition="", State=batch_state or state,
                 ExitCode=batch_exit or exitcode, MaxRSS=f"{int(maxrss_kb)}K", Elapsed=hms(elapsed), NodeList=node)]
    if extern:
        rows.append(dict(JobID=f"{jobid}.extern", JobName="extern", Partition="", State="COMPLETED",
                         ExitCode="0:0", MaxRSS="0", Elapsed=hms(elapsed), NodeList=node))
    return rows


def seff(jobid, array_id, user, group, state, exit_code, cores, cpu_s, wall_s, mem_mb, mem_req_gb, cluster="hpc2"):
    lines = [f"Job ID: {jobid}"]
    if array_id:
        lines.append(f"Array Job ID: {array_id}")
    core_wall = cores * max(wall_s, 1)
    lines += [f"Cluster: {cluster}", f"User/Group: {user}/{group}",
              f"State: {state} (exit code {exit_code})", "Nodes: 1", f"Cores per node: {cores}",
              f"CPU Utilized: {hms(cpu_s)}",
              f"CPU Efficiency: {100 * cpu_s / core_wall:.2f}% of {hms(core_wall)} core-walltime",
              f"Job Wall-clock time: {hms(wall_s)}",
              f"Memory Utilized: {mem_mb:.2f} MB",
              f"Memory Efficiency: {100 * mem_mb / (mem_req_gb * 1024):.2f}% of {mem_req_gb:.2f} GB"]
    return "\n".join(lines) + "\n"


LMOD_RELOAD = """
The following have been reloaded with a version change:
  1) GCCcore/12.2.0 => GCCcore/12.3.0     3) zlib/1.2.12-GCCcore-12.2.0 => zlib/1.2.13-GCCcore-12.3.0
  2) binutils/2.39-GCCcore-12.2.0 => binutils/2.40-GCCcore-12.3.0

"""
