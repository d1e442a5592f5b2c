#!/usr/bin/env python3
"""Generate 12 robot-imitation debugging scenario runs (runs/run01..run12) + truth.json.
Every number written comes from the toy trainings performed below (CPU, seeded)."""
import os, sys, json, time, math, copy, random
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen_support"))
import numpy as np, torch, torch.nn as nn
import yaml
from sims import collect, rollout, ENVS
from common import mlp, stack, grad_norm, Norm, make_policy, mse_eval
from fmt import Clock, kfmt, write, write_csv
import texts

torch.set_num_threads(1)
OUT = os.path.join(HERE, "runs")
TRUTH = {}
T_START = time.time()


def seed_all(s):
    random.seed(s); np.random.seed(s); torch.manual_seed(s)


def rd(run, *p):
    return os.path.join(OUT, run, *p)


def truth(run, t, symptom, how):
    TRUTH[run] = {"truth": t, "symptom": symptom, "how": how}


def mean(xs):
    return float(np.mean(xs)) if len(xs) else float("nan")


# =====================================================================================
# run01  resume_mismatch  (push, LeRobot-like log, train.py)
# =====================================================================================
def run01():
    seed_all(1)
    eps = collect("push", 120, seed=1001)
    X, Y = stack(eps); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y))
    N = len(Xn); ep_len = 80
    TOTAL, SAVE, EVAL, LOG, BS, LR = 3000, 1500, 1500, 50, 64, 1e-3
    PREEMPT = 1830

    def new_model():
        return mlp(6, 2, 256, 2)

    def make_opt(m):
        o = torch.optim.AdamW(m.parameters(), lr=LR, weight_decay=1e-4)
        return o, torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=TOTAL)

    def evaluate(m, seed):
        m.eval(); s, tot, mx = rollout("push", make_policy(m, on, an), 50, seed); m.train()
        return 100 * s.mean(), tot.mean(), mx.mean()

    def train(m, opt, sch, start, stop, g, lines, clk, t_el):
        acc = {"loss": [], "grdn": [], "upd": []}
        for step in range(start + 1, stop + 1):
            t0 = time.time()
            idx = torch.randint(0, N, (BS,), generator=g)
            loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward()
            gn = float(torch.nn.utils.clip_grad_norm_(m.parameters(), 10.0))
            lr_now = opt.param_groups[0]["lr"]
            opt.step(); sch.step()
            dt = time.time() - t0; t_el[0] += dt
            acc["loss"].append(loss.item()); acc["grdn"].append(gn); acc["upd"].append(dt)
            if step % LOG == 0:
                smpl = step * BS
                lines.append(f"INFO {clk.at(t_el[0])} ts/train.py:224 step:{kfmt(step) if step >= 1000 else step} "
                             f"smpl:{kfmt(smpl)} ep:{kfmt(smpl // ep_len)} epch:{smpl / N:.2f} loss:{mean(acc['loss']):.3f} "
                             f"grdn:{mean(acc['grdn']):.3f} lr:{lr_now:.1e} updt_s:{mean(acc['upd']):.3f} data_s:0.000")
                acc = {"loss": [], "grdn": [], "upd": []}
            if step % SAVE == 0:
                lines.append(f"INFO {clk.at(t_el[0])} ts/train.py:251 Checkpoint policy after step {step}")
                ck = {"model": copy.deepcopy(m.state_dict()), "optimizer": copy.deepcopy(opt.state_dict()),
                      "lr_scheduler": copy.deepcopy(sch.state_dict()), "step": step, "rng": g.get_state()}
                yield ("ckpt", step, ck)
            if step % EVAL == 0:
                lines.append(f"INFO {clk.at(t_el[0])} ts/train.py:262 Eval policy at step {step}")
                pc, rsum, rmax = evaluate(m, 5000 + step)
                t_el[0] += 4.1
                lines.append(f"INFO {clk.at(t_el[0])} ts/train.py:280 step:{kfmt(step)} smpl:{kfmt(step * BS)} ep:{kfmt(step * BS // ep_len)} "
                             f"epch:{step * BS / N:.2f} ∑rwrd:{rsum:.3f} success:{pc:.1f}% eval_s:4.102")
                yield ("eval", step, pc)

    head = texts.lerobot_head
    # ---------------- first job (preempted)
    seed_all(1)
    m = new_model(); opt, sch = make_opt(m)
    g = torch.Generator().manual_seed(1)
    lines1 = head("2024-06-11 21:04:12", "push2d_demo_v2", "outputs/train/2024-06-11/21-04-12_push2d_mlp", N, len(eps),
                  sum(p.numel() for p in m.parameters()))
    clk = Clock("2024-06-11 21:04:19", scale=9.0); t_el = [0.0]
    ck1500 = None
    for kind, step, val in train(m, opt, sch, 0, PREEMPT, g, lines1, clk, t_el):
        if kind == "ckpt" and step == 1500:
            ck1500 = val
    preempt_time = clk.at(t_el[0] + 3, "%Y-%m-%dT%H:%M:%S")
    lines1.append(f"slurmstepd: error: *** JOB 4417823 ON gpu-a40-07 CANCELLED AT {preempt_time} DUE TO PREEMPTION ***")

    # ---------------- baseline: what an uninterrupted continuation gives (truth only)
    mb = new_model(); mb.load_state_dict(ck1500["model"]); ob, sb = make_opt(mb)
    ob.load_state_dict(ck1500["optimizer"]); sb.load_state_dict(ck1500["lr_scheduler"])
    gb = torch.Generator(); gb.set_state(ck1500["rng"])
    base_eval = None; base_lines = []
    for kind, step, val in train(mb, ob, sb, 1500, TOTAL, gb, base_lines, Clock("2024-01-01 00:00:00"), [0.0]):
        if kind == "eval" and step == TOTAL:
            base_eval = val

    # ---------------- second job: resume (weights only, fresh optimizer + scheduler)
    m2 = new_model()
    lines2 = head("2024-06-12 02:31:50", "push2d_demo_v2", "outputs/train/2024-06-11/21-04-12_push2d_mlp", N, len(eps),
                  sum(p.numel() for p in m2.parameters()), resume=True)
    m2.load_state_dict(ck1500["model"])
    lines2.append("INFO 2024-06-12 02:31:57 ts/train.py:131 Resuming training from checkpoint "
                  "outputs/train/2024-06-11/21-04-12_push2d_mlp/checkpoints/001500/last.pt (step 1500)")
    opt2, sch2 = make_opt(m2)
    g2 = torch.Generator().manual_seed(1)
    clk2 = Clock("2024-06-12 02:31:58", scale=9.0); t2 = [0.0]
    final = None
    for kind, step, val in train(m2, opt2, sch2, 1500, TOTAL, g2, lines2, clk2, t2):
        if kind == "eval" and step == TOTAL:
            final = val
    lines2.append(f"INFO {clk2.at(t2[0] + 1)} ts/train.py:301 End of training")

    write(rd("run01", "logs", "slurm-4417823.out"), "\n".join(lines1))
    write(rd("run01", "logs", "slurm-4418102.out"), "\n".join(lines2))
    write(rd("run01", "train.py"), texts.run01_train_py)
    write(rd("run01", "config.yaml"), texts.run01_config)
    lossof = lambda L: [float(l.split(" loss:")[1].split()[0]) for l in L if " loss:" in l]
    last_res, last_base = mean(lossof(lines2)[-5:]), mean(lossof(base_lines)[-5:])
    write(rd("run01", "post.md"), texts.run01_post.format(final=final, base=base_eval))
    truth("run01", "resume_mismatch",
          f"My push policy job got preempted and SLURM requeued it; it resumed from the 1.5K checkpoint and finished, but final "
          f"success is {final:.0f}% vs {base_eval:.0f}% for the same config without preemption. Did the requeue land on a bad GPU?",
          f"train.py restores only the model weights on resume: AdamW moments and the cosine scheduler are rebuilt from scratch, so at "
          f"step 1500 lr jumps from its decayed 5e-4 back to 1.0e-03 (visible in the lr column of the second log), and the schedule ends at 5e-4 instead of 0. "
          f"The loss level itself barely moves (last logs {last_res:.3f} vs {last_base:.3f}); final success {final:.1f}% vs "
          f"{base_eval:.1f}% for a proper resume (identical to the uninterrupted run), same eval seeds.")


