import csv
import datetime
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn

#@ENV@

CONFIG = @CONFIG@
ENV_CLS = @ENVCLS@
N_ITERS = @ITERS@


def fmt(v):
    if isinstance(v, float):
        return repr(v)
    return str(v)


def pretty(d, indent=0):
    lines = []
    for k in sorted(d):
        v = d[k]
        if isinstance(v, dict):
            if v:
                lines.append("  " * indent + f"{k}:")
                lines += pretty(v, indent + 1)
            else:
                lines.append("  " * indent + f"{k}: {{}}")
        else:
            lines.append("  " * indent + f"{k}: {fmt(v)}")
    return lines


def flatten(d, prefix=""):
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(flatten(v, key + "/"))
        else:
            out[key] = v
    return out


class FCNet(nn.Module):
    def __init__(self, obs_dim, n_act, hiddens, act):
        super().__init__()
        A = nn.Tanh if act == "tanh" else nn.ReLU
        def mlp(out):
            layers, d = [], obs_dim
            for h in hiddens:
                layers += [nn.Linear(d, h), A()]
                d = h
            lin = nn.Linear(d, out)
            nn.init.normal_(lin.weight, std=0.01)
            nn.init.zeros_(lin.bias)
            return nn.Sequential(*layers, lin)
        self.pi = mlp(n_act)
        self.vf = mlp(1)


