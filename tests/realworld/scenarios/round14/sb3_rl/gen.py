"""Generator for the sb3_rl benchmark runs (round 14).

Trains small, real RL agents in plain torch on CPU (self-written numpy environments) and writes
each run folder in the formats stable-baselines3 / RL Zoo / CleanRL users post:
SB3 console tables, progress.csv, monitor.csv, CleanRL `global_step=..., episodic_return=...` lines,
hyperparams.yml / config.json, and for about half the runs the train.py that produced the logs.

Runs that ship a train.py are produced by executing exactly that script (in a subprocess); the
others are produced in-process by the SB3-like trainers below.

usage: python gen.py [run01 run02 ...]   (no argument: all runs)
"""
import json
import math
import os
import shutil
import subprocess
import sys
import time
from collections import deque

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
OUT = os.path.dirname(os.path.abspath(__file__))
RUNS = os.path.join(OUT, "runs")
WORK = os.path.join(OUT, "_work")
PY = sys.executable


# ----------------------------------------------------------------------------------------------
# environments (vectorised, numpy)
# ----------------------------------------------------------------------------------------------
class CartPoleVec:
    """CartPole-v1 dynamics and termination (gym constants), n copies, auto-reset, 500-step limit."""

    obs_dim, n_act = 4, 2

    def __init__(self, n, seed=0, max_steps=500):
        self.n, self.max_steps = n, max_steps
        self.rng = np.random.default_rng(seed)
        self.g, self.mc, self.mp, self.l, self.fm, self.tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
        self.tm = self.mc + self.mp
        self.pml = self.mp * self.l
        self.th_lim, self.x_lim = 12 * 2 * math.pi / 360, 2.4

    def reset(self):
        self.s = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.t = np.zeros(self.n, dtype=np.int64)
        self.ret = np.zeros(self.n)
        return self.s.astype(np.float32)

    def step(self, a):
        x, xd, th, thd = self.s.T
        force = np.where(np.asarray(a) == 1, self.fm, -self.fm)
        ct, st = np.cos(th), np.sin(th)
        temp = (force + self.pml * thd ** 2 * st) / self.tm
        thacc = (self.g * st - ct * temp) / (self.l * (4.0 / 3.0 - self.mp * ct ** 2 / self.tm))
        xacc = temp - self.pml * thacc * ct / self.tm
        x = x + self.tau * xd
        xd = xd + self.tau * xacc
        th = th + self.tau * thd
        thd = thd + self.tau * thacc
        self.s = np.stack([x, xd, th, thd], 1)
        self.t += 1
        r = np.ones(self.n)
        self.ret += r
        term = (np.abs(x) > self.x_lim) | (np.abs(th) > self.th_lim)
        trunc = self.t >= self.max_steps
        done = term | trunc
        finished = []
        for i in np.nonzero(done)[0]:
            finished.append((float(self.ret[i]), int(self.t[i])))
            self.s[i] = self.rng.uniform(-0.05, 0.05, 4)
            self.t[i] = 0
            self.ret[i] = 0.0
        return self.s.astype(np.float32), r.astype(np.float32), done, finished


class ReachVec:
    """1-D reach: a cart on a rail must move to a random target and stay there.

    obs = [pos, target, vel] (rail is [-1, 1]); continuous action in [-1, 1] (force) or discrete
    {left, stay, right}; reward = -|pos - target| per step; 40-80 steps per episode.
    `units` / `rew_units` multiply what the agent observes / is paid (1000 = millimetres instead of metres)."""

    obs_dim = 3

    def __init__(self, n, seed=0, discrete=False, units=1.0, rew_units=1.0, ep_len=(40, 80)):
        self.n, self.discrete, self.units, self.rew_units, self.ep_len = n, discrete, units, rew_units, ep_len
        self.n_act = 3 if discrete else 1
        self.rng = np.random.default_rng(seed)

    def _obs(self):
        return (np.stack([self.p, self.tg, self.v], 1) * self.units).astype(np.float32)

    def _new(self, idx):
        self.p[idx] = self.rng.uniform(-1, 1, len(idx))
        self.tg[idx] = self.rng.uniform(-1, 1, len(idx))
        self.v[idx] = 0.0
        self.lim[idx] = self.rng.integers(self.ep_len[0], self.ep_len[1] + 1, len(idx))
        self.t[idx] = 0
        self.ret[idx] = 0.0

    def reset(self):
        self.p, self.tg, self.v = np.zeros(self.n), np.zeros(self.n), np.zeros(self.n)
        self.t, self.ret = np.zeros(self.n, dtype=np.int64), np.zeros(self.n)
        self.lim = np.zeros(self.n, dtype=np.int64)
        self._new(np.arange(self.n))
        return self._obs()

    def step(self, a):
        if self.discrete:
            f = np.asarray(a, dtype=np.float64) - 1.0
        else:
            f = np.clip(np.asarray(a, dtype=np.float64).reshape(self.n), -1, 1)
        self.v = 0.8 * self.v + 0.05 * f
        self.p = np.clip(self.p + self.v, -1, 1)
        self.t += 1
        r = -np.abs(self.p - self.tg) * self.rew_units
        self.ret += r
        done = self.t >= self.lim
        finished = []
        idx = np.nonzero(done)[0]
        for i in idx:
            finished.append((float(self.ret[i]), int(self.t[i])))
        if len(idx):
            self._new(idx)
        return self._obs(), r.astype(np.float32), done, finished


# ----------------------------------------------------------------------------------------------
# SB3-style output: VecMonitor's monitor.csv and the logger (stdout table + progress.csv)
# ----------------------------------------------------------------------------------------------
class Monitor:
    def __init__(self, path, env_id, t_start=None):
        self.t0 = time.time() if t_start is None else t_start
        self.f = open(path, "w")
        self.f.write("#" + json.dumps({"t_start": self.t0, "env_id": env_id}) + "\n")
        self.f.write("r,l,t\n")

    def add(self, r, l):
        self.f.write(f"{round(r, 6)},{l},{round(time.time() - self.t0, 6)}\n")

    def close(self):
        self.f.close()


class SB3Logger:
    """Mimics stable_baselines3.common.logger with format_strings=['stdout', 'csv']."""

    def __init__(self, folder, stream):
        os.makedirs(folder, exist_ok=True)
        self.folder, self.stream = folder, stream
        self.kv, self.rows, self.keys = {}, [], []

    def record(self, k, v):
        self.kv[k] = v

    def dump(self):
        key2str = {}
        tag = ""
        for key, value in sorted(self.kv.items()):
            if isinstance(value, float):
                vs = f"{value:<8.3g}"
            else:
                vs = str(value)
            if key.find("/") > 0:
                tag = key[: key.find("/") + 1]
                key2str[(tag, tag)] = ""
            if len(tag) > 0 and tag in key:
                key = f"{'':3}{key[len(tag):]}"
            key2str[(tag, key)] = vs
        kw = max(len(k[1]) for k in key2str)
        vw = max(len(v) for v in key2str.values())
        dashes = "-" * (kw + vw + 7)
        lines = [dashes]
        for (_, key), value in key2str.items():
            lines.append(f"| {key}{' ' * (kw - len(key))} | {value}{' ' * (vw - len(value))} |")
        lines.append(dashes)
        self.stream.write("\n".join(lines) + "\n")
        self.stream.flush()
        for k in self.kv:
            if k not in self.keys:
                self.keys.append(k)
        self.rows.append(dict(self.kv))
        self.kv = {}
        self.write_csv()

    def write_csv(self):
        with open(os.path.join(self.folder, "progress.csv"), "w") as f:
            f.write(",".join(self.keys) + "\n")
            for r in self.rows:
                f.write(",".join("" if k not in r else repr(float(r[k])) if isinstance(r[k], float) else str(r[k])
                                 for k in self.keys) + "\n")


# ----------------------------------------------------------------------------------------------
# SB3-like algorithms
# ----------------------------------------------------------------------------------------------
def mlp(i, o, hid=(64, 64), act=nn.Tanh, gain=1.0):
    layers, d = [], i
    for h in hid:
        lin = nn.Linear(d, h)
        nn.init.orthogonal_(lin.weight, math.sqrt(2))
        nn.init.zeros_(lin.bias)
        layers += [lin, act()]
        d = h
    out = nn.Linear(d, o)
    nn.init.orthogonal_(out.weight, gain)
    nn.init.zeros_(out.bias)
    layers.append(out)
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_act, discrete, hid=(64, 64), log_std_init=0.0):
        super().__init__()
        self.discrete = discrete
        self.pi = mlp(obs_dim, n_act, hid, gain=0.01)
        self.vf = mlp(obs_dim, 1, hid, gain=1.0)
        if not discrete:
            self.log_std = nn.Parameter(torch.full((n_act,), float(log_std_init)))

    def dist(self, obs):
        out = self.pi(obs)
        if self.discrete:
            return torch.distributions.Categorical(logits=out)
        return torch.distributions.Normal(out, self.log_std.exp().expand_as(out))

    def logp_ent(self, d, a):
        if self.discrete:
            return d.log_prob(a), d.entropy()
        return d.log_prob(a).sum(-1), d.entropy().sum(-1)

    def value(self, obs):
        return self.vf(obs).squeeze(-1)


