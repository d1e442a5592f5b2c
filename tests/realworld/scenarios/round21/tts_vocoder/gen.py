"""Builds the tiny TTS/vocoder corpora, trains every run (really, on CPU) and writes runs/<name>/."""
import os, sys, json, shutil, subprocess, wave
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TPL = os.path.join(HERE, "templates")
DATA = os.path.join(HERE, "data")
RUNS = os.path.join(HERE, "runs")

SR, HOP = 8000, 80
VOCAB = "abdefgiklmnoprstu "


def token_table(seed=0):
    rng = np.random.RandomState(seed)
    tab = {}
    for ch in VOCAB:
        if ch == " ":
            tab[ch] = dict(f0=0.0, f1=0, f2=0, amp=0.02, dur=2)
        else:
            tab[ch] = dict(f0=float(rng.uniform(110, 260)), f1=float(rng.uniform(300, 900)),
                           f2=float(rng.uniform(1100, 3200)), amp=float(rng.uniform(0.15, 0.5)),
                           dur=int(rng.randint(2, 7)))
    return tab


def synth_utt(rng, tab, n_tok):
    letters = [c for c in VOCAB if c != " "]
    text = []
    for i in range(n_tok):
        if i > 0 and i < n_tok - 1 and rng.rand() < 0.15 and text[-1] != " ":
            text.append(" ")
        else:
            text.append(letters[rng.randint(len(letters))])
    # long prompts in this corpus were read slower, lower and softer than the short ones
    rate = rng.uniform(0.8, 1.1) + 0.03 * (n_tok - 5)
    shift = rng.uniform(0.95, 1.05) * (1.25 - 0.04 * (n_tok - 5))
    gain = 1.6 - 0.1 * (n_tok - 5)
    durs, f0s, segs = [], [], []
    for ch in text:
        p = tab[ch]
        d = max(1, int(round(p["dur"] * rate + rng.randint(-1, 2))))
        n = d * HOP
        t = np.arange(n) / SR
        if ch == " ":
            seg = rng.randn(n) * 0.004
            f0 = 0.0
        else:
            f0 = p["f0"] * shift
            seg = np.zeros(n)
            for k in range(1, int(3800 // f0) + 1):
                fk = k * f0
                a = np.exp(-((fk - p["f1"]) / 250.0) ** 2) + 0.6 * np.exp(-((fk - p["f2"]) / 400.0) ** 2) + 0.05
                seg += a * np.sin(2 * np.pi * fk * t + rng.uniform(0, 2 * np.pi))
            seg = seg / (np.abs(seg).max() + 1e-9) * p["amp"] * gain
            fade = np.minimum(1.0, np.minimum(np.arange(n), np.arange(n)[::-1]) / 20.0)
            seg = seg * fade + rng.randn(n) * 0.003
        durs.append(d)
        f0s.append(f0)
        segs.append(seg)
    return "".join(text), durs, f0s, np.concatenate(segs)


def write_wav(path, x):
    x = np.clip(x, -1, 1)
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes((x * 32767).astype(np.int16).tobytes())


def make_corpus(name, n_utts, seed, silent_ids=()):
    root = os.path.join(DATA, name)
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "wavs"))
    rng = np.random.RandomState(seed)
    tab = token_table(0)
    prefix = name.replace("_", "")
    rows, ali = [], []
    for i in range(n_utts):
        uid = "%s_%04d" % (prefix, i + 1)
        text, durs, f0s, wav = synth_utt(rng, tab, rng.randint(5, 15))
        if uid in silent_ids:
            wav = np.zeros_like(wav)  # a failed take: the recorder wrote digital silence
        write_wav(os.path.join(root, "wavs", uid + ".wav"), wav)
        rows.append((uid, text))
        ali.append("%s|%s|%s" % (uid, " ".join(map(str, durs)), " ".join("%.1f" % f for f in f0s)))
    # metadata is in recording-session order, not id order
    order = rng.permutation(n_utts)
    with open(os.path.join(root, "metadata.csv"), "w") as f:
        for j in order:
            f.write("%s|%s\n" % rows[j])
    with open(os.path.join(root, "alignments.txt"), "w") as f:
        f.write("\n".join(ali) + "\n")