# =====================================================================================
# run02  healthy (reach, thin post)
# =====================================================================================
def run02():
    seed_all(2)
    tr = collect("reach", 60, seed=2001); va = collect("reach", 10, seed=2002)
    X, Y = stack(tr); Xv, Yv = stack(va); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y)); Xvn, Yvn = torch.tensor(on.n(Xv)), torch.tensor(an.n(Yv))
    m = mlp(4, 2, 256, 2); opt = torch.optim.Adam(m.parameters(), 1e-3)
    rows = []
    for ep in range(1, 26):
        perm = torch.randperm(len(Xn)); ls = []
        for i in range(0, len(Xn), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); opt.step(); ls.append(loss.item())
        if ep in (1, 5, 10, 15, 20, 25):
            rows.append((ep, mean(ls), mse_eval(m, Xvn, Yvn)))
    m.eval(); s, tot, mx = rollout("reach", make_policy(m, on, an), 100, 2003)
    log = "\n".join(f"[epoch {e:3d}/25] train_mse={a:.4f}  val_mse={b:.4f}" for e, a, b in rows)
    log += f"\n[eval] reach2d  n_episodes=100  success_rate={s.mean():.2f}  avg_return={tot.mean():.2f}"
    write(rd("run02", "post.md"), texts.run02_post.format(log=log, val=rows[-1][2], succ=100 * s.mean()))
    truth("run02", "healthy",
          f"Is a val MSE around {rows[-1][2]:.3f} (normalised actions) good enough for my reach BC policy, or should I keep tuning? "
          "It plateaued after ~15 epochs.",
          f"Plain, correct BC (60 demos, MLP, Adam 1e-3, normalised obs/actions). Val MSE tracks train MSE and the policy succeeds "
          f"in {100 * s.mean():.0f}% of 100 rollouts; the plateau is the expert's injected action noise.")


