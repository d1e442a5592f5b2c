import logging
import time

import numpy as np
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)

cfg = yaml.safe_load(open("config.yaml"))
logging.basicConfig(filename="train.log", filemode="w", level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger(__name__)
torch.manual_seed(cfg["seed"])

def make_font(charset, seed):
    rs = np.random.RandomState(seed)
    font = {}
    for ch in charset:
        g = (rs.rand(6, 3) < 0.45).astype(np.float32)
        g = np.kron(g, np.ones((2, 2), np.float32))
        font[ch] = np.pad(g, ((0, 0), (1, 1)))
    return font


def render_word(text, font, rs, H=16, W=64, noise=0.2):
    bg = rs.uniform(0.7, 1.0)
    img = np.full((H, W), bg, np.float32)
    img += np.linspace(0, rs.uniform(-0.2, 0.2), W, dtype=np.float32)[None, :]
    x = rs.randint(0, 3)
    ink = rs.uniform(0.35, 0.9)
    for ch in text:
        g = font[ch] * (rs.rand(*font[ch].shape) > 0.15)
        gh, gw = g.shape
        if x + gw > W:
            break
        y = rs.randint(0, H - gh + 1)
        img[y:y + gh, x:x + gw] -= g * ink
        x += gw + rs.randint(0, 2)
    img += rs.randn(H, W).astype(np.float32) * noise
    return np.clip(img, 0, 1)


def synth_words(n, seed, charset, font, minlen=3, maxlen=6, W=64, noise=0.2):
    rs = np.random.RandomState(seed)
    texts = ["".join(rs.choice(list(charset), rs.randint(minlen, maxlen + 1))) for _ in range(n)]
    imgs = np.stack([render_word(t, font, rs, W=W, noise=noise) for t in texts])
    return imgs, texts

class CRNN(nn.Module):
    def __init__(self, num_class, hidden=64, dropout=0.0):
        super().__init__()
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 16, 3, 1, 1), nn.ReLU(True), nn.MaxPool2d(2, 2),
            nn.Conv2d(16, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(True), nn.MaxPool2d((2, 1)),
            nn.Conv2d(32, 48, 3, 1, 1), nn.BatchNorm2d(48), nn.ReLU(True), nn.MaxPool2d((4, 1)))
        self.rnn = nn.GRU(48, hidden, bidirectional=True, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(2 * hidden, num_class)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)
        o, _ = self.rnn(self.drop(f))
        return self.fc(self.drop(o))

def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]


class LabelConverter:
    def __init__(self, alphabet):
        self.alphabet = alphabet
        self.char2idx = {ch: i for i, ch in enumerate(alphabet)}
        self.idx2char = {i: ch for ch, i in self.char2idx.items()}
        self.num_classes = len(alphabet) + 1

    def encode(self, texts):
        targets = torch.tensor([self.char2idx[ch] for t in texts for ch in t], dtype=torch.long)
        lengths = torch.tensor([len(t) for t in texts], dtype=torch.long)
        return targets, lengths

    def decode(self, logits):
        prob, idx = logits.softmax(-1).max(-1)
        out = []
        for seq, p in zip(idx.tolist(), prob):
            s, prev = [], -1
            for k in seq:
                if k != prev and k != cfg["blank"]:
                    s.append(self.idx2char.get(k, ""))
                prev = k
            out.append(("".join(s), p.prod().item()))
        return out


converter = LabelConverter(cfg["alphabet"])
font = make_font(cfg["alphabet"], cfg["seed"])
train_imgs, train_txt = synth_words(cfg["n_train"], 1, cfg["alphabet"], font, cfg["min_len"], cfg["max_len"], W=cfg["img_w"])
val_imgs, val_txt = synth_words(cfg["n_val"], 2, cfg["alphabet"], font, cfg["min_len"], cfg["max_len"], W=cfg["img_w"])
train_imgs = torch.from_numpy(train_imgs).unsqueeze(1) * 2 - 1
val_imgs = torch.from_numpy(val_imgs).unsqueeze(1) * 2 - 1

model = CRNN(converter.num_classes, cfg["hidden"])
criterion = nn.CTCLoss(blank=cfg["blank"], zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
log.info("classes=%d train=%d val=%d", converter.num_classes, len(train_txt), len(val_txt))

step = 0
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    perm = torch.randperm(len(train_imgs))
    running = []
    for b in range(0, len(perm), cfg["batch_size"]):
        idx = perm[b:b + cfg["batch_size"]]
        targets, target_lengths = converter.encode([train_txt[i] for i in idx])
        log_probs = model(train_imgs[idx]).log_softmax(-1).permute(1, 0, 2)
        input_lengths = torch.full((len(idx),), log_probs.size(0), dtype=torch.long)
        loss = criterion(log_probs, targets, input_lengths, target_lengths)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        running.append(loss.item())
        if step % cfg["log_every"] == 0:
            log.info("epoch %d/%d iter %d loss %.4f lr %.1e", epoch, cfg["epochs"], step, np.mean(running[-cfg["log_every"]:]),
                     optimizer.param_groups[0]["lr"])

    model.eval()
    with torch.no_grad():
        preds = converter.decode(model(val_imgs))
    acc = np.mean([p == g for (p, _), g in zip(preds, val_txt)])
    cer = sum(edit_distance(p, g) for (p, _), g in zip(preds, val_txt)) / sum(len(g) for g in val_txt)
    log.info("epoch %d done in %.1fs  train_loss %.4f  val_acc %.4f  val_cer %.4f", epoch, time.time() - t0,
             np.mean(running), acc, cer)
    if epoch % 3 == 0 or epoch == cfg["epochs"]:
        lines = ["%-12s | %-12s | %s" % ("Ground Truth", "Prediction", "Confidence")]
        for (p, c), g in list(zip(preds, val_txt))[:8]:
            lines.append("%-12s | %-12s | %.4f" % (g, p, c))
        log.info("samples:\n" + "\n".join(lines))
    torch.save(model.state_dict(), "last.pth")
