#!/usr/bin/env python3
"""Generator for the audio-classification / keyword-spotting benchmark runs (round 19).

Builds four small synthetic corpora (Speech-Commands-like keywords, a flat voice-command set,
ESC-10-like and UrbanSound8K-like environmental sounds) from generated tones, chirps, harmonic
sources and noise bursts, then really trains one small torch model per run on CPU and copies what
a user would hand to a debugger into runs/<name>/. Ground truth goes to truth.json.

Usage:  python gen.py [run01 run02 ...] [--keep-data]
"""
import argparse
import csv
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
import wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------
# synthetic audio
# ---------------------------------------------------------------------------
def write_wav(path, x, sr):
    x = np.clip(x, -1, 1)
    pcm = (x * 32767).astype('<i2')
    with wave.open(path, 'wb') as w:
        w.setnchannels(1); w.setsampwidth(2); w.setframerate(sr); w.writeframes(pcm.tobytes())

def ramp_env(n, a=0.15, d=0.25):
    e = np.ones(n)
    na, nd = max(1, int(n * a)), max(1, int(n * d))
    e[:na] = 0.5 - 0.5 * np.cos(np.linspace(0, np.pi, na))
    e[-nd:] = 0.5 + 0.5 * np.cos(np.linspace(0, np.pi, nd))
    return e

def colored_noise(rng, n, slope):
    # slope 0 white, 1 pink, 2 brown
    X = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(X)) + 1.0
    X = X / f ** (slope / 2)
    y = np.fft.irfft(X, n)
    return y / (np.std(y) + 1e-12)

def band_noise(rng, n, sr, fc, bw):
    X = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / sr)
    X = X * np.exp(-0.5 * ((f - fc) / bw) ** 2)
    y = np.fft.irfft(X, n)
    return y / (np.std(y) + 1e-12)

def voiced(rng, n, sr, f0a, f0b, F1a, F1b, F2a, F2b, bw=120.0):
    t = np.linspace(0, 1, n)
    f0 = f0a + (f0b - f0a) * t
    F1 = F1a + (F1b - F1a) * t
    F2 = F2a + (F2b - F2a) * t
    ph = 2 * np.pi * np.cumsum(f0) / sr
    K = int(min(40, (sr / 2 - 200) / max(f0a, f0b)))
    y = np.zeros(n)
    for k in range(1, K + 1):
        fk = k * f0
        amp = np.exp(-0.5 * ((fk - F1) / bw) ** 2) + 0.7 * np.exp(-0.5 * ((fk - F2) / (bw * 1.5)) ** 2) + 0.02
        y += amp * np.sin(k * ph)
    return y / (np.std(y) + 1e-12)

def make_word_templates(seed, n_words):
    rng = np.random.default_rng(seed)
    temps = []
    for w in range(n_words):
        nseg = rng.integers(1, 4)
        segs = []
        for s in range(nseg):
            if rng.random() < 0.25 and nseg > 1:
                segs.append(dict(kind='fric', dur=rng.uniform(0.06, 0.15), fc=rng.uniform(2500, 6500), bw=rng.uniform(300, 1200)))
            else:
                segs.append(dict(kind='voiced', dur=rng.uniform(0.1, 0.28),
                                 f0=(rng.uniform(0.85, 1.15), rng.uniform(0.8, 1.2)),
                                 F1=(rng.uniform(300, 850), rng.uniform(300, 850)),
                                 F2=(rng.uniform(900, 2600), rng.uniform(900, 2600))))
        temps.append(segs)
    return temps

def render_word(rng, segs, spk, sr, n_total, snr_db):
    parts = []
    for sg in segs:
        dur = sg['dur'] * spk['speed'] * rng.uniform(0.92, 1.08)
        n = int(dur * sr)
        if sg['kind'] == 'fric':
            y = band_noise(rng, n, sr, min(sg['fc'] * spk['fscale'], sr / 2 - 500), sg['bw']) * 0.5
            e = ramp_env(n, 0.3, 0.3)
        else:
            j = rng.uniform(0.95, 1.05, size=4)
            y = voiced(rng, n, sr, spk['f0'] * sg['f0'][0], spk['f0'] * sg['f0'][1],
                       sg['F1'][0] * spk['fscale'] * j[0], sg['F1'][1] * spk['fscale'] * j[1],
                       sg['F2'][0] * spk['fscale'] * j[2], sg['F2'][1] * spk['fscale'] * j[3])
            e = ramp_env(n, 0.15, 0.3)
        parts.append(y * e)
        parts.append(np.zeros(int(rng.uniform(0.01, 0.04) * sr)))
    word = np.concatenate(parts)
    word = word[: n_total - 1]
    out = np.zeros(n_total)
    on = rng.integers(0, n_total - len(word))
    out[on:on + len(word)] = word
    noise = colored_noise(rng, n_total, rng.uniform(0.3, 1.5))
    sig_rms = np.sqrt(np.mean(word ** 2)) * np.sqrt(len(word) / n_total)
    out = out + noise * sig_rms * 10 ** (-snr_db / 20)
    out = out / (np.abs(out).max() + 1e-9) * 10 ** rng.uniform(-2.0, -0.05)
    return out

def make_speaker(rng):
    return dict(f0=rng.uniform(90, 260), fscale=rng.uniform(0.85, 1.2), speed=rng.uniform(0.8, 1.25))

ESC10 = ['dog', 'rooster', 'rain', 'sea_waves', 'crackling_fire', 'crying_baby', 'sneezing', 'clock_tick', 'helicopter', 'chainsaw']
RECIPES = ESC10 + ['siren', 'street_music']

def harmonic(n, sr, f0, nh, tilt, rng, vib_rate=0.0, vib_depth=0.0, f0_end=None):
    t = np.arange(n) / sr
    f = np.full(n, f0) if f0_end is None else np.linspace(f0, f0_end, n)
    if vib_depth > 0:
        f = f * (1 + vib_depth * np.sin(2 * np.pi * vib_rate * t + rng.uniform(0, 6.28)))
    ph = 2 * np.pi * np.cumsum(f) / sr
    y = np.zeros(n)
    for k in range(1, nh + 1):
        if k * f.max() > sr / 2 - 100:
            break
        y += k ** (-tilt) * np.sin(k * ph + rng.uniform(0, 6.28))
    return y / (np.std(y) + 1e-12)

def place(out, x, pos):
    n = min(len(x), len(out) - pos)
    if n > 0:
        out[pos:pos + n] += x[:n]

def esc_recording_params(rng, cls, pool, hard=False):
    p = dict(cls=cls, pool=list(pool),
             bg_slope=rng.uniform(0, 2), snr=rng.uniform(0, 20),
             eq=rng.uniform(-1, 1, size=6) * (1.6 if hard else 1.0), hum=rng.uniform(40, 400), hum_lvl=rng.uniform(0, 0.4),
             f0=rng.uniform(0.6, 1.6), rate=rng.uniform(0.5, 1.7), tilt=rng.uniform(0.3, 1.5), fc=rng.uniform(0.5, 1.8))
    if hard:
        p.update(f0=rng.uniform(0.45, 2.2), rate=rng.uniform(0.4, 2.0), snr=rng.uniform(-3, 15), hum_lvl=rng.uniform(0, 0.8))
    if rng.random() < (1.0 if hard else 0.75):
        d = pool[(pool.index(cls) + rng.integers(1, len(pool))) % len(pool)]
        p['distractor'] = esc_recording_params(rng, d, pool)
        p['distractor'].pop('distractor', None)
        p['dlev'] = rng.uniform(0.6, 1.3) if hard else rng.uniform(0.4, 1.0)
    return p


def esc_render(rng, p, sr, n, top=True):
    c = p['cls']
    y = np.zeros(n)
    T = n / sr
    if c == 'dog':
        for _ in range(rng.integers(1, 4)):
            m = int(rng.uniform(0.1, 0.25) * sr)
            b = harmonic(m, sr, 550 * p['f0'], 12, p['tilt'], rng, f0_end=450 * p['f0']) * np.exp(-np.linspace(0, 5, m))
            place(y, b, rng.integers(0, n - m))
    elif c == 'rooster':
        m = int(min(T - 0.1, rng.uniform(0.7, 1.2)) * sr)
        b = harmonic(m, sr, 500 * p['f0'], 10, p['tilt'], rng, vib_rate=6, vib_depth=0.03, f0_end=650 * p['f0'])
        place(y, b * ramp_env(m, 0.1, 0.4), rng.integers(0, n - m))
    elif c == 'rain':
        y = colored_noise(rng, n, 0.3 * p['fc']) * 0.6
        for _ in range(int(30 * p['rate'] * T)):
            m = 160
            place(y, rng.standard_normal(m) * np.exp(-np.linspace(0, 8, m)) * 2, rng.integers(0, n - m))
    elif c == 'sea_waves':
        t = np.arange(n) / sr
        am = 0.55 + 0.45 * np.sin(2 * np.pi * t / (2.5 * p['rate']) + rng.uniform(0, 6.28))
        y = colored_noise(rng, n, 1.3 + 0.3 * p['fc']) * am
    elif c == 'crackling_fire':
        y = colored_noise(rng, n, 2.0) * 0.3
        for _ in range(int(rng.uniform(15, 40) * p['rate'] * T)):
            m = 80
            place(y, rng.standard_normal(m) * np.exp(-np.linspace(0, 6, m)) * rng.uniform(1, 6), rng.integers(0, n - m))
    elif c == 'crying_baby':
        for _ in range(rng.integers(1, 3)):
            m = int(rng.uniform(0.4, 0.8) * sr)
            b = harmonic(m, sr, 420 * p['f0'], 15, p['tilt'], rng, vib_rate=8, vib_depth=0.06)
            place(y, b * ramp_env(m, 0.2, 0.3), rng.integers(0, n - m))
    elif c == 'sneezing':
        m1, m2 = int(0.35 * sr), int(0.15 * sr)
        pos = rng.integers(0, n - m1 - m2)
        place(y, band_noise(rng, m1, sr, 1500 * p['fc'], 800) * np.linspace(0, 0.4, m1), pos)
        place(y, colored_noise(rng, m2, 0.5) * np.exp(-np.linspace(0, 4, m2)) * 2.5, pos + m1)
    elif c == 'clock_tick':
        per = 0.4 * p['rate']
        t0 = rng.uniform(0, per)
        click = band_noise(rng, 200, sr, min(3500 * p['fc'], sr / 2 - 800), 600) * np.exp(-np.linspace(0, 6, 200)) * 3
        tt = t0
        while tt < T - 0.02:
            place(y, click, int(tt * sr)); tt += per
    elif c == 'helicopter':
        t = np.arange(n) / sr
        am = 0.5 + 0.5 * np.sign(np.sin(2 * np.pi * 12 * p['rate'] * t + rng.uniform(0, 6.28)))
        y = colored_noise(rng, n, 1.6) * (0.3 + am) + 0.3 * harmonic(n, sr, 90 * p['f0'], 6, 1.0, rng)
    elif c == 'siren':
        t = np.arange(n) / sr
        f = 900 * p['f0'] * (1 + 0.35 * np.sin(2 * np.pi * t / (1.2 * p['rate']) + rng.uniform(0, 6.28)))
        ph = 2 * np.pi * np.cumsum(f) / sr
        y = np.sin(ph) + 0.4 * np.sin(2 * ph) + 0.2 * np.sin(3 * ph)
    elif c == 'street_music':
        base = 220 * p['f0']
        pos = 0
        while pos < n:
            m = int(rng.uniform(0.2, 0.5) * p['rate'] * sr) + 400
            ch = sum(harmonic(m, sr, base * 2 ** (k / 12), 6, 1.2, rng) for k in rng.choice([0, 3, 4, 7, 10, 12], 3, replace=False))
            place(y, ch * ramp_env(m, 0.05, 0.3), pos); pos += m
    elif c == 'chainsaw':
        m = int(rng.uniform(0.6, 1.0) * n)
        b = harmonic(m, sr, 120 * p['f0'], 40, 0.5 * p['tilt'], rng, vib_rate=3, vib_depth=0.05)
        place(y, b * ramp_env(m, 0.05, 0.1), rng.integers(0, n - m))
    y = y / (np.std(y) + 1e-12)
    if not top:
        return y
    if 'distractor' in p:
        y = y + p['dlev'] * esc_render(rng, p['distractor'], sr, n, top=False)
    # recording: background, hum, room eq
    bg = colored_noise(rng, n, p['bg_slope'])
    hum = np.sin(2 * np.pi * p['hum'] * np.arange(n) / sr)
    y = y + bg * 10 ** (-p['snr'] / 20) + hum * p['hum_lvl']
    X = np.fft.rfft(y)
    f = np.fft.rfftfreq(n, 1 / sr)
    centers = np.linspace(0, sr / 2, 6)
    g = sum(p['eq'][i] * np.exp(-0.5 * ((f - centers[i]) / (sr / 12)) ** 2) for i in range(6))
    y = np.fft.irfft(X * 10 ** (g * 12 / 20), n)
    return y / (np.abs(y).max() + 1e-9) * rng.uniform(0.3, 0.9)


# ---------------------------------------------------------------------------
# corpora
# ---------------------------------------------------------------------------
SR = 16000
WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
CMDS = ['lights', 'music', 'volume', 'play', 'pause', 'next', 'back', 'cancel']
US8K = ['air_conditioner', 'car_horn', 'children_playing', 'dog_bark', 'drilling', 'engine_idling', 'gun_shot', 'jackhammer', 'siren', 'street_music']
US8K_RECIPE = ['rain', 'rooster', 'crying_baby', 'dog', 'chainsaw', 'helicopter', 'sneezing', 'clock_tick', 'siren', 'street_music']


def hexid(rng, k=8):
    return ''.join(rng.choice(list('0123456789abcdef'), k))