# ------------------------------------------------------------------ script assembly
def tpl(name):
    return open(os.path.join(TPL, name)).read()


def patch(s, pairs):
    for a, b in pairs:
        assert a in s, a[:80]
        s = s.replace(a, b)
    return s


COMMON = tpl("common.py")
FS2 = COMMON + tpl("fs2.py")
VOC = COMMON + tpl("voc.py")
ATTN = COMMON + tpl("attn.py")


def fs2_mpo():
    import importlib.util
    tmp_in, tmp_out = os.path.join(HERE, "_tmp_in.py"), os.path.join(HERE, "_tmp_out.py")
    open(tmp_in, "w").write(FS2)
    subprocess.check_call([sys.executable, os.path.join(TPL, "mk_mpo.py"), tmp_in, tmp_out])
    s = open(tmp_out).read()
    os.remove(tmp_in)
    os.remove(tmp_out)
    return s


def fs2_nan():
    return patch(FS2, [("return torch.log(torch.clamp(self.magnitude(wav), min=1e-5))", "return torch.log(self.magnitude(wav))")])


def fs2_sorted():
    return patch(FS2, [
        ("""    if cfg.get("max_train_utts"):""", """    train_items = sorted(train_items, key=lambda it: it["mel"].size(0))
    if cfg.get("max_train_utts"):"""),
        ("""enumerate(batches(train_items, cfg["batch_size"], True, rng))""", """enumerate(batches(train_items, cfg["batch_size"], False, rng))"""),
    ])


def attn_paired():
    return patch(ATTN, [("""    texts = [text for _, text in read_metadata(root)]
    wav_paths = sorted(glob.glob(os.path.join(root, "wavs", "*.wav")))
    data = []
    for text, path in zip(texts, wav_paths):""",
                         """    data = []
    for uid, text in read_metadata(root):
        path = os.path.join(root, "wavs", uid + ".wav")""")])


def voc_wave_l1():
    return patch(VOC, [
        ("""            loss_mel = F.l1_loss(mel_fn(y_g_hat.squeeze(1))[:, :, :seg // hop], mel) * h["lambda_mel"]
            real, fmap_r = mpd(y)
            fake, fmap_g = mpd(y_g_hat)
            loss_fm = feature_loss(fmap_r, fmap_g)
            loss_gen = generator_adv_loss(fake)
            loss_gen_all = loss_gen + loss_fm + loss_mel""",
         """            loss_mel = F.l1_loss(y_g_hat, y) * h["lambda_mel"]
            real, fmap_r = mpd(y)
            fake, fmap_g = mpd(y_g_hat)
            loss_fm = feature_loss(fmap_r, fmap_g)
            loss_gen = generator_adv_loss(fake)
            if steps >= h["steps_to_start_discriminator"]:
                loss_gen_all = loss_gen + loss_fm + loss_mel
            else:
                loss_gen_all = loss_mel"""),
        ("Mel-Spec. Error : {:4.3f}, Disc Loss", "L1 Error : {:4.3f}, Disc Loss"),
    ])


