

SYMBOLS = "_abdefgiklmnoprstu "


def posfeat(x, n=8):  # x: (..., L) relative positions in [0, 1]
    k = torch.arange(1, n + 1, dtype=torch.float32)
    a = math.pi * x.unsqueeze(-1) * k
    return torch.cat([torch.sin(a), torch.cos(a)], -1)


class ConvBlock(nn.Module):
    def __init__(self, d, k, p):
        super().__init__()
        self.conv = nn.Conv1d(d, d, k, padding=k // 2)
        self.norm = nn.LayerNorm(d)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        return self.drop(self.norm(x + F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)))


class AttentionTTS(nn.Module):
    def __init__(self, n_symbols, n_mels, d, p=0.1):
        super().__init__()
        self.emb = nn.Embedding(n_symbols, d, padding_idx=0)
        self.encoder = nn.Sequential(ConvBlock(d, 5, p), ConvBlock(d, 5, p))
        self.key_pos = nn.Linear(16, d)
        self.query = nn.Sequential(nn.Linear(16, d), nn.ReLU(), nn.Linear(d, d))
        self.decoder = nn.Sequential(ConvBlock(d, 5, p), ConvBlock(d, 5, p))
        self.out = nn.Linear(d, n_mels)

    def forward(self, tokens, tok_len, mel_len, T):
        B, N = tokens.shape
        enc = self.encoder(self.emb(tokens))
        ipos = torch.arange(N).float().unsqueeze(0) / (tok_len.float().unsqueeze(1) - 1).clamp(min=1)
        tpos = torch.arange(T).float().unsqueeze(0) / (mel_len.float().unsqueeze(1) - 1).clamp(min=1)
        keys = enc + self.key_pos(posfeat(ipos))
        q = self.query(posfeat(tpos))
        scores = torch.bmm(q, keys.transpose(1, 2)) / math.sqrt(enc.size(2))
        tok_mask = torch.arange(N).unsqueeze(0) < tok_len.unsqueeze(1)
        scores = scores.masked_fill(~tok_mask.unsqueeze(1), -1e4)
        attn = torch.softmax(scores, -1)
        mel = self.out(self.decoder(torch.bmm(attn, enc)))
        return mel, attn


def diagonal_score(attn, tok_len, mel_len, band=0.15):
    scores = []
    for b in range(attn.size(0)):
        n, t = int(tok_len[b]), int(mel_len[b])
        a = attn[b, :t, :n]
        ti = torch.arange(t).float().unsqueeze(1) / max(t - 1, 1)
        ii = torch.arange(n).float().unsqueeze(0) / max(n - 1, 1)
        scores.append((a * ((ti - ii).abs() < band)).sum(1).mean().item())
    return float(np.mean(scores))


def collate(batch):
    B = len(batch)
    N = max(len(t) for t, _ in batch)
    T = max(m.size(0) for _, m in batch)
    tokens = torch.zeros(B, N, dtype=torch.long)
    mel = torch.zeros(B, T, batch[0][1].size(1))
    tok_len = torch.tensor([len(t) for t, _ in batch])
    mel_len = torch.tensor([m.size(0) for _, m in batch])
    for b, (t, m) in enumerate(batch):
        tokens[b, :len(t)] = t
        mel[b, :m.size(0)] = m
    return tokens, tok_len, mel, mel_len


def step_losses(model, batch):
    tokens, tok_len, mel, mel_len = batch
    mel_hat, attn = model(tokens, tok_len, mel_len, mel.size(1))
    mask = (torch.arange(mel.size(1)).unsqueeze(0) < mel_len.unsqueeze(1)).float().unsqueeze(-1)
    l1 = (torch.abs(mel_hat - mel) * mask).sum() / (mask.sum() * mel.size(2))
    return l1, attn