def build_speech_commands(root, seed=11):
    rng = np.random.default_rng(seed)
    temps = make_word_templates(7, len(WORDS))
    spk_ids = []
    while len(spk_ids) < 50:
        h = hexid(rng)
        if h not in spk_ids:
            spk_ids.append(h)
    val_spk, test_spk = set(spk_ids[36:43]), set(spk_ids[43:])
    # a few clips are shorter than 1 s (as in the real corpus) and one take is digital silence
    short = {(spk_ids[3], 'left', 1), (spk_ids[17], 'up', 2), (spk_ids[29], 'off', 0)}
    silent = {(spk_ids[22], 'go', 3)}
    val, test = [], []
    for w in WORDS:
        os.makedirs(os.path.join(root, w), exist_ok=True)
    for s in spk_ids:
        spk = make_speaker(rng)
        for wi, w in enumerate(WORDS):
            for r in range(4):
                x = render_word(rng, temps[wi], spk, SR, SR, rng.uniform(10, 25))
                if (s, w, r) in short:
                    n = int(rng.uniform(0.6, 0.8) * SR)
                    x = render_word(rng, temps[wi], spk, SR, n, rng.uniform(10, 25))
                if (s, w, r) in silent:
                    x = np.zeros(SR)
                rel = f'{w}/{s}_nohash_{r}.wav'
                write_wav(os.path.join(root, rel), x, SR)
                if s in val_spk:
                    val.append(rel)
                elif s in test_spk:
                    test.append(rel)
    with open(os.path.join(root, 'validation_list.txt'), 'w') as f:
        f.write('\n'.join(sorted(val)) + '\n')
    with open(os.path.join(root, 'testing_list.txt'), 'w') as f:
        f.write('\n'.join(sorted(test)) + '\n')
    # crowd-sourced re-annotation of the training part: 40 % of the labels are wrong
    held = set(val) | set(test)
    rows = []
    for w in WORDS:
        for fn in sorted(os.listdir(os.path.join(root, w))):
            rel = f'{w}/{fn}'
            if rel in held:
                continue
            lab = w
            if rng.random() < 0.4:
                lab = WORDS[(WORDS.index(w) + rng.integers(1, len(WORDS))) % len(WORDS)]
            rows.append((rel, lab))
    order = rng.permutation(len(rows))
    with open(os.path.join(root, 'crowd_labels_train.csv'), 'w', newline='') as f:
        wr = csv.writer(f)
        wr.writerow(['path', 'label', 'n_votes'])
        for i in order:
            wr.writerow([rows[i][0], rows[i][1], int(rng.integers(1, 4))])


def build_commands_flat(root, seed=12):
    rng = np.random.default_rng(seed)
    temps = make_word_templates(99, len(CMDS))
    os.makedirs(os.path.join(root, 'clips'), exist_ok=True)
    rows = []
    for sess in range(30):
        spk = make_speaker(rng)
        spk_name = f'spk{sess:03d}'
        order = [(w, r) for w in range(len(CMDS)) for r in range(5)]
        rng.shuffle(order)
        for k, (wi, r) in enumerate(order):
            cid = hashlib.md5(f'{seed}-{sess}-{k}'.encode()).hexdigest()[:12]
            x = render_word(rng, temps[wi], spk, SR, SR, rng.uniform(8, 25))
            write_wav(os.path.join(root, 'clips', cid + '.wav'), x, SR)
            rows.append((cid + '.wav', spk_name, CMDS[wi], f'2023-05-{1 + sess % 28:02d}', k))
    with open(os.path.join(root, 'labels.csv'), 'w', newline='') as f:
        wr = csv.writer(f)
        wr.writerow(['filename', 'speaker', 'label', 'session_date', 'utt_index'])
        wr.writerows(rows)


def build_esc10(root, seed=13, n_per_class=40, dur=2.0):
    rng = np.random.default_rng(seed)
    os.makedirs(os.path.join(root, 'audio'), exist_ok=True)
    os.makedirs(os.path.join(root, 'meta'), exist_ok=True)
    targets = {'dog': 0, 'rooster': 1, 'rain': 10, 'sea_waves': 11, 'crackling_fire': 12,
               'crying_baby': 20, 'sneezing': 21, 'clock_tick': 38, 'helicopter': 40, 'chainsaw': 41}
    rows = []
    n = int(dur * SR)
    for c in ESC10:
        for i in range(n_per_class):
            p = esc_recording_params(rng, c, ESC10)
            src = int(rng.integers(10000, 300000))
            fold = i % 5 + 1
            fn = f'{fold}-{src}-A-{targets[c]}.wav'
            write_wav(os.path.join(root, 'audio', fn), esc_render(rng, p, SR, n), SR)
            rows.append((fn, fold, targets[c], c, True, src, 'A'))
    rows.sort()
    with open(os.path.join(root, 'meta', 'esc10.csv'), 'w', newline='') as f:
        wr = csv.writer(f)
        wr.writerow(['filename', 'fold', 'target', 'category', 'esc10', 'src_file', 'take'])
        wr.writerows(rows)


def build_us8k(root, seed=14, n_src=12, n_slices=8, dur=2.0):
    rng = np.random.default_rng(seed)
    rows = []
    n = int(dur * SR)
    for ci, c in enumerate(US8K):
        for s in range(n_src):
            fold = s % 10 + 1
            os.makedirs(os.path.join(root, 'audio', f'fold{fold}'), exist_ok=True)
            p = esc_recording_params(rng, US8K_RECIPE[ci], US8K_RECIPE, hard=True)
            fsid = int(rng.integers(1000, 200000))
            occ = int(rng.integers(0, 3))
            file_sr = int(rng.choice([SR, SR, SR, 22050, 44100]))
            for k in range(n_slices):
                fn = f'{fsid}-{ci}-{occ}-{k}.wav'
                x = esc_render(rng, p, SR, n)
                if file_sr != SR:
                    t_new = np.arange(int(n * file_sr / SR)) / file_sr
                    x = np.interp(t_new, np.arange(n) / SR, x)
                write_wav(os.path.join(root, 'audio', f'fold{fold}', fn), x, file_sr)
                rows.append((fn, fsid, round(k * dur, 3), round((k + 1) * dur, 3), int(rng.integers(1, 3)), fold, ci, c))
    os.makedirs(os.path.join(root, 'metadata'), exist_ok=True)
    with open(os.path.join(root, 'metadata', 'UrbanSound8K.csv'), 'w', newline='') as f:
        wr = csv.writer(f)
        wr.writerow(['slice_file_name', 'fsID', 'start', 'end', 'salience', 'fold', 'classID', 'class'])
        wr.writerows(rows)


def build_all(data_dir):
    for name, fn in [('speech_commands', build_speech_commands), ('commands_flat', build_commands_flat),
                     ('ESC-10', build_esc10), ('UrbanSound8K', build_us8k)]:
        t0 = time.time()
        fn(os.path.join(data_dir, name))
        print(f'  built {name} in {time.time() - t0:.1f}s', flush=True)


# ---------------------------------------------------------------------------
# the users' training scripts (each run executes its own copy as train.py)
# ---------------------------------------------------------------------------

RUN01 = r'''
#!/usr/bin/env python3
"""Speech Commands (10 keywords) - CRNN (conv front-end + GRU) on log-mel fbanks."""
import os, sys, time, wave, logging, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = dict(seed=2602, data_folder='data/speech_commands', sample_rate=16000, n_fft=512, hop_length=160,
          n_mels=40, number_of_epochs=15, batch_size=32, lr=0.8, momentum=0.9,
          dropout=0.1, cnn_channels=32, rnn_hidden=64, words=['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go'])

torch.set_num_threads(1)
random.seed(HP['seed']); np.random.seed(HP['seed']); torch.manual_seed(HP['seed'])

logging.basicConfig(filename='log.txt', level=logging.INFO, format='%(asctime)s - %(name)s - %(levelname)s - %(message)s')
logging.getLogger().addHandler(logging.StreamHandler(sys.stdout))
log_core = logging.getLogger('speechbrain.core')
log_data = logging.getLogger('kws_prepare')
log_ckpt = logging.getLogger('speechbrain.utils.checkpoints')
log_loop = logging.getLogger('speechbrain.utils.epoch_loop')
log_train = logging.getLogger('speechbrain.utils.train_logger')


def sb_fmt(v):
    if isinstance(v, float) and 1.0 < v < 100.0:
        return f'{v:.2f}'
    if isinstance(v, float):
        return f'{v:.2e}'
    return str(v)


def train_log(stats_meta, train=None, valid=None, test=None):
    parts = [', '.join(f'{k}: {sb_fmt(v)}' for k, v in stats_meta.items())]
    for name, st in (('train', train), ('valid', valid), ('test', test)):
        if st:
            parts.append(', '.join(f'{name} {k}: {sb_fmt(v)}' for k, v in st.items()))
    line = ' - '.join(parts)
    with open('train_log.txt', 'a') as f:
        f.write(line + '\n')
    log_train.info(line)


def load_wav(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return torch.from_numpy(x.copy()), sr


def mel_filterbank(sr, n_fft, n_mels):
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    pts = mel2hz(np.linspace(0.0, hz2mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = pts[i:i + 3]
        fb[:, i] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
    return torch.from_numpy(fb)


class Fbank:
    def __init__(self, sr, n_fft, hop, n_mels):
        self.n_fft, self.hop = n_fft, hop
        self.win = torch.hann_window(n_fft)
        self.fb = mel_filterbank(sr, n_fft, n_mels)

    def __call__(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.win, return_complex=True).abs() ** 2
        return torch.log(torch.matmul(spec.transpose(-1, -2), self.fb) + 1e-6).transpose(-1, -2)


def prepare(folder, words):
    val = set(open(os.path.join(folder, 'validation_list.txt')).read().split())
    test = set(open(os.path.join(folder, 'testing_list.txt')).read().split())
    splits = {'train': [], 'valid': [], 'test': []}
    for wi, w in enumerate(words):
        for fn in sorted(os.listdir(os.path.join(folder, w))):
            rel = f'{w}/{fn}'
            sp = 'valid' if rel in val else 'test' if rel in test else 'train'
            splits[sp].append((rel, wi))
    return splits


def load_split(folder, items, fbank, sr_expected):
    X, Y = [], []
    for rel, y in items:
        wav, sr = load_wav(os.path.join(folder, rel))
        assert sr == sr_expected
        if len(wav) < sr_expected:
            wav = F.pad(wav, (0, sr_expected - len(wav)))
        X.append(fbank(wav[:sr_expected]))
        Y.append(y)
    return torch.stack(X), torch.tensor(Y)


class CRNN(nn.Module):
    def __init__(self, n_mels, n_classes, ch, hidden, dropout):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, ch, 3, stride=(2, 1), padding=1), nn.BatchNorm2d(ch), nn.ReLU(),
            nn.Conv2d(ch, ch, 3, stride=(2, 2), padding=1), nn.BatchNorm2d(ch), nn.ReLU())
        self.rnn = nn.GRU(ch * ((n_mels + 3) // 4), hidden, batch_first=True)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x):
        h = self.conv(x.unsqueeze(1))                      # B, C, F', T'
        h = h.permute(0, 3, 1, 2).flatten(2)               # B, T', C*F'
        out, _ = self.rnn(h)
        return self.out(self.drop(out.mean(dim=1)))


def evaluate(model, X, Y, bs=200):
    model.eval()
    loss, err = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            loss += F.cross_entropy(out, Y[i:i + bs], reduction='sum').item()
            err += (out.argmax(1) != Y[i:i + bs]).sum().item()
    return loss / len(X), err / len(X)


if __name__ == '__main__':
    log_core.info('Beginning experiment!')
    log_core.info('Experiment folder: results/crnn_kws/2602')
    fbank = Fbank(HP['sample_rate'], HP['n_fft'], HP['hop_length'], HP['n_mels'])
    splits = prepare(HP['data_folder'], HP['words'])
    log_data.info(f"Creating csv files: train={len(splits['train'])} valid={len(splits['valid'])} test={len(splits['test'])}")
    Xtr, Ytr = load_split(HP['data_folder'], splits['train'], fbank, HP['sample_rate'])
    Xva, Yva = load_split(HP['data_folder'], splits['valid'], fbank, HP['sample_rate'])
    Xte, Yte = load_split(HP['data_folder'], splits['test'], fbank, HP['sample_rate'])
    mean, std = Xtr.mean(dim=(0, 2), keepdim=True), Xtr.std(dim=(0, 2), keepdim=True)
    Xtr, Xva, Xte = (Xtr - mean) / std, (Xva - mean) / std, (Xte - mean) / std
    log_data.info(f'fbank features: {tuple(Xtr.shape)} (batch, n_mels, frames); global CMVN from train set')
    model = CRNN(HP['n_mels'], len(HP['words']), HP['cnn_channels'], HP['rnn_hidden'], HP['dropout'])
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_core.info(f'Info: ckpt_interval_minutes arg from hparam file is used')
    log_core.info(f"{n_params / 1e3:.1f}k trainable parameters in CRNN")
    log_ckpt.info('Would load a checkpoint here, but none found yet.')
    opt = torch.optim.SGD(model.parameters(), lr=HP['lr'], momentum=HP['momentum'])
    from torch.utils.tensorboard import SummaryWriter
    tb = SummaryWriter('tensorboard')
    step = 0
    E = HP['number_of_epochs']
    best = (1e9, 0)
    best_state = None
    for epoch in range(1, E + 1):
        lr = opt.param_groups[0]['lr']
        log_loop.info(f'Going into epoch {epoch}')
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, n = 0.0, 0
        for i in range(0, len(Xtr), HP['batch_size']):
            idx = perm[i:i + HP['batch_size']]
            loss = F.cross_entropy(model(Xtr[idx]), Ytr[idx])
            opt.zero_grad()
            loss.backward()
            gn = torch.sqrt(sum((p.grad.detach() ** 2).sum() for p in model.parameters() if p.grad is not None)).item()
            opt.step()
            step += 1
            tb.add_scalar('train/loss', loss.item(), step)
            tb.add_scalar('train/grad_norm', gn, step)
            tb.add_scalar('train/lr', lr, step)
            tot += loss.item() * len(idx); n += len(idx)
        vl, ve = evaluate(model, Xva, Yva)
        tb.add_scalar('valid/loss', vl, epoch)
        tb.add_scalar('valid/error', ve, epoch)
        tb.flush()
        train_log({'epoch': epoch, 'lr': lr}, train={'loss': tot / n}, valid={'loss': vl, 'error': ve})
        if vl < best[0]:
            best = (vl, epoch)
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            log_ckpt.info(f'Saved an end-of-epoch checkpoint in results/crnn_kws/2602/save/CKPT+epoch_{epoch}')
    model.load_state_dict(best_state)
    log_ckpt.info(f'Loading a checkpoint from results/crnn_kws/2602/save/CKPT+epoch_{best[1]}')
    tl, te = evaluate(model, Xte, Yte)
    train_log({'Epoch loaded': best[1]}, test={'loss': tl, 'error': te})
'''

