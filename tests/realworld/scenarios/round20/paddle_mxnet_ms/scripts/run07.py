import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml

torch.set_num_threads(1)
cfg = yaml.safe_load(open("gru_intent.yaml"))
torch.manual_seed(cfg["seed"])
np.random.seed(cfg["seed"])

INTENTS = ["book_flight", "cancel_order", "check_weather", "play_music", "set_alarm", "unknown"]
VOCAB, SEQ_LEN = 500, 24


def load_corpus(n, seed):
    rng = np.random.RandomState(seed)
    probs = np.array([0.24, 0.22, 0.2, 0.17, 0.1695, 0.0005])
    keywords = np.random.RandomState(0).randint(2, VOCAB, (len(INTENTS), 8))
    samples = []
    for _ in range(n):
        intent = rng.choice(len(INTENTS), p=probs)
        toks = rng.randint(2, VOCAB, SEQ_LEN)
        pos = rng.choice(SEQ_LEN, 4, replace=False)
        toks[pos] = rng.choice(keywords[intent], 4)
        samples.append((toks, INTENTS[intent]))
    return samples


train_samples = load_corpus(3000, seed=1)
label_names = sorted({name for _, name in train_samples})
label2id = {name: i for i, name in enumerate(label_names)}
X = torch.tensor(np.stack([t for t, _ in train_samples]))
Y = torch.tensor([label2id[name] for _, name in train_samples])


class GRUClassifier(nn.Module):
    def __init__(self, vocab, emb, hidden, num_classes):
        super().__init__()
        self.embedding = nn.Embedding(vocab, emb)
        self.gru = nn.GRU(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x):
        _, h = self.gru(self.embedding(x))
        return self.fc(h[-1])


net = GRUClassifier(VOCAB, cfg["embed_size"], cfg["num_hiddens"], cfg["num_classes"])
opt = torch.optim.Adam(net.parameters(), lr=cfg["learning_rate"])
bs = cfg["batch_size"]
steps = len(X) // bs

for epoch in range(1, cfg["num_epochs"] + 1):
    t0 = time.time()
    perm = torch.randperm(len(X))
    for step in range(1, steps + 1):
        idx = perm[(step - 1) * bs:step * bs]
        loss = F.cross_entropy(net(X[idx]), Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % cfg["print_every"] == 0:
            print("epoch: {} step: {}, loss is {:.4f}".format(epoch, step, loss.item()), flush=True)
    dt = (time.time() - t0) * 1000
    print("epoch time: {:.3f} ms, per step time: {:.3f} ms".format(dt, dt / steps), flush=True)
