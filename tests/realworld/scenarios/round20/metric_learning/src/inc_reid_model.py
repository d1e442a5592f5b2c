class ConvBackbone(nn.Module):
    def __init__(self, chans=(32, 64, 128)):
        super().__init__()
        layers, c_in = [], 3
        for c in chans:
            layers += [nn.Conv2d(c_in, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                       nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                       nn.MaxPool2d(2)]
            c_in = c
        self.body = nn.Sequential(*layers)
        self.out_dim = c_in

    def forward(self, x):
        return self.body(x).mean((2, 3))


class ReIDNet(nn.Module):
    """backbone -> fc -> BNNeck -> classifier (training) / BN feature (test)"""

    def __init__(self, num_classes, emb=128):
        super().__init__()
        self.backbone = ConvBackbone()
        self.fc = nn.Linear(self.backbone.out_dim, emb)
        self.bnneck = nn.BatchNorm1d(emb)
        self.classifier = nn.Linear(emb, num_classes, bias=False)

    def forward(self, x):
        f = self.fc(self.backbone(x))
        return f, self.bnneck(f)


def cross_entropy_label_smooth(logits, target, eps=0.1):
    logp = F.log_softmax(logits, 1)
    q = (1 - eps) * F.one_hot(target, logits.shape[1]) + eps / logits.shape[1]
    return -(q * logp).sum(1).mean()


def batch_hard_triplet(feat, target, margin=0.3):
    d = torch.cdist(feat, feat)
    same = target[:, None] == target[None, :]
    d_ap = (d * same).max(1).values
    d_an = (d + same * 1e6).min(1).values
    return F.relu(d_ap - d_an + margin).mean()


def pk_batches(pids, P, K, n_batches, rng):
    by_id = {p: np.nonzero(pids == p)[0] for p in np.unique(pids)}
    ids = list(by_id)
    for _ in range(n_batches):
        chosen = rng.choice(ids, P, replace=False)
        yield np.concatenate([rng.choice(by_id[p], K, replace=len(by_id[p]) < K) for p in chosen])