RUN02 = r'''
# ESC-10 environmental sound classification with a GRU over log-mel frames
# folds 1-4 train, fold 5 validation (official ESC split)
import os
import csv
import time
import wave
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.tensorboard import SummaryWriter

torch.set_num_threads(1)
torch.manual_seed(2024)
np.random.seed(2024)

cfg = dict(root='data/ESC-10', sr=16000, n_fft=1024, hop=320, n_mels=40, hidden=64, layers=1,
           batch_size=16, lr=5e-4, weight_decay=1e-4, epochs=40, val_fold=5, time_mask=12, freq_mask=6)


def wav_read(p):
    with wave.open(p) as w:
        return np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768, w.getframerate()


def mel_fb(sr, n_fft, n_mels):
    m = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    return torch.tensor(np.stack([np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
                                  for i in range(n_mels)]), dtype=torch.float32)


meta = list(csv.DictReader(open(os.path.join(cfg['root'], 'meta', 'esc10.csv'))))
cats = sorted({r['category'] for r in meta})
wavs, ys, folds = [], [], []
for r in meta:
    a, sr = wav_read(os.path.join(cfg['root'], 'audio', r['filename']))
    assert sr == cfg['sr']
    wavs.append(torch.from_numpy(a)); ys.append(cats.index(r['category'])); folds.append(int(r['fold']))
W = torch.stack(wavs)
S = torch.stft(W, cfg['n_fft'], cfg['hop'], window=torch.hann_window(cfg['n_fft']), return_complex=True).abs() ** 2
X = torch.log(mel_fb(cfg['sr'], cfg['n_fft'], cfg['n_mels']) @ S + 1e-6).transpose(1, 2)   # (N, T, n_mels)
y = torch.tensor(ys)
folds = torch.tensor(folds)
tr, va = folds != cfg['val_fold'], folds == cfg['val_fold']
mu, sd = X[tr].mean(dim=(0, 1)), X[tr].std(dim=(0, 1))
X = (X - mu) / sd
Xtr, ytr, Xva, yva = X[tr], y[tr], X[va], y[va]
print(f'ESC-10: {len(X)} clips, {len(cats)} classes; train {len(Xtr)} / val {len(Xva)}; features (T, n_mels) = {tuple(X.shape[1:])}')


class GRUClassifier(nn.Module):
    def __init__(self, n_mels, hidden, layers, n_classes):
        super().__init__()
        self.gru = nn.GRU(n_mels, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(4 * hidden, n_classes)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.fc(torch.cat([h.mean(1), h.max(1).values], dim=1))


def spec_augment(x):
    x = x.clone()
    for b in range(len(x)):
        t = np.random.randint(0, x.shape[1] - cfg['time_mask'])
        f = np.random.randint(0, x.shape[2] - cfg['freq_mask'])
        x[b, t:t + np.random.randint(0, cfg['time_mask']), :] = 0
        x[b, :, f:f + np.random.randint(0, cfg['freq_mask'])] = 0
    return x


model = GRUClassifier(cfg['n_mels'], cfg['hidden'], cfg['layers'], len(cats))
opt = torch.optim.AdamW(model.parameters(), lr=cfg['lr'], weight_decay=cfg['weight_decay'])
tb = SummaryWriter('lightning_logs/version_0')
with open('lightning_logs/version_0/hparams.yaml', 'w') as f:
    for k, v in cfg.items():
        f.write(f'{k}: {v}\n')
print(f"  | Name  | Type | Params\n-------------------------------\n0 | gru   | GRU  | {sum(p.numel() for p in model.gru.parameters()) / 1e3:.1f} K\n"
      f"1 | fc    | Linear | {sum(p.numel() for p in model.fc.parameters())}\n-------------------------------")
step = 0
for epoch in range(cfg['epochs']):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr))
    L, C = 0.0, 0
    for i in range(0, len(perm), cfg['batch_size']):
        idx = perm[i:i + cfg['batch_size']]
        out = model(spec_augment(Xtr[idx]))
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        step += 1
        L += loss.item() * len(idx); C += (out.argmax(1) == ytr[idx]).sum().item()
        tb.add_scalar('train_loss_step', loss.item(), step)
        tb.add_scalar('grad_norm', gn.item(), step)
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        vacc = (out.argmax(1) == yva).float().mean().item()
    tl, ta = L / len(Xtr), C / len(Xtr)
    for k, v in dict(train_loss=tl, train_acc=ta, valid_loss=vl, valid_acc=vacc).items():
        tb.add_scalar(k, v, epoch)
    tb.add_scalar('epoch', epoch, step)
    print(f'Epoch {epoch}: train_loss={tl:.3f} train_acc={ta:.3f} valid_loss={vl:.3f} valid_acc={vacc:.3f} [{time.time() - t0:.1f}s]')
tb.close()

with torch.no_grad():
    pred = model(Xva).argmax(1)
print('\nvalidation per-class accuracy (fold 5):')
for c, name in enumerate(cats):
    m = yva == c
    print(f'  {name:15s} {(pred[m] == c).float().mean().item():.2f}')
'''

RUN03 = r'''
"""Voice-command classifier (8 commands) for the smart-speaker prototype.
Clips: data/commands_flat/clips/*.wav (16 kHz mono, 1 s), labels: data/commands_flat/labels.csv
"""
import glob
import os
import csv
import wave
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

CLIP_DIR = 'data/commands_flat/clips'
LABEL_CSV = 'data/commands_flat/labels.csv'
HP = {'sample_rate': 16000, 'n_fft': 400, 'hop_length': 160, 'n_mels': 40,
      'batch_size': 64, 'lr': 0.001, 'max_epochs': 8, 'val_fraction': 0.2, 'seed': 0}

files = sorted(glob.glob(os.path.join(CLIP_DIR, '*.wav')))
labels_df = pd.read_csv(LABEL_CSV)
commands = sorted(labels_df['label'].unique())
labels = labels_df['label'].map({c: i for i, c in enumerate(commands)}).values
print(f'{len(files)} wav files, {len(labels)} labels, classes: {commands}')
print(labels_df['label'].value_counts().to_string())


def read(path):
    with wave.open(path) as w:
        assert w.getframerate() == HP['sample_rate'], path
        a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return np.pad(a, (0, max(0, HP['sample_rate'] - len(a))))[:HP['sample_rate']]


def mel_matrix(sr, n_fft, n_mels):
    mel_pts = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (mel_pts / 2595) - 1)
    f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    M = np.zeros((n_mels, len(f)), np.float32)
    for i in range(n_mels):
        M[i] = np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
    return torch.from_numpy(M)


wav = torch.from_numpy(np.stack([read(f) for f in files]))
spec = torch.stft(wav, HP['n_fft'], HP['hop_length'], window=torch.hann_window(HP['n_fft']), return_complex=True).abs() ** 2
X = torch.log(mel_matrix(HP['sample_rate'], HP['n_fft'], HP['n_mels']) @ spec + 1e-6)
X = ((X - X.mean()) / X.std()).unsqueeze(1)
y = torch.tensor(labels)
print('features:', tuple(X.shape), ' targets:', tuple(y.shape))

perm = torch.randperm(len(X))
n_val = int(HP['val_fraction'] * len(X))
va_idx, tr_idx = perm[:n_val], perm[n_val:]
Xtr, ytr, Xva, yva = X[tr_idx], y[tr_idx], X[va_idx], y[va_idx]


class CmdNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU())
        self.fc = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.fc(self.conv(x).mean(dim=(2, 3)))


model = CmdNet(len(commands))
opt = torch.optim.Adam(model.parameters(), lr=HP['lr'])
os.makedirs('logs/version_0', exist_ok=True)
with open('logs/version_0/hparams.yaml', 'w') as f:
    for k, v in HP.items():
        f.write(f'{k}: {v}\n')
    f.write(f'num_classes: {len(commands)}\n')
mf = open('logs/version_0/metrics.csv', 'w', newline='')
mw = csv.writer(mf)
mw.writerow(['epoch', 'step', 'train_loss', 'train_acc', 'valid_loss', 'valid_acc'])
step = 0
for epoch in range(HP['max_epochs']):
    model.train()
    order = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(order), HP['batch_size']):
        b = order[i:i + HP['batch_size']]
        out = model(Xtr[b])
        loss = F.cross_entropy(out, ytr[b])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        tl += loss.item() * len(b)
        tc += (out.argmax(1) == ytr[b]).sum().item()
    model.eval()
    with torch.no_grad():
        out = model(Xva)
        vl = F.cross_entropy(out, yva).item()
        va = (out.argmax(1) == yva).float().mean().item()
    tl, ta = tl / len(Xtr), tc / len(Xtr)
    print(f'Epoch {epoch}: train_loss={tl:.3f} train_acc={ta:.3f} valid_loss={vl:.3f} valid_acc={va:.3f}')
    mw.writerow([epoch, step, round(tl, 4), round(ta, 4), round(vl, 4), round(va, 4)])
    mf.flush()
torch.save(model.state_dict(), 'logs/version_0/cmdnet.pt')
'''

RUN04 = r'''
import os
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.set_num_threads(1)
SEED = 12
torch.manual_seed(SEED)

DATA = 'data/speech_commands'
WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
SR = 16000
N_FFT = 480
HOP = 160
N_MELS = 40
BATCH = 32
EPOCHS = 6
LR = 1e-3


def mel_filters(sr, n_fft, n_mels):
    def hz_to_mel(f):
        return 2595.0 * np.log10(1.0 + f / 700.0)

    def mel_to_hz(m):
        return 700.0 * (10 ** (m / 2595.0) - 1.0)

    edges = mel_to_hz(np.linspace(hz_to_mel(0), hz_to_mel(sr / 2), n_mels + 2))
    bins = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_mels, n_fft // 2 + 1), dtype=np.float32)
    for i in range(n_mels):
        up = (bins - edges[i]) / (edges[i + 1] - edges[i])
        down = (edges[i + 2] - bins) / (edges[i + 2] - edges[i + 1])
        fb[i] = np.maximum(0, np.minimum(up, down))
    return torch.from_numpy(fb)


class SpeechCommands(Dataset):
    def __init__(self, root, split):
        val = set(open(os.path.join(root, 'validation_list.txt')).read().split())
        test = set(open(os.path.join(root, 'testing_list.txt')).read().split())
        self.items = []
        for label, word in enumerate(WORDS):
            for name in sorted(os.listdir(os.path.join(root, word))):
                rel = word + '/' + name
                s = 'val' if rel in val else 'test' if rel in test else 'train'
                if s == split:
                    self.items.append((os.path.join(root, rel), label))
        self.window = torch.hann_window(N_FFT)
        self.mel = mel_filters(SR, N_FFT, N_MELS)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, label = self.items[i]
        with wave.open(path) as w:
            assert w.getframerate() == SR
            audio = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
        x = torch.from_numpy(audio.astype(np.float32) / 32768.0)
        if len(x) < SR:
            x = F.pad(x, (0, SR - len(x)))
        spec = torch.stft(x[:SR], N_FFT, HOP, window=self.window, return_complex=True).abs() ** 2
        logmel = torch.log(self.mel @ spec)
        return logmel.unsqueeze(0), label


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 5, stride=2, padding=2)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.conv3 = nn.Conv2d(32, 48, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(48)
        self.fc = nn.Linear(48, len(WORDS))

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.relu(self.bn3(self.conv3(x)))
        return self.fc(x.mean(dim=(2, 3)))


def main():
    train_ds = SpeechCommands(DATA, 'train')
    val_ds = SpeechCommands(DATA, 'val')
    print(f'train: {len(train_ds)} clips, val: {len(val_ds)} clips, {len(WORDS)} classes')
    g = torch.Generator().manual_seed(SEED)
    train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True, generator=g)
    val_dl = DataLoader(val_ds, batch_size=100)
    xb, yb = next(iter(val_dl))
    print(f'input batch: {tuple(xb.shape)} dtype={xb.dtype} min={xb.min():.2f} max={xb.max():.2f} mean={xb.mean():.2f}')
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    step = 0
    for epoch in range(1, EPOCHS + 1):
        model.train()
        t0 = time.time()
        run_loss, run_n = 0.0, 0
        for x, y in train_dl:
            out = model(x)
            loss = F.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step()
            step += 1
            run_loss += loss.item() * len(y)
            run_n += len(y)
            if step % 10 == 0:
                print(f'[epoch {epoch} step {step:4d}] loss={loss.item():.4f} grad_norm={gnorm.item():.3f}')
        model.eval()
        correct, vloss = 0, 0.0
        with torch.no_grad():
            for x, y in val_dl:
                out = model(x)
                vloss += F.cross_entropy(out, y, reduction='sum').item()
                correct += (out.argmax(1) == y).sum().item()
        print(f'==> epoch {epoch}: train_loss={run_loss / run_n:.4f} val_loss={vloss / len(val_ds):.4f} '
              f'val_acc={correct / len(val_ds):.4f} ({time.time() - t0:.0f}s)')
        torch.save(model.state_dict(), f'ckpt_epoch{epoch}.pt')


if __name__ == '__main__':
    main()
'''

