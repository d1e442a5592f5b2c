"""Char-level GRU LM."""
import torch.nn as nn


class CharLM(nn.Module):
    def __init__(self, vocab, cfg):
        super().__init__()
        self.embed = nn.Embedding(vocab, cfg["emb"])
        self.rnn = nn.GRU(cfg["emb"], cfg["hidden"], batch_first=True)
        self.head = nn.Linear(cfg["hidden"], vocab)

    def forward(self, x):
        h, _ = self.rnn(self.embed(x))
        return self.head(h)