def explained_variance(y_pred, y_true):
    var_y = np.var(y_true)
    return float("nan") if var_y == 0 else float(1 - np.var(y_true - y_pred) / var_y)


def ppo_train(env, env_id, run_dir, stream, cfg, seed, monitor, logger, policy=None, num_timesteps=0,
              total_timesteps=None, t_start=None):
    """SB3-PPO-like loop. cfg keys: n_envs n_steps batch_size n_epochs gamma gae_lambda clip_range ent_coef
    vf_coef max_grad_norm lr lr_schedule ('constant'|'linear') lr_step ('progress'|'epoch')."""
    torch.manual_seed(seed)
    discrete = env.n_act > 1 and getattr(env, "discrete", True)
    if policy is None:
        policy = ActorCritic(env.obs_dim, env.n_act, discrete, cfg.get("net_arch", (64, 64)),
                             cfg.get("log_std_init", 0.0))
    opt = torch.optim.Adam(policy.parameters(), lr=cfg["lr"], eps=1e-5)
    total = total_timesteps or cfg["n_timesteps"]
    n_envs, n_steps = env.n, cfg["n_steps"]
    buf = n_envs * n_steps
    obs = env.reset()
    ep_buf = deque(maxlen=100)
    start_steps = num_timesteps
    t0 = time.time()
    it = 0
    n_updates = 0
    opt_steps = 0
    sched_calls = 0
    lr_now = cfg["lr"]

    def sched(progress_remaining):
        if cfg.get("lr_schedule", "constant") == "linear":
            return cfg["lr"] * progress_remaining
        return cfg["lr"]

    while num_timesteps < total:
        O = np.zeros((n_steps, n_envs, env.obs_dim), np.float32)
        A = np.zeros((n_steps, n_envs) + (() if discrete else (env.n_act,)), np.float32)
        R = np.zeros((n_steps, n_envs), np.float32)
        D = np.zeros((n_steps, n_envs), np.float32)
        V = np.zeros((n_steps, n_envs), np.float32)
        LP = np.zeros((n_steps, n_envs), np.float32)
        last_done = np.zeros(n_envs, np.float32)
        for t in range(n_steps):
            with torch.no_grad():
                ot = torch.as_tensor(obs)
                d = policy.dist(ot)
                a = d.sample()
                lp, _ = policy.logp_ent(d, a)
                v = policy.value(ot)
            O[t], V[t], LP[t] = obs, v.numpy(), lp.numpy()
            D[t] = last_done
            A[t] = a.numpy()
            obs, r, done, fin = env.step(a.numpy() if discrete else np.clip(a.numpy(), -1, 1))
            R[t] = r
            last_done = done.astype(np.float32)
            for (er, el) in fin:
                ep_buf.append((er, el))
                monitor.add(er, el)
            num_timesteps += n_envs
        with torch.no_grad():
            last_v = policy.value(torch.as_tensor(obs)).numpy()
        adv = np.zeros_like(R)
        gae = 0
        for t in reversed(range(n_steps)):
            nnt = 1.0 - (last_done if t == n_steps - 1 else D[t + 1])
            nv = last_v if t == n_steps - 1 else V[t + 1]
            delta = R[t] + cfg["gamma"] * nv * nnt - V[t]
            gae = delta + cfg["gamma"] * cfg["gae_lambda"] * nnt * gae
            adv[t] = gae
        ret = adv + V
        it += 1
        # ---- dump logs (SB3 dumps before train(), so train/ values are from the previous update)
        if ep_buf:
            logger.record("rollout/ep_len_mean", float(np.mean([e[1] for e in ep_buf])))
            logger.record("rollout/ep_rew_mean", float(np.mean([e[0] for e in ep_buf])))
        el = time.time() - t0
        logger.record("time/fps", int((num_timesteps - start_steps) / max(el, 1e-8)))
        logger.record("time/iterations", it)
        logger.record("time/time_elapsed", int(el))
        logger.record("time/total_timesteps", num_timesteps)
        logger.dump()
        # ---- train
        progress_remaining = 1.0 - num_timesteps / total
        if cfg.get("lr_step", "progress") == "progress":
            lr_now = sched(progress_remaining)
            for g in opt.param_groups:
                g["lr"] = lr_now
        bO = torch.as_tensor(O.reshape(buf, -1))
        bA = torch.as_tensor(A.reshape((buf,) + A.shape[2:]))
        if discrete:
            bA = bA.long()
        bLP, bADV, bRET, bV = (torch.as_tensor(x.reshape(buf)) for x in (LP, adv, ret, V))
        pg_l, v_l, ent_l, clipf, kls = [], [], [], [], []
        clip = cfg["clip_range"] * (progress_remaining if cfg.get("clip_schedule") == "linear" else 1.0)
        for ep in range(cfg["n_epochs"]):
            perm = np.random.permutation(buf)
            for s in range(0, buf, cfg["batch_size"]):
                mb = perm[s:s + cfg["batch_size"]]
                d = policy.dist(bO[mb])
                lp, ent = policy.logp_ent(d, bA[mb])
                a_ = bADV[mb]
                if len(mb) > 1:
                    a_ = (a_ - a_.mean()) / (a_.std() + 1e-8)
                ratio = torch.exp(lp - bLP[mb])
                pl = -torch.min(a_ * ratio, a_ * torch.clamp(ratio, 1 - clip, 1 + clip)).mean()
                vl = ((bRET[mb] - policy.value(bO[mb])) ** 2).mean()
                el_ = -ent.mean()
                loss = pl + cfg["ent_coef"] * el_ + cfg["vf_coef"] * vl
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(policy.parameters(), cfg["max_grad_norm"])
                opt.step()
                opt_steps += 1
                with torch.no_grad():
                    lr_ = lp - bLP[mb]
                    kls.append(float(((torch.exp(lr_) - 1) - lr_).mean()))
                    clipf.append(float((torch.abs(ratio - 1) > clip).float().mean()))
                pg_l.append(pl.item())
                v_l.append(vl.item())
                ent_l.append(el_.item())
            n_updates += 1
            if cfg.get("lr_step") == "epoch":
                # linear decay over the planned number of rollouts, advanced once per epoch
                sched_calls += 1
                lr_now = cfg["lr"] * max(0.0, 1.0 - sched_calls / (total / (n_envs * n_steps)))
                for g in opt.param_groups:
                    g["lr"] = lr_now
        logger.record("train/approx_kl", float(np.mean(kls)))
        logger.record("train/clip_fraction", float(np.mean(clipf)))
        logger.record("train/clip_range", float(clip))
        logger.record("train/entropy_loss", float(np.mean(ent_l)))
        logger.record("train/explained_variance", explained_variance(V.flatten(), ret.flatten()))
        logger.record("train/learning_rate", float(lr_now))
        logger.record("train/loss", loss.item())
        logger.record("train/n_updates", n_updates)
        logger.record("train/policy_gradient_loss", float(np.mean(pg_l)))
        if not discrete:
            logger.record("train/std", policy.log_std.exp().mean().item())
        logger.record("train/value_loss", float(np.mean(v_l)))
    return policy, num_timesteps, logger