# =====================================================================================
# run03  label_misalignment (reach, train.py: obs and actions split with different permutations)
# =====================================================================================
def run03():
    seed_all(3)
    eps = collect("reach", 80, seed=3001)
    obs, act = stack(eps)
    np.random.seed(0)

    def split(x, val_frac=0.1):
        perm = np.random.permutation(len(x)); nv = int(len(x) * val_frac)
        return x[perm[nv:]], x[perm[:nv]]
    otr, ova = split(obs); atr, ava = split(act)
    on, an = Norm(otr), Norm(atr)
    Xt, Yt = torch.tensor(on.n(otr)), torch.tensor(an.n(atr)); Xv, Yv = torch.tensor(on.n(ova)), torch.tensor(an.n(ava))
    torch.manual_seed(0)
    m = mlp(4, 2, 256, 2); opt = torch.optim.Adam(m.parameters(), 1e-3)
    lines = texts.run03_head(len(eps), len(otr), len(ova))
    t_all = time.time()
    for ep in range(1, 31):
        perm = torch.randperm(len(Xt)); ls, gs = [], []
        t0 = time.time()
        for i in range(0, len(Xt), 128):
            idx = perm[i:i + 128]; loss = nn.functional.mse_loss(m(Xt[idx]), Yt[idx])
            opt.zero_grad(); loss.backward(); gs.append(grad_norm(m)); opt.step(); ls.append(loss.item())
        vl = mse_eval(m, Xv, Yv)
        lines.append(f"epoch {ep:03d} | train_loss {mean(ls):.4f} | val_loss {vl:.4f} | grad_norm {mean(gs):.3f} | "
                     f"lr 1.0e-03 | {time.time() - t0:.2f}s")
        if ep % 10 == 0:
            m.eval(); s, tot, mx = rollout("reach", make_policy(m, on, an), 50, 3100 + ep); m.train()
            lines.append(f"  rollout @ epoch {ep}: success {int(s.sum())}/50 ({100 * s.mean():.0f}%)  mean_return {tot.mean():.2f}"
                         f"  final_dist {0:.0f}".replace("  final_dist 0", ""))
    lines.append(f"saved checkpoints/reach_bc_final.pt  (total {time.time() - t_all:.1f}s)")
    write(rd("run03", "train.py"), texts.run03_train_py)
    write(rd("run03", "train_output.txt"), "\n".join(lines))
    write(rd("run03", "post.md"), texts.run03_post)
    truth("run03", "label_misalignment",
          "Loss sits at ~1.0 from the very first epoch and never moves, rollouts basically never reach the goal. "
          "Is a plain MLP just too small for this task, should I switch to a transformer?",
          "train.py calls train_val_split() separately on observations and on actions; each call draws a new np.random.permutation, "
          "so every observation is paired with an action from a random other frame. Normalised action MSE stays at the variance (~1.0) "
          "for train and val with healthy non-zero grad norm, and the policy outputs the mean action.")


# =====================================================================================
# run04  lr_too_high (pendulum, config + wandb CSV)
# =====================================================================================
def run04():
    seed_all(4)
    eps = collect("pendulum", 60, seed=4001)
    X, Y = stack(eps); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y))
    torch.manual_seed(0)
    m = mlp(3, 1, 256, 3); opt = torch.optim.Adam(m.parameters(), 1e-1)
    rows, step, acc, accg = [], 0, [], []
    t0 = time.time()
    for ep in range(10):
        perm = torch.randperm(len(Xn))
        for i in range(0, len(Xn) - 63, 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); gn = grad_norm(m); opt.step(); step += 1
            acc.append(loss.item()); accg.append(gn)
            if step % 10 == 0 or step <= 30:
                rows.append([step, f"{mean(acc):.5f}", f"{max(accg):.4f}", "0.1", ep, f"{time.time() - t0:.2f}"]); acc, accg = [], []
    m.eval(); s, tot, mx = rollout("pendulum", make_policy(m, on, an), 50, 4100)
    rows[-1] += [f"{s.mean():.2f}", f"{tot.mean():.3f}"]
    for r in rows[:-1]:
        r += ["", ""]
    write_csv(rd("run04", "wandb_export_pendulum-bc.csv"),
              ["Step", "train/loss", "train/grad_norm", "train/lr", "epoch", "_runtime", "eval/success_rate", "eval/avg_reward"], rows)
    write(rd("run04", "config.yaml"), texts.run04_config)
    write(rd("run04", "post.md"), texts.run04_post.format(succ=100 * s.mean()))
    truth("run04", "lr_too_high",
          "My action loss blows up in the first few steps, comes down and then keeps jumping around with a spiky grad norm, and "
          "success is mediocre. I think some of my teleop demos are garbage - how do I find the bad episodes?",
          "config.yaml sets optimizer.lr: 1.0e-1 for Adam on a 3x256 MLP (typo for 1e-4). The first steps overshoot (loss "
          "from ~1 to 1e4, grad norm 1e5), then loss comes down but keeps oscillating with grad-norm spikes 10-100x a sane run's; "
          f"rollout success {100 * s.mean():.0f}%.")


