import json
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])
rng = np.random.default_rng(cfg["seed"])

#<<persons>>

#<<reid_eval>>

#<<reid_model>>


class ToTensor:
    def __call__(self, imgs):
        return torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0

    def __repr__(self):
        return "ToTensor()"


class Normalize:
    def __init__(self, mean, std):
        self.mean, self.std = mean, std
        self.m = torch.tensor(mean).view(1, 3, 1, 1)
        self.s = torch.tensor(std).view(1, 3, 1, 1)

    def __call__(self, x):
        return (x - self.m) / self.s

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"


class RandomFlip:
    def __call__(self, imgs):
        imgs = imgs.copy()
        m = rng.random(len(imgs)) < 0.5
        imgs[m] = imgs[m][:, :, ::-1]
        return imgs

    def __repr__(self):
        return "RandomHorizontalFlip(p=0.5)"


class Compose:
    def __init__(self, ts):
        self.ts = ts

    def __call__(self, x):
        for t in self.ts:
            x = t(x)
        return x

    def __repr__(self):
        return "Compose(" + ", ".join(map(repr, self.ts)) + ")"


def build_transform(names):
    table = {"to_tensor": ToTensor, "random_flip": RandomFlip,
             "normalize": lambda: Normalize(**cfg["transforms"]["normalize"])}
    return Compose([table[n]() for n in names])


tf = {k: build_transform(cfg["transforms"][k]) for k in ("train", "query", "gallery")}
log = open("train_log.txt", "w")


def say(s):
    log.write(s + "\n")
    log.flush()


for k, t in tf.items():
    say(f"{k} transform: {t}")

d = cfg["data"]
imgs, pids, cams = make_persons(d["num_ids"], d["imgs_per_id"], seed=97)
tr = np.nonzero(pids < d["train_ids"])[0]
te = np.nonzero(pids >= d["train_ids"])[0]
q = np.concatenate([te[pids[te] == p][:d["query_per_id"]] for p in np.unique(pids[te])])
g = np.setdiff1d(te, q)
say(f"train: {len(tr)} imgs / {len(np.unique(pids[tr]))} ids | query: {len(q)} imgs / {len(np.unique(pids[q]))} ids"
    f" | gallery: {len(g)} imgs / {len(np.unique(pids[g]))} ids")

model = ReIDNet(d["train_ids"], cfg["model"]["embedding_size"])
tc = cfg["train"]
opt = torch.optim.AdamW(model.parameters(), lr=tc["lr"], weight_decay=tc["weight_decay"])


@torch.no_grad()
def embed(idx, transform):
    model.eval()
    out = [model(transform(imgs[idx[i:i + 64]]))[1] for i in range(0, len(idx), 64)]
    return F.normalize(torch.cat(out), dim=1)


def evaluate(epoch):
    qf, gf = embed(q, tf["query"]), embed(g, tf["gallery"])
    dist = (1 - qf @ gf.t()).numpy()
    cmc, mAP = eval_market1501(dist, pids[q], pids[g], cams[q], cams[g])
    # sanity check: gallery against itself (leave-one-out)
    gg = (1 - gf @ gf.t()).numpy()
    np.fill_diagonal(gg, 1e9)
    cmc_gg, mAP_gg = eval_market1501(gg, pids[g], pids[g], cams[g] * 0 - 1, cams[g])
    res = {"epoch": epoch, "mAP": float(mAP), **{f"rank-{r}": float(cmc[r - 1]) for r in cfg["eval"]["ranks"]},
           "gallery_loo_rank-1": float(cmc_gg[0]), "gallery_loo_mAP": float(mAP_gg)}
    say(f"[eval] epoch {epoch}: mAP {mAP:.2%} | rank-1 {cmc[0]:.2%} rank-5 {cmc[4]:.2%} rank-10 {cmc[9]:.2%} "
        f"rank-20 {cmc[19]:.2%} | gallery->gallery rank-1 {cmc_gg[0]:.2%} mAP {mAP_gg:.2%} "
       )
    return res, cmc


history = []
n_iter = len(tr) // (tc["p"] * tc["k"])
for epoch in range(1, tc["epochs"] + 1):
    model.train()
    t0 = time.time()
    ls, accs = [], []
    for b in pk_batches(pids[tr], tc["p"], tc["k"], n_iter, rng):
        x = tf["train"](imgs[tr[b]])
        y = torch.from_numpy(pids[tr[b]])
        feat, bn = model(x)
        logits = model.classifier(bn)
        l_id = cross_entropy_label_smooth(logits, y, cfg["loss"]["id"]["label_smoothing"])
        l_tri = batch_hard_triplet(feat, y, cfg["loss"]["metric"]["margin"])
        loss = l_id + l_tri
        opt.zero_grad()
        loss.backward()
        opt.step()
        ls.append((l_id.item(), l_tri.item()))
        accs.append((logits.argmax(1) == y).float().mean().item())
    ls = np.array(ls)
    say(f"epoch {epoch:2d}/{tc['epochs']} | loss_id {ls[:, 0].mean():.4f} loss_tri {ls[:, 1].mean():.4f} "
        f"| id_acc {np.mean(accs):.3f} | {time.time() - t0:.1f}s")
    if epoch % cfg["eval"]["every"] == 0:
        res, cmc = evaluate(epoch)
        history.append(res)

json.dump(history, open("eval_history.json", "w"), indent=1)
with open("final_results.md", "w") as f:
    f.write(f"## {cfg['experiment']} - query -> gallery (epoch {tc['epochs']})\n\n")
    f.write("| mAP | " + " | ".join(f"Rank-{r}" for r in cfg["eval"]["ranks"]) + " |\n")
    f.write("|---" * (1 + len(cfg["eval"]["ranks"])) + "|\n")
    f.write(f"| {history[-1]['mAP']:.1%} | " + " | ".join(f"{cmc[r - 1]:.1%}" for r in cfg["eval"]["ranks"]) + " |\n\n")
    f.write("CMC curve (rank: accuracy)\n\n")
    for r in range(1, 21):
        f.write(f"{r:2d}: {cmc[r - 1]:.1%}\n")