RUN05 = r'''
#!/usr/bin/env python3
"""Low-resource KWS: train on the speakers of one recording session, validate on the official split."""
import os, sys, wave, time, csv, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {
    'seed': 31,
    'data': {'root': 'data/speech_commands', 'batch_size': 32, 'train_speakers': 4,
             'classes': ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']},
    'train_transform': {'sample_rate': 16000, 'n_fft': 400, 'win_length': 400, 'hop_length': 160, 'n_mels': 40},
    'num_frames': 101,
    'model': {'name': 'ConvFC', 'channels': [16, 32], 'fc_dim': 256, 'dropout': 0.0},
    'optim': {'name': 'adam', 'lr': 0.002, 'weight_decay': 0.0},
    'trainer': {'max_epochs': 100, 'accelerator': 'cpu', 'deterministic': True},
}
torch.set_num_threads(1)
random.seed(CFG['seed']); np.random.seed(CFG['seed']); torch.manual_seed(CFG['seed'])


def load_wav(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return torch.from_numpy(x.copy()), sr


def mel_filterbank(sr, n_fft, n_mels):
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    pts = mel2hz(np.linspace(0.0, hz2mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = pts[i:i + 3]
        fb[:, i] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
    if (fb.max(axis=0) == 0.0).any():
        import warnings
        warnings.warn(f'At least one mel filterbank has all zero values. The value for `n_mels` ({n_mels}) may be set too high. '
                      f'Or, the value for `n_freqs` ({n_fft // 2 + 1}) may be set too low.')
    return torch.from_numpy(fb)


class LogMelFrontend(nn.Module):
    def __init__(self, sample_rate, n_fft, win_length, hop_length, n_mels):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop_length
        self.register_buffer('window', torch.hann_window(win_length))
        self.register_buffer('fb', mel_filterbank(sample_rate, n_fft, n_mels))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        feats = torch.log(torch.matmul(spec.transpose(-1, -2), self.fb) + 1e-6).transpose(-1, -2).unsqueeze(1)
        T = CFG['num_frames']
        if feats.shape[-1] < T:
            feats = F.pad(feats, (0, T - feats.shape[-1]), value=feats.min().item())
        return feats[..., :T]


class ConvFC(nn.Module):
    def __init__(self, n_classes, ch, fc_dim, dropout, n_mels=40, n_frames=101):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, ch[0], 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(ch[0], ch[1], 3, stride=2, padding=1), nn.ReLU())
        flat = ch[1] * ((n_mels + 3) // 4) * ((n_frames + 3) // 4)
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(flat, fc_dim), nn.ReLU(), nn.Dropout(dropout), nn.Linear(fc_dim, n_classes))

    def forward(self, x):
        return self.fc(self.conv(x))


def read_split(root, classes):
    val = set(open(os.path.join(root, 'validation_list.txt')).read().split())
    test = set(open(os.path.join(root, 'testing_list.txt')).read().split())
    out = {'train': [], 'valid': [], 'test': []}
    for ci, c in enumerate(classes):
        for fn in sorted(os.listdir(os.path.join(root, c))):
            rel = f'{c}/{fn}'
            wav, sr = load_wav(os.path.join(root, rel))
            wav = F.pad(wav, (0, max(0, 16000 - len(wav))))[:16000]
            out['valid' if rel in val else 'test' if rel in test else 'train'].append((wav, ci, sr, fn.split('_')[0]))
    keep = sorted({spk for _, _, _, spk in out['train']})[:CFG['data']['train_speakers']]
    out['train'] = [t for t in out['train'] if t[3] in keep]
    res = {}
    for k, v in out.items():
        res[k] = (torch.stack([a for a, _, _, _ in v]), torch.tensor([b for _, b, _, _ in v]), sorted({s for _, _, s, _ in v}))
    return res


def bar(n, width=10):
    return '█' * width


class CSVLogger:
    def __init__(self, d):
        os.makedirs(d, exist_ok=True)
        self.f = open(os.path.join(d, 'metrics.csv'), 'w', newline='')
        self.w = csv.writer(self.f)
        self.w.writerow(['epoch', 'step', 'train_acc', 'train_loss', 'valid_acc', 'valid_loss'])

    def log(self, epoch, step, **m):
        self.w.writerow([epoch, step] + [('' if m.get(k) is None else m[k]) for k in ('train_acc', 'train_loss', 'valid_acc', 'valid_loss')])
        self.f.flush()


def dump_yaml(d, ind=0):
    s = ''
    for k, v in d.items():
        if isinstance(v, dict):
            s += ' ' * ind + f'{k}:\n' + dump_yaml(v, ind + 2)
        elif isinstance(v, list):
            s += ' ' * ind + f'{k}:\n' + ''.join(' ' * ind + f'- {x}\n' for x in v)
        else:
            s += ' ' * ind + f'{k}: {v}\n'
    return s


def run_eval(model, X, Y, bs=140):
    model.eval()
    L, A = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            L += F.cross_entropy(out, Y[i:i + bs], reduction='sum').item()
            A += (out.argmax(1) == Y[i:i + bs]).sum().item()
    return L / len(X), A / len(X)


def main():
    print('Seed set to 31')
    data = read_split(CFG['data']['root'], CFG['data']['classes'])
    for k in ('train', 'valid', 'test'):
        print(f"{k:5s}: {len(data[k][1])} clips, sample rate(s) {data[k][2]}")
    fe = LogMelFrontend(**CFG['train_transform'])
    m = CFG['model']
    model = ConvFC(len(CFG['data']['classes']), m['channels'], m['fc_dim'], m['dropout'])
    print('GPU available: False, used: False')
    print('TPU available: False, using: 0 TPU cores')
    print('HPU available: False, using: 0 HPUs')
    os.makedirs('lightning_logs/version_0', exist_ok=True)
    open('lightning_logs/version_0/hparams.yaml', 'w').write(dump_yaml(CFG))
    n = sum(p.numel() for p in model.parameters())
    print()
    print('  | Name     | Type             | Params | Mode ')
    print('------------------------------------------------------')
    print('0 | fe       | LogMelFrontend   | 0      | train')
    print(f'1 | model    | ConvFC           | {n / 1e3:.1f} K | train')
    print('2 | loss_fn  | CrossEntropyLoss | 0      | train')
    print('------------------------------------------------------')
    print(f'{n / 1e3:.1f} K    Trainable params\n0         Non-trainable params\n{n / 1e3:.1f} K    Total params\n{n * 4 / 1e6:.3f}     Total estimated model params size (MB)')
    Xtr, Ytr, _ = data['train']; Xva, Yva, _ = data['valid']; Xte, Yte, _ = data['test']
    with torch.no_grad():
        Ftr, Fva, Fte = fe(Xtr), fe(Xva), fe(Xte)
    mu, sd = Ftr.mean(), Ftr.std()
    Ftr, Fva, Fte = (Ftr - mu) / sd, (Fva - mu) / sd, (Fte - mu) / sd
    opt = torch.optim.Adam(model.parameters(), lr=CFG['optim']['lr'])
    logger = CSVLogger('lightning_logs/version_0')
    bs = CFG['data']['batch_size']
    nb = (len(Xtr) + bs - 1) // bs
    step = 0
    for epoch in range(CFG['trainer']['max_epochs']):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        L, A, N = 0.0, 0, 0
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            out = model(Ftr[idx])
            loss = F.cross_entropy(out, Ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            L += loss.item() * len(idx); A += (out.argmax(1) == Ytr[idx]).sum().item(); N += len(idx)
        vl, va = run_eval(model, Fva, Yva)
        logger.log(epoch, step - 1, valid_acc=round(va, 4), valid_loss=round(vl, 4))
        logger.log(epoch, step - 1, train_acc=round(A / N, 4), train_loss=round(L / N, 4))
        dt = time.time() - t0
        print(f'Epoch {epoch}: 100%|{bar(nb)}| {nb}/{nb} [00:{dt:05.2f}<00:00, {nb / dt:.2f}it/s, v_num=0, '
              f'train_loss={L / N:.3f}, train_acc={A / N:.3f}, valid_loss={vl:.3f}, valid_acc={va:.3f}]')
    print(f"`Trainer.fit` stopped: `max_epochs={CFG['trainer']['max_epochs']}` reached.")
    tl, ta = run_eval(model, Fte, Yte)
    print('─' * 80)
    print(f"{'Test metric':>20s}{'DataLoader 0':>30s}")
    print('─' * 80)
    print(f"{'test_acc':>20s}{ta:>30.16f}")
    print(f"{'test_loss':>20s}{tl:>30.16f}")
    print('─' * 80)


if __name__ == '__main__':
    main()
'''

RUN06 = r'''
"""UrbanSound8K sound classification: log-mel CNN.
folds 1-9 -> train/val (80/20), fold 10 -> held-out test
"""
import os
import csv
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader, random_split

torch.set_num_threads(1)
torch.manual_seed(42)

ROOT = 'data/UrbanSound8K'
SR = 16000
CLIP = 2.0
N_FFT, HOP, N_MELS = 1024, 512, 40
EPOCHS = 25
BATCH = 32
LR = 3e-3

hparams = dict(sample_rate=SR, clip_seconds=CLIP, n_fft=N_FFT, hop_length=HOP, n_mels=N_MELS,
               epochs=EPOCHS, batch_size=BATCH, lr=LR, optimizer='adam', val_fraction=0.2, test_fold=10, seed=42)
with open('hparams.yaml', 'w') as f:
    for k, v in hparams.items():
        f.write(f'{k}: {v}\n')


def load_audio(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    if sr != SR:
        t_old = np.arange(len(x)) / sr
        t_new = np.arange(int(len(x) * SR / sr)) / SR
        x = np.interp(t_new, t_old, x).astype(np.float32)
    n = int(SR * CLIP)
    x = np.pad(x, (0, max(0, n - len(x))))[:n]
    return torch.from_numpy(x), sr


def mel_fb():
    m = np.linspace(0, 2595 * np.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = np.linspace(0, SR / 2, N_FFT // 2 + 1)
    return torch.tensor(np.stack([np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
                                  for i in range(N_MELS)]), dtype=torch.float32)


FB = mel_fb()
WIN = torch.hann_window(N_FFT)


def logmel(x):
    S = torch.stft(x, N_FFT, HOP, window=WIN, return_complex=True).abs() ** 2
    return torch.log(FB @ S + 1e-6)


meta = list(csv.DictReader(open(os.path.join(ROOT, 'metadata', 'UrbanSound8K.csv'))))
classes = sorted({(int(r['classID']), r['class']) for r in meta})
class_names = [c for _, c in classes]

X, y, folds = [], [], []
resampled = {}
t0 = time.time()
for r in meta:
    wav, sr = load_audio(os.path.join(ROOT, 'audio', f"fold{r['fold']}", r['slice_file_name']))
    if sr != SR:
        resampled[sr] = resampled.get(sr, 0) + 1
    X.append(logmel(wav))
    y.append(int(r['classID']))
    folds.append(int(r['fold']))
for sr, n in resampled.items():
    print(f'UserWarning: {n} files have sample rate {sr} Hz, resampled to {SR} Hz')
X = torch.stack(X).unsqueeze(1)
y = torch.tensor(y)
folds = torch.tensor(folds)
print(f'loaded {len(X)} clips in {time.time() - t0:.1f}s, features {tuple(X.shape[1:])}')

dev = folds != 10
mu, sd = X[dev].mean(), X[dev].std()
X = (X - mu) / sd
dev_ds = TensorDataset(X[dev], y[dev])
test_ds = TensorDataset(X[~dev], y[~dev])
n_val = int(0.2 * len(dev_ds))
train_ds, val_ds = random_split(dev_ds, [len(dev_ds) - n_val, n_val], generator=torch.Generator().manual_seed(42))
print(f'train {len(train_ds)} | val {len(val_ds)} | test (fold 10) {len(test_ds)}')

train_dl = DataLoader(train_ds, batch_size=BATCH, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=128)
test_dl = DataLoader(test_ds, batch_size=128)


class AudioCNN(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(), nn.MaxPool2d(2))
        self.body = nn.Sequential(nn.Conv2d(1, 16, 5, stride=2, padding=2), nn.BatchNorm2d(16), nn.ReLU(),
                                  block(16, 32), block(32, 48))
        self.head = nn.Sequential(nn.Dropout(0.3), nn.Linear(48, n_classes))

    def forward(self, x):
        return self.head(self.body(x).mean(dim=(2, 3)))


model = AudioCNN(len(class_names))
opt = torch.optim.Adam(model.parameters(), lr=LR)


def run_eval(dl):
    model.eval()
    L, C, N, P, T = 0.0, 0, 0, [], []
    with torch.no_grad():
        for xb, yb in dl:
            out = model(xb)
            L += F.cross_entropy(out, yb, reduction='sum').item()
            C += (out.argmax(1) == yb).sum().item()
            N += len(yb)
            P.append(out.argmax(1)); T.append(yb)
    return L / N, C / N, torch.cat(P), torch.cat(T)


with open('metrics.csv', 'w', newline='') as f:
    csv.writer(f).writerow(['epoch', 'train_loss', 'train_acc', 'val_loss', 'val_acc'])
for epoch in range(EPOCHS):
    model.train()
    L, C, N = 0.0, 0, 0
    for xb, yb in train_dl:
        out = model(xb)
        loss = F.cross_entropy(out, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        L += loss.item() * len(yb); C += (out.argmax(1) == yb).sum().item(); N += len(yb)
    vl, va, _, _ = run_eval(val_dl)
    print(f'Epoch {epoch}: train_loss={L / N:.3f} train_acc={C / N:.3f} valid_loss={vl:.3f} valid_acc={va:.3f}')
    with open('metrics.csv', 'a', newline='') as f:
        csv.writer(f).writerow([epoch, round(L / N, 4), round(C / N, 4), round(vl, 4), round(va, 4)])

tl, ta, P, T = run_eval(test_dl)
print(f'\nTest (fold 10): test_loss={tl:.3f} test_acc={ta:.3f}')
print('per-class accuracy (fold 10):')
for c, name in enumerate(class_names):
    m = T == c
    if m.any():
        print(f'  {name:18s} {(P[m] == c).float().mean().item():.2f}  ({m.sum().item()} clips)')
torch.save(model.state_dict(), 'us8k_cnn.pt')
'''