# =====================================================================================
# run05  preprocessing_mismatch (push; separate eval script uses min_max instead of mean_std)
# =====================================================================================
def run05():
    seed_all(5)
    tr = collect("push", 100, seed=5001); va = collect("push", 10, seed=5002)
    X, Y = stack(tr); Xv, Yv = stack(va); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y))
    m = mlp(6, 2, 256, 2); opt = torch.optim.Adam(m.parameters(), 1e-3)
    hist = []
    for ep in range(1, 21):
        perm = torch.randperm(len(Xn)); ls = []
        for i in range(0, len(Xn), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); opt.step(); ls.append(loss.item())
        hist.append((ep, mean(ls), mse_eval(m, torch.tensor(on.n(Xv)), torch.tensor(an.n(Yv)))))
    m.eval()
    s_tr, tot_tr, _ = rollout("push", make_policy(m, on, an), 50, 5100)
    mm = lambda o: 2 * (o - on.min) / (on.max - on.min) - 1
    s_ev, tot_ev, _ = rollout("push", make_policy(m, None, an, obs_tf=mm), 100, 5200)
    s_ev2, _, _ = rollout("push", make_policy(m, on, an), 100, 5200)  # truth only
    tail = [f"epoch {e:2d}  loss {a:.4f}  val_loss {b:.4f}" for e, a, b in hist[-4:]]
    tail.append(f"[train-time rollout] push2d  episodes=50  success=0.{int(round(100 * s_tr.mean())):02d}  avg_return={tot_tr.mean():.2f}")
    tail.append("saved: outputs/push_mlp_0614/policy.pt  outputs/push_mlp_0614/dataset_stats.npz")
    write(rd("run05", "train_log_tail.txt"), "\n".join(tail))
    ev = texts.run05_eval_out(s_ev, tot_ev)
    write(rd("run05", "eval_output.txt"), ev)
    write(rd("run05", "configs", "train.yaml"), texts.run05_train_yaml)
    write(rd("run05", "configs", "eval.yaml"), texts.run05_eval_yaml)
    write(rd("run05", "post.md"), texts.run05_post.format(a=100 * s_tr.mean(), b=100 * s_ev.mean()))
    truth("run05", "preprocessing_mismatch",
          f"Since I moved rollouts into a separate eval script, success dropped from {100 * s_tr.mean():.0f}% (in-training rollouts) "
          f"to {100 * s_ev.mean():.0f}% with the same checkpoint. What did I break?",
          "configs/eval.yaml normalises observations with min_max (to [-1,1] from dataset min/max) while the policy was trained "
          f"with mean_std. Same checkpoint: {100 * s_ev.mean():.0f}% with min_max vs {100 * s_ev2.mean():.0f}% with mean_std on the same 100 seeds.")


# =====================================================================================
# run06  overfitting (push, 8 demos, robomimic-style log)
# =====================================================================================
def run06():
    seed_all(6)
    tr = collect("push", 20, seed=6001); va = collect("push", 30, seed=6002)
    X, Y = stack(tr); Xv, Yv = stack(va); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y)); Xvn, Yvn = torch.tensor(on.n(Xv)), torch.tensor(an.n(Yv))
    torch.manual_seed(6)
    m = mlp(6, 2, 256, 3); opt = torch.optim.Adam(m.parameters(), 1e-3)
    lines = texts.robomimic_head(len(tr), len(X), len(va), len(Xv))
    succ_hist = []; vhist = []
    for ep in range(1, 151):
        t0 = time.time(); perm = torch.randperm(len(Xn)); ls, gs = [], []
        for i in range(0, len(Xn), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); gs.append(grad_norm(m)); opt.step(); ls.append(loss.item())
        te = time.time() - t0
        vl = mse_eval(m, Xvn, Yvn); vhist.append(vl)
        lines += texts.robomimic_epoch(ep, mean(ls), mean(gs), 1e-3, te, vl)
        if ep % 25 == 0:
            m.eval(); t1 = time.time(); s, tot, mx = rollout("push", make_policy(m, on, an), 50, 6100 + ep); m.train()
            succ_hist.append((ep, s.mean()))
            lines += texts.robomimic_rollout(ep, tot.mean(), s.mean(), (time.time() - t1) / 50 * 40)
    write(rd("run06", "log.txt"), "\n".join(lines))
    write(rd("run06", "config.json"), texts.run06_config)
    sh = ", ".join(f"ep{e}: {100 * v:.0f}%" for e, v in succ_hist)
    write(rd("run06", "post.md"), texts.run06_post.format(sh=sh))
    best = int(np.argmin(vhist)) + 1
    truth("run06", "overfitting",
          "Training loss goes down the whole run but my validation loss starts climbing after the first few epochs, "
          "and rollout success only creeps up to about a third. Is my validation file broken?",
          f"Only 20 demos (1600 frames) for a 3x256 MLP trained 150 epochs. Train loss falls monotonically to {mean(ls):.4f} while "
          f"validation loss on 30 held-out demos is lowest at epoch {best} ({min(vhist):.3f}) and then rises to {vhist[-1]:.3f}; "
          f"rollout success: {sh}.")