def load_dataset(root, ap):
    texts = [text for _, text in read_metadata(root)]
    wav_paths = sorted(glob.glob(os.path.join(root, "wavs", "*.wav")))
    data = []
    for text, path in zip(texts, wav_paths):
        wav, _ = load_wav(path)
        mel = ap(torch.from_numpy(wav))[:, :-1].T
        data.append((torch.tensor([SYMBOLS.index(c) for c in text]), mel))
    return data


def main():
    conf = json.load(open("conf/train.json"))
    torch.manual_seed(conf["seed"])
    rng = random.Random(conf["seed"])
    fe = conf["frontend_conf"]
    ap = MelSpectrogram(fe["fs"], fe["n_fft"], fe["hop_length"], fe["n_mels"], fe["fmin"], fe["fmax"])
    data = load_dataset(conf["train_data_path"], ap)
    valid, train = data[:conf["num_valid"]], data[conf["num_valid"]:]
    if conf.get("max_train_utts"):
        train = train[:conf["max_train_utts"]]
    model = AttentionTTS(len(SYMBOLS), fe["n_mels"], conf["adim"], conf["dropout_rate"])
    optim = torch.optim.Adam(model.parameters(), lr=conf["optim_conf"]["lr"])
    os.makedirs("exp/tts_train", exist_ok=True)
    log = open("exp/tts_train/train.log", "w")

    def info(msg):
        log.write("%s (trainer:%d) INFO: %s\n" % (time.strftime("[tts] %Y-%m-%d %H:%M:%S"), 0, msg))
        log.flush()

    info("Model summary: AttentionTTS, number of parameters: %d" % sum(p.numel() for p in model.parameters()))
    info("train: %d utts, valid: %d utts" % (len(train), len(valid)))
    bs = conf["batch_size"]
    it = 0
    for epoch in range(1, conf["max_epoch"] + 1):
        t0 = time.time()
        rng.shuffle(train)
        model.train()
        tr_l1, tr_diag, gns, nb = 0.0, 0.0, [], 0
        for i in range(0, len(train), bs):
            batch = collate(train[i:i + bs])
            l1, attn = step_losses(model, batch)
            optim.zero_grad()
            l1.backward()
            gns.append(torch.nn.utils.clip_grad_norm_(model.parameters(), conf["grad_clip"]).item())
            optim.step()
            it += 1
            tr_l1 += l1.item()
            tr_diag += diagonal_score(attn.detach(), batch[1], batch[3])
            nb += 1
            if it % conf["log_interval"] == 0:
                info("%depoch:train:%d-%dbatch: iter_time=%.3f, l1_loss=%.4f, loss=%.4f, grad_norm=%.3f, optim0_lr0=%.2e" % (
                    epoch, i // bs - conf["log_interval"] + 2, i // bs + 1, (time.time() - t0) / (i // bs + 1),
                    l1.item(), l1.item(), gns[-1], optim.param_groups[0]["lr"]))
        model.eval()
        with torch.no_grad():
            batch = collate(valid)
            vl1, vattn = step_losses(model, batch)
            vdiag = diagonal_score(vattn, batch[1], batch[3])
            vmax = float(vattn.max(-1).values.mean())
        info("%depoch results: [train] l1_loss=%.4f, loss=%.4f, attn_diagonal_score=%.3f, grad_norm=%.3f, time=%.1f s, "
             "[valid] l1_loss=%.4f, loss=%.4f, attn_diagonal_score=%.3f, attn_max_mean=%.3f" % (
                 epoch, tr_l1 / nb, tr_l1 / nb, tr_diag / nb, float(np.mean(gns)), time.time() - t0,
                 vl1.item(), vl1.item(), vdiag, vmax))
        if epoch == conf["max_epoch"]:
            np.save("exp/tts_train/att_ws_valid0.npy", vattn[0, :int(batch[3][0]), :int(batch[1][0])].numpy())
    torch.save(model.state_dict(), "exp/tts_train/%depoch.pth" % conf["max_epoch"])


if __name__ == "__main__":
    main()