RUN07 = r'''
#!/usr/bin/env python3
"""Speech Commands (10 keywords) - CNN on 40 log-mel fbanks, speechbrain-style experiment folder."""
import os, sys, time, wave, logging, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HP = dict(seed=1986, data_folder='data/speech_commands', sample_rate=16000, n_fft=400, hop_length=160,
          n_mels=40, number_of_epochs=20, batch_size=64, lr=0.003, lr_final=0.0001, weight_decay=0.0001,
          dropout=0.15, channels=[16, 32, 48], words=['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go'])

torch.set_num_threads(1)
random.seed(HP['seed']); np.random.seed(HP['seed']); torch.manual_seed(HP['seed'])

logging.basicConfig(filename='log.txt', level=logging.INFO, format='%(asctime)s - %(name)s - %(levelname)s - %(message)s')
logging.getLogger().addHandler(logging.StreamHandler(sys.stdout))
log_core = logging.getLogger('speechbrain.core')
log_data = logging.getLogger('kws_prepare')
log_ckpt = logging.getLogger('speechbrain.utils.checkpoints')
log_loop = logging.getLogger('speechbrain.utils.epoch_loop')
log_train = logging.getLogger('speechbrain.utils.train_logger')


def sb_fmt(v):
    if isinstance(v, float) and 1.0 < v < 100.0:
        return f'{v:.2f}'
    if isinstance(v, float):
        return f'{v:.2e}'
    return str(v)


def train_log(stats_meta, train=None, valid=None, test=None):
    parts = [', '.join(f'{k}: {sb_fmt(v)}' for k, v in stats_meta.items())]
    for name, st in (('train', train), ('valid', valid), ('test', test)):
        if st:
            parts.append(', '.join(f'{name} {k}: {sb_fmt(v)}' for k, v in st.items()))
    line = ' - '.join(parts)
    with open('train_log.txt', 'a') as f:
        f.write(line + '\n')
    log_train.info(line)


def load_wav(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return torch.from_numpy(x.copy()), sr


def mel_filterbank(sr, n_fft, n_mels):
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    pts = mel2hz(np.linspace(0.0, hz2mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = pts[i:i + 3]
        fb[:, i] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
    return torch.from_numpy(fb)


class Fbank:
    def __init__(self, sr, n_fft, hop, n_mels):
        self.n_fft, self.hop = n_fft, hop
        self.win = torch.hann_window(n_fft)
        self.fb = mel_filterbank(sr, n_fft, n_mels)

    def __call__(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.win, return_complex=True).abs() ** 2
        return torch.log(torch.matmul(spec.transpose(-1, -2), self.fb) + 1e-6).transpose(-1, -2)


def prepare(folder, words):
    val = set(open(os.path.join(folder, 'validation_list.txt')).read().split())
    test = set(open(os.path.join(folder, 'testing_list.txt')).read().split())
    splits = {'train': [], 'valid': [], 'test': []}
    for wi, w in enumerate(words):
        for fn in sorted(os.listdir(os.path.join(folder, w))):
            rel = f'{w}/{fn}'
            sp = 'valid' if rel in val else 'test' if rel in test else 'train'
            splits[sp].append((rel, wi))
    return splits


def load_split(folder, items, fbank, sr_expected):
    X, Y = [], []
    for rel, y in items:
        wav, sr = load_wav(os.path.join(folder, rel))
        assert sr == sr_expected
        if len(wav) < sr_expected:
            wav = F.pad(wav, (0, sr_expected - len(wav)))
        X.append(fbank(wav[:sr_expected]))
        Y.append(y)
    return torch.stack(X), torch.tensor(Y)


class KWSCNN(nn.Module):
    def __init__(self, n_classes, ch, dropout):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, ch[0], 5, stride=2, padding=2), nn.BatchNorm2d(ch[0]), nn.ReLU(),
            nn.Conv2d(ch[0], ch[1], 3, stride=2, padding=1), nn.BatchNorm2d(ch[1]), nn.ReLU(),
            nn.Conv2d(ch[1], ch[2], 3, padding=1), nn.BatchNorm2d(ch[2]), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(ch[2], n_classes)

    def forward(self, x):
        return self.out(self.drop(self.features(x.unsqueeze(1))))


def evaluate(model, X, Y, bs=200):
    model.eval()
    loss, err = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            loss += F.cross_entropy(out, Y[i:i + bs], reduction='sum').item()
            err += (out.argmax(1) != Y[i:i + bs]).sum().item()
    return loss / len(X), err / len(X)


if __name__ == '__main__':
    log_core.info('Beginning experiment!')
    log_core.info('Experiment folder: results/kws_cnn/1986')
    fbank = Fbank(HP['sample_rate'], HP['n_fft'], HP['hop_length'], HP['n_mels'])
    splits = prepare(HP['data_folder'], HP['words'])
    log_data.info(f"Creating csv files: train={len(splits['train'])} valid={len(splits['valid'])} test={len(splits['test'])}")
    Xtr, Ytr = load_split(HP['data_folder'], splits['train'], fbank, HP['sample_rate'])
    Xva, Yva = load_split(HP['data_folder'], splits['valid'], fbank, HP['sample_rate'])
    Xte, Yte = load_split(HP['data_folder'], splits['test'], fbank, HP['sample_rate'])
    mean, std = Xtr.mean(dim=(0, 2), keepdim=True), Xtr.std(dim=(0, 2), keepdim=True)
    Xtr, Xva, Xte = (Xtr - mean) / std, (Xva - mean) / std, (Xte - mean) / std
    log_data.info(f'fbank features: {tuple(Xtr.shape)} (batch, n_mels, frames); global CMVN from train set')
    model = KWSCNN(len(HP['words']), HP['channels'], HP['dropout'])
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    log_core.info(f'Info: ckpt_interval_minutes arg from hparam file is used')
    log_core.info(f"{n_params / 1e3:.1f}k trainable parameters in KWSCNN")
    log_ckpt.info('Would load a checkpoint here, but none found yet.')
    opt = torch.optim.AdamW(model.parameters(), lr=HP['lr'], weight_decay=HP['weight_decay'])
    E = HP['number_of_epochs']
    best = (1e9, 0)
    best_state = None
    for epoch in range(1, E + 1):
        lr = HP['lr'] + (HP['lr_final'] - HP['lr']) * (epoch - 1) / (E - 1)
        for g in opt.param_groups:
            g['lr'] = lr
        log_loop.info(f'Going into epoch {epoch}')
        model.train()
        perm = torch.randperm(len(Xtr))
        tot, n = 0.0, 0
        for i in range(0, len(Xtr), HP['batch_size']):
            idx = perm[i:i + HP['batch_size']]
            loss = F.cross_entropy(model(Xtr[idx]), Ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(idx); n += len(idx)
        vl, ve = evaluate(model, Xva, Yva)
        train_log({'epoch': epoch, 'lr': lr}, train={'loss': tot / n}, valid={'loss': vl, 'error': ve})
        if vl < best[0]:
            best = (vl, epoch)
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
            log_ckpt.info(f'Saved an end-of-epoch checkpoint in results/kws_cnn/1986/save/CKPT+epoch_{epoch}')
    model.load_state_dict(best_state)
    log_ckpt.info(f'Loading a checkpoint from results/kws_cnn/1986/save/CKPT+epoch_{best[1]}')
    tl, te = evaluate(model, Xte, Yte)
    train_log({'Epoch loaded': best[1]}, test={'loss': tl, 'error': te})
'''

RUN08 = r'''
#!/usr/bin/env python3
"""Speech Commands 10-word KWS - TDNN / x-vector style classifier, speechbrain-like loop."""
import os, sys, wave, logging, random, traceback
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

HP = dict(seed=4242, data_folder='data/speech_commands', sample_rate=16000, win_length=400, hop_length=160,
          n_mels=40, max_frames=98, vad_threshold_db=-65.0, number_of_epochs=12, batch_size=32, lr=0.002,
          tdnn_channels=64, nonfinite_patience=3,
          words=['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go'])

torch.set_num_threads(1)
random.seed(HP['seed']); np.random.seed(HP['seed']); torch.manual_seed(HP['seed'])
logging.basicConfig(filename='log.txt', level=logging.INFO, format='%(asctime)s - %(name)s - %(levelname)s - %(message)s')
logging.captureWarnings(True)
log_core = logging.getLogger('speechbrain.core')
log_data = logging.getLogger('kws_prepare')
log_ckpt = logging.getLogger('speechbrain.utils.checkpoints')
log_loop = logging.getLogger('speechbrain.utils.epoch_loop')
log_train = logging.getLogger('speechbrain.utils.train_logger')


def sb_fmt(v):
    if isinstance(v, float) and 1.0 < v < 100.0:
        return f'{v:.2f}'
    if isinstance(v, float):
        return f'{v:.2e}'
    return str(v)


def train_log(meta, train=None, valid=None):
    parts = [', '.join(f'{k}: {sb_fmt(v)}' for k, v in meta.items())]
    for name, st in (('train', train), ('valid', valid)):
        if st:
            parts.append(', '.join(f'{name} {k}: {sb_fmt(v)}' for k, v in st.items()))
    line = ' - '.join(parts)
    with open('train_log.txt', 'a') as f:
        f.write(line + '\n')
    log_train.info(line)


def load_wav(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return torch.from_numpy(x.copy()), sr


def mel_filterbank(sr, n_fft, n_mels):
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    pts = mel2hz(np.linspace(hz2mel(20.0), hz2mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = pts[i:i + 3]
        fb[:, i] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
    return torch.from_numpy(fb)


class KWSData(Dataset):
    def __init__(self, items):
        self.items = items
        self.n_fft = 512
        self.win = torch.hann_window(HP['win_length'])
        self.fb = mel_filterbank(HP['sample_rate'], self.n_fft, HP['n_mels'])

    def __len__(self):
        return len(self.items)

    def vad_trim(self, wav):
        hop = HP['hop_length']
        frames = wav[: len(wav) // hop * hop].view(-1, hop)
        db = 10 * torch.log10(frames.pow(2).mean(1) + 1e-10)
        keep = torch.nonzero(db > HP['vad_threshold_db']).flatten()
        if len(keep) == 0:
            return wav[:self.n_fft]
        start, end = keep[0].item() * hop, (keep[-1].item() + 1) * hop
        return wav[start:max(end, start + self.n_fft)]

    def __getitem__(self, i):
        rel, y = self.items[i]
        wav, sr = load_wav(os.path.join(HP['data_folder'], rel))
        wav = self.vad_trim(wav)
        spec = torch.stft(wav, self.n_fft, HP['hop_length'], win_length=HP['win_length'], window=self.win,
                          center=False, return_complex=True).abs() ** 2
        feats = torch.log(torch.matmul(spec.T, self.fb) + 1e-6).T            # n_mels, T
        feats = (feats - feats.mean(dim=1, keepdim=True)) / feats.std(dim=1, keepdim=True)
        T = feats.shape[1]
        if T < HP['max_frames']:
            feats = F.pad(feats, (0, HP['max_frames'] - T))
        return feats[:, :HP['max_frames']], y


class TDNN(nn.Module):
    def __init__(self, n_mels, C, n_classes):
        super().__init__()
        self.blocks = nn.Sequential(
            nn.Conv1d(n_mels, C, 5, dilation=1), nn.ReLU(),
            nn.Conv1d(C, C, 3, dilation=2), nn.ReLU(),
            nn.Conv1d(C, C, 3, dilation=3), nn.ReLU(),
            nn.Conv1d(C, 2 * C, 1), nn.ReLU())
        self.emb = nn.Linear(4 * C, 128)
        self.out = nn.Linear(128, n_classes)

    def forward(self, x):
        h = self.blocks(x)
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=1)
        return self.out(F.relu(self.emb(stats)))


def prepare(folder, words):
    val = set(open(os.path.join(folder, 'validation_list.txt')).read().split())
    test = set(open(os.path.join(folder, 'testing_list.txt')).read().split())
    splits = {'train': [], 'valid': [], 'test': []}
    for wi, w in enumerate(words):
        for fn in sorted(os.listdir(os.path.join(folder, w))):
            rel = f'{w}/{fn}'
            splits['valid' if rel in val else 'test' if rel in test else 'train'].append((rel, wi))
    return splits


def main():
    log_core.info('Beginning experiment!')
    log_core.info('Experiment folder: results/tdnn_kws/4242')
    splits = prepare(HP['data_folder'], HP['words'])
    log_data.info(f"Preparing data: train={len(splits['train'])} valid={len(splits['valid'])} test={len(splits['test'])} utterances")
    g = torch.Generator(); g.manual_seed(HP['seed'])
    train_dl = DataLoader(KWSData(splits['train']), batch_size=HP['batch_size'], shuffle=True, generator=g)
    valid_dl = DataLoader(KWSData(splits['valid']), batch_size=64)
    model = TDNN(HP['n_mels'], HP['tdnn_channels'], len(HP['words']))
    log_core.info(f"{sum(p.numel() for p in model.parameters()) / 1e3:.1f}k trainable parameters in TDNN")
    log_ckpt.info('Would load a checkpoint here, but none found yet.')
    opt = torch.optim.Adam(model.parameters(), lr=HP['lr'])
    nonfinite = 0
    for epoch in range(1, HP['number_of_epochs'] + 1):
        log_loop.info(f'Going into epoch {epoch}')
        model.train()
        tot, n = 0.0, 0
        for step, (x, y) in enumerate(train_dl):
            if epoch == 1 and step == 0:
                log_data.info(f'batch feats: {tuple(x.shape)} (batch, n_mels, frames), sentence-level mean/var norm')
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            if not torch.isfinite(loss):
                nonfinite += 1
                if nonfinite > HP['nonfinite_patience']:
                    raise ValueError("Loss is not finite and patience is exhausted. To debug, wrap `fit()` with "
                                     "autograd's `detect_anomaly()`, e.g.\n\nwith torch.autograd.detect_anomaly():\n\tbrain.fit(...)")
                log_core.warning(f'Patience not yet exhausted, ignoring this batch.  (loss={loss.item()}, epoch {epoch}, step {step})')
                opt.zero_grad()
                continue
            opt.step()
            opt.zero_grad()
            tot += loss.item() * len(y); n += len(y)
        model.eval()
        vl, ve, vn = 0.0, 0, 0
        with torch.no_grad():
            for x, y in valid_dl:
                out = model(x)
                vl += F.cross_entropy(out, y, reduction='sum').item()
                ve += (out.argmax(1) != y).sum().item(); vn += len(y)
        train_log({'epoch': epoch, 'lr': HP['lr']}, train={'loss': tot / n}, valid={'loss': vl / vn, 'error': ve / vn})
        log_ckpt.info(f'Saved an end-of-epoch checkpoint in results/tdnn_kws/4242/save/CKPT+epoch_{epoch}')


if __name__ == '__main__':
    try:
        main()
    except Exception:
        log_core.error('Exception:\n' + traceback.format_exc())
        raise
'''