def dqn_train(env, run_dir, stream, cfg, seed, monitor, logger, q=None):
    """SB3-DQN-like loop on a single (n=1) vectorised env. cfg: lr buffer_size learning_starts batch_size
    gamma train_freq gradient_steps target_update_interval exploration_fraction exploration_final_eps
    max_grad_norm net_arch n_timesteps log_interval(episodes)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    if q is None:
        q = mlp(env.obs_dim, env.n_act, cfg["net_arch"], act=nn.ReLU)
        for m in q:
            if isinstance(m, nn.Linear):
                m.reset_parameters()
    qt = mlp(env.obs_dim, env.n_act, cfg["net_arch"], act=nn.ReLU)
    qt.load_state_dict(q.state_dict())
    opt = torch.optim.Adam(q.parameters(), lr=cfg["lr"])
    N = cfg["buffer_size"]
    bo = np.zeros((N, env.obs_dim), np.float32)
    bn = np.zeros((N, env.obs_dim), np.float32)
    ba = np.zeros(N, np.int64)
    br = np.zeros(N, np.float32)
    bd = np.zeros(N, np.float32)
    pos, full = 0, False
    obs = env.reset()
    ep_buf = deque(maxlen=100)
    episodes, n_updates, t0 = 0, 0, time.time()
    total = cfg["n_timesteps"]
    eps = 1.0
    losses = []
    for step in range(1, total + 1):
        frac = min(1.0, step / (cfg["exploration_fraction"] * total))
        eps = 1.0 + frac * (cfg["exploration_final_eps"] - 1.0)
        if step <= cfg["learning_starts"] or rng.random() < eps:
            a = rng.integers(env.n_act)
        else:
            with torch.no_grad():
                a = int(q(torch.as_tensor(obs)).argmax(-1)[0])
        nobs, r, done, fin = env.step(np.array([a]))
        term_obs = nobs[0]
        if fin and hasattr(env, "last_terminal_obs"):
            term_obs = env.last_terminal_obs[0]
        timeout = fin and fin[0][1] >= getattr(env, "max_steps", 10 ** 9)
        bo[pos], bn[pos], ba[pos], br[pos] = obs[0], term_obs, a, r[0]
        bd[pos] = float(done[0] and not timeout)
        pos = (pos + 1) % N
        full = full or pos == 0
        obs = nobs
        for (er, el) in fin:
            ep_buf.append((er, el))
            monitor.add(er, el)
            episodes += 1
            if episodes % cfg.get("log_interval", 4) == 0:
                logger.record("rollout/ep_len_mean", float(np.mean([e[1] for e in ep_buf])))
                logger.record("rollout/ep_rew_mean", float(np.mean([e[0] for e in ep_buf])))
                logger.record("rollout/exploration_rate", float(eps))
                el_ = time.time() - t0
                logger.record("time/episodes", episodes)
                logger.record("time/fps", int(step / max(el_, 1e-8)))
                logger.record("time/time_elapsed", int(el_))
                logger.record("time/total_timesteps", step)
                if n_updates:
                    logger.record("train/learning_rate", float(cfg["lr"]))
                    logger.record("train/loss", float(np.mean(losses)) if losses else float("nan"))
                    logger.record("train/n_updates", n_updates)
                logger.dump()
        if step % cfg["target_update_interval"] == 0:
            qt.load_state_dict(q.state_dict())
        if step > cfg["learning_starts"] and step % cfg["train_freq"] == 0:
            losses = []
            for _ in range(cfg["gradient_steps"]):
                hi = N if full else pos
                idx = rng.integers(0, hi, cfg["batch_size"])
                o, no = torch.as_tensor(bo[idx]), torch.as_tensor(bn[idx])
                with torch.no_grad():
                    tgt = torch.as_tensor(br[idx]) + cfg["gamma"] * (1 - torch.as_tensor(bd[idx])) * qt(no).max(-1)[0]
                qv = q(o).gather(1, torch.as_tensor(ba[idx])[:, None]).squeeze(1)
                loss = nn.functional.smooth_l1_loss(qv, tgt)
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(q.parameters(), cfg["max_grad_norm"])
                opt.step()
                losses.append(loss.item())
                n_updates += 1
    return q


def a2c_train(env, run_dir, stream, cfg, seed, monitor, logger):
    """SB3-A2C-like loop: RMSprop(alpha=0.99, eps=1e-5), n-step returns with GAE(lambda), no adv. norm."""
    torch.manual_seed(seed)
    discrete = env.n_act > 1 and getattr(env, "discrete", True)
    policy = ActorCritic(env.obs_dim, env.n_act, discrete, cfg.get("net_arch", (64, 64)), cfg.get("log_std_init", 0.0))
    opt = torch.optim.RMSprop(policy.parameters(), lr=cfg["lr"], alpha=0.99, eps=1e-5)
    n_envs, n_steps = env.n, cfg["n_steps"]
    obs = env.reset()
    ep_buf = deque(maxlen=100)
    num_timesteps, it, n_updates, t0 = 0, 0, 0, time.time()
    last_done = np.zeros(n_envs, np.float32)
    while num_timesteps < cfg["n_timesteps"]:
        O, A, R, D, V = [], [], [], [], []
        for t in range(n_steps):
            with torch.no_grad():
                ot = torch.as_tensor(obs)
                a = policy.dist(ot).sample()
                v = policy.value(ot)
            O.append(obs); A.append(a.numpy()); V.append(v.numpy()); D.append(last_done)
            obs, r, done, fin = env.step(a.numpy() if discrete else np.clip(a.numpy(), -1, 1))
            R.append(r)
            last_done = done.astype(np.float32)
            for (er, el) in fin:
                ep_buf.append((er, el))
                monitor.add(er, el)
            num_timesteps += n_envs
        with torch.no_grad():
            last_v = policy.value(torch.as_tensor(obs)).numpy()
        R, D, V = np.array(R), np.array(D), np.array(V)
        adv = np.zeros_like(R)
        gae = 0
        for t in reversed(range(n_steps)):
            nnt = 1.0 - (last_done if t == n_steps - 1 else D[t + 1])
            nv = last_v if t == n_steps - 1 else V[t + 1]
            delta = R[t] + cfg["gamma"] * nv * nnt - V[t]
            gae = delta + cfg["gamma"] * cfg["gae_lambda"] * nnt * gae
            adv[t] = gae
        ret = adv + V
        bO = torch.as_tensor(np.array(O).reshape(n_steps * n_envs, -1))
        bA = torch.as_tensor(np.array(A).reshape((n_steps * n_envs,) + np.array(A).shape[2:]))
        d = policy.dist(bO)
        lp, ent = policy.logp_ent(d, bA.long() if discrete else bA)
        bADV = torch.as_tensor(adv.reshape(-1))
        pl = -(bADV * lp).mean()
        vl = ((torch.as_tensor(ret.reshape(-1)) - policy.value(bO)) ** 2).mean()
        el_ = -ent.mean()
        loss = pl + cfg["ent_coef"] * el_ + cfg["vf_coef"] * vl
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(policy.parameters(), cfg["max_grad_norm"])
        opt.step()
        n_updates += 1
        it += 1
        if it % cfg.get("log_interval", 100) == 0:
            if ep_buf:
                logger.record("rollout/ep_len_mean", float(np.mean([e[1] for e in ep_buf])))
                logger.record("rollout/ep_rew_mean", float(np.mean([e[0] for e in ep_buf])))
            el = time.time() - t0
            logger.record("time/fps", int(num_timesteps / max(el, 1e-8)))
            logger.record("time/iterations", it)
            logger.record("time/time_elapsed", int(el))
            logger.record("time/total_timesteps", num_timesteps)
            logger.record("train/entropy_loss", el_.item())
            logger.record("train/explained_variance", explained_variance(V.flatten(), ret.flatten()))
            logger.record("train/learning_rate", float(cfg["lr"]))
            logger.record("train/n_updates", n_updates)
            logger.record("train/policy_loss", pl.item())
            if not discrete:
                logger.record("train/std", policy.log_std.exp().mean().item())
            logger.record("train/value_loss", vl.item())
            logger.dump()
    return policy


# ----------------------------------------------------------------------------------------------
# SB3 / RL-Zoo style runs (produced in-process)
# ----------------------------------------------------------------------------------------------
def zoo_header(f, env_id, algo, seed, hp_items, n_envs, log_path):
    f.write(f"========== {env_id} ==========\n")
    f.write(f"Seed: {seed}\n")
    f.write("Default hyperparameters for environment (ones being tuned will be overridden):\n")
    f.write("OrderedDict([" + ", ".join(f"('{k}', {v!r})" for k, v in sorted(hp_items)) + "])\n")
    f.write(f"Using {n_envs} environments\n")
    f.write("Creating test environment\n")
    f.write("Using cpu device\n")
    f.write(f"Log path: {log_path}\n")


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


PPO_CARTPOLE_YML = """CartPole-v1:
  n_envs: 8
  n_timesteps: !!float {n_timesteps}
  policy: 'MlpPolicy'
  n_steps: 32
  batch_size: 256
  gae_lambda: 0.8
  gamma: 0.98
  n_epochs: 20
  ent_coef: 0.0
  learning_rate: {lr}
  clip_range: lin_0.2