def voc_resume():
    return patch(VOC, [
        ("""    parser.add_argument("--checkpoint_path", default="cp_hifigan")""",
         """    parser.add_argument("--checkpoint_path", default="cp_hifigan")
    parser.add_argument("--resume", action="store_true")"""),
        ("""    steps = 0
    seg, hop""", """    steps = 0
    if args.resume:
        cps = sorted(f for f in os.listdir(args.checkpoint_path) if f.startswith("do_"))
        state = torch.load(os.path.join(args.checkpoint_path, cps[-1]))
        generator.load_state_dict(state["generator"])
        mpd.load_state_dict(state["mpd"])
        optim_g.load_state_dict(state["optim_g"])
        scheduler_g.load_state_dict(state["scheduler_g"])
        steps = state["steps"]
        print("Loading '%s'  -> resuming from step %d" % (cps[-1], steps))
    seg, hop"""),
        ("""lr : {:.6f}, s/b""", """lr_g : {:.6f}, lr_d : {:.6f}, s/b"""),
        ("""optim_g.param_groups[0]["lr"],
                          time.time()""", """optim_g.param_groups[0]["lr"], optim_d.param_groups[0]["lr"],
                          time.time()"""),
        ("""            if steps >= h["training_steps"]:
                break""", """            if steps % h["checkpoint_interval"] == 0:
                torch.save({"generator": generator.state_dict(), "mpd": mpd.state_dict(), "optim_g": optim_g.state_dict(),
                            "optim_d": optim_d.state_dict(), "scheduler_g": scheduler_g.state_dict(),
                            "scheduler_d": scheduler_d.state_dict(), "steps": steps},
                           os.path.join(args.checkpoint_path, "do_%08d" % steps))
            if steps >= h["training_steps"]:
                break"""),
    ])


INFER = COMMON + tpl("voc.py").split("# ---------------------------------------------------------------- data")[0] + '''
# ---------------------------------------------------------------- copy-synthesis / inference

MEL = dict(sampling_rate=8000, n_fft=256, hop_size=80, num_mels=24, fmin=0, fmax=2000)


def main():
    h = json.load(open("config.json"))
    ckpt = sorted(os.listdir("cp_hifigan"))[-1]
    generator = Generator(h["num_mels"], h["upsample_initial_channel"], h["upsample_rates"])
    generator.load_state_dict(torch.load(os.path.join("cp_hifigan", ckpt))["generator"])
    generator.eval()
    mel_fn = MelSpectrogram(MEL["sampling_rate"], MEL["n_fft"], MEL["hop_size"], MEL["num_mels"], MEL["fmin"], MEL["fmax"])
    ref_fn = MelSpectrogram(h["sampling_rate"], h["n_fft"], h["hop_size"], h["num_mels"], h["fmin"], h["fmax"])
    root = h["data_path"]
    ids = sorted(uid for uid, _ in read_metadata(root))[:h["num_val_files"]]
    print("checkpoint: %s" % ckpt)
    errs = []
    for uid in ids:
        wav, _ = load_wav(os.path.join(root, "wavs", uid + ".wav"))
        y = torch.from_numpy(wav[:len(wav) // 80 * 80])
        with torch.no_grad():
            y_hat = generator(mel_fn(y)[:, :-1].unsqueeze(0)).squeeze()
        err = F.l1_loss(ref_fn(y_hat)[:, :-1], ref_fn(y)[:, :-1]).item()
        errs.append(err)
        print("%s  dur %.2fs  mel_L1 %.3f  rms_gen %.4f  rms_ref %.4f" % (
            uid, len(y) / 8000, err, y_hat.pow(2).mean().sqrt(), y.pow(2).mean().sqrt()))
    print("mean mel_L1 over %d files: %.3f" % (len(errs), float(np.mean(errs))))


if __name__ == "__main__":
    main()
'''

# ------------------------------------------------------------------ configs
DATA_A, DATA_B = "../../data/spk_a", "../../data/spk_b"


def coqui_cfg(**kw):
    c = {"model": "fastspeech2", "run_name": "fs2_tiny", "run_description": "",
         "datasets": [{"formatter": "ljspeech", "path": DATA_A, "meta_file_train": "metadata.csv"}],
         "audio": {"sample_rate": 8000, "fft_size": 256, "win_length": 256, "hop_length": 80, "num_mels": 24,
                   "mel_fmin": 0, "mel_fmax": 4000, "log_func": "np.log"},
         "batch_size": 16, "eval_batch_size": 16, "eval_split_size": 24, "epochs": 30, "lr": 1e-3,
         "optimizer": "Adam", "betas": [0.9, 0.98], "weight_decay": 1e-6, "grad_clip": 1.0,
         "hidden_channels": 64, "dropout": 0.1, "mixed_precision": False, "print_step": 10, "seed": 54321,
         "output_path": "."}
    c.update(kw)
    return c