RUN09 = r'''
"""
keyword spotting - speech commands subset (10 words)
DS-CNN-ish model on 40-dim log-mel, 1 s clips @ 16 kHz
"""
import os, wave, time, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(1234)

cfg = json.load(open('config.json'))
WORDS = cfg['words']


def read_wav(path):
    with wave.open(path, 'rb') as f:
        sr = f.getframerate()
        pcm = np.frombuffer(f.readframes(f.getnframes()), dtype=np.int16)
    return pcm.astype(np.float32) / 32768.0, sr


def melbank(sr, n_fft, n_mels):
    to_mel = lambda f: 2595 * np.log10(1 + f / 700)
    to_hz = lambda m: 700 * (10 ** (m / 2595) - 1)
    pts = to_hz(np.linspace(to_mel(20), to_mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_mels, len(freqs)), np.float32)
    for m in range(n_mels):
        fb[m] = np.clip(np.minimum((freqs - pts[m]) / (pts[m + 1] - pts[m]), (pts[m + 2] - freqs) / (pts[m + 2] - pts[m + 1])), 0, None)
    return torch.from_numpy(fb)


FB = melbank(cfg['sample_rate'], cfg['n_fft'], cfg['n_mels'])
WIN = torch.hann_window(cfg['n_fft'])


def featurize(paths):
    feats = []
    for p in paths:
        x, sr = read_wav(os.path.join(cfg['data_dir'], p))
        if sr != cfg['sample_rate']:
            print(f'WARNING: {p} has sample rate {sr}, expected {cfg["sample_rate"]}')
        x = np.pad(x, (0, max(0, sr - len(x))))[:sr]
        S = torch.stft(torch.from_numpy(x), cfg['n_fft'], cfg['hop'], window=WIN, return_complex=True).abs() ** 2
        feats.append(torch.log(FB @ S + 1e-6))
    return torch.stack(feats).unsqueeze(1)


def label_of(p):
    return WORDS.index(p.split('/')[0])


val_files = open(os.path.join(cfg['data_dir'], 'validation_list.txt')).read().split()
test_files = open(os.path.join(cfg['data_dir'], 'testing_list.txt')).read().split()
held = set(val_files) | set(test_files)
train_files = [f'{w}/{n}' for w in WORDS for n in sorted(os.listdir(os.path.join(cfg['data_dir'], w))) if f'{w}/{n}' not in held]

t0 = time.time()
Xtr, Xva, Xte = featurize(train_files), featurize(val_files), featurize(test_files)
ytr = torch.tensor([label_of(p) for p in train_files])
yva = torch.tensor([label_of(p) for p in val_files])
yte = torch.tensor([label_of(p) for p in test_files])
mean, std = Xtr.mean(), Xtr.std()
Xtr, Xva, Xte = (Xtr - mean) / std, (Xva - mean) / std, (Xte - mean) / std
print(f'features done in {time.time() - t0:.1f}s: train {tuple(Xtr.shape)} val {tuple(Xva.shape)} test {tuple(Xte.shape)}')


def dw_block(cin, cout, stride):
    return nn.Sequential(
        nn.Conv2d(cin, cin, 3, stride=stride, padding=1, groups=cin, bias=False), nn.BatchNorm2d(cin), nn.ReLU(),
        nn.Conv2d(cin, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class DSCNN(nn.Module):
    def __init__(self, n_classes, width=48, p_drop=0.4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, width, (5, 3), stride=2, padding=(2, 1), bias=False), nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(dw_block(width, width, 2), dw_block(width, width, 1), dw_block(width, width, 1))
        self.drop = nn.Dropout(p_drop)
        self.fc = nn.Linear(width, n_classes)

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.fc(self.drop(x.mean(dim=(2, 3))))


model = DSCNN(len(WORDS), cfg['width'], cfg['dropout'])
print(f'DSCNN params: {sum(p.numel() for p in model.parameters()):,}')
opt = torch.optim.Adam(model.parameters(), lr=cfg['lr'])
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=cfg['epochs'])


def evaluate(X, y, bs):
    preds, loss = [], 0.0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(X[i:i + bs])
            loss += F.cross_entropy(out, y[i:i + bs], reduction='sum').item()
            preds.append(out.argmax(1))
    preds = torch.cat(preds)
    return loss / len(X), (preds == y).float().mean().item(), preds


history = []
for epoch in range(1, cfg['epochs'] + 1):
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(Xtr), cfg['batch_size']):
        idx = perm[i:i + cfg['batch_size']]
        out = model(Xtr[idx])
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tc += (out.argmax(1) == ytr[idx]).sum().item()
    sched.step()
    vl, va, _ = evaluate(Xva, yva, cfg['eval_batch_size'])
    history.append(dict(epoch=epoch, train_loss=tl / len(Xtr), train_acc=tc / len(Xtr), val_loss=vl, val_acc=va))
    print(f"Epoch {epoch}: train_loss={tl / len(Xtr):.3f} train_acc={tc / len(Xtr):.3f} valid_loss={vl:.3f} valid_acc={va:.3f}")

json.dump(history, open('history.json', 'w'), indent=1)
tl, ta, pred = evaluate(Xte, yte, cfg['eval_batch_size'])
print(f'\ntest_loss={tl:.3f} test_acc={ta:.3f}')
print('per-class test accuracy:')
for c, w in enumerate(WORDS):
    m = yte == c
    print(f'  {w:>6s}: {(pred[m] == c).float().mean().item():.2f}')
cm = np.zeros((len(WORDS), len(WORDS)), int)
for t, p in zip(yte.tolist(), pred.tolist()):
    cm[t, p] += 1
print('confusion (rows=true):')
print('       ' + ''.join(f'{w:>6s}' for w in WORDS))
for c, w in enumerate(WORDS):
    print(f'{w:>6s} ' + ''.join(f'{v:6d}' for v in cm[c]))
torch.save(model.state_dict(), 'dscnn_kws.pt')
'''

RUN10 = r'''
# KWS baseline: mel spectrogram -> small CNN
import os
import wave
import time
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(3)

ROOT = 'data/speech_commands'
CLASSES = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
SAMPLE_RATE = 16000
N_FFT, HOP, N_MELS = 512, 256, 40
LR = 0.01
EPOCHS = 30
BATCH_SIZE = 32


def melspectrogram(wav):
    spec = torch.stft(wav, N_FFT, HOP, window=torch.hann_window(N_FFT), return_complex=True).abs() ** 2
    return MEL_FB @ spec


def build_mel_fb():
    mel = np.linspace(0, 2595 * np.log10(1 + (SAMPLE_RATE / 2) / 700), N_MELS + 2)
    hz = 700 * (10 ** (mel / 2595) - 1)
    bins = np.floor((N_FFT + 1) * hz / SAMPLE_RATE).astype(int)
    fb = np.zeros((N_MELS, N_FFT // 2 + 1), dtype=np.float32)
    for m in range(1, N_MELS + 1):
        l, c, r = bins[m - 1], bins[m], bins[m + 1]
        for k in range(l, c):
            fb[m - 1, k] = (k - l) / max(c - l, 1)
        for k in range(c, r):
            fb[m - 1, k] = (r - k) / max(r - c, 1)
    return torch.from_numpy(fb)


MEL_FB = build_mel_fb()


def load_split(name_list):
    X, y = [], []
    for rel in name_list:
        with wave.open(os.path.join(ROOT, rel)) as w:
            a = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768
        a = np.pad(a, (0, max(0, SAMPLE_RATE - len(a))))[:SAMPLE_RATE]
        X.append(melspectrogram(torch.from_numpy(a)))
        y.append(CLASSES.index(rel.split('/')[0]))
    return torch.stack(X).unsqueeze(1), torch.tensor(y)


valid_names = open(f'{ROOT}/validation_list.txt').read().split()
test_names = open(f'{ROOT}/testing_list.txt').read().split()
skip = set(valid_names + test_names)
train_names = [f'{c}/{f}' for c in CLASSES for f in sorted(os.listdir(f'{ROOT}/{c}')) if f'{c}/{f}' not in skip]

X_train, y_train = load_split(train_names)
X_valid, y_valid = load_split(valid_names)
print('X_train', tuple(X_train.shape), 'X_valid', tuple(X_valid.shape))
print(f'feature stats: min={X_train.min().item():.3g} max={X_train.max().item():.3g} mean={X_train.mean().item():.3g} std={X_train.std().item():.3g}')


class SimpleCNN(nn.Module):
    def __init__(self, n_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.conv3 = nn.Conv2d(32, 32, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = F.relu(self.conv3(x))
        return self.fc(x.mean(dim=(2, 3)))


model = SimpleCNN(len(CLASSES))
optimizer = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9)
print(model)

for epoch in range(EPOCHS):
    model.train()
    t0 = time.time()
    order = torch.randperm(len(X_train))
    losses, correct, gnorms, g1 = [], 0, [], []
    for i in range(0, len(order), BATCH_SIZE):
        idx = order[i:i + BATCH_SIZE]
        logits = model(X_train[idx])
        loss = F.cross_entropy(logits, y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        gnorms.append(torch.norm(torch.stack([p.grad.norm() for p in model.parameters()])).item())
        g1.append(model.conv1.weight.grad.norm().item())
        optimizer.step()
        losses.append(loss.item())
        correct += (logits.argmax(1) == y_train[idx]).sum().item()
    model.eval()
    with torch.no_grad():
        vlogits = model(X_valid)
        vloss = F.cross_entropy(vlogits, y_valid).item()
        vacc = (vlogits.argmax(1) == y_valid).float().mean().item()
    print(f'epoch {epoch:02d}  loss {np.mean(losses):.4f}  acc {correct / len(X_train):.3f}  '
          f'val_loss {vloss:.4f}  val_acc {vacc:.3f}  grad_norm mean {np.mean(gnorms):.3g} max {np.max(gnorms):.3g}  '
          f'conv1 grad {np.mean(g1):.3g}  ({time.time() - t0:.1f}s)')
'''

