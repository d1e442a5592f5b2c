import torch
from torch.utils.data import Dataset


class WindowDataset(Dataset):
    # sliding windows over a 1-D load series: `window` steps in, `horizon` steps out

    def __init__(self, series, window=48, horizon=6):
        self.series = torch.as_tensor(series, dtype=torch.float32)
        self.window = window
        self.horizon = horizon

    def __len__(self):
        return len(self.series) - self.window

    def __getitem__(self, i):
        x = self.series[i : i + self.window]
        y = self.series[i + self.window : i + self.window + self.horizon]
        return x, y
