import os
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