"""

PPO_CARTPOLE_CFG = dict(n_steps=32, batch_size=256, n_epochs=20, gamma=0.98, gae_lambda=0.8, clip_range=0.2,
                        clip_schedule="linear", ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5)


def run_zoo_ppo_cartpole(d, seed, lr, lr_schedule, n_timesteps, lr_yml, n_ts_yml):
    cfg = dict(PPO_CARTPOLE_CFG, lr=lr, lr_schedule=lr_schedule, n_timesteps=n_timesteps)
    write_text(os.path.join(d, "hyperparams.yml"), PPO_CARTPOLE_YML.format(n_timesteps=n_ts_yml, lr=lr_yml))
    with open(os.path.join(d, "train.log"), "w") as f:
        hp = [("batch_size", 256), ("clip_range", "lin_0.2"), ("ent_coef", 0.0), ("gae_lambda", 0.8), ("gamma", 0.98),
              ("learning_rate", lr_yml if isinstance(lr_yml, str) and lr_yml.startswith("lin") else lr),
              ("n_envs", 8), ("n_epochs", 20), ("n_steps", 32), ("n_timesteps", float(n_timesteps)),
              ("policy", "MlpPolicy")]
        zoo_header(f, "CartPole-v1", "ppo", seed, hp, 8, "logs/ppo/CartPole-v1_1")
        env = CartPoleVec(8, seed=seed)
        mon = Monitor(os.path.join(d, "0.monitor.csv"), "CartPole-v1")
        lg = SB3Logger(d, f)
        ppo_train(env, "CartPole-v1", d, f, cfg, seed, mon, lg)
        mon.close()
        f.write("Saving to logs/ppo/CartPole-v1_1\n")


def run_healthy_ppo(d):
    run_zoo_ppo_cartpole(d, seed=1, lr=1e-3, lr_schedule="linear", n_timesteps=80000, lr_yml="lin_0.001",
                         n_ts_yml="8e4")


def run_lr_too_high(d):
    run_zoo_ppo_cartpole(d, seed=1, lr=5e-2, lr_schedule="constant", n_timesteps=50000, lr_yml="!!float 5e-2",
                         n_ts_yml="5e4")


def run_lr_too_low(d):
    """A2C on CartPole with RMSprop lr 4e-5 (SB3 default 7e-4)."""
    seed = 5
    write_text(os.path.join(d, "hyperparams.yml"), """CartPole-v1:
  n_envs: 8
  n_timesteps: !!float 1e5
  policy: 'MlpPolicy'
  ent_coef: 0.0
  learning_rate: !!float 4e-5
""")
    cfg = dict(lr=4e-5, n_steps=5, gamma=0.99, gae_lambda=1.0, ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5,
               n_timesteps=100000, log_interval=50)
    with open(os.path.join(d, "train.log"), "w") as f:
        hp = [("ent_coef", 0.0), ("learning_rate", 4e-5), ("n_envs", 8), ("n_timesteps", 100000.0), ("policy", "MlpPolicy")]
        zoo_header(f, "CartPole-v1", "a2c", seed, hp, 8, "logs/a2c/CartPole-v1_2")
        env = CartPoleVec(8, seed=seed)
        mon = Monitor(os.path.join(d, "0.monitor.csv"), "CartPole-v1")
        lg = SB3Logger(d, f)
        a2c_train(env, d, f, cfg, seed, mon, lg)
        mon.close()
        f.write("Saving to logs/a2c/CartPole-v1_2\n")


def run_unnormalized(d):
    """PPO on the reach task whose observations and rewards are in millimetres (values in the 100s-1000s)."""
    seed = 7
    write_text(os.path.join(d, "hyperparams.yml"), """Reach1D-v0:
  n_envs: 4
  n_timesteps: !!float 6e4
  policy: 'MlpPolicy'
  n_steps: 256
  batch_size: 64
  n_epochs: 10
  gae_lambda: 0.95
  gamma: 0.99
  learning_rate: !!float 3e-4
  ent_coef: 0.0
  env_kwargs:
    discrete_actions: true
    rail_length_mm: 2000
""")
    cfg = dict(n_steps=256, batch_size=64, n_epochs=10, gamma=0.99, gae_lambda=0.95, clip_range=0.2, ent_coef=0.0,
               vf_coef=0.5, max_grad_norm=0.5, lr=3e-4, lr_schedule="constant", n_timesteps=60000)
    with open(os.path.join(d, "train.log"), "w") as f:
        hp = [("batch_size", 64), ("ent_coef", 0.0), ("env_kwargs", {"discrete_actions": True, "rail_length_mm": 2000}),
              ("gae_lambda", 0.95), ("gamma", 0.99), ("learning_rate", 3e-4), ("n_envs", 4), ("n_epochs", 10),
              ("n_steps", 256), ("n_timesteps", 60000.0), ("policy", "MlpPolicy")]
        zoo_header(f, "Reach1D-v0", "ppo", seed, hp, 4, "logs/ppo/Reach1D-v0_3")
        env = ReachVec(4, seed=seed, discrete=True, units=1000.0, rew_units=1000.0)
        mon = Monitor(os.path.join(d, "0.monitor.csv"), "Reach1D-v0")
        lg = SB3Logger(d, f)
        ppo_train(env, "Reach1D-v0", d, f, cfg, seed, mon, lg)
        mon.close()
        f.write("Saving to logs/ppo/Reach1D-v0_3\n")


def run_lr_schedule_bug(d):
    """PPO (continuous reach); linear lr decay meant per rollout, advanced once per epoch (n_epochs=5 times too fast)."""
    seed = 9
    conf = {"algo": "PPO", "env_id": "Reach1D-v0", "policy": "MlpPolicy", "n_envs": 4, "total_timesteps": 80000,
            "learning_rate": 0.001, "lr_schedule": "linear", "lr_final": 0.0, "n_steps": 256, "batch_size": 128,
            "n_epochs": 5, "gamma": 0.99, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.0, "vf_coef": 0.5,
            "max_grad_norm": 0.5, "seed": seed, "device": "cpu"}
    write_text(os.path.join(d, "config.json"), json.dumps(conf, indent=2) + "\n")
    cfg = dict(n_steps=256, batch_size=128, n_epochs=5, gamma=0.99, gae_lambda=0.95, clip_range=0.2, ent_coef=0.0,
               vf_coef=0.5, max_grad_norm=0.5, lr=1e-3, lr_schedule="linear", lr_step="epoch", n_timesteps=80000)
    with open(os.path.join(d, "train.log"), "w") as f:
        f.write("Using cpu device\nLogging to ./logs/ppo_reach/\n")
        env = ReachVec(4, seed=seed, discrete=False)
        mon = Monitor(os.path.join(d, "monitor.csv"), "Reach1D-v0")
        lg = SB3Logger(d, f)
        ppo_train(env, "Reach1D-v0", d, f, cfg, seed, mon, lg)
        mon.close()
        f.write("Saved model to ./models/ppo_reach_final.zip\n")


DQN_CFG = dict(lr=1e-3, buffer_size=50000, learning_starts=1000, batch_size=64, gamma=0.99, train_freq=16,
               gradient_steps=4, target_update_interval=500, exploration_fraction=0.2, exploration_final_eps=0.05,
               max_grad_norm=10, net_arch=(64, 64))


def run_resume_mismatch(d):
    """DQN on CartPole for 30k steps, checkpoint of the Q-network weights only; the resumed job builds a new DQN
    (empty replay buffer, exploration schedule and step counter from 0, fresh Adam) and loads the weights."""
    write_text(os.path.join(d, "hyperparams.yml"), """CartPole-v1:
  n_timesteps: !!float 3e4
  policy: 'MlpPolicy'
  learning_rate: !!float 1e-3
  batch_size: 64
  buffer_size: 50000
  learning_starts: 1000
  gamma: 0.99
  target_update_interval: 500
  train_freq: 16
  gradient_steps: 4
  exploration_fraction: 0.2
  exploration_final_eps: 0.05
  policy_kwargs: "dict(net_arch=[64, 64])"
