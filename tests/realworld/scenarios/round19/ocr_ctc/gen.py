#!/usr/bin/env python
"""Generate CTC text-recognition / keyword-spotting run folders (see truth.json).

Every run is produced by REALLY running a user-style script (train.py / demo.py /
predict.py / infer.py) with the current python in the run folder; scripts that a
user would not hand over, data folders and checkpoints are deleted afterwards.
Usage:  python gen.py            # all runs
        python gen.py run03 run07  # only these
"""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUNS_DIR = os.path.join(HERE, "runs")

# ----------------------------------------------------------------------------------------------
# shared code blocks pasted into the user scripts
# ----------------------------------------------------------------------------------------------
SYNTH_OCR = r'''
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
'''

CRNN = r'''
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
'''

EDIT = r'''
def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]
'''

SYNTH_KWS = r'''
KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "zero", "one"]
FEAT_DIM = 20


def make_phone_table(seed):
    rs = np.random.RandomState(seed)
    letters = sorted(set("".join(KEYWORDS)))
    return {c: rs.randn(FEAT_DIM).astype(np.float32) for c in letters}


def synth_utterance(rs, table, max_words=3, noise=0.6, min_dur=2, max_dur=6):
    words = [KEYWORDS[i] for i in rs.randint(0, len(KEYWORDS), rs.randint(1, max_words + 1))]
    text = " ".join(words)
    frames = [np.zeros((rs.randint(3, 10), FEAT_DIM), np.float32)]
    for ch in text:
        if ch == " ":
            frames.append(np.zeros((rs.randint(3, 8), FEAT_DIM), np.float32))
        else:
            frames.append(np.tile(table[ch], (rs.randint(min_dur, max_dur), 1)))
    frames.append(np.zeros((rs.randint(3, 10), FEAT_DIM), np.float32))
    feats = np.concatenate(frames)
    feats = feats + rs.randn(*feats.shape).astype(np.float32) * noise
    return feats, text


def synth_corpus(n, seed, table, **kw):
    rs = np.random.RandomState(seed)
    out = [synth_utterance(rs, table, **kw) for _ in range(n)]
    return [o[0] for o in out], [o[1] for o in out]
'''


def fill(template, **blocks):
    for k, v in blocks.items():
        template = template.replace("@@%s@@" % k, v.strip("\n"))
    return template


# ----------------------------------------------------------------------------------------------
# helper used only by the generator: write synthetic crops to PNG files (the user's "dataset")
# ----------------------------------------------------------------------------------------------
def _synth_module():
    ns = {"np": np}
    exec(SYNTH_OCR, ns)
    return ns


def write_png_set(folder, imgs, texts, names):
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    for img, name in zip(imgs, names):
        Image.fromarray((img * 255).round().astype(np.uint8)).save(os.path.join(folder, name))


# ==============================================================================================
# dtrb-style trainer (deep-text-recognition-benchmark layout).  Used by run02, run06, run11.
# ==============================================================================================
TRAIN_DTRB = r'''import os
import sys
import time
import random

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

opt = @@OPT@@

@@SYNTH@@

@@CRNN@@


class SigmoidVGG(nn.Module):
    def __init__(self, num_class, hidden=64, n_mid=5):
        super().__init__()
        layers = [nn.Conv2d(1, 16, 3, 1, 1), nn.Sigmoid(), nn.MaxPool2d(2, 2)]
        for _ in range(n_mid):
            layers += [nn.Conv2d(16, 16, 3, 1, 1), nn.Sigmoid()]
        layers += [nn.Conv2d(16, 32, 3, 1, 1), nn.Sigmoid(), nn.MaxPool2d((2, 1)),
                   nn.Conv2d(32, 48, 3, 1, 1), nn.Sigmoid(), nn.MaxPool2d((4, 1))]
        self.cnn = nn.Sequential(*layers)
        self.rnn = nn.GRU(48, hidden, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(2 * hidden, num_class)

    def forward(self, x):
        f = self.cnn(x).squeeze(2).permute(0, 2, 1)
        o, _ = self.rnn(f)
        return self.fc(o)


@@EDIT@@


class CTCLabelConverter:
    def __init__(self, character):
        self.character = ["[blank]"] + list(character)
        self.dict = {c: i + 1 for i, c in enumerate(character)}

    def encode(self, texts):
        lengths = torch.tensor([len(t) for t in texts], dtype=torch.long)
        flat = torch.tensor([self.dict[c] for t in texts for c in t], dtype=torch.long)
        return flat, lengths

    def decode(self, index):
        out = []
        for seq in index.tolist():
            chars, prev = [], 0
            for k in seq:
                if k != 0 and k != prev:
                    chars.append(self.character[k])
                prev = k
            out.append("".join(chars))
        return out


def validation(model, criterion, images, labels, converter, bs=100):
    model.eval()
    n_correct, norm_ED, loss_sum, n = 0, 0.0, 0.0, 0
    preds_all, conf_all = [], []
    with torch.no_grad():
        for b in range(0, len(images), bs):
            x = images[b:b + bs]
            y = labels[b:b + bs]
            logits = model(x)
            log_probs = logits.log_softmax(2)
            text, length = converter.encode(y)
            sizes = torch.full((x.size(0),), logits.size(1), dtype=torch.long)
            loss_sum += criterion(log_probs.permute(1, 0, 2), text, sizes, length).item() * x.size(0)
            probs, index = log_probs.exp().max(2)
            preds = converter.decode(index)
            for gt, pred, p in zip(y, preds, probs):
                conf = p.cumprod(0)[-1].item()
                n_correct += pred == gt
                norm_ED += 1 - edit_distance(pred, gt) / max(len(gt), len(pred), 1)
                preds_all.append(pred)
                conf_all.append(conf)
            n += x.size(0)
    model.train()
    return loss_sum / n, 100.0 * n_correct / n, norm_ED / n, preds_all, conf_all


def train():
    exp_dir = f"./saved_models/{opt['exp_name']}"
    os.makedirs(exp_dir, exist_ok=True)
    random.seed(opt["manualSeed"])
    np.random.seed(opt["manualSeed"])
    torch.manual_seed(opt["manualSeed"])

    font = make_font(opt["character"], opt["font_seed"])
    train_x, train_y = synth_words(opt["num_train"], 1, opt["character"], font, W=opt["imgW"])
    valid_x, valid_y = synth_words(opt["num_valid"], 2, opt["character"], font, W=opt["imgW"])
    train_x = torch.from_numpy(train_x).unsqueeze(1).sub(0.5).div(0.5)
    valid_x = torch.from_numpy(valid_x).unsqueeze(1).sub(0.5).div(0.5)

    dashed = "-" * 80
    with open(f"{exp_dir}/log_dataset.txt", "a") as log:
        log.write(dashed + "\n")
        log.write(f"dataset_root: {opt['train_data']}\nopt.select_data: {opt['select_data']}\nopt.batch_ratio: {opt['batch_ratio']}\n")
        log.write(dashed + "\n")
        log.write(f"dataset_root:    {opt['train_data']}\t dataset: {opt['select_data'][0]}\n")
        log.write(f"sub-directory:\t/{opt['select_data'][0]}\t num samples: {len(train_y)}\n")
        log.write(f"num total samples of {opt['select_data'][0]}: {len(train_y)} x {opt['total_data_usage_ratio']} "
                  f"(total_data_usage_ratio) = {len(train_y)}\n")
        log.write(f"num samples of {opt['select_data'][0]} per batch: {opt['batch_size']} x 1.0 (batch_ratio) = {opt['batch_size']}\n")
        log.write(dashed + "\n")
        log.write(f"Total_batch_size: {opt['batch_size']} = {opt['batch_size']}\n")
        log.write(dashed + "\n")
        log.write(f"dataset_root:    {opt['valid_data']}\t dataset: /\n")
        log.write(f"sub-directory:\t/.\t num samples: {len(valid_y)}\n")
        log.write(dashed + "\n")

    converter = CTCLabelConverter(opt["character"])
    opt["num_class"] = len(converter.character)
    if opt["FeatureExtraction"] == "VGG":
        model = CRNN(opt["num_class"], opt["hidden_size"], opt.get("dropout", 0.0))
    else:
        model = SigmoidVGG(opt["num_class"], opt["hidden_size"], opt.get("n_mid", 5))
    model.train()
    n_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
    print(model)
    print("Trainable params num : ", n_params)

    criterion = nn.CTCLoss(zero_infinity=True)
    if opt["adam"]:
        optimizer = torch.optim.Adam(model.parameters(), lr=opt["lr"], betas=(opt["beta1"], 0.999))
    else:
        optimizer = torch.optim.Adadelta(model.parameters(), lr=opt["lr"], rho=opt["rho"], eps=opt["eps"])
    print("Optimizer:")
    print(optimizer)

    with open(f"{exp_dir}/opt.txt", "a") as f:
        f.write("------------ Options -------------\n")
        for k, v in opt.items():
            if k in ("font_seed", "num_train", "num_valid"):
                continue
            f.write(f"{k}: {v}\n")
        f.write("---------------------------------------\n")

    writer = None
    if opt.get("tensorboard"):
        from torch.utils.tensorboard import SummaryWriter
        writer = SummaryWriter(log_dir=f"{exp_dir}/tb")

    start_time = time.time()
    best_accuracy, best_norm_ED = -1, -1
    loss_sum, loss_n = 0.0, 0
    perm, pos = torch.randperm(len(train_x)), 0
    for iteration in range(opt["num_iter"]):
        if pos + opt["batch_size"] > len(train_x):
            perm, pos = torch.randperm(len(train_x)), 0
        idx = perm[pos:pos + opt["batch_size"]]
        pos += opt["batch_size"]
        image = train_x[idx]
        text, length = converter.encode([train_y[i] for i in idx])

        preds = model(image).log_softmax(2)
        preds_size = torch.full((image.size(0),), preds.size(1), dtype=torch.long)
        cost = criterion(preds.permute(1, 0, 2), text, preds_size, length)

        model.zero_grad()
        cost.backward()
        if opt["grad_clip"] > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), opt["grad_clip"])
        if writer is not None and iteration % 5 == 0:
            writer.add_scalar("train/loss", cost.item(), iteration + 1)
            total = 0.0
            for name, p in model.named_parameters():
                if p.grad is not None and "weight" in name:
                    g = p.grad.norm().item()
                    total += g ** 2
                    writer.add_scalar(f"grad_norm/{name}", g, iteration + 1)
            writer.add_scalar("train/grad_norm_total", total ** 0.5, iteration + 1)
        optimizer.step()
        loss_sum += cost.item()
        loss_n += 1

        if (iteration + 1) % opt["valInterval"] == 0 or iteration == 0:
            elapsed_time = time.time() - start_time
            with open(f"{exp_dir}/log_train.txt", "a") as log:
                valid_loss, current_accuracy, current_norm_ED, preds_v, confs = validation(
                    model, criterion, valid_x, valid_y, converter)
                loss_log = (f"[{iteration + 1}/{opt['num_iter']}] Train loss: {loss_sum / loss_n:0.5f}, "
                            f"Valid loss: {valid_loss:0.5f}, Elapsed_time: {elapsed_time:0.5f}")
                loss_sum, loss_n = 0.0, 0
                current_model_log = f"{'Current_accuracy':17s}: {current_accuracy:0.3f}, {'Current_norm_ED':17s}: {current_norm_ED:0.2f}"
                if current_accuracy > best_accuracy:
                    best_accuracy = current_accuracy
                    torch.save(model.state_dict(), f"{exp_dir}/best_accuracy.pth")
                if current_norm_ED > best_norm_ED:
                    best_norm_ED = current_norm_ED
                    torch.save(model.state_dict(), f"{exp_dir}/best_norm_ED.pth")
                best_model_log = f"{'Best_accuracy':17s}: {best_accuracy:0.3f}, {'Best_norm_ED':17s}: {best_norm_ED:0.2f}"
                loss_model_log = f"{loss_log}\n{current_model_log}\n{best_model_log}"
                print(loss_model_log)
                log.write(loss_model_log + "\n")
                head = f"{'Ground Truth':25s} | {'Prediction':25s} | Confidence Score & T/F"
                predicted_result_log = f"{dashed}\n{head}\n{dashed}\n"
                for gt, pred, confidence in zip(valid_y[:5], preds_v[:5], confs[:5]):
                    predicted_result_log += f"{gt:25s} | {pred:25s} | {confidence:0.4f}\t{str(pred == gt)}\n"
                predicted_result_log += f"{dashed}"
                print(predicted_result_log)
                log.write(predicted_result_log + "\n")
                if writer is not None:
                    writer.add_scalar("valid/loss", valid_loss, iteration + 1)
                    writer.add_scalar("valid/accuracy", current_accuracy, iteration + 1)
                    writer.add_scalar("valid/norm_ED", current_norm_ED, iteration + 1)
    if writer is not None:
        writer.close()
    print("end the training")


if __name__ == "__main__":
    train()
'''

