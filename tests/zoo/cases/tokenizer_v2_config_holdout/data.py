"""Corpus and character tokenizer."""
import json

import torch

WORDS = ("the cat dog sat ran on a mat log big small red blue fox jumps over lazy quick brown "
         "and then saw it was very far near under tree house").split()


def make_corpus(n_sentences, seed):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_sentences):
        n = int(torch.randint(4, 9, (1,), generator=g))
        idx = torch.randint(0, len(WORDS), (n,), generator=g)
        out.append(" ".join(WORDS[i] for i in idx.tolist()) + ".")
    return " ".join(out)


class CharTokenizer:
    def __init__(self, chars):
        self.chars = list(chars)
        self.stoi = {c: i for i, c in enumerate(self.chars)}

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls(json.load(f)["chars"])

    def save(self, path):
        with open(path, "w") as f:
            json.dump({"chars": self.chars}, f)

    def encode(self, text):
        return torch.tensor([self.stoi.get(c, 0) for c in text])
