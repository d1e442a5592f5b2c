import logging
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
SEED = 4
torch.manual_seed(SEED)

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(message)s", datefmt="%Y-%m-%d %H:%M:%S",
                    handlers=[logging.FileHandler("train.log", mode="w")])
log = logging.getLogger("arcface")

NUM_CLASSES = 10
EMB_DIM = 3          # 3-d so we can look at the features on the sphere
S, M = 64.0, 0.5
EPOCHS = 30
BATCH = 128
LR = 0.05

#<<clusters>>

#<<retrieval>>


class ArcMarginProduct(nn.Module):
    def __init__(self, in_features, out_features, s=64.0, m=0.5):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features) * 0.01)
        self.s, self.m = s, m

    def forward(self, x, label):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        theta = torch.acos(cosine)
        target = torch.cos(theta + self.m)
        one_hot = F.one_hot(label, cosine.size(1)).bool()
        logits = torch.where(one_hot, target, cosine) * self.s
        return logits, cosine


x, y = make_identities(NUM_CLASSES, 400, seed=71, within=0.35)
idx = np.random.default_rng(0).permutation(len(y))
n_test = 1000
test_idx, train_idx = idx[:n_test], idx[n_test:]
X_tr, Y_tr = torch.from_numpy(x[train_idx]), torch.from_numpy(y[train_idx])
X_te, Y_te = torch.from_numpy(x[test_idx]), torch.from_numpy(y[test_idx])

backbone = nn.Sequential(
    nn.Linear(X_tr.shape[1], 256), nn.BatchNorm1d(256), nn.ReLU(),
    nn.Linear(256, 256), nn.BatchNorm1d(256), nn.ReLU(),
    nn.Linear(256, EMB_DIM), nn.BatchNorm1d(EMB_DIM),
)
metric_fc = ArcMarginProduct(EMB_DIM, NUM_CLASSES, s=S, m=M)
params = list(backbone.parameters()) + list(metric_fc.parameters())
optimizer = torch.optim.SGD(params, lr=LR, momentum=0.9, weight_decay=5e-4)

log.info("train=%d test=%d classes=%d emb_dim=%d s=%.1f m=%.2f lr=%g", len(Y_tr), len(Y_te), NUM_CLASSES,
         EMB_DIM, S, M, LR)
results = open("results.csv", "w")
results.write("epoch,train_loss,train_acc,test_acc,test_recall@1,test_recall@4,mean_target_cos,max_cos\n")
it = 0
warned = False
for epoch in range(1, EPOCHS + 1):
    backbone.train()
    perm = torch.randperm(len(Y_tr))
    losses, accs, tcos, mcos = [], [], [], []
    for i in range(0, len(perm) - BATCH + 1, BATCH):
        b = perm[i:i + BATCH]
        feat = backbone(X_tr[b])
        logits, cosine = metric_fc(feat, Y_tr[b])
        loss = F.cross_entropy(logits, Y_tr[b])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        it += 1
        losses.append(loss.item())
        if not math.isfinite(loss.item()) and not warned:
            log.warning("non-finite loss at epoch %d iter %d: %s", epoch, it, loss.item())
            warned = True
        accs.append((cosine.argmax(1) == Y_tr[b]).float().mean().item())
        tcos.append(cosine.gather(1, Y_tr[b][:, None]).mean().item())
        mcos.append(cosine.max().item())
        if it % 10 == 0:
            log.info("epoch %d iter %d loss %.4f acc %.3f target_cos %.4f max_cos %.7f", epoch, it, loss.item(),
                     accs[-1], tcos[-1], mcos[-1])
    backbone.eval()
    with torch.no_grad():
        emb = backbone(X_te)
        cos_te = F.linear(F.normalize(emb), F.normalize(metric_fc.weight))
        test_acc = (cos_te.argmax(1) == Y_te).float().mean().item()
    r = recall_at_k(emb, Y_te, ks=(1, 4))
    log.info("==> epoch %d train_loss %.4f train_acc %.4f test_acc %.4f R@1 %.4f R@4 %.4f", epoch,
             np.mean(losses), np.mean(accs), test_acc, r[1], r[4])
    results.write(f"{epoch},{np.mean(losses):.5f},{np.mean(accs):.5f},{test_acc:.5f},{r[1]:.5f},{r[4]:.5f},"
                  f"{np.mean(tcos):.6f},{np.max(mcos):.7f}\n")
    results.flush()