DEMO_DTRB = r'''import os
import string
import argparse

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

from train import CRNN, CTCLabelConverter, opt as train_opt

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument("--image_folder", default="demo_image/")
parser.add_argument("--saved_model", default=f"saved_models/{train_opt['exp_name']}/best_accuracy.pth")
parser.add_argument("--batch_size", type=int, default=192)
parser.add_argument("--imgH", type=int, default=16)
parser.add_argument("--imgW", type=int, default=64)
parser.add_argument("--character", default=train_opt["character"])
parser.add_argument("--hidden_size", type=int, default=train_opt["hidden_size"])
parser.add_argument("--dropout", type=float, default=train_opt["dropout"])
opt = parser.parse_args()


def load_image(path):
    img = Image.open(path).convert("L").resize((opt.imgW, opt.imgH), Image.BICUBIC)
    x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0)
    return x.sub(0.5).div(0.5).unsqueeze(0)


def demo():
    converter = CTCLabelConverter(opt.character)
    num_class = len(converter.character)
    model = CRNN(num_class, opt.hidden_size, opt.dropout)
    print("loading pretrained model from %s" % opt.saved_model)
    model.load_state_dict(torch.load(opt.saved_model, map_location="cpu"))

    paths = sorted(os.path.join(opt.image_folder, f) for f in os.listdir(opt.image_folder) if f.endswith(".png"))
    dashed_line = "-" * 80
    head = f"{'image_path':25s}\t{'predicted_labels':25s}\tconfidence score"
    print(f"{dashed_line}\n{head}\n{dashed_line}")
    with torch.no_grad():
        for b in range(0, len(paths), opt.batch_size):
            batch_paths = paths[b:b + opt.batch_size]
            image = torch.stack([load_image(p) for p in batch_paths])
            preds = model(image)
            preds_prob = F.softmax(preds, dim=2)
            preds_max_prob, preds_index = preds_prob.max(dim=2)
            preds_str = converter.decode(preds_index)
            for img_name, pred, pred_max_prob in zip(batch_paths, preds_str, preds_max_prob):
                confidence_score = pred_max_prob.cumprod(dim=0)[-1]
                print(f"{img_name:25s}\t{pred:25s}\t{confidence_score:0.4f}")


if __name__ == "__main__":
    demo()
'''

OPT_DTRB_BASE = dict(
    exp_name="None-VGG-BiGRU-CTC-Seed1111", train_data="data_lmdb_release/training",
    valid_data="data_lmdb_release/validation", manualSeed=1111, workers=4, batch_size=64,
    num_iter=600, valInterval=50, saved_model="", FT=False, adam=False, lr=1, beta1=0.9, rho=0.95,
    eps=1e-08, grad_clip=5, baiduCTC=False, select_data=["SynthGlyph"], batch_ratio=["1"],
    total_data_usage_ratio=1.0, batch_max_length=6, imgH=16, imgW=64, rgb=False,
    character="0123456789abcdefghij", sensitive=False, PAD=False, data_filtering_off=False,
    Transformation="None", FeatureExtraction="VGG", SequenceModeling="BiGRU", Prediction="CTC",
    num_fiducial=20, input_channel=1, output_channel=48, hidden_size=64, num_gpu=0,
    font_seed=11, num_train=4000, num_valid=300)


def opt_literal(d):
    lines = ["{"]
    for k, v in d.items():
        lines.append("    %r: %r," % (k, v))
    lines.append("}")
    return "\n".join(lines)


# ==============================================================================================
# crnn.pytorch-style trainer (run01)
# ==============================================================================================
TRAIN_CRNN_PT = r'''from __future__ import print_function
import argparse
import random
import time

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import torch.utils.data

torch.set_num_threads(1)

parser = argparse.ArgumentParser()
parser.add_argument('--trainRoot', default='data/lmdb_train', help='path to dataset')
parser.add_argument('--valRoot', default='data/lmdb_val', help='path to dataset')
parser.add_argument('--workers', type=int, help='number of data loading workers', default=0)
parser.add_argument('--batchSize', type=int, default=32, help='input batch size')
parser.add_argument('--imgH', type=int, default=16, help='the height of the input image to network')
parser.add_argument('--imgW', type=int, default=64, help='the width of the input image to network')
parser.add_argument('--nh', type=int, default=64, help='size of the lstm hidden state')
parser.add_argument('--niter', type=int, default=16, help='number of epochs to train for')
parser.add_argument('--lr', type=float, default=0.002, help='learning rate for Critic, not used by adadealta')
parser.add_argument('--beta1', type=float, default=0.5, help='beta1 for adam. default=0.5')
parser.add_argument('--cuda', action='store_true', help='enables cuda')
parser.add_argument('--ngpu', type=int, default=0, help='number of GPUs to use')
parser.add_argument('--pretrained', default='', help="path to pretrained model (to continue training)")
parser.add_argument('--alphabet', type=str, default='0123456789abcdefghijklmnop')
parser.add_argument('--expr_dir', default='expr', help='Where to store samples and models')
parser.add_argument('--displayInterval', type=int, default=5, help='Interval to be displayed')
parser.add_argument('--n_test_disp', type=int, default=4, help='Number of samples to display when test')
parser.add_argument('--valInterval', type=int, default=19, help='Interval to be displayed')
parser.add_argument('--saveInterval', type=int, default=500, help='Interval to be displayed')
parser.add_argument('--adam', action='store_true', default=True, help='Whether to use adam (default is rmsprop)')
parser.add_argument('--adadelta', action='store_true', help='Whether to use adadelta (default is rmsprop)')
parser.add_argument('--keep_ratio', action='store_true', help='whether to keep ratio for image resize')
parser.add_argument('--manualSeed', type=int, default=1234, help='reproduce experiemnt')
parser.add_argument('--random_sample', action='store_true', help='whether to sample the dataset with random sampler')
opt = parser.parse_args()
print(opt)

random.seed(opt.manualSeed)
np.random.seed(opt.manualSeed)
torch.manual_seed(opt.manualSeed)
print("Random Seed: ", opt.manualSeed)

@@SYNTH@@


class GlyphLmdbDataset(torch.utils.data.Dataset):
    """stand-in for lmdbDataset: the lmdb was written folder by folder (plates/ then words/)."""

    def __init__(self, root, n_per_source, seed):
        font = make_font(opt.alphabet, 5)
        x1, y1 = synth_words(n_per_source, seed, opt.alphabet[:10], font)
        x2, y2 = synth_words(n_per_source, seed + 100, opt.alphabet[10:], font)
        self.images = np.concatenate([x1, x2])
        self.labels = y1 + y2

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        img = torch.from_numpy(self.images[index]).unsqueeze(0).sub(0.5).div(0.5)
        return img, self.labels[index]


train_dataset = GlyphLmdbDataset(opt.trainRoot, 600, 1)
assert train_dataset
if opt.random_sample:
    sampler = torch.utils.data.RandomSampler(train_dataset)
else:
    sampler = None
train_loader = torch.utils.data.DataLoader(
    train_dataset, batch_size=opt.batchSize,
    shuffle=False, sampler=sampler,
    num_workers=int(opt.workers))
test_dataset = GlyphLmdbDataset(opt.valRoot, 150, 2)

nclass = len(opt.alphabet) + 1
nc = 1


class strLabelConverter(object):
    def __init__(self, alphabet):
        self.alphabet = alphabet + '-'
        self.dict = {}
        for i, char in enumerate(alphabet):
            self.dict[char] = i + 1

    def encode(self, text):
        length = [len(s) for s in text]
        text = [self.dict[c] for s in text for c in s]
        return torch.IntTensor(text), torch.IntTensor(length)

    def decode(self, t, length, raw=False):
        if raw:
            return ''.join([self.alphabet[i - 1] if i > 0 else '-' for i in t])
        char_list = []
        for i in range(length):
            if t[i] != 0 and (not (i > 0 and t[i - 1] == t[i])):
                char_list.append(self.alphabet[t[i] - 1])
        return ''.join(char_list)


converter = strLabelConverter(opt.alphabet)
criterion = nn.CTCLoss(zero_infinity=True)


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('Conv') != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find('BatchNorm') != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


@@CRNN@@


crnn = CRNN(nclass, opt.nh)
crnn.apply(weights_init)
print(crnn)


class averager(object):
    def __init__(self):
        self.reset()

    def add(self, v):
        self.n_count += 1
        self.sum += float(v)

    def reset(self):
        self.n_count = 0
        self.sum = 0

    def val(self):
        return self.sum / self.n_count if self.n_count else 0


loss_avg = averager()
if opt.adam:
    optimizer = optim.Adam(crnn.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))
elif opt.adadelta:
    optimizer = optim.Adadelta(crnn.parameters())
else:
    optimizer = optim.RMSprop(crnn.parameters(), lr=opt.lr)


def val(net, dataset, criterion):
    print('Start val')
    net.eval()
    data_loader = torch.utils.data.DataLoader(dataset, shuffle=True, batch_size=100)
    n_correct = 0
    loss_avg = averager()
    raws, shown = [], 0
    with torch.no_grad():
        for cpu_images, cpu_texts in data_loader:
            batch_size = cpu_images.size(0)
            t, l = converter.encode(cpu_texts)
            preds = net(cpu_images).log_softmax(2).permute(1, 0, 2)
            preds_size = torch.IntTensor([preds.size(0)] * batch_size)
            cost = criterion(preds, t, preds_size, l)
            loss_avg.add(cost)
            _, preds = preds.max(2)
            preds = preds.transpose(1, 0).contiguous()
            for p, target in zip(preds, cpu_texts):
                sim = converter.decode(p.tolist(), len(p))
                if sim == target:
                    n_correct += 1
                if shown < opt.n_test_disp:
                    raws.append((converter.decode(p.tolist(), len(p), raw=True), sim, target))
                    shown += 1
    for raw_pred, pred, gt in raws:
        print('%-20s => %-20s, gt: %-20s' % (raw_pred, pred, gt))
    accuracy = n_correct / float(len(dataset))
    print('Test loss: %f, accuray: %f' % (loss_avg.val(), accuracy))
    net.train()


def trainBatch(net, criterion, optimizer, cpu_images, cpu_texts):
    batch_size = cpu_images.size(0)
    t, l = converter.encode(cpu_texts)
    preds = net(cpu_images).log_softmax(2).permute(1, 0, 2)
    preds_size = torch.IntTensor([preds.size(0)] * batch_size)
    cost = criterion(preds, t, preds_size, l)
    net.zero_grad()
    cost.backward()
    optimizer.step()
    return cost


for epoch in range(opt.niter):
    train_iter = iter(train_loader)
    i = 0
    while i < len(train_loader):
        crnn.train()
        cpu_images, cpu_texts = next(train_iter)
        cost = trainBatch(crnn, criterion, optimizer, cpu_images, cpu_texts)
        loss_avg.add(cost)
        i += 1

        if i % opt.displayInterval == 0:
            print('[%d/%d][%d/%d] Loss: %f' %
                  (epoch, opt.niter, i, len(train_loader), loss_avg.val()))
            loss_avg.reset()

        if i % opt.valInterval == 0:
            val(crnn, test_dataset, criterion)
'''