# =====================================================================================
# run07  nan_in_data (pendulum; one frame with NaN velocity; crash)
# =====================================================================================
def run07():
    seed_all(7)
    eps = collect("pendulum", 200, seed=7001)
    BAD_EP, BAD_FR = 117, 54
    eps[BAD_EP]["obs"][BAD_FR, 2] = np.nan
    X, Y = stack(eps)
    mu, sd = np.nanmean(X, 0), np.nanstd(X, 0) + 1e-6
    amu, asd = Y.mean(0), Y.std(0) + 1e-6
    Xn, Yn = torch.tensor((X - mu) / sd), torch.tensor((Y - amu) / asd)
    N = len(X)
    stats = {"observation.state": {"mean": [round(float(v), 6) for v in mu], "std": [round(float(v), 6) for v in sd],
                                    "min": [round(float(v), 6) for v in np.nanmin(X, 0)], "max": [round(float(v), 6) for v in np.nanmax(X, 0)]},
             "action": {"mean": [round(float(v), 6) for v in amu], "std": [round(float(v), 6) for v in asd],
                        "min": [round(float(v), 6) for v in Y.min(0)], "max": [round(float(v), 6) for v in Y.max(0)]}}
    write(rd("run07", "dataset", "meta", "stats.json"), json.dumps(stats, indent=4))
    write(rd("run07", "dataset", "meta", "info.json"), texts.run07_info(len(eps), N))
    write(rd("run07", "convert_rosbags.log"), texts.run07_convert(eps, BAD_EP, BAD_FR))
    results = {}
    for tag, lr in (("train.log", 1e-4), ("train_lr3e-5.log", 3e-5)):
        seed_all(1000)
        g = torch.Generator().manual_seed(1000)
        m = mlp(3, 1, 256, 2); opt = torch.optim.AdamW(m.parameters(), lr=lr, weight_decay=1e-6)
        lines = texts.lerobot_head("2024-07-02 10:15:03" if lr == 1e-4 else "2024-07-02 10:41:47", "pendulum_teleop_v1",
                                   "outputs/train/pendulum_mlp", N, len(eps), sum(p.numel() for p in m.parameters()),
                                   extra=[f"optimizer.lr={lr}"])
        clk = Clock("2024-07-02 10:15:11" if lr == 1e-4 else "2024-07-02 10:41:55", 6.0); el = 0.0
        acc = []; accg = []; crash = None
        for step in range(1, 20001):
            t0 = time.time()
            idx = torch.randint(0, N, (64,), generator=g)
            loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            if not torch.isfinite(loss):
                crash = step; el += time.time() - t0; break
            opt.zero_grad(); loss.backward(); gn = grad_norm(m); opt.step()
            el += time.time() - t0; acc.append(loss.item()); accg.append(gn)
            if step % 10 == 0:
                lines.append(f"INFO {clk.at(el)} ts/train.py:224 step:{step} smpl:{kfmt(step * 64)} ep:{step * 64 // 100} "
                             f"epch:{step * 64 / N:.2f} loss:{mean(acc):.3f} grdn:{mean(accg):.3f} lr:{lr:.1e} updt_s:0.004 data_s:0.001")
                acc, accg = [], []
        lines += texts.run07_traceback(crash, clk.at(el))
        results[lr] = crash
        write(rd("run07", "logs", tag), "\n".join(lines))
    write(rd("run07", "post.md"), texts.run07_post.format(a=results[1e-4], b=results[3e-5]))
    truth("run07", "nan_in_data",
          f"Training crashes with a non-finite loss at step {results[1e-4]}. I lowered the lr from 1e-4 to 3e-5 and it still "
          "dies. Is AdamW unstable with this policy?",
          f"One frame (episode {BAD_EP}, frame {BAD_FR}) has a NaN joint velocity (the converter logged the empty velocity field); "
          f"stats were computed with nan-aware means so they look fine. Loss/grad norm are small and steady until the batch containing "
          f"that frame: crash at step {results[1e-4]} with both lrs (same sampler seed), independent of lr.")