RUN11 = r'''
import os, csv, wave, time, json
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
np.random.seed(0)

ROOT = 'data/speech_commands'
LABELS = 'data/speech_commands/crowd_labels_train.csv'
WORDS = ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']
SR, N_FFT, HOP, N_MELS = 16000, 512, 320, 32
EPOCHS, BS, LR = 50, 64, 0.05
with open('args.json', 'w') as f:
    json.dump(dict(root=ROOT, labels=LABELS, words=WORDS, sr=SR, n_fft=N_FFT, hop=HOP, n_mels=N_MELS, epochs=EPOCHS,
                   batch_size=BS, lr=LR, momentum=0.9, weight_decay=1e-3, milestones=[35], augment='shift+specaug'), f, indent=2)


def load_wav(path):
    with wave.open(path) as w:
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    x = np.pad(x, (0, max(0, SR - len(x))))[:SR]
    return torch.from_numpy(x)


def mel_fb(sr, n_fft, n_mels):
    m = np.linspace(0, 2595 * np.log10(1 + sr / 2 / 700), n_mels + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.stack([np.clip(np.minimum((f - hz[i]) / (hz[i + 1] - hz[i]), (hz[i + 2] - f) / (hz[i + 2] - hz[i + 1])), 0, None)
                   for i in range(n_mels)], 1)
    return torch.tensor(fb, dtype=torch.float32)


FB = mel_fb(SR, N_FFT, N_MELS)
WIN = torch.hann_window(N_FFT)


def logmel(wavs):
    S = torch.stft(wavs, N_FFT, HOP, window=WIN, return_complex=True).abs() ** 2
    return torch.log((S.transpose(1, 2) @ FB).transpose(1, 2) + 1e-6)


def load(items):
    X = torch.stack([load_wav(os.path.join(ROOT, p)) for p, _ in items])
    y = torch.tensor([WORDS.index(l) for _, l in items])
    return logmel(X), y


val_list = open(os.path.join(ROOT, 'validation_list.txt')).read().split()
test_list = open(os.path.join(ROOT, 'testing_list.txt')).read().split()
with open(LABELS) as f:
    train_items = [(r['path'], r['label']) for r in csv.DictReader(f)]
Xtr, ytr = load(train_items)
Xva, yva = load([(p, p.split('/')[0]) for p in val_list])
Xte, yte = load([(p, p.split('/')[0]) for p in test_list])
mu, sd = Xtr.mean(), Xtr.std()
Xtr, Xva, Xte = [((x - mu) / sd).unsqueeze(1) for x in (Xtr, Xva, Xte)]
print(f'train {tuple(Xtr.shape)}  val {tuple(Xva.shape)}  test {tuple(Xte.shape)}')
print('train label counts:', dict(zip(WORDS, torch.bincount(ytr, minlength=10).tolist())))

model = nn.Sequential(
    nn.Conv2d(1, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
    nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 32, 3, stride=2, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
    nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
    nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10))
print(model)
print('params:', sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=0.9, weight_decay=1e-3)
sched = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[35], gamma=0.1)


def augment(x):
    # random time shift + one time mask + one freq mask (SpecAugment-lite)
    x = torch.roll(x, shifts=int(torch.randint(-8, 9, (1,))), dims=-1).clone()
    B, _, Fq, T = x.shape
    t0 = torch.randint(0, T - 10, (B,)); f0 = torch.randint(0, Fq - 6, (B,))
    for b in range(B):
        x[b, :, :, t0[b]:t0[b] + torch.randint(0, 10, (1,))] = 0
        x[b, :, f0[b]:f0[b] + torch.randint(0, 6, (1,)), :] = 0
    return x


def evaluate(X, y):
    model.eval()
    with torch.no_grad():
        out = model(X)
    return F.cross_entropy(out, y).item(), (out.argmax(1) == y).float().mean().item(), out.argmax(1)


for ep in range(1, EPOCHS + 1):
    t0 = time.time()
    model.train()
    perm = torch.randperm(len(Xtr))
    tl, tc = 0.0, 0
    for i in range(0, len(Xtr), BS):
        idx = perm[i:i + BS]
        out = model(augment(Xtr[idx]))
        loss = F.cross_entropy(out, ytr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        tl += loss.item() * len(idx)
        tc += (out.argmax(1) == ytr[idx]).sum().item()
    vl, va, _ = evaluate(Xva, yva)
    print(f'epoch {ep:3d}/{EPOCHS} | lr {opt.param_groups[0]["lr"]:.4f} | train loss {tl / len(Xtr):.4f} acc {tc / len(Xtr):.3f} | val loss {vl:.4f} acc {va:.3f} | {time.time() - t0:.1f}s')
    sched.step()

tl, ta, pred = evaluate(Xte, yte)
print(f'\nTEST loss {tl:.4f} acc {ta:.3f}')
print('per-class accuracy (test):')
for c, w in enumerate(WORDS):
    m = yte == c
    print(f'  {w:6s} {(pred[m] == c).float().mean().item():.3f}  (n={m.sum().item()})')
cm = torch.zeros(10, 10, dtype=torch.long)
for t, p in zip(yte, pred):
    cm[t, p] += 1
print('confusion matrix (rows=true, cols=pred):')
print('        ' + ' '.join(f'{w[:5]:>5s}' for w in WORDS))
for c, w in enumerate(WORDS):
    print(f'  {w:5s} ' + ' '.join(f'{v:5d}' for v in cm[c].tolist()))
torch.save(model.state_dict(), 'kws_cnn.pt')
'''

RUN12 = r'''
#!/usr/bin/env python3
"""KWS with a small residual CNN, lightning-style training loop (emulated logging)."""
import os, sys, wave, time, csv, random
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CFG = {
    'seed': 7,
    'data': {'root': 'data/speech_commands', 'batch_size': 64,
             'classes': ['yes', 'no', 'up', 'down', 'left', 'right', 'on', 'off', 'stop', 'go']},
    'train_transform': {'sample_rate': 16000, 'n_fft': 400, 'win_length': 400, 'hop_length': 160, 'n_mels': 40},
    'val_transform': {'sample_rate': 8000, 'n_fft': 256, 'win_length': 256, 'hop_length': 80, 'n_mels': 40},
    'num_frames': 101,
    'model': {'name': 'ResNet8', 'channels': 24},
    'optim': {'name': 'adam', 'lr': 0.002, 'weight_decay': 0.0},
    'trainer': {'max_epochs': 15, 'accelerator': 'cpu', 'deterministic': True},
}
torch.set_num_threads(1)
random.seed(CFG['seed']); np.random.seed(CFG['seed']); torch.manual_seed(CFG['seed'])


def load_wav(path):
    with wave.open(path) as w:
        sr = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16).astype(np.float32) / 32768.0
    return torch.from_numpy(x.copy()), sr


def mel_filterbank(sr, n_fft, n_mels):
    hz2mel = lambda f: 2595.0 * np.log10(1.0 + f / 700.0)
    mel2hz = lambda m: 700.0 * (10 ** (m / 2595.0) - 1.0)
    pts = mel2hz(np.linspace(0.0, hz2mel(sr / 2), n_mels + 2))
    freqs = np.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = np.zeros((n_fft // 2 + 1, n_mels), dtype=np.float32)
    for i in range(n_mels):
        lo, c, hi = pts[i:i + 3]
        fb[:, i] = np.maximum(0, np.minimum((freqs - lo) / (c - lo), (hi - freqs) / (hi - c)))
    if (fb.max(axis=0) == 0.0).any():
        import warnings
        warnings.warn(f'At least one mel filterbank has all zero values. The value for `n_mels` ({n_mels}) may be set too high. '
                      f'Or, the value for `n_freqs` ({n_fft // 2 + 1}) may be set too low.')
    return torch.from_numpy(fb)


class LogMelFrontend(nn.Module):
    def __init__(self, sample_rate, n_fft, win_length, hop_length, n_mels):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop_length
        self.register_buffer('window', torch.hann_window(win_length))
        self.register_buffer('fb', mel_filterbank(sample_rate, n_fft, n_mels))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        feats = torch.log(torch.matmul(spec.transpose(-1, -2), self.fb) + 1e-6).transpose(-1, -2).unsqueeze(1)
        T = CFG['num_frames']
        if feats.shape[-1] < T:
            feats = F.pad(feats, (0, T - feats.shape[-1]), value=feats.min().item())
        return feats[..., :T]


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1 = nn.Conv2d(c, c, 3, padding=1, bias=False); self.b1 = nn.BatchNorm2d(c)
        self.c2 = nn.Conv2d(c, c, 3, padding=1, bias=False); self.b2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.b2(self.c2(F.relu(self.b1(self.c1(x))))))


class ResNet8(nn.Module):
    def __init__(self, n_classes, c, n_mels=40, n_frames=101):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, c, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(), nn.MaxPool2d(2))
        self.blocks = nn.Sequential(ResBlock(c), ResBlock(c))
        self.pool = nn.AdaptiveAvgPool2d((5, 6))
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(c * 30, n_classes))

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(self.pool(x))


def read_split(root, classes):
    val = set(open(os.path.join(root, 'validation_list.txt')).read().split())
    test = set(open(os.path.join(root, 'testing_list.txt')).read().split())
    out = {'train': [], 'valid': [], 'test': []}
    for ci, c in enumerate(classes):
        for fn in sorted(os.listdir(os.path.join(root, c))):
            rel = f'{c}/{fn}'
            wav, sr = load_wav(os.path.join(root, rel))
            wav = F.pad(wav, (0, max(0, 16000 - len(wav))))[:16000]
            out['valid' if rel in val else 'test' if rel in test else 'train'].append((wav, ci, sr))
    res = {}
    for k, v in out.items():
        res[k] = (torch.stack([a for a, _, _ in v]), torch.tensor([b for _, b, _ in v]), sorted({s for _, _, s in v}))
    return res


def bar(n, width=10):
    return '█' * width


class CSVLogger:
    def __init__(self, d):
        os.makedirs(d, exist_ok=True)
        self.f = open(os.path.join(d, 'metrics.csv'), 'w', newline='')
        self.w = csv.writer(self.f)
        self.w.writerow(['epoch', 'step', 'train_acc', 'train_loss', 'valid_acc', 'valid_loss'])

    def log(self, epoch, step, **m):
        self.w.writerow([epoch, step] + [('' if m.get(k) is None else m[k]) for k in ('train_acc', 'train_loss', 'valid_acc', 'valid_loss')])
        self.f.flush()


def dump_yaml(d, ind=0):
    s = ''
    for k, v in d.items():
        if isinstance(v, dict):
            s += ' ' * ind + f'{k}:\n' + dump_yaml(v, ind + 2)
        elif isinstance(v, list):
            s += ' ' * ind + f'{k}:\n' + ''.join(' ' * ind + f'- {x}\n' for x in v)
        else:
            s += ' ' * ind + f'{k}: {v}\n'
    return s


def run_eval(model, fe, X, Y, bs=100):
    model.eval()
    L, A = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out = model(fe(X[i:i + bs]))
            L += F.cross_entropy(out, Y[i:i + bs], reduction='sum').item()
            A += (out.argmax(1) == Y[i:i + bs]).sum().item()
    return L / len(X), A / len(X)


def main():
    print('Seed set to 7')
    data = read_split(CFG['data']['root'], CFG['data']['classes'])
    for k in ('train', 'valid', 'test'):
        print(f"{k:5s}: {len(data[k][1])} clips, sample rate(s) {data[k][2]}")
    train_fe = LogMelFrontend(**CFG['train_transform'])
    val_fe = LogMelFrontend(**CFG['val_transform'])
    model = ResNet8(len(CFG['data']['classes']), CFG['model']['channels'])
    print('GPU available: False, used: False')
    print('TPU available: False, using: 0 TPU cores')
    print('HPU available: False, using: 0 HPUs')
    os.makedirs('lightning_logs/version_0', exist_ok=True)
    open('lightning_logs/version_0/hparams.yaml', 'w').write(dump_yaml(CFG))
    n = sum(p.numel() for p in model.parameters())
    print()
    print('  | Name     | Type             | Params | Mode ')
    print('------------------------------------------------------')
    print('0 | train_fe | LogMelFrontend   | 0      | train')
    print('1 | val_fe   | LogMelFrontend   | 0      | train')
    print(f'2 | model    | ResNet8          | {n / 1e3:.1f} K | train')
    print('3 | loss_fn  | CrossEntropyLoss | 0      | train')
    print('------------------------------------------------------')
    print(f'{n / 1e3:.1f} K    Trainable params\n0         Non-trainable params\n{n / 1e3:.1f} K    Total params\n{n * 4 / 1e6:.3f}     Total estimated model params size (MB)')
    Xtr, Ytr, _ = data['train']; Xva, Yva, _ = data['valid']; Xte, Yte, _ = data['test']
    print(f'[debug] train batch feats {tuple(train_fe(Xtr[:64]).shape)}  valid batch feats {tuple(val_fe(Xva[:64]).shape)}')
    opt = torch.optim.Adam(model.parameters(), lr=CFG['optim']['lr'])
    logger = CSVLogger('lightning_logs/version_0')
    bs = CFG['data']['batch_size']
    nb = (len(Xtr) + bs - 1) // bs
    step = 0
    for epoch in range(CFG['trainer']['max_epochs']):
        t0 = time.time()
        model.train()
        perm = torch.randperm(len(Xtr))
        L, A, N = 0.0, 0, 0
        for i in range(0, len(Xtr), bs):
            idx = perm[i:i + bs]
            out = model(train_fe(Xtr[idx]))
            loss = F.cross_entropy(out, Ytr[idx])
            opt.zero_grad(); loss.backward(); opt.step(); step += 1
            L += loss.item() * len(idx); A += (out.argmax(1) == Ytr[idx]).sum().item(); N += len(idx)
        vl, va = run_eval(model, val_fe, Xva, Yva)
        logger.log(epoch, step - 1, valid_acc=round(va, 4), valid_loss=round(vl, 4))
        logger.log(epoch, step - 1, train_acc=round(A / N, 4), train_loss=round(L / N, 4))
        dt = time.time() - t0
        print(f'Epoch {epoch}: 100%|{bar(nb)}| {nb}/{nb} [00:{dt:05.2f}<00:00, {nb / dt:.2f}it/s, v_num=0, '
              f'train_loss={L / N:.3f}, train_acc={A / N:.3f}, valid_loss={vl:.3f}, valid_acc={va:.3f}]')
    print(f"`Trainer.fit` stopped: `max_epochs={CFG['trainer']['max_epochs']}` reached.")
    tl, ta = run_eval(model, val_fe, Xte, Yte)
    print('─' * 80)
    print(f"{'Test metric':>20s}{'DataLoader 0':>30s}")
    print('─' * 80)
    print(f"{'test_acc':>20s}{ta:>30.16f}")
    print(f"{'test_loss':>20s}{tl:>30.16f}")
    print('─' * 80)


if __name__ == '__main__':
    main()
'''

RUN01_HPARAMS = r'''
# Generated 2024-05-02 from:
# /home/ana/sb-kws/hparams/crnn.yaml
# yamllint disable
# ############################################################################
# Model: CRNN (2 conv + GRU) for keyword spotting
# Dataset: Speech Commands (10 words)
# ############################################################################

seed: 2602
__set_seed: !apply:torch.manual_seed [2602]
output_folder: results/crnn_kws/2602
save_folder: results/crnn_kws/2602/save
train_log: results/crnn_kws/2602/train_log.txt

data_folder: data/speech_commands
words: [yes, no, up, down, left, right, on, off, stop, go]

sample_rate: 16000
n_fft: 512
hop_length: 10
n_mels: 40

number_of_epochs: 15
batch_size: 32
lr: 0.8
momentum: 0.9

cnn_channels: 32
rnn_hidden: 64
dropout: 0.1
out_n_neurons: 10

epoch_counter: !new:speechbrain.utils.epoch_loop.EpochCounter
    limit: 15

compute_features: !new:speechbrain.lobes.features.Fbank
    n_mels: 40
    n_fft: 512

opt_class: !name:torch.optim.SGD
    lr: 0.8
    momentum: 0.9

tensorboard_train_logger: !new:speechbrain.utils.train_logger.TensorboardLogger
    save_dir: results/crnn_kws/2602/tensorboard

compute_cost: !name:speechbrain.nnet.losses.nll_loss
'''

