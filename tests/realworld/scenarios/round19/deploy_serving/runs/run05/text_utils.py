import re
from collections import Counter

TOKEN_RE = re.compile(r"[a-z0-9_]+")


def tokenize(text):
    return TOKEN_RE.findall(text.lower())


def build_vocab(texts, max_size=5000, min_freq=1):
    counts = Counter(t for text in texts for t in tokenize(text))
    itos = ["<pad>", "<unk>"] + [w for w, c in counts.most_common(max_size - 2) if c >= min_freq]
    return {w: i for i, w in enumerate(itos)}


def encode(text, vocab):
    return [vocab.get(t, 1) for t in tokenize(text)] or [1]