# =====================================================================================
# run08  lr_schedule_bug (reach; CosineAnnealingLR(T_max=num_epochs) stepped every batch)
# =====================================================================================
def run08():
    seed_all(8)
    tr = collect("reach", 100, seed=8001); va = collect("reach", 10, seed=8002)
    X, Y = stack(tr); Xv, Yv = stack(va); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y)); Xvn, Yvn = torch.tensor(on.n(Xv)), torch.tensor(an.n(Yv))
    EPOCHS, BS = 50, 128
    m = mlp(4, 2, 256, 2); opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=1e-6)
    sch = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=EPOCHS)
    lines = []; gstep = 0
    for ep in range(EPOCHS):
        perm = torch.randperm(len(Xn)); ls = []
        for i in range(0, len(Xn) - BS + 1, BS):
            idx = perm[i:i + BS]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); opt.step()
            lr = opt.param_groups[0]["lr"]; sch.step(); ls.append(loss.item())
            if gstep % 5 == 0:
                lines.append(json.dumps({"train_loss": round(loss.item(), 6), "global_step": gstep, "epoch": ep, "lr": lr}))
            gstep += 1
        rec = {"train_loss": round(mean(ls), 6), "global_step": gstep - 1, "epoch": ep, "lr": lr,
               "val_loss": round(mse_eval(m, Xvn, Yvn), 6)}
        if (ep + 1) % 10 == 0:
            m.eval(); s, tot, mx = rollout("reach", make_policy(m, on, an), 50, 8100 + ep); m.train()
            rec["test/mean_score"] = round(float(tot.mean() / 50), 4); rec["test/success_rate"] = round(float(s.mean()), 3)
        lines.append(json.dumps(rec))
    write(rd("run08", "logs.json.txt"), "\n".join(lines))
    write(rd("run08", "train.py"), texts.run08_train_py)
    write(rd("run08", "config.yaml"), texts.run08_config)
    truth("run08", "lr_schedule_bug",
          "My training loss has a regular wave in it every couple of epochs instead of going down smoothly. "
          "Is my dataloader not shuffling properly?",
          "train.py builds CosineAnnealingLR(T_max=cfg.training.num_epochs=50) but calls lr_scheduler.step() after every batch "
          "(39 batches/epoch), so the lr goes 3e-3 -> 0 -> 3e-3 every 100 steps instead of decaying once over 50 epochs; "
          "the loss bumps up each time the lr climbs back.")


# =====================================================================================
# run09  eval_mode_forgotten (pendulum; BatchNorm+Dropout policy, eval.py without .eval())
# =====================================================================================
class BNPolicy(nn.Module):
    def __init__(self, d_in=3, d_out=1, h=256, p=0.1):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p),
                                 nn.Linear(h, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(p), nn.Linear(h, d_out))

    def forward(self, x):
        return self.net(x)


def run09():
    seed_all(9)
    tr = collect("pendulum", 60, seed=9001); va = collect("pendulum", 10, seed=9002)
    X, Y = stack(tr); Xv, Yv = stack(va); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y)); Xvn, Yvn = torch.tensor(on.n(Xv)), torch.tensor(an.n(Yv))
    m = BNPolicy(); opt = torch.optim.Adam(m.parameters(), 1e-3)
    lines = [f"loaded 60 train episodes ({len(X)} frames), 10 val episodes ({len(Xv)} frames)",
             f"obs mean {np.round(on.mean, 4).tolist()} std {np.round(on.std, 4).tolist()}",
             f"act mean {np.round(an.mean, 4).tolist()} std {np.round(an.std, 4).tolist()}"]
    for ep in range(1, 21):
        perm = torch.randperm(len(Xn)); ls = []
        for i in range(0, len(Xn) - 63, 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); opt.step(); ls.append(loss.item())
        vl = mse_eval(m, Xvn, Yvn)
        lines.append(f"Epoch {ep:2d}/20 | train mse {mean(ls):.5f} | val mse {vl:.5f}" + ("  * best, saved ckpt/pendulum_bc.pt" if ep == 20 or ep % 5 == 0 else ""))
    state = copy.deepcopy(m.state_dict())
    # eval.py: loads checkpoint, 50 vectorised envs, torch.no_grad(), but never calls policy.eval()
    pe = BNPolicy(); pe.load_state_dict(state)
    s, tot, mx = rollout("pendulum", make_policy(pe, on, an), 50, 9100)
    pg = BNPolicy(); pg.load_state_dict(state); pg.eval()
    s2, tot2, _ = rollout("pendulum", make_policy(pg, on, an), 50, 9100)  # truth only
    write(rd("run09", "train.py"), texts.run09_train_py)
    write(rd("run09", "eval.py"), texts.run09_eval_py)
    write(rd("run09", "train_log.txt"), "\n".join(lines))
    write(rd("run09", "eval_output.txt"), texts.run09_eval_out(s, tot))
    write(rd("run09", "post.md"), texts.run09_post.format(vl=vl, succ=100 * s.mean()))
    truth("run09", "eval_mode_forgotten",
          f"Val MSE is tiny ({vl:.4f}) but in my sim the pendulum never stays up ({100 * s.mean():.0f}% success), it starts shaking and falls over. "
          "I suspect the sim dynamics don't match the setup I recorded the demos on.",
          "eval.py loads the checkpoint and rolls out under torch.no_grad() but never calls policy.eval(): BatchNorm uses the statistics "
          f"of the 50 parallel envs (which collapse as they converge upright) and Dropout stays on. Same weights in eval mode: {100 * s2.mean():.0f}% success.")


# =====================================================================================
# run10  unnormalized_inputs (push in raw millimetres)
# =====================================================================================
def to_mm(o):
    return (o + 1.0) * 400.0 + 100.0


