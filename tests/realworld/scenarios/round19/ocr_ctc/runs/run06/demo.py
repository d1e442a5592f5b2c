import os
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