""")
    with open(os.path.join(d, "train.log"), "w") as f:
        f.write("$ python train_dqn.py --config hyperparams.yml --total-timesteps 30000\n")
        f.write("Using cpu device\nWrapping the env with a `Monitor` wrapper\nWrapping the env in a DummyVecEnv.\n"
                "Logging to ./tb/DQN_1\n")
        lg = SB3Logger(os.path.join(d, "DQN_1"), f)
        mon = Monitor(os.path.join(d, "DQN_1", "monitor.csv"), "CartPole-v1")
        q = dqn_train(CartPoleVec(1, seed=21), d, f, dict(DQN_CFG, n_timesteps=30000), 21, mon, lg)
        mon.close()
        f.write("Saving checkpoint: checkpoints/dqn_cartpole_30000_steps/q_net.pth\n")
        f.write("\n$ python train_dqn.py --config hyperparams.yml --total-timesteps 20000 "
                "--load checkpoints/dqn_cartpole_30000_steps/q_net.pth\n")
        f.write("Using cpu device\nWrapping the env with a `Monitor` wrapper\nWrapping the env in a DummyVecEnv.\n")
        f.write("Loaded q_net weights from checkpoints/dqn_cartpole_30000_steps/q_net.pth\n")
        f.write("Logging to ./tb/DQN_2\n")
        lg = SB3Logger(os.path.join(d, "DQN_2"), f)
        mon = Monitor(os.path.join(d, "DQN_2", "monitor.csv"), "CartPole-v1")
        dqn_train(CartPoleVec(1, seed=22), d, f, dict(DQN_CFG, n_timesteps=20000), 22, mon, lg, q=q)
        mon.close()
        f.write("Saving checkpoint: checkpoints/dqn_cartpole_20000_steps/q_net.pth\n")


# ----------------------------------------------------------------------------------------------
# shipped user scripts (CleanRL-style single files); each run is produced by executing its script
# ----------------------------------------------------------------------------------------------
A2C_CARTPOLE_NOZG = r'''"""Advantage actor-critic on CartPole (n-step returns, synchronous envs, numpy CartPole-v1 physics)."""
import math
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="a2c")
    p.add_argument("--seed", type=int, default=2)
    p.add_argument("--total-timesteps", type=int, default=120000)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--num-steps", type=int, default=5)
    p.add_argument("--learning-rate", type=float, default=7e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.0)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=100)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class CartPoleEnvs:
    """n CartPole-v1 copies (same physics / limits as gym), auto-reset, returns finished episodes."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.single_observation_shape = (4,)
        self.n_actions = 2

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.steps = np.zeros(self.n, dtype=np.int64)
        self.returns = np.zeros(self.n)
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(action == 1, 10.0, -10.0)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.stack([x, x_dot, theta, theta_dot], 1)
        self.steps += 1
        reward = np.ones(self.n, dtype=np.float32)
        self.returns += reward
        done = (np.abs(x) > 2.4) | (np.abs(theta) > 12 * 2 * math.pi / 360) | (self.steps >= 500)
        episodes = []
        for i in np.nonzero(done)[0]:
            episodes.append({"episode": {"r": float(self.returns[i]), "l": int(self.steps[i])}})
            self.state[i] = self.rng.uniform(-0.05, 0.05, 4)
            self.steps[i], self.returns[i] = 0, 0.0
        return self.state.astype(np.float32), reward, done, episodes


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.pi(h), self.v(h).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"CartPole-v1__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = CartPoleEnvs(args.num_envs, args.seed)
    model = ActorCritic(4, envs.n_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)

    obs = torch.as_tensor(envs.reset())
    global_step = 0
    start_time = time.time()
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    recent = []
    for update in range(1, num_updates + 1):
        log_probs, values, rewards, masks, entropies = [], [], [], [], []
        for _ in range(args.num_steps):
            logits, value = model(obs)
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            next_obs, reward, done, infos = envs.step(action.numpy())
            global_step += args.num_envs
            log_probs.append(dist.log_prob(action))
            entropies.append(dist.entropy())
            values.append(value)
            rewards.append(torch.as_tensor(reward))
            masks.append(torch.as_tensor(1.0 - done.astype(np.float32)))
            for info in infos:
                print(f"global_step={global_step}, episodic_return={info['episode']['r']}")
                writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
                writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
                recent.append(info["episode"]["r"])
            obs = torch.as_tensor(next_obs)

        with torch.no_grad():
            _, next_value = model(obs)
        returns = []
        R = next_value
        for step in reversed(range(args.num_steps)):
            R = rewards[step] + args.gamma * R * masks[step]
            returns.insert(0, R)
        returns = torch.stack(returns)
        values = torch.stack(values)
        log_probs = torch.stack(log_probs)
        advantages = returns - values

        policy_loss = -(log_probs * advantages.detach()).mean()
        value_loss = advantages.pow(2).mean()
        entropy = torch.stack(entropies).mean()
        loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy

        loss.backward()
        grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
        optimizer.step()

        if update % args.log_every == 0:
            sps = int(global_step / (time.time() - start_time))
            mean_ret = np.mean(recent[-100:]) if recent else float("nan")
            print(f"update {update}/{num_updates} | step {global_step} | mean_return(100) {mean_ret:.1f} | "
                  f"policy_loss {policy_loss.item():.4f} | value_loss {value_loss.item():.4f} | "
                  f"entropy {entropy.item():.4f} | grad_norm {grad_norm.item():.4f}")
            print("SPS:", sps)
            writer.add_scalar("losses/policy_loss", policy_loss.item(), global_step)
            writer.add_scalar("losses/value_loss", value_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy.item(), global_step)
            writer.add_scalar("losses/grad_norm", grad_norm.item(), global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
    writer.close()
'''

A2C_REACH = r'''"""Actor-critic for a 1-D reach task: push a cart left/right so it ends up on a random target."""
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="a2c_reach")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--total-timesteps", type=int, default=600000)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--learning-rate", type=float, default=3e-3)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--ent-coef", type=float, default=0.001)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--log-every", type=int, default=1)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class ReachEnvs:
    """Cart on a rail [-1, 1]; obs = (position, target, velocity); action 0 = push left, 1 = push right.
    reward = -|position - target| each step; episodes last 40-80 steps."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)

    def _new(self, idx):
        self.pos[idx] = self.rng.uniform(-1, 1, len(idx))
        self.target[idx] = self.rng.uniform(-1, 1, len(idx))
        self.vel[idx] = 0.0
        self.limit[idx] = self.rng.integers(40, 81, len(idx))
        self.t[idx], self.ret[idx] = 0, 0.0

    def _obs(self):
        return np.stack([self.pos, self.target, self.vel], 1).astype(np.float32)

    def reset(self):
        self.pos, self.target, self.vel = np.zeros(self.n), np.zeros(self.n), np.zeros(self.n)
        self.limit, self.t, self.ret = np.zeros(self.n, np.int64), np.zeros(self.n, np.int64), np.zeros(self.n)
        self._new(np.arange(self.n))
        return self._obs()

    def step(self, action):
        force = np.where(action == 1, 1.0, -1.0)
        self.vel = 0.8 * self.vel + 0.05 * force
        self.pos = np.clip(self.pos + self.vel, -1, 1)
        self.t += 1
        reward = -np.abs(self.pos - self.target)
        self.ret += reward
        done = self.t >= self.limit
        infos = [{"env": i, "episode": {"r": float(self.ret[i]), "l": int(self.t[i])}} for i in np.nonzero(done)[0]]
        if done.any():
            self._new(np.nonzero(done)[0])
        return self._obs(), reward.astype(np.float32), done, infos


class Agent(nn.Module):
    def __init__(self):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))
        self.critic = nn.Sequential(nn.Linear(3, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 1))

    def policy(self, x):
        # probability of pushing right
        return torch.sigmoid(self.actor(x)).squeeze(-1)

    def evaluate(self, x, action):
        p = self.policy(x)
        log_prob = action * torch.log(p) + (1 - action) * torch.log(1 - p)
        entropy = -(p * torch.log(p) + (1 - p) * torch.log(1 - p))
        return log_prob, entropy, self.critic(x).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"Reach1D__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = ReachEnvs(args.num_envs, args.seed)
    agent = Agent()
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate)

    obs = envs.reset()
    global_step = 0
    start_time = time.time()
    num_updates = args.total_timesteps // (args.num_envs * args.num_steps)
    for update in range(1, num_updates + 1):
        b_obs, b_actions, b_rewards, b_dones = [], [], [], []
        for _ in range(args.num_steps):
            with torch.no_grad():
                p = agent.policy(torch.as_tensor(obs))
            action = torch.bernoulli(p)
            next_obs, reward, done, infos = envs.step(action.numpy())
            global_step += args.num_envs
            b_obs.append(obs)
            b_actions.append(action.numpy())
            b_rewards.append(reward)
            b_dones.append(done)
            for info in infos:
                writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
                writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
                if info["env"] == 0:
                    print(f"global_step={global_step}, episodic_return={info['episode']['r']:.3f}")
            obs = next_obs

        with torch.no_grad():
            next_value = agent.critic(torch.as_tensor(obs)).squeeze(-1).numpy()
        returns = np.zeros((args.num_steps, args.num_envs), np.float32)
        R = next_value
        for t in reversed(range(args.num_steps)):
            R = b_rewards[t] + args.gamma * R * (1.0 - b_dones[t])
            returns[t] = R

        x = torch.as_tensor(np.array(b_obs)).reshape(-1, 3)
        a = torch.as_tensor(np.array(b_actions)).reshape(-1)
        ret = torch.as_tensor(returns).reshape(-1)
        log_prob, entropy, value = agent.evaluate(x, a)
        advantage = ret - value.detach()
        policy_loss = -(log_prob * advantage).mean()
        value_loss = 0.5 * (ret - value).pow(2).mean()
        entropy = entropy.mean()
        loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if update % args.log_every == 0:
            sps = int(global_step / (time.time() - start_time))
            print(f"update={update} global_step={global_step} loss={loss.item():.4f} policy_loss={policy_loss.item():.4f} "
                  f"value_loss={value_loss.item():.4f} entropy={entropy.item():.4f} SPS={sps}")
            writer.add_scalar("losses/policy_loss", policy_loss.item(), global_step)
            writer.add_scalar("losses/value_loss", value_loss.item(), global_step)
            writer.add_scalar("losses/entropy", entropy.item(), global_step)
            writer.add_scalar("charts/SPS", sps, global_step)
    writer.close()
'''

REINFORCE_CARTPOLE = r'''# REINFORCE with a learned baseline on CartPole (numpy re-implementation of CartPole-v1 physics)
import argparse
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions import Categorical


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=4)
    p.add_argument("--episodes", type=int, default=700)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--log-interval", type=int, default=10)
    return p.parse_args()


class CartPole:
    """CartPole-v1: same constants, termination and 500-step limit as gym."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4)
        self.t = 0
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.t += 1
        terminated = abs(x) > 2.4 or abs(theta) > 12 * 2 * math.pi / 360
        truncated = self.t >= 500
        return self.state.astype(np.float32), 1.0, terminated, truncated