# ==============================================================================================
# PaddleOCR-style trainer + infer (run04)
# ==============================================================================================
PADDLE_CFG = """Global:
  use_gpu: false
  epoch_num: 10
  log_smooth_window: 20
  print_batch_step: 10
  save_model_dir: ./output/rec_tiny_crnn_plate/
  save_epoch_step: 3
  eval_batch_step: [0, 100]
  cal_metric_during_train: true
  pretrained_model:
  checkpoints:
  save_inference_dir:
  use_visualdl: false
  infer_img: ./test_crops/
  character_dict_path: @@DICT@@
  max_text_length: 6
  infer_mode: false
  use_space_char: false
  save_res_path: ./output/rec/predicts_tiny_crnn_plate.txt

Optimizer:
  name: Adam
  beta1: 0.9
  beta2: 0.999
  lr:
    name: Cosine
    learning_rate: 0.004
    warmup_epoch: 0
  regularizer:
    name: L2
    factor: 0

Architecture:
  model_type: rec
  algorithm: CRNN
  Transform:
  Backbone:
    name: TinyVGG
    channels: [16, 32, 48]
  Neck:
    name: SequenceEncoder
    encoder_type: rnn
    hidden_size: 64
  Head:
    name: CTCHead
    fc_decay: 0

Loss:
  name: CTCLoss

PostProcess:
  name: CTCLabelDecode

Metric:
  name: RecMetric
  main_indicator: acc

Train:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/plates/
    label_file_list: ["./train_data/plates/rec_gt_train.txt"]
    transforms:
      - DecodeImage:
          img_mode: GRAY
          channel_first: False
      - CTCLabelEncode:
      - RecResizeImg:
          image_shape: [1, 16, 64]
      - KeepKeys:
          keep_keys: ['image', 'label', 'length']
  loader:
    shuffle: True
    batch_size_per_card: 32
    drop_last: True
    num_workers: 4

Eval:
  dataset:
    name: SimpleDataSet
    data_dir: ./train_data/plates/
    label_file_list: ["./train_data/plates/rec_gt_val.txt"]
    transforms:
      - DecodeImage:
          img_mode: GRAY
          channel_first: False
      - CTCLabelEncode:
      - RecResizeImg:
          image_shape: [1, 16, 64]
      - KeepKeys:
          keep_keys: ['image', 'label', 'length']
  loader:
    shuffle: False
    drop_last: False
    batch_size_per_card: 100
    num_workers: 2
"""

TRAIN_PADDLE = r'''import os
import sys
import time
import math
import datetime
import logging

import numpy as np
import torch
import torch.nn as nn
import yaml

torch.set_num_threads(1)
torch.manual_seed(2022)

cfg = yaml.safe_load(open(sys.argv[1]))
G = cfg["Global"]
os.makedirs(G["save_model_dir"], exist_ok=True)
logger = logging.getLogger("ppocr")
logger.setLevel(logging.INFO)
fmt = logging.Formatter("[%(asctime)s] %(name)s %(levelname)s: %(message)s", datefmt="%Y/%m/%d %H:%M:%S")
for h in (logging.FileHandler(os.path.join(G["save_model_dir"], "train.log"), mode="w"), logging.StreamHandler()):
    h.setFormatter(fmt)
    logger.addHandler(h)

@@SYNTH@@

@@CRNN@@

@@EDIT@@


def print_dict(d, delimiter=0):
    for k, v in d.items():
        if isinstance(v, dict):
            logger.info("{}{} : ".format(delimiter * " ", k))
            print_dict(v, delimiter + 4)
        elif isinstance(v, list) and len(v) >= 1 and isinstance(v[0], dict):
            logger.info("{}{} : ".format(delimiter * " ", k))
            for value in v:
                print_dict(value, delimiter + 4)
        else:
            logger.info("{}{} : {}".format(delimiter * " ", k, v))


print_dict(cfg)
chars = [l.rstrip("\n") for l in open(G["character_dict_path"], encoding="utf-8") if l.rstrip("\n")]
char2idx = {c: i + 1 for i, c in enumerate(chars)}
logger.info("train with character dict {} ({} chars)".format(G["character_dict_path"], len(chars)))

TRUE_CHARSET = "0123456789ABCEHKMPTX"
font = make_font(TRUE_CHARSET, 21)
tr_x, tr_y = synth_words(3200, 1, TRUE_CHARSET, font, minlen=4, maxlen=6)
va_x, va_y = synth_words(300, 2, TRUE_CHARSET, font, minlen=4, maxlen=6)
tr_x = torch.from_numpy(tr_x).unsqueeze(1).sub(0.5).div(0.5)
va_x = torch.from_numpy(va_x).unsqueeze(1).sub(0.5).div(0.5)

bs = cfg["Train"]["loader"]["batch_size_per_card"]
steps_per_epoch = len(tr_x) // bs
epochs = G["epoch_num"]
total_steps = steps_per_epoch * epochs
logger.info("train dataloader has {} iters".format(steps_per_epoch))
logger.info("valid dataloader has {} iters".format(math.ceil(len(va_x) / 100)))
logger.info("During the training process, after the {}th iteration, an evaluation is run every {} iterations".format(*G["eval_batch_step"]))

model = CRNN(len(chars) + 1, cfg["Architecture"]["Neck"]["hidden_size"])
base_lr = cfg["Optimizer"]["lr"]["learning_rate"]
optimizer = torch.optim.Adam(model.parameters(), lr=base_lr, betas=(cfg["Optimizer"]["beta1"], cfg["Optimizer"]["beta2"]))
ctc = nn.CTCLoss(blank=0, reduction="none", zero_infinity=True)


def encode(texts):
    return (torch.tensor([char2idx[c] for t in texts for c in t]), torch.tensor([len(t) for t in texts]))


def decode(logits):
    probs = logits.softmax(2)
    conf, idx = probs.max(2)
    res = []
    for seq, cf in zip(idx.tolist(), conf):
        out, scores, prev = [], [], 0
        for k, s in zip(seq, cf.tolist()):
            if k != 0 and k != prev:
                out.append(chars[k - 1])
                scores.append(s)
            prev = k
        res.append(("".join(out), float(np.mean(scores)) if scores else 0.0))
    return res


def evaluate():
    model.eval()
    t0 = time.time()
    with torch.no_grad():
        res = decode(model(va_x))
    model.train()
    acc = np.mean([p == g for (p, _), g in zip(res, va_y)])
    ned = 1 - np.mean([edit_distance(p, g) / max(len(p), len(g), 1) for (p, _), g in zip(res, va_y)])
    return acc, ned, len(va_x) / (time.time() - t0)


best = {"acc": 0.0}
global_step = 0
win_loss, win_acc, win_ned, win_time, win_reader = [], [], [], [], []
t_start = time.time()
for epoch in range(1, epochs + 1):
    perm = torch.randperm(len(tr_x))
    for b in range(steps_per_epoch):
        t_batch = time.time()
        idx = perm[b * bs:(b + 1) * bs]
        x = tr_x[idx]
        y = [tr_y[i] for i in idx]
        lr = 0.5 * base_lr * (1 + math.cos(math.pi * global_step / total_steps))
        for g in optimizer.param_groups:
            g["lr"] = lr
        t_read = time.time() - t_batch
        logits = model(x)
        tgt, tl = encode(y)
        loss = ctc(logits.log_softmax(2).permute(1, 0, 2), tgt, torch.full((len(idx),), logits.size(1), dtype=torch.long), tl).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1
        res = decode(logits.detach())
        win_loss.append(loss.item())
        win_acc.append(np.mean([p == g for (p, _), g in zip(res, y)]))
        win_ned.append(1 - np.mean([edit_distance(p, g) / max(len(p), len(g), 1) for (p, _), g in zip(res, y)]))
        win_time.append(time.time() - t_batch)
        win_reader.append(t_read)
        for w in (win_loss, win_acc, win_ned, win_time, win_reader):
            del w[:-G["log_smooth_window"]]
        if global_step % G["print_batch_step"] == 0:
            avg_batch = np.mean(win_time)
            eta = datetime.timedelta(seconds=int(avg_batch * (total_steps - global_step)))
            logger.info("epoch: [{}/{}], global_step: {}, lr: {:.6f}, acc: {:.6f}, norm_edit_dis: {:.6f}, loss: {:.6f}, "
                        "avg_reader_cost: {:.5f} s, avg_batch_cost: {:.5f} s, avg_samples: {}, ips: {:.5f} samples/s, eta: {}".format(
                            epoch, epochs, global_step, lr, np.mean(win_acc), np.mean(win_ned), np.median(win_loss),
                            np.mean(win_reader), avg_batch, float(bs), bs / avg_batch, eta))
        if global_step > G["eval_batch_step"][0] and global_step % G["eval_batch_step"][1] == 0:
            acc, ned, fps = evaluate()
            logger.info("cur metric, acc: {}, norm_edit_dis: {}, fps: {}".format(acc, ned, fps))
            if acc >= best["acc"]:
                best = {"acc": acc, "is_float16": False, "norm_edit_dis": ned, "fps": fps, "best_epoch": epoch}
                torch.save(model.state_dict(), os.path.join(G["save_model_dir"], "best_accuracy.pth"))
                logger.info("save best model is to {}best_accuracy".format(G["save_model_dir"]))
            logger.info("best metric, " + ", ".join("{}: {}".format(k, v) for k, v in best.items()))
    torch.save(model.state_dict(), os.path.join(G["save_model_dir"], "latest.pth"))
    logger.info("save model in {}latest".format(G["save_model_dir"]))
    if epoch % G["save_epoch_step"] == 0:
        logger.info("save model in {}iter_epoch_{}".format(G["save_model_dir"], epoch))
logger.info("best metric, " + ", ".join("{}: {}".format(k, v) for k, v in best.items()))
'''