def run10():
    seed_all(10)
    tr = collect("push", 100, seed=10001); va = collect("push", 10, seed=10002)
    X, Y = stack(tr); Xv, Yv = stack(va)
    Xmm, Xvmm = to_mm(X).astype(np.float32), to_mm(Xv).astype(np.float32)
    Ys, Yvs = np.clip(Y, -1, 1), np.clip(Yv, -1, 1)  # commands / max speed
    Xt, Yt = torch.tensor(Xmm), torch.tensor(Ys); Xvt, Yvt = torch.tensor(Xvmm), torch.tensor(Yvs)
    m = mlp(6, 2, 256, 2); opt = torch.optim.Adam(m.parameters(), 1e-3)
    lines = [f"train frames: {len(Xmm)}  val frames: {len(Xvmm)}",
             f"obs[0]: {np.round(Xmm[0], 1).tolist()}",
             f"act[0]: {np.round(Ys[0], 3).tolist()}"]
    for ep in range(1, 21):
        perm = torch.randperm(len(Xt)); ls, gs = [], []
        for i in range(0, len(Xt), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xt[idx]), Yt[idx])
            opt.zero_grad(); loss.backward(); gs.append(grad_norm(m)); opt.step(); ls.append(loss.item())
        vl = mse_eval(m, Xvt, Yvt)
        lines.append(f"ep {ep:2d}  loss {mean(ls):.4f}  val {vl:.4f}  |grad| mean {mean(gs):.1f} max {max(gs):.1f}")
    m.eval()
    pol = lambda o: m(torch.tensor(to_mm(o).astype(np.float32))).detach().numpy()
    s, tot, mx = rollout("push", pol, 50, 10100)
    lines.append(f"rollouts: {int(s.sum())}/50 success, mean return {tot.mean():.2f}")
    # reference: same data, standardised inputs (truth only)
    on = Norm(Xmm); m2 = mlp(6, 2, 256, 2); o2 = torch.optim.Adam(m2.parameters(), 1e-3); Xs = torch.tensor(on.n(Xmm))
    for ep in range(1, 21):
        perm = torch.randperm(len(Xs))
        for i in range(0, len(Xs), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m2(Xs[idx]), Yt[idx])
            o2.zero_grad(); loss.backward(); o2.step()
    ref_vl = mse_eval(m2, torch.tensor(on.n(Xvmm)), Yvt)
    write(rd("run10", "train.py"), texts.run10_train_py)
    write(rd("run10", "train.log"), "\n".join(lines))
    write(rd("run10", "data", "info.json"), texts.run10_info(len(tr), len(Xmm)))
    truth("run10", "unnormalized_inputs",
          "On my push task the loss bounces around and never really goes down and the grad norm is in the hundreds, "
          "though the exact same script trained fine on my reach task. Is push just too hard for an MLP?",
          "train.py feeds observations in raw millimetres (~100-900) straight into the MLP (only actions are scaled to [-1,1]). "
          f"Loss stays near the action variance with grad norms in the hundreds; val MSE {vl:.3f} vs {ref_vl:.3f} with standardised "
          f"inputs on the same data; {int(s.sum())}/50 rollouts succeed.")


# =====================================================================================
# run11  data_leakage (push; val episodes also in the training set)
# =====================================================================================
def run11():
    seed_all(11)
    eps = collect("push", 40, seed=11001); fresh = collect("push", 20, seed=11002)
    val_ids = list(range(32, 40))
    X, Y = stack(eps); Xv, Yv = stack([eps[i] for i in val_ids]); Xf, Yf = stack(fresh)
    on, an = Norm(X), Norm(Y)
    T_ = lambda a, n: torch.tensor(n.n(a))
    Xn, Yn, Xvn, Yvn, Xfn, Yfn = T_(X, on), T_(Y, an), T_(Xv, on), T_(Yv, an), T_(Xf, on), T_(Yf, an)
    m = mlp(6, 2, 256, 2, dropout=0.1); opt = torch.optim.AdamW(m.parameters(), 3e-4, weight_decay=1e-4)
    rows = []; step = 0
    for ep in range(1, 61):
        perm = torch.randperm(len(Xn)); ls = []
        for i in range(0, len(Xn), 64):
            idx = perm[i:i + 64]; loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
            opt.zero_grad(); loss.backward(); opt.step(); ls.append(loss.item()); step += 1
        vl = mse_eval(m, Xvn, Yvn)
        m.eval()
        with torch.no_grad():
            l1 = float((m(Xvn) - Yvn).abs().mean())
        m.train()
        row = [step, ep, f"{mean(ls):.5f}", f"{vl:.5f}", f"{l1:.5f}", "", ""]
        if ep % 10 == 0:
            m.eval(); s, tot, mx = rollout("push", make_policy(m, on, an), 50, 11100 + ep); m.train()
            row[5], row[6] = f"{s.mean():.2f}", f"{tot.mean():.3f}"
        rows.append(row)
    fl = mse_eval(m, Xfn, Yfn)
    write_csv(rd("run11", "wandb_export.csv"),
              ["Step", "epoch", "train/loss", "val/loss", "val/action_l1", "eval/success_rate", "eval/avg_reward"], rows)
    write(rd("run11", "config.yaml"), texts.run11_config)
    write(rd("run11", "post.md"), texts.run11_post.format(succ=100 * s.mean()))
    truth("run11", "data_leakage",
          f"My val loss is lower than my train loss from the very first epoch and tracks it the whole run, yet rollouts only succeed "
          f"{100 * s.mean():.0f}% of the time. Am I computing the train loss wrong?",
          "config.yaml trains on episodes: null (all 40 episodes) and validates on episodes 32-39, which are therefore also in the training "
          f"set; val loss sits at or below train loss throughout (final {vl:.4f}). On 20 genuinely unseen demos the same model scores {fl:.4f}.")