class Policy(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, hidden), nn.ReLU())
        self.action_head = nn.Linear(hidden, 2)
        self.value_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.action_head(h), self.value_head(h).squeeze(-1)


if __name__ == "__main__":
    args = parse_args()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    env = CartPole(args.seed)
    policy = Policy(args.hidden)
    optimizer = optim.Adam(policy.parameters(), lr=args.lr)
    eps = np.finfo(np.float32).eps.item()

    global_step = 0
    running_reward = 10.0
    start_time = time.time()
    for episode in range(1, args.episodes + 1):
        obs = env.reset()
        observations, actions, rewards = [], [], []
        while True:
            with torch.no_grad():
                logits, _ = policy(torch.as_tensor(obs))
            action = Categorical(logits=logits).sample().item()
            observations.append(obs)
            actions.append(action)
            obs, reward, terminated, truncated = env.step(action)
            rewards.append(reward)
            global_step += 1
            if terminated or truncated:
                break
        ep_return = sum(rewards)
        print(f"global_step={global_step}, episodic_return={ep_return}")

        returns, R = [], 0.0
        for r in reversed(rewards):
            R = r + args.gamma * R
            returns.insert(0, R)
        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)
        logits, values = policy(torch.as_tensor(np.array(observations)))
        log_probs = Categorical(logits=logits).log_prob(torch.as_tensor(actions))
        advantage = returns - values.detach()
        policy_loss = -(log_probs * advantage).sum()
        value_loss = nn.functional.smooth_l1_loss(values, returns, reduction="sum")
        optimizer.zero_grad()
        (policy_loss + value_loss).backward()
        optimizer.step()

        running_reward = 0.05 * ep_return + 0.95 * running_reward
        if episode % args.log_interval == 0:
            print(f"Episode {episode}\tLast reward: {ep_return:.2f}\tAverage reward: {running_reward:.2f}\t"
                  f"policy_loss: {policy_loss.item():.3f}\tvalue_loss: {value_loss.item():.3f}\t"
                  f"SPS: {int(global_step / (time.time() - start_time))}")
'''

DQN_GRID = r'''# DQN on a gridworld with goal-direction features (single file, cleanrl/dqn.py layout)
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="dqn")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--grid-size", type=int, default=12)
    p.add_argument("--max-episode-steps", type=int, default=80)
    p.add_argument("--total-timesteps", type=int, default=40000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--buffer-size", type=int, default=10000)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--target-network-frequency", type=int, default=500)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--start-e", type=float, default=1.0)
    p.add_argument("--end-e", type=float, default=0.05)
    p.add_argument("--exploration-fraction", type=float, default=0.5)
    p.add_argument("--learning-starts", type=int, default=1000)
    p.add_argument("--train-frequency", type=int, default=4)
    p.add_argument("--logdir", type=str, default="runs")
    return p.parse_args()


class GoalGridEnv:
    """Agent starts in the top-left cell of a size x size grid and has to reach the goal in the
    bottom-right corner. Observation: normalised (row, col) plus the unit vector pointing to the goal.
    actions: 0 up, 1 right, 2 down, 3 left; reward +1 at the goal, -0.01 per step."""

    MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]])

    def __init__(self, size, max_steps, seed):
        self.size, self.max_steps = size, max_steps
        self.rng = np.random.default_rng(seed)
        self.goal = np.array([size - 1, size - 1])
        self.observation_shape = (4,)
        self.n_actions = 4

    def _obs(self):
        delta = (self.goal - self.pos).astype(np.float32)
        direction = delta / np.linalg.norm(delta)
        return np.concatenate([self.pos / (self.size - 1), direction]).astype(np.float32)

    def reset(self):
        self.pos = np.array([0, 0])
        self.t, self.ret = 0, 0.0
        return self._obs()

    def step(self, action):
        self.pos = np.clip(self.pos + self.MOVES[action], 0, self.size - 1)
        self.t += 1
        at_goal = bool(np.array_equal(self.pos, self.goal))
        reward = 1.0 if at_goal else -0.01
        self.ret += reward
        obs = self._obs()
        terminated, truncated = at_goal, self.t >= self.max_steps
        info = {}
        if terminated or truncated:
            info = {"episode": {"r": round(self.ret, 2), "l": self.t}, "final_observation": obs}
            obs = self.reset()
        return obs, reward, terminated, truncated, info


class QNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.network = nn.Sequential(nn.Linear(obs_dim, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, n_actions))

    def forward(self, x):
        return self.network(x)


def linear_schedule(start_e, end_e, duration, t):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


class ReplayBuffer:
    def __init__(self, size, obs_dim):
        self.obs = np.zeros((size, obs_dim), np.float32)
        self.next_obs = np.zeros((size, obs_dim), np.float32)
        self.actions = np.zeros(size, np.int64)
        self.rewards = np.zeros(size, np.float32)
        self.dones = np.zeros(size, np.float32)
        self.size, self.pos, self.full = size, 0, False

    def add(self, obs, next_obs, action, reward, done):
        self.obs[self.pos], self.next_obs[self.pos] = obs, next_obs
        self.actions[self.pos], self.rewards[self.pos], self.dones[self.pos] = action, reward, done
        self.pos = (self.pos + 1) % self.size
        self.full = self.full or self.pos == 0

    def sample(self, batch_size):
        idx = np.random.randint(0, self.size if self.full else self.pos, batch_size)
        return (torch.as_tensor(self.obs[idx]), torch.as_tensor(self.actions[idx]), torch.as_tensor(self.next_obs[idx]),
                torch.as_tensor(self.dones[idx]), torch.as_tensor(self.rewards[idx]))


if __name__ == "__main__":
    args = parse_args()
    run_name = f"GoalGrid-{args.grid_size}x{args.grid_size}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    env = GoalGridEnv(args.grid_size, args.max_episode_steps, args.seed)
    q_network = QNetwork(4, env.n_actions)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate)
    target_network = QNetwork(4, env.n_actions)
    target_network.load_state_dict(q_network.state_dict())
    rb = ReplayBuffer(args.buffer_size, 4)
    start_time = time.time()

    obs = env.reset()
    for global_step in range(args.total_timesteps):
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            action = random.randrange(env.n_actions)
        else:
            q_values = q_network(torch.as_tensor(obs)[None])
            action = int(torch.argmax(q_values, dim=1)[0])

        next_obs, reward, terminated, truncated, info = env.step(action)
        if "episode" in info:
            print(f"global_step={global_step}, episodic_return={info['episode']['r']}")
            writer.add_scalar("charts/episodic_return", info["episode"]["r"], global_step)
            writer.add_scalar("charts/episodic_length", info["episode"]["l"], global_step)
            writer.add_scalar("charts/epsilon", epsilon, global_step)

        real_next_obs = info["final_observation"] if (terminated or truncated) else next_obs
        rb.add(obs, real_next_obs, action, reward, float(terminated))
        obs = next_obs

        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                b_obs, b_actions, b_next_obs, b_dones, b_rewards = rb.sample(args.batch_size)
                with torch.no_grad():
                    target_max, _ = target_network(b_next_obs).max(dim=1)
                    td_target = b_rewards + args.gamma * target_max * (1 - b_dones)
                old_val = q_network(b_obs).gather(1, b_actions[:, None]).squeeze()
                loss = F.mse_loss(td_target, old_val)

                if global_step % 100 == 0:
                    writer.add_scalar("losses/td_loss", loss, global_step)
                    writer.add_scalar("losses/q_values", old_val.mean().item(), global_step)
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)
                if global_step % 500 == 0:
                    print(f"global_step={global_step}, td_loss={loss.item():.5f}, q_values={old_val.mean().item():.4f}, epsilon={epsilon:.3f}")
                    print("SPS:", int(global_step / (time.time() - start_time)))

                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            if global_step % args.target_network_frequency == 0:
                target_network.load_state_dict(q_network.state_dict())

    writer.close()
'''

PPO_CARTPOLE_CRITIC_OPT = r'''# PPO on CartPole, single file (adapted from cleanrl/ppo.py, numpy CartPole so it runs without gym)
import argparse
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="ppo")
    p.add_argument("--env-id", type=str, default="CartPole-v1")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=60000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--anneal-lr", type=int, default=1)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--logdir", type=str, default="runs")
    args = p.parse_args()
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    return args