INFER_PADDLE = r'''import os
import sys
import logging

import numpy as np
import torch
import yaml
from PIL import Image

torch.set_num_threads(1)
cfg = yaml.safe_load(open(sys.argv[1]))
G = cfg["Global"]
logger = logging.getLogger("ppocr")
logger.setLevel(logging.INFO)
h = logging.StreamHandler(sys.stdout)
h.setFormatter(logging.Formatter("[%(asctime)s] %(name)s %(levelname)s: %(message)s", datefmt="%Y/%m/%d %H:%M:%S"))
logger.addHandler(h)

import torch.nn as nn
@@CRNN@@

chars = [l.rstrip("\n") for l in open(G["character_dict_path"], encoding="utf-8") if l.rstrip("\n")]
model = CRNN(len(chars) + 1, cfg["Architecture"]["Neck"]["hidden_size"])
model.load_state_dict(torch.load(G["pretrained_model"] + ".pth", map_location="cpu"))
logger.info("load pretrain successful from {}".format(G["pretrained_model"]))
model.eval()
out = open(G["save_res_path"], "w")
for name in sorted(os.listdir(G["infer_img"])):
    path = os.path.join(G["infer_img"], name)
    logger.info("infer_img: {}".format(path))
    img = np.asarray(Image.open(path).convert("L").resize((64, 16)), dtype=np.float32) / 255.0
    x = torch.from_numpy(img)[None, None].sub(0.5).div(0.5)
    with torch.no_grad():
        probs = model(x).softmax(2)[0]
    conf, idx = probs.max(1)
    text, scores, prev = [], [], 0
    for k, s in zip(idx.tolist(), conf.tolist()):
        if k != 0 and k != prev:
            text.append(chars[k - 1])
            scores.append(s)
        prev = k
    score = float(np.mean(scores)) if scores else 0.0
    logger.info("\t result: {}\t{}".format("".join(text), score))
    out.write("{}\t{}\t{}\n".format(path, "".join(text), score))
out.close()
logger.info("success!")
'''

# ==============================================================================================
# label_out_of_range (run08): plain user trainer for meter-digit strings
# ==============================================================================================
TRAIN_METER = r'''import logging
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

@@SYNTH@@

@@CRNN@@

@@EDIT@@


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
'''

# ==============================================================================================
# overfitting (run05): plain user trainer, CSV metrics
# ==============================================================================================
TRAIN_OVERFIT = r'''import csv
import json
import time

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
cfg = json.load(open("config.json"))
torch.manual_seed(cfg["seed"])

@@SYNTH@@

@@CRNN@@

@@EDIT@@

ALPHABET = cfg["alphabet"]
font = make_font(ALPHABET, 3)
x_tr, y_tr = synth_words(cfg["n_train"], 1, ALPHABET, font)
x_va, y_va = synth_words(cfg["n_val"], 2, ALPHABET, font)
x_tr = (torch.from_numpy(x_tr).unsqueeze(1) - 0.5) / 0.5
x_va = (torch.from_numpy(x_va).unsqueeze(1) - 0.5) / 0.5
c2i = {c: i + 1 for i, c in enumerate(ALPHABET)}


def targets(texts):
    return torch.tensor([c2i[c] for t in texts for c in t]), torch.tensor([len(t) for t in texts])


def greedy(logits):
    out = []
    for seq in logits.argmax(-1).tolist():
        s, prev = [], 0
        for k in seq:
            if k and k != prev:
                s.append(ALPHABET[k - 1])
            prev = k
        out.append("".join(s))
    return out


model = CRNN(len(ALPHABET) + 1, hidden=cfg["hidden"])
opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
ctc = nn.CTCLoss(zero_infinity=True)
print("params:", sum(p.numel() for p in model.parameters()), "train:", len(y_tr), "val:", len(y_va))

f = open("metrics.csv", "w", newline="")
w = csv.writer(f)
w.writerow(["epoch", "train_loss", "val_loss", "train_cer", "val_cer", "val_wer", "time_s"])
t_all = time.time()
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    perm = torch.randperm(len(x_tr))
    losses = []
    for b in range(0, len(perm), cfg["batch_size"]):
        idx = perm[b:b + cfg["batch_size"]]
        tg, tl = targets([y_tr[i] for i in idx])
        lp = model(x_tr[idx]).log_softmax(-1).permute(1, 0, 2)
        loss = ctc(lp, tg, torch.full((len(idx),), lp.size(0), dtype=torch.long), tl)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        lv = model(x_va)
        tg, tl = targets(y_va)
        val_loss = ctc(lv.log_softmax(-1).permute(1, 0, 2), tg, torch.full((len(y_va),), lv.size(1), dtype=torch.long), tl).item()
        pv = greedy(lv)
        pt = greedy(model(x_tr))
    cer = lambda P, Y: sum(edit_distance(p, y) for p, y in zip(P, Y)) / sum(len(y) for y in Y)
    val_cer, train_cer = cer(pv, y_va), cer(pt, y_tr)
    val_wer = float(np.mean([p != y for p, y in zip(pv, y_va)]))
    w.writerow([epoch, round(float(np.mean(losses)), 5), round(val_loss, 5), round(train_cer, 4), round(val_cer, 4),
                round(val_wer, 4), round(time.time() - t_all, 1)])
    f.flush()
    if epoch % 10 == 0 or epoch == 1:
        print(f"epoch {epoch:3d} | train_loss {np.mean(losses):.4f} | val_loss {val_loss:.4f} | "
              f"train CER {train_cer:.3f} | val CER {val_cer:.3f} | val WER {val_wer:.3f}", flush=True)
    if epoch % 50 == 0:
        print("  GT        PRED")
        for y, p in list(zip(y_va, pv))[:6]:
            print(f"  {y:9s} {p}")
torch.save(model.state_dict(), "crnn_last.pt")
'''

# ==============================================================================================
# EasyOCR-trainer-style (run10, label misalignment) -- shipped
# ==============================================================================================
EASYOCR_CFG = """number: '0123456789'
symbol: ''
lang_char: 'abcdefghijklmnopqrstuvwxyz'
experiment_name: 'en_receipts'
train_data: 'all_data'
valid_data: 'all_data/en_val'
manualSeed: 1111
workers: 0
batch_size: 64
num_iter: 500
valInterval: 50
saved_model: ''
FT: False
optim: False # default is Adadelta
lr: 1.
beta1: 0.9
rho: 0.95
eps: 0.00000001
grad_clip: 5
#Data processing
select_data: 'en_train'
batch_ratio: '1'
total_data_usage_ratio: 1.0
batch_max_length: 6
imgH: 16
imgW: 64
rgb: False
contrast_adjust: False
sensitive: False
PAD: False
data_filtering_off: False
# Model Architecture
Transformation: 'None'
FeatureExtraction: 'VGG'
SequenceModeling: 'BiGRU'
Prediction: 'CTC'
num_fiducial: 20
input_channel: 1
output_channel: 48
hidden_size: 64
decode: 'greedy'
new_prediction: False
freeze_FeatureFeatureExtraction: False
freeze_SequenceModeling: False
"""