# =====================================================================================
# run12  healthy (pendulum; train.py; long LeRobot-like log)
# =====================================================================================
def run12():
    seed_all(12)
    eps = collect("pendulum", 80, seed=12001)
    X, Y = stack(eps); on, an = Norm(X), Norm(Y)
    Xn, Yn = torch.tensor(on.n(X)), torch.tensor(an.n(Y)); N = len(Xn)
    m = mlp(3, 1, 256, 2); opt = torch.optim.AdamW(m.parameters(), lr=1e-4, weight_decay=1e-6)
    sch = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 200) * 0.5 * (1 + math.cos(math.pi * min(s, 3000) / 3000)))
    g = torch.Generator().manual_seed(12)
    lines = texts.lerobot_head("2024-07-19 16:40:02", "pendulum_swingup_bc", "outputs/train/2024-07-19/16-40-02_pendulum_mlp",
                               N, len(eps), sum(p.numel() for p in m.parameters()))
    clk = Clock("2024-07-19 16:40:09", 5.0); el = 0.0; acc, accg, gmax = [], [], []
    evals = []
    for step in range(1, 3001):
        t0 = time.time()
        idx = torch.randint(0, N, (64,), generator=g)
        loss = nn.functional.mse_loss(m(Xn[idx]), Yn[idx])
        opt.zero_grad(); loss.backward(); gn = float(torch.nn.utils.clip_grad_norm_(m.parameters(), 10.0))
        lr = opt.param_groups[0]["lr"]; opt.step(); sch.step()
        el += time.time() - t0; acc.append(loss.item()); accg.append(gn)
        if step % 25 == 0:
            lines.append(f"INFO {clk.at(el)} ts/train.py:224 step:{kfmt(step) if step >= 1000 else step} smpl:{kfmt(step * 64)} "
                         f"ep:{step * 64 // 100} epch:{step * 64 / N:.2f} loss:{mean(acc):.4f} grdn:{mean(accg):.3f} lr:{lr:.1e} "
                         f"updt_s:0.003 data_s:0.000")
            gmax.append(max(accg)); acc, accg = [], []
        if step % 1000 == 0:
            m.eval(); s, tot, mx = rollout("pendulum", make_policy(m, on, an), 50, 12100 + step); m.train(); el += 3.0
            lines.append(f"INFO {clk.at(el)} ts/train.py:262 Eval policy at step {step}")
            lines.append(f"INFO {clk.at(el)} ts/train.py:280 step:{kfmt(step)} smpl:{kfmt(step * 64)} ep:{step * 64 // 100} "
                         f"epch:{step * 64 / N:.2f} ∑rwrd:{tot.mean():.3f} success:{100 * s.mean():.1f}% eval_s:3.011")
            lines.append(f"INFO {clk.at(el)} ts/train.py:251 Checkpoint policy after step {step}")
            evals.append(100 * s.mean())
    lines.append(f"INFO {clk.at(el + 1)} ts/train.py:301 End of training")
    write(rd("run12", "train.py"), texts.run12_train_py)
    write(rd("run12", "train.log"), "\n".join(lines))
    write(rd("run12", "post.md"), texts.run12_post.format(succ=evals[-1]))
    truth("run12", "healthy",
          f"The grad norm keeps jumping around in my log even near the end of training; success is {evals[-1]:.0f}%. "
          "Is the noisy grad norm a sign that something is wrong?",
          "Correct BC run (80 demos, AdamW 1e-4, warm-up + cosine, clipping at 10). Loss falls smoothly and levels off at the expert-noise "
          "floor; per-interval grad norm fluctuates as expected for minibatch gradients with small absolute values; rollouts "
          f"{', '.join(f'{e:.0f}%' for e in evals)} at 1K/2K/3K steps.")


if __name__ == "__main__":
    only = sys.argv[1:]
    for name in ["run01", "run02", "run03", "run04", "run05", "run06", "run07", "run08", "run09", "run10", "run11", "run12"]:
        if only and name not in only:
            continue
        t0 = time.time()
        globals()[name]()
        print(f"{name}: {time.time() - t0:.1f}s", flush=True)
    if not only:
        with open(os.path.join(HERE, "truth.json"), "w") as f:
            json.dump(TRUTH, f, indent=2)
    print(f"total {time.time() - T_START:.1f}s")