def main():
    torch.set_num_threads(1)
    cfg = CONFIG
    torch.manual_seed(cfg["seed"]); np.random.seed(cfg["seed"])
    env = ENV_CLS(cfg["num_envs_per_worker"] * max(1, cfg["num_workers"]), seed=cfg["seed"])
    m = cfg["model"]
    net = FCNet(env.obs_dim, env.n_actions, m["fcnet_hiddens"], m["fcnet_activation"])
    opt = torch.optim.Adam(net.parameters(), lr=cfg["lr"])
    kl_coeff = cfg["kl_coeff"]
    with open("params.json", "w") as f:
        json.dump(cfg, f, indent=2, sort_keys=True)
    prog = None
    resf = open("result.json", "w")
    obs = torch.tensor(env.reset())
    n = env.num_envs
    T = cfg["train_batch_size"] // n
    total_steps, total_eps, t_total = 0, 0, 0.0
    date0 = datetime.datetime(2023, 5, 14, 10, 22, 31)
    for it in range(1, N_ITERS + 1):
        t_it = time.time()
        O, A, LP, R, D, V, eps = [], [], [], [], [], [], []
        with torch.no_grad():
            for _ in range(T):
                logits = net.pi(obs); v = net.vf(obs).squeeze(-1)
                dist = torch.distributions.Categorical(logits=logits)
                a = dist.sample()
                nobs, r, term, trunc, info = env.step(a.numpy())
                O.append(obs); A.append(a); LP.append(dist.log_prob(a)); V.append(v)
                R.append(torch.tensor(r)); D.append(torch.tensor(term | trunc, dtype=torch.float32))
                eps += info["episode"]
                obs = torch.tensor(nobs)
            last_v = net.vf(obs).squeeze(-1)
        gam, lam = cfg["gamma"], cfg["lambda"]
        adv = torch.zeros(T, n); g = torch.zeros(n)
        for t in reversed(range(T)):
            nv = last_v if t == T - 1 else V[t + 1]
            delta = R[t] + gam * nv * (1 - D[t]) - V[t]
            g = delta + gam * lam * (1 - D[t]) * g
            adv[t] = g
        Vt = torch.stack(V).flatten()
        ret = adv.flatten() + Vt
        O = torch.stack(O).flatten(0, 1); A = torch.stack(A).flatten(); LP = torch.stack(LP).flatten()
        adv = adv.flatten(); adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        old_logits = None
        with torch.no_grad():
            old_logits = net.pi(O)
        st = {k: [] for k in ["total_loss", "policy_loss", "vf_loss", "vf_explained_var", "kl", "entropy", "grad_gnorm"]}
        mb = cfg["sgd_minibatch_size"]
        for _ in range(cfg["num_sgd_iter"]):
            perm = torch.randperm(len(O))
            for i in range(0, len(O), mb):
                idx = perm[i:i + mb]
                logits = net.pi(O[idx]); v = net.vf(O[idx]).squeeze(-1)
                dist = torch.distributions.Categorical(logits=logits)
                old = torch.distributions.Categorical(logits=old_logits[idx])
                kl = torch.distributions.kl_divergence(old, dist).mean()
                ratio = torch.exp(dist.log_prob(A[idx]) - LP[idx])
                surr = torch.min(adv[idx] * ratio, adv[idx] * torch.clamp(ratio, 1 - cfg["clip_param"], 1 + cfg["clip_param"]))
                vf_err = torch.clamp((v - ret[idx]) ** 2, 0, cfg["vf_clip_param"])
                ent = dist.entropy().mean()
                loss = (-surr + kl_coeff * kl + cfg["vf_loss_coeff"] * vf_err).mean() - cfg["entropy_coeff"] * ent
                opt.zero_grad(); loss.backward()
                if cfg["grad_clip"] is not None:
                    gn = nn.utils.clip_grad_norm_(net.parameters(), cfg["grad_clip"])
                else:
                    gn = torch.norm(torch.stack([p.grad.norm() for p in net.parameters() if p.grad is not None]))
                opt.step()
                ev = 1 - torch.var(ret[idx] - v) / (torch.var(ret[idx]) + 1e-8)
                for k, x in zip(st, [loss, -surr.mean(), vf_err.mean(), ev, kl, ent, gn]):
                    st[k].append(float(x.detach()))
        mean_kl = float(np.mean(st["kl"]))
        cur_kl = kl_coeff
        if mean_kl > 2.0 * cfg["kl_target"]:
            kl_coeff *= 1.5
        elif mean_kl < 0.5 * cfg["kl_target"]:
            kl_coeff *= 0.5
        total_steps += T * n
        total_eps += len(eps)
        dt = time.time() - t_it
        t_total += dt
        rs = [e["r"] for e in eps] or [float("nan")]
        ls = [e["l"] for e in eps] or [float("nan")]
        learner_stats = {k: float(np.mean(v)) for k, v in st.items()}
        learner_stats.update(cur_kl_coeff=float(cur_kl), cur_lr=float(np.float32(cfg["lr"])), entropy_coeff=float(cfg["entropy_coeff"]))
        result = {
            "episode_reward_max": float(np.max(rs)), "episode_reward_mean": float(np.mean(rs)),
            "episode_reward_min": float(np.min(rs)), "episode_len_mean": float(np.mean(ls)),
            "episodes_this_iter": len(eps), "episodes_total": total_eps,
            "custom_metrics": {}, "episode_media": {},
            "info": {"learner": {"default_policy": {"learner_stats": learner_stats, "custom_metrics": {},
                                                     "num_agent_steps_trained": float(mb)}},
                     "num_env_steps_sampled": total_steps, "num_env_steps_trained": total_steps,
                     "num_agent_steps_sampled": total_steps, "num_agent_steps_trained": total_steps},
            "timesteps_total": total_steps, "agent_timesteps_total": total_steps,
            "training_iteration": it, "iterations_since_restore": it, "done": False,
            "time_this_iter_s": round(dt, 3), "time_total_s": round(t_total, 3),
            "num_healthy_workers": cfg["num_workers"], "trial_id": "default",
            "experiment_id": "c5a1e2b0d4f34f4b9d2f3c1e7a6b8d90",
            "date": (date0 + datetime.timedelta(seconds=t_total)).strftime("%Y-%m-%d_%H-%M-%S"),
            "hostname": "ws-lab-07", "node_ip": "127.0.0.1", "pid": 48213,
        }
        print(f"== Iteration {it} ==")
        print("\n".join(pretty(result)))
        print(flush=True)
        flat = flatten(result)
        resf.write(json.dumps(result) + "\n")
        if prog is None:
            cols = sorted(k for k in flat if k not in ("custom_metrics", "episode_media"))
            pf = open("progress.csv", "w", newline="")
            prog = csv.DictWriter(pf, fieldnames=cols, extrasaction="ignore")
            prog.writeheader()
        prog.writerow(flat)
        pf.flush()
    resf.close(); pf.close()


if __name__ == "__main__":
    main()
