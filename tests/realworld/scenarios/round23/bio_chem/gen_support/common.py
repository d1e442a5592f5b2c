"""Shared helpers for gen.py: synthetic molecules / sequences, featurisers, metrics, formatting."""
import datetime
import math
import os
import random
import time
import zlib

import numpy as np
import torch


def seed_all(s):
    random.seed(s)
    np.random.seed(s)
    torch.manual_seed(s)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class Clock:
    """Wall clock for log timestamps: starts at a fixed date, advances by real elapsed compute time."""

    def __init__(self, start, scale=1.0):
        self.t = datetime.datetime.strptime(start, "%Y-%m-%d %H:%M:%S")
        self.last = time.perf_counter()
        self.scale = scale

    def now(self):
        p = time.perf_counter()
        self.t += datetime.timedelta(seconds=(p - self.last) * self.scale)
        self.last = p
        return self.t

    def add(self, seconds):
        self.t += datetime.timedelta(seconds=seconds)
        return self.t


# ----------------------------------------------------------------------------------------------
# metrics (numpy re-implementations of the sklearn ones)
# ----------------------------------------------------------------------------------------------
def auroc(y, s):
    y = np.asarray(y).astype(float)
    s = np.asarray(s).astype(float)
    order = np.argsort(s, kind="mergesort")
    s_sorted = s[order]
    ranks = np.empty(len(s))
    i = 0
    r = np.arange(1, len(s) + 1, dtype=float)
    while i < len(s):
        j = i
        while j + 1 < len(s) and s_sorted[j + 1] == s_sorted[i]:
            j += 1
        ranks[order[i:j + 1]] = r[i:j + 1].mean()
        i = j + 1
    npos = y.sum()
    nneg = len(y) - npos
    if npos == 0 or nneg == 0:
        return float("nan")
    return float((ranks[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg))


def auprc(y, s):
    """average_precision_score equivalent (step-wise, no interpolation)."""
    y = np.asarray(y).astype(float)
    s = np.asarray(s).astype(float)
    order = np.argsort(-s, kind="mergesort")
    y = y[order]
    s = s[order]
    distinct = np.where(np.diff(s))[0]
    thr_idx = np.r_[distinct, len(y) - 1]
    tps = np.cumsum(y)[thr_idx]
    fps = (1 + thr_idx) - tps
    prec = tps / (tps + fps)
    rec = tps / tps[-1]
    rec_prev = np.r_[0.0, rec[:-1]]
    return float(np.sum((rec - rec_prev) * prec))


def mcc(y, yhat):
    y = np.asarray(y).astype(int)
    yhat = np.asarray(yhat).astype(int)
    tp = float(((y == 1) & (yhat == 1)).sum())
    tn = float(((y == 0) & (yhat == 0)).sum())
    fp = float(((y == 0) & (yhat == 1)).sum())
    fn = float(((y == 1) & (yhat == 0)).sum())
    d = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return 0.0 if d == 0 else (tp * tn - fp * fn) / d


def rmse(y, p):
    return float(np.sqrt(np.mean((np.asarray(y) - np.asarray(p)) ** 2)))


def mae(y, p):
    return float(np.mean(np.abs(np.asarray(y) - np.asarray(p))))


def r2(y, p):
    y = np.asarray(y)
    return float(1 - np.sum((y - p) ** 2) / np.sum((y - y.mean()) ** 2))


def grad_norm(model):
    tot = 0.0
    for p in model.parameters():
        if p.grad is not None:
            tot += float(p.grad.detach().pow(2).sum())
    return math.sqrt(tot)


def param_norm(model):
    return math.sqrt(sum(float(p.detach().pow(2).sum()) for p in model.parameters()))


# ----------------------------------------------------------------------------------------------
# SMILES-like molecules
# ----------------------------------------------------------------------------------------------
SCAFFOLDS = [
    "c1ccccc1", "c1ccncc1", "c1ccc2ccccc2c1", "C1CCNCC1", "C1CCOCC1", "c1ccc2[nH]ccc2c1",
    "c1cnc2ccccc2n1", "C1CCCCC1", "c1ccsc1", "c1ccoc1", "c1cn[nH]c1", "C1CCC(=O)N1",
    "c1ccc2ncccc2c1", "C1CNCCN1", "c1ncncn1", "c1ccc2occc2c1", "c1csc(n1)", "C1CC1",
    "c1cc[nH]c1", "c1cc(=O)[nH]c(=O)[nH]1", "c1ccc2c(c1)CCN2", "C1COCCN1", "c1cncnc1",
    "c1ccc2[nH]cnc2c1", "C1CCC2(CC1)CC2", "c1ccc(cc1)-c1ccccc1",
]
SUBST = [
    "C", "CC", "CCC", "C(C)C", "O", "OC", "N", "NC", "N(C)C", "F", "Cl", "Br", "C(F)(F)F",
    "C(=O)O", "C(=O)N", "C(=O)OC", "C#N", "S(=O)(=O)N", "[N+](=O)[O-]", "OCC", "CCO", "CN",
    "CC(=O)N", "OC(F)(F)F", "C(C)(C)C", "CCN(C)C", "S(C)(=O)=O", "c1ccccc1", "C1CC1", "NC(=O)C",
]
PREFIX_FORM = {"C#N": "N#C", "C(=O)O": "OC(=O)", "C(=O)N": "NC(=O)", "C(F)(F)F": "FC(F)(F)",
               "S(=O)(=O)N": "NS(=O)(=O)", "[N+](=O)[O-]": "[O-][N+](=O)", "S(C)(=O)=O": "CS(=O)(=O)",
               "C(=O)OC": "COC(=O)", "C(C)(C)C": "CC(C)(C)", "OC(F)(F)F": "FC(F)(F)O", "C(C)C": "CC(C)",
               "N(C)C": "CN(C)", "CCN(C)C": "CN(C)CC", "NC(=O)C": "CC(=O)N", "CC(=O)N": "CC(=O)NC"}
ATOM_W = {"C": 12.011, "c": 12.011, "N": 14.007, "n": 14.007, "O": 15.999, "o": 15.999,
          "S": 32.06, "s": 32.06, "F": 18.998, "Cl": 35.45, "Br": 79.904}


def _atom_positions(s):
    """indices right after an (organic-subset) atom symbol outside brackets, where a branch may go"""
    pos = []
    depth = 0
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                pos.append(i + 1)
        elif depth == 0 and ch in "CNOScnos":
            if s[i:i + 2] == "Cl":
                i += 1
            elif ch in "CcN":
                pos.append(i + 1)
        i += 1
    return pos


def make_molecule(rng, scaffold_id=None, n_sub=None):
    if scaffold_id is None:
        scaffold_id = int(rng.integers(len(SCAFFOLDS)))
    s = SCAFFOLDS[scaffold_id]
    if n_sub is None:
        n_sub = int(rng.integers(1, 4))
    subs = [int(rng.integers(len(SUBST))) for _ in range(n_sub)]
    # first substituent as prefix, rest as branches
    body = s
    for k in subs[1:]:
        pos = _atom_positions(body)
        # avoid a branch directly after a ring-opening atom+digit complexity: choose atom positions
        p = pos[int(rng.integers(len(pos)))]
        # skip ring-closure digits that follow the atom
        while p < len(body) and body[p].isdigit():
            p += 1
        sub = SUBST[k]
        if sub.startswith("c1") or sub.startswith("C1"):
            sub = sub.replace("1", "9")
        body = body[:p] + "(" + sub + ")" + body[p:]
    pre = PREFIX_FORM.get(SUBST[subs[0]], SUBST[subs[0]])
    if pre.startswith("c1") or pre.startswith("C1"):
        pre = pre.replace("1", "8")
    return pre + body, scaffold_id, subs


def smiles_valid(s):
    """A minimal SMILES sanity parser: balanced brackets/parentheses, paired ring-closure digits."""
    depth = 0
    open_rings = set()
    inbr = False
    prev = ""
    for i, ch in enumerate(s):
        if inbr:
            if ch == "]":
                inbr = False
            continue
        if ch == "[":
            inbr = True
        elif ch == "(":
            if prev in ("", "("):
                return False, "syntax error"
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False, "extra close parentheses"
        elif ch.isdigit():
            if ch in open_rings:
                open_rings.remove(ch)
            else:
                open_rings.add(ch)
        prev = ch
    if inbr:
        return False, "syntax error"
    if depth > 0:
        return False, "extra open parentheses"
    if open_rings:
        return False, "unclosed ring"
    return True, ""


def hashed_fp(s, nbits=1024, radius=(2, 5), counts=False):
    v = np.zeros(nbits, dtype=np.float32)
    for n in range(radius[0], radius[1] + 1):
        for i in range(len(s) - n + 1):
            h = zlib.crc32(s[i:i + n].encode()) % nbits
            if counts:
                v[h] += 1
            else:
                v[h] = 1.0
    return v


def descriptors(s):
    """crude RDKit-like descriptors computed from the string (MolWt, MolLogP, TPSA, ...)."""
    t = s.replace("Cl", "X").replace("Br", "Y")
    nC = t.count("C") + t.count("c")
    nN = t.count("N") + t.count("n")
    nO = t.count("O") + t.count("o")
    nS = t.count("S") + t.count("s")
    nX = t.count("X") + t.count("Y") + t.count("F")
    arom = sum(t.count(ch) for ch in "cnos")
    heavy = nC + nN + nO + nS + nX
    rings = sum(ch.isdigit() for ch in t) / 2.0
    mw = (nC * 12.011 + nN * 14.007 + nO * 15.999 + nS * 32.06 + t.count("F") * 18.998
          + t.count("X") * 35.45 + t.count("Y") * 79.904 + (2 * heavy + 2 - arom - 2 * rings) * 1.008)
    logp = 0.32 * nC + 0.15 * arom - 0.62 * nN - 0.55 * nO + 0.58 * nX + 0.3 * nS - 0.1 * t.count("=")
    tpsa = 12.0 * nN + 17.1 * nO + 25.3 * nS * (t.count("S(=O)") > 0) + 8.0 * t.count("[nH]")
    hbd = t.count("[nH]") + t.count("O)") + t.count("N)") + (1 if t.endswith("O") or t.endswith("N") else 0)
    rot = max(0, t.count("(") + max(0, len(t) - len(t.lstrip("CNO"))) - 1)
    fsp3 = (t.count("C")) / max(1, nC)
    bertz = 12.0 * heavy ** 1.45 + 40 * rings * arom / max(1, heavy) + 25 * t.count("=")
    ipc = math.exp(0.55 * heavy) * (1 + 0.1 * rings)
    labute = 6.9 * heavy + 1.1 * (2 * heavy + 2 - arom)
    return np.array([mw, logp, tpsa, hbd, rot, rings, fsp3, bertz, ipc, labute, heavy, arom], dtype=np.float64)


DESC_NAMES = ["MolWt", "MolLogP", "TPSA", "NumHDonors", "NumRotatableBonds", "RingCount",
              "FractionCSP3", "BertzCT", "Ipc", "LabuteASA", "HeavyAtomCount", "NumAromaticAtoms"]


def smiles_tokens(s):
    out = []
    i = 0
    while i < len(s):
        if s[i:i + 2] in ("Cl", "Br"):
            out.append(s[i:i + 2])
            i += 2
        elif s[i] == "[":
            j = s.index("]", i)
            out.append(s[i:j + 1])
            i = j + 1
        else:
            out.append(s[i])
            i += 1
    return out


# ----------------------------------------------------------------------------------------------
# sequences
# ----------------------------------------------------------------------------------------------
AA = "ACDEFGHIKLMNPQRSTVWY"
AA_FREQ = np.array([8.25, 1.37, 5.45, 6.75, 3.86, 7.07, 2.27, 5.96, 5.84, 9.66, 2.42, 4.06, 4.70,
                    3.93, 5.53, 6.56, 5.34, 6.87, 1.08, 2.92])
AA_FREQ = AA_FREQ / AA_FREQ.sum()
NT = "ACGT"


def rand_protein(rng, n, freq=None):
    f = AA_FREQ if freq is None else freq
    return "".join(rng.choice(list(AA), size=n, p=f))


def rand_dna(rng, n, gc=0.42):
    p = np.array([(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2])
    return "".join(rng.choice(list(NT), size=n, p=p))


def mutate(rng, seq, rate, alphabet):
    s = list(seq)
    for i in range(len(s)):
        if rng.random() < rate:
            s[i] = alphabet[int(rng.integers(len(alphabet)))]
    return "".join(s)


def kmer_counts(seq, k, alphabet=NT):
    idx = {c: i for i, c in enumerate(alphabet)}
    A = len(alphabet)
    v = np.zeros(A ** k, dtype=np.float32)
    for i in range(len(seq) - k + 1):
        h = 0
        ok = True
        for ch in seq[i:i + k]:
            if ch not in idx:
                ok = False
                break
            h = h * A + idx[ch]
        if ok:
            v[h] += 1
    return v


def onehot_dna(seq):
    idx = {c: i for i, c in enumerate(NT)}
    m = np.zeros((4, len(seq)), dtype=np.float32)
    for i, ch in enumerate(seq):
        if ch in idx:
            m[idx[ch], i] = 1.0
    return m


def tqdm_bar(n, total, elapsed, rate, width=10, postfix=""):
    frac = n / total
    full = int(frac * width)
    bar = "█" * full + ("" if full == width else " " * (width - full))
    def fmt(t):
        t = int(round(t))
        return f"{t // 60:02d}:{t % 60:02d}"
    remain = (total - n) / rate if rate > 0 else 0
    s = f"{int(frac * 100):3d}%|{bar}| {n}/{total} [{fmt(elapsed)}<{fmt(remain)}, {rate:.2f}it/s"
    if postfix:
        s += ", " + postfix
    return s + "]"


# ----------------------------------------------------------------------------------------------
# running a user's script for real
# ----------------------------------------------------------------------------------------------
import subprocess
import sys

VENV_SITE = os.path.join(os.path.dirname(os.path.dirname(torch.__file__)))


def run_user_script(script_text, workdir, argv, home, env_name):
    """Write script_text to workdir/train.py and execute it for real as __main__ (in this process, so torch is
    imported once), capturing stdout/stderr like a terminal; an uncaught exception is printed as Python would
    print it. Paths are rewritten to the user's machine layout."""
    import contextlib
    import io
    import runpy
    import traceback
    os.makedirs(workdir, exist_ok=True)
    path = os.path.join(os.path.abspath(workdir), "train.py")
    with open(path, "w") as f:
        f.write(script_text)
    buf = io.StringIO()
    old_argv, old_cwd = sys.argv, os.getcwd()
    sys.argv = [path] + list(argv)
    os.chdir(workdir)
    rc = 0
    t0 = time.perf_counter()
    try:
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                runpy.run_path(path, run_name="__main__")
            except SystemExit as e:
                rc = e.code or 0
            except Exception as e:  # noqa
                rc = 1
                tb = traceback.extract_tb(e.__traceback__)
                k = next(i for i, fr in enumerate(tb) if fr.filename == path)
                buf.write("Traceback (most recent call last):\n")
                buf.write("".join(traceback.format_list(tb[k:])))
                buf.write("".join(traceback.format_exception_only(type(e), e)))
    finally:
        sys.argv = old_argv
        os.chdir(old_cwd)
    el = time.perf_counter() - t0
    out = buf.getvalue()
    user = home.split("/")[2]
    out = out.replace(VENV_SITE, f"/home/{user}/miniconda3/envs/{env_name}/lib/python3.11/site-packages")
    out = out.replace(os.path.abspath(workdir), home)
    return out, rc, el