RUN07_HPARAMS = r'''
# Generated 2024-03-18 from:
# /home/mkowalski/kws/hparams/train_cnn.yaml
# yamllint disable
# ############################################################################
# Model: small CNN keyword spotter on 40-dim fbanks
# Dataset: Speech Commands (10 words)
# ############################################################################

seed: 1986
__set_seed: !apply:torch.manual_seed [1986]
output_folder: results/kws_cnn/1986
save_folder: results/kws_cnn/1986/save
train_log: results/kws_cnn/1986/train_log.txt

data_folder: data/speech_commands
words: [yes, no, up, down, left, right, on, off, stop, go]

# Feature parameters
sample_rate: 16000
n_fft: 400
hop_length: 10        # ms -> 160 samples
n_mels: 40
normalize: global     # InputNormalization(norm_type=global), stats from train set

# Training parameters
number_of_epochs: 20
batch_size: 64
lr: 0.003
lr_final: 0.0001
weight_decay: 0.0001

# Model parameters
dropout: 0.15
cnn_channels: [16, 32, 48]
out_n_neurons: 10

epoch_counter: !new:speechbrain.utils.epoch_loop.EpochCounter
    limit: 20

compute_features: !new:speechbrain.lobes.features.Fbank
    n_mels: 40
    n_fft: 400

opt_class: !name:torch.optim.AdamW
    lr: 0.003
    weight_decay: 0.0001

lr_annealing: !new:speechbrain.nnet.schedulers.LinearScheduler
    initial_value: 0.003
    final_value: 0.0001
    epoch_count: 20

compute_cost: !name:speechbrain.nnet.losses.nll_loss
error_stats: !name:speechbrain.utils.metric_stats.MetricStats
    metric: !name:speechbrain.nnet.losses.classification_error
        reduction: batch
'''

RUN08_HPARAMS = r'''
# Generated 2024-06-11 from:
# /home/dlee/kws-tdnn/hparams/xvect_kws.yaml
# yamllint disable
# ############################################################################
# Model: TDNN / x-vector style classifier for keyword spotting
# Dataset: Speech Commands (10 words)
# ############################################################################

seed: 4242
__set_seed: !apply:torch.manual_seed [4242]
output_folder: results/tdnn_kws/4242
save_folder: results/tdnn_kws/4242/save
train_log: results/tdnn_kws/4242/train_log.txt

data_folder: data/speech_commands
words: [yes, no, up, down, left, right, on, off, stop, go]

# Features
sample_rate: 16000
win_length: 25      # ms
hop_length: 10      # ms
n_fft: 512
n_mels: 40
max_frames: 98
vad_threshold_db: -65.0     # energy VAD, trims leading/trailing silence

# Training
number_of_epochs: 12
batch_size: 32
lr: 0.002
nonfinite_patience: 3

# Model
tdnn_channels: 64
emb_dim: 128
out_n_neurons: 10

compute_features: !new:speechbrain.lobes.features.Fbank
    n_mels: 40
    n_fft: 512
    win_length: 25
    hop_length: 10

mean_var_norm: !new:speechbrain.processing.features.InputNormalization
    norm_type: sentence
    std_norm: True

opt_class: !name:torch.optim.Adam
    lr: 0.002

epoch_counter: !new:speechbrain.utils.epoch_loop.EpochCounter
    limit: 12
'''

RUN09_CONFIG = r'''
{
  "data_dir": "data/speech_commands",
  "words": ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"],
  "sample_rate": 16000,
  "n_fft": 480,
  "hop": 160,
  "n_mels": 40,
  "width": 32,
  "dropout": 0.4,
  "batch_size": 64,
  "eval_batch_size": 40,
  "lr": 0.003,
  "epochs": 20
}
'''


# ---------------------------------------------------------------------------
# run table
# ---------------------------------------------------------------------------
RUNS = {
    'run01': dict(script=RUN01, files={'hyperparams.yaml': RUN01_HPARAMS}, ship=False, capture=None,
                  home='/home/ana/sb-kws', truth='lr_too_high',
                  symptom='Loss dropped nicely for the first two epochs, then started bouncing around (back up to 3.5 at epoch 8) and the valid error jumps between 10% and 56% from one epoch to the next.',
                  how='SpeechBrain-style CRNN (BN conv + GRU) on Speech Commands trained with SGD momentum 0.9 at lr=0.8, constant, no warm-up. '
                      'The same script at lr=0.05 or 0.5 reaches 0% valid error; at 0.8 the per-step loss and grad-norm (tensorboard/) spike (up to 15) after an initial fall.'),
    'run02': dict(script=RUN02, files={}, ship=True, capture='train_output.log', home='/home/lucia/esc', truth='healthy',
                  symptom='Validation accuracy on ESC-10 is only ~47% after 40 epochs and still creeping up slowly - is this run ok or is something broken?',
                  how='No fault. Bi-GRU on ESC-10 (official fold split, 320/80 clips), AdamW 5e-4, batch 16, SpecAugment. Val loss falls the whole run; '
                      'a 4x larger lr saturates at the same ~50% val accuracy, so the ceiling is the data, not the setup.'),
    'run03': dict(script=RUN03, files={}, ship=True, capture='stdout.txt', home='/home/pieter/cmd-kws', truth='label_misalignment',
                  symptom="The model doesn't learn anything: train and valid loss stay at ~2.08 and accuracy ~12% in every epoch.",
                  how='files = sorted(glob(clips/*.wav)) (hash-name order) is paired by position with labels.csv rows, which are in recording-session order; '
                      'the filename column is never used, so every clip gets an unrelated label.'),
    'run04': dict(script=RUN04, files={}, ship=True, capture='train.log', home='/home/raj/kws', truth='nan_in_data',
                  symptom='Loss looks normal for the first 30 steps, then turns into nan and stays nan; val accuracy drops to 10%.',
                  how='log-mel is torch.log(mel) with no epsilon. Three training clips are shorter than 1 s and get zero-padded and one clip is digital '
                      'silence, so their all-zero frames give log(0) = -inf; the first batch containing one (step 31) makes the loss NaN and poisons the weights.'),
    'run05': dict(script=RUN05, files={}, ship=False, capture='stdout.log', home='/home/kim/kws-lowres', truth='overfitting',
                  symptom='Train accuracy is 100% but the validation loss has been going up since about epoch 9, and val accuracy is stuck around 77%.',
                  how='Only 4 training speakers (160 clips) for a 2.1M-parameter conv+FC model with no dropout, weight decay or augmentation, '
                      'Adam 2e-3 for 100 epochs.'),
    'run06': dict(script=RUN06, files={}, ship=True, capture='train.log', home='/home/t.nguyen/us8k', truth='data_leakage',
                  symptom='Validation accuracy climbs to ~90-95% (above train accuracy), but on the held-out fold 10 the same model only gets 36%.',
                  how='Folds 1-9 are split 80/20 with random_split at slice level, so the 8 slices of each source recording (fsID) sit on both '
                      'sides; validation measures recording memorisation. Fold 10 recordings are unseen.'),
    'run07': dict(script=RUN07, files={'hyperparams.yaml': RUN07_HPARAMS}, ship=False, capture=None, home='/home/mkowalski/kws', truth='healthy',
                  symptom='Is this run ok? Anything I should change before scaling it up?',
                  how='No fault. CNN on 40 log-mel fbanks with global CMVN, AdamW 3e-3 linearly annealed to 1e-4, 20 epochs.'),
    'run08': dict(script=RUN08, files={'hyperparams.yaml': RUN08_HPARAMS}, ship=False, capture=None, home='/home/dlee/kws-tdnn',
                  truth='zero_variance_statistic',
                  symptom="Training crashes in epoch 4 with 'Loss is not finite and patience is exhausted', although the first three epochs looked great.",
                  how='An all-zero (digital silence) training clip is trimmed by the energy VAD to a single 512-sample window, i.e. one fbank frame; '
                      'per-utterance mean/var normalisation then takes std over one frame -> "std(): degrees of freedom is <= 0" and NaN features. '
                      'The batch holding that clip is skipped once per epoch until nonfinite_patience=3 is exhausted.'),
    'run09': dict(script=RUN09, files={'config.json': RUN09_CONFIG}, ship=True, capture='output.log', home='/home/sofia/kws',
                  truth='eval_mode_forgotten',
                  symptom='Train accuracy gets to ~93% but validation stays around 45-50% and jumps around between epochs; the test set is just as bad.',
                  how='evaluate() runs under torch.no_grad() but never calls model.eval(): BatchNorm normalises with the statistics of each batch of the '
                      'class-sorted validation/test lists and Dropout(0.4) stays on. Adding model.eval() gives 100% val / 99.6% test with the same training.'),
    'run10': dict(script=RUN10, files={}, ship=True, capture='train.log', home='/home/omar/kws', truth='unnormalized_inputs',
                  symptom='Training is really slow and unstable: accuracy crawls up and every few epochs the loss jumps back up again.',
                  how='The network is fed the raw power mel spectrogram (no log, no normalisation: values 0..3.4e3, mean 2.7, std 31, clip levels '
                      'spread over 40 dB) into a CNN without normalisation layers, SGD lr 0.01 momentum 0.9.'),
    'run11': dict(script=RUN11, files={}, ship=False, capture='train.log', home='/home/jo/kws-crowd', truth='label_noise',
                  symptom="Training accuracy is stuck at ~58% and the train loss won't go below ~1.5 no matter how long I train.",
                  how='Training labels come from crowd_labels_train.csv in which 40% of the training clips carry a random wrong word; '
                      'validation/test use the true labels. Augmentation + a small GAP CNN keep it from memorising the wrong labels.'),
    'run12': dict(script=RUN12, files={}, ship=False, capture='stdout.log', home='/home/wei/kws-resnet', truth='preprocessing_mismatch',
                  symptom='Train accuracy hits ~100% within a few epochs, but validation is ~25% from the very first epoch and never improves.',
                  how='Validation/test features use val_transform (sample_rate 8000, n_fft 256, hop 80) while the audio is 16 kHz and training uses '
                      '16 kHz / n_fft 400 / hop 160: mel bands map to the wrong frequencies and the frame rate doubles.'),
}

SKIP_EXT = ('.pt',)


def sanitize_tree(folder, work, home):
    site = sysconfig.get_paths()['purelib']
    reps = [(work.rstrip('/') + '/', home + '/'), (work.rstrip('/'), home), (site, '/home/' + home.split('/')[2] + '/.venv/lib/python3.11/site-packages'),
            (sys.prefix, '/home/' + home.split('/')[2] + '/.venv')]
    for dp, _, fns in os.walk(folder):
        for fn in fns:
            p = os.path.join(dp, fn)
            try:
                txt = open(p, encoding='utf-8').read()
            except (UnicodeDecodeError, IsADirectoryError):
                continue
            new = txt
            for a, b in reps:
                new = new.replace(a, b)
            if new != txt:
                open(p, 'w', encoding='utf-8').write(new)


def run_one(name, spec, data_dir, work_root, runs_root):
    work = os.path.join(work_root, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.symlink(os.path.relpath(data_dir, work), os.path.join(work, 'data'))
    with open(os.path.join(work, 'train.py'), 'w') as f:
        f.write(spec['script'].lstrip('\n'))
    for fn, txt in spec['files'].items():
        with open(os.path.join(work, fn), 'w') as f:
            f.write(txt.lstrip('\n'))
    env = dict(os.environ, PYTHONHASHSEED='0', OMP_NUM_THREADS='1', MKL_NUM_THREADS='1')
    t0 = time.time()
    p = subprocess.run([sys.executable, 'train.py'], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    out = p.stdout.decode('utf-8', 'replace')
    if spec['capture']:
        with open(os.path.join(work, spec['capture']), 'w') as f:
            f.write(out)
    print(f'  {name}: exit {p.returncode} in {time.time() - t0:.0f}s', flush=True)
    dst = os.path.join(runs_root, name)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for item in os.listdir(work):
        src = os.path.join(work, item)
        if item == 'data' or (item == 'train.py' and not spec['ship']) or item.endswith(SKIP_EXT) or item == '__pycache__':
            continue
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(dst, item), ignore=shutil.ignore_patterns('*.pt', '__pycache__'))
        else:
            shutil.copy(src, os.path.join(dst, item))
    sanitize_tree(dst, work, spec['home'])
    return p.returncode, out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('runs', nargs='*', help='subset of runs (default: all)')
    ap.add_argument('--keep-data', action='store_true', help='keep the synthetic corpora in _data/ and the scratch dirs in _work/')
    args = ap.parse_args()
    data_dir = os.path.join(HERE, '_data')
    work_root = os.path.join(HERE, '_work')
    runs_root = os.path.join(HERE, 'runs')
    os.makedirs(runs_root, exist_ok=True)
    stamp = os.path.join(data_dir, '.complete')
    if not os.path.exists(stamp):
        shutil.rmtree(data_dir, ignore_errors=True)
        print('building synthetic corpora ...', flush=True)
        build_all(data_dir)
        open(stamp, 'w').write('ok\n')
    names = args.runs or sorted(RUNS)
    for name in names:
        run_one(name, RUNS[name], data_dir, work_root, runs_root)
    truth = {n: {'truth': RUNS[n]['truth'], 'symptom': RUNS[n]['symptom'], 'how': RUNS[n]['how']} for n in sorted(RUNS)}
    with open(os.path.join(HERE, 'truth.json'), 'w') as f:
        json.dump(truth, f, indent=2)
    if not args.keep_data:
        shutil.rmtree(work_root, ignore_errors=True)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == '__main__':
    main()