class CartPoleEnvs:
    """n CartPole-v1 copies (same physics / limits as gym), auto-reset, returns finished episodes."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.single_observation_shape = (4,)
        self.n_actions = 2

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.steps = np.zeros(self.n, dtype=np.int64)
        self.returns = np.zeros(self.n)
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(action == 1, 10.0, -10.0)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.stack([x, x_dot, theta, theta_dot], 1)
        self.steps += 1
        reward = np.ones(self.n, dtype=np.float32)
        self.returns += reward
        done = (np.abs(x) > 2.4) | (np.abs(theta) > 12 * 2 * math.pi / 360) | (self.steps >= 500)
        episodes = []
        for i in np.nonzero(done)[0]:
            episodes.append({"r": self.returns[i], "l": int(self.steps[i])})
            self.state[i] = self.rng.uniform(-0.05, 0.05, 4)
            self.steps[i], self.returns[i] = 0, 0.0
        return self.state.astype(np.float32), reward, done, episodes


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = np.prod(envs.single_observation_shape)
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, envs.n_actions), std=0.01),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n%s" % ("\n".join([f"|{k}|{v}|" for k, v in vars(args).items()])))

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = CartPoleEnvs(args.num_envs, args.seed)
    agent = Agent(envs)
    optimizer = optim.Adam(agent.critic.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_shape)
    actions = torch.zeros((args.num_steps, args.num_envs))
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step = 0
    start_time = time.time()
    next_obs = torch.Tensor(envs.reset())
    next_done = torch.zeros(args.num_envs)
    num_updates = args.total_timesteps // args.batch_size

    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            frac = 1.0 - (update - 1.0) / num_updates
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.num_steps):
            global_step += 1 * args.num_envs
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, done, episodes = envs.step(action.numpy())
            rewards[step] = torch.tensor(reward).view(-1)
            next_obs, next_done = torch.Tensor(next_obs), torch.Tensor(done.astype(np.float32))
            for ep in episodes:
                print(f"global_step={global_step}, episodic_return={ep['r']}")
                writer.add_scalar("charts/episodic_return", ep["r"], global_step)
                writer.add_scalar("charts/episodic_length", ep["l"], global_step)

        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs = obs.reshape((-1,) + envs.single_observation_shape)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                newvalue = newvalue.view(-1)
                v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        y_pred, y_true = b_values.numpy(), b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        print(f"update={update}/{num_updates} value_loss={v_loss.item():.4f} policy_loss={pg_loss.item():.5f} "
              f"entropy={entropy_loss.item():.4f} approx_kl={approx_kl.item():.6f} clipfrac={np.mean(clipfracs):.3f} "
              f"explained_var={explained_var:.3f}")
        print("SPS:", int(global_step / (time.time() - start_time)))
        writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)

    writer.close()
'''

PPO_CARTPOLE_NORMAL_INIT = r'''# PPO on CartPole, single file (adapted from cleanrl/ppo.py, numpy CartPole so it runs without gym)
import argparse
import math
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.distributions.categorical import Categorical
from torch.utils.tensorboard import SummaryWriter


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", type=str, default="ppo")
    p.add_argument("--env-id", type=str, default="CartPole-v1")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--total-timesteps", type=int, default=30000)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--num-envs", type=int, default=4)
    p.add_argument("--num-steps", type=int, default=128)
    p.add_argument("--anneal-lr", type=int, default=1)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--logdir", type=str, default="runs")
    args = p.parse_args()
    args.batch_size = int(args.num_envs * args.num_steps)
    args.minibatch_size = int(args.batch_size // args.num_minibatches)
    return args


class CartPoleEnvs:
    """n CartPole-v1 copies (same physics / limits as gym), auto-reset, returns finished episodes."""

    def __init__(self, n, seed):
        self.n = n
        self.rng = np.random.default_rng(seed)
        self.single_observation_shape = (4,)
        self.n_actions = 2

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.steps = np.zeros(self.n, dtype=np.int64)
        self.returns = np.zeros(self.n)
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state.T
        force = np.where(action == 1, 10.0, -10.0)
        costheta, sintheta = np.cos(theta), np.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.stack([x, x_dot, theta, theta_dot], 1)
        self.steps += 1
        reward = np.ones(self.n, dtype=np.float32)
        self.returns += reward
        done = (np.abs(x) > 2.4) | (np.abs(theta) > 12 * 2 * math.pi / 360) | (self.steps >= 500)
        episodes = []
        for i in np.nonzero(done)[0]:
            episodes.append({"r": self.returns[i], "l": int(self.steps[i])})
            self.state[i] = self.rng.uniform(-0.05, 0.05, 4)
            self.steps[i], self.returns[i] = 0, 0.0
        return self.state.astype(np.float32), reward, done, episodes


def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
    torch.nn.init.normal_(layer.weight, 0.0, std)
    torch.nn.init.constant_(layer.bias, bias_const)
    return layer


class Agent(nn.Module):
    def __init__(self, envs):
        super().__init__()
        obs_dim = np.prod(envs.single_observation_shape)
        self.critic = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 1), std=1.0),
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(obs_dim, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, 64)), nn.Tanh(),
            layer_init(nn.Linear(64, envs.n_actions), std=1.0),
        )

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, action=None):
        logits = self.actor(x)
        probs = Categorical(logits=logits)
        if action is None:
            action = probs.sample()
        return action, probs.log_prob(action), probs.entropy(), self.critic(x)


if __name__ == "__main__":
    args = parse_args()
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
    writer = SummaryWriter(f"{args.logdir}/{run_name}")
    writer.add_text("hyperparameters", "|param|value|\n|-|-|\n%s" % ("\n".join([f"|{k}|{v}|" for k, v in vars(args).items()])))

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    envs = CartPoleEnvs(args.num_envs, args.seed)
    agent = Agent(envs)
    optimizer = optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.num_envs) + envs.single_observation_shape)
    actions = torch.zeros((args.num_steps, args.num_envs))
    logprobs = torch.zeros((args.num_steps, args.num_envs))
    rewards = torch.zeros((args.num_steps, args.num_envs))
    dones = torch.zeros((args.num_steps, args.num_envs))
    values = torch.zeros((args.num_steps, args.num_envs))

    global_step = 0
    start_time = time.time()
    next_obs = torch.Tensor(envs.reset())
    next_done = torch.zeros(args.num_envs)
    num_updates = args.total_timesteps // args.batch_size

    for update in range(1, num_updates + 1):
        if args.anneal_lr:
            frac = 1.0 - (update - 1.0) / num_updates
            lrnow = frac * args.learning_rate
            optimizer.param_groups[0]["lr"] = lrnow

        for step in range(0, args.num_steps):
            global_step += 1 * args.num_envs
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, done, episodes = envs.step(action.numpy())
            rewards[step] = torch.tensor(reward).view(-1)
            next_obs, next_done = torch.Tensor(next_obs), torch.Tensor(done.astype(np.float32))
            for ep in episodes:
                print(f"global_step={global_step}, episodic_return={ep['r']}")
                writer.add_scalar("charts/episodic_return", ep["r"], global_step)
                writer.add_scalar("charts/episodic_length", ep["l"], global_step)

        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(args.num_steps)):
                if t == args.num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
            returns = advantages + values

        b_obs = obs.reshape((-1,) + envs.single_observation_shape)
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        b_inds = np.arange(args.batch_size)
        clipfracs = []
        for epoch in range(args.update_epochs):
            np.random.shuffle(b_inds)
            for start in range(0, args.batch_size, args.minibatch_size):
                end = start + args.minibatch_size
                mb_inds = b_inds[start:end]

                _, newlogprob, entropy, newvalue = agent.get_action_and_value(b_obs[mb_inds], b_actions.long()[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()

                with torch.no_grad():
                    old_approx_kl = (-logratio).mean()
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs += [((ratio - 1.0).abs() > args.clip_coef).float().mean().item()]

                mb_advantages = b_advantages[mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)

                pg_loss1 = -mb_advantages * ratio
                pg_loss2 = -mb_advantages * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef)
                pg_loss = torch.max(pg_loss1, pg_loss2).mean()

                newvalue = newvalue.view(-1)
                v_loss = 0.5 * ((newvalue - b_returns[mb_inds]) ** 2).mean()

                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef

                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()

        y_pred, y_true = b_values.numpy(), b_returns.numpy()
        var_y = np.var(y_true)
        explained_var = np.nan if var_y == 0 else 1 - np.var(y_true - y_pred) / var_y

        writer.add_scalar("charts/learning_rate", optimizer.param_groups[0]["lr"], global_step)
        writer.add_scalar("losses/value_loss", v_loss.item(), global_step)
        writer.add_scalar("losses/policy_loss", pg_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy_loss.item(), global_step)
        writer.add_scalar("losses/old_approx_kl", old_approx_kl.item(), global_step)
        writer.add_scalar("losses/approx_kl", approx_kl.item(), global_step)
        writer.add_scalar("losses/clipfrac", np.mean(clipfracs), global_step)
        writer.add_scalar("losses/explained_variance", explained_var, global_step)
        print(f"update={update}/{num_updates} value_loss={v_loss.item():.4f} policy_loss={pg_loss.item():.5f} "
              f"entropy={entropy_loss.item():.4f} approx_kl={approx_kl.item():.6f} clipfrac={np.mean(clipfracs):.3f} "
              f"explained_var={explained_var:.3f}")
        print("SPS:", int(global_step / (time.time() - start_time)))
        writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)

    writer.close()
'''


def run_script(name, d, source):
    """Write `source` as train.py in a scratch folder, run it (cwd there), ship train.py, console.log, tb logs."""
    wd = os.path.join(WORK, name)
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    write_text(os.path.join(wd, "train.py"), source)
    with open(os.path.join(wd, "console.log"), "w") as f:
        subprocess.run([PY, "-u", "train.py"], cwd=wd, stdout=f, stderr=subprocess.STDOUT,
                       env=dict(os.environ, OMP_NUM_THREADS="1", PYTHONWARNINGS="default::RuntimeWarning"))
    for item in os.listdir(wd):
        src = os.path.join(wd, item)
        (shutil.copytree if os.path.isdir(src) else shutil.copy)(src, os.path.join(d, item))


RUN_SPECS = {
    "run01": dict(truth="resume_mismatch", fn=run_resume_mismatch,
                  symptom="I trained DQN on CartPole for 30k steps (mean reward got to ~150-185), saved it and continued training "
                          "from the checkpoint, but the continued run starts back at ~20 reward and after 20k more "
                          "steps it still hasn't caught up with where it was. Why did continuing make it worse?",
                  how="Phase 1: SB3-like DQN 30k steps (DQN_1). Phase 2 builds a fresh DQN and loads only the Q-net "
                      "weights: replay buffer empty, exploration schedule and num_timesteps restart at 0 "
                      "(exploration_rate back to ~1.0), fresh Adam, n_updates from 0, new learning_starts period."),
    "run02": dict(truth="healthy", fn=run_healthy_ppo,
                  symptom="First time using PPO from RL Zoo on CartPole-v1 with the default hyperparameters. "
                          "Does this training run look OK?",
                  how="healthy: SB3-like PPO with the RL-Zoo CartPole hyperparameters (lin_0.001, 8 envs, 80k steps)."),
    "run03": dict(truth="missing_zero_grad", script=A2C_CARTPOLE_NOZG,
                  symptom="My A2C on CartPole sits at ~10-20 reward for most of the run (it briefly got to ~85 "
                          "around 76k steps, then fell back to ~13) and the gradient norm I print keeps going up, "
                          "from ~400 to ~25000.",
                  how="optimizer.zero_grad() removed from the A2C update loop (Adam 7e-4, no clipping): "
                      ".grad accumulates over all updates; printed grad_norm climbs ~420 -> ~25000, entropy collapses to ~0 by "
                      "update 100, mean return stays ~10-20 (one excursion to 85) while healthy A2C gets >150."),
    "run04": dict(truth="lr_too_high", fn=run_lr_too_high,
                  symptom="PPO on CartPole climbs to ~195 mean reward, then within ~2k steps crashes to ~14 and has "
                          "to start over; approx_kl and clip_fraction look much bigger than in the tutorials.",
                  how="RL-Zoo PPO CartPole hyperparameters but learning_rate constant 5e-2 (zoo: lin_1e-3): "
                      "approx_kl median 0.09 (max 9.3; healthy run ~0.001), clip_fraction up to 0.79, entropy_loss near 0 "
                      "from ~9k steps; ep_rew_mean peaks 195 at 34k, crashes to 14 at 36k, recovers to ~120 by 50k."),
    "run05": dict(truth="numerical_instability", script=A2C_REACH,
                  symptom="Training was improving nicely for ~380k steps, then the loss suddenly turned into nan and "
                          "the script crashed in torch.bernoulli.",
                  how="Hand-written Bernoulli policy: p = sigmoid(logit), log_prob = a*log(p) + (1-a)*log(1-p) and "
                          "entropy with log(p), log(1-p). Once a logit passes ~17, sigmoid rounds to exactly 1.0 in "
                          "float32, log(1-p) = -inf, 0*-inf = nan; policy_loss/entropy nan (value_loss finite), "
                          "parameters become nan, next rollout crashes in torch.bernoulli."),
    "run06": dict(truth="unnormalized_inputs", fn=run_unnormalized,
                  symptom="PPO on my custom reach env barely improves (entropy stays at ~1.09, approx_kl ~1e-6) and "
                          "value_loss is around 1e7-1e8. Is something wrong with my hyperparameters?",
                  how="Reach1D env reports observations (positions/velocity) and rewards in millimetres (x1000), "
                      "no VecNormalize: value loss ~1e8 dominates the shared grad-norm clip (0.5), the policy "
                      "gradient is scaled away, explained_variance ~0; same config in metres reaches ~-4 per episode."),
    "run07": dict(truth="healthy", script=REINFORCE_CARTPOLE,
                  symptom="My REINFORCE agent on CartPole is really jumpy - one episode 500, the next 150. "
                          "Is this run OK or is something broken?",
                  how="healthy: REINFORCE with learned baseline, normalised discounted returns, Adam 1e-3, 700 "
                      "episodes; running reward 10 -> ~440 with large episode-to-episode variance."),
    "run08": dict(truth="nan_in_data", script=DQN_GRID,
                  symptom="DQN on my gridworld: td_loss was tiny and finite, then around step 11.5k it became nan "
                          "and stays nan; the agent never reaches the goal.",
                  how="Observation includes (goal - pos) / ||goal - pos||; at the goal cell this is 0/0 = nan. The "
                      "terminal observation is stored in the replay buffer; nan * (1 - done) stays nan in the "
                      "TD target, so the first batch after the first goal visit (step 11098) makes td_loss and "
                      "all weights nan. numpy prints 'invalid value encountered in divide'."),
    "run09": dict(truth="lr_schedule_bug", fn=run_lr_schedule_bug,
                  symptom="PPO on Reach1D improves for the first ~15-20k steps and then is completely flat for the "
                          "rest of the 80k steps; approx_kl goes to exactly 0.",
                  how="Linear lr decay over total_timesteps/(n_envs*n_steps) rollouts, but the schedule is advanced "
                      "once per epoch (n_epochs=5 per rollout), so train/learning_rate hits 0 at ~16k of 80k steps "
                      "instead of at the end; learning stops there."),
    "run10": dict(truth="frozen_parameters", script=PPO_CARTPOLE_CRITIC_OPT,
                  symptom="PPO on CartPole: episodic return stays at ~22 (random) for the whole run, entropy is "
                          "0.6931 the entire time and approx_kl/clipfrac are 0, only value_loss changes.",
                  how="optimizer = Adam(agent.critic.parameters()): the actor is never updated; entropy fixed at "
                      "ln 2, approx_kl and clipfrac exactly 0, value loss falls."),
    "run11": dict(truth="lr_too_low", fn=run_lr_too_low,
                  symptom="A2C on CartPole-v1 after 100k steps is only at ~38 mean reward; I expected it to be "
                          "solved by now. Reward is going up but extremely slowly.",
                  how="SB3-like A2C (8 envs, RMSprop) with learning_rate 4e-5 instead of the default 7e-4: "
                      "ep_rew_mean creeps from ~22 to ~38 almost linearly, entropy barely leaves ln 2."),
    "run12": dict(truth="bad_initialization", script=PPO_CARTPOLE_NORMAL_INIT,
                  symptom="PPO on CartPole is stuck at ~9-10 reward from the very first update and the entropy is "
                          "~0.02 right from the start.",
                  how="layer_init uses normal_(weight, 0, std) with std=sqrt(2) (orthogonal gains reused as "
                      "per-weight std) and std=1.0 on the policy head: hidden tanh units saturate and initial "
                      "logits are ~+-8, so the policy is deterministic at step 0 (entropy ~0.03) and never explores."),
}


def main(names):
    os.makedirs(RUNS, exist_ok=True)
    truth_path = os.path.join(OUT, "truth.json")
    truth = json.load(open(truth_path)) if os.path.exists(truth_path) else {}
    for name in names:
        spec = RUN_SPECS[name]
        d = os.path.join(RUNS, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        t0 = time.time()
        np.random.seed(0)
        if "script" in spec:
            run_script(name, d, spec["script"])
        else:
            spec["fn"](d)
        print(f"{name}: {spec['truth']} done in {time.time() - t0:.1f}s", flush=True)
        truth[name] = {"truth": spec["truth"], "symptom": spec["symptom"], "how": spec["how"]}
    truth = {k: truth[k] for k in sorted(truth)}
    with open(truth_path, "w") as f:
        json.dump(truth, f, indent=2, ensure_ascii=False)
        f.write("\n")
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:] or sorted(RUN_SPECS))
