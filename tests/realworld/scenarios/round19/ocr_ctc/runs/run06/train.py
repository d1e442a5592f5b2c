import os
import sys
import time
import random

import numpy as np
import torch
import torch.nn as nn

torch.set_num_threads(1)

opt = {
    'exp_name': 'None-VGG-BiGRU-CTC-Seed2024',
    'train_data': 'data_lmdb_release/training',
    'valid_data': 'data_lmdb_release/validation',
    'manualSeed': 2024,
    'workers': 4,
    'batch_size': 64,
    'num_iter': 1000,
    'valInterval': 100,
    'saved_model': '',
    'FT': False,
    'adam': True,
    'lr': 0.003,
    'beta1': 0.9,
    'rho': 0.95,
    'eps': 1e-08,
    'grad_clip': 5,
    'baiduCTC': False,
    'select_data': ['SynthGlyph'],
    'batch_ratio': ['1'],
    'total_data_usage_ratio': 1.0,
    'batch_max_length': 6,
    'imgH': 16,
    'imgW': 64,
    'rgb': False,
    'character': '0123456789abcdefghij',
    'sensitive': False,
    'PAD': False,
    'data_filtering_off': False,
    'Transformation': 'None',
    'FeatureExtraction': 'VGG',
    'SequenceModeling': 'BiGRU',
    'Prediction': 'CTC',
    'num_fiducial': 20,
    'input_channel': 1,
    'output_channel': 48,
    'hidden_size': 64,
    'num_gpu': 0,
    'font_seed': 14,
    'num_train': 4000,
    'num_valid': 300,
    'dropout': 0.5,
}

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


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            cur = d[j]
            d[j] = min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
            prev = cur
    return d[len(b)]


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
