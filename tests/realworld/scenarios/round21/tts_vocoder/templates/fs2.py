

# ---------------------------------------------------------------- model
PAD = 0
SYMBOLS = "_abdefgiklmnoprstu "


def text_to_ids(text):
    return [SYMBOLS.index(c) for c in text]


class ConvBlock(nn.Module):
    def __init__(self, d, k, p):
        super().__init__()
        self.conv = nn.Conv1d(d, d, k, padding=k // 2)
        self.norm = nn.LayerNorm(d)
        self.drop = nn.Dropout(p)

    def forward(self, x):  # B,T,D
        y = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        return self.drop(self.norm(x + y))


class VariancePredictor(nn.Module):
    def __init__(self, d, p):
        super().__init__()
        self.net = nn.Sequential(ConvBlock(d, 3, p), ConvBlock(d, 3, p))
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        return self.out(self.net(x)).squeeze(-1)


class FastSpeech2(nn.Module):
    def __init__(self, n_symbols, n_mels, d, dropout):
        super().__init__()
        self.emb = nn.Embedding(n_symbols, d, padding_idx=PAD)
        self.encoder = nn.Sequential(*[ConvBlock(d, 5, dropout) for _ in range(3)])
        self.duration_predictor = VariancePredictor(d, dropout)
        self.pitch_predictor = VariancePredictor(d, dropout)
        self.energy_predictor = VariancePredictor(d, dropout)
        self.pitch_emb = nn.Linear(1, d)
        self.energy_emb = nn.Linear(1, d)
        self.decoder = nn.Sequential(*[ConvBlock(d, 5, dropout) for _ in range(3)])
        self.mel_out = nn.Linear(d, n_mels)

    def forward(self, tokens, durations, pitch, energy, n_frames):
        h = self.encoder(self.emb(tokens))
        log_dur = self.duration_predictor(h)
        pitch_hat = self.pitch_predictor(h)
        energy_hat = self.energy_predictor(h)
        h = h + self.pitch_emb(pitch.unsqueeze(-1)) + self.energy_emb(energy.unsqueeze(-1))
        # length regulator (ground-truth durations while training)
        frames = [torch.repeat_interleave(h[b], durations[b], dim=0) for b in range(h.size(0))]
        hr = torch.zeros(h.size(0), n_frames, h.size(2))
        for b, fr in enumerate(frames):
            hr[b, :fr.size(0)] = fr[:n_frames]
        mel = self.mel_out(self.decoder(hr))
        return mel, log_dur, pitch_hat, energy_hat


# ---------------------------------------------------------------- data
def build_items(cfg, ap):
    root = cfg["datasets"][0]["path"]
    meta = read_metadata(root)
    ali = read_alignments(root)
    items = []
    for uid, text in meta:
        wav, sr = load_wav(os.path.join(root, "wavs", uid + ".wav"))
        assert sr == cfg["audio"]["sample_rate"]
        durs, f0 = ali[uid]
        mel = ap(torch.from_numpy(wav))[:, :sum(durs)].T  # T, n_mels
        # token-level energy = mean log-mel energy over the token's frames
        idx = np.cumsum([0] + durs)
        energy = [float(mel[idx[i]:idx[i + 1]].mean()) for i in range(len(durs))]
        items.append(dict(uid=uid, tokens=torch.tensor(text_to_ids(text)), durs=torch.tensor(durs),
                          pitch=torch.tensor([(v - 180.0) / 50.0 if v > 0 else -3.6 for v in f0]),
                          energy=torch.tensor(energy), mel=mel))
    return items


def collate(batch):
    B = len(batch)
    N = max(len(it["tokens"]) for it in batch)
    T = max(it["mel"].size(0) for it in batch)
    M = batch[0]["mel"].size(1)
    tokens = torch.zeros(B, N, dtype=torch.long)
    durs = torch.zeros(B, N, dtype=torch.long)
    pitch, energy = torch.zeros(B, N), torch.zeros(B, N)
    tok_mask = torch.zeros(B, N)
    mel = torch.zeros(B, T, M)
    mel_mask = torch.zeros(B, T)
    for b, it in enumerate(batch):
        n, t = len(it["tokens"]), it["mel"].size(0)
        tokens[b, :n], durs[b, :n] = it["tokens"], it["durs"]
        pitch[b, :n], energy[b, :n] = it["pitch"], it["energy"]
        tok_mask[b, :n] = 1
        mel[b, :t] = it["mel"]
        mel_mask[b, :t] = 1
    return tokens, durs, pitch, energy, tok_mask, mel, mel_mask


def compute_losses(model, batch):
    tokens, durs, pitch, energy, tok_mask, mel, mel_mask = batch
    mel_hat, log_dur, pitch_hat, energy_hat = model(tokens, durs, pitch, energy, mel.size(1))
    mm = mel_mask.unsqueeze(-1)
    loss_mel = (torch.abs(mel_hat - mel) * mm).sum() / (mm.sum() * mel.size(2))
    loss_dur = (((log_dur - torch.log(durs.float() + 1)) ** 2) * tok_mask).sum() / tok_mask.sum()
    loss_pitch = (((pitch_hat - pitch) ** 2) * tok_mask).sum() / tok_mask.sum()
    loss_energy = (((energy_hat - energy) ** 2) * tok_mask).sum() / tok_mask.sum()
    loss = loss_mel + loss_dur + 0.1 * loss_pitch + 0.1 * loss_energy
    return dict(loss=loss, loss_mel=loss_mel, loss_duration=loss_dur, loss_pitch=loss_pitch,
                loss_energy=loss_energy)


def batches(items, bs, shuffle, rng):
    order = list(range(len(items)))
    if shuffle:
        rng.shuffle(order)
    for i in range(0, len(order), bs):
        yield collate([items[j] for j in order[i:i + bs]])


# ---------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    args = parser.parse_args()
    cfg = json.load(open(args.config))
    out = cfg.get("output_path", ".")
    torch.manual_seed(cfg["seed"])
    rng = random.Random(cfg["seed"])
    a = cfg["audio"]
    ap = MelSpectrogram(a["sample_rate"], a["fft_size"], a["hop_length"], a["num_mels"], a["mel_fmin"], a["mel_fmax"])
    items = build_items(cfg, ap)
    rng.shuffle(items)
    eval_items = items[:cfg["eval_split_size"]]
    train_items = items[cfg["eval_split_size"]:]
    if cfg.get("max_train_utts"):
        train_items = train_items[:cfg["max_train_utts"]]
    model = FastSpeech2(len(SYMBOLS), a["num_mels"], cfg["hidden_channels"], cfg["dropout"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], betas=tuple(cfg["betas"]), weight_decay=cfg["weight_decay"])
    n_params = sum(p.numel() for p in model.parameters())
    log = open(os.path.join(out, "trainer_0_log.txt"), "w")

    def p(s):
        log.write(s + "\n")
        log.flush()

    p(" > Training Environment:\n | > Num. of CPUs: 1\n | > Num. of Torch Threads: 1\n | > Mixed precision: %s" % cfg["mixed_precision"])
    p(" > Model has %d parameters" % n_params)
    p(" > Number of train samples: %d  | > eval samples: %d" % (len(train_items), len(eval_items)))
    step = 0
    steps_per_epoch = math.ceil(len(train_items) / cfg["batch_size"])
    for epoch in range(cfg["epochs"]):
        p("\n > EPOCH: %d/%d" % (epoch, cfg["epochs"]))
        model.train()
        for i, batch in enumerate(batches(train_items, cfg["batch_size"], True, rng)):
            t0 = time.time()
            losses = compute_losses(model, batch)
            opt.zero_grad()
            losses["loss"].backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["grad_clip"])
            opt.step()
            step += 1
            if step % cfg["print_step"] == 0:
                p("\n --> STEP: %d/%d -- GLOBAL_STEP: %d" % (i, steps_per_epoch, step))
                for k, v in losses.items():
                    p("     | > %s: %.5f" % (k, v.item()))
                p("     | > grad_norm: %.5f" % gn.item())
                p("     | > current_lr: %.5f" % opt.param_groups[0]["lr"])
                p("     | > step_time: %.4f" % (time.time() - t0))
        model.eval()
        tot = {}
        with torch.no_grad():
            for batch in batches(eval_items, cfg["batch_size"], False, rng):
                for k, v in compute_losses(model, batch).items():
                    tot[k] = tot.get(k, 0.0) + v.item() * batch[0].size(0)
        p("\n > EVALUATION\n\n  --> EVAL PERFORMANCE")
        for k, v in tot.items():
            p("     | > avg_%s: %.5f" % (k, v / len(eval_items)))
    torch.save(model.state_dict(), os.path.join(out, "best_model.pth"))


if __name__ == "__main__":
    main()
