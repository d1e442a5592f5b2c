

# ---------------------------------------------------------------- models
LRELU = 0.1


class ResBlock(nn.Module):
    def __init__(self, ch, k=3, dilations=(1, 3)):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv1d(ch, ch, k, dilation=d, padding=d * (k - 1) // 2) for d in dilations])

    def forward(self, x):
        for c in self.convs:
            x = x + c(F.leaky_relu(x, LRELU))
        return x


class Generator(nn.Module):
    def __init__(self, n_mels, ch, upsample_rates):
        super().__init__()
        self.pre = nn.Conv1d(n_mels, ch, 7, padding=3)
        self.ups, self.res = nn.ModuleList(), nn.ModuleList()
        for r in upsample_rates:
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, 2 * r, stride=r, padding=r // 2 + r % 2, output_padding=r % 2))
            ch //= 2
            self.res.append(ResBlock(ch))
        self.post = nn.Conv1d(ch, 1, 7, padding=3)

    def forward(self, mel):
        x = self.pre(mel)
        for up, rb in zip(self.ups, self.res):
            x = rb(up(F.leaky_relu(x, LRELU)))
        return torch.tanh(self.post(F.leaky_relu(x)))


class ScaleDiscriminator(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.convs = nn.ModuleList([
            nn.Conv1d(1, ch, 15, padding=7),
            nn.Conv1d(ch, ch * 2, 15, stride=4, padding=7),
            nn.Conv1d(ch * 2, ch * 4, 15, stride=4, groups=2, padding=7),
            nn.Conv1d(ch * 4, ch * 4, 5, padding=2),
        ])
        self.post = nn.Conv1d(ch * 4, 1, 3, padding=1)

    def forward(self, x):
        fmap = []
        for c in self.convs:
            x = F.leaky_relu(c(x), LRELU)
            fmap.append(x)
        return self.post(x).flatten(1), fmap


class MultiScaleDiscriminator(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.discs = nn.ModuleList([ScaleDiscriminator(ch), ScaleDiscriminator(ch)])
        self.pool = nn.AvgPool1d(4, 2, padding=2)

    def forward(self, y):
        outs, fmaps = [], []
        for i, d in enumerate(self.discs):
            if i > 0:
                y = self.pool(y)
            o, f = d(y)
            outs.append(o)
            fmaps.append(f)
        return outs, fmaps


def discriminator_loss(real_outs, fake_outs):
    return sum(torch.mean((1 - dr) ** 2) + torch.mean(dg ** 2) for dr, dg in zip(real_outs, fake_outs))


def generator_adv_loss(fake_outs):
    return sum(torch.mean((1 - dg) ** 2) for dg in fake_outs)


def feature_loss(fmap_r, fmap_g):
    loss = 0
    for dr, dg in zip(fmap_r, fmap_g):
        for r, g in zip(dr, dg):
            loss = loss + torch.mean(torch.abs(r - g))
    return loss * 2


# ---------------------------------------------------------------- data
def load_split(cfg):
    root = cfg["data_path"]
    ids = sorted(uid for uid, _ in read_metadata(root))
    wavs = [load_wav(os.path.join(root, "wavs", uid + ".wav"))[0] for uid in ids]
    n_val = cfg["num_val_files"]
    return wavs[n_val:], wavs[:n_val]


def sample_segments(wavs, n, seg, hop, rng):
    out = []
    for _ in range(n):
        w = wavs[rng.randint(0, len(wavs) - 1)]
        if len(w) <= seg:
            w = np.pad(w, (0, seg - len(w) + 1))
        s = rng.randint(0, len(w) - seg - 1)
        s -= s % hop
        out.append(torch.from_numpy(w[s:s + seg].copy()))
    return torch.stack(out).unsqueeze(1)



def validate(generator, val_wavs, mel_fn):
    generator.eval()
    errs, ratios = [], []
    with torch.no_grad():
        for w in val_wavs:
            y = torch.from_numpy(w[:len(w) // 80 * 80])
            mel = mel_fn(y)[:, :-1]
            y_hat = generator(mel.unsqueeze(0)).squeeze()
            errs.append(F.l1_loss(mel_fn(y_hat)[:, :-1], mel).item())
            ratios.append((y_hat.pow(2).mean().sqrt() / y.pow(2).mean().sqrt()).item())
    generator.train()
    return float(np.mean(errs)), float(np.mean(ratios))


# ---------------------------------------------------------------- main
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="config.json")
    parser.add_argument("--checkpoint_path", default="cp_hifigan")
    args = parser.parse_args()
    h = json.load(open(args.config))
    torch.manual_seed(h["seed"])
    rng = random.Random(h["seed"])
    os.makedirs(args.checkpoint_path, exist_ok=True)
    mel_fn = MelSpectrogram(h["sampling_rate"], h["n_fft"], h["hop_size"], h["num_mels"], h["fmin"], h["fmax"])
    train_wavs, val_wavs = load_split(h)

    generator = Generator(h["num_mels"], h["upsample_initial_channel"], h["upsample_rates"])
    mpd = MultiScaleDiscriminator(h["disc_channels"])
    optim_g = torch.optim.AdamW(generator.parameters(), h["learning_rate"], betas=[h["adam_b1"], h["adam_b2"]])
    optim_d = torch.optim.AdamW(mpd.parameters(), h["learning_rate"], betas=[h["adam_b1"], h["adam_b2"]])
    scheduler_g = torch.optim.lr_scheduler.ExponentialLR(optim_g, gamma=h["lr_decay"])
    scheduler_d = torch.optim.lr_scheduler.ExponentialLR(optim_d, gamma=h["lr_decay"])
    print("Generator params: %d" % sum(p.numel() for p in generator.parameters()))
    print("Discriminator params: %d" % sum(p.numel() for p in mpd.parameters()))

    steps = 0
    seg, hop = h["segment_size"], h["hop_size"]
    while steps < h["training_steps"]:
        for _ in range(h["steps_per_epoch"]):
            start_b = time.time()
            y = sample_segments(train_wavs, h["batch_size"], seg + hop, hop, rng)
            mel = mel_fn(y.squeeze(1))[:, :, :seg // hop]
            y = y[:, :, :seg]
            y_g_hat = generator(mel)

            optim_d.zero_grad()
            real, _ = mpd(y)
            fake, _ = mpd(y_g_hat.detach())
            loss_disc_all = discriminator_loss(real, fake)
            loss_disc_all.backward()
            optim_d.step()

            optim_g.zero_grad()
            loss_mel = F.l1_loss(mel_fn(y_g_hat.squeeze(1))[:, :, :seg // hop], mel) * h["lambda_mel"]
            real, fmap_r = mpd(y)
            fake, fmap_g = mpd(y_g_hat)
            loss_fm = feature_loss(fmap_r, fmap_g)
            loss_gen = generator_adv_loss(fake)
            loss_gen_all = loss_gen + loss_fm + loss_mel
            loss_gen_all.backward()
            gn = torch.nn.utils.clip_grad_norm_(generator.parameters(), 1e9)
            optim_g.step()
            steps += 1

            if steps % h["stdout_interval"] == 0:
                print("Steps : {:d}, Gen Loss Total : {:4.3f}, Mel-Spec. Error : {:4.3f}, Disc Loss : {:4.3f}, "
                      "Adv : {:4.3f}, FM : {:4.3f}, grad_norm_g : {:4.3f}, lr : {:.6f}, s/b : {:4.3f}".format(
                          steps, loss_gen_all.item(), loss_mel.item() / h["lambda_mel"], loss_disc_all.item(),
                          loss_gen.item(), loss_fm.item(), gn.item(), optim_g.param_groups[0]["lr"],
                          time.time() - start_b), flush=True)
            if steps % h["validation_interval"] == 0:
                err, ratio = validate(generator, val_wavs, mel_fn)
                print("Validation @ {:d}: Mel-Spec. Error : {:4.3f}, rms(gen)/rms(ref) : {:4.3f}".format(steps, err, ratio), flush=True)
            if steps >= h["training_steps"]:
                break
        scheduler_g.step()
        scheduler_d.step()
    torch.save({"generator": generator.state_dict()}, os.path.join(args.checkpoint_path, "g_%08d" % steps))


if __name__ == "__main__":
    main()