def hifi_cfg(**kw):
    c = {"resblock": "2", "num_gpus": 0, "batch_size": 8, "learning_rate": 0.0005, "adam_b1": 0.8, "adam_b2": 0.99,
         "lr_decay": 0.99, "seed": 1234, "upsample_rates": [4, 4, 5], "upsample_initial_channel": 32,
         "disc_channels": 8, "segment_size": 800, "num_mels": 24, "n_fft": 256, "hop_size": 80, "win_size": 256,
         "sampling_rate": 8000, "fmin": 0, "fmax": 4000, "fmax_for_loss": None, "lambda_mel": 45,
         "data_path": DATA_A, "num_val_files": 8, "training_steps": 500, "steps_per_epoch": 25,
         "stdout_interval": 10, "validation_interval": 50, "checkpoint_interval": 100}
    c.update(kw)
    return c


def espnet_cfg(**kw):
    c = {"seed": 777, "train_data_path": DATA_A, "num_valid": 20, "batch_size": 16, "max_epoch": 25, "adim": 64, "dropout_rate": 0.1,
         "optim": "adam", "optim_conf": {"lr": 0.002}, "grad_clip": 1.0, "log_interval": 5,
         "frontend_conf": {"fs": 8000, "n_fft": 256, "hop_length": 80, "n_mels": 24, "fmin": 0, "fmax": 4000}}
    c.update(kw)
    return c


def wjson(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)


def run_py(rd, script, args=(), stdout_file=None):
    out = open(os.path.join(rd, stdout_file), "a") if stdout_file else subprocess.DEVNULL
    subprocess.check_call([sys.executable, script] + list(args), cwd=rd, stdout=out)


def make_run(name, script, cfg_path, cfg, ship, args=(), stdout_file=None, extra=None):
    rd = os.path.join(RUNS, name)
    if os.path.isdir(rd):
        shutil.rmtree(rd)
    os.makedirs(rd)
    wjson(os.path.join(rd, cfg_path), cfg)
    open(os.path.join(rd, "train.py"), "w").write(script)
    run_py(rd, "train.py", args, stdout_file)
    if extra:
        extra(rd)
    if not ship:
        os.remove(os.path.join(rd, "train.py"))
    return rd


def clean(rd, names):
    for n in names:
        p = os.path.join(rd, n)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


TRUTH = {}


def truth(name, t, symptom, how):
    TRUTH[name] = {"truth": t, "symptom": symptom, "how": how}