TRAIN_EASYOCR = r'''import os
import sys
import time
import random

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.utils.data
import yaml
from PIL import Image

torch.set_num_threads(1)


class AttrDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self


def get_config(file_path):
    with open(file_path, "r", encoding="utf8") as stream:
        opt = yaml.safe_load(stream)
    opt = AttrDict(opt)
    if opt.lang_char == "None":
        characters = ""
        opt.character = characters
    else:
        opt.character = opt.number + opt.symbol + opt.lang_char
    os.makedirs(f"./saved_models/{opt.experiment_name}", exist_ok=True)
    return opt


class OCRDataset(torch.utils.data.Dataset):
    def __init__(self, root, opt):
        self.root = root
        self.opt = opt
        df = pd.read_csv(os.path.join(root, "labels.csv"), sep="^([^,]+),", engine="python",
                         usecols=["filename", "words"], keep_default_na=False)
        self.image_files = sorted(f for f in os.listdir(root) if f.endswith(".png"))
        self.labels = df["words"].astype(str).tolist()
        self.nSamples = len(self.image_files)

    def __len__(self):
        return self.nSamples

    def __getitem__(self, index):
        img = Image.open(os.path.join(self.root, self.image_files[index])).convert("L")
        label = self.labels[index]
        if not self.opt.sensitive:
            label = label.lower()
        return img, label


class AlignCollate:
    def __init__(self, imgH=32, imgW=100):
        self.imgH, self.imgW = imgH, imgW

    def __call__(self, batch):
        images, labels = zip(*batch)
        t = [torch.from_numpy(np.asarray(im.resize((self.imgW, self.imgH), Image.BICUBIC), dtype=np.float32) / 255.0)
             for im in images]
        return torch.stack(t).unsqueeze(1).sub(0.5).div(0.5), list(labels)


@@CRNN@@

@@EDIT@@


class CTCLabelConverter:
    def __init__(self, character):
        self.character = ["[blank]"] + list(character)
        self.dict = {c: i + 1 for i, c in enumerate(character)}

    def encode(self, text):
        length = [len(s) for s in text]
        return torch.IntTensor([self.dict[c] for s in text for c in s]), torch.IntTensor(length)

    def decode_greedy(self, text_index, length):
        texts = []
        for seq in text_index.tolist():
            t, prev = [], 0
            for k in seq:
                if k != 0 and k != prev:
                    t.append(self.character[k])
                prev = k
            texts.append("".join(t))
        return texts


def validation(model, criterion, evaluation_loader, converter, opt):
    n_correct, norm_ED, length_of_data = 0, 0, 0
    valid_loss, nb = 0.0, 0
    all_preds, all_labels, all_conf = [], [], []
    for image_tensors, labels in evaluation_loader:
        batch_size = image_tensors.size(0)
        length_of_data += batch_size
        text_for_loss, length_for_loss = converter.encode(labels)
        with torch.no_grad():
            preds = model(image_tensors)
            preds_size = torch.IntTensor([preds.size(1)] * batch_size)
            cost = criterion(preds.log_softmax(2).permute(1, 0, 2), text_for_loss, preds_size, length_for_loss)
            preds_prob = preds.softmax(2)
            preds_max_prob, preds_index = preds_prob.max(2)
        preds_str = converter.decode_greedy(preds_index, preds_size)
        valid_loss += cost.item()
        nb += 1
        for gt, pred, pmp in zip(labels, preds_str, preds_max_prob):
            if pred == gt:
                n_correct += 1
            norm_ED += 1 - edit_distance(pred, gt) / max(len(gt), len(pred), 1)
            all_preds.append(pred)
            all_labels.append(gt)
            all_conf.append(pmp.cumprod(0)[-1].item())
    accuracy = n_correct / float(length_of_data) * 100
    norm_ED = norm_ED / float(length_of_data)
    return valid_loss / nb, accuracy, norm_ED, all_preds, all_conf, all_labels


def train(opt):
    random.seed(opt.manualSeed)
    np.random.seed(opt.manualSeed)
    torch.manual_seed(opt.manualSeed)
    log_dataset = open(f"./saved_models/{opt.experiment_name}/log_dataset.txt", "a", encoding="utf8")
    train_dataset = OCRDataset(os.path.join(opt.train_data, opt.select_data), opt)
    dashed_line = "-" * 80
    log_dataset.write(f"{dashed_line}\ndataset_root: {opt.train_data}\nopt.select_data: {[opt.select_data]}\nopt.batch_ratio: {[opt.batch_ratio]}\n{dashed_line}\n")
    log_dataset.write(f"dataset_root:    {opt.train_data}\t dataset: {opt.select_data}\n")
    log_dataset.write(f"sub-directory:\t/{opt.select_data}\t num samples: {len(train_dataset)}\n{dashed_line}\n")
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=opt.batch_size, shuffle=True,
                                               num_workers=int(opt.workers), collate_fn=AlignCollate(opt.imgH, opt.imgW),
                                               drop_last=True)
    valid_dataset = OCRDataset(opt.valid_data, opt)
    valid_loader = torch.utils.data.DataLoader(valid_dataset, batch_size=100, shuffle=True,
                                               num_workers=int(opt.workers), collate_fn=AlignCollate(opt.imgH, opt.imgW))
    log_dataset.write(f"dataset_root:    {opt.valid_data}\t dataset: /\nsub-directory:\t/.\t num samples: {len(valid_dataset)}\n{dashed_line}\n")
    log_dataset.close()

    converter = CTCLabelConverter(opt.character)
    opt.num_class = len(converter.character)
    model = CRNN(opt.num_class, opt.hidden_size)
    model.train()
    criterion = nn.CTCLoss(zero_infinity=True)
    filtered_parameters = [p for p in model.parameters() if p.requires_grad]
    print(f"Trainable params num : {sum(p.numel() for p in filtered_parameters)}")
    if opt.optim == "adam":
        optimizer = torch.optim.Adam(filtered_parameters)
    else:
        optimizer = torch.optim.Adadelta(filtered_parameters, lr=opt.lr, rho=opt.rho, eps=opt.eps)
    print("Optimizer:")
    print(optimizer)

    with open(f"./saved_models/{opt.experiment_name}/opt.txt", "a", encoding="utf8") as opt_file:
        opt_log = "------------ Options -------------\n"
        for k, v in opt.items():
            opt_log += f"{str(k)}: {str(v)}\n"
        opt_log += "---------------------------------------\n"
        print(opt_log)
        opt_file.write(opt_log)

    start_time = time.time()
    best_accuracy, best_norm_ED = -1, -1
    iteration = 0
    loss_sum, loss_n = 0.0, 0
    train_iter = iter(train_loader)
    while True:
        try:
            image, labels = next(train_iter)
        except StopIteration:
            train_iter = iter(train_loader)
            image, labels = next(train_iter)
        text, length = converter.encode(labels)
        batch_size = image.size(0)
        preds = model(image).log_softmax(2)
        preds_size = torch.IntTensor([preds.size(1)] * batch_size)
        cost = criterion(preds.permute(1, 0, 2), text, preds_size, length)
        model.zero_grad()
        cost.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), opt.grad_clip)
        optimizer.step()
        loss_sum += cost.item()
        loss_n += 1

        if (iteration % opt.valInterval == 0) and (iteration != 0):
            elapsed_time = time.time() - start_time
            with open(f"./saved_models/{opt.experiment_name}/log_train.txt", "a", encoding="utf8") as log:
                model.eval()
                valid_loss, current_accuracy, current_norm_ED, preds_v, confidence_score, labels_v = validation(
                    model, criterion, valid_loader, converter, opt)
                model.train()
                loss_log = f"[{iteration}/{opt.num_iter}] Train loss: {loss_sum / loss_n:0.5f}, Valid loss: {valid_loss:0.5f}, Elapsed_time: {elapsed_time:0.5f}"
                loss_sum, loss_n = 0.0, 0
                current_model_log = f"{'Current_accuracy':17s}: {current_accuracy:0.3f}, {'Current_norm_ED':17s}: {current_norm_ED:0.4f}"
                if current_accuracy > best_accuracy:
                    best_accuracy = current_accuracy
                    torch.save(model.state_dict(), f"./saved_models/{opt.experiment_name}/best_accuracy.pth")
                if current_norm_ED > best_norm_ED:
                    best_norm_ED = current_norm_ED
                    torch.save(model.state_dict(), f"./saved_models/{opt.experiment_name}/best_norm_ED.pth")
                best_model_log = f"{'Best_accuracy':17s}: {best_accuracy:0.3f}, {'Best_norm_ED':17s}: {best_norm_ED:0.4f}"
                loss_model_log = f"{loss_log}\n{current_model_log}\n{best_model_log}"
                print(loss_model_log)
                log.write(loss_model_log + "\n")
                head = f"{'Ground Truth':25s} | {'Prediction':25s} | Confidence Score & T/F"
                predicted_result_log = f"{dashed_line}\n{head}\n{dashed_line}\n"
                for gt, pred, confidence in zip(labels_v[:5], preds_v[:5], confidence_score[:5]):
                    predicted_result_log += f"{gt:25s} | {pred:25s} | {confidence:0.4f}\t{str(pred == gt)}\n"
                predicted_result_log += f"{dashed_line}"
                print(predicted_result_log)
                log.write(predicted_result_log + "\n")
                print("validation time: ", time.time() - start_time - elapsed_time)
                log.write(f"validation time:  {time.time() - start_time - elapsed_time}\n")
        if iteration == opt.num_iter:
            print("end the training")
            break
        iteration += 1


if __name__ == "__main__":
    opt = get_config(sys.argv[1] if len(sys.argv) > 1 else "config_files/en_receipts_config.yaml")
    train(opt)
'''

# ==============================================================================================
# preprocessing mismatch (run12): trainer + predict.py -- shipped
# ==============================================================================================
TRAIN_INV = r'''import os
import time
import yaml

import numpy as np
import torch
import torch.nn as nn
from PIL import Image

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))
torch.manual_seed(cfg["seed"])


def load_crop(path, h, w):
    img = Image.open(path).convert("L").resize((w, h), Image.BILINEAR)
    arr = np.asarray(img, dtype=np.float32) / 255.0
    arr = 1.0 - arr
    return (arr - 0.5) / 0.5


def load_split(folder):
    items = [l.rstrip("\n").split("\t") for l in open(os.path.join(folder, "gt.txt"), encoding="utf-8")]
    x = np.stack([load_crop(os.path.join(folder, f), cfg["img_h"], cfg["img_w"]) for f, _ in items])
    return torch.from_numpy(x).unsqueeze(1), [t for _, t in items]


@@CRNN@@

@@EDIT@@

charset = open(cfg["charset"], encoding="utf-8").read().strip()
c2i = {c: i + 1 for i, c in enumerate(charset)}


def decode(logits):
    prob, idx = logits.softmax(-1).max(-1)
    res = []
    for seq, p in zip(idx.tolist(), prob):
        s, prev = [], 0
        for k in seq:
            if k and k != prev:
                s.append(charset[k - 1])
            prev = k
        res.append(("".join(s), p.prod().item()))
    return res


x_tr, y_tr = load_split(cfg["train_dir"])
x_va, y_va = load_split(cfg["val_dir"])
model = CRNN(len(charset) + 1, cfg["hidden"], cfg["dropout"])
opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg["lr"], total_steps=cfg["epochs"] * (len(x_tr) // cfg["batch_size"]))
ctc = nn.CTCLoss(zero_infinity=True)
log = open("train_log.txt", "w")
best_cer = 1e9
for epoch in range(1, cfg["epochs"] + 1):
    model.train()
    t0 = time.time()
    perm = torch.randperm(len(x_tr))
    tot = 0.0
    nb = len(x_tr) // cfg["batch_size"]
    for b in range(nb):
        idx = perm[b * cfg["batch_size"]:(b + 1) * cfg["batch_size"]]
        ys = [y_tr[i] for i in idx]
        tg = torch.tensor([c2i[c] for t in ys for c in t])
        tl = torch.tensor([len(t) for t in ys])
        lp = model(x_tr[idx]).log_softmax(-1).permute(1, 0, 2)
        loss = ctc(lp, tg, torch.full((len(idx),), lp.size(0), dtype=torch.long), tl)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        tot += loss.item()
    model.eval()
    with torch.no_grad():
        pv = decode(model(x_va))
    cer = sum(edit_distance(p, y) for (p, _), y in zip(pv, y_va)) / sum(len(y) for y in y_va)
    wer = float(np.mean([p != y for (p, _), y in zip(pv, y_va)]))
    line = f"epoch {epoch:02d}  loss {tot / nb:.4f}  val_CER {cer:.4f}  val_WER {wer:.4f}  lr {sched.get_last_lr()[0]:.2e}  {time.time() - t0:.1f}s"
    if cer < best_cer:
        best_cer = cer
        torch.save(model.state_dict(), cfg["checkpoint"])
        line += "  *saved*"
    print(line, flush=True)
    log.write(line + "\n")
log.close()
'''

