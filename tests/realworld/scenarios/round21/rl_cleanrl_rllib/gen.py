"""Generate the RL run folders (12 runs). Usage: python gen.py  (any cwd; uses sys.executable)."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src")
RUNS = os.path.join(HERE, "runs")
STAMP = 1718000000


def read(name):
    with open(os.path.join(SRC, name)) as f:
        return f.read()


EP_LOG = '''            for item in info["episode"]:
                print(f"global_step={global_step}, episodic_return={item['r']}")
                writer.add_scalar("charts/episodic_return", item["r"], global_step)
                writer.add_scalar("charts/episodic_length", item["l"], global_step)'''


def render(template, subs, envs=("env_cartpole.py", "env_corridor.py")):
    subs = dict(subs)
    txt = read(template)
    env_code = "\n\n\n".join(read(e).rstrip() for e in envs)
    txt = txt.replace("#@ENV@", env_code)
    txt = txt.replace("#@EPISODE_LOG@", subs.pop("EPISODE_LOG", EP_LOG))
    txt = txt.replace("#@TRACKER_INIT@\n", subs.pop("TRACKER_INIT", ""))
    for k, v in subs.items():
        txt = txt.replace("@%s@" % k, str(v))
    for line in txt.splitlines():
        if "@" in line and any(("@%s@" % s) in line for s in ("ENVID", "TOTAL", "LR", "STAMP", "ITERS", "CONFIG")):
            raise RuntimeError("unreplaced marker: " + line)
    return txt


PATH_SUBS = []


def sanitize(folder):
    for root, _, files in os.walk(folder):
        for fn in files:
            p = os.path.join(root, fn)
            if fn.endswith((".log", ".txt", ".csv", ".json", ".py")):
                with open(p, encoding="utf-8", errors="replace") as f:
                    s = f.read()
                for a, b in PATH_SUBS:
                    s = s.replace(a, b)
                with open(p, "w", encoding="utf-8") as f:
                    f.write(s)


def execute(folder, script_text, log_name, keep_script=True, args=()):
    os.makedirs(folder, exist_ok=True)
    script = os.path.join(folder, "train.py")
    with open(script, "w") as f:
        f.write(script_text)
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    with open(os.path.join(folder, log_name), "w") as log:
        rc = subprocess.call([sys.executable, "train.py", *args], cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=env)
    if not keep_script:
        os.remove(script)
    shutil.rmtree(os.path.join(folder, "__pycache__"), ignore_errors=True)
    return rc


def rllib_config(**kw):
    c = dict(env="CartPoleLite-v0", framework="torch", seed=0, num_workers=2, num_envs_per_worker=4,
             train_batch_size=2000, sgd_minibatch_size=128, num_sgd_iter=10, lr=5e-5, gamma=0.99,
             clip_param=0.3, vf_clip_param=10.0, vf_loss_coeff=1.0, kl_coeff=0.2, kl_target=0.01,
             entropy_coeff=0.0, grad_clip=None, model=dict(fcnet_hiddens=[64, 64], fcnet_activation="tanh"),
             observation_filter="NoFilter", batch_mode="truncate_episodes")
    c["lambda"] = 0.95
    for k, v in kw.items():
        if k == "model":
            c["model"].update(v)
        else:
            c[k] = v
    return c


# ---------------------------------------------------------------------------------------------
def run01(d):  # RLlib PPO, custom tank env with raw observations in litres
    cfg = rllib_config(env="TankLevel-v0", lr=5e-4, model=dict(fcnet_activation="relu"))
    txt = render("rllib_ppo.py", dict(CONFIG=repr(cfg), ENVCLS="TankLevelEnv", ITERS=15), envs=("env_tank.py",))
    execute(d, txt, "stdout.log", keep_script=False)
    with open(os.path.join(d, "env.py"), "w") as f:
        f.write("import numpy as np\n\n\n" + read("env_tank.py"))


def run02(d):  # CleanRL DQN, corridor
    blk = ("    target_network = QNetwork(envs)\n"
           "    target_network.load_state_dict(q_network.state_dict())\n"
           "    optimizer = optim.Adam(target_network.parameters(), lr=args.learning_rate)")
    txt = render("dqn_cleanrl.py", dict(OPTIM_BLOCK=blk, STAMP=STAMP), envs=("env_corridor.py",))
    execute(d, txt, "stdout.log", args=["--total-timesteps", "20000"])


def run03(d):  # hand-written A2C, cart-pole
    txt = render("a2c_handwritten.py", dict(BACKWARD="        loss.backward()"), envs=("env_cartpole.py",))
    execute(d, txt, "train.log")


def run04(d):  # CleanRL PPO, cart-pole
    txt = render("ppo_cleanrl.py", dict(ENVID="CartPoleLite-v0", TOTAL=60000, LR=1e-3, ACTOR_STD=0.01, STAMP=STAMP))
    execute(d, txt, "stdout.log", keep_script=False)


def run05(d):  # Tianshou-style PPO, cart-pole
    txt = render("tianshou_ppo.py", dict(LR=1e-6, EPOCHS=12), envs=("env_cartpole.py",))
    execute(d, txt, "train.log", keep_script=False)


def run06(d):  # RLlib PPO, cart-pole
    cfg = rllib_config(lr=0.3, num_sgd_iter=30, train_batch_size=1000)
    txt = render("rllib_ppo.py", dict(CONFIG=repr(cfg), ENVCLS="CartPoleLite", ITERS=15), envs=("env_cartpole.py",))
    execute(d, txt, "stdout.log", keep_script=False)


def run07(d):  # CleanRL PPO, corridor
    txt = render("ppo_cleanrl.py", dict(ENVID="Corridor-v0", TOTAL=20000, LR=2.5e-4, ACTOR_STD=100.0, STAMP=STAMP + 3))
    execute(d, txt, "stdout.log")


def run08(d):  # REINFORCE on a contextual bandit
    txt = render("reinforce_bandit.py", dict(ITERS=400, LR=5e-4), envs=())
    execute(d, txt, "train.log")


def run09(d):  # Tianshou-style DQN on generated mazes
    txt = render("tianshou_dqn_levels.py", dict(NUMLEVELS=1, EPOCHS=12), envs=())
    execute(d, txt, "train.log", keep_script=False)


TRACKER_INIT = '''    ep_return = np.zeros(args.num_envs)
    ep_len = np.zeros(args.num_envs, dtype=np.int64)
'''
TRACKER_LOG = '''            ep_return += (args.gamma ** ep_len) * reward
            ep_len += 1
            for i in np.nonzero(done)[0]:
                print(f"global_step={global_step}, episodic_return={ep_return[i]}")
                writer.add_scalar("charts/episodic_return", ep_return[i], global_step)
                writer.add_scalar("charts/episodic_length", ep_len[i], global_step)
                ep_return[i] = 0.0
                ep_len[i] = 0'''


def run10(d):  # CleanRL PPO before / after a refactor of the episode bookkeeping
    old = render("ppo_cleanrl.py", dict(ENVID="CartPoleLite-v0", TOTAL=50000, LR=1e-3, ACTOR_STD=0.01, STAMP=STAMP + 7))
    new = render("ppo_cleanrl.py", dict(ENVID="CartPoleLite-v0", TOTAL=50000, LR=1e-3, ACTOR_STD=0.01, STAMP=STAMP + 86400,
                                        TRACKER_INIT=TRACKER_INIT, EPISODE_LOG=TRACKER_LOG))
    execute(os.path.join(d, "before_refactor"), old, "stdout.log", keep_script=False)
    execute(os.path.join(d, "after_refactor"), new, "stdout.log", keep_script=False)
    with open(os.path.join(d, "train.py"), "w") as f:
        f.write(new)


def run11(d):  # hand-written PPO, shared trunk, SGD
    txt = render("ppo_handwritten.py", dict(UPDATES=40, LR=1e-3, GAMMA=0.99, RSCALE=25.0), envs=("env_cartpole.py",))
    execute(d, txt, "train.log")


def run12(d):  # RLlib PPO, slippery corridor, small batches
    cfg = rllib_config(env="SlipperyCorridor-v0", lr=1e-4, train_batch_size=200, sgd_minibatch_size=50, num_sgd_iter=4,
                       num_workers=1, num_envs_per_worker=4, entropy_coeff=0.01)
    envcls = "lambda n, seed: Corridor(n, length=16, seed=seed, slip=0.3)"
    txt = render("rllib_ppo.py", dict(CONFIG=repr(cfg), ENVCLS=envcls, ITERS=80), envs=("env_corridor.py",))
    execute(d, txt, "stdout.log", keep_script=False)


def main():
    only = sys.argv[1:]
    PATH_SUBS.append((RUNS + os.sep, ""))
    PATH_SUBS.append((sysconfig.get_paths()["purelib"], "/home/user/venvs/rl/lib/python3.11/site-packages"))
    PATH_SUBS.append((sys.prefix, "/home/user/venvs/rl"))
    os.makedirs(RUNS, exist_ok=True)
    for i in range(1, 13):
        name = "run%02d" % i
        if only and name not in only:
            continue
        d = os.path.join(RUNS, name)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        print("generating", name, flush=True)
        globals()[name](d)
        for root, dirs, files in os.walk(d):
            for fn in files:
                if fn.startswith("events.out.tfevents"):
                    parts = fn.split(".")
                    # events.out.tfevents.<time>.<host>.<pid>.<n>
                    new = ".".join(parts[:4] + ["lab-ws07", "4242"] + parts[6:])
                    os.rename(os.path.join(root, fn), os.path.join(root, new))
        sanitize(d)


if __name__ == "__main__":
    main()
