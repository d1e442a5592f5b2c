import time
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.set_num_threads(1)
torch.manual_seed(3)

MAX_LEN = 48
PAD, UNK, BOS, EOS = 0, 1, 2, 3


def read_tsv(path):
    rows = []
    with open(path) as f:
        for line in f:
            label, text = line.rstrip("\n").split("\t")
            rows.append((int(label), text))
    return rows


class ReviewDataset(Dataset):
    def __init__(self, rows, vocab, max_len=MAX_LEN):
        self.rows, self.vocab, self.max_len = rows, vocab, max_len

    def __len__(self):
        return len(self.rows)

    def encode(self, text):
        ids = [self.vocab.get(t, UNK) for t in text.split()]
        ids = [BOS] + ids[:self.max_len] + [EOS]
        ids = ids + [PAD] * (self.max_len - len(ids))
        return torch.tensor(ids)

    def __getitem__(self, i):
        label, text = self.rows[i]
        return self.encode(text), label


class GRUClassifier(nn.Module):
    def __init__(self, vocab_size, emb=64, hidden=128, n_cls=3):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, emb, padding_idx=PAD)
        self.rnn = nn.GRU(emb, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_cls)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        mask = (x != PAD).float().unsqueeze(-1)
        return self.head((h * mask).sum(1) / mask.sum(1))


def evaluate(model, loader):
    model.eval()
    correct = n = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            n += len(y)
    return correct / n


if __name__ == "__main__":
    train_rows, valid_rows = read_tsv("data/train.tsv"), read_tsv("data/valid.tsv")
    vocab = {"<pad>": PAD, "<unk>": UNK, "<s>": BOS, "</s>": EOS}
    for _, t in train_rows:
        for tok in t.split():
            vocab.setdefault(tok, len(vocab))
    train_dl = DataLoader(ReviewDataset(train_rows, vocab), batch_size=32, shuffle=True, num_workers=2)
    valid_dl = DataLoader(ReviewDataset(valid_rows, vocab), batch_size=64, num_workers=2)
    model = GRUClassifier(len(vocab))
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    print(f"vocab={len(vocab)} train={len(train_rows)} valid={len(valid_rows)}", flush=True)
    step = 0
    for epoch in range(1, 11):
        model.train()
        t0 = time.time()
        for x, y in train_dl:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % 25 == 0:
                print(f"[ep {epoch}] step {step} loss {loss.item():.4f}", flush=True)
        print(f"[ep {epoch}] done in {time.time() - t0:.1f}s", flush=True)
        if epoch % 2 == 0:
            print(f"[ep {epoch}] valid_acc {evaluate(model, valid_dl):.4f}", flush=True)