PREDICT_INV = r'''import os
import sys
import yaml

import numpy as np
import torch
import torch.nn as nn
from PIL import Image

torch.set_num_threads(1)
cfg = yaml.safe_load(open("config.yaml"))

@@CRNN@@

charset = open(cfg["charset"], encoding="utf-8").read().strip()


def preprocess(path):
    img = Image.open(path).convert("L").resize((cfg["img_w"], cfg["img_h"]), Image.BILINEAR)
    x = np.asarray(img, dtype=np.float32) / 255.0
    x = (x - 0.5) / 0.5
    return torch.from_numpy(x)[None, None]


model = CRNN(len(charset) + 1, cfg["hidden"], cfg["dropout"])
model.load_state_dict(torch.load(cfg["checkpoint"], map_location="cpu"))
model.eval()

folder = sys.argv[1] if len(sys.argv) > 1 else "samples"
gt = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(folder, "gt.txt"), encoding="utf-8"))
print(f"{'file':22s} | {'Ground Truth':12s} | {'Prediction':12s} | Confidence")
print("-" * 66)
n_ok = 0
for name in sorted(gt):
    with torch.no_grad():
        prob, idx = model(preprocess(os.path.join(folder, name))).softmax(-1).max(-1)
    s, prev = [], 0
    for k in idx[0].tolist():
        if k and k != prev:
            s.append(charset[k - 1])
        prev = k
    pred = "".join(s)
    n_ok += pred == gt[name]
    print(f"{name:22s} | {gt[name]:12s} | {pred:12s} | {prob[0].prod().item():.4f}")
print("-" * 66)
print(f"exact match: {n_ok}/{len(gt)}")
'''

# ==============================================================================================
# keyword spotting on feature frames (run03 shipped, run07 not shipped, run09 shipped)
# ==============================================================================================
TRAIN_KWS_SUBSAMPLE = r'''import time
import math

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

CONFIG = {
    "seed": 7,
    "n_train": 2400,
    "n_dev": 240,
    "max_words": 3,
    "subsample": 4,
    "hidden": 64,
    "batch_size": 32,
    "lr": 1e-3,
    "epochs": 5,
    "log_interval": 10,
}

@@SYNTH@@


class StackFrames(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x, lengths):
        B, T, D = x.shape
        T2 = T // self.k
        x = x[:, :T2 * self.k].reshape(B, T2, D * self.k)
        return x, lengths // self.k


class KWSModel(nn.Module):
    def __init__(self, n_tokens, k, hidden):
        super().__init__()
        self.stack = StackFrames(k)
        self.proj = nn.Sequential(nn.Linear(FEAT_DIM * k, 96), nn.LayerNorm(96), nn.ReLU())
        self.gru = nn.GRU(96, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, n_tokens)

    def forward(self, x, lengths):
        x, lengths = self.stack(x, lengths)
        h, _ = self.gru(self.proj(x))
        return self.out(h), lengths


TOKENS = ["<blank>", " "] + sorted(set("".join(KEYWORDS)))
tok2id = {t: i for i, t in enumerate(TOKENS)}


def collate(feats, texts):
    lens = torch.tensor([len(f) for f in feats])
    x = torch.zeros(len(feats), int(lens.max()), FEAT_DIM)
    for i, f in enumerate(feats):
        x[i, :len(f)] = torch.from_numpy(f)
    y = torch.tensor([tok2id[c] for t in texts for c in t])
    ylen = torch.tensor([len(t) for t in texts])
    return x, lens, y, ylen


def greedy(logits, lengths):
    res = []
    for seq, L in zip(logits.argmax(-1).tolist(), lengths.tolist()):
        s, prev = [], 0
        for k in seq[:L]:
            if k != prev and k != 0:
                s.append(TOKENS[k])
            prev = k
        res.append("".join(s).strip())
    return res


def wer(hyps, refs):
    import difflib
    errs = n = 0
    for h, r in zip(hyps, refs):
        hw, rw = h.split(), r.split()
        sm = difflib.SequenceMatcher(a=rw, b=hw)
        errs += max(len(rw), len(hw)) - sum(b.size for b in sm.get_matching_blocks())
        n += len(rw)
    return errs / max(n, 1)


torch.manual_seed(CONFIG["seed"])
table = make_phone_table(CONFIG["seed"])
tr_feats, tr_text = synth_corpus(CONFIG["n_train"], 1, table, max_words=CONFIG["max_words"])
dev_feats, dev_text = synth_corpus(CONFIG["n_dev"], 2, table, max_words=CONFIG["max_words"])
print(f"train utts {len(tr_text)}  dev utts {len(dev_text)}  frames/utt {np.mean([len(f) for f in tr_feats]):.1f}  "
      f"chars/utt {np.mean([len(t) for t in tr_text]):.1f}")

model = KWSModel(len(TOKENS), CONFIG["subsample"], CONFIG["hidden"])
optimizer = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
ctc_loss = nn.CTCLoss(blank=0)

step = 0
for epoch in range(1, CONFIG["epochs"] + 1):
    order = np.random.RandomState(epoch).permutation(len(tr_text))
    t0 = time.time()
    ep_loss = []
    for b in range(0, len(order), CONFIG["batch_size"]):
        ids = order[b:b + CONFIG["batch_size"]]
        x, xl, y, yl = collate([tr_feats[i] for i in ids], [tr_text[i] for i in ids])
        logits, out_len = model(x, xl)
        loss = ctc_loss(logits.log_softmax(-1).transpose(0, 1), y, out_len, yl)
        optimizer.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.step()
        step += 1
        ep_loss.append(loss.item())
        if step % CONFIG["log_interval"] == 0 or step <= 5:
            print(f"epoch {epoch} step {step:4d}  loss {loss.item():.4f}  grad_norm {gnorm.item():.3f}  lr {CONFIG['lr']:.1e}", flush=True)
    model.eval()
    with torch.no_grad():
        x, xl, y, yl = collate(dev_feats, dev_text)
        logits, out_len = model(x, xl)
        dev_loss = ctc_loss(logits.log_softmax(-1).transpose(0, 1), y, out_len, yl).item()
        hyps = greedy(logits, out_len)
    model.train()
    print(f"=== epoch {epoch}  train_loss {np.mean(ep_loss):.4f}  dev_loss {dev_loss:.4f}  dev_WER {wer(hyps, dev_text):.3f}  "
          f"({time.time() - t0:.1f}s)", flush=True)
    for h, r in list(zip(hyps, dev_text))[:3]:
        print(f"    REF: {r!r:24s} HYP: {h!r}")
'''

TRAIN_KWS_LR = r'''import os
import time
import yaml

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
cfg = yaml.safe_load(open("conf/train_kws_ctc.yaml"))
torch.manual_seed(cfg["seed"])

@@SYNTH@@


class ConvGRU(nn.Module):
    def __init__(self, n_out, hidden, layers):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(FEAT_DIM, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU())
        self.gru = nn.GRU(64, hidden, num_layers=layers, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, n_out)

    def forward(self, x):
        h = self.conv(x.transpose(1, 2)).transpose(1, 2)
        return self.fc(self.gru(h)[0])


@@EDIT@@

units = ["<b>", "<sp>"] + sorted(set("".join(KEYWORDS)))
os.makedirs(cfg["exp_dir"], exist_ok=True)
with open(os.path.join(cfg["exp_dir"], "units.txt"), "w") as f:
    for i, u in enumerate(units):
        f.write(f"{u} {i}\n")
sym = {u: i for i, u in enumerate(units)}
to_ids = lambda t: [sym["<sp>"] if c == " " else sym[c] for c in t]


def batchify(feats, texts):
    lens = torch.tensor([len(f) for f in feats])
    x = torch.zeros(len(feats), int(lens.max()), FEAT_DIM)
    for i, f in enumerate(feats):
        x[i, :len(f)] = torch.from_numpy(f)
    return x, lens, torch.tensor([i for t in texts for i in to_ids(t)]), torch.tensor([len(t) for t in texts])


def decode(logits, lens):
    out = []
    for seq, L in zip(logits.argmax(-1).tolist(), lens.tolist()):
        s, prev = [], 0
        for k in seq[:L]:
            if k != prev and k != 0:
                s.append(" " if units[k] == "<sp>" else units[k])
            prev = k
        out.append("".join(s).strip())
    return out


table = make_phone_table(cfg["seed"])
tr_x, tr_y = synth_corpus(cfg["data"]["num_train"], 1, table, max_words=cfg["data"]["max_words"])
cv_x, cv_y = synth_corpus(cfg["data"]["num_cv"], 2, table, max_words=cfg["data"]["max_words"])
model = ConvGRU(len(units), cfg["model"]["hidden"], cfg["model"]["num_layers"])
oc = cfg["optim"]
optimizer = torch.optim.SGD(model.parameters(), lr=oc["lr"], momentum=oc["momentum"], weight_decay=oc["weight_decay"])
ctc = nn.CTCLoss(blank=0, zero_infinity=True)
logf = open(os.path.join(cfg["exp_dir"], "train.log"), "w")


def log(msg):
    print(msg, flush=True)
    logf.write(msg + "\n")


log(f"model params: {sum(p.numel() for p in model.parameters())}  train utts: {len(tr_y)}  cv utts: {len(cv_y)}")
step = 0
bs = cfg["data"]["batch_size"]
for epoch in range(cfg["max_epoch"]):
    order = np.random.RandomState(100 + epoch).permutation(len(tr_y))
    t0 = time.time()
    tot, n = 0.0, 0
    for b in range(0, len(order) - bs + 1, bs):
        ids = order[b:b + bs]
        x, xl, y, yl = batchify([tr_x[i] for i in ids], [tr_y[i] for i in ids])
        loss = ctc(model(x).log_softmax(-1).transpose(0, 1), y, xl, yl)
        optimizer.zero_grad()
        loss.backward()
        if oc.get("grad_clip"):
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), oc["grad_clip"])
        else:
            gn = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]))
        optimizer.step()
        step += 1
        tot += loss.item()
        n += 1
        if step % cfg["log_interval"] == 0 or step <= 8:
            log(f"Epoch {epoch} Batch {step} loss {loss.item():.6f} grad_norm {gn.item():.4f} lr {optimizer.param_groups[0]['lr']:.8f} rank 0")
    model.eval()
    with torch.no_grad():
        x, xl, y, yl = batchify(cv_x, cv_y)
        lo = model(x)
        cv_loss = ctc(lo.log_softmax(-1).transpose(0, 1), y, xl, yl).item()
        hyp = decode(lo, xl)
    model.train()
    cer = sum(edit_distance(h, r) for h, r in zip(hyp, cv_y)) / sum(len(r) for r in cv_y)
    werr = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyp, cv_y)) / sum(len(r.split()) for r in cv_y)
    log(f"Epoch {epoch} CV info cv_loss {cv_loss:.6f} CER {cer * 100:.2f} % WER {werr * 100:.2f} % train_loss {tot / n:.6f} time {time.time() - t0:.1f}s")
    for h, r in list(zip(hyp, cv_y))[:3]:
        log(f"  ref: {r}")
        log(f"  hyp: {h}")
logf.close()
'''