def main():
    only = sys.argv[1:]
    if not only or "data" in only:
        make_corpus("spk_a", 240, 1)
        make_corpus("spk_b", 200, 2, silent_ids=("spkb_0137",))
    os.makedirs(RUNS, exist_ok=True)

    def want(n):
        return not only or n in only

    if want("run01"):
        make_run("run01", FS2, "config.json", coqui_cfg(run_name="fs2_spk_a_fast", lr=0.4, epochs=20, print_step=5), ship=False)
        clean(os.path.join(RUNS, "run01"), ["best_model.pth"])
    truth("run01", "lr_too_high",
          "My FastSpeech2 mel loss jumps around and never gets anywhere near where the last run got, and the grad norm spikes.",
          "config lr=0.4 for Adam (a working run uses 1e-3); everything else as the healthy FastSpeech2 setup")

    if want("run02"):
        rd = make_run("run02", VOC, "config.json", hifi_cfg(training_steps=600, learning_rate=0.0002, batch_size=4),
                      ship=True, stdout_file="train_stdout.log")
        clean(rd, ["cp_hifigan"])
    truth("run02", "healthy",
          "The HiFi-GAN losses bounce around a lot and the mel error drops slowly; is this run OK or should I stop it?",
          "no fault: small batch (4) and low lr (2e-4) make the GAN curves noisy and slow, but mel error keeps falling")

    if want("run03"):
        rd = make_run("run03", ATTN, "conf/train.json", espnet_cfg(), ship=True)
        clean(rd, ["exp/tts_train/25epoch.pth"])
    truth("run03", "label_misalignment",
          "Attention never becomes diagonal, validation loss gets worse, and synthesized speech is babble unrelated to the input text.",
          "train.py zips the transcript list (metadata.csv order, recording-session order) with sorted(glob(wavs/*.wav)), so texts are paired with the wrong audio")

    if want("run04"):
        rd = make_run("run04", attn_paired(), "conf/train.json",
                      espnet_cfg(max_train_utts=30, adim=192, dropout_rate=0.0, max_epoch=100, batch_size=10, log_interval=3),
                      ship=False)
        clean(rd, ["exp/tts_train/100epoch.pth"])
    truth("run04", "overfitting",
          "Training mel loss keeps going down but eval loss went back up after the first part of training; test sentences sound worse than earlier checkpoints.",
          "attention TTS trained on only 30 utterances (max_train_utts=30) with a wide model (adim 192), dropout 0 and 100 epochs; text/audio pairing is correct")

    if want("run05"):
        rd = make_run("run05", voc_wave_l1(), "config.json",
                      hifi_cfg(steps_to_start_discriminator=100000, training_steps=500), ship=True, stdout_file="train_stdout.log")
        clean(rd, ["cp_hifigan"])
    truth("run05", "mode_collapse",
          "The generator loss goes down nicely but every sample the vocoder produces is basically silence, whatever mel I give it.",
          "generator trained on sample-level L1 against the waveform (instead of mel L1) with the adversarial/feature-matching terms switched off (steps_to_start_discriminator beyond the run); random phase makes the L1 optimum a near-zero output for every input")

    if want("run06"):
        make_run("run06", FS2, "config.json", coqui_cfg(run_name="fs2_spk_a"), ship=False)
        clean(os.path.join(RUNS, "run06"), ["best_model.pth"])
    truth("run06", "healthy", "Is this FastSpeech2 run OK? Just want a sanity check before training longer.",
          "no fault: standard tiny FastSpeech2 config, Adam 1e-3, 30 epochs")

    if want("run07"):
        cfg = coqui_cfg(run_name="fs2_fp16", mixed_precision=True, dynamic_loss_scale_init=65536, loss_scale_window=1000,
                        epochs=3)
        make_run("run07", fs2_mpo(), "config.json", cfg, ship=True)
        clean(os.path.join(RUNS, "run07"), ["best_model.pth"])
    truth("run07", "mixed_precision_overflow",
          "After turning on fp16 the log is full of overflow messages, the loss scale keeps shrinking and validation loss is nan.",
          "model.half() with a hand-rolled dynamic loss scaler that multiplies the loss by the scale but never divides the gradients back before clip/Adam; fp16 grads overflow, one step poisons the weights, then every step overflows and the scale collapses")

    if want("run08"):
        make_run("run08", fs2_nan(), "config.json",
                 coqui_cfg(run_name="fs2_spk_b", datasets=[{"formatter": "ljspeech", "path": DATA_B, "meta_file_train": "metadata.csv"}],
                           eval_split_size=20, epochs=12, print_step=1, seed=777), ship=True)
        clean(os.path.join(RUNS, "run08"), ["best_model.pth"])
    truth("run08", "nan_in_data",
          "Training on the new speaker was going fine and then the loss suddenly became nan/inf in the first epoch and never recovered.",
          "spk_b contains one all-zero (digital silence) clip, spkb_0137.wav; train.py takes torch.log of the mel magnitude without a floor, so that clip's log-mel is -inf and the batch that contains it produces inf loss and NaN weights")

    if want("run09"):
        rd = make_run("run09", VOC, "config.json", hifi_cfg(upsample_initial_channel=8, disc_channels=32, training_steps=400),
                      ship=False, stdout_file="train_stdout.log")
        clean(rd, ["cp_hifigan"])
    truth("run09", "architecture_imbalance",
          "Discriminator loss went almost to zero, generator adversarial loss stays high and the vocoder output is buzzy and noisy.",
          "generator upsample_initial_channel=8 (~1.8k params) against a multi-scale discriminator with disc_channels=32 (hundreds of thousands of params)")

    if want("run10"):
        make_run("run10", fs2_sorted(), "config.json", coqui_cfg(run_name="fs2_bucketed", epochs=12, print_step=1), ship=True)
        clean(os.path.join(RUNS, "run10"), ["best_model.pth"])
    truth("run10", "data_not_shuffled",
          "The per-step losses go up and down in a regular pattern that repeats every epoch; is something wrong?",
          "train.py sorts the training utterances by length and iterates without shuffling, every epoch in the same order")

    if want("run11"):
        rd = os.path.join(RUNS, "run11")
        if os.path.isdir(rd):
            shutil.rmtree(rd)
        os.makedirs(rd)
        open(os.path.join(rd, "train.py"), "w").write(voc_resume())
        wjson(os.path.join(rd, "config.json"), hifi_cfg(training_steps=400, lr_decay=0.95))
        run_py(rd, "train.py", [], "train_stdout.log")
        with open(os.path.join(rd, "train_stdout.log"), "a") as f:
            f.write("\n==== job resumed (training_steps raised to 800) ====\n")
        wjson(os.path.join(rd, "config.json"), hifi_cfg(training_steps=800, lr_decay=0.95))
        run_py(rd, "train.py", ["--resume"], "train_stdout.log")
        clean(rd, ["cp_hifigan"])
    truth("run11", "resume_mismatch",
          "After I resumed the vocoder from the step-400 checkpoint the curves don't look like before the restart: lr_d no longer matches lr_g, the discriminator starts winning (disc loss toward ~0.1, adversarial loss up).",
          "on --resume train.py restores generator, discriminator, optim_g and scheduler_g but not optim_d / scheduler_d: the discriminator's Adam moments restart from zero and its lr jumps back to the initial value")

    if want("run12"):
        def infer(rd):
            open(os.path.join(rd, "infer.py"), "w").write(INFER)
            run_py(rd, "infer.py", [], "infer_output.txt")
        rd = make_run("run12", VOC, "config.json", hifi_cfg(training_steps=500), ship=False, stdout_file="train_stdout.log",
                      extra=infer)
        clean(rd, ["cp_hifigan"])
    truth("run12", "preprocessing_mismatch",
          "Validation mel error in training looked fine, but when I run my inference script the vocoder output sounds muffled and robotic.",
          "infer.py extracts mels with fmax=2000 while the vocoder was trained on fmax=4000 (config.json)")

    notes = {
        "run03": "Listening test after 25 epochs: the outputs are babble, they do not follow the input text at all, "
                 "two different sentences of the same length sound about the same. Attention plot (att_ws_valid0.npy) is a blur, no diagonal.\n",
        "run05": "Eval audio at every validation is (nearly) silent: you can just about hear a faint hiss, the same for every utterance.\n",
        "run09": "Eval samples are buzzy and noisy; pitch is roughly there but it sounds much worse than our other vocoder at the same step.\n",
        "run12": "Copy-synthesis with infer.py sounds muffled and robotic and quieter than the reference, even though "
                 "validation during training looked fine (mel error ~0.34 at step 500).\n",
    }
    for n, txt in notes.items():
        if want(n):
            open(os.path.join(RUNS, n, "notes.txt"), "w").write(txt)

    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump(TRUTH, f, indent=2)


if __name__ == "__main__":
    main()
