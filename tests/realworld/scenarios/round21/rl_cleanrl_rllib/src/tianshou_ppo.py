import argparse
import pprint
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.tensorboard import SummaryWriter


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--task", type=str, default="CartPoleLite-v0")
    parser.add_argument("--seed", type=int, default=1626)
    parser.add_argument("--buffer-size", type=int, default=20000)
    parser.add_argument("--lr", type=float, default=@LR@)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--epoch", type=int, default=@EPOCHS@)
    parser.add_argument("--step-per-epoch", type=int, default=5000)
    parser.add_argument("--step-per-collect", type=int, default=1000)
    parser.add_argument("--repeat-per-collect", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--hidden-sizes", type=int, nargs="*", default=[64, 64])
    parser.add_argument("--training-num", type=int, default=8)
    parser.add_argument("--test-num", type=int, default=10)
    parser.add_argument("--logdir", type=str, default="log")
    parser.add_argument("--vf-coef", type=float, default=0.5)
    parser.add_argument("--ent-coef", type=float, default=0.0)
    parser.add_argument("--eps-clip", type=float, default=0.2)
    parser.add_argument("--max-grad-norm", type=float, default=0.5)
    parser.add_argument("--gae-lambda", type=float, default=0.95)
    parser.add_argument("--norm-adv", type=int, default=1)
    return parser.parse_known_args()[0]


#@ENV@


def mlp(i, o, hs):
    layers, d = [], i
    for h in hs:
        layers += [nn.Linear(d, h), nn.Tanh()]
        d = h
    return nn.Sequential(*layers, nn.Linear(d, o))


def fmt_time(s):
    return "%02d:%02d" % (int(s) // 60, int(s) % 60)


def test_episodes(actor, n, seed):
    env = CartPoleLite(n, seed=seed)
    obs = env.reset()
    done_r = [None] * n
    first = [True] * n
    while any(r is None for r in done_r):
        with torch.no_grad():
            a = actor(torch.tensor(obs)).argmax(-1).numpy()
        obs, r, term, trunc, info = env.step(a)
        # the env auto-resets; take the first finished episode of each env
        ended = np.nonzero(term | trunc)[0]
        for k, i in enumerate(ended):
            if done_r[i] is None:
                done_r[i] = info["episode"][k]["r"]
    return np.array(done_r)


def main():
    torch.set_num_threads(1)
    args = get_args()
    print(args)
    np.random.seed(args.seed); torch.manual_seed(args.seed)
    env = CartPoleLite(args.training_num, seed=args.seed)
    actor, critic = mlp(4, 2, args.hidden_sizes), mlp(4, 1, args.hidden_sizes)
    optim = torch.optim.Adam(list(actor.parameters()) + list(critic.parameters()), lr=args.lr)
    writer = SummaryWriter(f"{args.logdir}/{args.task}/ppo")
    obs = torch.tensor(env.reset())
    env_step, best, best_std, best_ep = 0, -1e9, 0.0, 0
    r0 = test_episodes(actor, args.test_num, args.seed + 1)
    best, best_std = r0.mean(), r0.std()
    print(f"Epoch #0: test_reward: {best:.6f} ± {best_std:.6f}, best_reward: {best:.6f} ± {best_std:.6f} in #0")
    T = args.step_per_collect // args.training_num
    t_start = time.time()
    grad_step = 0
    for epoch in range(1, args.epoch + 1):
        t0 = time.time()
        ep_rews, ep_lens = [], []
        n_ep_last = n_st_last = 0
        while env_step < epoch * args.step_per_epoch:
            O, A, LP, R, D, V, eps = [], [], [], [], [], [], []
            with torch.no_grad():
                for _ in range(T):
                    logits = actor(obs); v = critic(obs).squeeze(-1)
                    dist = torch.distributions.Categorical(logits=logits)
                    a = dist.sample()
                    nobs, r, term, trunc, info = env.step(a.numpy())
                    O.append(obs); A.append(a); LP.append(dist.log_prob(a)); V.append(v)
                    R.append(torch.tensor(r)); D.append(torch.tensor(term | trunc, dtype=torch.float32))
                    eps += info["episode"]
                    obs = torch.tensor(nobs)
                last_v = critic(obs).squeeze(-1)
            env_step += T * args.training_num
            ep_rews += [e["r"] for e in eps]; ep_lens += [e["l"] for e in eps]
            n_ep_last, n_st_last = len(eps), T * args.training_num
            adv = torch.zeros(T, args.training_num); g = torch.zeros(args.training_num)
            for t in reversed(range(T)):
                nv = last_v if t == T - 1 else V[t + 1]
                delta = R[t] + args.gamma * nv * (1 - D[t]) - V[t]
                g = delta + args.gamma * args.gae_lambda * (1 - D[t]) * g
                adv[t] = g
            ret = adv.flatten() + torch.stack(V).flatten()
            O = torch.stack(O).flatten(0, 1); A = torch.stack(A).flatten(); LP = torch.stack(LP).flatten()
            adv = adv.flatten()
            losses = {"loss": [], "loss/clip": [], "loss/vf": [], "loss/ent": []}
            for _ in range(args.repeat_per_collect):
                perm = torch.randperm(len(O))
                for i in range(0, len(O), args.batch_size):
                    idx = perm[i:i + args.batch_size]
                    b_adv = adv[idx]
                    if args.norm_adv:
                        b_adv = (b_adv - b_adv.mean()) / (b_adv.std() + 1e-8)
                    dist = torch.distributions.Categorical(logits=actor(O[idx]))
                    ratio = (dist.log_prob(A[idx]) - LP[idx]).exp()
                    clip_loss = -torch.min(ratio * b_adv, ratio.clamp(1 - args.eps_clip, 1 + args.eps_clip) * b_adv).mean()
                    vf_loss = (ret[idx] - critic(O[idx]).squeeze(-1)).pow(2).mean()
                    ent = dist.entropy().mean()
                    loss = clip_loss + args.vf_coef * vf_loss - args.ent_coef * ent
                    optim.zero_grad(); loss.backward()
                    nn.utils.clip_grad_norm_(list(actor.parameters()) + list(critic.parameters()), args.max_grad_norm)
                    optim.step()
                    grad_step += 1
                    for k, x in zip(losses, [loss, clip_loss, vf_loss, ent]):
                        losses[k].append(x.item())
            lm = {k: float(np.mean(v)) for k, v in losses.items()}
            for k, v in lm.items():
                writer.add_scalar("update/" + k, v, env_step)
            writer.add_scalar("train/reward", float(np.mean([e["r"] for e in eps])) if eps else 0.0, env_step)
            writer.add_scalar("train/length", float(np.mean([e["l"] for e in eps])) if eps else 0.0, env_step)
            writer.add_scalar("train/episode", len(ep_rews), env_step)
        dt = time.time() - t0
        its = args.step_per_epoch
        rew = float(np.mean(ep_rews[-n_ep_last:])) if n_ep_last else 0.0
        ln = int(np.mean(ep_lens[-n_ep_last:])) if n_ep_last else 0
        print(f"Epoch #{epoch}: {its + 1}it [{fmt_time(dt)}, {its / dt:.2f}it/s, env_step={env_step}, len={ln}, "
              f"loss={lm['loss']:.3f}, loss/clip={lm['loss/clip']:.3f}, loss/ent={lm['loss/ent']:.3f}, "
              f"loss/vf={lm['loss/vf']:.3f}, n/ep={n_ep_last}, n/st={n_st_last}, rew={rew:.2f}]")
        tr = test_episodes(actor, args.test_num, args.seed + 1 + epoch)
        writer.add_scalar("test/reward", tr.mean(), env_step)
        writer.add_scalar("test/reward_std", tr.std(), env_step)
        if tr.mean() > best:
            best, best_std, best_ep = tr.mean(), tr.std(), epoch
        print(f"Epoch #{epoch}: test_reward: {tr.mean():.6f} ± {tr.std():.6f}, best_reward: {best:.6f} ± {best_std:.6f} in #{best_ep}", flush=True)
    writer.close()
    dur = time.time() - t_start
    result = {"best_result": f"{best:.2f} ± {best_std:.2f}", "best_reward": float(best), "duration": f"{dur:.2f}s",
              "train_step": env_step, "train_episode": len(ep_rews), "gradient_step": grad_step}
    pprint.pprint(result)
    torch.save({"actor": actor.state_dict(), "critic": critic.state_dict()}, f"{args.logdir}/{args.task}/ppo/policy.pth")


if __name__ == "__main__":
    main()