KWS_LR_YAML = """seed: 777
exp_dir: exp/kws_ctc_convgru
max_epoch: 4
log_interval: 10
data:
  feat_type: fbank
  num_mel_bins: 20
  num_train: 2400
  num_cv: 300
  max_words: 4
  batch_size: 32
model:
  encoder: conv1d+bigru
  hidden: 64
  num_layers: 2
optim:
  name: sgd
  lr: 0.4
  momentum: 0.9
  weight_decay: 0.0
  grad_clip: 50
decoding:
  method: ctc_greedy_search
"""

TRAIN_KWS_NOISY = r'''import csv
import time
import random

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)
random.seed(0)
np.random.seed(0)
torch.manual_seed(0)

@@SYNTH@@

@@EDIT@@

BATCH = 8
LR = 4e-4
EPOCHS = 5
EVAL_EVERY = 75
VOCAB = ["_", "|"] + sorted(set("".join(KEYWORDS)))


def text_to_ids(t):
    return [VOCAB.index("|" if c == " " else c) for c in t]


class TinyKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.front = nn.Sequential(
            nn.Conv1d(FEAT_DIM, 48, 3, padding=1), nn.BatchNorm1d(48), nn.ReLU(), nn.Dropout(0.2),
            nn.Conv1d(48, 48, 3, padding=1), nn.BatchNorm1d(48), nn.ReLU())
        self.rnn = nn.GRU(48, 48, batch_first=True, bidirectional=True)
        self.head = nn.Linear(96, len(VOCAB))

    def forward(self, x):
        x = self.front(x.transpose(1, 2)).transpose(1, 2)
        return self.head(self.rnn(x)[0])


def pad(batch):
    L = max(len(f) for f, _ in batch)
    x = torch.zeros(len(batch), L, FEAT_DIM)
    for i, (f, _) in enumerate(batch):
        x[i, :len(f)] = torch.from_numpy(f)
    xl = torch.tensor([len(f) for f, _ in batch])
    y = torch.tensor([i for _, t in batch for i in text_to_ids(t)])
    yl = torch.tensor([len(t) for _, t in batch])
    return x, xl, y, yl


def greedy(lp, xl):
    hyps = []
    for seq, L in zip(lp.argmax(-1).tolist(), xl.tolist()):
        s, prev = [], 0
        for k in seq[:L]:
            if k != prev and k != 0:
                s.append(" " if VOCAB[k] == "|" else VOCAB[k])
            prev = k
        hyps.append(" ".join("".join(s).split()))
    return hyps


table = make_phone_table(42)
train = list(zip(*synth_corpus(3000, 11, table, max_words=3, noise=0.9)))
dev = list(zip(*synth_corpus(300, 12, table, max_words=3, noise=0.9)))
model = TinyKWS()
opt = torch.optim.Adam(model.parameters(), lr=LR)
ctc = nn.CTCLoss(zero_infinity=True)

out = open("metrics.csv", "w", newline="")
w = csv.writer(out)
w.writerow(["step", "epoch", "train_loss", "dev_loss", "dev_cer", "dev_wer", "keyword_acc"])
step = 0
running = []
t0 = time.time()
for epoch in range(EPOCHS):
    random.shuffle(train)
    for b in range(0, len(train) - BATCH + 1, BATCH):
        x, xl, y, yl = pad(train[b:b + BATCH])
        loss = ctc(model(x).log_softmax(-1).transpose(0, 1), y, xl, yl)
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        running.append(loss.item())
        if step % EVAL_EVERY == 0:
            model.eval()
            with torch.no_grad():
                x, xl, y, yl = pad(dev)
                lp = model(x).log_softmax(-1)
                dev_loss = ctc(lp.transpose(0, 1), y, xl, yl).item()
                hyps = greedy(lp, xl)
            model.train()
            refs = [t for _, t in dev]
            cer = sum(edit_distance(h, r) for h, r in zip(hyps, refs)) / sum(len(r) for r in refs)
            wer = sum(edit_distance(h.split(), r.split()) for h, r in zip(hyps, refs)) / sum(len(r.split()) for r in refs)
            kw_acc = np.mean([h == r for h, r in zip(hyps, refs)])
            w.writerow([step, epoch, round(float(np.mean(running)), 4), round(dev_loss, 4), round(cer, 4), round(wer, 4), round(float(kw_acc), 4)])
            out.flush()
            print(f"step {step:5d} ep {epoch} train_loss {np.mean(running):.3f} (last {loss.item():.3f}) dev_loss {dev_loss:.3f} "
                  f"CER {cer:.3f} WER {wer:.3f} acc {kw_acc:.3f} [{time.time() - t0:.0f}s]", flush=True)
            running = []
print("final dev samples:")
for h, (_, r) in list(zip(hyps, dev))[:5]:
    print(f"  {r:22s} -> {h}")
'''


# ==============================================================================================
# per-run setup
# ==============================================================================================
def sh(cmd, cwd, stdout_file=None, args=()):
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONHASHSEED="0")
    t = time.time()
    with open(os.path.join(cwd, stdout_file), "w") if stdout_file else open(os.devnull, "w") as out:
        p = subprocess.run([sys.executable] + list(cmd) + list(args), cwd=cwd, stdout=out,
                           stderr=subprocess.STDOUT if stdout_file else subprocess.PIPE, env=env)
    if p.returncode != 0:
        err = p.stderr.decode() if p.stderr else open(os.path.join(cwd, stdout_file)).read()[-3000:]
        raise RuntimeError(f"{cmd} failed in {cwd}:\n{err}")
    print(f"    {' '.join(cmd)}  {time.time() - t:.1f}s", flush=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def rm(d, *names):
    for n in names:
        p = os.path.join(d, n)
        if os.path.isdir(p):
            shutil.rmtree(p)
        elif os.path.exists(p):
            os.remove(p)


def rm_glob(d, suffixes):
    for root, dirs, files in os.walk(d):
        for f in files:
            if f.endswith(suffixes):
                os.remove(os.path.join(root, f))
        for dd in list(dirs):
            if dd == "__pycache__":
                shutil.rmtree(os.path.join(root, dd))


def scrub_paths(d):
    """warnings print the script's absolute path; make it relative to the run folder."""
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            try:
                txt = open(p, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            if d in txt:
                with open(p, "w", encoding="utf-8") as fh:
                    fh.write(txt.replace(d + os.sep, "").replace(d, "."))


def blocks():
    return dict(SYNTH=SYNTH_OCR, CRNN=CRNN, EDIT=EDIT)


# --- run01: crnn.pytorch, data order not shuffled --------------------------------------------
def run01(d):
    write(f"{d}/train.py", fill(TRAIN_CRNN_PT, **blocks()))
    sh(["train.py"], d, "train.log")
    rm(d, "train.py")


# --- run02: healthy dtrb ------------------------------------------------------------------------
def run02(d):
    o = dict(OPT_DTRB_BASE)
    o.update(character="0123456789abcdefghijklmnop", font_seed=12, num_iter=700, valInterval=50,
             adam=True, lr=0.003)
    write(f"{d}/train.py", fill(TRAIN_DTRB, OPT=opt_literal(o), **blocks()))
    sh(["train.py"], d)
    rm(d, "train.py")


# --- run11: vanishing gradients, dtrb + tensorboard ---------------------------------------------
def run11(d):
    o = dict(OPT_DTRB_BASE)
    o.update(exp_name="None-SigVGG-BiGRU-CTC-Seed1111", adam=True, lr=0.001, grad_clip=5,
             FeatureExtraction="SigmoidVGG", n_mid=5, num_iter=300, valInterval=25,
             character="0123456789abcdefghij", font_seed=13, tensorboard=True)
    write(f"{d}/train.py", fill(TRAIN_DTRB, OPT=opt_literal(o), **blocks()))
    sh(["train.py"], d)
    rm(d, "train.py")


# --- run06: eval mode forgotten, dtrb train + demo.py ----------------------------------------------
def run06(d):
    o = dict(OPT_DTRB_BASE)
    o.update(exp_name="None-VGG-BiGRU-CTC-Seed2024", manualSeed=2024, adam=True, lr=0.003,
             num_iter=1000, valInterval=100, dropout=0.5, character="0123456789abcdefghij", font_seed=14)
    write(f"{d}/train.py", fill(TRAIN_DTRB, OPT=opt_literal(o), **blocks()))
    write(f"{d}/demo.py", DEMO_DTRB)
    sh(["train.py"], d)
    S = _synth_module()
    font = S["make_font"](o["character"], o["font_seed"])
    imgs, texts = S["synth_words"](14, 77, o["character"], font)
    write_png_set(f"{d}/demo_image", imgs, texts, [f"{i:02d}_{t}.png" for i, t in enumerate(texts)])
    sh(["demo.py"], d, "demo_result_1.txt")
    sh(["demo.py"], d, "demo_result_2.txt")
    rm(d, "demo_image")


# --- run04: PaddleOCR style, dict order differs at inference ----------------------------------------
def run04(d):
    rs = np.random.RandomState(404)
    true = "0123456789ABCEHKMPTX"
    S = _synth_module()
    font = S["make_font"](true, 21)
    # the dict the user built at data-prep time: order of first appearance in the label file
    _, labels = S["synth_words"](3200, 1, true, font, minlen=4, maxlen=6)
    order = []
    for t in labels:
        for c in t:
            if c not in order:
                order.append(c)
    write(f"{d}/ppocr/utils/dict/plate_dict.txt", "\n".join(order) + "\n")
    write(f"{d}/ppocr/utils/dict/plate_dict_clean.txt", "\n".join(sorted(true)) + "\n")
    write(f"{d}/configs/rec/rec_tiny_crnn_plate.yml", PADDLE_CFG.replace("@@DICT@@", "./ppocr/utils/dict/plate_dict.txt"))
    infer_cfg = PADDLE_CFG.replace("@@DICT@@", "./ppocr/utils/dict/plate_dict_clean.txt").replace(
        "  pretrained_model:\n", "  pretrained_model: ./output/rec_tiny_crnn_plate/best_accuracy\n")
    write(f"{d}/configs/rec/rec_tiny_crnn_plate_infer.yml", infer_cfg)
    write(f"{d}/tools/train.py", fill(TRAIN_PADDLE, **blocks()))
    write(f"{d}/tools/infer_rec.py", fill(INFER_PADDLE, **blocks()))
    sh(["tools/train.py", "configs/rec/rec_tiny_crnn_plate.yml"], d, "train_stdout.txt")
    imgs, texts = S["synth_words"](12, 505, true, font, minlen=4, maxlen=6)
    write_png_set(f"{d}/test_crops", imgs, texts, [f"plate_{i:03d}.png" for i in range(len(texts))])
    write(f"{d}/test_crops_labels.txt", "".join(f"test_crops/plate_{i:03d}.png\t{t}\n" for i, t in enumerate(texts)))
    os.makedirs(f"{d}/output/rec", exist_ok=True)
    sh(["tools/infer_rec.py", "configs/rec/rec_tiny_crnn_plate_infer.yml"], d, "infer.log")
    shutil.copy(f"{d}/configs/rec/rec_tiny_crnn_plate.yml", f"{d}/output/rec_tiny_crnn_plate/config.yml")
    rm(d, "tools", "test_crops", "train_stdout.txt")


# --- run08: label index collides with blank ---------------------------------------------------------
def run08(d):
    write(f"{d}/config.yaml", """# meter reading recognizer
alphabet: "0123456789"
blank: 0
seed: 3
n_train: 3000
n_val: 300
min_len: 4
max_len: 7
img_w: 72
hidden: 64
batch_size: 64
lr: 0.003
epochs: 9
log_every: 10
""")
    write(f"{d}/train.py", fill(TRAIN_METER, **blocks()))
    sh(["train.py"], d)


# --- run05: overfitting --------------------------------------------------------------------------
def run05(d):
    write(f"{d}/config.json", json.dumps({
        "alphabet": "abcdefghijklmnopqrstuvwxyz", "n_train": 160, "n_val": 200, "hidden": 128,
        "lr": 0.003, "batch_size": 32, "epochs": 150, "seed": 0,
        "note": "fine-tune set: 160 labelled crops from the archive scans"}, indent=2) + "\n")
    write(f"{d}/train.py", fill(TRAIN_OVERFIT, **blocks()))
    sh(["train.py"], d, "train_output.txt")
    rm(d, "train.py")


# --- run10: EasyOCR trainer, images and labels paired in different orders -------------------------
def run10(d):
    S = _synth_module()
    cs = "0123456789abcdefghijklmnopqrstuvwxyz"
    font = S["make_font"](cs, 31)
    for split, n, seed in (("all_data/en_train", 2000, 1), ("all_data/en_val", 200, 2)):
        imgs, texts = S["synth_words"](n, seed, cs, font)
        names = [f"{i}.png" for i in range(n)]
        write_png_set(f"{d}/{split}", imgs, texts, names)
        write(f"{d}/{split}/labels.csv", "filename,words\n" + "".join(f"{a},{b}\n" for a, b in zip(names, texts)))
    write(f"{d}/config_files/en_receipts_config.yaml", EASYOCR_CFG)
    write(f"{d}/train.py", fill(TRAIN_EASYOCR, **blocks()))
    sh(["train.py", "config_files/en_receipts_config.yaml"], d, "stdout.txt")
    rm(d, "all_data", "stdout.txt")


# --- run12: inversion in the training loader only ---------------------------------------------------
def run12(d):
    S = _synth_module()
    cs = "0123456789abcdefghij"
    font = S["make_font"](cs, 41)
    for split, n, seed in (("data/train", 3000, 1), ("data/val", 300, 2), ("samples", 16, 3)):
        imgs, texts = S["synth_words"](n, seed, cs, font)
        names = [f"crop_{i:05d}.png" for i in range(n)]
        write_png_set(f"{d}/{split}", imgs, texts, names)
        write(f"{d}/{split}/gt.txt", "".join(f"{a}\t{b}\n" for a, b in zip(names, texts)))
    write(f"{d}/charset.txt", cs + "\n")
    write(f"{d}/config.yaml", """seed: 1
charset: charset.txt
train_dir: data/train
val_dir: data/val
img_h: 16
img_w: 64
hidden: 64
dropout: 0.1
lr: 0.004
weight_decay: 0.0001
batch_size: 64
epochs: 8
checkpoint: crnn_best.pt
""")
    write(f"{d}/train.py", fill(TRAIN_INV, **blocks()))
    write(f"{d}/predict.py", fill(PREDICT_INV, **blocks()))
    sh(["train.py"], d)
    sh(["predict.py", "samples"], d, "predict_output.txt")
    rm(d, "data", "samples")


# --- run03: frame stacking makes inputs shorter than targets ------------------------------------------
def run03(d):
    write(f"{d}/train.py", fill(TRAIN_KWS_SUBSAMPLE, SYNTH=SYNTH_KWS))
    sh(["train.py"], d, "train.log")


# --- run07: lr too high, SGD momentum ---------------------------------------------------------------
def run07(d):
    write(f"{d}/conf/train_kws_ctc.yaml", KWS_LR_YAML)
    write(f"{d}/train.py", fill(TRAIN_KWS_LR, SYNTH=SYNTH_KWS, EDIT=EDIT))
    sh(["train.py"], d)
    rm(d, "train.py")


# --- run09: healthy but noisy KWS ---------------------------------------------------------------------
def run09(d):
    write(f"{d}/train.py", fill(TRAIN_KWS_NOISY, SYNTH=SYNTH_KWS, EDIT=EDIT))
    sh(["train.py"], d, "train_stdout.log")


RUNS = {
    "run01": (run01, {
        "truth": "data_not_shuffled",
        "symptom": "The training loss goes up and down in a regular pattern every epoch and the test accuracy keeps jumping between good and bad from one validation to the next.",
        "how": "crnn.pytorch-style script run without --random_sample: the DataLoader has shuffle=False and no sampler, and the training set is two sources written one after the other (600 digit-only strings, then 600 letter-only strings), so every epoch is digits first, then letters. Validation is half digit strings, half letter strings."}),
    "run02": (run02, {
        "truth": "healthy",
        "symptom": "Is this run ok? The loss sat flat for the first couple of hundred iterations and I am not sure the final accuracy is as good as it gets.",
        "how": "No fault: dtrb-style CRNN (tiny VGG + BiGRU + CTC), Adam lr 3e-3 with grad_clip 5, 4000 synthetic crops, 26-character set, 700 iterations."}),
    "run03": (run03, {
        "truth": "numerical_instability",
        "symptom": "My keyword spotting model prints loss inf in the first steps and nan after that, and it never recovers.",
        "how": "The model stacks 4 input frames (time subsampling x4) before the GRU, so many utterances have fewer output frames than transcript characters (plus the blanks needed between repeated letters); nn.CTCLoss is used without zero_infinity, so those batches give an inf loss whose gradients are NaN and the weights become NaN."}),
    "run04": (run04, {
        "truth": "tokenizer_mismatch",
        "symptom": "Training reached high accuracy on the eval set, but when I run infer_rec on new plate crops the results come out as wrong characters, even though the confidence is high.",
        "how": "Training uses ppocr/utils/dict/plate_dict.txt (characters in order of first appearance in the label file); the inference config points to plate_dict_clean.txt, the same 20 characters sorted, so every index decodes to a different character."}),
    "run05": (run05, {
        "truth": "overfitting",
        "symptom": "The training loss goes almost to zero but the validation CER is terrible and the validation loss actually gets worse the longer I train.",
        "how": "Only 160 training crops (26 letters), a wider GRU (hidden 128), no augmentation or regularisation, 150 epochs with Adam 3e-3; validation on 200 fresh crops."}),
    "run06": (run06, {
        "truth": "eval_mode_forgotten",
        "symptom": "Validation accuracy during training is about 80%, but demo.py gives different predictions and very different confidence scores every time I run it on the same images.",
        "how": "The model has dropout 0.5 (on the CNN features and before the classifier) plus BatchNorm; demo.py loads best_accuracy.pth and predicts without calling model.eval(), so dropout is active and BatchNorm uses the batch statistics of the demo batch."}),
    "run07": (run07, {
        "truth": "lr_too_high",
        "symptom": "The CTC loss went down on the second batch and then shot up to hundreds within ten steps; it never comes back down and CER is 100%.",
        "how": "SGD with momentum 0.9 and lr 0.4 on a conv1d + 2-layer BiGRU CTC keyword model (grad_clip 50, which barely bites); the same config at lr 0.12 (or lr 0.4 with grad_clip 5) reaches CER < 3% (checked while building)."}),
    "run08": (run08, {
        "truth": "label_out_of_range",
        "symptom": "My meter-reading model's loss goes negative, and its accuracy gets stuck around 50%; the predictions seem to drop some of the digits.",
        "how": "The label converter maps characters with enumerate() starting at 0 while CTCLoss uses blank=0, so the digit '0' gets the blank's index (and class 10 is never used); targets equal to the blank make the CTC loss negative, and every '0' is decoded as blank and dropped."}),
    "run09": (run09, {
        "truth": "healthy",
        "symptom": "Is this run ok? The loss is very jumpy and it learns slowly, so I'm not sure it is training properly.",
        "how": "No fault: batch size 8 and Adam 4e-4 on noisy synthetic keyword features (noise std 0.9); loss noisy, CER and WER fall steadily."}),
    "run10": (run10, {
        "truth": "label_misalignment",
        "symptom": "With the EasyOCR trainer on my own receipt crops, the loss stops going down after the first few hundred iterations and the accuracy stays at 0.",
        "how": "The OCRDataset pairs sorted(os.listdir()) image names (0.png, 1.png, 10.png, 100.png, ...) with the labels.csv rows, which are in numeric order, so almost every image gets another image's transcript; the same holds for validation."}),
    "run11": (run11, {
        "truth": "vanishing_gradients",
        "symptom": "The loss hardly moves from the start, the model outputs nothing but blanks, and accuracy stays at 0 after 300 iterations.",
        "how": "The feature extractor is 8 conv layers, each followed by a sigmoid, with no BatchNorm and no residuals (SigmoidVGG); the per-layer grad norms in TensorBoard fall by several orders of magnitude towards the input."}),
    "run12": (run12, {
        "truth": "preprocessing_mismatch",
        "symptom": "Validation CER gets down to about 8% during training, but predict.py gets almost every sample wrong or empty, on crops from the same source.",
        "how": "train.py's load_crop inverts the images (1 - x) before normalising; predict.py's preprocess does not, so at inference the model sees dark text on a light background instead of light on dark."}),
}


def main():
    names = sys.argv[1:] or sorted(RUNS)
    os.makedirs(RUNS_DIR, exist_ok=True)
    for name in names:
        fn, _ = RUNS[name]
        d = os.path.join(RUNS_DIR, name)
        if os.path.exists(d):
            shutil.rmtree(d)
        os.makedirs(d)
        t = time.time()
        print(f"[{name}]", flush=True)
        fn(d)
        rm_glob(d, (".pth", ".pt"))
        scrub_paths(d)
        print(f"  done {time.time() - t:.1f}s", flush=True)
    with open(os.path.join(HERE, "truth.json"), "w") as f:
        json.dump({k: v for k, (_, v) in sorted(RUNS.items())}, f, indent=2)


if __name__ == "__main__":
    main()
